"""Probe O on the shared input checks (robeval.core), redone: a number beyond float64 range is named with its bound
and the fix (O3: FloatRangeError, a ValueError and an OverflowError, instead of a bare OverflowError or numpy's
ufunc error); a FIFO, socket, device or folder where a file is to be written is named, never replaced (L4); a torch
tensor on the 'meta' device is named with the fix (O2: it holds no values, and torch's error named no argument)."""

import os
import re

import pytest

from robeval.core import io
from robeval.core import validation as V
from robeval.core.errors import FloatRangeError
from robeval.core.frames import check_not_meta
from robeval.core.io import NotRegularFileError

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


# ------------------------------------------------------------------ L4: a FIFO, device or folder is never written


def _special_paths(tmp_path):
    """A FIFO, a folder, a link to a character device and a link to a FIFO, with the kind each is named as."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "null").symlink_to("/dev/null")
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    return [
        (tmp_path / "fifo", "a FIFO (named pipe)"),
        (tmp_path / "folder", "a folder"),
        (tmp_path / "null", "a device (through a link)"),
        (tmp_path / "to-fifo", "a FIFO (named pipe) (through a link)"),
    ]


def test_check_write_target_names_what_is_there(tmp_path):
    for path, kind in _special_paths(tmp_path):
        said = f"out {str(path)!r} is {kind}, not a regular file: a file is to be written there, and robeval never "
        with pytest.raises(NotRegularFileError, match="^" + re.escape(said) + ".*; pick another file.$"):
            io.check_write_target(path, "out", "pick another file")
    (tmp_path / "file").write_bytes(b"x")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    for ok in ("file", "new", "dangling"):
        assert io.check_write_target(tmp_path / ok) == tmp_path / ok


# ------------------------------------------------------------------ O2: a tensor on the 'meta' device holds no values


def _meta(*shape):
    import torch

    return torch.zeros(shape, device="meta")


def test_check_not_meta_names_the_argument_and_the_fix():
    import torch

    said = "x is a tensor on the 'meta' device, which holds no values (only a shape (2, 3) and a dtype); pass a CPU "
    with pytest.raises(ValueError, match="^" + re.escape(said + "tensor or array.") + "$"):
        check_not_meta(_meta(2, 3), "x")
    for fine in (torch.zeros(2), [1.0], None, "text"):
        assert check_not_meta(fine, "x") is None


def test_check_array_refuses_a_meta_tensor_by_name():
    # O2: TypeError "X could not be converted to a numeric array (can't convert meta device type tensor ...)"
    with pytest.raises(ValueError, match=r"^features is a tensor on the 'meta' device, which holds no values"):
        V.check_array(_meta(4, 2), name="features")
