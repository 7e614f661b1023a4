"""The empirical distribution of p_A (Sun et al., Section 7, Figs. 3/9/11) and Appendix B.

* :func:`ecdf_from_certification`: the share of test points correct with ``p_A >= x``, read from the
  certified radii (the radius is increasing in the count ``n_A``); :func:`ecdf_indicators` per test point;
* Appendix B.1/B.2: :func:`certified_accuracy_from_ecdf` (certified accuracy under another budget
  ``(N', alpha')``) and :func:`ecdf_from_certified_accuracy` (back);
* orders between models (Appendix B.3: :func:`ecdf_dominance`, :func:`ecdf_strict_orders`) and the long
  tables of the notebooks (:func:`ecdf_curves`, :func:`appendix_b_curves`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binom as _binom

from robeval.acr.checks import check_num_samples
from robeval.acr.metrics import certified_accuracy, check_certification_frame, check_radii, key_columns
from robeval.acr.theory import min_count_for_radius, radius_for_count
from robeval.core.frames import check_frame, check_same_index
from robeval.core.validation import check_mapping, check_numbers


def _p_grid(grid, name: str = "grid", *, finite: bool = False):
    grid = check_numbers(grid, name, example="[0.5, 0.75, 1.0]").reshape(-1)
    if finite and not np.all(np.isfinite(grid)):
        raise ValueError(f"{name} holds NaN or infinite values; pass probabilities in [0, 1].")
    if grid.size == 0 or np.any(grid < 0) or np.any(grid > 1) or np.any(np.diff(grid) <= 0):
        raise ValueError(
            f"{name} must be a non-empty, strictly increasing array of probabilities in [0, 1]"
            + (" (empty)." if grid.size == 0 else f", got {grid[:3]}...")
        )
    return grid


def _check_count_offset(count_offset, n: int) -> int:
    """``count_offset`` as an int in 0 .. ``n``: TypeError for a fraction or text, ValueError for a negative value or
    one above ``n`` (the largest count ``ceil(x N)`` there is to subtract it from)."""
    if isinstance(count_offset, (bool, np.bool_)) or not isinstance(count_offset, (int, np.integer)):
        raise TypeError(
            f"count_offset must be an integer >= 0 (counts subtracted from ceil(x N)), got {count_offset!r}."
        )
    if count_offset < 0:
        raise ValueError(f"count_offset must be >= 0 (counts subtracted from ceil(x N)), got {count_offset!r}.")
    if count_offset > n:
        raise ValueError(
            f"count_offset must be at most n = {n} (it is subtracted from the count ceil(x n), at most n), got "
            f"{count_offset!r}; the published ECDFs use 1 (pass count_offset=1, or 0 for the strict p_hat_A >= x)."
        )
    return int(count_offset)


def ecdf_from_certification(
    df: pd.DataFrame, sigma, n: int = 100_000, alpha: float = 0.001, grid=None, count_offset: int = 1
) -> pd.DataFrame:
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
    count_offset : int in 0 .. n
        Counts subtracted from ``ceil(x N)``; 0 gives the strict ``p_hat_A >= x``. A negative, fractional or
        larger than ``n`` offset is refused, and so is a NaN or infinite ``grid`` value.

    Returns
    -------
    pandas.DataFrame with columns ``x``, ``y`` (fractions).
    """
    check_certification_frame(df)
    n = check_num_samples(n, "n")
    grid = _p_grid(np.round(np.arange(500, 1001) / 1000, 3) if grid is None else grid, finite=True)
    count_offset = _check_count_offset(count_offset, n)
    counts = np.clip(np.ceil(grid * n - 1e-9) - int(count_offset), 0, n)
    with np.errstate(over="ignore"):  # an overflow is refused by name below, not warned about
        r = _finite_radii(radius_for_count(counts, n, alpha, sigma), sigma)
    # p_A <= 1/2 never certifies: report the clean certified accuracy there
    y = certified_accuracy(df, np.maximum(r, 0.0))  # correct inputs all have radius >= 0
    return pd.DataFrame({"x": grid, "y": y})


def _finite_radii(r: np.ndarray, sigma) -> np.ndarray:
    """``r`` (the radii a noise level gives; -inf where a count abstains), or ValueError naming ``sigma`` when they
    overflow float64."""
    if np.any(np.isposinf(r)) or np.any(np.isnan(r)):
        raise ValueError(
            f"sigma = {sigma!r} gives radii beyond float64's range (sigma times a normal quantile); pass the noise "
            "level in input units, e.g. 0.25."
        )
    return r


def ecdf_indicators(df: pd.DataFrame, sigma, x, n: int = 100_000, alpha: float = 0.001, count_offset: int = 1):
    """Per input, whether it counts in the ECDF at each ``x``: correct with a radius at least the one the count
    ``ceil(x N) - count_offset`` certifies (:func:`ecdf_from_certification`'s rule; the mean over inputs is its
    ``y``). For paired comparisons of two models on the same inputs.

    Returns
    -------
    numpy.ndarray of bool, shape (M, len(x)), rows in the frame's order.
    """
    check_certification_frame(df)
    n = check_num_samples(n, "n")
    count_offset = _check_count_offset(count_offset, n)
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    counts = np.clip(np.ceil(x * n - 1e-9) - int(count_offset), 0, n)
    with np.errstate(over="ignore"):  # an overflow is refused by name below, not warned about
        r = np.maximum(_finite_radii(radius_for_count(counts, n, alpha, sigma), sigma), 0.0)
    ok = df["correct"].to_numpy().astype(bool)
    return ok[:, None] & (df["radius"].to_numpy(np.float64)[:, None] >= r[None, :])


def certified_accuracy_from_ecdf(
    ecdf_x, ecdf_y, radii, n: int, alpha: float, sigma: float, method: str = "plugin", lookup: str = "next"
) -> pd.DataFrame:
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

    ``ecdf_x`` and ``ecdf_y`` are paired by position: two pandas Series with different indexes are refused
    (:func:`robeval.core.frames.check_same_index`).
    """
    check_same_index(ecdf_x, ecdf_y, ("ecdf_x", "ecdf_y"))
    x = _p_grid(ecdf_x, "ecdf_x", finite=True)
    y = check_numbers(ecdf_y, "ecdf_y", example="[0.8, 0.6, 0.4]")
    if y.ndim != 1:  # a (1, G) curve was flattened and taken
        raise ValueError(f"ecdf_y must be one-dimensional (G,), one value per ecdf_x, got shape {y.shape}.")
    if y.shape != x.shape:
        raise ValueError(f"ecdf_y has shape {y.shape} but ecdf_x has {x.shape}; pass matching arrays.")
    if not np.all(np.isfinite(y)):
        raise ValueError("ecdf_y holds NaN or infinite values; pass a survival curve with values in [0, 1].")
    if np.any(np.diff(y) > 1e-12) or np.any(y < 0) or np.any(y > 1):
        raise ValueError("ecdf_y must be a non-increasing survival curve with values in [0, 1].")
    if method not in ("plugin", "binomial"):
        raise ValueError(f"method must be 'plugin' or 'binomial', got {method!r}.")
    if lookup not in ("next", "linear"):
        raise ValueError(f"lookup must be 'next' or 'linear', got {lookup!r}.")
    n = check_num_samples(n, "n")
    radii = check_radii(radii)
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

    ``radii`` and ``accuracy`` are paired by position: two pandas Series with different indexes are refused
    (:func:`robeval.core.frames.check_same_index`).
    """
    check_same_index(radii, accuracy, ("radii", "accuracy"))
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    acc = np.asarray(accuracy, dtype=np.float64).reshape(-1)
    if radii.shape != acc.shape or radii.size == 0:
        raise ValueError("radii and accuracy must be non-empty arrays of the same length.")
    if np.any(np.diff(radii) <= 0):
        raise ValueError("radii must be strictly increasing.")
    p = _p_grid(p_grid, "p_grid")
    n = check_num_samples(n, "n")
    r = np.asarray(radius_for_count(np.round(p * n), n, alpha, sigma), dtype=np.float64).reshape(-1)
    j = np.searchsorted(radii, np.maximum(r, radii[0]) - 1e-9, side="left")
    y = np.where(j < len(radii), acc[np.minimum(j, len(radii) - 1)], 0.0)
    return pd.DataFrame({"x": p, "y": y, "radius": r})


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


def ecdf_curves(
    frames: dict,
    n: int,
    alpha: float,
    count_offset: int = 1,
    key_names=("sigma", "method"),
    published: dict | None = None,
) -> pd.DataFrame:
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
    check_mapping(frames, "frames")
    if "sigma" not in key_names:
        raise ValueError(f"key_names must name the noise level 'sigma', got {list(key_names)}.")
    if published is not None:
        missing = [k for k in frames if k not in published]
        if missing:
            raise ValueError(f"published lacks the ECDFs of {missing}; pass one per frame.")
    parts = []
    for key, df in frames.items():
        cols = key_columns(key, key_names)
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
        rows.append(
            {
                **key_columns(key, key_names),
                "max_abs_diff": float(np.abs(g["y"].to_numpy() - g["published"].to_numpy()).max()),
            }
        )
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


def compare_to_baseline(
    curves: pd.DataFrame, x: float, sigma: float, baseline: str = "gaussian", methods=None, by: str = "method"
) -> pd.DataFrame:
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
    check_mapping(ecdfs, "ecdfs")
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


def appendix_b_curves(
    ecdfs: dict, frames: dict, methods, sigma: float, radii, n_cheap: int, alpha_cheap: float, n: int, alpha: float
) -> pd.DataFrame:
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
        rows.append(
            pd.DataFrame(
                {
                    "radius": radii,
                    "certified_accuracy": certified_accuracy(frames[(sigma, m)], radii),
                    "method": m,
                    "rule": "certification file",
                    "budget": f"N={n}",
                }
            )
        )
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
    n = check_num_samples(n, "n")
    rad = radius_for_count(np.arange(n // 2, n + 1), n, alpha, sigma)
    rad = rad[rad >= 0]
    b1 = certified_accuracy_from_ecdf(ecdf_x, ecdf_y, rad, n, alpha, sigma)
    b2 = ecdf_from_certified_accuracy(rad, b1.certified_accuracy, b1.min_p_a, n, alpha, sigma)
    return float(np.abs(b2.y.to_numpy() - b1.certified_accuracy.to_numpy()).max())
