"""Checks of the scalar arguments of :mod:`robeval.acr` (noise level, failure probability, counts).

Each returns the value in its working type or raises ValueError / TypeError whose message starts with the
argument's name, says what was got and how to fix it.
"""

from __future__ import annotations

import math
import sys

import numpy as np

#: Largest float64, the bound on a budget or count that is evaluated in floating point.
FLOAT_MAX = sys.float_info.max


def check_sigma(sigma) -> float:
    """Return ``sigma`` as float; raise ValueError unless it is a finite number > 0 (a Python int beyond float64,
    e.g. 10**400, is refused naming ``sigma``)."""
    if isinstance(sigma, int) and not isinstance(sigma, (bool, np.bool_)) and abs(sigma) > FLOAT_MAX:
        raise ValueError(huge_int_message("sigma", sigma, "a noise standard deviation"))
    try:
        if isinstance(sigma, (str, bytes, bool, np.bool_)):
            raise TypeError
        s = float(sigma)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"sigma must be a positive number (noise std in input units), got {sigma!r:.60}.") from None
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"sigma must be > 0 (noise standard deviation), got {sigma!r}; pass e.g. sigma=0.25.")
    return s


def refuse_text(value, name: str, what: str) -> None:
    """TypeError naming ``name`` when ``value`` is text or a boolean, which ``float()`` would read as a number in
    silence (``float("0.5")``, ``float(True) == 1.0``); ``what`` says what to pass."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(
            f"{name} must be {what}, got {type(value).__name__} {value!r}; text and booleans are not read as numbers."
        )


def check_alpha(alpha, name: str = "alpha") -> float:
    """Return ``alpha`` as float; TypeError for text or a boolean (``"0.001"`` is not read as a number, True not
    as 1), ValueError unless ``0 < alpha < 1``. ``name``: the argument's name in the messages."""
    refuse_text(alpha, name, "a number in (0, 1) (failure probability), e.g. 0.001")
    if isinstance(alpha, int) and abs(alpha) > FLOAT_MAX:
        raise ValueError(f"{name} must lie strictly between 0 and 1 (failure probability), got {show_int(alpha)}.")
    try:
        a = float(alpha)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a failure probability in (0, 1), got {alpha!r:.60}.") from None
    if not (0.0 < a < 1.0):
        raise ValueError(
            f"{name} must lie strictly between 0 and 1 (failure probability), got {alpha!r}"
            + ("; the standard choice is alpha=0.001." if name == "alpha" else ".")
        )
    return a


def _whole_number(n) -> bool:
    """True for an int (not a bool), a numpy integer or a float holding a whole number."""
    return not isinstance(n, (bool, np.bool_)) and (
        isinstance(n, (int, np.integer)) or (isinstance(n, float) and float(n).is_integer())
    )


#: The hint of :func:`check_num_samples` for the functions that take both ``n0`` and ``n`` (CERTIFY's budget).
COHEN_HINT = "Cohen et al. use n0=100 and n=100000"


def check_num_samples(n, name: str = "N", *, hint: str = "") -> int:
    """Return ``n`` as int; raise ValueError unless it is an integer >= 1 (a number of noise draws). ``hint``: a
    sentence appended to the refusal of a value below 1 (:data:`COHEN_HINT` where the caller takes ``n0`` and
    ``n``); it must name only the caller's parameters."""
    if not _whole_number(n):
        raise ValueError(f"{name} must be a positive integer number of noise draws, got {n!r}.")
    n = int(n)
    if n < 1:
        raise ValueError(f"{name} must be >= 1 (number of noise draws), got {n}" + (f"; {hint}." if hint else "."))
    if n > FLOAT_MAX:  # every bound and budget is evaluated in floating point
        raise ValueError(huge_int_message(name, n, "a number of draws"))
    return n


def check_count(n, name: str, meaning: str) -> int:
    """Return ``n`` as int; ValueError naming ``name`` unless it is an integer >= 1. ``meaning`` says what the
    number is (e.g. ``"noisy inputs per forward pass; the results do not depend on it"``): a batch size or a number
    of images per step is not a number of noise draws (:func:`check_num_samples`)."""
    if not _whole_number(n) or int(n) < 1:
        raise ValueError(f"{name} must be an integer >= 1 ({meaning}), got {n!r}.")
    return int(n)


def check_counts(values, name: str, what: str) -> np.ndarray:
    """``values`` as a float64 array of counts; TypeError naming ``name`` for text, objects or booleans, ValueError
    for Python ints no numpy integer holds (they are to be passed as floats); a masked array is refused (TypeError).
    A torch tensor is read detached and copied to the host (one that requires grad, or lives on a GPU, is read as
    its values); one on the 'meta' device holds no values and is refused (TypeError naming ``name``)."""
    from robeval.core.frames import check_unmasked
    from robeval.core.validation import is_torch_tensor

    check_unmasked(values, name)
    if is_torch_tensor(values):
        if values.device.type == "meta":
            raise TypeError(
                f"{name} is a torch tensor on the 'meta' device, which holds no values; pass the {what} counted, as "
                "an int, an array or a tensor on the CPU or a GPU."
            )
        values = values.detach().cpu().numpy()
    arr = np.asarray(values)
    big = huge_int(arr) if arr.dtype.kind == "O" else None
    if big is not None:
        raise ValueError(huge_int_message(name, big, f"a number of {what}"))
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must be integer numbers of {what} (an int or an array of them), got {arr.dtype} values; "
            "convert with np.asarray(..., dtype=int)."
        )
    return arr.astype(np.float64)


def check_stream_keys(idx, n: int) -> np.ndarray:
    """``idx`` (one index per input, keying its noise stream: :func:`robeval.core.seeding.keyed`) checked by
    :func:`robeval.core.validation.check_indices`, and each below 2**32: a stream key has 32 bits, so 2**32 would
    share the noise of 0 (one input counted twice). ValueError naming ``idx`` and the fix otherwise."""
    from robeval.core.validation import check_indices

    keys = check_indices(idx, "idx", n=n)
    if len(keys) and int(keys.max()) >= 2**32:
        big = int(keys.max())
        raise ValueError(
            f"idx must lie in 0 .. 2**32 - 1 (each index keys its input's noise stream with 32 bits), got {big}, "
            f"which would share the noise of index {big & 0xFFFFFFFF}; renumber the inputs, e.g. by their positions "
            "in the dataset."
        )
    return keys


def show_int(v: int) -> str:
    """A Python int for a message: in full up to 21 digits, else in scientific form (``1.000e+30``)."""
    try:
        digits = str(abs(v))
    except ValueError:  # beyond Python's int-to-str limit
        return f"an integer of {v.bit_length()} bits"
    sign = "-" if v < 0 else ""
    return sign + (digits if len(digits) <= 21 else f"{digits[0]}.{digits[1:4]}e+{len(digits) - 1}")


def huge_int(values, *, beyond_float: bool = False):
    """The first Python int of ``values`` (a scalar or an array-like) that no numpy integer type holds (below
    -2**63 or from 2**64 on; with ``beyond_float``: larger in magnitude than any float64), or None. For the error
    paths: counts that large must be passed as floats (:func:`huge_int_message`)."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.dtype.kind != "O":
        return None
    for v in arr.reshape(-1).tolist():
        if isinstance(v, int) and not isinstance(v, (bool, np.bool_)):
            if abs(v) > FLOAT_MAX if beyond_float else not (-(2**63) <= v < 2**64):
                return v
    return None


def huge_int_message(name: str, v: int, what: str) -> str:
    """The refusal of the integer ``v`` of argument ``name`` (no numpy integer holds it; ``what``: what it is,
    e.g. ``"a number of draws"``)."""
    if abs(v) > FLOAT_MAX:
        return (
            f"{name} must be {what} representable as a float64 (<= 1.8e308), got {show_int(v)}; no bound or radius "
            "can be evaluated for a larger one."
        )
    return (
        f"{name} holds integers too large for int64 (e.g. {show_int(v)}), which numpy cannot count in; pass "
        f"{name} as floats (e.g. {float(v):.3g}): float64 holds whole numbers exactly up to 2**53 = 9.0e15 and "
        "approximately up to 1.8e308."
    )
