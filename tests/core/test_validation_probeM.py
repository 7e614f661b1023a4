"""Probe M on robeval.core.validation: the shared array checkers refuse numpy masked arrays (M10), so every
function that reads its arrays through them does; numbers that are text, booleans or complex are refused before
they are converted (M11)."""

import numpy as np
import pytest

from robeval.core import validation as V

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)\. "


def _masked(values, first=True):
    mask = np.zeros(np.shape(values), dtype=bool)
    mask.reshape(-1)[0] = first
    return np.ma.masked_array(values, mask)


X = np.array([[0.2, 0.3], [0.7, 0.6], [0.4, 0.9]])


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: V.check_array(_masked(X)), "X"),
        (lambda: V.check_array(_masked(X), name="points"), "points"),
        (lambda: V.check_X_y(_masked(X), np.array([0, 1, 0])), "X"),
        (lambda: V.check_X_y(X, _masked(np.array([0, 1, 0]))), "y"),
        (lambda: V.check_features(_masked(X)), "X"),
        (lambda: V.check_features(_masked(X), "X_test"), "X_test"),
        (lambda: V.check_labels(_masked(np.array([0, 1, 0])), name="y_test"), "y_test"),
        (lambda: V.check_labels(_masked(np.array([0, 1, 0])), num_classes=2), "y"),
        (lambda: V.check_indices(_masked(np.array([0, 1, 2]))), "idx"),
        (lambda: V.as_float_points(_masked(X)), "X"),
        (lambda: V.as_float_points(_masked(X.astype(np.float32)), name="x"), "x"),
        (lambda: V.as_float_points(_masked((X * 255).astype(np.uint8)), unit_interval=True), "X"),
        (lambda: V.check_sequence(_masked(np.array([0.0, 0.1])), "eps_train"), "eps_train"),
    ],
)
def test_the_shared_array_checkers_refuse_masked_arrays(call, name):
    # M10: only the functions L5 named refused a masked array; check_features, check_labels, check_indices and
    # as_float_points (read by evaluate_levels, the realworld estimators, sample_uniform_ball and Smooth.certify)
    # dropped the mask and read the masked values
    with pytest.raises(TypeError, match="^" + name + MASKED + "Pass the values that count"):
        call()


def test_the_shared_array_checkers_still_take_the_same_arrays_unmasked():
    assert V.check_features(X).tolist() == X.tolist()
    assert V.check_labels([0, 1, 0], num_classes=2).tolist() == [0, 1, 0]
    assert V.check_indices(np.array([2, 0, 1])).tolist() == [2, 0, 1]
    assert V.as_float_points(X).tolist() == X.tolist()
    np.testing.assert_array_equal(V.check_array(X), X)


def test_check_numbers_refuses_nested_lists_of_booleans():
    # unit_offsets=[[True, False]] (evaluate_levels) was read as [[1.0, 0.0]]: check_no_bools looked one level deep
    with pytest.raises(TypeError, match=r"^unit_offsets must hold numbers, e\.g\. \[0\.0, 0\.25\]; got booleans"):
        V.check_numbers([[True, False]], "unit_offsets")
    assert V.check_numbers([[1, 0]], "unit_offsets").tolist() == [[1.0, 0.0]]


@pytest.mark.parametrize(
    "cov, said",
    [
        (
            [["1", "0"], ["0", "1"]],
            r"^cov must hold numbers, e\.g\. np\.eye\(d\); got np\.str_\('1'\) \(dtype <U1\)\.$",
        ),
        (
            np.array([[1.0 + 5j, 0.0], [0.0, 1.0]]),
            r"^cov must hold numbers, e\.g\. np\.eye\(d\); got complex values \(dtype complex128\), whose imaginary "
            r"part would be dropped; pass the real parts \(cov\.real\) if the imaginary parts are 0\.$",
        ),
        (
            np.array([[1 + 0j, 0], [0, 1]], dtype=object),
            r"^cov must hold numbers, e\.g\. np\.eye\(d\); got complex values \(dtype object\)",
        ),
        ([[True, False], [False, True]], r"^cov must hold numbers, e\.g\. np\.eye\(d\); got booleans"),
        (np.ma.masked_array(np.eye(2), [[0, 1], [0, 0]]), "^cov" + MASKED),
    ],
)
def test_check_covariance_refuses_text_complex_and_booleans_before_converting(cov, said):
    # M11: np.asarray(cov, dtype=float64) parsed the text and dropped the imaginary part with only a ComplexWarning
    with pytest.raises(TypeError, match=said):
        V.check_covariance(cov)


def test_check_covariance_keeps_reading_real_matrices():
    from fractions import Fraction

    assert V.check_covariance([[Fraction(1, 2), 0], [0, 1]]).tolist() == [[0.5, 0.0], [0.0, 1.0]]
    assert V.check_covariance(np.eye(2, dtype=int)).dtype == np.float64
    with pytest.raises(
        TypeError, match=r"^cov must be a numeric \(d, d\) covariance matrix, got \[\[1\.0, 0\.0\], \[1\.0\]\]"
    ):
        V.check_covariance([[1.0, 0.0], [1.0]])
