"""Input checks for the public boundary. Every error says what is wrong and how to fix it.

Convention: an argument of the wrong *kind* (a string where a number or a seed is needed, a list where a
DataFrame is needed) raises :class:`TypeError`; an argument of the right kind with an unusable value (out
of range, wrong shape or dtype, NaN) raises :class:`ValueError`, as in scikit-learn. Seeds are checked by
:func:`robeval.core.seeding.as_generator`.
"""

from __future__ import annotations

import math
import os
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from robeval.core.errors import FloatRangeError
from robeval.core.frames import check_unmasked


def check_array(
    X,
    *,
    name: str = "X",
    ndim: int | tuple[int, ...] | None = None,
    min_ndim: int | None = None,
    finite: bool = True,
    dtype=None,
    min_rows: int = 1,
) -> np.ndarray:
    """Return ``X`` as a numpy array after checking dimensionality, size, dtype and finiteness; a numpy masked array
    is refused (TypeError: its masked values would be read), and a torch tensor on the 'meta' device (ValueError: it
    holds no values)."""
    from robeval.core.frames import check_not_meta  # here: the top-level import line is in packed grids' identities

    check_unmasked(X, name)
    check_not_meta(X, name)
    try:
        arr = np.asarray(X) if dtype is None else np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} could not be converted to a numeric array ({exc}); pass a numpy array.") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimensions, got shape {arr.shape}; "
                "reshape it (e.g. X.reshape(len(X), -1) for flattened features)."
            )
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(f"{name} must have shape (n, d) or (n, *shape), got shape {arr.shape}; reshape it to (n, -1).")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {arr.dtype}.")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows; at least {min_rows} needed.")
    if finite and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite values; remove or impute them first.")
    return arr


def check_X_y(
    X, y, *, X_ndim=2, min_ndim: int | None = None, min_rows: int = 1, min_classes: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Check features ``X`` (n, ...) and labels ``y`` (n,) together.

    ``X_ndim`` fixes the dimensionality (default 2); pass ``X_ndim=None, min_ndim=2`` to accept images
    (n, *shape). ``min_classes`` requires that many distinct labels. A numpy masked array is refused (TypeError).
    """
    X = check_array(X, name="X", ndim=X_ndim, min_ndim=min_ndim, min_rows=min_rows)
    check_unmasked(y, "y")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional (n,), got shape {y.shape}; use y.ravel().")
    if len(X) != len(y):
        raise ValueError(
            f"X and y have different lengths ({len(X)} vs {len(y)}): y must have shape ({len(X)},), one label per row of X."
        )
    if min_classes is not None and len(np.unique(y)) < min_classes:
        raise ValueError(
            f"y contains {len(np.unique(y))} class(es); at least {min_classes} are needed "
            "(class separation is undefined for a single class)."
        )
    return X, y


def check_positive(value, name: str, *, strict: bool = True, integer: bool = False):
    """Check a scalar is (strictly) positive, optionally an integer; an integer beyond int64 (numpy cannot hold it:
    no count or size is that large) is refused by name, not with numpy's error."""
    kind = Integral if integer else Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {'an integer' if integer else 'a number'}, got {value!r}.")
    if isinstance(value, Integral):  # compared as Python ints: np.isfinite fails beyond int64
        if value <= 0 if strict else value < 0:
            raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {value!r}.")
        if value >= 2**63:
            raise ValueError(
                f"{name} must be {'an integer' if integer else 'a number'} in {1 if strict else 0} .. 2**63 - 1 "
                f"(int64), got {value!r}."
            )
        return value
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number {'> 0' if strict else '>= 0'}, got {value!r}.")
    if value <= 0 if strict else value < 0:
        raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {value!r}.")
    return value


def check_probability(value, name: str, *, open_interval: bool = True) -> float:
    """Check ``value`` is a fraction in (0, 1) (or [0, 1] with ``open_interval=False``); a number beyond float range
    raises :class:`~robeval.core.errors.FloatRangeError` naming ``name`` (:func:`check_float_range`)."""
    interval = "(0, 1)" if open_interval else "[0, 1]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number in {interval}, got {value!r}.")
    check_float_range(value, name)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number in {interval}, got {value!r}.")
    ok = 0 < value < 1 if open_interval else 0 <= value <= 1
    if not ok:
        raise ValueError(f"{name} must lie in {interval}, got {value!r}.")
    return float(value)


def check_eps(eps, name: str = "eps") -> float:
    """A noise radius: a finite real number >= 0."""
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number >= 0 (a noise radius), got {eps!r}.")
    try:
        eps = float(eps)
    except OverflowError:  # an int beyond float range
        eps = math.inf if eps > 0 else -math.inf
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"{name} must be finite and >= 0 (a noise radius), got {eps}.")
    return eps


def check_images(images, *, name: str = "images", channels=(1, 3), square: bool = False) -> np.ndarray:
    """A uint8 NHWC batch (N, H, W, C) with C in ``channels`` (and H == W with ``square``), as a numpy array; a
    masked array is refused (TypeError: its masked pixels would be read)."""
    check_unmasked(images, name)
    arr = np.asarray(images)
    if arr.dtype != np.uint8:
        raise ValueError(
            f"{name} must have dtype uint8 (pixel values 0..255), got {arr.dtype}; "
            "convert with np.clip(np.rint(x * 255), 0, 255).astype(np.uint8) if you hold floats in [0, 1]."
        )
    if arr.ndim != 4 or arr.shape[-1] not in channels:
        hint = ""
        if arr.ndim == 4 and arr.shape[1] in channels:
            hint = " It looks like NCHW: convert with robeval.core.images.to_nhwc(images)."
        elif arr.ndim == 3 and arr.shape[-1] in channels:
            hint = " For a single image pass images[None]."
        shape = f"(N, H, W, {' or '.join(map(str, channels))})"
        raise ValueError(f"{name} must be an NHWC batch of shape {shape}, got {arr.shape}.{hint}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is an empty batch (N=0); pass at least one image.")
    if square and arr.shape[1] != arr.shape[2]:
        raise ValueError(f"{name} must hold square images (H == W), got {arr.shape[1]}x{arr.shape[2]}.")
    return arr


def check_features(X, name: str = "X") -> np.ndarray:
    """Points as a finite float64 (n_points, n_features) array, n_points and n_features >= 1; a numpy masked array
    is refused (TypeError: its masked points would be read like any other); a torch tensor is read detached (one that
    requires grad too), as :func:`to_numpy` does."""
    check_unmasked(X, name)
    X = to_numpy(X)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_points, n_features); got shape {X.shape}. "
            f"Reshape a single point with {name}[None, :]."
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {X.shape}); pass at least one point with one feature.")
    if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"{name} must be real-valued numeric; got dtype {X.dtype}. Convert it with astype(float).")
    X = X.astype(np.float64, copy=False)
    if not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(
            f"{name} contains NaN or inf (first at row {bad[0]}, column {bad[1]}); "
            "impute or drop those points before estimating robustness."
        )
    return X


def check_covariance(cov, d: int | None = None, name: str = "cov", rtol: float = 1e-8) -> np.ndarray:
    """Validate one (d, d) matrix or an (n, d, d) stack as symmetric PSD; return float64. Its entries must be real
    numbers: text, booleans, complex numbers (``float()`` would parse the text, read True as 1 or drop the imaginary
    part with only a warning) and numpy masked arrays are refused (TypeError naming ``name``)."""
    try:
        C = check_numbers(cov, name, example="np.eye(d)")
    except ValueError:  # rows of different lengths
        raise TypeError(f"{name} must be a numeric (d, d) covariance matrix, got {cov!r:.60}.") from None
    if C.ndim not in (2, 3) or C.shape[-1] != C.shape[-2]:
        raise ValueError(f"{name} must be a square (d, d) matrix or an (n, d, d) stack of them; got shape {C.shape}.")
    if C.shape[-1] == 0 or C.size == 0:
        raise ValueError(f"{name} is empty (shape {C.shape}); pass a (d, d) matrix with d >= 1, e.g. np.eye(d).")
    if d is not None and C.shape[-1] != d:
        raise ValueError(
            f"{name} is {C.shape[-1]}x{C.shape[-1]} but the points have {d} features; "
            "pass a covariance over exactly the input features."
        )
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{name} contains NaN or inf; every covariance entry must be finite.")
    Cs = C if C.ndim == 3 else C[None]
    scale = np.maximum(np.abs(Cs).max(axis=(1, 2)), np.finfo(float).tiny)
    asym = np.abs(Cs - np.swapaxes(Cs, 1, 2)).max(axis=(1, 2)) / scale
    if np.any(asym > 1e-8):
        i = int(np.argmax(asym))
        raise ValueError(
            f"{name}{'' if C.ndim == 2 else f'[{i}]'} is not symmetric (relative asymmetry {asym[i]:.2e}); "
            "symmetrise it with (C + C.T) / 2 if the asymmetry is round-off."
        )
    lam_min = np.linalg.eigvalsh(Cs)[:, 0]
    if np.any(lam_min < -rtol * scale * Cs.shape[-1]):
        i = int(np.argmin(lam_min / scale))
        raise ValueError(
            f"{name}{'' if C.ndim == 2 else f'[{i}]'} is not positive semi-definite (smallest eigenvalue "
            f"{lam_min[i]:.3e}); build it as A.T @ A or clip negative eigenvalues."
        )
    return C


def check_mapping(obj, name: str, *, value_type=None) -> dict:
    """A non-empty dict (of ``value_type`` values, if given)."""
    if not isinstance(obj, dict):
        raise TypeError(f"{name} must be a non-empty dict, got {type(obj).__name__}.")
    if not obj:
        raise ValueError(f"{name} must be a non-empty dict, got an empty dict.")
    if value_type is not None:
        bad = [k for k, v in obj.items() if not isinstance(v, value_type)]
        if bad:
            raise TypeError(f"{name}[{bad[0]!r}] must be a {value_type.__name__}, got {type(obj[bad[0]]).__name__}.")
    return obj


def check_choice(value, name: str, choices) -> object:
    """``value`` if it is one of ``choices``; ValueError listing them otherwise."""
    try:
        ok = value in choices
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"Unknown {name} {value!r}; valid choices are: {', '.join(map(str, choices))}.")
    return value


def check_sequence(values, name: str, *, example: str = "[0, 1, 2]") -> list:
    """``values`` as a non-empty list: TypeError for a string or a scalar (``for v in 0.5`` would fail as
    ``'float' object is not iterable``), ValueError for a multi-dimensional array or an empty sequence, TypeError
    for a numpy masked array (its masked entries would be listed like any other)."""
    check_unmasked(values, name)
    if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
        raise TypeError(f"{name} must be a sequence, e.g. {example}; got {values!r}.")
    if np.ndim(values) != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {np.shape(values)}; pass a flat list.")
    out = list(values)
    if not out:
        raise ValueError(f"{name} is empty; pass at least one value, e.g. {example}.")
    return out


def check_path(value, name: str) -> Path:
    """``value`` (a ``str`` or ``os.PathLike``, not empty) as a :class:`~pathlib.Path`; TypeError naming ``name``
    for anything else (a list or a number would reach ``Path()`` and fail with the standard library's words)."""
    if isinstance(value, (str, os.PathLike)) and os.fspath(value) != "":
        return Path(value)
    raise TypeError(
        f"{name} must be a folder or file path (str or pathlib.Path), got {type(value).__name__} {value!r:.60}."
    )


def check_indices(idx, name: str = "idx", *, n: int | None = None) -> np.ndarray:
    """Indices (keys of per-input random streams, rows of a dataset) as a 1-D int64 array: whole numbers >= 0,
    none repeated (two inputs sharing an index would share their noise: one input counted twice), ``n`` of them
    when given; TypeError / ValueError naming ``name`` and the fix otherwise (TypeError for a numpy masked array)."""
    check_unmasked(idx, name)
    arr = to_numpy(idx)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one index per input), got shape {arr.shape}.")
    if n is not None and len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} entries for {n} inputs; pass one index per input.")
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise TypeError(f"{name} must hold whole numbers (indices), got dtype {arr.dtype}; pass integers.")
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        bad = float(arr[arr != np.round(arr)][0])
        raise ValueError(f"{name} holds the fractional value {bad:g}; an index is a whole number (never truncated).")
    if arr.dtype.kind in "uf" and np.any(arr >= 2**63):  # the cast below would wrap them to negative values
        raise ValueError(
            f"{name} holds {arr[arr >= 2**63][0].item()!r}, beyond int64 (indices are < 2**63 = 9.2e18); pass indices "
            "that fit in int64 (a -1 stored as uint64 reads as 2**64 - 1)."
        )
    out = arr.astype(np.int64)
    if np.any(out < 0):
        raise ValueError(f"{name} holds the negative index {int(out[out < 0][0])}; indices are >= 0.")
    values, counts = np.unique(out, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(
            f"{name} lists the index {int(values[counts > 1][0])} more than once; give each input its own index "
            "(equal indices share a random stream: one input counted twice)."
        )
    return out


def check_numbers(values, name: str, *, example: str = "[0.0, 0.25]") -> np.ndarray:
    """``values`` (a number or an array of them) as a float64 array of its own shape, or TypeError naming ``name``
    and its first value that is not a real number (text, ``None``, a boolean, which numpy would read or fail on;
    complex numbers, whose imaginary part would be dropped), or for a masked array (its mask would be dropped).
    Finiteness, shape and range are left to the caller."""
    check_unmasked(values, name)
    check_no_bools(values, name, example=example)
    arr = to_numpy(values)
    check_no_bools(arr, name, example=example)  # nested lists of booleans: a bool array only once converted
    if arr.dtype.kind not in "biuf":
        flat = arr.reshape(-1).tolist() if arr.dtype.kind == "O" else [arr.reshape(-1)[0]] if arr.size else []
        if arr.dtype.kind == "c" or any(isinstance(v, (complex, np.complexfloating)) for v in flat):
            raise TypeError(
                f"{name} must hold numbers, e.g. {example}; got complex values (dtype {arr.dtype}), whose imaginary "
                f"part would be dropped; pass the real parts ({name}.real) if the imaginary parts are 0."
            )
        bad = [v for v in flat if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.number))]
        if bad or arr.dtype.kind != "O":
            shown = bad[0] if bad else values
            raise TypeError(f"{name} must hold numbers, e.g. {example}; got {shown!r} (dtype {arr.dtype}).")
    return np.asarray(arr, dtype=np.float64)


def check_no_bools(values, name: str, *, example: str = "[0.5, 1.0]") -> None:
    """TypeError naming ``name`` when ``values`` is True / False, an array of booleans or a list holding one: a
    boolean would be read as the number 1 or 0 in silence."""
    if isinstance(values, (list, tuple)):
        found = any(isinstance(v, (bool, np.bool_)) for v in values)
    elif is_torch_tensor(values):
        found = str(values.dtype) == "torch.bool"
    else:
        found = isinstance(values, (bool, np.bool_)) or getattr(getattr(values, "dtype", None), "kind", "") == "b"
        if not found and isinstance(values, np.ndarray) and values.dtype.kind == "O":
            found = any(isinstance(v, (bool, np.bool_)) for v in values.reshape(-1).tolist())
    if found:
        raise TypeError(
            f"{name} must hold numbers, e.g. {example}; got booleans ({values!r:.60}), which would be read as 1 and 0. "
            f"Pass numbers (np.asarray({name}, dtype=float) if 1 and 0 are what you mean)."
        )


def check_keywords(kw, allowed, fn: str) -> None:
    """TypeError naming ``fn`` (the public function called) and its options when ``kw`` holds a keyword not in
    ``allowed``: a misspelt option would otherwise be reported against the internal function it is forwarded to."""
    unknown = [k for k in kw if k not in allowed]
    if unknown:
        options = f"its keyword options are {', '.join(allowed)}" if allowed else "it takes no keyword options here"
        raise TypeError(f"{fn}() got an unexpected keyword argument {unknown[0]!r}; {options}.")


def check_bool(value, name: str) -> bool:
    """``value`` as a bool if it is ``True`` / ``False`` (or a numpy bool); TypeError naming ``name`` otherwise: a
    yes/no option given ``'no'``, ``0.5`` or ``None`` would count as its truth value in silence."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r:.60} ({type(value).__name__}).")
    return bool(value)


def check_distinct(values, name: str, *, why: str = "it would be counted twice") -> list:
    """``values`` unchanged (a list) if no value repeats; else ValueError naming the first repeated one."""
    values = list(values)
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{name} lists {v!r} more than once ({why}); pass each value once.")
        seen.add(v)
    return values


def check_exact_integers(values, name: str) -> None:
    """ValueError naming ``name`` when ``values`` holds an integer beyond 2**53 in magnitude, which float64 cannot
    hold exactly: converted, distinct integers (2**62 and 2**62 + 1) would become one number, giving a spread or a
    distance of 0 in silence. Float input is left alone (it is what it is); only integer arrays are read."""
    arr = to_numpy(values)
    if arr.dtype.kind in "iu" and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        bad = hi if hi > 2**53 else lo if lo < -(2**53) else None
    elif arr.dtype.kind == "O":
        ints = (
            int(v)
            for v in arr.reshape(-1).tolist()
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
        )
        bad = next((v for v in ints if abs(v) > 2**53), None)
    else:
        return
    if bad is not None:
        raise ValueError(
            f"{name} holds the integer {bad}, beyond 2**53: float64 cannot hold it exactly, so distinct integers "
            f"would round to one number. Subtract a common offset first (e.g. {name} - {name}.min()) or pass floats."
        )


# ------------------------------------------------------------------------------------------- labels and models
def _torch():
    """The torch module if it is imported (a user cannot hold a torch object otherwise), else None."""
    import sys

    return sys.modules.get("torch")


def is_torch_tensor(x) -> bool:
    t = _torch()
    return t is not None and isinstance(x, t.Tensor)


def is_torch_module(m) -> bool:
    t = _torch()
    return t is not None and isinstance(m, t.nn.Module)


def to_numpy(x) -> np.ndarray:
    """``x`` as a numpy array: torch tensors are detached and copied to the CPU, lists converted."""
    if is_torch_tensor(x):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def check_labels(y, *, name: str = "y", n: int | None = None, num_classes: int | None = None, integer: bool = False):
    """Class labels as a 1-D numpy array, checked.

    Parameters
    ----------
    y : array_like, list or torch tensor, shape (n,)
        Labels. NaN or None labels, fractional float labels (0.5: a probability, not a class) and numpy masked
        arrays (their masked labels would be read) are always rejected (a NaN would become a class of its own).
    name : str
        Name used in the error messages.
    n : int, optional
        Required number of labels (one per input row).
    num_classes : int, optional
        Labels must be integers in ``[0, num_classes)`` (implies ``integer``).
    integer : bool
        Labels must be integer-valued (ints, bools, or floats without a fractional part); returned as int64.

    Returns
    -------
    numpy.ndarray, shape (n,): int64 when ``integer`` or ``num_classes``, else the labels' own dtype.
    """
    if isinstance(y, (str, bytes)) or np.ndim(y) == 0 and not is_torch_tensor(y):
        raise TypeError(f"{name} must be a 1-D sequence of labels (numpy array, list or torch tensor), got {y!r}.")
    check_unmasked(y, name)
    arr = to_numpy(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (n,), got shape {arr.shape}; use {name}.ravel().")
    if len(arr) == 0:
        raise ValueError(f"{name} is empty; pass one label per input.")
    if n is not None and len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} labels for {n} inputs; pass exactly one label per input row.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite labels; drop those rows (a NaN is not a class).")
    if arr.dtype.kind == "O" and any(v is None or (isinstance(v, float) and not math.isfinite(v)) for v in arr):
        raise ValueError(f"{name} contains None or NaN labels; drop those rows (a missing label is not a class).")
    if arr.dtype.kind == "f":  # a fractional value is a probability or a regression target, never a class
        frac = arr != np.round(arr)
        if np.any(frac):
            raise ValueError(
                f"{name} must hold {'integer class indices' if integer or num_classes is not None else 'class labels'}, "
                f"got the non-integer value {float(arr[frac][0]):g} (row "
                f"{int(np.argmax(frac))}); pass class labels (integers or strings), not probabilities or regression "
                "targets (a fraction would be truncated to a class, or become a class of its own)."
            )
    if not (integer or num_classes is not None):
        return arr
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold integer class indices, got dtype {arr.dtype}; map other labels to 0..C-1 with "
            f"np.unique({name}, return_inverse=True)[1]."
        )
    out = arr.astype(np.int64)
    if num_classes is not None and (np.any(out < 0) or np.any(out >= num_classes)):
        bad = out[(out < 0) | (out >= num_classes)][0]
        raise ValueError(
            f"{name} holds the label {int(bad)}, outside [0, {num_classes}) for num_classes={num_classes}; "
            "labels must be class indices 0..num_classes-1 (pass the right num_classes or remap the labels)."
        )
    return out


def _label_family(arr: np.ndarray) -> str:
    """``"number"`` (bool, int, float labels), ``"text"`` (str / bytes labels) or ``"mixed"`` (anything else)."""
    if arr.dtype.kind in "biuf":
        return "number"
    if arr.dtype.kind in "US":
        return "text"
    if arr.dtype.kind == "O":
        if all(isinstance(v, (str, bytes)) for v in arr):
            return "text"
        if all(isinstance(v, (Real, np.bool_)) for v in arr):
            return "number"
    return "mixed"


def _show(values, k: int = 3) -> str:
    vals = list(dict.fromkeys(np.asarray(values).tolist()))
    return ", ".join(repr(v) for v in vals[:k]) + (", ..." if len(vals) > k else "")


def read_output(out, n: int, *, name: str = "model", regression: bool = False, trusted: bool = False) -> np.ndarray:
    """What a model returned for ``n`` inputs, decided from its shape and dtype, as one label (or value) per input.

    ========================  ===============================================================================
    output                    read as
    ========================  ===============================================================================
    ``(n,)``                  labels of any dtype (ints, bools, strings); float labels must be whole numbers
                              (a fractional value is a score, not a label) unless ``trusted``
    ``(n, 1)`` float          one logit column of a binary model: class ``1`` where the logit is ``> 0``, else
                              ``0`` (a sigmoid probability column is not a logit: pass ``p - 0.5`` or two
                              columns); with ``regression`` the values themselves
    ``(n, 1)`` int / bool     a column of labels
    ``(n, C)`` float, C >= 2  logits or probabilities: the class is the argmax
    ``(n, C)`` bool / 0-1 int one-hot labels: the column of the single 1 (a row with none or several is refused)
    a tuple                   refused: a model returning ``(logits, extras)`` must be wrapped to return the
                              logits alone
    ========================  ===============================================================================

    Anything else (a wrong number of rows, three or more dimensions, NaN or infinite scores, non-numeric
    scores) raises ValueError (TypeError for a tuple) that names the output and the fix.

    Parameters
    ----------
    out : numpy array, torch tensor, list or tuple
    n : int, the number of inputs.
    name : str, the model's name in messages.
    regression : bool, read one real value per row (``(n,)`` or ``(n, 1)``), not labels.
    trusted : bool, ``(n,)`` outputs are labels as they are (a scikit-learn estimator's ``predict``).

    Returns
    -------
    numpy.ndarray, shape (n,): int64 classes for score outputs, the labels' own dtype otherwise, float64 values
    with ``regression``.
    """
    if isinstance(out, tuple):
        shapes = ", ".join(
            str(tuple(np.shape(to_numpy(o)))) if hasattr(o, "__len__") else type(o).__name__ for o in out
        )
        raise TypeError(
            f"{name} returned a tuple of {len(out)} outputs ({shapes}) for {n} inputs; it must return one array: "
            "labels (n,), one logit column (n, 1) or class scores (n, C). Wrap it to return the scores alone, "
            f"e.g. lambda x: {name}(x)[0]."
        )
    arr = to_numpy(out)
    where = f"{name} returned shape {arr.shape} (dtype {arr.dtype}) for {n} inputs"
    if arr.ndim == 0 or arr.ndim > 2 or arr.shape[0] != n:
        raise ValueError(
            f"{where}; it must return one row per input: labels ({n},), one logit column ({n}, 1) (binary: class = "
            f"logit > 0) or class scores ({n}, C). A model that ignores its batch or returns images cannot be read."
        )
    if arr.dtype.kind not in "biufUSO":
        raise ValueError(f"{where}; return numeric scores or labels (ints or strings).")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(
            f"{where} with {bad} NaN or infinite values; a NaN is neither a label nor a score. Check the model "
            "(and the scaling of its inputs)."
        )
    if regression:
        if arr.ndim == 2 and arr.shape[1] != 1:
            raise ValueError(f"{where}; a regression model returns one value per input, shape ({n},) or ({n}, 1).")
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{where}; a regression model returns numbers.")
        return arr.reshape(n).astype(np.float64)
    if arr.ndim == 1:
        if arr.dtype.kind == "f" and not trusted and np.any(arr != np.round(arr)):
            frac = float(arr[arr != np.round(arr)][0])
            raise ValueError(
                f"{where} holding the fractional value {frac:g}: that is a score, not a label. Return labels, "
                f"one logit column of shape ({n}, 1) (binary: class = logit > 0) or scores of shape ({n}, C) "
                "(class = argmax); a probability of class 1 p becomes a logit column as (p - 0.5)[:, None]."
            )
        return arr
    if arr.shape[1] == 1:
        col = arr[:, 0]
        if arr.dtype.kind == "f":
            return (col > 0).astype(np.int64)
        return col
    if arr.dtype.kind == "f":
        return arr.argmax(axis=1).astype(np.int64)
    if arr.dtype.kind in "biu":
        hot = arr.astype(np.int64)
        if np.all((hot == 0) | (hot == 1)) and np.all(hot.sum(axis=1) == 1):
            return hot.argmax(axis=1).astype(np.int64)
        rows = np.flatnonzero((hot.sum(axis=1) != 1) | np.any((hot != 0) & (hot != 1), axis=1))
        raise ValueError(
            f"{where}, read as one-hot labels, but row {int(rows[0])} ({hot[rows[0]].tolist()}) does not hold "
            f"exactly one 1 ({len(rows)} such rows); return one label per input, or float class scores."
        )
    raise ValueError(f"{where}; a 2-D output must hold numbers (scores or one-hot labels), not text.")


def match_labels(y: np.ndarray, pred: np.ndarray, *, name: str = "y", classes=None) -> np.ndarray:
    """``y`` in the type of the predictions ``pred``, so ``pred == y`` compares like with like; or ValueError.

    Numbers (bool, int, float) compare with numbers and text with text. Labels of the other family are mapped
    to ``classes`` (a scikit-learn estimator's ``classes_``) when every label's text names exactly one class
    (``"1"`` to ``1``); anything else is refused: ``"1" == 1`` is False, and the accuracy would be 0 in silence.
    """
    y = np.asarray(y)
    fy, fp = _label_family(y), _label_family(np.asarray(pred))
    if fy == fp != "mixed":
        return y
    if classes is not None:
        classes = np.asarray(classes)
        by_text: dict[str, object] = {}
        for c in classes.tolist():
            by_text.setdefault(str(c), []).append(c)
        texts = [str(v) for v in y.tolist()]
        if all(len(by_text.get(t, ())) == 1 for t in texts) and _label_family(classes) == fp:
            return np.asarray([by_text[t][0] for t in texts], dtype=classes.dtype)
    kinds = {"number": "numbers", "text": "strings", "mixed": "a mix of types"}
    raise ValueError(
        f"{name} holds {kinds[fy]} ({_show(y)}, dtype {y.dtype}) but the model predicts {kinds[fp]} "
        f"({_show(pred)}, dtype {np.asarray(pred).dtype}); labels are never compared across types (every "
        f"comparison would be False). Pass labels of the model's classes, e.g. {name}.astype(int) or a mapping "
        "np.array([class_of[v] for v in labels])."
    )


class ModelAdapter:
    """One adapter for every model the library accepts: a scikit-learn estimator, a torch module or a callable.

    * estimator (anything with a ``predict`` method): :meth:`predict` calls ``model.predict`` and
      :meth:`scores` ``model.predict_proba``;
    * ``torch.nn.Module``: the module runs in eval mode under ``no_grad`` on its own device in batches of
      ``batch_size`` rows, inputs as float tensors of the module's dtype; outputs come back as float64 numpy;
    * any other callable: called with the numpy array; a torch tensor it returns is converted to numpy.

    Whatever the model, :meth:`predict` reads its output with :func:`read_output`: labels ``(n,)``, one logit
    column ``(n, 1)`` (binary: class = logit > 0), scores ``(n, C)`` (argmax) or one-hot labels, and refuses what
    it cannot read. A binary model with one output column therefore gives the same labels as the same model with
    two columns ``(0, logit)``. :meth:`labels` maps true labels to the model's type (:func:`match_labels`).

    Raises TypeError when ``model`` is none of these.
    """

    def __init__(self, model, *, name: str = "model", batch_size: int = 4096):
        if isinstance(model, ModelAdapter):
            model = model.model
        if is_torch_module(model):
            kind = "torch"
        elif callable(getattr(model, "predict", None)):
            kind = "estimator"
        elif callable(model):
            kind = "callable"
        else:
            raise TypeError(
                f"{name} must be a fitted scikit-learn estimator (with .predict), a torch.nn.Module or a function "
                f"mapping an (m, d) array to m labels; got {type(model).__name__}."
            )
        self.model, self.kind, self.name = model, kind, name
        self.batch_size = check_positive(batch_size, "batch_size", integer=True)

    def __repr__(self) -> str:
        return f"ModelAdapter({self.kind}: {type(self.model).__name__})"

    def _torch_outputs(self, X) -> np.ndarray:
        torch = _torch()
        module = self.model
        params = next(iter(module.parameters()), None)
        device = params.device if params is not None else torch.device("cpu")
        dtype = params.dtype if params is not None and params.is_floating_point() else torch.float32
        was_training = module.training
        module.eval()
        try:
            with torch.no_grad():
                Xt = X if is_torch_tensor(X) else torch.from_numpy(np.ascontiguousarray(X))
                outs = []
                for s in range(0, len(Xt), self.batch_size):
                    out = module(Xt[s : s + self.batch_size].to(device=device, dtype=dtype))
                    if isinstance(out, (tuple, list)):
                        read_output(tuple(out), len(Xt[s : s + self.batch_size]), name=self.name)  # raises
                    outs.append(out.detach().cpu())
        finally:
            module.train(was_training)
        if not outs:
            return np.zeros((0,))
        out = torch.cat(outs)
        return (out.double() if out.is_floating_point() else out).numpy()

    def outputs(self, X) -> np.ndarray:
        """The model's raw output on ``X`` as numpy (logits of a torch module, ``predict`` of an estimator)."""
        if self.kind == "torch":
            return self._torch_outputs(X)
        if self.kind == "estimator":
            out = self.model.predict(to_numpy(X))
        else:
            out = self.model(X)
        return out if isinstance(out, tuple) else to_numpy(out)

    def predict(self, X) -> np.ndarray:
        """One label per row of ``X``, read from the model's output by :func:`read_output`."""
        return read_output(self.outputs(X), len(X), name=self.name, trusted=self.kind == "estimator")

    __call__ = predict

    def values(self, X) -> np.ndarray:
        """One real value per row of ``X`` (a regression model: output ``(n,)`` or ``(n, 1)``), float64."""
        return read_output(self.outputs(X), len(X), name=self.name, regression=True)

    @property
    def classes(self):
        """The model's classes when it names them (a scikit-learn estimator's ``classes_``), else None."""
        return getattr(self.model, "classes_", None) if self.kind == "estimator" else None

    def labels(self, y, pred, *, name: str = "y") -> np.ndarray:
        """True labels ``y`` in the type of the predictions ``pred`` (:func:`match_labels`)."""
        return match_labels(y, pred, name=name, classes=self.classes)

    def scores(self, X) -> np.ndarray:
        """Class scores (m, C): ``predict_proba`` of an estimator, logits of a torch module, a callable's output."""
        if self.kind == "estimator":
            if not callable(getattr(self.model, "predict_proba", None)):
                raise TypeError(
                    f"{self.name} ({type(self.model).__name__}) has no predict_proba, but class scores are needed; "
                    "use an estimator with predict_proba (e.g. SVC(probability=True)) or pass a scoring function."
                )
            return to_numpy(self.model.predict_proba(to_numpy(X)))
        return self.outputs(X)


def as_model(model, *, name: str = "model", batch_size: int = 4096) -> ModelAdapter:
    """:class:`ModelAdapter` around ``model`` (a scikit-learn estimator, torch module or callable)."""
    return ModelAdapter(model, name=name, batch_size=batch_size)


# ------------------------------------------------------------------------------------- one input contract


def check_level(level, name: str = "level") -> float:
    """A confidence level as a fraction in (0, 1) (0.95, not 95); TypeError / ValueError naming the fix
    (:class:`~robeval.core.errors.FloatRangeError` for a number beyond float range)."""
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a confidence level in (0, 1), e.g. 0.95; got {level!r}.")
    check_float_range(level, name)
    value = float(level)
    if not math.isfinite(value) or not 0 < value < 1:
        hint = f" (a percentage? pass {value / 100:g})" if 1 < value < 100 else ""
        raise ValueError(f"{name} must lie in (0, 1), e.g. 0.95; got {level!r}{hint}.")
    return value


def check_float_dtype(dtype, name: str = "dtype"):
    """``dtype`` as numpy float32 or float64; ValueError for an integer dtype (it would truncate noise), a complex
    one or another float precision (float16, longdouble)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a numpy floating dtype such as np.float32, got {dtype!r}.") from None
    if np.issubdtype(dt, np.complexfloating) or dt.kind == "f" and dt not in (np.float32, np.float64):
        raise ValueError(
            f"{name} must be float32 or float64, got {dt}: noise offsets are real numbers, and a {dt} would "
            f"{'carry an imaginary part' if dt.kind == 'c' else 'round them to its own precision'}. Pass "
            f"{name}=np.float32 or {name}=np.float64."
        )
    if not np.issubdtype(dt, np.floating):
        raise ValueError(
            f"{name} must be a floating dtype (float32 or float64), got {dt}: noise offsets in an integer dtype are "
            "truncated (uniform(-1, 1) becomes 0), so every noisy point would equal its centre. Pass "
            f"{name}=np.float32, and round and clip the result yourself if you need integer pixels."
        )
    return dt


def as_float_points(
    X, *, name: str = "X", unit_interval: bool = False, dtype=None, min_ndim: int = 2, min_rows: int = 1
) -> np.ndarray:
    """Points or images ``X`` (n, d) or (n, *shape) as a finite floating-point array: the one input contract of the
    samplers, class separation and certification.

    * text, object or complex arrays are refused (ValueError naming the first row that is not a number), booleans
      too (TypeError: True is not the number 1), and numpy masked arrays (TypeError: the mask would be dropped);
    * NaN or infinite values are refused, naming the first row holding one;
    * integers are converted explicitly: with ``unit_interval`` (the function works in [0, 1] intensity units) as
      pixels 0..255 divided by 255 (other integer values are refused with the fix); otherwise as numbers in their
      own units (``float64``), so noise added to them is never truncated to an integer dtype;
    * ``dtype`` (default float64, float32 for float32 input) must be float32 or float64: an integer output dtype
      would truncate every noise offset (refused with the fix).

    Returns
    -------
    numpy.ndarray of ``dtype``, the shape of ``X``.
    """
    check_unmasked(X, name)
    arr = to_numpy(X)
    if arr.dtype.kind == "b":
        raise TypeError(
            f"{name} must hold numbers, got booleans (dtype bool), which would be read as 1 and 0; pass numbers "
            f"(e.g. {name}.astype(float) if 1 and 0 are what you mean)."
        )
    if dtype is not None:
        dtype = check_float_dtype(dtype)
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have shape (n, d) or (n, *shape), got {arr.shape}; use {name}.reshape(-1, 1) for 1-D data "
            f"or {name}[None] for a single point."
        )
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows; at least {min_rows} needed.")
    if arr.dtype.kind not in "biuf":
        flat = arr.reshape(len(arr), -1)
        for i, row in enumerate(flat):
            if not all(isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_)) for v in row.tolist()):
                raise ValueError(
                    f"{name} must hold numbers, got dtype {arr.dtype} with a value that is not a number in row {i} "
                    f"({row[:3].tolist()!r}...); convert the data to a float array (e.g. np.asarray({name}, "
                    "dtype=float)) after fixing that row."
                )
        arr = arr.astype(np.float64)
    if arr.dtype.kind in "biu":
        if unit_interval:
            lo, hi = (int(arr.min()), int(arr.max())) if arr.size else (0, 0)
            if lo < 0 or hi > 255:
                raise ValueError(
                    f"{name} holds integers from {lo} to {hi}, but this call works in [0, 1] intensity units: only "
                    f"pixels 0..255 are converted (divided by 255). Pass {name} as floats in [0, 1]."
                )
            out_dtype = np.float64 if dtype is None else dtype
            return (arr.astype(np.float64) / 255.0).astype(out_dtype, copy=False)
        return arr.astype(np.float64 if dtype is None else dtype)
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr.reshape(len(arr), -1)))[0]
        raise ValueError(
            f"{name} contains NaN or infinite values (first in row {bad[0]}); drop or impute those rows first."
        )
    if dtype is None:
        dtype = np.float32 if arr.dtype == np.float32 else np.float64
    return arr.astype(dtype, copy=False)


_UNSET = object()


def check_fact_types(row: str, *, holds=_UNSET, p_value=None, estimate=None, counts=None) -> None:
    """The types a ledger row records, checked at record time (ValueError / TypeError naming the row ``row``).

    ``holds`` must be a bool (``True``/``False`` or a numpy bool; a string such as ``"False"`` or a NaN is truthy
    and would be recorded as holding); ``p_value`` a finite number in [0, 1]; ``estimate`` None, a bool, a finite
    number, a string, or a list / tuple / dict of those; ``counts`` (``{name: value}``) non-negative integers.
    """
    if holds is not _UNSET and not isinstance(holds, (bool, np.bool_)):
        raise TypeError(
            f"{row}: holds must be True or False, got {holds!r} ({type(holds).__name__}); a string or NaN is "
            "truthy and would be recorded as holding. Pass the comparison itself, e.g. holds=bool(a == b)."
        )
    if p_value is not None:
        if isinstance(p_value, (bool, np.bool_)) or not isinstance(p_value, (Real, np.floating, np.integer)):
            raise TypeError(f"{row}: the p-value must be a number in [0, 1], got {p_value!r}.")
        check_float_range(p_value, f"{row}: the p-value")
        if not math.isfinite(float(p_value)) or not 0 <= float(p_value) <= 1:
            raise ValueError(f"{row}: the p-value must be a finite number in [0, 1], got {p_value!r}.")
    if estimate is not None:
        _check_estimate(row, estimate)
    for key, value in (counts or {}).items():
        if value is None:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
            if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
                value = int(value)
            else:
                raise TypeError(f"{row}: {key} must be a whole number (a count), got {value!r}.")
        if value < 0:
            raise ValueError(f"{row}: {key} must be a count >= 0, got {value!r}.")


def mean_std(v: np.ndarray) -> tuple[float, float]:
    """Mean and sample std (``ddof=1``) of the finite values ``v`` (at least two), without losing digits to their
    scale: numpy's ``v.mean()`` and ``v.std(ddof=1)`` when the largest magnitude lies in [2**-250, 2**250], else
    both on ``v`` scaled by the power of two of its largest magnitude and scaled back (exact for normal floats).
    ValueError naming ``values`` for fewer than two finite values or a std beyond the largest float."""
    v = check_numbers(v, "values").reshape(-1)
    if v.size < 2 or not np.all(np.isfinite(v)):
        raise ValueError(f"values must hold two or more finite numbers (runs), got {v!r:.80}.")
    m = float(np.max(np.abs(v)))
    if m == 0.0 or 2.0**-250 <= m <= 2.0**250:
        return float(v.mean()), float(v.std(ddof=1))
    e = math.frexp(m)[1]
    w = np.ldexp(v, -e)
    try:
        return math.ldexp(float(w.mean()), e), math.ldexp(float(w.std(ddof=1)), e)
    except OverflowError:
        raise ValueError(
            f"values spread wider than a float holds (largest magnitude {m:.3g}): their std overflows; rescale them."
        ) from None


def check_float_range(value, name: str) -> None:
    """:class:`~robeval.core.errors.FloatRangeError` (a ValueError and an OverflowError) naming ``name``, the bound
    and the fix when ``value`` is a number beyond float range (a Python int or fraction beyond ±1.8e308, which
    ``float()`` and ``math.isfinite`` refuse with a bare OverflowError naming nothing); nothing for any other value
    (the caller's own checks name a value that is no number)."""
    try:
        float(value)
    except OverflowError:
        if isinstance(value, Integral):
            n = abs(int(value))  # str() of an int beyond 4300 digits is refused: its size from its bits then
            digits = str(len(str(n))) if n.bit_length() < 14000 else f"about {int(n.bit_length() * math.log10(2))}"
            got = f"an int of {digits} digits"
        else:
            got = f"a {type(value).__name__} beyond it"
        raise FloatRangeError(
            f"{name} must be a finite number, got {got} (float range: ±{np.finfo(np.float64).max:.3g}); rescale it "
            "to lie within that range."
        ) from None
    except (TypeError, ValueError):
        pass


def _check_estimate(row: str, value, depth: int = 0) -> None:
    if value is None or isinstance(value, (bool, np.bool_, str)):
        return
    if isinstance(value, (Real, np.floating, np.integer)):
        check_float_range(value, f"{row}: the estimate")
        if not math.isfinite(float(value)):
            raise ValueError(
                f"{row}: the estimate is {value!r}; a NaN or infinite estimate cannot be recorded. Record the row "
                "with Ledger.unavailable(..., why=...) if the statistic cannot be computed."
            )
        return
    if isinstance(value, (list, tuple, dict)) and depth < 3:
        for v in value.values() if isinstance(value, dict) else value:
            _check_estimate(row, v, depth + 1)
        return
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        _check_estimate(row, value.tolist(), depth + 1)
        return
    raise TypeError(
        f"{row}: the estimate must be a number, a string or a list of numbers, got {type(value).__name__} "
        f"({value!r:.60}); pass float(...) or str(...)."
    )
