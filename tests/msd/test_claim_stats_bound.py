"""Issue 60, item 7: a statistic at the bound of its range is judged by a test that handles the bound — a mean over
units with every unit at its extreme gets the sign test over the units, not the bootstrap's resolution — so a
row at the bound (−0.5) is not less sure than one just inside it (−0.497)."""

import numpy as np
import pytest

from robeval.core.ledger import decisions
from robeval.msd.claim_stats import bootstrap


def _below(values):  # a mean over the units: the share of units above a threshold, minus 0.5
    return np.mean(values > 0) - 0.5


def test_at_the_bound_the_sign_test_over_the_units_decides():
    at_bound = np.ones(128)  # every scheme above: the share is 1, the statistic its maximum 0.5
    iv = bootstrap(_below, at_bound, seed=0, n_boot=500, unit="schemes", mean_of_units=True)
    assert iv.low == iv.high == 0.5 and iv.se == 0
    assert iv.exact_p == pytest.approx(2 * 0.5**128) and "sign test over the 128 schemes" in iv.method
    test = decisions.test_of(iv, kind=decisions.DIFFERENCE, sign=1)
    assert test is not None and test.se > 0
    # without mean_of_units the bootstrap's resolution is all a zero-width interval allows
    plain = bootstrap(_below, at_bound, seed=0, n_boot=500, unit="schemes")
    assert plain.exact_p == pytest.approx(2 / 501)


def test_inside_the_range_nothing_changes_and_few_units_stay_weak():
    inside = np.r_[np.ones(127), -np.ones(1)]
    a = bootstrap(_below, inside, seed=0, n_boot=500, unit="schemes", mean_of_units=True)
    b = bootstrap(_below, inside, seed=0, n_boot=500, unit="schemes")
    assert a.se > 0 and a.exact_p is None and (a.low, a.high, a.method) == (b.low, b.high, b.method)
    few = bootstrap(_below, np.ones(3), seed=0, n_boot=200, unit="schemes", mean_of_units=True)
    assert few.exact_p == pytest.approx(0.25)  # 3 units alike: the sign test cannot go below 2 / 8
