"""Closed-form real-world robustness and counterfactual distances (paper Appendix A).

Two binary classifiers whose robustness under Gaussian uncertainty can be
integrated exactly:

* A.1 linear decision boundary ``f(x) = 1[w.x + b > 1/2]``. With
  ``x' ~ N(0, Sigma)`` the score ``w.(x + x') + b`` is normal with mean
  ``w.x + b`` and variance ``w^T Sigma w``, so
  ``P_r(x) = Phi(|w.x + b - 1/2| / sqrt(w^T Sigma w))``. For ``w = (0, w2)``,
  ``b = 0`` and ``Sigma = diag(s1^2, s2^2)`` this is the paper's Eq. (8)
  (``1/2 +- 1/2 erf((2 sqrt2 w2 x2 - sqrt2) / (4 s2 w2))``). Works in any dimension.
* A.2 right-angle rule model ``f(x) = 1[x1 > a1 and x2 > a2]``. The perturbed
  point stays in the positive quadrant with probability
  ``q(x) = P(x1 + x1' > a1, x2 + x2' > a2) = Phi_2(x - a; Sigma)`` (bivariate normal
  CDF, because ``-x' ~ N(0, Sigma)``), so ``P_r = q`` inside the quadrant and
  ``1 - q`` outside; for diagonal ``Sigma`` this is ``Phi((x1-a1)/s1) Phi((x2-a2)/s2)``.
  The paper's printed solution of A.2 is garbled in our copy; this is the
  integral of its Eq. (7) written out.

The closest-counterfactual distances are Euclidean distances to the decision
boundary (the paper's Eq. for ``x_cf`` in A.1 contains typos; we use the standard
projection ``x_cf = x - (w.x + b - 1/2) w / |w|^2``).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from robeval.core.frames import check_feature_labels
from robeval.core.validation import check_covariance, check_features, check_numbers
from robeval.realworld.covariance import REAL_SCALAR, beyond_float

__all__ = [
    "linear_classifier",
    "linear_robustness",
    "linear_counterfactual",
    "right_angle_classifier",
    "right_angle_robustness",
    "right_angle_counterfactual",
    "bivariate_normal_cdf",
]


def _norm_cdf(z):
    return special.ndtr(z)


# ----------------------------------------------------------------------------
# A.1 linear decision boundary
# ----------------------------------------------------------------------------


def _check_linear(w, b, d=None):
    w = check_numbers(w, "w", example="[1.0, -1.0]")
    if isinstance(b, (bool, np.bool_)) or not isinstance(b, REAL_SCALAR) or np.ndim(b) != 0:
        raise TypeError(f"b must be a number (the classifier's offset), got {b!r:.60}; e.g. b=0.0.")
    if beyond_float(b):
        raise ValueError("b must be a finite number; got an integer beyond float64's range (1.8e308).")
    if w.ndim != 1 or not np.all(np.isfinite(w)) or not np.any(w != 0):
        raise ValueError(f"w must be a finite, non-zero 1-D weight vector; got {w!r}.")
    if d is not None and w.shape[0] != d:
        raise ValueError(f"w has {w.shape[0]} weights but the points have {d} features.")
    if not np.isfinite(b):
        raise ValueError(f"b must be a finite number; got {b!r}.")
    return w, float(b)


def linear_classifier(w, b: float = 0.0, threshold: float = 0.5):
    """Return ``predict(X) = 1[X @ w + b > threshold]`` (int64, shape (m,)) of Appendix A.1."""
    w, b = _check_linear(w, b)

    def predict(X):
        X = np.asarray(X, dtype=np.float64)
        return (X @ w + b > threshold).astype(np.int64)

    return predict


# w'Cw below this (2**53 times the smallest normal float64) has lost digits to underflow
_FULL_PRECISION = np.finfo(np.float64).tiny * 2.0**53


def linear_robustness(X, w, b: float = 0.0, cov=None, threshold: float = 0.5) -> np.ndarray:
    """Exact ``P_r`` of the linear classifier under ``x' ~ N(0, cov)`` (Appendix A.1, Eq. 8).

    ``w`` and ``cov`` are paired with the features (columns of ``X``) by position. With a DataFrame ``X``, a Series
    ``w`` or a DataFrame ``cov`` must list ``X``'s columns in the same order (and a DataFrame ``cov`` its index as its
    columns): other labels, or the same in another order, are refused (ValueError with the fix ``w[X.columns]`` /
    ``cov.loc[X.columns, X.columns]``; :func:`robeval.core.frames.check_feature_labels`), not paired by position.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite real points; a numpy masked array is refused (TypeError: its masked points would be read).
    w : array_like, shape (d,)
    b : float
        An int, float or numpy number; anything else (a Fraction, a complex number, an array) is refused
        (TypeError naming ``b``), and so are NaN, infinity and a Python int beyond float64 (ValueError).
    cov : array_like, shape (d, d) or (n, d, d)
        Gaussian uncertainty, shared or per point. Default: identity.
    threshold : float
        Decision threshold on ``w.x + b`` (1/2 in the paper): any finite number (a threshold far from every
        score puts all points on one side, each with ``P_r = 1``).

    Returns
    -------
    ndarray, float64, shape (n,), in [1/2, 1]. Points exactly on the boundary
    get 1/2; with zero variance along ``w`` off-boundary points get 1.
    """
    check_feature_labels(X, w, "w")
    check_feature_labels(X, cov, "cov")
    X = check_features(X)
    n, d = X.shape
    w, b = _check_linear(w, b, d)
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, REAL_SCALAR):
        raise TypeError(f"threshold must be a number (the decision threshold on w.x + b), got {threshold!r:.60}.")
    if beyond_float(threshold) or not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number (1/2 in the paper), got {threshold!r:.60}.")
    C = np.eye(d) if cov is None else check_covariance(cov, d=d)
    if C.ndim == 3 and C.shape[0] != n:
        raise ValueError(f"cov stack has {C.shape[0]} matrices but X has {n} points.")
    with np.errstate(over="ignore", under="ignore"):
        margin = np.abs(X @ w + (b - threshold))  # b - threshold first: b = threshold = 1e17 leaves the margin whole
        q = np.einsum("i,...ij,j->...", w, C, w)
    if np.all(np.isfinite(margin)) and np.all(np.isfinite(q) & (q >= _FULL_PRECISION)):
        s = np.sqrt(q) * np.ones(n)
    else:  # w'Cw (or the margin) over- or underflows: the answer is the same for w, b, threshold scaled by one factor
        k = np.max(np.abs(w))  # and C by another, so compute it at max|w| = 1 and max|C| = 1 (per matrix)
        c = np.max(np.abs(C), axis=(-2, -1))
        unit = C / np.where(c > 0, c, 1.0)[..., None, None]
        w1 = w / k
        margin = np.abs(X @ w1 + (b / k - threshold / k))
        s = np.sqrt(np.einsum("i,...ij,j->...", w1, unit, w1)) * np.sqrt(c) * np.ones(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 0, margin / np.where(s > 0, s, 1.0), np.where(margin > 0, np.inf, 0.0))
    return _norm_cdf(z)


def linear_counterfactual(X, w, b: float = 0.0, threshold: float = 0.5):
    """Closest (Euclidean) counterfactual of the linear classifier.

    Returns
    -------
    x_cf : ndarray, float64, shape (n, d)
        Orthogonal projection of each point on the boundary ``w.x + b = threshold``.
    distance : ndarray, float64, shape (n,)
        ``|w.x + b - threshold| / |w|``.

    A Series ``w`` next to a DataFrame ``X`` must list ``X``'s columns in order (as in :func:`linear_robustness`).
    """
    check_feature_labels(X, w, "w")
    X = check_features(X)
    w, b = _check_linear(w, b, X.shape[1])
    m = X @ w + b - threshold
    x_cf = X - np.outer(m / (w @ w), w)
    return x_cf, np.abs(m) / np.linalg.norm(w)


# ----------------------------------------------------------------------------
# A.2 right-angle rule model
# ----------------------------------------------------------------------------


def _check_corner(a):
    a = check_numbers(a, "a", example="(0.0, 0.0)")
    if a.shape != (2,) or not np.all(np.isfinite(a)):
        raise ValueError(f"a must be the finite corner (a1, a2), shape (2,); got {a!r}.")
    return a


def right_angle_classifier(a=(0.0, 0.0)):
    """Return ``predict(X) = 1[x1 > a1 and x2 > a2]`` (int64, shape (m,)) of Appendix A.2."""
    a = _check_corner(a)

    def predict(X):
        X = np.asarray(X, dtype=np.float64)
        return ((X[:, 0] > a[0]) & (X[:, 1] > a[1])).astype(np.int64)

    return predict


def bivariate_normal_cdf(h, k, rho) -> np.ndarray:
    """Standard bivariate normal CDF ``P(U <= h, V <= k)``, ``corr(U, V) = rho``.

    Owen's (1956) closed form via Owen's T function, vectorised:
    ``Phi2 = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta`` with
    ``a_h = (k - rho h) / (h sqrt(1 - rho^2))`` (and symmetrically ``a_k``) and
    ``beta = 1/2`` when ``h k < 0`` or (``h k = 0`` and ``h + k < 0``), else 0.
    Exact zeros of ``h``/``k`` are nudged by 1e-300 (the CDF is continuous).

    Parameters
    ----------
    h, k : array_like (broadcastable), standardised upper limits (may be +-inf)
    rho : array_like, correlation in (-1, 1)

    Returns
    -------
    ndarray, float64.
    """
    h, k, rho = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (h, k, rho)))
    if np.any(np.abs(rho) >= 1) or np.any(np.isnan(rho)):
        raise ValueError("rho must lie strictly inside (-1, 1); a degenerate covariance has no density.")
    out = np.empty(h.shape)
    # infinite limits reduce to one-dimensional CDFs
    inf_h, inf_k = np.isinf(h), np.isinf(k)
    fin = ~(inf_h | inf_k)
    out[inf_h & (h < 0)] = 0.0
    out[inf_k & (k < 0)] = 0.0
    sel = inf_h & (h > 0) & ~(inf_k & (k < 0))
    out[sel] = _norm_cdf(k[sel])
    sel = inf_k & (k > 0) & ~(inf_h & (h < 0))
    out[sel] = np.where(inf_h[sel] & (h[sel] > 0), 1.0, _norm_cdf(h[sel]))
    hf, kf, rf = h[fin], k[fin], rho[fin]
    hf = np.where(hf == 0, 1e-300, hf)
    kf = np.where(kf == 0, 1e-300, kf)
    s = np.sqrt(1.0 - rf * rf)
    beta = np.where(hf * kf < 0, 0.5, 0.0)
    out[fin] = (
        0.5 * (_norm_cdf(hf) + _norm_cdf(kf))
        - special.owens_t(hf, (kf - rf * hf) / (hf * s))
        - special.owens_t(kf, (hf - rf * kf) / (kf * s))
        - beta
    )
    return np.clip(out, 0.0, 1.0)


def right_angle_robustness(X, a=(0.0, 0.0), cov=None) -> np.ndarray:
    """Exact ``P_r`` of the right-angle model under ``x' ~ N(0, cov)`` (Appendix A.2).

    A Series ``a`` or a DataFrame ``cov`` next to a DataFrame ``X`` must list ``X``'s columns in order (as in
    :func:`linear_robustness`).

    Parameters
    ----------
    X : array_like, shape (n, 2)
        Finite real points; a numpy masked array is refused (TypeError: its masked points would be read).
    a : array_like, shape (2,)
        Corner ``(a1, a2)``.
    cov : array_like, shape (2, 2) or (n, 2, 2), positive definite
        Default: identity.


    Returns
    -------
    ndarray, float64, shape (n,), in [0, 1].
    """
    check_feature_labels(X, a, "a")
    check_feature_labels(X, cov, "cov")
    X = check_features(X)
    if X.shape[1] != 2:
        raise ValueError(f"the right-angle model is 2-D; X has {X.shape[1]} features.")
    a = _check_corner(a)
    C = np.eye(2) if cov is None else check_covariance(cov, d=2)
    if C.ndim == 3 and C.shape[0] != X.shape[0]:
        raise ValueError(f"cov stack has {C.shape[0]} matrices but X has {X.shape[0]} points.")
    s1 = np.sqrt(C[..., 0, 0]) * np.ones(len(X))
    s2 = np.sqrt(C[..., 1, 1]) * np.ones(len(X))
    if np.any(s1 <= 0) or np.any(s2 <= 0):
        raise ValueError("cov must have positive variances on both features (use Monte Carlo otherwise).")
    rho = C[..., 0, 1] / (s1 * s2)
    # q = probability the perturbed point lands in the quadrant {x1 > a1, x2 > a2}
    q = bivariate_normal_cdf((X[:, 0] - a[0]) / s1, (X[:, 1] - a[1]) / s2, rho)
    inside = (X[:, 0] > a[0]) & (X[:, 1] > a[1])
    return np.where(inside, q, 1.0 - q)


def right_angle_counterfactual(X, a=(0.0, 0.0)):
    """Closest (Euclidean) counterfactual of the right-angle model (Appendix A.2).

    Inside the quadrant the nearest boundary is the closer of the two edges;
    outside it is the quadrant's nearest point (an edge, or the corner).

    Returns
    -------
    x_cf : ndarray, float64, shape (n, 2)
    distance : ndarray, float64, shape (n,)
    """
    X = check_features(X)
    if X.shape[1] != 2:
        raise ValueError(f"the right-angle model is 2-D; X has {X.shape[1]} features.")
    a = _check_corner(a)
    d1, d2 = X[:, 0] - a[0], X[:, 1] - a[1]
    inside = (d1 > 0) & (d2 > 0)
    x_cf = X.copy()
    # inside: move the coordinate with the smaller margin onto its edge
    move1 = inside & (d1 <= d2)
    move2 = inside & (d1 > d2)
    x_cf[move1, 0] = a[0]
    x_cf[move2, 1] = a[1]
    # outside: project onto the closed quadrant (clamp each coordinate from below)
    out = ~inside
    x_cf[out] = np.maximum(X[out], a)
    dist = np.where(inside, np.minimum(d1, d2), np.hypot(np.minimum(d1, 0), np.minimum(d2, 0)))
    return x_cf, dist


# ----------------------------------------------------------------------------
# experiment helpers for the Appendix A figures and the Monte-Carlo check
# ----------------------------------------------------------------------------

MODELS = ("linear", "right_angle")


def _model(name: str, w=(0.0, 1.0), b: float = 0.0, a=(0.0, 0.0)):
    """(predict, exact P_r(X, cov), counterfactual distance(X)) of one Appendix-A model."""
    if name == "linear":
        return (
            linear_classifier(w, b),
            lambda X, cov: linear_robustness(X, w, b, cov),
            lambda X: linear_counterfactual(X, w, b)[1],
        )
    if name == "right_angle":
        return (
            right_angle_classifier(a),
            lambda X, cov: right_angle_robustness(X, a, cov),
            lambda X: right_angle_counterfactual(X, a)[1],
        )
    raise ValueError(f"model must be one of {MODELS}; got {name!r}.")


def closed_form_maps(model: str, extent: float = 4.0, n_grid: int = 201, cov=None, **params) -> dict:
    """Closed-form ``P_r`` and counterfactual distance on a square grid (Figs. A.1, A.2).

    Parameters
    ----------
    model : {"linear", "right_angle"}
    extent : float
        The grid spans ``[-extent, extent]^2`` (feature units).
    n_grid : int
        Grid points per axis.
    cov : array_like (2, 2), optional
        Gaussian uncertainty (default identity, sigma = 1 as in the paper's figures).
    **params
        ``w``, ``b`` (linear) or ``a`` (right angle).

    Returns
    -------
    dict with ``x1``, ``x2`` (float64, shape (n_grid,)), ``robustness`` and
    ``distance`` (float64, shape (n_grid, n_grid), indexed ``[i2, i1]``).
    """
    if int(n_grid) != n_grid or n_grid < 2 or not np.isfinite(extent) or extent <= 0:
        raise ValueError("n_grid must be an integer >= 2 and extent a positive number.")
    _, exact, dist = _model(model, **params)
    g = np.linspace(-extent, extent, int(n_grid))
    G1, G2 = np.meshgrid(g, g)
    X = np.column_stack([G1.ravel(), G2.ravel()])
    C = np.eye(2) if cov is None else cov
    shape = (len(g), len(g))
    return {"x1": g, "x2": g, "robustness": exact(X, C).reshape(shape), "distance": dist(X).reshape(shape)}


def mc_vs_closed_form(model: str, X, cov, n_samples: int, rng, **params):
    """Monte-Carlo ``P_r`` beside the closed form at points ``X`` (one row per point).

    The number of label changes at a point is Binomial(N, 1 - P_r), so each row
    carries the exact two-sided binomial p-value of the Monte-Carlo count and the
    z-score with the exact standard error ``sqrt(P_r (1 - P_r) / N)``.

    Parameters
    ----------
    model : {"linear", "right_angle"}
    X : array_like, shape (n, 2)
    cov : array_like, shape (2, 2)
    n_samples : int
    rng : int or numpy.random.Generator
    **params
        ``w``, ``b`` (linear) or ``a`` (right angle).

    Returns
    -------
    pandas.DataFrame with columns ``x1, x2, exact, mc, se, z, p_value, distance``.
    """
    import pandas as pd
    from scipy import stats

    from robeval.realworld.robustness import real_world_robustness

    predict, exact_fn, dist_fn = _model(model, **params)
    X = check_features(X)
    exact = exact_fn(X, cov)
    mc = real_world_robustness(predict, X, cov=cov, n_samples=n_samples, rng=rng)
    q = np.clip(1.0 - exact, 0.0, 1.0)
    se = np.sqrt(q * (1.0 - q) / n_samples)
    k = np.rint((1.0 - mc) * n_samples)
    p = np.minimum(1.0, 2 * np.minimum(stats.binom.cdf(k, n_samples, q), stats.binom.sf(k - 1, n_samples, q)))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (mc - exact) / np.where(se > 0, se, 1.0), 0.0)
    return pd.DataFrame(
        {"x1": X[:, 0], "x2": X[:, 1], "exact": exact, "mc": mc, "se": se, "z": z, "p_value": p, "distance": dist_fn(X)}
    )
