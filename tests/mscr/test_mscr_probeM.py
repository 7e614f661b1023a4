"""Probe M on robeval.mscr: evaluate_levels and sample_uniform_ball refuse numpy masked arrays (M10); mscr_value
refuses complex accuracies and radial_cdf text or boolean radii (M11)."""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from robeval import mscr
from robeval.mscr.noise import sample_uniform_ball

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)\. "
XT = np.array([[0.0, 0.0], [1.0, 1.0], [0.1, 0.0], [0.9, 1.0]])
YT = np.array([0, 1, 0, 1])


@pytest.fixture(scope="module")
def clf():
    return KNeighborsClassifier(1).fit(XT, YT)


def test_evaluate_levels_refuses_masked_points_labels_and_offsets(clf):
    # M10: a masked (wrong) label was counted (acc 0.75), a masked row was classified (acc 1.0)
    first = [[1, 1], [0, 0], [0, 0], [0, 0]]
    with pytest.raises(TypeError, match="^y_test" + MASKED):
        mscr.evaluate_levels(clf, XT, np.ma.masked_array([1, 1, 0, 1], [1, 0, 0, 0]), [0.0], 1, 2, seed=0)
    with pytest.raises(TypeError, match="^X_test" + MASKED):
        mscr.evaluate_levels(clf, np.ma.masked_array(XT, first), YT, [0.0], 1, 2, seed=0)
    unit = np.ma.masked_array([[0.5, 0.0], [0.0, 0.5]], [[1, 1], [0, 0]])
    with pytest.raises(TypeError, match="^unit_offsets" + MASKED):
        mscr.evaluate_levels(clf, XT, YT, [0.0, 0.1], 2, 2, seed=0, noise_mode="shared_offsets", unit_offsets=unit)
    assert [r["acc"] for r in mscr.evaluate_levels(clf, XT, YT, [0.0], 1, 2, seed=0)] == [1.0]


def test_evaluate_levels_refuses_unit_offsets_that_are_no_numbers(clf):
    # np.asarray(unit_offsets, dtype=float64) parsed text and read booleans as 1 and 0
    with pytest.raises(
        TypeError,
        match=r"^unit_offsets must hold numbers, e\.g\. unit_ball_offsets\(1, k, d, norm, rng\)\[0\]; got np\.str_\('0\.5'\)",
    ):
        mscr.evaluate_levels(clf, XT, YT, [0.1], 1, 2, seed=0, noise_mode="shared_offsets", unit_offsets=[["0.5", "0"]])
    with pytest.raises(TypeError, match=r"^unit_offsets must hold numbers, e\.g\. unit_ball_offsets.*got booleans"):
        mscr.evaluate_levels(
            clf, XT, YT, [0.1], 1, 2, seed=0, noise_mode="shared_offsets", unit_offsets=[[True, False]]
        )


def test_sample_uniform_ball_refuses_masked_centres():
    # M10: the masked row got its k noisy copies like any other: shape (4, 2, 2)
    with pytest.raises(TypeError, match="^X" + MASKED):
        sample_uniform_ball(
            np.ma.masked_array(XT, [[1, 1], [0, 0], [0, 0], [0, 0]]), 0.1, 2, 2, np.random.default_rng(0)
        )


def test_mscr_value_refuses_complex_accuracies():
    # M11: mscr_value(0.9+1j, 0.8) -> [-11.11] (the imaginary part dropped; mean_ci refuses the same value)
    with pytest.raises(
        TypeError,
        match=r"^acc_clean must be an accuracy in \[0, 1\] \(a real number\), got the complex array\(\[0\.9\+1\.j\]\); "
        r"pass the real accuracy \(acc_clean\.real if the imaginary part is 0\)\.$",
    ):
        mscr.mscr_value(np.array([0.9 + 1j]), np.array([0.8]))
    with pytest.raises(TypeError, match=r"^acc_rob must be an accuracy in \[0, 1\] \(a real number\), got the complex"):
        mscr.mscr_value(0.9, 0.8 + 0j)
    with pytest.raises(
        TypeError, match=r"^acc_rob must be an accuracy in \[0, 1\] \(a real number\), got the complex \["
    ):
        mscr.mscr_value([0.9, 0.8], [Fraction(4, 5), 0.7 + 1j])  # an object array
    assert mscr.mscr_value(0.9, 0.8) == pytest.approx(-11.111111111111)


@pytest.mark.parametrize(
    "r, said",
    [
        (
            np.array(["0.5"]),
            r"^r must hold numbers, e\.g\. \[0\.25, 0\.5\] \(radii\); got np\.str_\('0\.5'\) \(dtype <U3\)\.$",
        ),
        (["0.5"], r"^r must hold numbers, e\.g\. \[0\.25, 0\.5\] \(radii\); got np\.str_\('0\.5'\)"),
        (np.array([True, False]), r"^r must hold numbers, e\.g\. \[0\.25, 0\.5\] \(radii\); got booleans"),
        (np.array([0.5 + 1j]), r"^r must hold numbers, e\.g\. \[0\.25, 0\.5\] \(radii\); got complex values"),
    ],
)
def test_radial_cdf_refuses_text_boolean_and_complex_radii(r, said):
    # M11: radial_cdf(['0.5'], 2) -> [0.25] (the text parsed); minor: boolean radii read as 1 and 0
    from robeval.mscr.noise import radial_cdf

    with pytest.raises(TypeError, match=said):
        radial_cdf(r, 2)
    assert radial_cdf([0.5], 2).tolist() == [0.25]
