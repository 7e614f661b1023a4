"""Issue 60, item 7 / rule 8 of robeval.core.ledger: a decision that two independent reruns with other seeds did not
reach again is left open, whatever its stability; one such rerun is not enough; the committed record is read."""

import json

import pytest

from robeval.core import paths
from robeval.core.ledger import Ledger
from robeval.core.ledger.rules import FLIPS_TO_OPEN, flipped_in_reruns, recorded_flips
from robeval.core.stats import Interval


def _record(record) -> None:
    folder = paths.RESULTS_DIR / "default"  # the temporary project root of tmp_results
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reruns.json").write_text(json.dumps(record))


def _ledger_with(tmp_results, record: dict | None):
    if record is not None:
        _record(record)
    led = Ledger(paper="mscr", notebook="01_mscr_2d", profile="default")
    iv = Interval(1.0, 0.8, 1.2, 0.1, 40, 0.95, "t-interval over 40 runs")  # decided far from the threshold
    led.comparison("row_a", "Sec. 1", "A beats B", interval=iv, evidence="replication", unit="forest runs")
    led.comparison("row_b", "Sec. 1", "C beats D", interval=iv, evidence="replication", unit="forest runs")
    led.finalise()
    return {c.id: c for c in led.claims}


def test_two_independent_reruns_leave_a_decision_open_and_one_does_not(tmp_results):
    flips = {"01_mscr_2d": {
        "row_a": [{"rerun": "seed 7", "verdict": "inconclusive"}, {"rerun": "seed 31", "verdict": "inconclusive"}],
        "row_b": [{"rerun": "seed 7", "verdict": "inconclusive"}],
    }}  # fmt: skip
    rows = _ledger_with(tmp_results, flips)
    assert rows["row_a"].verdict == "inconclusive" and rows["row_a"].unadjusted == "reproduced"
    assert "2 independent reruns did not reach it (seed 7: 'inconclusive'; seed 31" in rows["row_a"].decides
    assert rows["row_b"].verdict == "reproduced"
    # the same rerun twice is one rerun
    twice = {"01_mscr_2d": {"row_a": [{"rerun": "seed 7", "verdict": "inconclusive"}] * 2}}
    assert _ledger_with(tmp_results, twice)["row_a"].verdict == "reproduced"
    # reruns that reached the same verdict do not count against it
    agree = {"01_mscr_2d": {"row_a": [{"rerun": s, "verdict": "reproduced"} for s in ("seed 7", "seed 31")]}}
    assert _ledger_with(tmp_results, agree)["row_a"].verdict == "reproduced"


def test_no_record_changes_nothing_and_a_malformed_one_is_named(tmp_results):
    assert _ledger_with(tmp_results, None)["row_a"].verdict == "reproduced"
    _record({"01_mscr_2d": {"row_a": ["seed 7"]}})
    with pytest.raises(ValueError, match="reruns.json.*fix the record"):
        recorded_flips("default", "01_mscr_2d")


def test_the_committed_record_leaves_the_twice_flipped_rows_open():
    record = json.loads((paths.ROOT / "results" / "default" / "reruns.json").read_text(encoding="utf-8"))
    twice = {(nb, rid) for nb, rows in record.items() if isinstance(rows, dict)
             for rid, entries in rows.items() if len({e["rerun"] for e in entries}) >= FLIPS_TO_OPEN}  # fmt: skip
    assert ("01_mscr_2d", "F5a_1nn_clean_constant") in twice
    from robeval.core.ledger import load_ledgers

    for d in load_ledgers("default"):
        for c in d["claims"]:
            if (d["notebook"], c["id"]) in twice:
                assert c["verdict"] not in ("reproduced", "contradicted", "consistency", "erratum"), c["id"]
    assert flipped_in_reruns(type("C", (), {"id": "x", "verdict": "inconclusive"})(), {}) is None
