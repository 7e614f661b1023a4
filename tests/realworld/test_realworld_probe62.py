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
