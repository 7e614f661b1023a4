"""Probe O on the shared input checks (robeval.core), redone: a number beyond float64 range is named with its bound
and the fix (O3: FloatRangeError, a ValueError and an OverflowError, instead of a bare OverflowError or numpy's
ufunc error)."""

import re

import pytest

from robeval.core import validation as V
from robeval.core.errors import FloatRangeError

HUGE = 10**400  # a Python int beyond float64 range (float(HUGE) raises OverflowError)
BOUND = re.escape("(float range: ±1.8e+308); rescale it to lie within that range.")


def test_float_range_error_is_a_value_error_and_an_overflow_error():
    assert issubclass(FloatRangeError, ValueError) and issubclass(FloatRangeError, OverflowError)


def test_check_float_range_names_the_argument_the_bound_and_the_fix():
    with pytest.raises(FloatRangeError, match=r"^z must be a finite number, got an int of 401 digits " + BOUND + "$"):
        V.check_float_range(-HUGE, "z")
    assert V.check_float_range(10**308, "z") is None  # within range: nothing


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v: V.check_probability(v, "p"), "p"),
        (lambda v: V.check_probability(v, "p", open_interval=False), "p"),
        (lambda v: V.check_level(v), "level"),
        (lambda v: V.check_fact_types("row 'r'", p_value=v), "row 'r': the p-value"),
    ],
)
def test_scalar_checks_name_an_int_beyond_float_range(call, name):
    # O3: check_probability raised numpy's "ufunc 'isfinite' not supported", check_level and the p-value a bare
    # OverflowError("int too large to convert to float")
    with pytest.raises(FloatRangeError, match="^" + re.escape(name) + r" must be a finite number, got an int of 401"):
        call(HUGE)
    with pytest.raises(ValueError):  # still out of (0, 1) within range, as before
        call(2)
