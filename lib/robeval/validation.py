"""Input checks for the public boundary. Every error says what is wrong and how to fix it."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np


def check_array(X, *, name: str = "X", ndim: int | tuple[int, ...] | None = None, finite: bool = True,
                dtype=None, min_rows: int = 1) -> np.ndarray:
    """Return ``X`` as a numpy array after checking dimensionality, size and finiteness."""
    try:
        arr = np.asarray(X) if dtype is None else np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} could not be converted to a numeric array ({exc}); pass a numpy array.") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimensions, got shape {arr.shape}; "
                "reshape it (e.g. X.reshape(len(X), -1) for flattened features)."
            )
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise ValueError(f"{name} has {arr.shape[0]} rows; at least {min_rows} needed.")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite values; remove or impute them first.")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {arr.dtype}.")
    return arr


def check_X_y(X, y, *, X_ndim=2, min_classes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Check features ``X`` (n, ...) and labels ``y`` (n,) together."""
    X = check_array(X, name="X", ndim=X_ndim)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional (n,), got shape {y.shape}; use y.ravel().")
    if len(X) != len(y):
        raise ValueError(f"X and y have different lengths ({len(X)} vs {len(y)}); pass matching rows.")
    if min_classes is not None and len(np.unique(y)) < min_classes:
        raise ValueError(
            f"y contains {len(np.unique(y))} class(es); at least {min_classes} are needed "
            "(class separation is undefined for a single class)."
        )
    return X, y


def check_positive(value, name: str, *, strict: bool = True, integer: bool = False):
    """Check a scalar is (strictly) positive, optionally an integer."""
    kind = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"{name} must be {'an integer' if integer else 'a number'}, got {value!r}.")
    if not np.isfinite(value) or (value <= 0 if strict else value < 0):
        raise ValueError(f"{name} must be {'> 0' if strict else '>= 0'}, got {value!r}.")
    return value


def check_probability(value, name: str, *, open_interval: bool = True) -> float:
    """Check ``value`` lies in (0, 1) (or [0, 1])."""
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}.")
    ok = 0 < value < 1 if open_interval else 0 <= value <= 1
    if not ok:
        raise ValueError(f"{name} must lie in {'(0, 1)' if open_interval else '[0, 1]'}, got {value!r}.")
    return float(value)


def check_frame(df, columns=(), name: str = "df", *, non_empty: bool = False, hint: str = ""):
    """A pandas DataFrame with (at least) ``columns``; returns it unchanged.

    TypeError if ``df`` is not a DataFrame; ValueError naming the missing columns (and ``hint``, e.g. which
    function writes such a table) or, with ``non_empty``, an empty frame.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks columns {missing}; it has {list(df.columns)}." + (f" {hint}" if hint else ""))
    if non_empty and len(df) == 0:
        raise ValueError(f"{name} is empty." + (f" {hint}" if hint else ""))
    return df


def check_choice(value, name: str, choices) -> object:
    if value not in choices:
        raise ValueError(f"Unknown {name} {value!r}; valid choices are: {', '.join(map(str, choices))}.")
    return value
