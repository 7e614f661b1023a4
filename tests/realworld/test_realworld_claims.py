"""Tests for the claims of notebooks 05-07 (robeval.realworld.claims) and the per-run statistics they are judged on
(robeval.realworld.experiments), on small hand-made inputs: every rule reproduces on inputs that agree with the
paper and flips when the input is flipped."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from robeval.core.ledger import (
    ALLOWED,
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    UNITS,
    Ledger,
)
from robeval.realworld import claims as RC
from robeval.realworld import experiments as RX
from robeval.realworld import summaries as RS
from robeval.realworld.analytic import closed_form_maps

PHI = stats.norm.cdf(0.5)


def ledger(profile="default", scaling=""):
    return Ledger(
        paper="realworld",
        notebook="test_realworld_claims",
        profile=profile,
        scaling=scaling,
        mechanism="the relations tested survive" if scaling else "",
    )


def scaled():
    """A ledger of a scaled-down default profile (as the notebooks' default settings)."""
    return ledger(scaling="fewer runs and samples")


def verdicts(claims):
    return {c.id: c.verdict for c in claims}


def labelled(claims):
    """Every row carries an evidence class, a unit when it has an interval, and a verdict its class allows."""
    for c in claims:
        assert c.verdict in ALLOWED[c.evidence], (c.id, c.evidence, c.verdict)
        assert c.ci is None or c.unit in UNITS, c.id
    return claims


def test_claims_module_has_no_legacy_rule():
    import inspect

    src = inspect.getsource(RC)
    assert "ledger.add(" not in src and ".reproduced" not in src


@pytest.mark.parametrize("index", [RC.INDEX_05, RC.INDEX_06, RC.INDEX_07])
def test_index_entries_name_claims_or_a_reason(index):
    for e in index:
        assert e["source"] and e["statement"]
        assert bool(e.get("claims")) != bool(e.get("reason")), e["source"]


# ================================================================== intervals over runs
def test_run_interval():
    iv, dropped = RC.run_interval([0.1, 0.2, np.nan, 0.3])
    assert dropped == 1 and iv.n == 3 and iv.estimate == pytest.approx(0.2) and iv.low < 0.2 < iv.high
    iv, _ = RC.run_interval([1.0, 2.0, 3.0], paired_with=[0.5, 1.5, 2.0])
    assert iv.estimate == pytest.approx(2 / 3) and iv.method.startswith("paired")
    iv, dropped = RC.run_interval([0.4, np.nan])  # one run: no interval, every rule inconclusive
    assert dropped == 1 and iv.n == 1 and iv.estimate == 0.4 and (iv.low, iv.high) == (-math.inf, math.inf)
    with pytest.raises(ValueError, match="same runs"):
        RC.run_interval([1.0, 2.0], paired_with=[1.0])


# ================================================================== notebook 05: statistics
def _sweep_table(curves, scales=(0.001, 0.01, 0.1, 1.0, 10.0), minima=None):
    """Hand-made sweep rows: per run, the Pearson curve and (``minima``: one list per run) the smallest P_r."""
    rows = [{"run": r, "scale": s, "pearson": v} for r, curve in enumerate(curves) for s, v in zip(scales, curve)]
    if minima is not None:
        for row, m in zip(rows, [m for run in minima for m in run]):
            row["min_robustness"] = m
    return pd.DataFrame(rows)


def test_interior_peak_margins_leave_one_out():
    peaked = _sweep_table([(0.2, 0.5, 0.8, 0.6, 0.4), (0.3, 0.6, 0.7, 0.5, 0.3), (0.1, 0.4, 0.9, 0.7, 0.5)])
    m = RS.interior_peak_margins(peaked)
    # every run's peak is chosen on the other two (scale 0.1): min(c(0.1) - c(first), c(0.1) - c(last))
    assert m.tolist() == pytest.approx([0.4, 0.4, 0.4])
    rising = _sweep_table([(0.1, 0.2, 0.3, 0.4, 0.5), (0.2, 0.3, 0.4, 0.5, 0.6)])
    assert (RS.interior_peak_margins(rising) <= 0).all()  # monotone: no interior maximum
    # a scale undefined in one run (constant P_r) is dropped for all runs
    gap = _sweep_table([(np.nan, 0.5, 0.8, 0.6, 0.4), (0.3, 0.6, 0.7, 0.5, 0.3)])
    assert RS.interior_peak_margins(gap).tolist() == pytest.approx([0.3, 0.1])
    with pytest.raises(ValueError, match="at least 3"):
        RS.interior_peak_margins(_sweep_table([(np.nan, np.nan, np.nan, 0.5, 0.4)]))


def _points_table(run=0, n=6):
    """Hand-made ``<dataset>_points.csv`` rows of one run (scatter scales 0.07, 0.43; two random covariances)."""
    return pd.DataFrame(
        {
            "run": run,
            "point": np.arange(n),
            "adv_success": [True] * (n - 1) + [False],
            "adv_robustness": [0.1, 0.3, 0.5, 0.95, 1.0, np.nan][:n],
            "rw_peak": [0.6, 0.7, 0.8, 0.9, 1.0, 0.5][:n],
            "rw_peak2": [0.61, 0.69, 0.81, 0.9, 1.0, 0.5][:n],
            "rw_identity_0.07": [0.8, 0.95, 0.97, 1.0, 1.0, 0.9][:n],
            "rw_identity2_0.07": [0.81, 0.95, 0.96, 1.0, 1.0, 0.9][:n],
            "rw_identity_0.43": [0.55, 0.7, 0.8, 0.9, 0.95, 0.6][:n],
            "rw_random0_0.07": [0.7, 0.95, 0.97, 1.0, 1.0, 0.8][:n],
            "rw_random1_0.07": [0.9, 0.95, 0.97, 1.0, 1.0, 0.9][:n],
        }
    )


def test_sec41_statistics_hand_computed():
    points = _points_table()
    sweep = _sweep_table([(0.2, 0.5, 0.8, 0.6, 0.4)])
    runs = pd.DataFrame({"run": [0], "min_pairwise_corr": [0.9995]})
    st = RS.sec41_statistics(points, sweep, runs, [0.07, 0.43]).loc[0]
    # ranked: attack succeeded and both peak estimates < 1 -> points 0-3 (4 has P_r = 1, 5 failed)
    assert st["n_ranked"] == 4
    assert st["spearman_adv"] == pytest.approx(1.0) and st["spearman_ceiling"] == pytest.approx(1.0)
    assert st["frac_rw_09"] == pytest.approx(4 / 5) and st["frac_adv_09"] == pytest.approx(2 / 5)
    assert st["min_rw_a"] == 0.8 and st["min_rw_b"] == 0.55
    assert (st["pearson_max"], st["pearson_min"]) == (0.8, 0.2)
    assert st["interior_peak_margin"] == pytest.approx(0.4)  # one run: peak on its own curve
    # Fig. 5: |0.8-0.7| and |0.9-0.8| on points 0 and 5 for covariance 0; |0.8-0.9| on point 0 for covariance 1
    assert st["d_random"] == pytest.approx(np.mean([0.2 / 6, 0.1 / 6]))
    assert st["d_noise"] == pytest.approx(0.02 / 6)
    assert st["excess"] == pytest.approx(st["d_random"] - st["d_noise"])
    assert st["min_pairwise_corr"] == 0.9995
    with pytest.raises(ValueError, match="rw_random"):
        RS.sec41_statistics(points.drop(columns=["rw_random0_0.07", "rw_random1_0.07"]), sweep, runs, [0.07, 0.43])


def test_tidy_table_restores_types():
    t = pd.DataFrame({"run": [0.0, 1.0], "point": [3.0, 4.0], "adv_success": [True, False], "x": [np.nan] * 2})
    t["adv_success"] = t["adv_success"].astype(object)
    out = RX.tidy_table(t)
    assert list(out.columns) == ["run", "point", "adv_success"]
    assert out["run"].dtype == np.int64 and out["adv_success"].dtype == bool


# ================================================================== notebook 05: rules
def _stats(n=3, n_repeats=20, **cols):
    base = {
        "spearman_adv": [0.80, 0.85, 0.78, 0.82, 0.83][:n],
        "spearman_ceiling": [0.995, 0.993, 0.996, 0.994, 0.995][:n],
        "frac_rw_09": [0.90, 0.85, 0.92, 0.88, 0.9][:n],
        "frac_adv_09": [0.05, 0.03, 0.04, 0.06, 0.05][:n],
        "interior_peak_margin": [0.30, 0.25, 0.35, 0.28, 0.3][:n],
        "min_pairwise_corr": [0.9996, 0.9997, 0.9995, 0.9996, 0.9997][:n],
        "min_rw_a": [0.80, 0.82, 0.79, 0.81, 0.8][:n],
        "min_rw_b": [0.60, 0.62, 0.58, 0.61, 0.6][:n],
        "pearson_max": [0.80, 0.78, 0.82, 0.79, 0.8][:n],
        "pearson_min": [0.20, 0.25, 0.22, 0.21, 0.2][:n],
        "d_random": [0.03, 0.035, 0.028, 0.03, 0.031][:n],
        "d_noise": [0.002, 0.002, 0.0021, 0.002, 0.002][:n],
    }
    base.update({k: list(v)[:n] for k, v in cols.items()})
    df = pd.DataFrame(base)
    df["excess"] = df["d_random"] - df["d_noise"]
    df.index.name = "run"
    df.attrs["n_repeats"] = n_repeats
    return df


SEC41_IDS = ["{d}-ranking-differs", "{d}-dense-near-1", "{d}-corr-peak", "{d}-mc-convergence"]


def test_sec41_claims_reproduce_and_flip():
    out = labelled(RC.record_sec41_claims(ledger(), "iris", _stats(), scatter_scale=0.07, n_samples=10000))
    assert [c.id for c in out] == [i.format(d="iris") for i in SEC41_IDS]
    assert set(verdicts(out).values()) == {REPRODUCED}
    assert {c.evidence for c in out} == {"replication"} and {c.unit for c in out} == {"forest runs"}
    assert out[0].central and out[0].power is not None  # the paper's effect (1 - 0.8) gives the power
    assert out[0].n_runs == 3 and out[0].kind == "comparison"
    flipped = _stats(
        spearman_adv=[0.999, 0.998, 0.999],  # adversarial robustness ranks like P_r, above the MC ceiling
        spearman_ceiling=[0.99, 0.99, 0.99],
        frac_rw_09=[0.1, 0.1, 0.1],
        frac_adv_09=[0.5, 0.6, 0.55],
        interior_peak_margin=[-0.2, -0.3, -0.25],  # monotone curves
        min_pairwise_corr=[0.99, 0.98, 0.985],
    )
    out = labelled(RC.record_sec41_claims(ledger(), "ionosphere", flipped, scatter_scale=0.07, n_samples=10000))
    assert set(verdicts(out).values()) == {CONTRADICTED} and {c.unit for c in out} == {"training runs"}
    assert out[0].source.startswith("Sec. 4.1.3 / Fig. 4") and out[0].power is None
    # one run decides nothing, and says how many would
    one = RC.record_sec41_claims(ledger(), "iris", _stats(n=1), scatter_scale=0.07, n_samples=10000)
    assert set(verdicts(one).values()) == {INCONCLUSIVE}
    assert all("this profile had 1" in c.decides for c in one)
    smoke = RC.record_sec41_claims(ledger("smoke"), "iris", _stats(), scatter_scale=0.07, n_samples=1000)
    assert set(verdicts(smoke).values()) == {NOT_COMPARABLE}
    with pytest.raises(ValueError, match="dataset"):
        RC.record_sec41_claims(ledger(), "wine", _stats(), scatter_scale=0.07, n_samples=1)


def test_sec41_claims_scaled_keep_their_verdicts_with_a_mechanism():
    out = labelled(RC.record_sec41_claims(scaled(), "iris", _stats(), scatter_scale=0.07, n_samples=10000))
    assert set(verdicts(out).values()) == {REPRODUCED}
    assert {c.evidence for c in out} == {"scaled replication"}
    by = {c.id: c for c in out}
    assert by["iris-ranking-differs"].mechanism == "the relations tested survive"  # the notebook's default
    assert "which we compute" in by["iris-mc-convergence"].mechanism  # the row's own: the paper's 20 repetitions
    # with fewer repetitions the minimum is over fewer pairs, biased towards the claim: decided neither way
    for table in (_stats(n_repeats=3), _stats(n_repeats=3, min_pairwise_corr=[0.99, 0.98, 0.985])):
        few = {c.id: c for c in RC.record_sec41_claims(scaled(), "iris", table, scatter_scale=0.07, n_samples=10000)}
        assert few["iris-mc-convergence"].verdict == NOT_COMPARABLE
        assert "fewer pairs (3 here)" in few["iris-mc-convergence"].mechanism
        assert few["iris-ranking-differs"].verdict != NOT_COMPARABLE
    # two runs cannot decide a claim about the classifiers (>= 3 independent trainings)
    two = RC.record_sec41_claims(
        ledger(), "iris", _stats(n=2, spearman_ceiling=[0.999, 0.9995]), scatter_scale=0.07, n_samples=10000
    )
    assert verdicts(two)["iris-dense-near-1"] == INCONCLUSIVE and "independent trainings" in two[1].decides


FIG3_SCALES = (0.001, 0.003, 0.006, 0.015, 0.1, 0.3, 1.0)


def _fig3_sweep(low, high, n=3):
    """A sweep whose smallest P_r per run is ``high`` up to per-feature variance 0.006 and ``low`` from 0.015 on:
    at panel a's scale 0.07 on d = 4 features the variance readings give 0.07 and 0.0175 (low side), the
    standard-deviation readings 0.0049 and 0.0012 (high side)."""
    minima = [[high, high, high, low, low, low, low]] * n
    return _sweep_table([(0.2, 0.4, 0.6, 0.8, 0.7, 0.5, 0.3)] * n, FIG3_SCALES, minima)


def test_fig3_range_claims_reproduce_flip_and_need_the_papers_scales():
    # without the sweep: our reading only, one row per panel
    out = labelled(RC.record_fig3_range_claims(ledger(), _stats(), [0.07, 0.43]))
    assert [c.id for c in out] == ["fig3a-range", "fig3b-range", "fig3c-range"]
    assert set(verdicts(out).values()) == {REPRODUCED}
    assert {c.unit for c in out} == {"forest runs"}
    below = _stats(min_rw_a=[0.55, 0.6, 0.5], min_rw_b=[0.4, 0.45, 0.42], pearson_max=[0.95, 0.93, 0.96])
    assert set(verdicts(RC.record_fig3_range_claims(ledger(), below, [0.07, 0.43])).values()) == {CONTRADICTED}
    other = verdicts(RC.record_fig3_range_claims(ledger(), _stats(), [0.1, 0.43]))
    assert other["fig3a-range"] == NOT_COMPARABLE and other["fig3b-range"] == REPRODUCED


def test_fig3_range_readings_decide_only_when_every_reading_agrees():
    ids = ["fig3a-range." + r for r in RC.FIG3_READINGS]
    # every reading above the axis floor 0.75: reproduced
    out = labelled(RC.record_fig3_range_claims(ledger(), _stats(), [0.07, 0.43], sweep=_fig3_sweep(0.8, 0.95)))
    v = verdicts(out)
    assert [c.id for c in out][:5] == ids + ["fig3a-range"]
    assert {v[i] for i in ids} == {REPRODUCED}
    assert out[4].kind == "readings" and "trace of 1" in out[4].rule
    # ... but only our Iris class pair ran (the pair is unstated): decided in neither direction
    assert v["fig3a-range"] == INCONCLUSIVE and "Iris class pair setosa-versicolor" in out[4].decides
    # our reading (identity, variance) below the floor, the std readings above it: the paper's intended reading
    # decides, so the combined row is inconclusive and names the ambiguity
    below = _stats(min_rw_a=[0.55, 0.6, 0.5])
    v = verdicts(RC.record_fig3_range_claims(ledger(), below, [0.07, 0.43], sweep=_fig3_sweep(0.55, 0.95)))
    assert v["fig3a-range.identity-variance"] == CONTRADICTED and v["fig3a-range.trace1-variance"] == CONTRADICTED
    assert v["fig3a-range.identity-std"] == REPRODUCED and v["fig3a-range.trace1-std"] == REPRODUCED
    assert v["fig3a-range"] == INCONCLUSIVE
    # every reading below the floor: no contradiction either, for the same reason (symmetric)
    out = RC.record_fig3_range_claims(ledger(), below, [0.07, 0.43], sweep=_fig3_sweep(0.5, 0.55))
    c = {c.id: c for c in out}["fig3a-range"]
    assert {verdicts(out)[i] for i in ids} == {CONTRADICTED}
    assert c.verdict == INCONCLUSIVE and "Iris class pair setosa-virginica" in c.decides
    # a reading outside the sweep's range has no runs: inconclusive
    short = _fig3_sweep(0.8, 0.95)
    short = short[short["scale"] >= 0.003]
    v = verdicts(RC.record_fig3_range_claims(ledger(), _stats(), [0.07, 0.43], sweep=short))
    assert v["fig3a-range.trace1-std"] == INCONCLUSIVE and v["fig3a-range"] == INCONCLUSIVE
    # on our trace-1 runs, the scatter estimates are the trace-1 reading
    out = RC.record_fig3_range_claims(ledger(), below, [0.07, 0.43], sweep=_fig3_sweep(0.8, 0.95), cov_trace="one")
    assert verdicts(out)["fig3a-range.trace1-variance"] == CONTRADICTED
    assert verdicts(out)["fig3a-range.identity-variance"] == REPRODUCED
    # at the smoke profile every reading is not comparable, and so is the combination
    v = verdicts(RC.record_fig3_range_claims(ledger("smoke"), _stats(), [0.07, 0.43], sweep=_fig3_sweep(0.8, 0.9)))
    assert v["fig3a-range"] == NOT_COMPARABLE


PAIRS = ("setosa-versicolor", "setosa-virginica", "versicolor-virginica")


def _fig5_stats(n=3, iris=(0.03, 0.035, 0.028), iono=(0.004, 0.0045, 0.0042), noise=0.002, change=None, skip=()):
    """Hand-made fig5_statistics tables: every covariance reading (and Iris class pair) with per-run d_random
    ``iris`` / ``iono`` over Monte-Carlo noise ``noise``; ``change``: {(reading, pair): Iris d_random} for one
    reading; ``skip``: (reading, pair) left out (not run)."""
    change = change or {}

    def rows(d_random, **keys):
        return [{**keys, "run": r, "n_samples": 10000, "d_random": d_random[r], "d_noise": noise,
                 "excess": d_random[r] - noise} for r in range(n)]  # fmt: skip

    ir = [row for rd in RC.FIG3_READINGS for pr in PAIRS if (rd, pr) not in skip
          for row in rows(change.get((rd, pr), iris), reading=rd, pair=pr)]  # fmt: skip
    io = [row for rd in RC.FIG3_READINGS for row in rows(iono, reading=rd)]
    return {"iris": pd.DataFrame(ir), "ionosphere": pd.DataFrame(io)}


def test_covariance_claims_are_decided_only_when_every_reading_and_class_pair_agrees():
    scales = {"iris": 0.07, "ionosphere": 0.07}
    led = ledger()
    out = labelled(RC.record_covariance_claims(led, _fig5_stats(), scale_by_dataset=scales))
    assert [c.id for c in out] == ["fig5-iris-differs", "fig5-iris-vs-ionosphere"]
    assert set(verdicts(out).values()) == {REPRODUCED} and all(c.central for c in out)
    # readings of the covariance whose parts are readings of the class pair: 12 leaves, 4 + 1 combined rows each
    assert len(led.claims) == 2 * (12 + 4 + 1)
    assert {c.ambiguity for c in out} == {"realworld_fig3_axis"}
    inner = led.get("fig5-iris-differs.trace1-std")
    assert inner.ambiguity == "realworld_iris_pair" and inner.part_of == "fig5-iris-differs" and not inner.central
    leaf = led.get("fig5-iris-differs.trace1-std.setosa-virginica")
    assert leaf.part_of == "fig5-iris-differs.trace1-std" and leaf.unit == "forest runs"
    assert leaf.depends == ("realworld_fig3_axis", "realworld_iris_pair")
    assert led.get("fig5-iris-vs-ionosphere.identity-std.setosa-versicolor").unit == "training runs"
    led.check_ambiguities()  # every Fig. 5 row is a readings row for both ambiguities
    # one class pair under one covariance reading: Iris within Monte-Carlo noise -> the readings disagree
    split = RC.record_covariance_claims(
        ledger(), _fig5_stats(change={("trace1-std", "setosa-virginica"): (0.0015, 0.0016, 0.0014)}),
        scale_by_dataset=scales,
    )  # fmt: skip
    assert verdicts(split) == {"fig5-iris-differs": INCONCLUSIVE, "fig5-iris-vs-ionosphere": INCONCLUSIVE}
    assert "intended reading" in split[0].decides
    # every reading: Iris within Monte-Carlo noise, the covariance matters more for Ionosphere -> contradicted
    flipped = _fig5_stats(iris=(0.0015, 0.0016, 0.0014), iono=(0.03, 0.035, 0.028))
    assert set(verdicts(RC.record_covariance_claims(ledger(), flipped, scale_by_dataset=scales)).values()) == {
        CONTRADICTED
    }
    # a class pair not run under one reading leaves the rows open, naming it
    gap = RC.record_covariance_claims(
        ledger(), _fig5_stats(skip={("identity-std", "setosa-versicolor")}), scale_by_dataset=scales
    )
    assert set(verdicts(gap).values()) == {INCONCLUSIVE}
    with pytest.raises(ValueError, match="ionosphere"):
        RC.record_covariance_claims(ledger(), {"iris": _fig5_stats()["iris"]}, scale_by_dataset=scales)
    bad = _fig5_stats()
    bad["iris"].loc[0, "pair"] = "setosa-setosa"
    with pytest.raises(ValueError, match="unknown readings"):
        RC.record_covariance_claims(ledger(), bad, scale_by_dataset=scales)


def test_fig5_statistics_hand_computed():
    # one run, two points, our pair (attacked) under two readings and another pair under one
    fig5 = pd.DataFrame(
        {
            "pair": ["versicolor-virginica"] * 4 + ["setosa-versicolor"] * 2,
            "reading": ["identity-variance"] * 2 + ["trace1-std"] * 2 + ["identity-variance"] * 2,
            "run": 0,
            "point": [0, 1, 0, 1, 0, 1],
            "n_samples": [10000, 10000, 2000, 2000, 10000, 10000],
            "rw_identity": [0.8, 1.0, 0.95, 1.0, 1.0, 1.0],
            "rw_identity2": [0.82, 1.0, 0.95, 1.0, 1.0, 1.0],
            "rw_random0": [0.6, 0.9, 0.95, 1.0, 1.0, 1.0],
            "rw_random1": [0.8, 1.0, 0.85, 1.0, 1.0, 1.0],
        }
    )
    points = pd.DataFrame({"run": 0, "point": [0, 1], "adv_success": [True, True], "adv_robustness": [0.2, 0.95]})
    st = RS.fig5_statistics(fig5, points, attacked_pair="versicolor-virginica").set_index(["pair", "reading"])
    ours = st.loc[("versicolor-virginica", "identity-variance")]
    # random 0: |0.8-0.6|, |1-0.9| -> 0.15; random 1: 0 -> d_random 0.075; noise |0.8-0.82| / 2
    assert ours["d_random"] == pytest.approx(0.075) and ours["d_noise"] == pytest.approx(0.01)
    assert ours["excess"] == pytest.approx(0.065) and ours["n_samples"] == 10000
    assert ours["frac_rw_09"] == pytest.approx(0.5) and ours["frac_adv_09"] == pytest.approx(0.5)
    std = st.loc[("versicolor-virginica", "trace1-std")]
    assert std["d_random"] == pytest.approx(0.025) and std["d_noise"] == 0 and std["frac_rw_09"] == 1.0
    other = st.loc[("setosa-versicolor", "identity-variance")]
    assert other["excess"] == 0 and np.isnan(other["frac_rw_09"])  # not attacked: no dense-near-1 fractions
    with pytest.raises(ValueError, match="rw_random"):
        RS.fig5_statistics(fig5.drop(columns=["rw_random0", "rw_random1"]))


def test_dense_near_1_under_every_covariance_reading():
    by = {r: _stats().reset_index() for r in RC.FIG3_READINGS}
    led = ledger()
    out = RC.record_sec41_claims(led, "iris", _stats(), scatter_scale=0.07, n_samples=10000, dense_by_reading=by)
    row = {c.id: c for c in out}["iris-dense-near-1"]
    assert row.kind == "readings" and row.ambiguity == "realworld_fig3_axis" and row.verdict == REPRODUCED
    assert led.get("iris-dense-near-1.trace1-std").depends == ("realworld_fig3_axis",)
    led.check_ambiguities()
    # under the std readings P_r is not dense near 1 in these numbers: the readings disagree
    low = _stats(frac_rw_09=[0.01, 0.02, 0.01]).reset_index()
    out = RC.record_sec41_claims(ledger(), "iris", _stats(), scatter_scale=0.07, n_samples=10000,
                                 dense_by_reading={**by, "identity-std": low, "trace1-std": low})  # fmt: skip
    assert {c.id: c for c in out}["iris-dense-near-1"].verdict == INCONCLUSIVE


def test_sec41_consistency_rows_are_errata_at_every_profile():
    out = labelled(RC.record_sec41_consistency(ledger("smoke"), cov_trace="features"))
    assert verdicts(out) == {"fig3c-legend-n": ERRATUM, "sec41-trace-normalisation": ERRATUM}
    assert [c.evidence for c in out] == ["reanalysis", "derivation"]
    assert "beyond the paper's own noise" in out[0].rule
    assert "cov_trace = 'features'" in out[1].note
    # a paper whose legend and text agreed, and whose identity were trace-normalised, would be consistent
    agreeing = {**RC.PRINTED, "fig3c_legend_n": 10_000, "identity_diagonal": 0}
    agreeing["stated_trace"] = 0
    out = RC.record_sec41_consistency(ledger(), cov_trace="one", printed=agreeing)
    assert set(verdicts(out).values()) == {CONSISTENCY}
    # a legend within its own printed rounding of the text is no erratum (one standard of charity)
    close = {**RC.PRINTED, "fig3c_legend_n": 10_400}
    assert verdicts(RC.record_sec41_consistency(ledger(), cov_trace="one", printed=close))["fig3c-legend-n"] == (
        CONSISTENCY
    )


def _write_sec41_files(folder, n_runs=3):
    """Result files of run_sec41_grid for both datasets, hand-made (6 points, 5 scales per run)."""
    rng = np.random.default_rng(0)
    for dataset in RX.SEC41_DATASETS:
        pts = []
        for r in range(n_runs):
            p = _points_table(run=r)
            p["rw_peak2"] = np.clip(p["rw_peak"] + rng.normal(0, 0.005, len(p)), 0, 1)
            pts.append(p)
        pd.concat(pts).to_csv(folder / f"{dataset}_points.csv", index=False)
        minima = [(0.99, 0.95, 0.8, 0.6, 0.5)] * n_runs
        _sweep_table([(0.2, 0.5, 0.8, 0.6, 0.4)] * n_runs, minima=minima).to_csv(
            folder / f"{dataset}_sweep.csv", index=False
        )
        runs = pd.DataFrame({"run": range(n_runs), "n_repeats": 3, "min_pairwise_corr": 0.9995})
        runs.to_csv(folder / f"{dataset}_runs.csv", index=False)


def _write_fig5_files(folder, n_runs=3):
    """``<dataset>_fig5.csv`` for the hand-made points of :func:`_write_sec41_files`: every covariance reading and
    (Iris) class pair, the random covariance moving P_r on Iris only."""
    for dataset in RX.SEC41_DATASETS:
        rows = []
        for pair in PAIRS if dataset == "iris" else ("",):
            for reading in RC.FIG3_READINGS:
                for r in range(n_runs):
                    p = _points_table(run=r)
                    t = pd.DataFrame({"pair": pair, "reading": reading, "run": r, "point": p["point"],
                                      "n_samples": 2000, "rw_identity": p["rw_identity_0.07"],
                                      "rw_identity2": p["rw_identity2_0.07"] - 0.001 * r})  # fmt: skip
                    shift = (0.05 + 0.01 * r) if dataset == "iris" else 0.001 * r
                    t["rw_random0"] = (t["rw_identity"] - shift).clip(0, 1)
                    rows.append(t)
        table = pd.concat(rows)
        (table if dataset == "iris" else table.drop(columns=["pair"])).to_csv(folder / f"{dataset}_fig5.csv",
                                                                               index=False)  # fmt: skip


def test_evaluate_sec41_covers_the_index(tmp_path):
    _write_sec41_files(tmp_path)
    cfg = {
        "iris_scatter_scales": [0.07, 0.43],
        "ionosphere_scatter_scales": [0.07, 0.43],
        "n_samples": 10000,
        "cov_trace": "features",
        "iris_classes": [1, 2],
    }
    # result files written before the readings: our reading and class pair only, the others left open
    led = ledger()
    out = labelled(RC.evaluate_sec41(led, cfg, tmp_path))
    # the rows that count: 7 Iris rows (each combined over the class pairs, issue 60 item 2), 4 Ionosphere rows,
    # the 2 Fig. 5 rows and the 2 consistency rows
    assert len(out) == 7 + 4 + 2 + 2
    # every row: Iris under our pair (ranking, dense-near-1 = our reading + its combination, corr-peak,
    # mc-convergence, Fig. 3a/3b = four readings + their combination each, Fig. 3c) and the 7 combined over the
    # pairs; Ionosphere (dense-near-1 with its combination); Fig. 5: our reading and pair, combined over the pairs
    # and over the readings; the consistency rows
    assert len(led.claims) == (1 + 2 + 1 + 1 + 2 * (4 + 1) + 1) + 7 + (1 + 2 + 1 + 1) + 2 * 3 + 2
    led.cover(RC.INDEX_05)
    led.check_coverage()  # every row in the index, every pattern matched
    led.check_ambiguities()
    assert sum(c.central for c in out) == 4
    by = {c.id: c for c in out}
    assert by["fig5-iris-differs"].verdict == INCONCLUSIVE and led.get("fig5-iris-differs")._readings[2]  # missing
    # with the Fig. 5 files: every covariance reading and class pair; both Fig. 5 rows are readings rows of both
    _write_fig5_files(tmp_path)
    led = ledger()
    out = labelled(RC.evaluate_sec41(led, cfg, tmp_path))
    assert len(led.claims) == (1 + 5 + 1 + 1 + 2 * (4 + 1) + 1) + 7 + (1 + 5 + 1 + 1) + 2 * (12 + 4 + 1) + 2
    # the Iris rows are readings rows of the class pair, the two pairs not in these files recorded missing
    ranking = led.get("iris-ranking-differs")
    assert ranking.ambiguity == "realworld_iris_pair" and ranking.verdict == INCONCLUSIVE and ranking.central
    assert ranking._readings[2] == ["setosa-versicolor", "setosa-virginica"]
    led.cover(RC.INDEX_05)
    led.check_coverage()
    led.check_ambiguities()
    for cid in ("fig5-iris-differs", "fig5-iris-vs-ionosphere"):
        row = led.get(cid)
        assert row.ambiguity == "realworld_fig3_axis" and row.depends == ("realworld_fig3_axis", "realworld_iris_pair")
        assert all(led.get(f"{cid}.{r}").ambiguity == "realworld_iris_pair" for r in RC.FIG3_READINGS)
        assert row.verdict == REPRODUCED, row.decides
    # dense-near-1 on Iris: the class pairs outside, the covariance readings inside each pair
    assert led.get("iris-dense-near-1").ambiguity == "realworld_iris_pair"
    assert led.get("iris-dense-near-1.versicolor-virginica").ambiguity == "realworld_fig3_axis"


# ================================================================== notebook 06
def _fog_points(run, rw, rw2, adv, success):
    n = len(rw)
    return pd.DataFrame(
        {
            "run": run,
            "adv_success": list(success),
            "adv_robustness": list(adv),
            "rw_robustness": list(rw),
            "rw_robustness2": list(rw2),
        },
        index=range(n),
    )


def test_fog_statistics():
    p = _fog_points(0, (1.0, 0.995, 0.6, 0.992, 0.3), (1.0, 0.994, 0.61, 0.99, 0.31), (0.9, 0.8, 0.1, 0.5, 0.2),
                    (1, 1, 1, 0, 1))  # fmt: skip
    runs = pd.DataFrame({"run": [0], "min_pairwise_corr": [0.9995]})
    s = RS.fog_statistics(p, runs).loc[0]
    assert s["test points"] == 5 and s["DeepFool success rate"] == 0.8
    assert s["min P_r"] == 0.3 and s["min pairwise corr"] == 0.9995
    assert s["fraction P_r > 0.99"] == pytest.approx(0.6) and s["fraction P_r < 0.5"] == pytest.approx(0.2)
    # ranked: attack succeeded and both estimates < 1 -> hours 1, 2, 4: adv (0.8, 0.1, 0.2) vs P_r (0.995, 0.6, 0.3)
    assert s["ranked points"] == 3
    assert s["Spearman(adv, P_r)"] == pytest.approx(stats.spearmanr([0.8, 0.1, 0.2], [0.995, 0.6, 0.3]).statistic)
    assert s["Spearman ceiling"] == pytest.approx(1.0)


def _fog_stats(n=3, n_repeats=20, **cols):
    base = {
        "min P_r": [0.58, 0.6, 0.59],
        "fraction P_r > 0.99": [0.7, 0.75, 0.72],
        "Spearman(adv, P_r)": [0.6, 0.65, 0.62],
        "Spearman ceiling": [0.99, 0.995, 0.99],
        "min pairwise corr": [0.9995, 0.9996, 0.9994],
    }
    base.update(cols)
    df = pd.DataFrame({k: list(v)[:n] for k, v in base.items()})
    df.attrs["n_repeats"] = n_repeats
    return df


FOG_IDS = ["fog-many-near-1", "fog-min-above-half", "fog-adv-differs", "fog-convergence"]


def test_fog_claims_on_synthetic_data_are_not_comparable():
    for led in (ledger(), scaled()):
        out = labelled(RC.record_fog_claims(led, _fog_stats(), synthetic=True))
        assert [c.id for c in out] == FOG_IDS
        assert set(verdicts(out).values()) == {NOT_COMPARABLE}
        assert all("synthetic stand-in: tests the pipeline only" in c.note for c in out)
        # the mechanism is lost, whatever the numbers: the rows say so
        assert all(c.evidence == "scaled replication" and c.mechanism.startswith("synthetic data") for c in out)
        assert all(c.unit == "training runs" for c in out)


def test_fog_claims_on_real_data_reproduce_and_flip():
    out = labelled(RC.record_fog_claims(ledger(), _fog_stats(), synthetic=False, data_path="graz.csv"))
    assert set(verdicts(out).values()) == {REPRODUCED} and "data: graz.csv" in out[0].note
    out = labelled(RC.record_fog_claims(scaled(), _fog_stats(), synthetic=False, data_path="graz.csv"))
    assert set(verdicts(out).values()) == {REPRODUCED} and {c.evidence for c in out} == {"scaled replication"}
    assert [c.central for c in out] == [False, True, True, False]
    flipped = _fog_stats(
        **{
            "min P_r": [0.3, 0.35, 0.4],
            "fraction P_r > 0.99": [0.2, 0.25, 0.3],
            "Spearman(adv, P_r)": [0.999, 0.999, 0.998],
            "Spearman ceiling": [0.99, 0.99, 0.99],
            "min pairwise corr": [0.99, 0.985, 0.98],
        }
    )
    out = RC.record_fog_claims(ledger(), flipped, synthetic=False)
    assert set(verdicts(out).values()) == {CONTRADICTED}
    for table in (_fog_stats(n_repeats=3), flipped.assign(**{"min P_r": [0.6, 0.6, 0.6]})):
        table.attrs["n_repeats"] = 3  # fewer repetitions than the paper's 20: the convergence row decides neither way
        few = {c.id: c for c in RC.record_fog_claims(ledger(), table, synthetic=False)}
        assert (
            few["fog-convergence"].verdict == NOT_COMPARABLE
            and "(3 repetitions here)" in few["fog-convergence"].mechanism
        )
        assert few["fog-min-above-half"].verdict != NOT_COMPARABLE
    one = RC.record_fog_claims(ledger(), _fog_stats(n=1), synthetic=False)
    assert set(verdicts(one).values()) == {INCONCLUSIVE}
    with pytest.raises(ValueError, match="Spearman ceiling"):
        RC.record_fog_claims(ledger(), _fog_stats().drop(columns="Spearman ceiling"), synthetic=True)


def test_evaluate_fog_covers_the_index(tmp_path):
    rng = np.random.default_rng(0)
    parts = []
    for r in range(3):
        rw = rng.uniform(0.5, 1.0, 20)
        parts.append(_fog_points(r, rw, np.clip(rw + rng.normal(0, 0.01, 20), 0, 1), rng.random(20), [1] * 20))
    pd.concat(parts).to_csv(tmp_path / "fog_points.csv", index=False)
    pd.DataFrame({"run": range(3), "n_repeats": 3, "min_pairwise_corr": 0.9995}).to_csv(
        tmp_path / "fog_runs.csv", index=False
    )
    led = ledger()
    out = RC.evaluate_fog(led, {"data_path": ""}, tmp_path)
    assert [c.id for c in out] == FOG_IDS
    led.cover(RC.INDEX_06)
    led.check_coverage()


# ================================================================== notebook 07
def _analytic_inputs(n_grid=41, extent=4.0):
    cov = np.eye(2)
    linear = closed_form_maps("linear", extent, n_grid, cov, w=(0.0, 1.0), b=0.0)
    right_angle = closed_form_maps("right_angle", extent, n_grid, cov, a=np.zeros(2))
    edge = RS.equal_distance_edge((0.0, 0.0), cov, extent, distance=0.5)
    rng = np.random.default_rng(0)
    exact = rng.uniform(0.5, 1.0, 200)
    checks = pd.DataFrame({"exact": exact, "mc": exact + rng.normal(0, 0.002, 200)})
    return linear, right_angle, edge, checks


ANALYTIC_KW = dict(corner=(0.0, 0.0), sigma=1.0, aniso_cov=[[1.0, 0.6], [0.6, 0.5]])


def test_analytic_claims_on_the_closed_forms():
    out = labelled(RC.record_analytic_claims(ledger("smoke"), *_analytic_inputs(), **ANALYTIC_KW))
    v = verdicts(out)
    # derivations (closed forms, our estimator against our closed form) are consistency/erratum, never reproduced
    assert v == {
        "A1-eq8": CONSISTENCY,
        "A1-x1-independent": CONSISTENCY,
        "A1-monotone": CONSISTENCY,
        "A1-cf-linear": CONSISTENCY,
        "A1-rw-exponential": CONSISTENCY,
        "A1-same-ranking": CONSISTENCY,
        "S33-linear-anisotropic": CONSISTENCY,
        "A2-far-similar": CONSISTENCY,
        "A2-ranking-differs": CONSISTENCY,
        "A2-corner-divergence": CONSISTENCY,
        "A2-caption": ERRATUM,
        "A-mc-converges": CONSISTENCY,
    }
    by = {c.id: c for c in out}
    assert {c.evidence for c in out} == {"derivation", "reanalysis"} and by["A2-caption"].evidence == "reanalysis"
    assert by["A1-x1-independent"].evidence == "derivation" and by["A-mc-converges"].evidence == "derivation"
    assert by["A-mc-converges"].unit == "grid points" and by["A-mc-converges"].n_runs == 200
    # the decay rate of 1 - P_r (inverse Mills ratio) grows from sqrt(2/pi) at the boundary: not a literal
    # exponential, but the qualitative reading ("falls at least exponentially") holds — as A1-monotone's does
    assert by["A1-rw-exponential"].estimate > 3
    assert "one standard" in by["A1-rw-exponential"].rule and "one standard" in by["A1-monotone"].note
    assert by["A2-corner-divergence"].estimate == pytest.approx(PHI - PHI**2, abs=1e-3)
    led = ledger("smoke")
    RC.record_analytic_claims(led, *_analytic_inputs(), **ANALYTIC_KW)
    led.cover(RC.INDEX_07)
    led.check_coverage()


def test_analytic_claims_flip():
    linear, right_angle, edge, checks = _analytic_inputs()
    bad_linear = dict(linear)
    g1 = np.asarray(linear["x1"])[None, :]
    bad_linear["robustness"] = linear["robustness"] + 0.01 * np.tanh(g1)  # depends on x1, off Eq. (8)
    bad_linear["distance"] = linear["distance"] ** 2  # not linear in the distance
    bad_right = dict(right_angle)
    # a right-angle "map" whose P_r is a function of the distance: no divergence near the corner
    bad_right["robustness"] = stats.norm.cdf(right_angle["distance"])
    bad_edge = edge.assign(robustness=edge["robustness"].iloc[-1])  # flat along the edge
    biased = checks.assign(mc=checks["exact"] + 0.02)
    out = RC.record_analytic_claims(
        ledger(), bad_linear, bad_right, bad_edge, biased, corner=(0.0, 0.0), sigma=1.0, aniso_cov=np.eye(2)
    )
    v = verdicts(out)
    assert v["A1-eq8"] == ERRATUM
    assert v["A1-x1-independent"] == ERRATUM and v["A1-cf-linear"] == ERRATUM
    assert v["S33-linear-anisotropic"] == ERRATUM  # isotropic uncertainty: orientation does not matter
    assert v["A2-ranking-differs"] == ERRATUM and v["A2-corner-divergence"] == ERRATUM
    assert v["A-mc-converges"] == ERRATUM
    bad_linear["distance"] = -linear["distance"]  # falls with the distance to the boundary
    bad_linear["robustness"] = linear["robustness"]
    v = verdicts(RC.record_analytic_claims(ledger(), bad_linear, right_angle, edge, checks, **ANALYTIC_KW))
    assert v["A1-monotone"] == ERRATUM and v["A1-same-ranking"] == ERRATUM
    # a P_r map whose 1 - P_r declines exactly exponentially with the distance: the prose would be consistent
    expo = dict(linear)
    d = np.abs(np.asarray(linear["x2"]) - 0.5)[:, None] + 0 * np.asarray(linear["x1"])[None, :]
    expo["robustness"] = 1 - 0.5 * np.exp(-1.3 * d)
    v = verdicts(RC.record_analytic_claims(ledger(), expo, right_angle, edge, checks, **ANALYTIC_KW))
    assert v["A1-rw-exponential"] == CONSISTENCY and v["A1-eq8"] == ERRATUM
    # a P_r map whose 1 - P_r falls only polynomially (a decreasing decay rate) fails the charitable reading too
    poly = dict(linear)
    poly["robustness"] = 1 - 0.5 / (1 + d) ** 2
    v = verdicts(RC.record_analytic_claims(ledger(), poly, right_angle, edge, checks, **ANALYTIC_KW))
    assert v["A1-rw-exponential"] == ERRATUM
    # so does a P_r that rises linearly to 1 (1 - P_r is not convex: no saturation)
    lin = dict(linear)
    lin["robustness"] = np.minimum(1.0, 0.5 + 0.1 * d)
    v = verdicts(RC.record_analytic_claims(ledger(), lin, right_angle, edge, checks, **ANALYTIC_KW))
    assert v["A1-rw-exponential"] == ERRATUM
    # far from the corner, a map that misorders points by more than 0.01
    wavy = dict(right_angle)
    g1 = np.asarray(right_angle["x1"])[None, :]
    wavy["robustness"] = np.clip(right_angle["robustness"] + 0.05 * np.sin(3 * g1), 0, 1)
    v = verdicts(RC.record_analytic_claims(ledger(), linear, wavy, edge, checks, **ANALYTIC_KW))
    assert v["A2-far-similar"] == ERRATUM
    # a caption that named the right-angle model would be consistent
    fixed = {**RC.PRINTED, "figA2_caption_model": "right_angle"}
    out = RC.record_analytic_claims(ledger(), linear, right_angle, edge, checks, **ANALYTIC_KW, printed=fixed)
    assert verdicts(out)["A2-caption"] == CONSISTENCY
    with pytest.raises(ValueError, match="lacks 'x2'"):
        RC.record_analytic_claims(ledger(), {"x1": 1}, right_angle, edge, checks, **ANALYTIC_KW)


def test_duplicated_runs_are_refused_by_the_per_run_statistics():
    """Issue 36: a results table concatenated twice counted every point (and run) twice."""
    p = _fog_points(0, (1.0, 0.6), (1.0, 0.61), (0.9, 0.1), (1, 1)).assign(time=["2022-01-22T00", "2022-01-22T01"])
    runs = pd.DataFrame({"run": [0], "min_pairwise_corr": [0.9995]})
    base = RS.fog_statistics(p, runs).loc[0]
    assert base["test points"] == 2
    with pytest.raises(ValueError, match=r"points hold 4 rows for 2 run key\(s\) \(run, time\).*drop_duplicates"):
        RS.fog_statistics(pd.concat([p, p]), runs)
    with pytest.raises(ValueError, match=r"runs hold 2 rows for 1 run key\(s\) \(run\)"):
        RS.fog_statistics(p, pd.concat([runs, runs]))
    sweep = _sweep_table([(0.2, 0.5, 0.8, 0.6, 0.4)])
    with pytest.raises(ValueError, match=r"run=0, scale=0.001"):  # was pandas' "cannot reshape" error
        RS.interior_peak_margins(pd.concat([sweep, sweep.head(1)]))
