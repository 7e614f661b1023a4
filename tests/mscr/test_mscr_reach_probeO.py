"""Probe O on robeval.mscr, redone: radial_cdf names an eps beyond float64 range (O3: was "got inf"), and
run_seeds refuses every n_runs that is no count of runs by name (O4) while returning the same seeds as before for
every count it accepted."""

import re

import pytest

from robeval.core.errors import FloatRangeError
from robeval.mscr.noise import radial_cdf

HUGE = 10**400


def test_radial_cdf_names_an_eps_beyond_float_range():
    with pytest.raises(FloatRangeError, match=r"^eps must be a finite number, got an int of 401 digits \(float range"):
        radial_cdf([0.5], 3, eps=HUGE)
    assert radial_cdf([0.5], 3, eps=10**300).tolist() == [0.0]  # within range: as before
    with pytest.raises(ValueError, match=re.escape("eps must be finite and >= 0 (a noise radius), got inf.")):
        radial_cdf([0.5], 3, eps=float("inf"))
