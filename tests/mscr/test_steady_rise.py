"""Issue 60, item 5: "steady robustness increase" (Sec. 5.2) is tested as what it says — a rise at every step of
eps_train, the weakest step deciding — not as a positive rank correlation, which a curve that dips can have."""

import numpy as np
import pytest

from robeval.core import stats
from robeval.mscr.claim_stats import steady_rise_interval
from robeval.mscr.claims_sheet import steady_rise_of_sheet


def _runs(curve, sd=0.3, n=60, seed=0):
    return np.asarray(curve, float)[None, :] + np.random.default_rng(seed).normal(0, sd, size=(n, len(curve)))


def test_a_curve_rising_at_every_step_is_steady():
    iv, j = steady_rise_interval(_runs([0, 1, 2, 3, 4]))
    assert iv.low > 0 and 0 <= j < 4


def test_a_dip_contradicts_even_with_a_positive_rank_correlation():
    curve = [0, -0.8, -0.6, 1, 3]  # rises overall (Spearman rho 0.9) but falls at the first step
    runs = _runs(curve)
    assert stats.spearman(np.arange(5), runs.mean(axis=0)) > 0.5
    iv, j = steady_rise_interval(runs)
    assert iv.high < 0 and j == 0


def test_a_flat_step_leaves_it_open_and_one_run_decides_nothing():
    iv, j = steady_rise_interval(_runs([0, 1, 1, 2]))
    assert iv.low < 0 < iv.high and j == 1
    iv, _ = steady_rise_interval(_runs([0, 1, 2], n=1))
    assert iv.low == -np.inf and iv.high == np.inf


def test_the_weakest_step_decides_a_rise_uncorrected_and_a_fall_is_bonferroni_corrected():
    """Hand case: with every step but one far above 0, the row is the pair test of that step at 95% (no
    correction: every step must pass); a fall is reported with its se widened to the Bonferroni-corrected p."""
    runs = _runs([0, 5, 10, 10.25, 15], sd=1.0, n=30, seed=3)
    iv, j = steady_rise_interval(runs)
    d = runs[:, 3] - runs[:, 2]
    pair = stats.paired_interval(runs[:, 3], runs[:, 2])
    assert j == 2 and iv.estimate == pytest.approx(d.mean()) and iv.se == pytest.approx(pair.se)


def test_shape_errors_are_named():
    with pytest.raises(ValueError, match="per_run must have shape"):
        steady_rise_interval(np.zeros(4))
    with pytest.raises(ValueError, match="one value per eps_train column"):
        steady_rise_of_sheet([1.0], [1.0], [0.1], [0.1], 10)


def test_the_sheet_row_by_hand():
    """Relative change r_k = 100 (a_k − c_k) / c_k; a step's se is the bounded sum over its four cells."""
    clean, sd = np.array([90.0, 90.0, 90.0]), np.array([1.0, 1.0, 1.0])
    iv, j = steady_rise_of_sheet(np.array([60.0, 70.0, 80.0]), clean, sd, sd, 100)
    rel = 100 * (np.array([60, 70, 80]) - 90) / 90
    assert iv.estimate == pytest.approx(rel[2] - rel[1]) and iv.low > 0  # both steps rise by the same 11.1 %
    # ... and the second is the less sure (its cells' gradients are larger): |grad| summed times sd / sqrt(n)
    se = (100 / 90 + 100 * 80 / 90**2 + 100 / 90 + 100 * 70 / 90**2) * 1.0 / 10
    assert j == 1 and iv.se == pytest.approx(se)
    iv, j = steady_rise_of_sheet(np.array([60.0, 80.0, 70.0]), clean, sd, sd, 100)
    assert j == 1 and iv.high < 0  # the second step falls
    iv, j = steady_rise_of_sheet(np.array([60.0, 80.0, 79.9]), clean, sd, sd, 100)
    assert j == 1 and iv.low < 0 < iv.high  # a fall within the sheet's noise decides nothing
