"""Closed forms of the ACR critique (Sun et al., Sections 4.1-4.2, Theorem 1, Fig. 2).

* the largest certifiable radius of a budget ``(N, alpha)``: :func:`max_certified_radius`;
* counts and radii: :func:`radius_for_count`, :func:`min_count_for_radius`;
* Theorem 1: a trivial classifier's ACR grows without bound with N (:func:`trivial_classifier_acr`,
  :func:`theorem1_min_budget`, :func:`theorem1_table`);
* Fig. 2: the radius and its slope as p_A -> 1 (:func:`fig2_curves`);
* the budget toy example of Sections 4.1/4.2 (:func:`budget_toy_example`, :func:`budget_scan`).

Certified radii follow Cohen et al. (2019): with ``n_A`` hits among ``N`` draws, ``p_A_lower`` is the
one-sided Clopper-Pearson bound at level ``1 - alpha`` and the radius is ``sigma * Phi^{-1}(p_A_lower)``
when ``p_A_lower >= 1/2`` (else abstain); it is increasing in ``n_A``.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import pandas as pd
from scipy.stats import binom as _binom
from scipy.stats import norm as _norm

from robeval.acr.checks import (
    check_alpha,
    check_num_samples,
    check_sigma,
    huge_int,
    huge_int_message,
    refuse_text,
    show_int,
)
from robeval.acr.smoothing import clopper_pearson_lower, full_hit_gap, radius_from_p_lower, stable_full_hits
from robeval.core.frames import check_frame
from robeval.core.validation import check_numbers


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
        Where all of more than :data:`robeval.acr.smoothing.STABLE_FULL_HIT_FROM` draws hit, computed from
        ``1 - p_A_lower`` (as :func:`max_certified_radius`), finite for any budget.
    """
    n = check_num_samples(n, "n")
    radius = radius_from_p_lower(clopper_pearson_lower(n_a, n, alpha), sigma)
    return stable_full_hits(radius, n_a, n, alpha, sigma)


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
    n = check_num_samples(n, "n")
    if n >= 2**62:  # lo + hi below must not overflow int64
        raise ValueError(
            f"n must be below 2**62 = 4.6e18 here (the search for the smallest count runs in int64), got {show_int(n)}; "
            "pass a smaller budget n."
        )
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    radius = np.atleast_1d(np.asarray(radius, dtype=np.float64))
    if np.any(~np.isfinite(radius)) or np.any(radius < 0):
        raise ValueError("radius must be finite and >= 0.")
    # certification also needs p_A_lower >= 1/2, i.e. r(n_A) >= 0
    target = np.maximum(radius, 0.0)
    lo = np.zeros(radius.shape, dtype=np.int64)  # r(lo) < target (or lo == 0)
    hi = np.full(radius.shape, n, dtype=np.int64)  # candidate answer
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
    so that budgets up to ``1e300`` stay accurate. A budget too small to certify anything, ``alpha ** (1 / n) <
    1/2`` (``n < log2(1 / alpha)``, e.g. ``n <= 9`` at ``alpha = 0.001``), makes CERTIFY abstain on every input:
    its radius is 0 (never negative).

    Parameters
    ----------
    n : int, float or array_like of whole numbers >= 1 (a float such as ``1e30`` holds the huge budgets of
        Theorem 1; a fraction is refused, a bool is a TypeError)
    alpha, sigma : float

    Returns
    -------
    numpy.ndarray of float64 (or float), >= 0
    """
    alpha, sigma = check_alpha(alpha), check_sigma(sigma)
    n = _check_budgets(n)
    q = full_hit_gap(n, alpha)  # 1 - alpha ** (1 / n)
    out = np.maximum(sigma * _norm.isf(q), 0.0)  # below 1/2 CERTIFY abstains: radius 0
    return out if np.ndim(out) else float(out)


def _check_budgets(n, hint: str = "a float such as 1e300 holds the huge budgets of Theorem 1") -> np.ndarray:
    """``n`` as a float64 array of whole numbers >= 1 (budgets up to 1e308); ValueError / TypeError naming ``n``
    for a fraction (never truncated), NaN, infinity, text or an int beyond float64. ``hint``: what to pass instead
    of an infinite budget."""
    try:
        n = check_numbers(n, "n", example="100000")
    except OverflowError:  # a Python int beyond float64 (e.g. 10**400)
        big = huge_int(n, beyond_float=True)
        if big is None:
            raise
        raise ValueError(huge_int_message("n", big, "a number of draws")) from None
    if not np.all(np.isfinite(n)):
        raise ValueError(
            f"n must be a finite whole number of noise draws, got {float(n[~np.isfinite(n)].reshape(-1)[0])!r}; {hint}."
        )
    if np.any(~(n >= 1)):
        raise ValueError("n must be >= 1 (number of noise draws).")
    if np.any(n != np.floor(n)):
        raise ValueError(
            f"n must be a whole number of noise draws, got {float(n[n != np.floor(n)].reshape(-1)[0])!r}; a budget is "
            "never truncated (round it yourself if you mean an integer)."
        )
    return n


def trivial_classifier_acr(n, alpha, sigma, class_fraction) -> np.ndarray:
    """ACR of a constant classifier (Theorem 1): ``class_fraction * max_certified_radius(n, alpha, sigma)``.

    The classifier always outputs the most frequent class, so ``n_A = n`` on its inputs (radius at
    the budget's maximum) and it is wrong elsewhere (no contribution).

    Parameters
    ----------
    n : int, float or array_like of whole numbers >= 1 (as in :func:`max_certified_radius`; a budget that
        certifies nothing gives an ACR of 0)
    alpha, sigma : float
    class_fraction : float in (0, 1]
        Share of the predicted class in the data set (>= 1/K for the most frequent of K classes).
    """
    if isinstance(class_fraction, (bool, np.bool_)) or not isinstance(class_fraction, (Real, np.number)):
        raise TypeError(f"class_fraction must be a number in (0, 1], e.g. 0.1; got {class_fraction!r}.")
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
    refuse_text(target_acr, "target_acr", "a positive number (an ACR in input units), e.g. 0.5")
    refuse_text(class_fraction, "class_fraction", "a number in (0, 1], e.g. 0.1")
    a = float(target_acr)
    if not (a > 0 and math.isfinite(a)):
        raise ValueError(f"target_acr must be a positive finite number, got {target_acr!r}.")
    pi = float(class_fraction)
    if not (0 < pi <= 1):
        raise ValueError(f"class_fraction must be in (0, 1], got {class_fraction!r}.")
    z = a / (pi * sigma)
    # ln Phi(z) = log1p(-sf(z)), sf kept in log space (no underflow); exact to double precision for large z,
    # where the first-order -sf(z) would put the budget 3-4 above the smallest one
    log_phi = float(_norm.logcdf(z)) if z < 5 else math.log1p(-math.exp(float(_norm.logsf(z))))
    if log_phi == 0.0:
        return math.inf
    ratio = math.log(alpha) / log_phi
    if ratio < 2**52:
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
    refuse_text(p_a, "p_a", "one number in (0, 1], e.g. 0.9")
    if not isinstance(p_a, (Real, np.number)):
        raise TypeError(f"p_a must be one number in (0, 1], e.g. 0.9; got {type(p_a).__name__} {p_a!r:.60}.")
    if not (0 < p_a <= 1):
        raise ValueError(f"p_a must be in (0, 1], got {p_a!r}.")
    if mode not in ("expected", "plugin"):
        raise ValueError(f"mode must be 'expected' or 'plugin', got {mode!r}.")
    checked = _check_budgets(n, "pass budgets below 2**63 = 9.2e18")  # the cast below neither truncates nor wraps
    if np.any(checked >= 2**63):
        raise ValueError(
            f"n must be below 2**63 = 9.2e18 here (budgets are counted in int64), got "
            f"{float(checked[checked >= 2**63].reshape(-1)[0]):.3g}; pass smaller budgets."
        )
    budgets = np.atleast_1d(np.asarray(n)).astype(np.int64)
    out = np.empty(len(budgets))
    for i, nn in enumerate(budgets):
        nn = check_num_samples(int(nn), "n")
        if mode == "plugin":
            r = radius_for_count(np.round(p_a * nn), nn, alpha, sigma)
            out[i] = max(float(r), 0.0)
            continue
        sd = math.sqrt(nn * p_a * (1 - p_a))
        k = np.arange(max(0, math.floor(nn * p_a - 12 * sd - 1)), min(nn, math.ceil(nn * p_a + 12 * sd + 1)) + 1)
        r = np.maximum(radius_for_count(k, nn, alpha, sigma), 0.0)
        out[i] = float(np.sum(_binom.pmf(k, nn, p_a) * r))
    return out


def budget_toy_example(
    p_a: float, budgets, sigma: float, alpha: float, class_fraction: float = 0.5, mode: str = "expected"
) -> pd.DataFrame:
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
    return pd.DataFrame(
        {
            "N": budgets,
            "acr_trivial": triv,
            "acr_constant": const,
            "better": np.where(triv > const, "trivial", "constant"),
        }
    )


def _max_certifiable_p(n: int, alpha: float) -> float:
    """``alpha ** (1/n)``: the largest ``p`` whose one-sided lower bound a budget ``(n, alpha)`` can reach."""
    return check_alpha(alpha) ** (1 / check_num_samples(n, "n"))


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
    # a target no float budget reaches (min_budget_N = inf) keeps an infinite ACR
    th["ACR_at_N"] = [
        float(trivial_classifier_acr(n, alpha, sigma, class_fraction)) if math.isfinite(n) else math.inf
        for n in th.min_budget_N
    ]
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
