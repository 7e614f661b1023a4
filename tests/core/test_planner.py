"""robeval.core.publish.planner: the exact allocation on a hand-made ledger set whose optimum is computed by hand, the
budget's edge cases, rows without a stable_n, the slowdown and cores factors, trimming, the measured seconds of
every [default] estimate, the CLI's final JSON line, and docs/running.md's plan tables against the planner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robeval.__main__ import main
from robeval.core.profiles import experiments, load_table
from robeval.core.publish import planner

ROOT = Path(__file__).resolve().parents[2]


def _row(id, verdict="inconclusive", stable_n=None, n_runs=4, central=True, part_of=""):
    return {"id": id, "kind": "comparison", "evidence": "scaled replication", "unit": "training runs",
            "verdict": verdict, "stable_n": stable_n, "n_runs": n_runs, "central": central, "part_of": part_of}  # fmt: skip


# A: 600 s measured at n = 4, 200 s fixed -> 100 s per run; B: 300 s at m = 5, no fixed part -> 60 s per run
UNITS = """
[notebooks.A]
measured_s = 600
fixed_s = 200
runs = { n = { now = 4 } }
[notebooks.B]
measured_s = 300
runs = { m = { now = 5 } }
"""


@pytest.fixture
def ledgers(tmp_path):
    """Two notebooks: A's a1 needs 6 runs (+200 s), a2 10 (+600 s), a3 has no stable_n, a4 is decided; B's b1 needs
    7 (+120 s), b2 9 (+240 s), b3 is a readings row with a reading without stable_n (never), b4 one whose undecided
    reading needs 6 (+60 s) and whose other reading is decided."""
    folder = tmp_path / "claims"
    folder.mkdir()
    a = [_row("a1", stable_n=6), _row("a2", stable_n=10), _row("a3"), _row("a4", "reproduced", stable_n=4)]
    b = [_row("b1", stable_n=7, n_runs=5), _row("b2", stable_n=9, n_runs=5), _row("b3", n_runs=5),
         _row("b3.x", stable_n=8, n_runs=5, central=False, part_of="b3"),
         _row("b3.y", n_runs=5, central=False, part_of="b3"), _row("b4", n_runs=5),
         _row("b4.x", stable_n=6, n_runs=5, central=False, part_of="b4"),
         _row("b4.y", "reproduced", stable_n=5, n_runs=5, central=False, part_of="b4")]  # fmt: skip
    for name, rows in (("A", a), ("B", b)):
        # a whole saved ledger: its paper and profile, which the reader checks (probe M6)
        led = {"paper": "core", "notebook": name, "profile": "default", "claims": rows}
        (folder / f"{name}.json").write_text(json.dumps(led))
    units = tmp_path / "units.toml"
    units.write_text(UNITS)
    return {"claims_dir": folder, "units": units}


def _runs(p):
    return {r.notebook: r.runs for r in p.rows}


def test_the_optimum_by_hand(ledgers):
    # 15 min now. 20 min = 300 s more: B -> 9 (240 s, 3 rows) beats A -> 6 with B -> 6 (260 s, 2 rows)
    p = planner.plan(20, **ledgers)
    assert _runs(p) == {"A": {"n": 4}, "B": {"m": 9}}
    assert (p.central, p.decided_now, p.decided) == (8, 1, 4)
    assert p.as_json()["decides"] == {"B": ["b1", "b2", "b4"]}
    assert p.minutes_now == pytest.approx(15.0) and p.minutes == pytest.approx(19.0)
    # the table names the central rows each notebook decides now, then (bold) those the plan adds
    table = p.table()
    assert "| A | 10.0 → 10.0 | n 4 | 1 → 1 of 4 | `a4` |" in table
    assert "| B | 5.0 → 9.0 | m 5 → 9 | 0 → 3 of 4 | **`b1`** (new), **`b2`** (new), **`b4`** (new) |" in table
    # 25 min = 600 s more: A -> 6 and B -> 9 (440 s, 4 rows) beats A -> 10 alone (600 s, 2 rows)
    p = planner.plan(25, **ledgers)
    assert _runs(p) == {"A": {"n": 6}, "B": {"m": 9}} and p.decided == 5
    assert p.minutes == pytest.approx((900 + 440) / 60)
    # 30 min: every reachable row (a1, a2, b1, b2, b4); a3 and b3 never, however large the budget
    for budget in (30, 10_000):
        p = planner.plan(budget, **ledgers)
        assert _runs(p) == {"A": {"n": 10}, "B": {"m": 9}} and p.decided == 6
        assert sorted(i for r in p.rows for i in r.decides) == ["a1", "a2", "b1", "b2", "b4"]
    assert p.minutes == pytest.approx((900 + 600 + 240) / 60)
    assert p.changes() == [{"file": "A", "table": "default", "key": "n", "now": 4, "planned": 10},
                           {"file": "B", "table": "default", "key": "m", "now": 5, "planned": 9}]  # fmt: skip


def test_a_pipeline_check_says_which_profile_decides_its_rows(ledgers):
    path = Path(ledgers["claims_dir"]) / "B.json"
    led = json.loads(path.read_text())
    path.write_text(json.dumps({**led, "decided_by": "gpu"}))
    row = next(r for r in planner.plan(15, **ledgers).rows if r.notebook == "B")
    assert row.pipeline_check == "gpu" and row.decided_ids == ()
    assert "a pipeline check: its rows about models need the `gpu` profile" in planner.plan(15, **ledgers).table()


def test_a_budget_below_the_current_cost_names_the_fix(ledgers):
    assert planner.plan(15, **ledgers).decided == 1  # exactly the current cost: nothing more, nothing less
    with pytest.raises(ValueError, match=r"less than the 15\.0 .*raise --budget-min to at least 15"):
        planner.plan(14.9, **ledgers)
    for bad in (0, -5, float("nan"), True):
        with pytest.raises(ValueError, match="budget_min must be a finite number > 0"):
            planner.plan(bad, **ledgers)
    with pytest.raises(ValueError, match="cores must be an integer >= 1"):
        planner.plan(20, cores=0, **ledgers)


def test_slowdown_scales_every_minute(ledgers):
    # 25 min at 1.25x holds 20 measured minutes: the 20-minute plan, its minutes x 1.25
    p = planner.plan(25, slowdown=1.25, **ledgers)
    assert _runs(p) == {"A": {"n": 4}, "B": {"m": 9}}
    assert p.minutes_now == pytest.approx(15 * 1.25) and p.minutes == pytest.approx(19 * 1.25)
    with pytest.raises(ValueError, match=r"raise --budget-min to at least 22\.5"):
        planner.plan(20, slowdown=1.5, **ledgers)  # 13.3 measured minutes < 15
    # also= : the plan fits every budget, here 25 min and 25 min at 1.25x (= 20 measured)
    assert _runs(planner.plan(25, also=((25, 1.25),), **ledgers)) == _runs(planner.plan(20, **ledgers))
    assert planner.parse_also(["60@1.75"]) == ((60.0, 1.75),)
    with pytest.raises(ValueError, match="is not MIN@SLOWDOWN; write e.g. --also 60@1.75"):
        planner.parse_also(["60"])


def test_cores_spread_the_runs_not_the_fixed_part(ledgers):
    p = planner.plan(20, cores=4, **ledgers)  # A: 200 + 4 x 50 s, B: 5 x 30 s
    assert p.minutes_now == pytest.approx((400 + 150) / 60)
    assert _runs(p) == {"A": {"n": 10}, "B": {"m": 9}}  # 200 + 500 + 270 s = 16.2 min


def test_trim_only_where_it_buys_rows_or_fits(ledgers, tmp_path):
    units = Path(ledgers["units"])
    units.write_text(UNITS.replace("measured_s = 300", "measured_s = 300\ntrim = { seconds = 30 }"))
    # B decides nothing now and may be trimmed (300 -> 30 s); at 15 min trimming B frees 270 s for a1 (200 s)
    p = planner.plan(15, **ledgers)
    assert [r.notebook for r in p.rows if r.trimmed] == ["B"] and _runs(p)["A"] == {"n": 6} and p.decided == 2
    # a budget that fits B's own rows better keeps it; below the trimmed cost: the error counts the trim
    assert not any(r.trimmed for r in planner.plan(30, **ledgers).rows)
    with pytest.raises(ValueError, match=r"less than the 10\.5 "):
        planner.plan(10, **ledgers)


def test_measured_seconds_of_every_default_estimate():
    assert planner.measured_seconds("measured 6.1 min (367 s) on 2 CPU cores") == 367
    assert planner.measured_seconds("measured 14 s on 2 CPU cores") == 14
    with pytest.raises(ValueError, match="does not start with 'measured"):
        planner.measured_seconds("estimate: ~1 min on 2 idle CPU cores")
    total = sum(planner.measured_seconds(load_table(e)["default"]["estimate"]) for e in experiments())
    # one fresh-clone make reproduce (2026-11-28, b77874b): 2580 s of notebooks, 2685 s with the virtual environment
    assert total == 2580


def test_the_committed_plan():
    p = planner.plan(45)
    assert p.minutes <= 45
    assert p.minutes_now == pytest.approx(44.75, abs=0.01)  # 2580 s of notebooks + 105 s of virtual environment
    assert p.decided >= p.decided_now == 8  # central rows decided at default (rule 8 left F5a_1nn_clean_constant open)
    assert planner.plan(60, slowdown=1.3).minutes <= 60  # a machine 1.3x slower still fits the hour
    # a machine 1.75x slower does not: the planner says so and names the fix
    with pytest.raises(ValueError, match="raise --budget-min to at least 78.4"):
        planner.plan(60, slowdown=1.75)
    # nor does an --also budget of the same size: the fix named is that budget's, not --budget-min (probe F #11)
    with pytest.raises(ValueError, match=r"raise the --also budget 60@1.75 to at least 78.4@1.75 \(or drop it\)"):
        planner.plan(200, also=[(60, 1.75)])
    for r in p.rows:
        assert all(r.runs[k] >= r.runs_now[k] for k in r.runs)  # run counts only grow
        assert not (r.trimmed and r.decided_now)  # a notebook deciding a central row is never trimmed


def test_docs_plan_tables_are_the_planners():
    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    assert text.count("<!-- plan:begin") == 2
    assert planner.render_marked(text) == text, "docs/running.md's plan tables drifted: run planner.update_docs()"


def test_cli_final_json_line(capsys):
    assert main(["plan", "--budget-min", "45", "--also", "60@1.3"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    last = json.loads(out[-1])
    assert last == json.loads(json.dumps(planner.plan(45, also=((60, 1.3),)).as_json()))
    assert last["budget_min"] == 45 and last["also"] == [[60, 1.3]] and last["minutes"] <= 45
    assert out[0].startswith("| notebook | minutes")
    assert main(["plan", "--budget-min", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robeval: a budget of 10 min") and "raise --budget-min to at least" in err


@pytest.mark.parametrize("profile", ["paper", "gpu", "long", "smoke"])
def test_plan_at_another_profile_refuses_in_one_line(profile, capsys):
    """Issue 62, item 5: `robeval plan --profile paper` could never work (its estimates are grid core-hours, not
    the measured notebook minutes the cost model is anchored at) and said so only as a parse error of one file."""
    from robeval.__main__ import main

    assert main(["plan", "--budget-min", "600", "--profile", profile]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "sizes the runs of the default profile only" in err and f"the {profile} profile's settings" in err
    assert "--profile default" in err
    with pytest.raises(ValueError, match="Unknown profile"):
        planner.plan(60, profile="nope")
