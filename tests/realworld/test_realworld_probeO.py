"""Probe O on robeval.realworld (O4): the scalar arguments ``scale`` of trace_normalized, ``b`` (and ``threshold``)
of linear_robustness and ``d`` of identity_covariance refuse a Fraction, a Decimal or a Python int beyond float64
with a message naming the argument (numpy's "ufunc 'isfinite' not supported ..." named none), as they refuse None,
complex numbers, one-element arrays and tensors."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch

from robeval import realworld

HUGE = 10**400
X, W = [[0.0, 1.0]], [1.0, 1.0]
CALLS = {
    "scale": lambda v: realworld.trace_normalized(np.eye(2), v),
    "b": lambda v: realworld.linear_robustness(X, W, v),
    "threshold": lambda v: realworld.linear_robustness(X, W, 0.0, threshold=v),
    "d": lambda v: realworld.identity_covariance(v),
}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize(
    "value",
    [Fraction(1, 2), Decimal("0.5"), None, 1 + 2j, np.complex128(1), np.array([0.5]), torch.tensor(0.5)]
    + [torch.tensor(0.5, requires_grad=True)],
    ids=repr,
)
def test_a_scalar_of_another_type_is_refused_naming_it(name, value):
    with pytest.raises(TypeError, match=rf"^{name} must be a "):
        CALLS[name](value)


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("value", [HUGE, -HUGE], ids=["1e400", "-1e400"])
def test_an_int_beyond_float64_is_refused_naming_it(name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be a .*(beyond float64|finite number)") as exc:
        CALLS[name](value)
    assert len(str(exc.value)) < 300  # the 401 digits are not printed


def test_plain_numbers_still_pass():
    assert np.allclose(realworld.trace_normalized(np.eye(2), 2), np.eye(2))
    assert np.allclose(realworld.trace_normalized(np.eye(2), np.float32(2.0)), np.eye(2))
    assert realworld.linear_robustness(X, W, np.int64(0)).shape == (1,)
    assert realworld.identity_covariance(np.int64(3)).shape == (3, 3)
