"""Probe H #1: the L2 class separation of points around 1e-165 (squares of the differences underflow float64).

``nearest_other_class_distance(norm=2)`` returned 0 for distinct points there, and ``eps_min`` then claimed
"identical twins ... e.g. ." that do not exist. The distances are now measured at an exact power-of-two scale
when (and only when) they would lose digits, so ordinary data keeps bit-identical distances.
"""

import numpy as np
import pytest

from robeval.mscr.separation import eps_min, min_class_separation, nearest_other_class_distance


def _reference(X, y):
    """The L2 distances of the unscaled code path: brute force by the same torch.cdist, no scaling."""
    import torch

    T = torch.as_tensor(np.asarray(X, dtype=np.float64).reshape(len(X), -1))
    D = torch.cdist(T, T, p=2.0, compute_mode="donot_use_mm_for_euclid_dist").numpy()
    D[np.asarray(y)[:, None] == np.asarray(y)[None, :]] = np.inf
    return D.min(1)


@pytest.mark.parametrize("scale", [0, -560, -900, -1000])
def test_345_triangle_exact_at_tiny_scales(scale):
    # (0, 0) class 0 and (3, 4) class 1: L2 distance 5, exactly 5 * 2**scale at every scale
    X = np.ldexp(np.array([[0.0, 0.0], [3.0, 4.0]]), scale)
    y = np.array([0, 1])
    expected = np.ldexp(5.0, scale)
    np.testing.assert_array_equal(nearest_other_class_distance(X, y, 2), [expected, expected])
    assert min_class_separation(X, y, 2) == expected
    assert eps_min(X, y, 2) == expected / 2


@pytest.mark.parametrize("d", [2, 20, 600])  # the k-d tree, brute force and branch-and-bound paths
def test_ordinary_data_bit_identical_and_tiny_copy_exact(d):
    rng = np.random.default_rng(0)
    X = rng.random((40, d))
    y = np.arange(40) % 3
    got = nearest_other_class_distance(X, y, 2)
    if d <= 20:  # the same arithmetic as the unscaled brute force, bit for bit
        np.testing.assert_array_equal(got, _reference(X, y))
    # the same data times 2**-600 (squares underflow without the scaling): the same distances times 2**-600
    tiny = nearest_other_class_distance(np.ldexp(X, -600), y, 2)
    np.testing.assert_array_equal(tiny, np.ldexp(got, -600))


def test_report_reproducer_no_false_twins():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [1.1, 1.0]])
    y = np.array([0, 0, 1, 1])
    ordinary = eps_min(X, y, norm=2)
    assert eps_min(np.ldexp(X, -548), y, norm=2) == np.ldexp(ordinary, -548)  # 2**-548 ~ 1e-165
    rng = np.random.default_rng(0)
    Xh, yh = rng.random((20, 600)), np.arange(20) % 2
    assert np.all(nearest_other_class_distance(Xh * 1e-170, yh, norm=2) > 0)


def test_distinct_points_reading_zero_are_not_called_twins():
    # a difference of 1e-200 next to coordinates of 1: the power-of-two scaling of X cannot lift it
    X = np.array([[1e-200, 0.0], [0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match=r"^the class separation reads 0 at 2 points \(first: point 0\) that have no "):
        eps_min(X, [0, 1, 1], norm=2)
    with pytest.raises(
        ValueError, match=r"^the class separation is 0: 2 points have an identical twin .* points 0 and 1"
    ):
        eps_min(np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]), [0, 1, 1], norm=2)
