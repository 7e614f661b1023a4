"""Probe K (K17, K20, K28): labelled covariances and weights are matched to X's columns, not paired by position;
correlation refuses integers beyond 2**53; a sampler over another number of features is refused by name."""

import numpy as np
import pandas as pd
import pytest

from robeval import realworld as rw

X = pd.DataFrame([[0, 0], [0.1, 0], [1, 1], [1.1, 1], [0, 1], [1, 0.0]], columns=["a", "b"])
# var(b) = 100, var(a) = 0.01, listed b first: paired by position, the variance 100 fell on column a
C = pd.DataFrame([[100.0, 0], [0, 0.01]], index=["b", "a"], columns=["b", "a"])


def rule(Z):
    return (np.asarray(Z)[:, 0] > 0.5).astype(int)


def test_real_world_robustness_refuses_a_covariance_labelled_in_another_order():
    # K17: this returned about 0.5 per point (the variance of b applied to a)
    with pytest.raises(ValueError, match=r"^cov's index \['b', 'a'\] differs from X's columns \['a', 'b'\]: .*"
                       r"cov\.loc\[X\.columns, X\.columns\]"):  # fmt: skip
        rw.real_world_robustness(rule, X, C, n_samples=200, rng=0)
    # by label: var(a) = 0.01, every point is 0.4 or more from the boundary at 0.5 -> P_r = 1 (all 200 draws)
    got = rw.real_world_robustness(rule, X, C.loc[X.columns, X.columns], n_samples=200, rng=0)
    np.testing.assert_array_equal(got, np.ones(6))
    swapped = pd.DataFrame(np.diag([0.01, 100.0]), index=["a", "b"], columns=["b", "a"])  # index and columns disagree
    with pytest.raises(ValueError, match=r"^cov's columns \['b', 'a'\] differs from X's columns \['a', 'b'\]"):
        rw.real_world_robustness(rule, X, swapped, n_samples=10, rng=0)
    with pytest.raises(ValueError, match=r"^cov's index \['a', 'b'\] differs from its columns \['b', 'a'\]"):
        rw.real_world_robustness(rule, X.to_numpy(), swapped, n_samples=10, rng=0)


def test_linear_robustness_matches_w_and_cov_by_label():
    # K17: cov=C gave about 0.52 per point; w as a Series in another order was paired by position too
    with pytest.raises(ValueError, match=r"^cov's index \['b', 'a'\] differs from X's columns"):
        rw.linear_robustness(X, np.array([1.0, 0.0]), cov=C)
    with pytest.raises(ValueError, match=r"^w's index \['b', 'a'\] differs from X's columns .*w\[X\.columns\]"):
        rw.linear_robustness(X, pd.Series([0.0, 1.0], index=["b", "a"]))
    # by label: w = (1, 0), var(a) = 0.01: P_r = Phi(|x_a - 1/2| / 0.1)
    got = rw.linear_robustness(X, pd.Series([1.0, 0.0], index=["a", "b"]), cov=C.loc[["a", "b"], ["a", "b"]])
    from scipy.stats import norm

    np.testing.assert_allclose(got, norm.cdf(np.abs(X["a"].to_numpy() - 0.5) / 0.1), rtol=1e-12)
    # arrays are paired by position, as before
    np.testing.assert_array_equal(got, rw.linear_robustness(X.to_numpy(), [1.0, 0.0], cov=np.diag([0.01, 100.0])))


def test_correlation_refuses_integers_beyond_2_53():
    # K20: the four integers collapsed to one float and the correlation read NaN (a constant vector); it is 1
    big = np.array([2**60, 2**60 + 1, 2**60 + 2, 2**60 + 3])
    with pytest.raises(ValueError, match=r"^a holds the integer 1152921504606846979, beyond 2\*\*53"):
        rw.correlation(big, np.array([1.0, 2, 3, 4]))
    with pytest.raises(ValueError, match=r"^b holds the integer -1152921504606846976, beyond 2\*\*53"):
        rw.correlation([1.0, 2, 3, 4], [-(2**60), 1, 2, 3])
    assert rw.correlation(big - 2**60, np.array([1.0, 2, 3, 4])) == pytest.approx(1.0, abs=1e-15)


def test_real_world_robustness_refuses_a_sampler_of_another_dimension():
    # K28: numpy's "operands could not be broadcast together with shapes (120,2) (3,) (120,2)", and an IndexError
    X2 = np.array([[0, 0], [1, 1.0], [0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"^sampler works on 3 features, but the points of X have 2; .*\(2, 2\)"):
        rw.real_world_robustness(rule, X2, sampler=rw.GaussianPerturbation(np.eye(3)), n_samples=30, rng=0)
    bounded = rw.BoundedPerturbation(rw.GaussianPerturbation(np.eye(3)), [-9.0] * 3, [9.0] * 3)
    with pytest.raises(ValueError, match=r"^sampler works on 3 features, but the points of X have 2"):
        rw.real_world_robustness(rule, X2, sampler=bounded, n_samples=30, rng=0)
    stack = rw.GaussianPerturbation(np.stack([np.eye(2)] * 3))
    with pytest.raises(ValueError, match=r"^sampler is a stack of 3 covariances but X has 4 points"):
        rw.real_world_robustness(rule, X2, sampler=stack, n_samples=30, rng=0)
