"""Probe H #4 (its real_world_robustness part) and #7.

#4: a sampler that writes into its input (``x += shift``) changed the caller's ``X``: it got ``X[i]``, a view.
#7: ``BoundedPerturbation(mode="clip")`` accepted a point outside its bounds, moved every sample onto the box's
face and reported robustness 0 for a tiny noise.
"""

import numpy as np
import pytest

from robeval import realworld as R


def _shift(x, i, n, rng):  # a careless sampler: shifts the point in place, then repeats it
    x += 1.0
    return np.repeat(x[None], n, 0)


def test_in_place_sampler_leaves_callers_X_unchanged():
    X = np.array([[0.2, 0.3], [0.9, 0.8], [0.45, 0.5]])
    X0 = X.copy()
    pred = lambda Z: (Z.sum(1) > 1).astype(int)
    r = R.real_world_robustness(pred, X, sampler=_shift, n_samples=50, rng=0)
    assert X.tobytes() == X0.tobytes()
    # every sample is x + 1: the prediction flips for points 0 and 2 (sum 0.5 -> 2.5, 0.95 -> 2.95 > 1), not for 1
    np.testing.assert_array_equal(r, [0.0, 1.0, 0.0])


def test_non_writing_sampler_bit_identical_to_its_direct_draws():
    X = np.array([[0.2, 0.3], [0.9, 0.8], [0.45, 0.5]])
    G = R.GaussianPerturbation(0.04 * np.eye(2))
    sampler = R.BoundedPerturbation(G, [0.0, 0.0], [1.0, 1.0])
    pred = lambda Z: (Z.sum(1) > 1).astype(int)
    r = R.real_world_robustness(pred, X, sampler=sampler, n_samples=300, rng=3)
    from robeval.realworld.robustness import point_rngs

    rngs = point_rngs(3, len(X))
    expected = [np.mean(pred(sampler(X[i], i, 300, rngs[i])) == pred(X[i : i + 1])[0]) for i in range(len(X))]
    np.testing.assert_array_equal(r, expected)


@pytest.mark.parametrize("mode", ["clip", "truncate"])
def test_bounded_refuses_a_point_outside_its_bounds(mode):
    X = np.array([[0.2, 0.3], [3.0, 3.0]])  # features live in [0, 1]; the second point was not normalised
    pred = lambda Z: (Z.sum(1) > 2.5).astype(int)
    s = R.BoundedPerturbation(R.GaussianPerturbation(0.0001 * np.eye(2)), [0, 0], [1, 1], mode=mode)
    with pytest.raises(ValueError, match=r"^X\[1, 0\] = 3\.0 lies above upper\[0\] = 1\.0: the unperturbed point must"):
        R.real_world_robustness(pred, X, sampler=s, n_samples=200, rng=0)
    with pytest.raises(ValueError, match=r"^X\[4, 1\] = -0\.5 lies below lower\[1\] = 0\.0: "):
        s(np.array([0.5, -0.5]), 4, 10, np.random.default_rng(0))


def test_bounded_accepts_points_on_the_bounds():
    s = R.BoundedPerturbation(R.GaussianPerturbation(0.01 * np.eye(2)), [0, 0], [1, 1], mode="clip")
    Z = s(np.array([0.0, 1.0]), 0, 100, np.random.default_rng(0))
    assert Z.shape == (100, 2) and Z.min() >= 0.0 and Z.max() <= 1.0
