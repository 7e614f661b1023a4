"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.realworld."""

import numpy as np
import pytest

from robeval import realworld as rw

T = ([0.0, 1.0], [[0.9, 0.1], [0.2, 0.8]])


def test_rescale_distances_refuses_infinite_distance_and_non_boolean_success():
    with pytest.raises(ValueError, match="distances holds inf at position 1"):
        rw.rescale_distances([0.5, np.inf, 2.0])
    with pytest.raises(TypeError, match="success must hold True / False"):
        rw.rescale_distances([0.5, 1.0, 2.0], success=[0.5, 0.2, 0.1])
    out = rw.rescale_distances([0.5, np.inf, 2.0], success=[True, False, True])
    np.testing.assert_array_equal(out, [0.25, np.nan, 1.0])


@pytest.mark.parametrize("make", [rw.identity_covariance, lambda d: rw.random_covariance(d, 0)])
def test_covariance_size_guard(make):
    with pytest.raises(ValueError, match=r"features d x d .* pass a smaller d"):
        make(10**7)
    with pytest.raises(TypeError, match="d must be a positive integer"):
        make("3")
    assert make(3).shape == (3, 3)


def test_categorical_perturbation_column_keys():
    with pytest.raises(ValueError, match="columns must be keyed by column positions.*0.5"):
        rw.CategoricalPerturbation({0.5: T})
    with pytest.raises(TypeError, match="columns must be keyed"):
        rw.CategoricalPerturbation({"a": T})
    with pytest.raises(ValueError, match="columns names the column 5"):
        rw.CategoricalPerturbation({5: T}, rw.GaussianPerturbation(np.eye(3)))
    sampler = rw.CategoricalPerturbation({5: T})
    with pytest.raises(ValueError, match="columns names the column 5, but the points have 3 features"):
        sampler(np.zeros(3), 0, 4, np.random.default_rng(0))
    assert rw.CategoricalPerturbation({1: T}, rw.GaussianPerturbation(np.eye(3)))(
        np.zeros(3), 0, 4, np.random.default_rng(0)
    ).shape == (4, 3)


@pytest.mark.parametrize("flag", ["return_se", "progress", "prefetch", "allow_large"])
def test_real_world_robustness_yes_no_options(flag):
    X = np.random.default_rng(0).random((5, 2))
    with pytest.raises(TypeError, match=f"{flag} must be True or False"):
        rw.real_world_robustness(
            lambda Z: (Z[:, 0] > 0.5).astype(int), X, np.eye(2) * 0.01, None, 50, 0, **{flag: "no"}
        )


def _predict(Z):
    return (Z[:, 0] > 0.25).astype(int)


def test_booleans_are_not_numbers():
    """S5: boolean weights, covariances, robustness vectors, distances and chunk_rows were read as 1 and 0."""
    X = np.array([[0.1, 0.2]])
    with pytest.raises(TypeError, match="w must hold numbers.*got booleans"):
        rw.linear_robustness(X, [True, False])
    with pytest.raises(TypeError, match="cov must hold numbers.*got booleans"):
        rw.linear_robustness(X, [1.0, 1.0], cov=np.eye(2, dtype=bool))
    with pytest.raises(TypeError, match="a must hold numbers.*got booleans"):
        rw.correlation([True, False, True], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="distances must hold numbers.*got booleans"):
        rw.rescale_distances([True, False])
    X2 = np.array([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(TypeError, match="cov must hold numbers.*got booleans"):
        rw.real_world_robustness(_predict, X2, cov=np.eye(2, dtype=bool), n_samples=10, rng=0)
    with pytest.raises(TypeError, match="chunk_rows must be an integer >= 1.*not True"):
        rw.real_world_robustness(_predict, X2, cov=np.eye(2), n_samples=10, rng=0, chunk_rows=True)
    assert rw.real_world_robustness(_predict, X2, cov=np.eye(2), n_samples=10, rng=0, chunk_rows=3).shape == (2,)


def test_bounded_perturbation_refuses_bounds_of_another_dimension():
    """O7: bounds of 3 features around a 2-feature Gaussian were built, then failed in numpy's broadcasting."""
    base = rw.GaussianPerturbation(np.eye(2))
    with pytest.raises(ValueError, match="lower and upper have 3 entries but the base sampler works on d=2 features"):
        rw.BoundedPerturbation(base, [0, 0, 0], [1, 1, 1])
    s = rw.BoundedPerturbation(base, [0, 0], [1, 1])
    assert rw.real_world_robustness(_predict, np.array([[0.1, 0.2]]), sampler=s, n_samples=10, rng=0).shape == (1,)
