"""Covariance models of the Gaussian perturbation (Scher & Trügler, Sec. 3.5.1, Eq. 5): a covariance normalised to
trace 1 times a scale (the total variance of the perturbation), the isotropic and the random ``C_r = A^T A`` model,
and the matrix square root the sampler draws with.
"""

from __future__ import annotations

import sys

import numpy as np

from robeval.core.seeding import as_generator
from robeval.core.validation import check_covariance


def covariance_factor(cov) -> np.ndarray:
    """Matrix square root ``L`` with ``L @ L.T == cov`` for symmetric PSD ``cov``.

    Uses the eigendecomposition (not Cholesky) so singular covariances -- e.g. a
    10-member ensemble estimating a 10x10 covariance, or a feature without
    uncertainty -- are allowed.

    Parameters
    ----------
    cov : array_like, shape (d, d) or (n, d, d)

    Returns
    -------
    ndarray, float64, same shape as ``cov``.
    """
    C = check_covariance(cov)
    lam, V = np.linalg.eigh(C)
    return V * np.sqrt(np.clip(lam, 0.0, None))[..., None, :]


def beyond_float(value) -> bool:
    """Whether ``value`` is a Python int (not a bool) larger in magnitude than any float64 (e.g. ``10**400``):
    numpy's checks of a scalar argument would fail on it in words that name no argument."""
    return isinstance(value, int) and not isinstance(value, (bool, np.bool_)) and abs(value) > sys.float_info.max


#: The types a real scalar argument may have: a Fraction or Decimal (numbers.Real or not) is refused, as numpy's
#: checks would fail on it in words that name no argument, and so is a complex number, an array or a tensor.
REAL_SCALAR = (int, float, np.integer, np.floating)


def trace_normalized(cov, scale: float = 1.0) -> np.ndarray:
    """Return ``scale * cov / trace(cov)`` (paper Sec. 4.1: trace-1 covariance times a scale).

    ``scale`` is the total variance ``E||x'||^2`` of the perturbation, i.e. the
    per-feature standard deviation of an isotropic model is ``sqrt(scale / d)``.

    Parameters
    ----------
    cov : array_like, shape (d, d) or (n, d, d)
        Symmetric PSD matrix (or stack) with positive trace.
    scale : float >= 0
        Perturbation scale (units: squared feature units): an int, float or numpy number. Text, a bool, None, a
        complex number, a Fraction or Decimal, an array or a tensor are refused (TypeError naming ``scale``), and so
        are NaN, infinity, a negative number and a Python int beyond float64 (ValueError).

    Returns
    -------
    ndarray, float64, same shape as ``cov``.
    """
    C = check_covariance(cov)
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, REAL_SCALAR):
        raise TypeError(
            f"scale must be a number (the total variance of the perturbation), got {type(scale).__name__} "
            f"{scale!r:.60}; pass e.g. scale=2.0 (convert strings from a settings file with float(...))."
        )
    if beyond_float(scale):
        raise ValueError("scale must be a finite number >= 0; got an integer beyond float64's range (1.8e308).")
    if not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a finite number >= 0; got {scale!r}.")
    with np.errstate(over="ignore"):
        tr = np.trace(C, axis1=-2, axis2=-1)
    if not np.all(np.isfinite(tr)):  # the trace overflows: C / trace(C) is the same for C scaled to max |C| = 1
        C = C / np.max(np.abs(C), axis=(-2, -1), keepdims=True)
        tr = np.trace(C, axis1=-2, axis2=-1)
    if np.any(tr <= 0):
        raise ValueError("cov has zero trace and cannot be normalised; pass a non-zero covariance.")
    return float(scale) * C / np.asarray(tr)[..., None, None]


def identity_covariance(d: int) -> np.ndarray:
    """Identity covariance normalised to trace 1: ``eye(d) / d`` (paper Sec. 4.1)."""
    if int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer number of features; got {d!r}.")
    return np.eye(int(d)) / int(d)


def random_covariance(d: int, rng) -> np.ndarray:
    """Random covariance ``C_r = A^T A`` (Eq. 5), normalised to trace 1.

    Parameters
    ----------
    d : int
        Number of features.
    rng : int or numpy.random.Generator
        ``A`` is (d, d) with i.i.d. standard normal entries drawn from ``rng``.

    Returns
    -------
    ndarray, float64, shape (d, d), symmetric PSD with trace 1.
    """
    if int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer number of features; got {d!r}.")
    A = as_generator(rng, "rng").standard_normal((int(d), int(d)))
    return trace_normalized(A.T @ A)
