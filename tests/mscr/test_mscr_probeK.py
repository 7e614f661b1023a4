"""Probe K (K21, K26, K28): masked arrays are refused by mean_ci and eps_min (their masked values counted), eps_min
names integers beyond 2**53 (it blamed underflowing L2 squares under norm=inf) and rows of different lengths."""

import numpy as np
import pytest

from robeval.mscr.protocol import mean_ci
from robeval.mscr.separation import eps_min, nearest_other_class_distance


def test_mean_ci_refuses_a_masked_array():
    # K21: the masked 100 was averaged in (mean 33.47)
    values = np.ma.masked_array([0.1, 100.0, 0.3], mask=[0, 1, 0])
    with pytest.raises(TypeError, match=r"^values is a numpy masked array; .*values\.compressed\(\)"):
        mean_ci(values)
    mean, std, margin, n = mean_ci(values.compressed())
    assert n == 2 and mean == pytest.approx(0.2, abs=1e-15) and std == pytest.approx(0.1 * np.sqrt(2), rel=1e-12)
    assert margin == pytest.approx(12.706204736174707 * std / np.sqrt(2), rel=1e-9)  # t(0.975, 1 df) = 12.7062...


def test_eps_min_refuses_masked_points_and_labels():
    # K21: the masked point (0.05, 0) of class 1 made eps_min 0.025 instead of 0.5
    X = np.ma.masked_array([[0, 0], [1, 1], [0.05, 0]], mask=[[0, 0], [0, 0], [1, 1]])
    with pytest.raises(TypeError, match=r"^X is a numpy masked array; "):
        eps_min(X, [0, 1, 1])
    with pytest.raises(TypeError, match=r"^y is a numpy masked array; "):
        eps_min(X.data, np.ma.masked_array([0, 1, 1], mask=[0, 0, 1]))
    assert eps_min(X.data[:2], [0, 1]) == 0.5  # the unmasked points: max-norm distance 1, half of it


def test_eps_min_names_integers_beyond_2_53():
    # K26: norm=inf (the default) was told to "use norm=np.inf or norm=1" because 2**60 and 2**60 + 1 merged
    X = [[2**60, 0], [2**60 + 1, 0], [0, 5]]
    with pytest.raises(ValueError, match=r"^X holds the integer 1152921504606846977, beyond 2\*\*53: .*X - X\.min\(\)"):
        eps_min(X, [0, 1, 1])
    with pytest.raises(ValueError, match=r"beyond 2\*\*53"):
        nearest_other_class_distance(np.array(X), [0, 1, 1])
    # 2**53 itself is exact in float64: the separation of 2**53 and 2**53 - 1 is 1
    assert eps_min(np.array([[2**53, 0], [2**53 - 1, 0], [0, 5]]), [0, 1, 1]) == 0.5


def test_eps_min_names_rows_of_different_lengths():
    # K28: numpy's "setting an array element with a sequence ... inhomogeneous shape"
    with pytest.raises(ValueError, match=r"^X must be an \(n, d\) array of points .*different lengths \(1, 2\)"):
        eps_min([[0, 0], [1], [1, 1]], [0, 1, 1])


def test_a_read_only_X_is_measured_without_torchs_warning():
    """A DataFrame's values (or any read-only array) reached torch as is, and torch warned that it cannot share a
    non-writable array (once per process, so a later caller never saw it); now it is copied first, the distances
    unchanged."""
    import warnings

    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
    y = np.array([0, 1, 0])
    frozen = X.copy()
    frozen.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nearest_other_class_distance(frozen, y, norm=2)
    np.testing.assert_array_equal(got, [5.0, np.hypot(3.0, 3.0), np.hypot(3.0, 3.0)])
    assert not frozen.flags.writeable  # the caller's array is left as it was
