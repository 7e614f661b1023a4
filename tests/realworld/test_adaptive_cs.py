"""Adaptive Monte Carlo: the "auto-cs" stopping rule keeps its coverage under optional stopping; "auto" does not."""

import numpy as np
import pytest
from scipy.stats import beta

from robeval.realworld.robustness import _adaptive_counts, real_world_robustness, union_halfwidth

Z = 1.959963984540054


def _bernoulli_count(q, seed):
    """A synthetic model: every draw of point i changes the label with probability q[i]."""
    rng = np.random.default_rng(seed)

    def count(pieces, desc):
        idx = np.array([i for i, _ in pieces])
        m = np.array([m for _, m in pieces])
        out = np.zeros(len(q), dtype=np.int64)
        out[idx] = rng.binomial(m, q[idx])
        return out

    return count


@pytest.mark.parametrize("q", [0.002, 0.01, 0.05, 0.1])
def test_auto_cs_covers_under_optional_stopping(q):
    n, se = 20_000, 0.005
    qs = np.full(n, q)
    k, drawn = _adaptive_counts(_bernoulli_count(qs, 1), n, 256, 10_000, se, rule="auto-cs")
    err = np.abs(k / drawn - q)
    stopped = drawn < 10_000
    assert stopped.mean() > 0.5  # the rule does stop early here
    miss = (err[stopped] > Z * se).mean()
    assert miss <= 0.05, miss
    # the reported interval itself (Clopper-Pearson at 0.05 / 7 rounds) holds q in >= 95% of the points
    half = union_halfwidth(k, drawn, 7)
    assert np.mean(np.abs(k / drawn - q) <= half) >= 0.95


def test_wilson_rule_misses_more_often_for_rare_flips():
    # the current rule bounds a worst-case standard error only: at q = 0.01 the error exceeds 1.96 se_target in
    # more than 5% of the points (the check above could fail); the union rule costs more rows
    n, se, q = 20_000, 0.005, 0.01
    qs = np.full(n, q)
    k, drawn = _adaptive_counts(_bernoulli_count(qs, 2), n, 256, 10_000, se, rule="auto")
    assert (np.abs(k / drawn - q) > Z * se).mean() > 0.05
    k2, drawn2 = _adaptive_counts(_bernoulli_count(qs, 2), n, 256, 10_000, se, rule="auto-cs")
    assert drawn2.sum() > drawn.sum()


def test_union_halfwidth_by_hand():
    # k = 0, n = 100, 1 round: interval [0, 1 - 0.025 ** (1 / 100)], the estimate 0 -> half-width = upper end
    assert union_halfwidth(0, 100, 1) == pytest.approx(1 - 0.025 ** (1 / 100))
    # k = 30, n = 100, 7 rounds: the two Beta quantiles at 0.05 / 14
    a = 0.05 / 14
    lo, hi = beta.ppf(a, 30, 71), beta.ppf(1 - a, 31, 70)
    assert union_halfwidth(30, 100, 7) == pytest.approx(max(0.3 - lo, hi - 0.3))


def test_auto_cs_estimates_are_prefixes_of_the_fixed_draws():
    X = np.array([[0.0], [0.3], [2.0]])

    def predict(Z):
        return (Z[:, 0] > 0.25).astype(np.int64)

    cov = np.eye(1) * 0.04
    auto = real_world_robustness(predict, X, cov=cov, n_samples="auto-cs", rng=3, n_min=64, n_max=4096, return_se=True)
    for i, m in enumerate(auto.n_samples):
        fixed = real_world_robustness(predict, X, cov=cov, n_samples=int(m), rng=3)
        assert auto.robustness[i] == fixed[i]
    # far from the boundary no draw flips: the half-width 1 - (0.05 / 14) ** (1 / n) first drops below
    # 1.96 * 0.005 at n = 1024 of the schedule 64, 128, ..., 4096 (7 rounds)
    assert 1 - (0.05 / 14) ** (1 / 512) > Z * 0.005 > 1 - (0.05 / 14) ** (1 / 1024)
    assert auto.n_samples[2] == 1024 and auto.robustness[2] == 1.0
    with pytest.raises(ValueError, match="auto-cs"):
        real_world_robustness(predict, X, cov=cov, n_samples="auto-valid", rng=3)
