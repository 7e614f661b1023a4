"""robeval.acr.sequential.certify_table / table_test: one sequential run for a whole certified-accuracy table."""

import math

import numpy as np
import pytest
import torch
from scipy.stats import norm

from robeval.acr.sequential import certify_table, reach_thresholds, table_test
from robeval.acr.smoothing import Smooth, clopper_pearson_lower

RADII = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
TH = norm.cdf(RADII / 0.5)  # sigma = 0.5, as notebook 09


def _bernoulli(p, seed):
    rng = np.random.default_rng(seed)
    p = np.asarray(p, dtype=np.float64)
    return lambda active, step: rng.binomial(step, p[active])


@pytest.mark.parametrize("method", ["union", "betting"])
def test_family_wise_false_certification_at_each_boundary(method):
    # p_A just below threshold j: certifying radius j or any larger one is false. 2500 images per boundary.
    alpha, b = 0.1, 2500
    rates = []
    for j, t in enumerate(TH):
        p = np.full(b, t - 1e-12)
        cert, n_used, _, _ = table_test(_bernoulli(p, j), b, TH, 4000, alpha, method=method, p_start=p)
        rates.append(cert[:, j:].any(axis=1).mean())
        assert n_used.max() <= 4000
    rates = np.array(rates)
    assert np.all(rates <= alpha), rates
    assert rates.max() > alpha / 20  # the bound is used, not vacuous


def test_without_the_union_bound_the_rate_exceeds_alpha():
    # the same looks, each at the full alpha (no alpha spending), break validity: the test above could fail
    alpha, b, t = 0.1, 2500, TH[1]
    rng = np.random.default_rng(0)
    n_a, ever = np.zeros(b), np.zeros(b, dtype=bool)
    done = 0
    for n_k in (100, 200, 400, 800, 1600, 3200, 4000):
        n_a += rng.binomial(n_k - done, t - 1e-12, size=b)
        done = n_k
        ever |= clopper_pearson_lower(n_a, n_k, alpha) >= t
    assert ever.mean() > alpha


def test_union_rule_by_hand_on_easy_and_hopeless_inputs():
    b = 200
    # p_A = 1: the bound (alpha / K) ** (1 / n) with K = 11 looks (100 .. 100000) is 0.97700 < Phi(2) = 0.97725
    # at n = 400, and 0.98850 at n = 800: every radius certified after exactly 800 draws
    level = 0.001 / 11
    assert math.exp(math.log(level) / 400) < TH[-1] < math.exp(math.log(level) / 800)
    cert, n_used, n_a, lo = table_test(_bernoulli(np.ones(b), 0), b, TH, 100_000, 0.001)
    assert cert.all() and np.all(n_used == 800) and np.all(n_a == 800)
    assert lo == pytest.approx(np.full(b, math.exp(math.log(level) / 800)))
    # p_A = 0.1: the upper bound at 100 draws (< 0.4) is below 1/2 -> abstain after the first look, nothing certified
    cert, n_used, _, _ = table_test(_bernoulli(np.full(b, 0.1), 1), b, TH, 100_000, 0.001)
    assert not cert.any() and np.all(n_used == 100)


@pytest.mark.parametrize("method", ["union", "betting"])
def test_abstention_between_thresholds(method):
    # p_A = 0.9 lies between Phi(1) = 0.841 and Phi(1.5) = 0.933: r <= 0.5 certified, 0.75 and 1.0 never
    b = 300
    p = np.full(b, 0.9)
    cert, n_used, _, _ = table_test(_bernoulli(p, 2), b, TH, 100_000, 0.001, method=method, p_start=p)
    assert cert[:, :3].all() and not cert[:, 3:].any()
    assert n_used.max() < 20_000  # the upper bound stops it long before n_max


def test_reach_thresholds_by_hand():
    q = reach_thresholds(TH[:2], 1000, 0.01)
    k = np.round(q * 1000).astype(int)
    assert np.all(clopper_pearson_lower(k, 1000, 0.01) >= TH[:2])
    assert np.all(clopper_pearson_lower(k - 1, 1000, 0.01) < TH[:2])


def test_bad_inputs_name_the_fix():
    with pytest.raises(ValueError, match="method"):
        table_test(_bernoulli([0.5], 0), 1, TH, 100, 0.1, method="wald")
    with pytest.raises(ValueError, match="strictly increasing"):
        table_test(_bernoulli([0.5], 0), 1, TH[::-1], 100, 0.1)
    with pytest.raises(TypeError, match="Smooth"):
        certify_table(object(), np.zeros((1, 2)), [0.0], 10, 100, 0.1, seed=0)
    sm = Smooth(torch.nn.Linear(2, 3), 3, 0.5)
    with pytest.raises(ValueError, match="strictly increasing"):
        certify_table(sm, np.zeros((1, 2), np.float32), [0.5, 0.25], 10, 100, 0.1, seed=0)
    with pytest.raises(TypeError, match="sequence of numbers"):
        certify_table(sm, np.zeros((1, 2), np.float32), ["a"], 10, 100, 0.1, seed=0)


def _toy_smooth():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))
    with torch.no_grad():
        model[1].weight.mul_(4.0)
    return Smooth(model, 3, 0.5), torch.rand(6, 3, 2, 2, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("method", ["union", "betting"])
def test_certify_table_is_independent_of_batch_size_and_grouping(method):
    sm, x = _toy_smooth()
    kw = dict(n0=100, n_max=3200, alpha=0.001, seed=5, method=method)
    a = certify_table(sm, x, RADII, batch_size=1000, **kw)
    b = certify_table(sm, x, RADII, batch_size=37, **kw)
    c = certify_table(sm, x[3:], RADII, batch_size=64, idx=np.arange(3, 6), **kw)
    for f in ("prediction", "certified", "radius", "n_used", "n_a"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
        assert np.array_equal(getattr(a, f)[3:], getattr(c, f)), f
    assert a.n_used.min() >= 100 and a.n_used.max() <= 3200


def test_one_radius_without_futility_is_certify_radius():
    # the same stream, looks and level: a one-radius table is exactly the single-radius sequential test
    sm, x = _toy_smooth()
    for r in (0.0, 0.25):
        t = certify_table(sm, x, [r], 100, 3200, 0.001, batch_size=50, seed=3, futility=False)
        s = sm.certify_radius(x, r, 100, 3200, 0.001, batch_size=50, seed=3)
        assert np.array_equal(t.certified[:, 0], s.certified) and np.array_equal(t.n_used, s.n_used)
        assert np.array_equal(t.prediction, s.prediction) and np.array_equal(t.n_a, s.n_a)
