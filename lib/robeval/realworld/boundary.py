"""The public entry points of :func:`correlation`, :func:`rescale_distances`, :func:`identity_covariance`,
:func:`random_covariance` and :func:`real_world_robustness`: the input contract of issue 62 (text refused naming
the argument, an infinite robustness or distance refused, a non-boolean ``success`` or yes/no option refused, a
covariance too large to allocate refused), then the function of :mod:`robeval.realworld.robustness` unchanged.

The checks live here, not in :mod:`.robustness`, because the definitions there are part of the code identity of
the Sec. 4.1 grid cells (:mod:`robeval.realworld.experiments`): editing them would discard the committed runs
although valid inputs give the same numbers. ``robeval.realworld.correlation``, ``.rescale_distances``,
``.identity_covariance``, ``.random_covariance`` and ``.real_world_robustness`` are these functions.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from robeval.core.validation import check_allocation, check_bool, check_numbers
from robeval.realworld import robustness


def correlation(a, b, method: str = "pearson") -> float:
    """Correlation of two robustness vectors over points, ignoring NaNs (:func:`.robustness.correlation`).

    Parameters
    ----------
    a, b : array_like of numbers, shape (n,)
        Robustness per point; NaN leaves a point out, an infinite value or text is refused.
    method : {"pearson", "spearman"}

    Returns
    -------
    float (NaN when fewer than 3 valid points or a constant vector).
    """
    a, b = check_numbers(a, "a", example="[0.1, 0.5, 0.9]"), check_numbers(b, "b", example="[0.2, 0.4, 0.8]")
    for name, v in (("a", a), ("b", b)):
        if np.any(np.isinf(v)):
            raise ValueError(
                f"{name} holds an infinite value (at position {int(np.argmax(np.isinf(v).reshape(-1)))}); a "
                "robustness is finite. Fix that point, or set it to NaN to leave it out of the correlation."
            )
    return robustness.correlation(a, b, method)


def rescale_distances(distances, success=None) -> np.ndarray:
    """Adversarial robustness ``r_i = d_i / max_j d_j`` (paper Sec. 4.1; :func:`.robustness.rescale_distances`).

    Parameters
    ----------
    distances : array_like of numbers, shape (n,)
        Distance of each test point to its closest counterfactual / adversarial example (>= 0); text is refused,
        and so is a NaN or infinite distance of a point whose search succeeded (mark a failed search with
        ``success``).
    success : array_like of bool, shape (n,), optional
        Whether the search found a label-flipping point (True / False; numbers other than 0 / 1 are refused with
        TypeError); failed points get NaN.

    Returns
    -------
    ndarray, float64, shape (n,), values in [0, 1] or NaN.
    """
    d = check_numbers(distances, "distances", example="[0.5, 1.0, 2.0]")
    ok = None
    if success is not None:
        ok = np.asarray(success)
        if ok.dtype.kind in "iu" and np.all((ok == 0) | (ok == 1)):
            ok = ok.astype(bool)
        if ok.dtype.kind != "b":
            raise TypeError(
                f"success must hold True / False (whether each search found a label-flipping point), got "
                f"{np.asarray(success).reshape(-1)[:3].tolist()!r} (dtype {np.asarray(success).dtype}); pass e.g. "
                "distances < np.inf or the attack's own success flags."
            )
        if ok.shape != d.shape:
            raise ValueError(f"success has shape {ok.shape} but distances has {d.shape}; pass one flag per point.")
    if d.ndim == 1:
        bad = ~np.isfinite(d) & (True if ok is None else ok)
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ValueError(
                f"distances holds {float(d[i])!r} at position {i}, a point whose search succeeded; a distance is finite. "
                "If the search failed there, pass success with False at that position (failed points get NaN)."
            )
    return robustness.rescale_distances(d, ok)


def _check_size(d, name: str = "d") -> None:
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive integer number of features, got {d!r:.60}.")
    if np.isfinite(d) and d >= 1:
        check_allocation(
            (int(d), int(d)), 8, what="features d x d",
            fix="pass a smaller d (the number of features of a real data set is at most a few thousand).",
        )  # fmt: skip


def identity_covariance(d: int) -> np.ndarray:
    """Identity covariance normalised to trace 1: ``eye(d) / d`` (paper Sec. 4.1;
    :func:`.robustness.identity_covariance`). ``d``: a positive integer; a (d, d) matrix over 8 GiB is refused."""
    _check_size(d)
    return robustness.identity_covariance(d)


def random_covariance(d: int, rng) -> np.ndarray:
    """Random covariance ``C_r = A^T A`` (Eq. 5), normalised to trace 1 (:func:`.robustness.random_covariance`).

    Parameters
    ----------
    d : int
        Number of features, >= 1; a (d, d) matrix over 8 GiB is refused (ValueError).
    rng : int or numpy.random.Generator
        ``A`` is (d, d) with i.i.d. standard normal entries drawn from ``rng``.

    Returns
    -------
    ndarray, float64, shape (d, d), symmetric PSD with trace 1.
    """
    _check_size(d)
    return robustness.random_covariance(d, rng)


_FLAGS = ("return_se", "progress", "prefetch", "allow_large")


@functools.wraps(robustness.real_world_robustness)
def real_world_robustness(*args, **kwargs):
    # the yes/no options are checked here (a string such as 'no' is truthy), then the function runs unchanged
    bound = inspect.signature(robustness.real_world_robustness).bind(*args, **kwargs)
    for name in _FLAGS:
        if name in bound.arguments:
            check_bool(bound.arguments[name], name)
    return robustness.real_world_robustness(*args, **kwargs)


real_world_robustness.__doc__ = (robustness.real_world_robustness.__doc__ or "") + (
    "\n    The yes/no options ``return_se``, ``progress``, ``prefetch`` and ``allow_large`` must be True or False "
    "(TypeError naming the option otherwise: a string such as 'no' is truthy).\n"
)
