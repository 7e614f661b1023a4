"""The decision rules every ledger row shares (robeval.core.ledger.decisions): p-values of decisions by hand, Holm's
adjusted p by hand, the stability of a decision in closed form, and seeded simulations of independent reruns."""

import math

import numpy as np
import pytest
from scipy import stats as st

from robeval.core import stats
from robeval.core.ledger import CONTRADICTED, REPRODUCED, Ledger
from robeval.core.ledger import decisions as dc


def _diff(estimate, se, n=50, df=math.inf, floor=0.0):
    return dc.Test(dc.DIFFERENCE, estimate, se, df, n, floor)


def test_p_values_of_each_decision_by_hand():
    # a difference: two-sided p; 1.96 se from 0 is p = 0.05
    assert dc.p_decision(_diff(1.959964, 1.0), dc.CLAIMED) == pytest.approx(0.05, abs=1e-6)
    # an equivalence: delta 0.5, se 1, margin 4 -> TOST p = 2 * max(sf(3.5), sf(4.5)) = 2 * sf(3.5)
    eq = dc.Test(dc.EQUIVALENCE, 0.5, 1.0, math.inf, 50, 0.0, 4.0)
    assert dc.p_decision(eq, dc.EQUIVALENT) == pytest.approx(2 * st.norm.sf(3.5), rel=1e-9)
    # beyond the margin: p = 2 * sf((|delta| - m) / se); delta 7, m 4 -> 2 * sf(3)
    far = dc.Test(dc.EQUIVALENCE, -7.0, 1.0, math.inf, 50, 0.0, 4.0)
    assert dc.p_decision(far, dc.DIFFERENT) == pytest.approx(2 * st.norm.sf(3.0), rel=1e-9)
    # the 95% CI inside the band <=> p < 0.05: delta 0, se 1, margin 1.96 is exactly at the edge
    edge = dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 50, 0.0, 1.959964)
    assert dc.p_decision(edge, dc.EQUIVALENT) == pytest.approx(0.05, abs=1e-6)
    # t with 4 df: estimate 2, se 1 -> 2 t.sf(2, 4) = 0.116117
    assert dc.p_decision(_diff(2.0, 1.0, n=5, df=4), dc.OTHER) == pytest.approx(0.116117, abs=1e-6)


def test_holm_adjusted_p_by_hand():
    # sorted (0.01, 0.03, 0.04): 3 * 0.01 = 0.03; max(0.03, 2 * 0.03) = 0.06; max(0.06, 0.04) = 0.06
    got = dc.holm_adjusted([0.01, 0.04, 0.03])
    assert [round(p, 10) for p, _ in got] == [0.03, 0.06, 0.06]
    assert [r for _, r in got] == [1, 3, 2]
    # (0.5, 0.9): 2 * 0.5 = 1.0 caps both
    assert dc.holm_adjusted([0.5, 0.9]) == [(1.0, 1), (1.0, 2)]
    assert dc.holm_adjusted([0.2, 0.9]) == [(0.4, 1), (0.9, 2)]


def test_degrees_of_freedom_are_read_from_the_interval():
    assert dc.df_of(stats.mean_interval([1.0, 2.0, 4.0])) == 2
    welch = stats.mean_vs_reference_interval([1.0, 2.0, 3.5, 2.2], ref_sd=1.0, ref_n=5)
    a, b = np.var([1.0, 2.0, 3.5, 2.2], ddof=1) / 4, 1.0 / 5
    want = (a + b) ** 2 / (a**2 / 3 + b**2 / 4)  # Welch–Satterthwaite
    assert dc.df_of(welch) == pytest.approx(want, rel=1e-6)
    assert dc.df_of(stats.Interval(1.0, 0.5, 1.5, 0.25, 40, 0.95, "percentile bootstrap over 40 runs")) == math.inf


def test_stability_is_the_predictive_probability_of_the_same_decision():
    """Goodman's predictive rerun probability: the rerun's estimate ~ N(observed, 2 s²). At the critical value a
    rerun decides again half the time; 0.9 needs the observed z at c + sqrt(2) z_0.9."""
    c = st.norm.ppf(0.975)
    assert dc.rerun_probability(_diff(c, 1.0), dc.CLAIMED, 0.05) == pytest.approx(0.5, abs=1e-9)
    z90 = c + math.sqrt(2) * st.norm.ppf(0.9)
    assert dc.rerun_probability(_diff(z90, 1.0), dc.CLAIMED, 0.05) == pytest.approx(0.9, abs=1e-9)
    # the row the power at the observed effect (the rule before) rated 0.9 is reached again with Phi(1.28 / sqrt 2)
    assert dc.rerun_probability(_diff(c + st.norm.ppf(0.9), 1.0), dc.CLAIMED, 0.05) == pytest.approx(0.8176, abs=1e-4)
    # t with 2 df: the spread at its upper 95% confidence bound, sqrt(2 / chi2.ppf(0.05, 2)) = 4.415 times the
    # observed, and the t critical value
    t2 = _diff(10.0, 1.0, n=3, df=2)
    k = np.sqrt(2 / st.chi2.ppf(0.05, 2))
    assert dc.spread_factor(2) == pytest.approx(k) and k == pytest.approx(4.4154, abs=1e-4)
    want = st.norm.cdf((10.0 - st.t.ppf(0.975, 2) * k) / (math.sqrt(2) * k))
    assert dc.rerun_probability(t2, dc.CLAIMED, 0.05) == pytest.approx(want, rel=1e-12)
    assert dc.spread_factor(math.inf) == 1.0 and dc.spread_factor(1199) == pytest.approx(1.0348, abs=1e-4)
    assert dc.spread_factor(23) == pytest.approx(1.3255, abs=1e-4)
    # with a floor (a published value's se) only our part is redrawn: se 1 of which floor 0.6 -> own 0.8
    fl = dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 24, 0.6, 3.0)
    room, sp = 3.0 - c, math.sqrt(2) * 0.8
    assert dc.rerun_probability(fl, dc.EQUIVALENT, 0.05) == pytest.approx(
        st.norm.cdf(room / sp) - st.norm.cdf(-room / sp), abs=1e-9
    )
    # beyond the margin: estimate 7, margin 4, se 1 -> P = Phi((7 - 4 - c) / sqrt(2))
    far = dc.Test(dc.EQUIVALENCE, -7.0, 1.0, math.inf, 24, 0.0, 4.0)
    assert dc.rerun_probability(far, dc.DIFFERENT, 0.05) == pytest.approx(st.norm.cdf((3 - c) / math.sqrt(2)))
    # an unreachable equivalence (half-width >= margin) is never reached again
    assert dc.rerun_probability(dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 9, 0.0, 1.5), dc.EQUIVALENT, 0.05) == 0
    assert not dc.reachable(dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 9, 0.0, 1.5), 0.05)
    with pytest.raises(ValueError, match="cannot decide"):
        dc.rerun_probability(t2, dc.EQUIVALENT, 0.05)


def test_runs_for_stability_by_hand():
    # normal, estimate 2, se 1 at n = 10: stable when 2 sqrt(n / 10) >= 1.96 + sqrt(2) 1.2816 = 3.7724
    # -> n >= 35.58 -> 36
    assert dc.n_for_stability(_diff(2.0, 1.0, n=10), dc.CLAIMED, 0.05) == 36
    # already stable: its own n
    assert dc.n_for_stability(_diff(5.0, 1.0, n=10), dc.CLAIMED, 0.05) == 10
    # a floor wider than the margin allows: no n
    wide = dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 24, 0.9, 1.0)
    assert dc.n_for_stability(wide, dc.EQUIVALENT, 0.05) is None
    assert dc.n_for_stability(_diff(0.0, 1.0, n=10), dc.CLAIMED, 0.05) is None


def _resampled(iv, sign=1, alpha=0.05, seed=0):
    test = dc.test_of(iv, kind=dc.DIFFERENCE, sign=sign)
    draw = dc.resampler(test, iv, sign)
    decision = dc.CLAIMED if sign * iv.estimate > 0 else dc.OTHER
    return dc.rerun_probability(test, decision, alpha), dc.resampled_stability(draw, decision, alpha, seed)


def test_resampled_stability_agrees_with_the_closed_form_on_normal_runs():
    """24 normal runs: the predictive resamples of the runs rate the decision a little above the closed form,
    whose spread is taken at its upper 95% bound (1.33 times the observed at 23 df), in both directions of the
    claim; the figure is seeded (the same on every call)."""
    rng = np.random.default_rng(3)
    v = rng.normal(0.0, 1.0, 24)
    v = (v - v.mean()) / v.std(ddof=1) + 0.75  # mean 0.75, sd 1: t = 3.67, well past the critical value
    closed, resampled = _resampled(stats.mean_interval(v))
    assert 0.5 < closed < 0.8 and closed <= resampled <= closed + 0.3
    closed_neg, resampled_neg = _resampled(stats.mean_interval(-v), sign=-1)
    assert closed_neg == pytest.approx(closed) and resampled_neg == pytest.approx(resampled, abs=0.05)
    assert _resampled(stats.mean_interval(v))[1] == resampled


def test_resampled_stability_sees_a_rank_trend_over_nearly_equal_means():
    """The case of notebook 01's S52 trend rows (issue 45: rho 0.97 at stability 0.999, then 0.58 in a rerun): a
    Spearman rho over 9 means that differ by far less than the run-to-run spread. The percentile bootstrap's se
    looks small next to rho, so the closed form rates the decision near 0.9; rerun on resampled runs the ranks
    reshuffle and rho often falls short, which the resamples see (about 0.6–0.75)."""
    levels = np.arange(9.0)
    found = []
    for seed in range(20):  # run sets whose bootstrap interval excludes 0 (the rows a notebook would decide)
        runs = np.random.default_rng(seed).normal(0.0, 1.0, (24, 9)) + 0.04 * levels  # a rise of 0.32 sd in all
        iv = stats.trend_interval(levels, runs, n_boot=400, seed=seed)
        if iv.low > 0:
            found.append(iv)
    assert len(found) >= 3, "too few seeded run sets decided the trend"
    for iv in found:
        closed, resampled = _resampled(iv)
        assert resampled < 0.8 and resampled < closed - 0.1, (closed, resampled)


def test_a_zero_width_interval_gets_the_exact_p_its_units_allow():
    """03/Fig5_pg_low_msd_noise: a bootstrap whose resamples all agree ([−0.5, −0.5]) would give p = 0 from its
    zero se. A difference gets the exact p its units allow instead: the bootstrap's resolution 2 / (B + 1), or for
    runs that all gave one value the sign test 2 · 2^-n; an equivalence or an estimate of 0 gets no test."""
    flat = stats.bootstrap_interval(lambda a: float(np.median(a)), np.full(12, -0.5), n_boot=200)
    assert flat.low == flat.high == -0.5 and flat.se == 0
    test = dc.test_of(flat, kind=dc.DIFFERENCE, sign=-1)
    assert test.estimate == 0.5 and dc.p_decision(test, dc.CLAIMED) == pytest.approx(2 / 201, rel=1e-9)
    same = stats.mean_interval([0.3, 0.3, 0.3])
    assert dc.p_decision(dc.test_of(same, kind=dc.DIFFERENCE), dc.CLAIMED) == pytest.approx(0.25, rel=1e-9)
    assert dc.test_of(stats.mean_interval([0.0, 0.0, 0.0]), kind=dc.DIFFERENCE) is None
    # an equivalence: inside the band (or beyond it) with the sign test's p; exactly at the margin: no test
    inside = dc.test_of(same, kind=dc.EQUIVALENCE, paper=0.25, margin=0.1)
    assert dc.p_decision(inside, dc.EQUIVALENT) == pytest.approx(0.25, rel=1e-6)
    beyond = dc.test_of(same, kind=dc.EQUIVALENCE, paper=0.1, margin=0.1)
    assert dc.p_decision(beyond, dc.DIFFERENT) == pytest.approx(0.25, rel=1e-6)
    assert dc.test_of(same, kind=dc.EQUIVALENCE, paper=0.2, margin=0.1) is None
    led = Ledger(paper="msd", notebook="99_sim", profile="default")
    row = led.comparison(
        "flat", "T", "x", interval=flat, direction="<", evidence="replication", unit="schemes", about="data"
    )
    eq = led.value(
        "eq",
        "T",
        "x",
        paper=0.2,
        margin=0.1,
        margin_basis="declared",
        interval=same,
        evidence="replication",
        unit="forest runs",
        about="data",
    )  # 0.3 against 0.2 ± 0.1: exactly at the margin
    led.finalise()
    # p = 0.00995 passes Holm over 1 test; a rerun reaches z = 2.58 against the critical 1.96 with probability 0.67
    assert row.p_value == pytest.approx(2 / 201, rel=1e-3) and row.verdict == "inconclusive"
    assert row.unadjusted == "reproduced" and row.decides.startswith("fragile")
    assert eq.verdict == "inconclusive" and eq.p_value is None and "degenerate" in eq.decides


# ------------------------------------------------------------------------------------ simulated reruns
def _run(effects, n, seed, rule):
    """One run of a notebook whose rows test 'the mean is > 0' over n independent trainings, each row with a
    known standardised effect; ``rule`` 'old' is each row's own 95% CI alone (the rule before issue 38), 'new'
    the ledger's rules (Holm over the notebook, stability)."""
    rng = np.random.default_rng(seed)
    led = Ledger(paper="mscr", notebook="99_sim", profile="default")
    for i, z in enumerate(effects):
        iv = stats.mean_interval(rng.normal(z / math.sqrt(n), 1.0, n))
        led.comparison(f"r{i}", "T", "x", interval=iv, evidence="replication", unit="training runs")
    if rule == "new":
        led.finalise()
    return [c.verdict for c in led.claims]


def _flips(effects, n, reruns, rule):
    decided = flipped = opposite = 0
    for r in range(reruns):
        a, b = _run(effects, n, [r, 0], rule), _run(effects, n, [r, 1], rule)
        for x, y in zip(a, b):
            if x in (REPRODUCED, CONTRADICTED):
                decided += 1
                flipped += x != y
                opposite += y in (REPRODUCED, CONTRADICTED) and y != x
    return decided, flipped, opposite


def test_decided_verdicts_survive_independent_reruns():
    """A notebook of 20 rows: 14 null effects and 6 real ones (standardised effect ±9 at n = 24 runs, both
    directions, as notebook 01's default profile). Over 40 pairs of independent reruns, the ledger's rules change
    at most 5% of the decided verdicts and never turn reproduced into contradicted or back; each row's own 95% CI
    alone (the rule before) decides the nulls at 5% each and changes more than twice as many (about 11%). Effects
    nearer the threshold flip more under any rule (next test)."""
    effects = [0.0] * 14 + [9.0, -9.0, 9.0, 9.0, -9.0, 9.0]
    dec_new, flip_new, opp_new = _flips(effects, 24, 40, "new")
    dec_old, flip_old, _ = _flips(effects, 24, 40, "old")
    assert dec_new > 0.9 * 40 * 6  # the real effects are decided
    assert flip_new / dec_new <= 0.05 and opp_new == 0
    assert flip_old / dec_old > 2 * flip_new / dec_new


def _threshold_t(n):
    """The observed t at which a one-row family's difference at n runs reaches stability 0.9 (closed form)."""
    from scipy.optimize import brentq

    return brentq(lambda t: dc.rerun_probability(_diff(t, 1.0, n=n, df=n - 1), dc.CLAIMED, 0.05) - 0.9, 2, 20)


def test_a_row_at_the_threshold_flips_whatever_the_rule():
    """What no rule can promise: a true effect at the decision threshold is decided in about half of the runs,
    so a rerun changes about half of those decisions. The stability gate moves the threshold, not this."""
    # one row (family of 1) at n = 10 whose true effect sits where the stability reaches 0.9
    effects = [_threshold_t(10)]
    dec, flip, opp = _flips(effects, 10, 200, "new")
    assert 0.25 < flip / dec < 0.75 and opp == 0


def test_verdict_agreement_counts_the_reruns_own_gate():
    """A rerun reaches the same *verdict* only when it passes the stability gate again: a row at the gate's edge
    agrees with a rerun half the time (though its stability is 0.9), one 3 predictive se beyond it in 98% of
    reruns; on simulated reruns of a notebook the mean agreement is conservative (it takes the true effect as
    uncertain about the observed one, with a flat prior; these effects are exactly 0 or 9 se)."""
    c = st.norm.ppf(0.975)
    edge = c + math.sqrt(2) * st.norm.ppf(0.9)  # stability exactly 0.9
    assert dc.rerun_probability(_diff(edge, 1.0), dc.CLAIMED, 0.05) == pytest.approx(0.9, abs=1e-9)
    assert dc.verdict_agreement(_diff(edge, 1.0), dc.CLAIMED, 0.05) == pytest.approx(0.5, abs=1e-6)
    far = edge + 3 * math.sqrt(2)
    assert dc.verdict_agreement(_diff(far, 1.0), dc.CLAIMED, 0.05) == pytest.approx(st.norm.cdf(3), abs=1e-6)
    # an equivalence: inside the band's stable part, the same two-sided form
    eq = dc.Test(dc.EQUIVALENCE, 0.0, 1.0, math.inf, 24, 0.0, 8.0)
    b = dc._boundary(eq, dc.EQUIVALENT, 0.05)
    assert dc.rerun_probability(dc.Test(dc.EQUIVALENCE, b, 1.0, math.inf, 24, 0.0, 8.0), dc.EQUIVALENT, 0.05) == (
        pytest.approx(0.9, abs=1e-6)
    )
    want = st.norm.cdf(b / math.sqrt(2)) - st.norm.cdf(-b / math.sqrt(2))
    assert dc.verdict_agreement(eq, dc.EQUIVALENT, 0.05) == pytest.approx(want, abs=1e-6)
    # calibration on simulated reruns (effects at z = 9, n = 24, as 01's strong rows): predicted vs observed changes
    effects = [0.0] * 14 + [9.0, -9.0, 9.0, 9.0, -9.0, 9.0]
    predicted, decided, flipped = [], 0, 0
    for r in range(30):
        led_a, led_b = (_ledger_run(effects, 24, [r, k]) for k in (0, 1))
        for x, y in zip(led_a.claims, led_b.claims):
            if x.verdict in (REPRODUCED, CONTRADICTED):
                decided += 1
                flipped += x.verdict != y.verdict
                predicted.append(1 - x.agreement)
    assert flipped / decided <= np.mean(predicted) + 0.01 and np.mean(predicted) < 0.2, (flipped, decided, predicted)


def _ledger_run(effects, n, seed):
    rng = np.random.default_rng(seed)
    led = Ledger(paper="mscr", notebook="99_sim", profile="default")
    for i, z in enumerate(effects):
        iv = stats.mean_interval(rng.normal(z / math.sqrt(n), 1.0, n))
        led.comparison(f"r{i}", "T", "x", interval=iv, evidence="replication", unit="training runs")
    led.finalise()
    return led
