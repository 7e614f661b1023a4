"""Issue 60, item 7: the stability the ledger predicts matches the reruns recorded in docs/reliability.md — the
changed verdicts over every recorded rerun against the sum of the rows' 1 − agreement; the page's and the README's
counts are the table's; a row that changed in two independent reruns is decided at no profile."""

import math
import re

import pytest

from robeval.core import paths
from robeval.core.ledger import load_ledgers
from robeval.core.stats import calibration_p

RELIABILITY = paths.ROOT / "docs" / "reliability.md"


def _reruns() -> list[dict]:
    """The rerun table of docs/reliability.md: notebook, rerun, decided, changed, predicted (None when blank)."""
    rows = []
    for line in RELIABILITY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or not re.fullmatch(r"\d\d", cells[0]):
            continue
        rows.append(
            {
                "notebook": cells[0],
                "rerun": cells[1],
                "decided": int(cells[2]),
                "changed": int(cells[3].split()[0]),
                "predicted": float(cells[6]) if cells[6] else None,
            }
        )
    return rows


def test_calibration_p_by_hand():
    assert calibration_p(4, 4.1) == 1.0  # the mode: both tails above 1/2
    # 10 changes where 4.1 were expected: 2 * P(X >= 10), X ~ Poisson(4.1)
    tail = 1 - sum(math.exp(-4.1) * 4.1**k / math.factorial(k) for k in range(10))
    assert calibration_p(10, 4.1) == pytest.approx(2 * tail)
    assert calibration_p(0, 4.1) == pytest.approx(2 * math.exp(-4.1))  # too few changes fails too
    for bad, error in ((-1, ValueError), (1.5, ValueError), (True, TypeError)):  # a bool is not a count
        with pytest.raises(error, match="^observed must be a count of changed verdicts"):
            calibration_p(bad, 1.0)
    with pytest.raises(ValueError, match="predicted"):
        calibration_p(1, 0.0)


def test_the_recorded_reruns_agree_with_the_predicted_changes():
    rows = [r for r in _reruns() if r["predicted"] is not None]
    assert len(rows) >= 6
    observed, predicted = sum(r["changed"] for r in rows), sum(r["predicted"] for r in rows)
    p = calibration_p(observed, predicted)
    assert p > 0.05, (observed, predicted)
    text = " ".join(RELIABILITY.read_text(encoding="utf-8").split())
    assert (
        f"{observed} verdicts changed against {predicted:.1f} predicted: the two-sided Poisson p of that count is "
        f"{p:.2f}" in text
    )
    assert all(0 <= r["changed"] <= r["decided"] for r in _reruns())


def test_the_page_and_the_readme_count_what_the_table_records():
    rows = _reruns()
    # the four reruns of the first rules: 01 with seeds 7 and 3, 05 at 5 runs, 03
    first_four = [r for r in rows if r["predicted"] is not None and (r["notebook"] != "05" or "(5 runs" in r["rerun"])]
    assert [r["notebook"] for r in first_four] == ["01", "01", "05", "03"]
    decided, changed = sum(r["decided"] for r in first_four), sum(r["changed"] for r in first_four)
    predicted = sum(r["predicted"] for r in first_four)
    text = " ".join(RELIABILITY.read_text(encoding="utf-8").split())
    assert (
        f"Over the four reruns, {changed} of {decided} decided verdicts changed ({100 * changed / decided:.1f}%), "
        f"none to the opposite verdict, against {predicted:.1f} predicted" in text
    )
    readme = " ".join((paths.ROOT / "README.md").read_text(encoding="utf-8").split())
    seed7, seed3 = (next(r for r in rows if r["notebook"] == "01" and f"seed {s}" in r["rerun"]) for s in (7, 3))
    last05 = [r for r in rows if r["notebook"] == "05"][-1]
    assert (
        f"changed {seed7['changed']} of {seed7['decided']} and {seed3['changed']} of {seed3['decided']} decided "
        f"verdicts of 01 and {last05['changed']} of {last05['decided']} of 05" in readme
    )


def test_a_row_that_changed_in_two_reruns_is_decided_nowhere():
    """iris-mc-convergence changed in both of two independent reruns of 05 at 12 runs (seed 7 and seed 3)."""
    text = RELIABILITY.read_text(encoding="utf-8")
    assert "`iris-mc-convergence`" in text and "it changed in both of two" in text
    for profile in ("default", "paper"):
        for d in load_ledgers(profile):
            for c in d["claims"]:
                if c["id"] == "iris-mc-convergence":
                    assert c["verdict"] not in ("reproduced", "contradicted", "consistency", "erratum"), profile
