"""Metrics on randomized-smoothing certification results and the theory of the ACR critique.

Sun, Mao, Müller, Vechev, *Average Certified Radius is a Poor Metric for Randomized Smoothing*:

* :func:`acr`, :func:`certified_accuracy`, :func:`certification_table`, :func:`best_over_sigma`
  on certification frames (columns ``idx label predict radius correct [time]`` as published).
* The empirical distribution of ``p_A`` (Section 7, Fig. 3/9): :func:`ecdf_from_certification`.
* Appendix B conversions: :func:`certified_accuracy_from_ecdf` (B.1, another budget ``(N, alpha)``)
  and :func:`ecdf_from_certified_accuracy` (B.2).
* Theory: :func:`max_certified_radius`, Theorem 1 (:func:`trivial_classifier_acr`,
  :func:`theorem1_min_budget`), Fig. 2 (:func:`fig2_curves`) and the certification-budget toy
  example of Sections 4.1/4.2 (:func:`budget_toy_example`).
* The analyses behind notebook 08's and 09's claims (recorded by ``robeval.acr_claims``): long tables over
  many files (:func:`certified_accuracy_curves`, :func:`ecdf_curves`, :func:`appendix_b_curves`,
  :func:`best_over_sigma_by_method`), baseline comparisons (:func:`below_then_above`,
  :func:`compare_to_baseline`, :func:`acr_gain_recovered`), App. B.3 orders (:func:`ecdf_strict_orders`)
  and the App. B checks (:func:`appendix_b_grid_excess`, :func:`appendix_b_round_trip`).

Certified radii follow Cohen et al. (2019): with ``n_A`` hits among ``N`` draws, ``p_A_lower`` is
the one-sided Clopper--Pearson bound at level ``1 - alpha`` and the radius is
``sigma * Phi^{-1}(p_A_lower)`` when ``p_A_lower >= 1/2`` (else abstain).  Written "``r(n_A)``"
below; it is increasing in ``n_A``.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import binom as _binom
from scipy.stats import norm as _norm

from robeval.validation import check_frame
from robeval.smoothing import (check_alpha, check_num_samples, check_sigma, clopper_pearson_lower,
                               radius_from_p_lower)

__all__ = [
    "CERT_COLUMNS",
    "check_certification_frame",
    "acr",
    "certified_accuracy",
    "certification_table",
    "best_over_sigma",
    "radius_for_count",
    "min_count_for_radius",
    "ecdf_from_certification",
    "certified_accuracy_from_ecdf",
    "ecdf_from_certified_accuracy",
    "max_certified_radius",
    "trivial_classifier_acr",
    "theorem1_min_budget",
    "fig2_curves",
    "constant_p_acr",
    "budget_toy_example",
    "METHODS",
    "METHOD_NAMES",
    "CIFAR10_RADII",
    "IMAGENET_RADII",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "paper_table",
    "published_frames",
    "compare_tables",
    "ecdf_dominance",
    "PAPER_TABLE5",
    "PAPER_TABLE8",
    "PAPER_IMAGENET_RECOVERY",
    "PAPER_APPB3_STRICT_ORDERS",
    "certified_accuracy_curves",
    "published_ecdfs",
    "ecdf_curves",
    "ecdf_max_diff",
    "ecdf_at",
    "compare_to_baseline",
    "ecdf_is_extreme",
    "ecdf_is_extreme_by_sigma",
    "ecdf_strict_orders",
    "strict_order_pairs",
    "sigmas_with_orders",
    "acr_gain_recovered",
    "below_then_above",
    "appendix_b_curves",
    "appendix_b_grid_excess",
    "appendix_b_round_trip",
    "best_over_sigma_by_method",
    "best_over_sigma_table",
    "max_file_radius",
    "fig2_p_grid",
    "fig2_points",
    "radius_gain_equivalent",
    "theorem1_table",
    "budget_toy_modes",
    "budget_scan",
    "toy_order_summary",
    "largest_certifiable_column",
]

CERT_COLUMNS = ("label", "predict", "radius", "correct")


# --------------------------------------------------------------------------------------------
# certification frames
# --------------------------------------------------------------------------------------------


def check_certification_frame(df, name: str = "df") -> pd.DataFrame:
    """Validate a certification frame (as returned by ``robeval.data.load_certification``).

    Requires columns ``label, predict, radius, correct`` with finite, non-negative radii and
    0/1 ``correct``; returns the frame unchanged.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame with columns {list(CERT_COLUMNS)}, "
                         f"got {type(df).__name__}; load one with robeval.data.load_certification.")
    missing = [c for c in CERT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks columns {missing}; a certification table needs "
                         f"{list(CERT_COLUMNS)} (tab-separated: idx label predict radius correct time).")
    if len(df) == 0:
        raise ValueError(f"{name} is empty; certify at least one input.")
    r = df["radius"].to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError(f"{name}['radius'] must be finite and >= 0 (0 for abstentions).")
    c = df["correct"].to_numpy()
    if not np.all(np.isin(c, (0, 1))):
        raise ValueError(f"{name}['correct'] must be 0/1.")
    return df


def acr(df: pd.DataFrame) -> float:
    """Average certified radius: mean over all inputs of ``radius * 1[correct]``.

    Parameters
    ----------
    df : pandas.DataFrame
        Certification frame (one row per input).

    Returns
    -------
    float
        ACR in input units (L2).
    """
    check_certification_frame(df)
    return float((df["radius"].to_numpy(np.float64) * df["correct"].to_numpy(np.float64)).mean())


def certified_accuracy(df: pd.DataFrame, radii) -> np.ndarray:
    """Fraction of inputs that are correct with certified radius ``>= r``, for each ``r``.

    Parameters
    ----------
    df : pandas.DataFrame
        Certification frame.
    radii : array_like of float, shape (R,)
        Radii (input units, L2).

    Returns
    -------
    numpy.ndarray of float64, shape (R,), values in [0, 1].
    """
    check_certification_frame(df)
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    if not np.all(np.isfinite(radii)):
        raise ValueError("radii must be finite numbers.")
    ok = df["correct"].to_numpy().astype(bool)
    r = np.sort(df["radius"].to_numpy(np.float64)[ok])
    # number of correct inputs with radius >= each query, by one sorted search
    n_ge = len(r) - np.searchsorted(r, radii, side="left")
    return n_ge / len(df)


def certification_table(frames: dict, radii, n_images: bool = False) -> pd.DataFrame:
    """ACR and certified accuracy (percent) for several certification frames.

    Parameters
    ----------
    frames : dict
        ``key -> DataFrame``; keys become the index (tuples give a MultiIndex, e.g.
        ``(sigma, method)``).
    radii : array_like of float, shape (R,)
    n_images : bool
        Also report each frame's number of rows (column ``n_images``, last); some published files are
        truncated.

    Returns
    -------
    pandas.DataFrame
        Column ``ACR`` then one column per radius (``'0.00'``, ``'0.25'``, ...) in percent
        [, ``n_images``].
    """
    if not frames:
        raise ValueError("frames is empty; pass {key: certification DataFrame}.")
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    rows = {}
    for key, df in frames.items():
        rows[key] = [acr(df)] + list(100.0 * certified_accuracy(df, radii))
    cols = ["ACR"] + [f"{r:.2f}" for r in radii]
    out = pd.DataFrame.from_dict(rows, orient="index", columns=cols)
    if all(isinstance(k, tuple) for k in rows):
        out.index = pd.MultiIndex.from_tuples(list(rows))
    if n_images:
        out["n_images"] = [len(df) for df in frames.values()]
    return out


def best_over_sigma(frames_by_sigma: dict, radii) -> pd.DataFrame:
    """Best certified accuracy across noise levels at each radius (Section 7's recommendation).

    Parameters
    ----------
    frames_by_sigma : dict
        ``sigma -> certification DataFrame`` for one training method.
    radii : array_like of float, shape (R,)

    Returns
    -------
    pandas.DataFrame
        Columns ``radius``, ``best_accuracy`` (fraction), ``best_sigma``, and ``acc_sigma=<s>``
        for every sigma.
    """
    if not frames_by_sigma:
        raise ValueError("frames_by_sigma is empty; pass {sigma: certification DataFrame}.")
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    sigmas = list(frames_by_sigma)
    acc = np.stack([certified_accuracy(frames_by_sigma[s], radii) for s in sigmas])  # (S, R)
    best = acc.argmax(axis=0)
    out = pd.DataFrame({"radius": radii, "best_accuracy": acc.max(axis=0),
                        "best_sigma": [sigmas[i] for i in best]})
    for s, a in zip(sigmas, acc):
        out[f"acc_sigma={s}"] = a
    return out


# --------------------------------------------------------------------------------------------
# counts <-> radii
# --------------------------------------------------------------------------------------------


def radius_for_count(n_a, n, alpha, sigma) -> np.ndarray:
    """Raw certified radius ``sigma * Phi^{-1}(CP_lower(n_a, n, alpha))``; negative where CERTIFY abstains.

    Parameters
    ----------
    n_a : array_like of int in [0, n]
    n : int >= 1
    alpha, sigma : float

    Returns
    -------
    numpy.ndarray of float64
    """
    return radius_from_p_lower(clopper_pearson_lower(n_a, check_num_samples(n), alpha), sigma)


def min_count_for_radius(radius, n, alpha, sigma) -> np.ndarray:
    """Smallest ``n_A`` whose certified radius reaches ``radius`` under budget ``(n, alpha)``.

    Vectorised binary search over ``n_A`` (``r(n_A)`` is increasing).

    Parameters
    ----------
    radius : array_like of float >= 0, shape (R,)
    n : int
    alpha, sigma : float

    Returns
    -------
    numpy.ndarray of float64, shape (R,)
        The minimal count; ``nan`` where even ``n_A = n`` does not certify ``radius``
        (``radius > max_certified_radius(n, alpha, sigma)``).
    """
    n = check_num_samples(n)
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    radius = np.atleast_1d(np.asarray(radius, dtype=np.float64))
    if np.any(~np.isfinite(radius)) or np.any(radius < 0):
        raise ValueError("radius must be finite and >= 0.")
    # certification also needs p_A_lower >= 1/2, i.e. r(n_A) >= 0
    target = np.maximum(radius, 0.0)
    lo = np.zeros(radius.shape, dtype=np.int64)          # r(lo) < target (or lo == 0)
    hi = np.full(radius.shape, n, dtype=np.int64)        # candidate answer
    feasible = radius_for_count(hi, n, alpha, sigma) >= target
    for _ in range(int(math.ceil(math.log2(n + 1))) + 1):
        mid = (lo + hi) // 2
        ok = radius_for_count(mid, n, alpha, sigma) >= target
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
        if np.all(lo >= hi):
            break
    out = hi.astype(np.float64)
    out[~feasible] = np.nan
    return out


def max_certified_radius(n, alpha, sigma) -> np.ndarray:
    """Largest radius CERTIFY can return with budget ``(n, alpha)``: all ``n`` draws hit.

    ``sigma * Phi^{-1}(alpha ** (1 / n))``, evaluated as ``sigma * Phi^{-1}_upper(-expm1(ln(alpha) / n))``
    so that budgets up to ``1e300`` stay accurate.

    Parameters
    ----------
    n : float or array_like (>= 1; need not be an integer here, so Theorem 1 budgets can be huge)
    alpha, sigma : float

    Returns
    -------
    numpy.ndarray of float64 (or float)
    """
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    n = np.asarray(n, dtype=np.float64)
    if np.any(~(n >= 1)):
        raise ValueError("n must be >= 1 (number of noise draws).")
    q = -np.expm1(np.log(alpha) / n)     # 1 - alpha ** (1 / n)
    out = sigma * _norm.isf(q)
    return out if np.ndim(out) else float(out)


# --------------------------------------------------------------------------------------------
# ECDF of p_A and Appendix B
# --------------------------------------------------------------------------------------------


def _p_grid(grid):
    grid = np.asarray(grid, dtype=np.float64).reshape(-1)
    if grid.size == 0 or np.any(grid < 0) or np.any(grid > 1) or np.any(np.diff(grid) <= 0):
        raise ValueError("grid must be strictly increasing probabilities in [0, 1].")
    return grid


def ecdf_from_certification(df: pd.DataFrame, sigma, n: int = 100_000, alpha: float = 0.001,
                            grid=None, count_offset: int = 1) -> pd.DataFrame:
    """Empirical distribution of ``p_A`` (Section 7, Fig. 3/9) from a certification frame.

    The published curves are survival functions: ``y(x)`` = fraction of inputs that are
    correctly classified with ``p_A >= x``. Only the certified radius is stored, so ``p_A`` is
    read through the radius: an input counts at ``x`` when it is correct and its radius is at
    least ``r(ceil(x N) - count_offset)`` (the count one below ``x N``; this one-count tolerance
    reproduces the published ECDF files to within the 3-significant-digit rounding of the radii).
    Below ``p_A ~ 1/2`` nothing is certified, so the curve starts at 0.5 with the clean
    certified accuracy.

    Parameters
    ----------
    df : pandas.DataFrame
        Certification frame obtained with budget ``(n, alpha)`` and noise ``sigma``.
    sigma : float
    n : int
        Estimation draws used in the certification (published: 100000).
    alpha : float
        Failure probability used (published: 0.001).
    grid : array_like of float, optional
        Values of ``x``; default ``0.500, 0.501, ..., 1.000`` as in the published files.
    count_offset : int
        Counts subtracted from ``ceil(x N)``; 0 gives the strict ``p_hat_A >= x``.

    Returns
    -------
    pandas.DataFrame with columns ``x``, ``y`` (fractions).
    """
    check_certification_frame(df)
    n = check_num_samples(n)
    grid = _p_grid(np.round(np.arange(500, 1001) / 1000, 3) if grid is None else grid)
    counts = np.clip(np.ceil(grid * n - 1e-9) - int(count_offset), 0, n)
    r = radius_for_count(counts, n, alpha, sigma)
    # p_A <= 1/2 never certifies: report the clean certified accuracy there
    y = certified_accuracy(df, np.maximum(r, -1.0))
    return pd.DataFrame({"x": grid, "y": y})


def certified_accuracy_from_ecdf(ecdf_x, ecdf_y, radii, n: int, alpha: float, sigma: float,
                                 method: str = "plugin", lookup: str = "next") -> pd.DataFrame:
    """Appendix B.1: expected certified accuracy under another budget ``(n, alpha)`` from an ECDF.

    For each radius, binary-search the minimal count ``n_min`` that certifies it, so the minimal
    ``p_A`` is ``n_min / n``; ``method="plugin"`` (the paper) reads the ECDF there
    (``P(p_A >= n_min / n)``, taking the first grid point at or above it). ``method="binomial"``
    instead averages ``P(Binomial(n, p_A) >= n_min)`` over the ECDF's mass, the exact expectation
    when the ECDF is the true distribution of ``p_A``.

    Parameters
    ----------
    ecdf_x : array_like, shape (G,)
        Increasing ``p`` grid.
    ecdf_y : array_like, shape (G,)
        Fraction of inputs correct with ``p_A >= x`` (non-increasing).
    radii : array_like of float >= 0, shape (R,)
    n : int
        New number of estimation draws.
    alpha : float
        New failure probability.
    sigma : float
    method : {"plugin", "binomial"}
    lookup : {"next", "linear"}
        How the plug-in rule reads the ECDF between grid points: ``"next"`` takes the first grid
        point at or above ``n_min / n`` (never overstates), ``"linear"`` interpolates. The published
        grid has step 0.001, coarse next to ``p_A = 1`` where the curve drops fast.

    Returns
    -------
    pandas.DataFrame with columns ``radius``, ``min_count``, ``min_p_a``, ``certified_accuracy``.
    """
    x = _p_grid(ecdf_x)
    y = np.asarray(ecdf_y, dtype=np.float64).reshape(-1)
    if y.shape != x.shape:
        raise ValueError(f"ecdf_y has shape {y.shape} but ecdf_x has {x.shape}; pass matching arrays.")
    if np.any(np.diff(y) > 1e-12) or np.any(y < 0) or np.any(y > 1):
        raise ValueError("ecdf_y must be a non-increasing survival curve with values in [0, 1].")
    if method not in ("plugin", "binomial"):
        raise ValueError(f"method must be 'plugin' or 'binomial', got {method!r}.")
    if lookup not in ("next", "linear"):
        raise ValueError(f"lookup must be 'next' or 'linear', got {lookup!r}.")
    n = check_num_samples(n)
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    n_min = min_count_for_radius(radii, n, alpha, sigma)
    p_min = n_min / n
    acc = np.zeros(radii.shape)
    ok = np.isfinite(p_min)
    if method == "plugin" and lookup == "linear":
        acc[ok] = np.interp(p_min[ok], x, y, left=y[0], right=0.0)
    elif method == "plugin":
        j = np.searchsorted(x, p_min[ok] - 1e-12, side="left")
        acc[ok] = np.where(j < len(x), y[np.minimum(j, len(x) - 1)], 0.0)
    else:
        # point masses of the survival curve at each grid value (the top value keeps y[-1])
        mass = np.append(y[:-1] - y[1:], y[-1])
        hit = _binom.sf(n_min[ok, None] - 1, n, x[None, :])  # P(Bin(n, p) >= n_min), (R_ok, G)
        acc[ok] = hit @ mass
    return pd.DataFrame({"radius": radii, "min_count": n_min, "min_p_a": p_min, "certified_accuracy": acc})


def ecdf_from_certified_accuracy(radii, accuracy, p_grid, n: int, alpha: float, sigma: float) -> pd.DataFrame:
    """Appendix B.2: ECDF of ``p_A`` from a certified-accuracy curve obtained with budget ``(n, alpha)``.

    For each ``p``, the radius certified with ``n_A = round(p n)`` is looked up in the curve; the
    certified accuracy there is ``P(p_A >= p)``. The curve is read conservatively at the first
    tabulated radius at or above the target (so it never overstates). Where that count abstains
    (``r < 0``) the clean certified accuracy (the curve at radius 0) is returned.

    Parameters
    ----------
    radii : array_like, shape (R,)
        Increasing radii of the curve (first one 0 for the clean accuracy).
    accuracy : array_like, shape (R,)
        Certified accuracy (fraction) at ``radii``.
    p_grid : array_like, shape (G,)
        Values of ``p`` where the ECDF is wanted.
    n, alpha, sigma :
        The budget and noise with which the curve was certified.

    Returns
    -------
    pandas.DataFrame with columns ``x``, ``y``, ``radius``.
    """
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    acc = np.asarray(accuracy, dtype=np.float64).reshape(-1)
    if radii.shape != acc.shape or radii.size == 0:
        raise ValueError("radii and accuracy must be non-empty arrays of the same length.")
    if np.any(np.diff(radii) <= 0):
        raise ValueError("radii must be strictly increasing.")
    p = _p_grid(p_grid)
    n = check_num_samples(n)
    r = np.asarray(radius_for_count(np.round(p * n), n, alpha, sigma), dtype=np.float64).reshape(-1)
    j = np.searchsorted(radii, np.maximum(r, radii[0]) - 1e-9, side="left")
    y = np.where(j < len(radii), acc[np.minimum(j, len(radii) - 1)], 0.0)
    return pd.DataFrame({"x": p, "y": y, "radius": r})


# --------------------------------------------------------------------------------------------
# Theorem 1, Fig. 2 and the toy example
# --------------------------------------------------------------------------------------------


def trivial_classifier_acr(n, alpha, sigma, class_fraction) -> np.ndarray:
    """ACR of a constant classifier (Theorem 1): ``class_fraction * max_certified_radius(n, alpha, sigma)``.

    The classifier always outputs the most frequent class, so ``n_A = n`` on its inputs (radius at
    the budget's maximum) and it is wrong elsewhere (no contribution).

    Parameters
    ----------
    n : float or array_like >= 1
    alpha, sigma : float
    class_fraction : float in (0, 1]
        Share of the predicted class in the data set (>= 1/K for the most frequent of K classes).
    """
    pi = float(class_fraction)
    if not (0 < pi <= 1):
        raise ValueError(f"class_fraction must be in (0, 1], got {class_fraction!r}.")
    return pi * max_certified_radius(n, alpha, sigma)


def theorem1_min_budget(target_acr, alpha, sigma, class_fraction) -> float:
    """Smallest budget ``N`` with which the trivial classifier's ACR exceeds ``target_acr`` (Theorem 1).

    From ``class_fraction * sigma * Phi^{-1}(alpha ** (1/N)) > A``:
    ``N > ln(alpha) / ln(Phi(A / (class_fraction * sigma)))``.

    Returns
    -------
    float
        The budget (may exceed 1e20; returned as float).
    """
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    a = float(target_acr)
    if not (a > 0 and math.isfinite(a)):
        raise ValueError(f"target_acr must be a positive finite number, got {target_acr!r}.")
    pi = float(class_fraction)
    if not (0 < pi <= 1):
        raise ValueError(f"class_fraction must be in (0, 1], got {class_fraction!r}.")
    z = a / (pi * sigma)
    # ln Phi(z) = log1p(-sf(z)) ~ -sf(z) for large z (sf kept in log space: no underflow)
    log_phi = float(_norm.logcdf(z)) if z < 5 else -math.exp(float(_norm.logsf(z)))
    if log_phi == 0.0:
        return math.inf
    ratio = math.log(alpha) / log_phi
    if ratio < 2 ** 52:
        return float(max(math.floor(ratio) + 1.0, 1.0))
    return float(ratio * (1 + 1e-9))  # beyond integer precision: a budget just above the bound


def fig2_curves(p, sigma: float = 1.0) -> pd.DataFrame:
    """Fig. 2: certified radius ``R(p) = sigma Phi^{-1}(p)`` and its slope ``dR/dp = sigma / phi(Phi^{-1}(p))``.

    Parameters
    ----------
    p : array_like of float in (0, 1)
    sigma : float

    Returns
    -------
    pandas.DataFrame with columns ``p``, ``radius``, ``dradius_dp``.
    """
    sigma = check_sigma(sigma)
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if np.any(p <= 0) or np.any(p >= 1):
        raise ValueError("p must lie strictly between 0 and 1.")
    z = np.where(p > 0.5, _norm.isf(1 - p), _norm.ppf(p))
    return pd.DataFrame({"p": p, "radius": sigma * z, "dradius_dp": sigma / _norm.pdf(z)})


def constant_p_acr(p_a, n, alpha, sigma, mode: str = "expected") -> np.ndarray:
    """ACR of a classifier whose ``p_A`` is ``p_a`` on every input (and whose top class is right).

    Parameters
    ----------
    p_a : float in (0, 1]
    n : int or array_like of int
        Budgets.
    alpha, sigma : float
    mode : {"expected", "plugin"}
        ``"plugin"``: ``n_A = round(p_a n)`` (the typical outcome); ``"expected"``: the expectation of
        the certified radius over ``n_A ~ Binomial(n, p_a)`` (summed over +-12 standard deviations).

    Returns
    -------
    numpy.ndarray of float64, one ACR per budget.
    """
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    if not (0 < p_a <= 1):
        raise ValueError(f"p_a must be in (0, 1], got {p_a!r}.")
    if mode not in ("expected", "plugin"):
        raise ValueError(f"mode must be 'expected' or 'plugin', got {mode!r}.")
    budgets = np.atleast_1d(np.asarray(n)).astype(np.int64)
    out = np.empty(len(budgets))
    for i, nn in enumerate(budgets):
        nn = check_num_samples(int(nn))
        if mode == "plugin":
            r = radius_for_count(np.round(p_a * nn), nn, alpha, sigma)
            out[i] = max(float(r), 0.0)
            continue
        sd = math.sqrt(nn * p_a * (1 - p_a))
        k = np.arange(max(0, math.floor(nn * p_a - 12 * sd - 1)), min(nn, math.ceil(nn * p_a + 12 * sd + 1)) + 1)
        r = np.maximum(radius_for_count(k, nn, alpha, sigma), 0.0)
        out[i] = float(np.sum(_binom.pmf(k, nn, p_a) * r))
    return out


def budget_toy_example(p_a: float, budgets, sigma: float, alpha: float, class_fraction: float = 0.5,
                       mode: str = "expected") -> pd.DataFrame:
    """Sections 4.1/4.2 toy example: trivial classifier vs a classifier with ``p_A = p_a`` everywhere.

    A perfectly balanced binary data set (``class_fraction = 0.5``): the trivial classifier
    certifies half the inputs at the budget's maximum radius and misclassifies the rest; the other
    classifier has ``p_A = p_a`` on every input. Their ACR order depends on the budget ``N``.

    Returns
    -------
    pandas.DataFrame with columns ``N``, ``acr_trivial``, ``acr_constant``, ``better``
    (``"trivial"`` or ``"constant"``).
    """
    budgets = np.atleast_1d(np.asarray(budgets)).astype(np.int64)
    triv = np.asarray(trivial_classifier_acr(budgets.astype(np.float64), alpha, sigma, class_fraction)).reshape(-1)
    const = constant_p_acr(p_a, budgets, alpha, sigma, mode=mode)
    return pd.DataFrame({"N": budgets, "acr_trivial": triv, "acr_constant": const,
                         "better": np.where(triv > const, "trivial", "constant")})


# --------------------------------------------------------------------------------------------
# the paper's printed tables and the published certification files
# --------------------------------------------------------------------------------------------

METHODS = ("gaussian", "macer", "smoothadv", "consistency", "smoothmix", "catrs", "ours")
METHOD_NAMES = {"gaussian": "Gaussian", "macer": "MACER", "smoothadv": "SmoothAdv", "consistency": "Consistency",
                "smoothmix": "SmoothMix", "catrs": "CAT-RS", "ours": "Ours"}
CIFAR10_RADII = tuple(np.round(np.arange(0, 2.51, 0.25), 2))
IMAGENET_RADII = tuple(np.round(np.arange(0, 3.51, 0.5), 2))

# Table 3 (CIFAR-10): sigma, method, ACR, certified accuracy (%) at 0.00, 0.25, ..., 2.50, as printed
# (entries beyond the largest certifiable radius are printed as 0.0).
_TABLE3 = """
0.25 gaussian 0.486 81.3 66.7 50.0 32.4
0.25 macer 0.529 78.7 68.3 55.9 40.8
0.25 smoothadv 0.544 73.4 65.6 57.0 47.5
0.25 consistency 0.547 75.8 67.4 57.5 46.0
0.25 smoothmix 0.543 77.1 67.6 56.8 45.0
0.25 catrs 0.562 76.3 68.1 58.8 48.2
0.25 ours 0.564 76.6 69.1 59.3 48.3
0.5 gaussian 0.562 68.7 57.6 45.7 34.0 23.7 15.9 9.4 4.8
0.5 macer 0.680 64.7 57.4 49.5 42.1 34.0 26.4 19.2 12.0
0.5 smoothadv 0.684 65.3 57.8 49.9 41.7 33.7 26.0 19.5 12.9
0.5 consistency 0.716 64.1 57.6 50.3 42.9 35.9 29.1 22.6 16.0
0.5 smoothmix 0.738 60.6 55.2 49.3 43.3 37.6 32.1 26.4 20.5
0.5 catrs 0.757 62.3 56.8 50.5 44.6 38.5 32.7 27.1 20.6
0.5 ours 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
1.0 gaussian 0.534 51.5 44.1 36.5 29.4 23.8 18.2 13.1 9.2 6.0 3.8 2.3
1.0 macer 0.760 39.5 36.9 34.6 31.7 28.9 26.4 23.8 21.1 18.6 16.0 13.8
1.0 smoothadv 0.790 43.7 40.3 36.9 33.8 30.5 27.0 24.0 21.4 18.4 15.9 13.4
1.0 consistency 0.757 45.7 42.0 37.8 33.7 30.0 26.3 22.9 19.6 16.6 13.9 11.6
1.0 smoothmix 0.788 42.4 39.4 36.7 33.4 30.0 26.8 23.9 20.8 18.6 15.9 13.6
1.0 catrs 0.815 43.2 40.2 37.2 34.3 31.0 28.1 24.9 22.0 19.3 16.8 14.2
1.0 ours 0.844 42.0 39.4 36.5 33.9 31.1 28.4 25.6 23.1 20.6 18.3 16.1
"""

# Table 4 (ImageNet, every 100th validation image): ACR and certified accuracy (%) at 0.0, 0.5, ..., 3.5.
_TABLE4 = """
0.25 gaussian 0.476 66.7 49.4
0.25 smoothadv 0.532 65.3 55.5
0.25 ours 0.529 64.2 55.8
0.5 gaussian 0.733 57.2 45.8 37.2 28.6
0.5 smoothadv 0.824 53.6 49.4 43.3 36.8
0.5 consistency 0.822 55.0 50.2 44.0 34.8
0.5 smoothmix 0.846 54.6 50.0 43.4 37.8
0.5 ours 0.842 55.5 48.6 43.8 37.6
1.0 gaussian 0.875 43.6 37.8 32.6 26.0 19.4 14.8 12.2 9.0
1.0 smoothadv 1.040 40.3 37.0 34.0 30.0 26.9 24.6 19.7 15.2
1.0 consistency 0.982 41.6 37.4 32.6 28.0 24.2 21.0 17.4 14.2
1.0 smoothmix 1.047 39.6 37.2 33.6 30.4 26.2 24.0 20.4 17.0
1.0 catrs 1.071 43.6 38.2 35.2 30.8 26.8 24.0 20.2 17.0
1.0 ours 1.042 41.0 37.4 33.6 31.0 27.0 23.2 19.4 15.8
"""

# Table 2 (CIFAR-10, sigma = 0.5): ACR, mean gradient norm on easy and on hard inputs, their ratio.
PAPER_TABLE2 = pd.DataFrame(
    [("gaussian", 0.56, 10.10, 22.67, 0.45), ("smoothadv", 0.68, 5.60, 5.62, 1.00),
     ("consistency", 0.72, 14.99, 19.32, 0.78), ("smoothmix", 0.74, 11.72, 11.79, 0.99),
     ("catrs", 0.76, 30.45, 7.12, 4.28)],
    columns=["method", "ACR", "grad_easy", "grad_hard", "ratio"]).set_index("method")


def _parse_table(text: str, radii) -> pd.DataFrame:
    rows = {}
    for line in text.strip().splitlines():
        tok = line.split()
        vals = [float(v) for v in tok[2:]]
        acc = vals[1:] + [0.0] * (len(radii) - len(vals) + 1)
        rows[(float(tok[0]), tok[1])] = [vals[0]] + acc
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["ACR"] + [f"{r:.2f}" for r in radii])
    out.index = pd.MultiIndex.from_tuples(list(rows), names=["sigma", "method"])
    return out


PAPER_TABLE3 = _parse_table(_TABLE3, CIFAR10_RADII)
PAPER_TABLE4 = _parse_table(_TABLE4, IMAGENET_RADII)


def paper_table(dataset: str) -> pd.DataFrame:
    """The paper's printed Table 3 (``"cifar10"``) or Table 4 (``"imagenet"``), index ``(sigma, method)``."""
    if dataset == "cifar10":
        return PAPER_TABLE3.copy()
    if dataset == "imagenet":
        return PAPER_TABLE4.copy()
    raise ValueError(f"dataset must be 'cifar10' or 'imagenet', got {dataset!r}.")


def published_frames(dataset: str, keys=None) -> dict:
    """Published certification frames ``{(sigma, method): DataFrame}`` via ``robeval.data``.

    Parameters
    ----------
    dataset : {"cifar10", "imagenet"}
    keys : iterable of (sigma, method), optional
        Default: every row of the paper's table for ``dataset``.
    """
    from robeval import data

    keys = list(paper_table(dataset).index) if keys is None else list(keys)
    return {(float(s), m): data.load_certification(dataset, m, float(s)) for s, m in keys}


def compare_tables(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Long comparison of two ``(sigma, method) x [ACR, radii...]`` tables.

    Returns
    -------
    pandas.DataFrame with columns ``sigma, method, quantity, paper, recomputed, diff`` (recomputed
    minus paper; accuracies in percentage points, ACR in input units).
    """
    common = ours.index.intersection(paper.index)
    if len(common) == 0:
        raise ValueError("the tables share no (sigma, method) rows.")
    cols = [c for c in paper.columns if c in ours.columns]
    rows = []
    for key in common:
        for c in cols:
            p, o = float(paper.loc[key, c]), float(ours.loc[key, c])
            rows.append((key[0], key[1], c, p, o, o - p))
    return pd.DataFrame(rows, columns=["sigma", "method", "quantity", "paper", "recomputed", "diff"])


def ecdf_dominance(ecdfs: dict, x_min: float = 0.5, x_max: float = 1.0, tol: float = 0.0) -> pd.DataFrame:
    """Pairs ``(a, b)`` where ECDF ``a`` is at least ECDF ``b`` on every grid point in ``[x_min, x_max]``.

    This is the paper's order on models (App. B.3): ``a`` is better than ``b`` iff ``a``'s curve
    ``P(p_A >= x)`` is higher for all ``x``. ``strict`` marks pairs that also differ somewhere.

    Parameters
    ----------
    ecdfs : dict
        ``name -> DataFrame(x, y)`` on a common grid.
    tol : float
        Slack allowed below (ties within the rounding of the files).

    Returns
    -------
    pandas.DataFrame with columns ``better``, ``worse``, ``min_gap``, ``strict``.
    """
    names = list(ecdfs)
    if len(names) < 2:
        raise ValueError("need at least two ECDFs to compare.")
    x0 = np.asarray(ecdfs[names[0]]["x"])
    sel = (x0 >= x_min - 1e-12) & (x0 <= x_max + 1e-12)
    ys = {}
    for k in names:
        if not np.allclose(np.asarray(ecdfs[k]["x"]), x0):
            raise ValueError("all ECDFs must share the same x grid.")
        ys[k] = np.asarray(ecdfs[k]["y"], dtype=np.float64)[sel]
    rows = []
    for a in names:
        for b in names:
            if a == b:
                continue
            gap = ys[a] - ys[b]
            if np.all(gap >= -tol):
                rows.append((a, b, float(gap.min()), bool(np.any(gap > tol))))
    return pd.DataFrame(rows, columns=["better", "worse", "min_gap", "strict"])


# the paper's other printed numbers used by the claims (robeval.acr_claims)

# Table 8 (App. E.1): mean and standard deviation of "Ours"' ACR over three seeds, per sigma.
PAPER_TABLE8 = {0.25: (0.5613, 0.0022), 0.5: (0.7587, 0.0011), 1.0: (0.8434, 0.0003)}

# Section 6: percent of the best baseline's ImageNet ACR gain over Gaussian that "Ours" recovers, per sigma.
PAPER_IMAGENET_RECOVERY = {0.25: 94.6, 0.5: 96.5, 1.0: 85.2}

# Appendix B.3: the strict ECDF orders the paper lists, as groups of (better, worse); the sigma of each group
# was lost in the text extraction.
PAPER_APPB3_STRICT_ORDERS = (
    (("catrs", "consistency"), ("catrs", "smoothadv"), ("ours", "catrs")),
    (("catrs", "smoothmix"),),
    (("catrs", "smoothmix"), ("catrs", "macer"), ("ours", "macer")),
)

# Table 5 (CIFAR-10, sigma = 0.5): ACR and certified accuracy (%) at r = 0 of each training variant, as printed.
PAPER_TABLE5 = {
    "gaussian": (0.525, 65.7), "discard": (0.627, 68.4), "reweight": (0.662, 68.1), "attack": (0.701, 63.4),
    "discard+reweight": (0.672, 68.5), "discard+attack": (0.731, 63.4), "reweight+attack": (0.741, 56.1),
    "all": (0.760, 59.3)}


# --------------------------------------------------------------------------------------------
# long tables over many certification files, and the checks behind the claims
# --------------------------------------------------------------------------------------------


def _check_frames_dict(frames, name: str = "frames") -> dict:
    if not isinstance(frames, dict) or not frames:
        raise ValueError(f"{name} must be a non-empty dict {{key: DataFrame}}, got "
                         f"{type(frames).__name__ if not isinstance(frames, dict) else 'an empty dict'}.")
    return frames


def _key_columns(key, key_names) -> dict:
    key = key if isinstance(key, tuple) else (key,)
    if len(key) != len(key_names):
        raise ValueError(f"key {key!r} has {len(key)} parts but key_names names {len(key_names)}: "
                         f"{list(key_names)}.")
    return dict(zip(key_names, key))


def certified_accuracy_curves(frames: dict, radii, key_names=("sigma", "method")) -> pd.DataFrame:
    """Certified accuracy against radius for several certification frames, as one long table (Fig. 6).

    Parameters
    ----------
    frames : dict
        ``key -> certification DataFrame``; a key is a tuple with one value per ``key_names``.
    radii : array_like of float, shape (R,)
        Radii (input units, L2).
    key_names : tuple of str
        Column names of the key parts.

    Returns
    -------
    pandas.DataFrame
        ``len(frames) * R`` rows, one block per frame in dict order; columns ``*key_names``, ``radius``,
        ``certified_accuracy`` (fraction).
    """
    _check_frames_dict(frames)
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    parts = [pd.DataFrame({**_key_columns(key, key_names), "radius": radii,
                           "certified_accuracy": certified_accuracy(df, radii)}) for key, df in frames.items()]
    return pd.concat(parts, ignore_index=True)


def published_ecdfs(keys=None) -> dict:
    """The authors' published ECDF files of ``p_A`` (CIFAR-10, Fig. 9) as ``{(sigma, method): DataFrame(x, y)}``.

    Parameters
    ----------
    keys : iterable of (sigma, method), optional
        Default: every row of the paper's Table 3 (the files exist for all of them).
    """
    from robeval import data

    keys = list(paper_table("cifar10").index) if keys is None else list(keys)
    return {(float(s), m): data.load_published_ecdf(m, float(s)) for s, m in keys}


def ecdf_curves(frames: dict, n: int, alpha: float, count_offset: int = 1, key_names=("sigma", "method"),
                published: dict | None = None) -> pd.DataFrame:
    """ECDF of ``p_A`` (:func:`ecdf_from_certification`) of several certification frames, as one long table.

    Parameters
    ----------
    frames : dict
        ``key -> certification DataFrame``; the key part named ``"sigma"`` is the noise level.
    n, alpha : the certification budget behind the frames.
    count_offset : int
        See :func:`ecdf_from_certification`.
    key_names : tuple of str
        Column names of the key parts; must contain ``"sigma"``.
    published : dict, optional
        ``key -> DataFrame(x, y)`` on the same ``x`` grid (e.g. :func:`published_ecdfs`); its ``y`` is added
        as column ``published``.

    Returns
    -------
    pandas.DataFrame
        501 rows per frame (grid ``x = 0.500 ... 1.000``), columns ``x``, ``y``, ``*key_names``
        [, ``published``].
    """
    _check_frames_dict(frames)
    if "sigma" not in key_names:
        raise ValueError(f"key_names must name the noise level 'sigma', got {list(key_names)}.")
    if published is not None:
        missing = [k for k in frames if k not in published]
        if missing:
            raise ValueError(f"published lacks the ECDFs of {missing}; pass one per frame.")
    parts = []
    for key, df in frames.items():
        cols = _key_columns(key, key_names)
        e = ecdf_from_certification(df, cols["sigma"], n, alpha, count_offset=count_offset)
        if published is not None:
            pub = published[key]
            if len(pub) != len(e) or not np.allclose(np.asarray(pub["x"], dtype=np.float64), e["x"].to_numpy()):
                raise ValueError(f"the published ECDF of {key!r} is not on the grid x = 0.500, 0.501, ..., 1.")
            cols["published"] = np.asarray(pub["y"])
        parts.append(e.assign(**cols))
    return pd.concat(parts, ignore_index=True)


def ecdf_max_diff(curves: pd.DataFrame, key_names=("sigma", "method")) -> pd.DataFrame:
    """Largest ``|y - published|`` of each ECDF of a long table from ``ecdf_curves(..., published=...)``.

    Returns
    -------
    pandas.DataFrame with columns ``*key_names``, ``max_abs_diff`` (one row per curve, in table order).
    """
    check_frame(curves, ("y", "published", *key_names), "curves", hint="Build it with ecdf_curves(..., published=...).")
    rows = []
    for key, g in curves.groupby(list(key_names), sort=False):
        rows.append({**_key_columns(key, key_names),
                     "max_abs_diff": float(np.abs(g["y"].to_numpy() - g["published"].to_numpy()).max())})
    return pd.DataFrame(rows, columns=[*key_names, "max_abs_diff"])


def ecdf_at(curves: pd.DataFrame, x: float, **where) -> float:
    """Value ``y`` of one ECDF of a long table at grid point ``x``.

    ``where`` selects the curve, e.g. ``ecdf_at(ec, 0.5, sigma=0.25, method="gaussian")``.
    """
    sel = np.isclose(curves["x"], x)
    for col, val in where.items():
        if col not in curves.columns:
            raise ValueError(f"curves has no column {col!r}; columns: {list(curves.columns)}.")
        sel &= (curves[col] == val).to_numpy()
    hit = curves.loc[sel, "y"]
    if len(hit) == 0:
        raise ValueError(f"no ECDF point at x={x} for {where}.")
    return float(hit.iloc[0])


def compare_to_baseline(curves: pd.DataFrame, x: float, sigma: float, baseline: str = "gaussian",
                        methods=None, by: str = "method") -> pd.DataFrame:
    """Each method's ECDF at ``x`` beside the baseline's, at one ``sigma`` (Fig. 3 / Fig. 11 readings).

    Parameters
    ----------
    curves : pandas.DataFrame
        Long ECDF table (columns ``x``, ``y``, ``sigma``, ``by``).
    x : float
        Grid point, e.g. 0.5 (share of points with ``p_A >= 1/2``) or 0.999 (the easy end).
    methods : sequence of str, optional
        Methods to compare, in this order (those without a curve at ``sigma`` are skipped); default: every
        method of that ``sigma`` in table order. The baseline itself is always left out.

    Returns
    -------
    pandas.DataFrame with columns ``method``, ``y``, ``baseline_y``, ``below`` (``y < baseline_y``) and
    ``above`` (``y > baseline_y``).
    """
    at_sigma = curves[curves["sigma"] == sigma]
    present = list(dict.fromkeys(at_sigma[by]))
    if baseline not in present:
        raise ValueError(f"no ECDF of the baseline {baseline!r} at sigma={sigma}.")
    order = present if methods is None else [m for m in methods if m in present]
    base = ecdf_at(at_sigma, x, **{by: baseline})
    rows = []
    for m in order:
        if m == baseline:
            continue
        y = ecdf_at(at_sigma, x, **{by: m})
        rows.append({"method": m, "y": y, "baseline_y": base, "below": y < base, "above": y > base})
    return pd.DataFrame(rows, columns=["method", "y", "baseline_y", "below", "above"])


def ecdf_is_extreme(curves: dict, name: str, x_min: float, x_max: float, which: str = "highest") -> bool:
    """Whether ECDF ``name`` is at least (``"highest"``) / at most (``"lowest"``) every other curve on
    ``[x_min, x_max]`` (App. B.3's reading of "best"/"worst" in a region of ``p_A``).

    Parameters
    ----------
    curves : dict
        ``method -> DataFrame(x, y)`` on a common grid (one sigma).
    """
    if name not in curves:
        raise ValueError(f"{name!r} is not among the curves {list(curves)}.")
    if which not in ("highest", "lowest"):
        raise ValueError(f"which must be 'highest' or 'lowest', got {which!r}.")
    d = ecdf_dominance(curves, x_min, x_max)
    if which == "highest":
        return set(d[d.better == name].worse) == set(curves) - {name}
    return set(d[d.worse == name].better) == set(curves) - {name}


def _group_by_sigma(ecdfs: dict) -> dict:
    _check_frames_dict(ecdfs, "ecdfs")
    by_sigma: dict = {}
    for key, e in ecdfs.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise ValueError(f"ecdfs keys must be (sigma, method) pairs, got {key!r}.")
        by_sigma.setdefault(key[0], {})[key[1]] = e
    return by_sigma


def ecdf_is_extreme_by_sigma(ecdfs: dict, name: str, x_min: float, x_max: float, which: str = "highest") -> dict:
    """:func:`ecdf_is_extreme` at every sigma of ``ecdfs`` (``(sigma, method) -> DataFrame(x, y)``).

    Returns
    -------
    dict ``sigma -> bool`` in order of first appearance.
    """
    return {s: ecdf_is_extreme(curves, name, x_min, x_max, which) for s, curves in _group_by_sigma(ecdfs).items()}


def ecdf_strict_orders(ecdfs: dict, x_min: float = 0.5, x_max: float = 1.0, tol: float = 0.0) -> pd.DataFrame:
    """Strict ECDF orders (:func:`ecdf_dominance` rows with ``strict``) among the methods of each sigma.

    Parameters
    ----------
    ecdfs : dict
        ``(sigma, method) -> DataFrame(x, y)``; curves of one sigma are compared with each other.

    Returns
    -------
    pandas.DataFrame with columns ``better``, ``worse``, ``min_gap``, ``strict``, ``sigma``; sigmas in order of
    first appearance.
    """
    parts = []
    for s, curves in _group_by_sigma(ecdfs).items():
        d = ecdf_dominance(curves, x_min, x_max, tol=tol)
        parts.append(d[d.strict].assign(sigma=s))
    return pd.concat(parts)


def strict_order_pairs(orders: pd.DataFrame) -> set:
    """``{(sigma, better, worse)}`` of the strict rows of an :func:`ecdf_strict_orders` table."""
    check_frame(orders, ("sigma", "better", "worse", "strict"), "orders", hint="Build it with ecdf_strict_orders.")
    return {(r.sigma, r.better, r.worse) for r in orders[orders["strict"].astype(bool)].itertuples()}


def sigmas_with_orders(pairs: set, group, sigmas) -> list:
    """The sigmas (in the given order) at which every ``(better, worse)`` of ``group`` is in ``pairs``."""
    group = list(group)
    if not group:
        raise ValueError("group is empty; give at least one (better, worse) pair.")
    return [s for s in sigmas if all((s, a, b) in pairs for a, b in group)]


def acr_gain_recovered(table: pd.DataFrame, sigma: float, method: str = "ours", baseline: str = "gaussian",
                       candidates=METHODS):
    """Percent of the best other method's ACR gain over the baseline that ``method`` reaches (Sec. 6).

    ``100 * (ACR[method] - ACR[baseline]) / (max_c ACR[c] - ACR[baseline])``, ``c`` over ``candidates``
    present at ``sigma`` other than ``method`` and ``baseline``.

    Parameters
    ----------
    table : pandas.DataFrame
        Index ``(sigma, method)``, column ``ACR`` (e.g. :func:`certification_table`).

    Returns
    -------
    float (a NumPy scalar when the table holds NumPy floats), in percent.
    """
    check_frame(table, ("ACR",), "table", hint="E.g. from certification_table.")
    for m in (method, baseline):
        if (sigma, m) not in table.index:
            raise ValueError(f"table has no row ({sigma}, {m!r}).")
    others = [m for m in candidates if (sigma, m) in table.index and m not in (baseline, method)]
    if not others:
        raise ValueError(f"no method to compare with at sigma={sigma} besides {method!r} and {baseline!r}.")
    best = max(table.loc[(sigma, m), "ACR"] for m in others)
    base = table.loc[(sigma, baseline), "ACR"]
    return 100 * (table.loc[(sigma, method), "ACR"] - base) / (best - base)


def below_then_above(table: pd.DataFrame, sigma: float, small: str, large: str, baseline: str = "gaussian",
                     methods=None) -> tuple[bool, bool]:
    """Fig. 6 / Sec. 6: are all methods below the baseline at column ``small`` and above it at ``large``?

    Parameters
    ----------
    table : pandas.DataFrame
        Index ``(sigma, method)``, certified-accuracy columns such as ``"0.00"``.
    methods : sequence of str, optional
        Default: every method at ``sigma`` except the baseline.

    Returns
    -------
    (bool, bool)
        ``(below at small, above at large)``.
    """
    for c in (small, large):
        if c not in table.columns:
            raise ValueError(f"table has no column {c!r}; columns: {list(table.columns)}.")
    if (sigma, baseline) not in table.index:
        raise ValueError(f"table has no row ({sigma}, {baseline!r}).")
    if methods is None:
        methods = [m for s, m in table.index if s == sigma and m != baseline]
    g = table.loc[(sigma, baseline)]
    below = all(table.loc[(sigma, m), small] < g[small] for m in methods)
    above = all(table.loc[(sigma, m), large] > g[large] for m in methods)
    return below, above


def appendix_b_curves(ecdfs: dict, frames: dict, methods, sigma: float, radii, n_cheap: int, alpha_cheap: float,
                      n: int, alpha: float) -> pd.DataFrame:
    """Appendix B.1 curves of several methods at one sigma: certified accuracy from the ECDF under a cheap and
    under the original budget, beside the certification file's own curve.

    Parameters
    ----------
    ecdfs, frames : dict
        ``(sigma, method) -> ECDF DataFrame(x, y)`` and ``-> certification DataFrame``.
    methods : sequence of str
    radii : array_like of float, shape (R,)
    n_cheap, alpha_cheap : the cheaper budget ``(N', alpha')``.
    n, alpha : the budget behind the ECDF and the files.

    Returns
    -------
    pandas.DataFrame
        Per method, four blocks of R rows: ``rule`` ``plugin`` and ``binomial`` at ``budget`` ``"N=<n_cheap>"``,
        ``plugin`` at ``"N=<n>"``, and ``"certification file"`` at ``"N=<n>"``. Columns ``radius``,
        ``min_count``, ``min_p_a``, ``certified_accuracy``, ``method``, ``rule``, ``budget`` (the file rows
        have no ``min_count``/``min_p_a``).
    """
    methods = list(methods)
    if not methods:
        raise ValueError("methods is empty.")
    for name, d in (("ecdfs", ecdfs), ("frames", frames)):
        missing = [m for m in methods if (sigma, m) not in d]
        if missing:
            raise ValueError(f"{name} has no entry for sigma={sigma} and methods {missing}.")
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    rows = []
    for m in methods:
        e = ecdfs[(sigma, m)]
        for rule in ("plugin", "binomial"):
            r = certified_accuracy_from_ecdf(e.x, e.y, radii, n_cheap, alpha_cheap, sigma, method=rule)
            rows.append(r.assign(method=m, rule=rule, budget=f"N={n_cheap}"))
        same = certified_accuracy_from_ecdf(e.x, e.y, radii, n, alpha, sigma)
        rows.append(same.assign(method=m, rule="plugin", budget=f"N={n}"))
        rows.append(pd.DataFrame({"radius": radii, "certified_accuracy": certified_accuracy(frames[(sigma, m)], radii),
                                  "method": m, "rule": "certification file", "budget": f"N={n}"}))
    return pd.concat(rows, ignore_index=True)


def appendix_b_grid_excess(curves: pd.DataFrame, ecdfs: dict, methods, sigma: float, n: int) -> float:
    """App. B.1 consistency check: how far the ECDF-derived curve at the original budget strays from the file.

    The plug-in reads the ECDF at the first grid point at or above ``n_min / N``, so it may differ from the
    file's curve by up to the ECDF's drop over that grid step. Returns the largest ``|diff| - drop`` over the
    methods' certifiable radii (``<= 0``: agreement within the grid resolution).

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`appendix_b_curves` output (or the CSV written from it).
    ecdfs : dict
        ``(sigma, method) -> ECDF DataFrame(x, y)``, the ones behind ``curves``.
    n : int
        The original budget (selects the ``"N=<n>"`` plug-in rows).
    """
    excess = 0.0
    for m in methods:
        if (sigma, m) not in ecdfs:
            raise ValueError(f"ecdfs has no entry ({sigma}, {m!r}).")
        e = ecdfs[(sigma, m)]
        a = curves[(curves.method == m) & (curves.rule == "certification file")]
        b = curves[(curves.method == m) & (curves.rule == "plugin") & (curves.budget == f"N={n}")]
        if len(a) == 0 or len(a) != len(b):
            raise ValueError(f"curves lacks matching file and plug-in rows (N={n}) for {m!r}.")
        ok = np.isfinite(b.min_p_a.to_numpy())
        j = np.searchsorted(e.x.to_numpy(), b.min_p_a.to_numpy()[ok] - 1e-12)
        # the curve's drop over the grid step that the plug-in skips
        drop = e.y.to_numpy()[np.maximum(j - 1, 0)] - e.y.to_numpy()[np.minimum(j, len(e) - 1)]
        diff = np.abs(a.certified_accuracy.to_numpy()[ok] - b.certified_accuracy.to_numpy()[ok])
        excess = max(excess, float((diff - drop).max()))
    return excess


def appendix_b_round_trip(ecdf_x, ecdf_y, n: int, alpha: float, sigma: float) -> float:
    """App. B.2 inverts B.1: max ``|ECDF from the B.1 curve - B.1 curve|`` at every radius the budget certifies.

    The radii are those of the counts ``n // 2 ... n`` that certify (one per count), so the round trip is
    exact up to floating point.
    """
    n = check_num_samples(n)
    rad = radius_for_count(np.arange(n // 2, n + 1), n, alpha, sigma)
    rad = rad[rad >= 0]
    b1 = certified_accuracy_from_ecdf(ecdf_x, ecdf_y, rad, n, alpha, sigma)
    b2 = ecdf_from_certified_accuracy(rad, b1.certified_accuracy, b1.min_p_a, n, alpha, sigma)
    return float(np.abs(b2.y.to_numpy() - b1.certified_accuracy.to_numpy()).max())


def best_over_sigma_by_method(frames: dict, radii, methods=None, sigmas=None) -> pd.DataFrame:
    """:func:`best_over_sigma` for every method, stacked (Section 7).

    Parameters
    ----------
    frames : dict
        ``(sigma, method) -> certification DataFrame``; every pair of ``sigmas`` x ``methods`` must be present.
    methods, sigmas : sequence, optional
        Default: in order of first appearance among the keys.

    Returns
    -------
    pandas.DataFrame
        :func:`best_over_sigma` columns plus ``method``, one block per method.
    """
    _check_frames_dict(frames)
    methods = list(dict.fromkeys(m for _, m in frames)) if methods is None else list(methods)
    sigmas = list(dict.fromkeys(s for s, _ in frames)) if sigmas is None else list(sigmas)
    missing = [(s, m) for m in methods for s in sigmas if (s, m) not in frames]
    if missing:
        raise ValueError(f"frames lacks {missing}; best over sigma needs every sigma of every method.")
    parts = [best_over_sigma({s: frames[(s, m)] for s in sigmas}, radii).assign(method=m) for m in methods]
    return pd.concat(parts, ignore_index=True)


def best_over_sigma_table(best: pd.DataFrame) -> pd.DataFrame:
    """Pivot of :func:`best_over_sigma_by_method`: methods x radius, best certified accuracy in percent (1 decimal)."""
    check_frame(best, ("method", "radius", "best_accuracy"), "best", hint="Build it with best_over_sigma_by_method.")
    return best.pivot(index="method", columns="radius", values="best_accuracy").mul(100).round(1)


def max_file_radius(frames: dict, sigma: float) -> float:
    """Largest certified radius in the certification frames of one ``sigma`` (keys ``(sigma, method)``)."""
    radii = [float(df.radius.max()) for (s, _), df in frames.items() if s == sigma]
    if not radii:
        raise ValueError(f"no certification frame at sigma={sigma}.")
    return max(radii)


def _max_certifiable_p(n: int, alpha: float) -> float:
    """``alpha ** (1/n)``: the largest ``p`` whose one-sided lower bound a budget ``(n, alpha)`` can reach."""
    return check_alpha(alpha) ** (1 / check_num_samples(n))


def fig2_p_grid(n: int, alpha: float, points: int = 200) -> np.ndarray:
    """Values of ``p`` for Fig. 2: ``points`` linear in [0.5, 0.99], then ``points`` log-spaced in ``1 - p``
    up to the largest certifiable ``p = alpha ** (1/n)``. Shape ``(2 * points,)``."""
    p_max = _max_certifiable_p(n, alpha)
    return np.concatenate([np.linspace(0.5, 0.99, points), 1 - np.logspace(-2, np.log10(1 - p_max), points)])


def fig2_points(n: int, alpha: float, p=(0.5, 0.9, 0.99, 0.999, 0.9999), sigma: float = 1.0) -> pd.DataFrame:
    """:func:`fig2_curves` at the values ``p`` followed by the largest certifiable ``p = alpha ** (1/n)``.

    Returns
    -------
    pandas.DataFrame with columns ``p``, ``radius``, ``dradius_dp``; ``len(p) + 1`` rows, the last one at the
    budget's maximum.
    """
    p_max = _max_certifiable_p(n, alpha)
    return fig2_curves(list(p) + [p_max], sigma)


def radius_gain_equivalent(p_from: float, p_to: float, sigma: float = 1.0) -> tuple[float, float]:
    """Radius gained by raising ``p_A`` from ``p_from`` to ``p_to`` and the ``p`` that gains as much from 1/2.

    Returns
    -------
    (gain, p_equiv)
        ``gain = R(p_to) - R(p_from)`` (input units) and ``p_equiv`` with ``R(p_equiv) - R(1/2) = gain``.
    """
    r = fig2_curves([p_from, p_to], sigma)["radius"].to_numpy()
    gain = float(r[1] - r[0])
    return gain, float(_norm.cdf(gain / check_sigma(sigma)))


def theorem1_table(targets, alpha: float, sigma: float, class_fraction: float) -> pd.DataFrame:
    """Theorem 1 for several target ACRs: the budget the trivial classifier needs and its ACR there.

    Returns
    -------
    pandas.DataFrame with columns ``target_ACR``, ``min_budget_N``, ``log10_N``, ``ACR_at_N``.
    """
    th = pd.DataFrame({"target_ACR": list(np.atleast_1d(targets))})
    if th.empty:
        raise ValueError("targets is empty; give at least one target ACR.")
    th["min_budget_N"] = [theorem1_min_budget(a, alpha, sigma, class_fraction) for a in th.target_ACR]
    th["log10_N"] = np.log10(th.min_budget_N)
    th["ACR_at_N"] = [float(trivial_classifier_acr(n, alpha, sigma, class_fraction)) for n in th.min_budget_N]
    return th


def budget_toy_modes(p_a: float, budgets, sigma: float, alpha: float, modes=("plugin", "expected")) -> pd.DataFrame:
    """:func:`budget_toy_example` under each ACR mode, stacked with a ``mode`` column."""
    return pd.concat([budget_toy_example(p_a, budgets, sigma, alpha, mode=mode).assign(mode=mode) for mode in modes])


def budget_scan(p_a: float, points: int, sigma: float, alpha: float, log10_range=(1, 7)) -> pd.DataFrame:
    """The toy example (expected ACR, smooth in ``N``) on ``points`` log-spaced budgets, duplicates removed."""
    points = int(points)
    if points < 2:
        raise ValueError(f"points must be >= 2, got {points}.")
    scan_n = np.unique(np.round(np.logspace(log10_range[0], log10_range[1], points)).astype(int))
    return budget_toy_example(p_a, scan_n, sigma, alpha, mode="expected")


def toy_order_summary(toy: pd.DataFrame, scan: pd.DataFrame, mode: str = "plugin") -> dict:
    """How the toy example's winner changes with the budget.

    Parameters
    ----------
    toy : pandas.DataFrame
        :func:`budget_toy_modes` output (columns ``N``, ``better``, ``mode``).
    scan : pandas.DataFrame
        :func:`budget_scan` output (columns ``N``, ``better``), increasing ``N``.

    Returns
    -------
    dict
        ``order`` (winner per budget of ``toy`` under ``mode``), ``flips`` (changes along ``order``),
        ``changes`` (scan budgets where the winner differs from the previous one) and ``final`` (the largest
        scanned budget where the constant-``p_A`` classifier wins; NaN if it never does).
    """
    for name, df in (("toy", toy), ("scan", scan)):
        check_frame(df, ("N", "better"), name, hint="Pass budget_toy_example output.")
    order = list(toy[toy["mode"] == mode].better)
    if not order:
        raise ValueError(f"toy has no rows of mode {mode!r}.")
    flips = sum(a != b for a, b in zip(order, order[1:]))
    changes = scan.N[np.r_[False, scan.better.values[1:] != scan.better.values[:-1]]].tolist()
    final = scan[scan.better == "constant"].N.max()
    return {"order": order, "flips": flips, "changes": changes, "final": final}


def largest_certifiable_column(columns, n: int, alpha: float, sigma: float, cap: float = math.inf) -> tuple[str, float]:
    """The largest radius column of a certification table that budget ``(n, alpha)`` can still certify.

    Parameters
    ----------
    columns : iterable of str
        Table columns; radius columns are those that parse as numbers (``"0.25"``), others (``"ACR"``)
        are ignored.
    cap : float
        Do not go beyond this radius either (e.g. the radius the paper quotes).

    Returns
    -------
    (column, r_max)
        The last radius column ``c`` (in table order) with ``0 < float(c) <= min(cap, r_max)``, and
        ``r_max = max_certified_radius(n, alpha, sigma)``.
    """
    r_max = max_certified_radius(int(n), float(alpha), sigma)
    big = []
    for c in columns:
        try:
            r = float(c)
        except (TypeError, ValueError):
            continue
        if 0 < r <= min(cap, r_max):
            big.append(c)
    if not big:
        raise ValueError(f"no radius column in (0, {min(cap, r_max):.3g}]; the budget N={n} certifies at most "
                         f"{r_max:.3g} at sigma={sigma}.")
    return big[-1], r_max
