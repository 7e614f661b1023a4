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
from numbers import Integral, Real

import numpy as np

from robeval.core.budgets import check_allocation
from robeval.core.frames import check_feature_labels, check_same_index
from robeval.core.validation import check_bool, check_exact_integers, check_features, check_numbers
from robeval.realworld import covariance, robustness
from robeval.realworld.samplers import GaussianPerturbation, sampler_dim


def correlation(a, b, method: str = "pearson") -> float:
    """Correlation of two robustness vectors over points, ignoring NaNs (:func:`.robustness.correlation`).

    Parameters
    ----------
    a, b : array_like of numbers, shape (n,)
        Robustness per point; NaN leaves a point out, an infinite value or text is refused, and so is an integer
        beyond 2**53 (float64 would round distinct integers to one number:
        :func:`robeval.core.validation.check_exact_integers`). Paired by position: two pandas Series with different
        indexes are refused (:func:`robeval.core.frames.check_same_index`).
    method : {"pearson", "spearman"}

    Returns
    -------
    float (NaN when fewer than 3 valid points or a constant vector).
    """
    check_same_index(a, b, ("a", "b"))
    check_exact_integers(a, "a")
    check_exact_integers(b, "b")
    a, b = check_numbers(a, "a", example="[0.1, 0.5, 0.9]"), check_numbers(b, "b", example="[0.2, 0.4, 0.8]")
    for name, v in (("a", a), ("b", b)):
        if np.any(np.isinf(v)):
            raise ValueError(
                f"{name} holds an infinite value (at position {int(np.argmax(np.isinf(v).reshape(-1)))}); a "
                "robustness is finite. Fix that point, or set it to NaN to leave it out of the correlation."
            )
    if method not in ("pearson", "spearman"):
        raise ValueError(f"method must be 'pearson' or 'spearman'; got {method!r}.")
    if method == "pearson":
        # np.corrcoef squares the deviations, which underflow (values near 1e-200) or overflow (near 1e200) float64:
        # scale each vector by a power of two first, which changes no bit of the coefficient when nothing under- or
        # overflows, so ordinary robustness values are left as they are
        a, b = _unit_scale(a), _unit_scale(b)
    return robustness.correlation(a, b, method)


def _unit_scale(v: np.ndarray) -> np.ndarray:
    """``v`` times a power of two that brings its largest finite magnitude into [0.5, 1) when that magnitude lies
    outside [2**-200, 2**200] (where the squares of :func:`numpy.corrcoef` would lose digits); else ``v``."""
    finite = np.abs(v[np.isfinite(v)]) if v.ndim == 1 else np.zeros(0)
    top = float(finite.max()) if finite.size else 0.0
    if top == 0.0 or 2.0**-200 <= top <= 2.0**200:
        return v
    return np.ldexp(v, -np.frexp(top)[1])


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
        TypeError); failed points get NaN. Paired with ``distances`` by position: two pandas Series with
        different indexes are refused (:func:`robeval.core.frames.check_same_index`).

    Returns
    -------
    ndarray, float64, shape (n,), values in [0, 1] or NaN.
    """
    check_same_index(distances, success, ("distances", "success"))
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
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, covariance.REAL_SCALAR):
        raise TypeError(f"{name} must be a positive integer number of features, got {d!r:.60}.")
    if covariance.beyond_float(d):
        raise ValueError(
            f"{name} must be a positive integer number of features, got an integer beyond float64's range (1.8e308)."
        )
    if not np.isfinite(d) or d < 1 or d != int(d):
        raise ValueError(f"{name} must be a positive integer number of features, got {d!r}; e.g. {name}=4.")
    check_allocation(
        (int(d), int(d)), 8, what="features d x d",
        fix="pass a smaller d (the number of features of a real data set is at most a few thousand).",
    )  # fmt: skip


def identity_covariance(d: int) -> np.ndarray:
    """Identity covariance normalised to trace 1: ``eye(d) / d`` (paper Sec. 4.1;
    :func:`.covariance.identity_covariance`). ``d``: a positive integer; a (d, d) matrix over 8 GiB is refused, and
    so is anything but an int, float or numpy number (TypeError naming ``d``: a Fraction, a complex number, an array,
    a tensor) or a Python int beyond float64 (ValueError)."""
    _check_size(d)
    return covariance.identity_covariance(d)


def random_covariance(d: int, rng) -> np.ndarray:
    """Random covariance ``C_r = A^T A`` (Eq. 5), normalised to trace 1 (:func:`.covariance.random_covariance`).

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
    return covariance.random_covariance(d, rng)


_FLAGS = ("return_se", "progress", "prefetch", "allow_large")


@functools.wraps(robustness.real_world_robustness)
def real_world_robustness(*args, **kwargs):
    # the yes/no options are checked here (a string such as 'no' is truthy), then the function runs unchanged
    bound = inspect.signature(robustness.real_world_robustness).bind(*args, **kwargs)
    for name in _FLAGS:
        if name in bound.arguments:
            check_bool(bound.arguments[name], name)
    bound.apply_defaults()
    given = bound.arguments
    _check_perturbation(given["X"], given["cov"], given["sampler"])
    adaptive = isinstance(given["n_samples"], str)
    counts = ("chunk_rows", "n_min", "n_max") if adaptive else ("chunk_rows", "n_samples")
    for name in counts:
        given[name] = _count(given[name], name)
    if adaptive:
        se = given["se_target"]
        if isinstance(se, (bool, np.bool_)) or not isinstance(se, (Real, np.floating, np.integer)):
            raise TypeError(f"se_target must be a number in (0, 0.5), e.g. 0.005; got {se!r:.60}.")
    return robustness.real_world_robustness(*bound.args, **bound.kwargs)


def _check_perturbation(X, cov, sampler) -> None:
    """A labelled ``cov`` against ``X``'s columns (:func:`robeval.core.frames.check_feature_labels`), and a
    ``sampler`` that says its number of features (a Gaussian's or the bounds' ``d``) or of per-point covariances
    against ``X`` (numpy's broadcast error or an IndexError otherwise)."""
    check_feature_labels(X, cov, "cov")
    k = sampler_dim(sampler) if sampler is not None else None
    if k is None:
        return
    n, d = check_features(X).shape
    if k != d:
        raise ValueError(
            f"sampler works on {k} features, but the points of X have {d}; build the perturbation model over X's "
            f"features (e.g. GaussianPerturbation with a ({d}, {d}) covariance)."
        )
    stack = sampler.n_points() if isinstance(sampler, GaussianPerturbation) else None
    if stack is not None and stack != n:
        raise ValueError(
            f"sampler is a stack of {stack} covariances but X has {n} points; give one (d, d) matrix per point, in "
            "the order of X."
        )


#: The largest sample count per point :func:`real_world_robustness` accepts (2**53: every count below is exact
#: in float64, so the draw budget ``points x samples`` is computed without overflow).
MAX_COUNT = 2**53

_COUNT_USE = {
    "n_samples": "samples per point; the paper uses 10000",
    "n_min": "first samples per point with n_samples='auto'; e.g. 256",
    "n_max": "most samples per point with n_samples='auto'; the paper uses 10000",
    "chunk_rows": "rows per predict call, e.g. 65536",
}


def _count(value, name: str):
    """A count option of :func:`real_world_robustness` as a Python int (a numpy unsigned integer would wrap around in
    the chunk arithmetic); TypeError for a non-number, ValueError for a value that is not a whole number in
    1 .. :data:`MAX_COUNT`. A boolean or a fractional value is passed on unchanged (the function refuses it in its own
    words)."""
    if isinstance(value, (bool, np.bool_)):
        return value
    if not isinstance(value, (Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be an integer >= 1 ({_COUNT_USE[name]}), got {value!r:.60}.")
    if (value > MAX_COUNT) if isinstance(value, Integral) else (not np.isfinite(value) or value > MAX_COUNT):
        raise ValueError(f"{name} must be an integer in 1 .. 2**53 ({_COUNT_USE[name]}), got {value!r}.")
    return int(value) if value == int(value) else value


real_world_robustness.__doc__ = (robustness.real_world_robustness.__doc__ or "") + (
    "\n    The yes/no options ``return_se``, ``progress``, ``prefetch`` and ``allow_large`` must be True or False "
    "(TypeError naming the option otherwise: a string such as 'no' is truthy).\n\n"
    "    ``cov`` is paired with the features (columns of ``X``) by position: with a DataFrame ``X``, a DataFrame "
    "``cov`` must list ``X``'s columns in the same order as its index and its columns (ValueError with the fix "
    "``cov.loc[X.columns, X.columns]`` otherwise; :func:`robeval.core.frames.check_feature_labels`). A ``sampler`` "
    "built over another number of features than ``X``'s (a ``GaussianPerturbation`` or ``BoundedPerturbation``), or "
    "holding per-point covariances for another number of points, is refused naming ``sampler``.\n"
)
