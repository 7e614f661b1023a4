"""Probe L on robeval.mscr: masked arrays refused where they were read with their masked values (L5: mscr_value,
radial_cdf), a text cell of row_optima's frame named as the docstring promises (L12), a Fraction taken as the
number it is and a ``by`` naming the run's own keys refused by name (L14)."""

import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from robeval import mscr

masked = np.ma.masked_array
MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"


def test_mscr_value_refuses_masked_accuracies():
    # L5: [-20, -50] (the masked 0.9 read as a clean accuracy)
    with pytest.raises(TypeError, match="^acc_clean" + MASKED):
        mscr.mscr_value(masked([0.5, 0.9], [0, 1]), np.array([0.4, 0.45]))
    with pytest.raises(TypeError, match="^acc_rob" + MASKED):
        mscr.mscr_value(np.array([0.5, 0.9]), masked([0.4, 0.45], [0, 1]))


def test_radial_cdf_refuses_masked_radii():
    # L5: [0.25, 0.49] (the masked radius answered)
    with pytest.raises(TypeError, match="^r" + MASKED):
        mscr.radial_cdf(masked([0.5, 0.7], [0, 1]), 2)
    assert mscr.radial_cdf(np.array([0.5]), 2).tolist() == [0.25]


def test_mscr_value_takes_a_fraction_as_the_number_it_is():
    # L14: "acc_clean must be an accuracy in [0, 1] (a number, not text)" for Fraction(4, 5)
    assert mscr.mscr_value(Fraction(4, 5), 0.6) == pytest.approx(mscr.mscr_value(0.8, 0.6)) == pytest.approx(-25.0)
    with pytest.raises(TypeError, match=r"^acc_clean must be an accuracy in \[0, 1\] \(a number, not text\)"):
        mscr.mscr_value(np.array(["0.8", 1], dtype=object), 0.6)


def test_row_optima_names_a_text_cell():
    # L12: pandas' TypeError: '>' not supported between instances of 'float' and 'str'
    mean = pd.DataFrame([["0.9", 0.6]], index=[0.0], columns=[0.0, 0.5])
    with pytest.raises(
        ValueError,
        match=re.escape("mean holds the text '0.9' at eps_test=0.0, eps_train=0.0; every cell needs a mean accuracy"),
    ):
        mscr.row_optima(mean)
    assert mscr.row_optima(pd.DataFrame([[0.9, 0.6]], index=[0.0], columns=[0.0, 0.5])).tolist() == [0.0]


@pytest.mark.parametrize("by, what", [(("seed",), "'seed', which is not a grouping column"),
                                      (("eps_test",), "'eps_test', which is not a grouping column"),
                                      (("eps_train", "eps_train"), "a column more than once")])  # fmt: skip
def test_mscr_per_run_refuses_a_by_naming_the_runs_own_keys(by, what):
    # L14: "df hold 8 rows for 4 run key(s) (seed, seed, eps_test) that appear more than once"
    rows = pd.DataFrame(
        [{"seed": s, "eps_train": et, "eps_test": es, "acc": 0.9 - 0.1 * es}
         for s in (0, 1) for et in (0.0, 0.5) for es in (0.0, 0.5)]
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"^by names " + re.escape(what) + r": every run is keyed by its seed"):
        mscr.mscr_per_run(rows, 0.5, by=by)
    assert len(mscr.mscr_per_run(rows, 0.5)) == 4


def test_eps_min_refuses_boolean_coordinates():
    # Minor: boolean coordinates were read as 1 / 0 (X > 0.5 -> eps_min 0.5), where correlation and msd refuse them
    X = np.array([[0.1, 0.9], [0.8, 0.2], [0.7, 0.6], [0.2, 0.3]])
    y = np.array([0, 1, 1, 0])
    with pytest.raises(
        TypeError, match=r"^X must hold numbers, e\.g\. \[\[0\.1, 0\.2\], \[0\.5, 0\.4\]\]; got booleans"
    ):
        mscr.eps_min(X > 0.5, y)
    assert mscr.eps_min((X > 0.5).astype(float), y) == 0.5
