"""Probe O on robeval.mscr, redone: radial_cdf names an eps beyond float64 range (O3: was "got inf"), and
run_seeds refuses every n_runs that is no count of runs by name (O4) while returning the same seeds as before for
every count it accepted."""

import hashlib
import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from robeval.core.errors import FloatRangeError
from robeval.mscr.noise import radial_cdf
from robeval.mscr.protocol import run_seeds

HUGE = 10**400


def test_radial_cdf_names_an_eps_beyond_float_range():
    with pytest.raises(FloatRangeError, match=r"^eps must be a finite number, got an int of 401 digits \(float range"):
        radial_cdf([0.5], 3, eps=HUGE)
    assert radial_cdf([0.5], 3, eps=10**300).tolist() == [0.0]  # within range: as before
    with pytest.raises(ValueError, match=re.escape("eps must be finite and >= 0 (a noise radius), got inf.")):
        radial_cdf([0.5], 3, eps=float("inf"))


# run_seeds' output for counts it accepted before the fix, recorded from the code before it (commit 1b92c22)
SEEDS_BEFORE = [
    ((0, 0), []),
    ((0, 1), [1115958414]),
    ((0, 3), [1115958414, 2440348501, 1156022314]),
    ((7, 5), [1862121477, 1625540653, 3994794466, 2441689552, 587749792]),
    ((2**63 - 1, 2), [1386902800, 1016167683]),
    ((12345, 4), [537451233, 453040877, 2078315707, 3544573586]),
    ((0, 3.0), [1115958414, 2440348501, 1156022314]),
    ((0, np.array(3)), [1115958414, 2440348501, 1156022314]),
    ((0, np.float32(2)), [1115958414, 2440348501]),
    ((0, np.uint8(2)), [1115958414, 2440348501]),
    ((0, -0.0), []),
]


@pytest.mark.parametrize("args, seeds", SEEDS_BEFORE)
def test_run_seeds_returns_the_seeds_it_returned_before(args, seeds):
    assert run_seeds(*args) == seeds


def test_run_seeds_of_a_thousand_runs_are_unchanged():
    got = run_seeds(0, 1000)
    assert hashlib.sha256(str(got).encode()).hexdigest() == (
        "bfa372f31ce0857872f810271a4a3e8448cc47f64a18a86253f5819c0636a8ca"
    )


NOT_A_COUNT = "n_runs must be an integer >= 0 (a count of runs, not True/False), got "


@pytest.mark.parametrize(
    "n_runs, said",
    [
        (None, NOT_A_COUNT + "None"),
        ([3], NOT_A_COUNT + "[3]"),
        (3 + 0j, NOT_A_COUNT + "(3+0j)"),
        (Fraction(3), NOT_A_COUNT + "Fraction(3, 1)"),
        (Decimal("2"), NOT_A_COUNT + "Decimal('2')"),
        (np.array([3]), NOT_A_COUNT + "array([3])"),
        (np.array(True), NOT_A_COUNT + "array(True)"),
        (10**400, "n_runs must be at most 1,000,000 (one seed per run of a grid), got an int of about 401 digits."),
        (-(10**400), NOT_A_COUNT + "-1000000000"),
    ],
    ids=["None", "list", "complex", "Fraction", "Decimal", "1-d array", "0-d bool array", "10**400", "-10**400"],
)
def test_run_seeds_names_n_runs_for_what_is_no_count(n_runs, said):
    # O4: these raised numpy's "ufunc 'isfinite' not supported" or int()'s words, naming no argument (np.array(True)
    # ran one run)
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        run_seeds(0, n_runs)


@pytest.mark.parametrize("n_runs", [True, 2.5, -1, float("nan"), "3", 10**6 + 1])
def test_run_seeds_still_refuses_what_it_refused(n_runs):
    with pytest.raises(ValueError, match="^n_runs must be"):
        run_seeds(0, n_runs)
