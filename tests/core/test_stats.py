"""Intervals over independent runs (robeval.core.stats): coverage, closed forms, determinism."""

import math

import numpy as np
import pytest
from scipy import stats as sst
from statsmodels.stats.proportion import proportion_confint

from robeval.core import stats


def test_t_interval_matches_scipy_and_covers_at_its_level():
    rng = np.random.default_rng(0)
    v = rng.normal(3.0, 2.0, 10)
    iv = stats.mean_interval(v)
    lo, hi = sst.t.interval(0.95, 9, loc=v.mean(), scale=v.std(ddof=1) / math.sqrt(10))
    assert iv.low == pytest.approx(lo) and iv.high == pytest.approx(hi) and iv.n == 10
    covered = np.mean(
        [(lambda i: i.low <= 3.0 <= i.high)(stats.mean_interval(rng.normal(3.0, 2.0, 6))) for _ in range(2000)]
    )
    assert 0.935 < covered < 0.965  # 95% nominal; binomial sd over 2000 draws is 0.005


def test_paired_interval_is_the_interval_of_differences():
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 1.5, 2.0, 3.5])
    iv = stats.paired_interval(a, b)
    ref = stats.mean_interval(a - b)
    assert (iv.estimate, iv.low, iv.high) == (ref.estimate, ref.low, ref.high)
    with pytest.raises(ValueError, match="same runs"):
        stats.paired_interval(a, b[:3])


def test_bootstrap_is_seeded_and_trend_sees_a_rise():
    levels = np.arange(5)
    runs = np.vstack([levels + np.random.default_rng(s).normal(0, 0.5, 5) for s in range(8)])
    a = stats.trend_interval(levels, runs, seed=3)
    assert a == stats.trend_interval(levels, runs, seed=3)
    assert a.estimate == pytest.approx(1.0) and a.low > 0


def test_bootstrap_with_published_means_adds_their_sampling_error():
    """Mean of 400 runs (se 0.05) minus a published mean with se 0.05: the bootstrap sd of the difference is
    sqrt(0.05^2 + 0.05^2) = 0.0707; exact published means (se 0 or None) leave the run resampling unchanged."""
    x = np.random.default_rng(0).normal(0.0, 1.0, 400)
    diff = lambda a, ref: a.mean() - ref[0]
    exact = stats.bootstrap_interval(diff, x, fixed=(np.array([0.2]),), seed=1)
    zero = stats.bootstrap_interval(diff, x, fixed=(np.array([0.2]),), fixed_se=(np.array([0.0]),), seed=1)
    plain = stats.bootstrap_interval(lambda a: a.mean() - 0.2, x, seed=1)
    assert (exact.low, exact.high) == (zero.low, zero.high) == (plain.low, plain.high)
    noisy = stats.bootstrap_interval(diff, x, fixed=(np.array([0.2]),), fixed_se=(np.array([0.05]),), seed=1)
    assert noisy.estimate == exact.estimate
    assert exact.se == pytest.approx(0.05, rel=0.1) and noisy.se == pytest.approx(0.0707, rel=0.1)
    # the published mean's part cannot shrink with our runs: floor_se ~ 0.05, and runs_needed knows it
    assert exact.floor_se == 0.0 and noisy.floor_se == pytest.approx(0.05, rel=0.1)
    assert stats.runs_needed(noisy, 0.09) is None  # the floor alone is wider (1.96 * 0.05 = 0.098)
    # half-width 0.12 = 1.96 * sqrt(0.05^2 * 400 / n + 0.05^2)  ->  n = 400 * 0.05^2 / ((0.12 / 1.96)^2 - 0.05^2) = 801
    assert stats.runs_needed(noisy, 0.12) == pytest.approx(801, rel=0.25)  # percentile, not normal, half-width
    assert noisy.high - noisy.low > 1.25 * (exact.high - exact.low)
    with pytest.raises(ValueError, match="same shape"):
        stats.bootstrap_interval(diff, x, fixed=(np.array([0.2]),), fixed_se=(np.array([0.1, 0.1]),))
    with pytest.raises(ValueError, match=">= 0"):
        stats.bootstrap_interval(diff, x, fixed=(np.array([0.2]),), fixed_se=(np.array([-0.1]),))


def test_wilson_interval_matches_statsmodels():
    iv = stats.proportion_interval(7, 40)
    lo, hi = proportion_confint(7, 40, alpha=0.05, method="wilson")
    assert iv.low == pytest.approx(lo) and iv.high == pytest.approx(hi)


def test_runs_needed_and_power_closed_forms():
    iv = stats.Interval(0.0, -2.0, 2.0, 1.0, 10, 0.95, "t")
    assert stats.runs_needed(iv, 1.0) == 40  # half-width ~ 1/sqrt(n)
    z = sst.norm.ppf(0.975)
    assert stats.power_to_detect(3.0, 1.0) == pytest.approx(sst.norm.cdf(3.0 - z))
    assert stats.power_to_confirm(3.0, 1.0) == pytest.approx(2 * sst.norm.cdf(3.0 - z) - 1)
    assert stats.power_to_confirm(1.0, 1.0) == 0.0


def test_mean_vs_reference_is_the_welch_interval_shifted_by_the_published_mean():
    rng = np.random.default_rng(3)
    ours, theirs = rng.normal(1.0, 0.5, 12), rng.normal(1.2, 2.0, 40)
    iv = stats.mean_vs_reference_interval(ours, theirs.std(ddof=1), len(theirs))
    ref = sst.ttest_ind(ours, theirs, equal_var=False).confidence_interval(0.95)
    assert iv.estimate == pytest.approx(ours.mean())
    assert (iv.low - theirs.mean(), iv.high - theirs.mean()) == pytest.approx((ref.low, ref.high))
    assert iv.floor_se == pytest.approx(theirs.std(ddof=1) / math.sqrt(40)) and iv.n == 12
    with pytest.raises(ValueError, match="ref_n"):
        stats.mean_vs_reference_interval(ours, 1.0, 1)
    with pytest.raises(ValueError, match="ref_sd"):
        stats.mean_vs_reference_interval(ours, -1.0, 10)


def test_runs_needed_with_a_floor_only_shrinks_our_part():
    # se = sqrt(0.8^2 + 0.6^2) = 1 at n = 10, quantile 2: half-width 2; the floor 0.6 never shrinks
    iv = stats.Interval(0.0, -2.0, 2.0, 1.0, 10, 0.95, "t", floor_se=0.6)
    n = stats.runs_needed(iv, 1.5)  # 2 * sqrt(0.64 * 10 / n + 0.36) = 1.5  ->  n = 6.4 / (0.5625 - 0.36)
    assert n == math.ceil(6.4 / (0.5625 - 0.36))
    assert stats.runs_needed(iv, 1.2) is None  # 2 * 0.6 = 1.2: the floor alone fills the target
    assert stats.runs_needed(stats.Interval(0.0, -2.0, 2.0, 1.0, 10, 0.95, "t"), 1.0) == 40  # no floor: as before


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2"):
        stats.mean_interval([1.0])
    with pytest.raises(ValueError, match="NaN"):
        stats.mean_interval([1.0, math.nan])
    with pytest.raises(ValueError, match="successes"):
        stats.proportion_interval(5, 3)


# --- a comparator chosen from the data (issue 45, item 1) ------------------------------------------------------


def _p_of(iv) -> float:
    """The two-sided p the ledger's test reads from an interval's se (a t-test over n − 1 df)."""
    return float(2 * sst.t.sf(abs(iv.estimate) / iv.se, iv.n - 1))


def test_best_contrast_reproduces_by_the_weakest_pair_without_correction():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, (12, 4)) + np.array([3.0, 0.0, 2.2, 0.0])
    iv, a, b = stats.best_contrast_interval(x, [0], [1, 2, 3])
    assert a == 0 and b == 2  # the weakest comparator decides "column 0 beats every other column"
    one = [sst.ttest_rel(x[:, 0], x[:, j], alternative="greater").pvalue for j in (1, 2, 3)]
    assert _p_of(iv) == pytest.approx(2 * max(one), rel=1e-9)  # intersection-union: no factor
    assert iv.estimate == pytest.approx(np.mean(x[:, 0] - x[:, 2]))
    plain = stats.paired_interval(x[:, 0], x[:, 2])
    assert iv.low <= plain.low + 1e-12 and iv.high >= plain.high - 1e-12  # never narrower than the pair's own


def test_best_contrast_contradiction_pays_for_the_choice_of_comparator():
    # column 0 against 4 others: one of them beats it at an uncorrected two-sided p of ~0.02, not after x4
    rng = np.random.default_rng(3)
    n = 15
    base = rng.normal(0, 1, (n, 5))
    d = rng.normal(0, 1, n)
    d = (d - d.mean()) / d.std(ddof=1)  # a paired difference with sd 1 and mean set below
    x = base.copy()
    x[:, 1] = x[:, 0] + 0.66 + d  # column 1 beats column 0
    x[:, 2:] = x[:, 0:1] - 3 + 0.1 * base[:, 2:]  # the rest are far below
    raw = sst.ttest_rel(x[:, 1], x[:, 0]).pvalue
    assert 0.01 < raw < 0.05
    iv, a, b = stats.best_contrast_interval(x, [0], [1, 2, 3, 4])
    assert (a, b) == (0, 1) and iv.estimate < 0
    assert _p_of(iv) == pytest.approx(min(1.0, 4 * raw), rel=1e-6)  # Bonferroni over the 4 candidates
    assert iv.high > 0  # not contradicted, while the plain runner-up interval was
    assert stats.paired_interval(x[:, 0], x[:, 1]).high < 0


def test_best_contrast_keeps_its_error_rate_where_the_runner_up_by_mean_does_not():
    # six equal columns, column 0 named in advance: how often is "column 0 is the best" contradicted at 5%?
    rng = np.random.default_rng(11)
    hits_corrected = hits_runner_up = 0
    sims = 600
    for _ in range(sims):
        x = rng.normal(0, 1, (10, 6))
        iv, _, _ = stats.best_contrast_interval(x, [0], [1, 2, 3, 4, 5])
        hits_corrected += iv.high < 0
        r = 1 + int(np.argmax(x[:, 1:].mean(axis=0)))
        hits_runner_up += stats.paired_interval(x[:, 0], x[:, r]).high < 0
    # one side of a 95% interval: 2.5% nominal (Monte-Carlo se 0.64% at 600 draws)
    assert hits_corrected / sims <= 0.025 + 2 * 0.0064
    assert hits_runner_up / sims > 0.05  # the uncorrected choice contradicts a true null twice as often or more


def test_best_contrast_of_two_groups_and_its_redraw():
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1, (20, 5)) + np.array([0.0, 4.0, 0.5, 0.0, 0.2])
    iv, a, b = stats.best_contrast_interval(x, [0, 1], [2, 3, 4])
    one = [sst.ttest_rel(x[:, 1], x[:, j], alternative="greater").pvalue for j in (2, 3, 4)]
    assert (a, b) == (1, (2, 3, 4)[int(np.argmax(one))]) and iv.low > 0
    assert _p_of(iv) == pytest.approx(min(1.0, 2 * 2 * max(one)), rel=1e-6)  # union over |A| = 2
    est, se = iv.redraw(np.random.default_rng(0), None, 50)
    assert est.shape == se.shape == (50,) and np.all(se > 0) and np.all(est > 2)
    with pytest.raises(ValueError, match="disjoint"):
        stats.best_contrast_interval(x, [0, 1], [1, 2])
    with pytest.raises(ValueError, match="0..4"):
        stats.best_contrast_interval(x, [0], [7])
    one_run, _, _ = stats.best_contrast_interval(x[:1], [1], [0, 2])
    assert math.isinf(one_run.low) and one_run.n == 1
