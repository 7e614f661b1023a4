"""What notebooks 05, 06 and 07 report from their stored results: the per-run statistics of Sec. 4.1 and Fig. 5
(:func:`sec41_statistics`, :func:`fig5_statistics`), of the fog experiment (:func:`fog_statistics`), and the
closed-form maps and Monte-Carlo checks of Appendix A (:func:`analytic_maps_from_settings`,
:func:`analytic_mc_checks`). The runs themselves are :mod:`robeval.realworld.experiments`'."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robeval.core.frames import check_frame as _check_frame
from robeval.core.frames import check_unique_runs
from robeval.core.seeding import keyed
from robeval.realworld.robustness import correlation

if TYPE_CHECKING:
    import pandas

__all__ = [
    "fraction_above",
    "interior_peak_margins",
    "sec41_statistics",
    "fig5_statistics",
    "fog_statistics",
    "rank_agreement",
    "max_spread_along_x1",
    "equal_distance_edge",
    "analytic_check_points",
    "analytic_mc_checks",
    "mc_check_summary",
    "analytic_covariances",
    "analytic_maps_from_settings",
    "analytic_mc_checks_from_settings",
]


def fraction_above(values, threshold: float) -> float:
    """Fraction of ``values`` (1-D) strictly above ``threshold``; NaN for an empty input."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {values.shape}.")
    return float(np.mean(values > threshold)) if values.size else float("nan")


def interior_peak_margins(sweep, column: str = "pearson") -> pandas.Series:
    """Per run: how far the correlation at the peak scale rises above *both* ends of the scale range.

    The peak scale of run ``r`` is chosen on the mean curve of the *other* runs (leave one out; on its own
    curve when there is a single run), so run ``r``'s margin is not inflated by selecting its own maximum.
    The margin is ``min(c_r(peak) − c_r(first), c_r(peak) − c_r(last))`` over the scales where every run has a
    finite correlation: positive when the run's curve has an interior maximum, <= 0 when it is monotone.

    sweep : the ``<dataset>_sweep.csv`` table (run, scale, ``column``). Returns a Series indexed by run.
    """
    import pandas as pd

    _check_frame(sweep, ("run", "scale", column), "sweep")
    check_unique_runs(sweep, ("run", "scale"), "sweep", hint="A run has one correlation per scale.")
    curves = sweep.pivot(index="run", columns="scale", values=column).sort_index(axis=1)
    curves = curves.loc[:, curves.notna().all(axis=0)]
    if curves.shape[1] < 3:
        raise ValueError(
            f"the sweep has {curves.shape[1]} scale(s) with a finite {column} correlation in every run; an "
            "interior maximum needs at least 3 (widen the scale range or add scales)."
        )
    out = {}
    for r in curves.index:
        others = curves.drop(index=r) if len(curves) > 1 else curves
        peak = others.mean(axis=0).idxmax()
        c = curves.loc[r]
        out[r] = float(min(c[peak] - c.iloc[0], c[peak] - c.iloc[-1]))
    return pd.Series(out, name="interior_peak_margin").rename_axis("run")


def sec41_statistics(points, sweep, runs, scatter_scales) -> pandas.DataFrame:
    """Per run of one dataset, the quantities the Sec. 4.1 claims are judged on.

    points, sweep, runs : the dataset's tables (:func:`load_sec41_results`); scatter_scales : the dataset's two
    scatter scales (panel a first; Fig. 5 and the convergence check use panel a).

    Columns (one row per run):

    * ``spearman_adv``: Spearman correlation of adversarial robustness with real-world robustness at the run's
      peak scale (``rw_peak``); ``spearman_ceiling``: that of the two independent estimates ``rw_peak`` and
      ``rw_peak2`` -- what a score ranking points exactly like P_r would reach given the Monte-Carlo noise. Both
      over the ``n_ranked`` points whose attack succeeded and whose two estimates are below 1 (estimates of
      exactly 1 tie, and a block of ties would lower the first correlation but not the second);
    * ``frac_rw_09`` / ``frac_adv_09``: fractions of points with real-world / adversarial robustness above 0.9
      at panel a's scale (points whose attack succeeded);
    * ``min_rw_a`` / ``min_rw_b``: the smallest real-world robustness of the run's test points at panel a's /
      b's scale (all points);
    * ``pearson_max`` / ``pearson_min``: the range of the sweep's Pearson correlation (finite values);
      ``interior_peak_margin``: :func:`interior_peak_margins`;
    * ``d_random``: mean over the random covariances of the mean |P_r(identity) − P_r(random)| over points, and
      ``d_noise``: mean |P_r(identity) − P_r(identity, 2nd estimate)|, both at panel a's scale; ``excess`` =
      ``d_random − d_noise`` (what the covariance changes beyond Monte-Carlo noise);
    * ``min_pairwise_corr``: the convergence check (repetitions at panel a's scale).
    """
    import pandas as pd

    a, b = (float(s) for s in scatter_scales)
    ida, id2a, idb = f"rw_identity_{a:g}", f"rw_identity2_{a:g}", f"rw_identity_{b:g}"
    _check_frame(points, ("run", "adv_success", "adv_robustness", "rw_peak", "rw_peak2", ida, id2a, idb), "points")
    _check_frame(sweep, ("run", "scale", "pearson"), "sweep")
    _check_frame(runs, ("run", "min_pairwise_corr"), "runs")
    if "point" in points.columns:
        check_unique_runs(points, ("run", "point"), "points", hint="A run has one row per test point.")
    check_unique_runs(sweep, ("run", "scale"), "sweep", hint="A run has one row per scale.")
    check_unique_runs(runs, ("run",), "runs", hint="One row per run.")
    random_cols = [c for c in points.columns if c.startswith("rw_random") and c.endswith(f"_{a:g}")]
    if not random_cols:
        raise ValueError(f"points has no random-covariance column rw_random<k>_{a:g} (Fig. 5).")
    try:
        margins = interior_peak_margins(sweep)
    except ValueError:  # fewer than 3 scales with a finite correlation in every run
        margins = None
    rows = []
    for r, p in points.groupby("run", sort=True):
        ok = p["adv_success"].astype(bool)
        live = ok & (p["rw_peak"] < 1) & (p["rw_peak2"] < 1)  # P_r not saturated: no ties at exactly 1
        sw = sweep[sweep["run"] == r]
        d_random = float(np.mean([np.mean(np.abs(p[ida] - p[c])) for c in random_cols]))
        d_noise = float(np.mean(np.abs(p[ida] - p[id2a])))
        rows.append(
            {
                "run": r,
                "spearman_adv": correlation(p.loc[live, "adv_robustness"], p.loc[live, "rw_peak"], "spearman"),
                "spearman_ceiling": correlation(p.loc[live, "rw_peak"], p.loc[live, "rw_peak2"], "spearman"),
                "n_ranked": int(live.sum()),
                "frac_rw_09": fraction_above(p.loc[ok, ida].to_numpy(), 0.9),
                "frac_adv_09": fraction_above(p.loc[ok, "adv_robustness"].to_numpy(), 0.9),
                "min_rw_a": float(p[ida].min()),
                "min_rw_b": float(p[idb].min()),
                "pearson_max": float(np.nanmax(sw["pearson"])) if sw["pearson"].notna().any() else np.nan,
                "pearson_min": float(np.nanmin(sw["pearson"])) if sw["pearson"].notna().any() else np.nan,
                "interior_peak_margin": margins.get(r, np.nan) if margins is not None else np.nan,
                "d_random": d_random,
                "d_noise": d_noise,
                "excess": d_random - d_noise,
                "min_pairwise_corr": float(runs.loc[runs["run"] == r, "min_pairwise_corr"].iloc[0]),
            }
        )
    return pd.DataFrame(rows).set_index("run")


def fig5_statistics(fig5, points=None, attacked_pair: str = "") -> pandas.DataFrame:
    """Per Iris class pair, covariance reading and run: the Fig. 5 quantities of :func:`sec41_statistics`
    (``d_random``, ``d_noise``, ``excess``) from a ``<dataset>_fig5.csv`` table (:func:`fig5_readings`; column
    ``pair`` absent or "" for Ionosphere), and with ``points`` (the dataset's points table: ``run``, ``point``,
    ``adv_success``, ``adv_robustness``) the fractions ``frac_rw_09`` / ``frac_adv_09`` of the points whose attack
    succeeded with P_r / adversarial robustness above 0.9, for ``attacked_pair``, the pair the points were attacked
    with ("" for Ionosphere; NaN for the other pairs). Returns a DataFrame with columns ``pair``, ``reading``, ``run``, ``n_samples`` and those,
    one row per (pair, reading, run)."""
    import pandas as pd

    _check_frame(fig5, ("run", "reading", "point", "rw_identity", "rw_identity2"), "fig5")
    fig5 = fig5.copy()
    fig5["pair"] = fig5["pair"].fillna("").astype(str) if "pair" in fig5 else ""
    check_unique_runs(fig5, ("pair", "reading", "run", "point"), "fig5", hint="One row per pair, reading and point.")
    random_cols = [c for c in fig5.columns if c.startswith("rw_random")]
    if not random_cols:
        raise ValueError("fig5 has no random-covariance column rw_random<k> (Fig. 5).")
    adv = None
    if points is not None:
        _check_frame(points, ("run", "point", "adv_success", "adv_robustness"), "points")
        adv = points.set_index(["run", "point"])[["adv_success", "adv_robustness"]]
    rows = []
    for (pair, reading, run), t in fig5.groupby(["pair", "reading", "run"], sort=True):
        ident = t["rw_identity"].to_numpy(np.float64)
        d_random = float(np.mean([np.mean(np.abs(ident - t[c].to_numpy(np.float64))) for c in random_cols]))
        d_noise = float(np.mean(np.abs(ident - t["rw_identity2"].to_numpy(np.float64))))
        row = {"pair": pair, "reading": reading, "run": run, "n_samples": int(t["n_samples"].iloc[0]),
               "d_random": d_random, "d_noise": d_noise, "excess": d_random - d_noise,
               "frac_rw_09": np.nan, "frac_adv_09": np.nan}  # fmt: skip
        keys = pd.MultiIndex.from_arrays([t["run"].to_numpy(), t["point"].to_numpy()])
        if adv is not None and pair == attacked_pair:
            if not keys.isin(adv.index).all():
                raise ValueError(f"fig5 run {run} has points the points table lacks; pass the points of its runs.")
            a = adv.loc[keys]
            ok = a["adv_success"].astype(bool).to_numpy()
            row["frac_rw_09"] = fraction_above(ident[ok], 0.9)
            row["frac_adv_09"] = fraction_above(a["adv_robustness"].to_numpy(np.float64)[ok], 0.9)
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------
# notebook 06: the fog experiment's per-run statistics
# --------------------------------------------------------------------------------------------------


def fog_statistics(points, runs=None) -> pandas.DataFrame:
    """Per run of the fog experiment (``fog_points.csv`` of :func:`robeval.realworld.fog.run_fog_grid`, column
    ``run``): test points, DeepFool success rate, minimum real-world robustness, fractions with P_r > 0.99 and
    P_r < 0.5, the Spearman correlation of adversarial robustness with P_r and the ceiling a score ranking points
    exactly like P_r would reach (Spearman of the two independent estimates ``rw_robustness`` and
    ``rw_robustness2``), both over the ``ranked points`` whose attack succeeded and whose estimates are below 1
    (as :func:`sec41_statistics`); with ``runs`` (``fog_runs.csv``) also the convergence check."""
    import pandas as pd

    _check_frame(points, ("run", "adv_success", "adv_robustness", "rw_robustness", "rw_robustness2"), "points")
    if "time" in points.columns:
        check_unique_runs(points, ("run", "time"), "points", hint="A run has one row per test point (time).")
    if runs is not None:
        check_unique_runs(runs, ("run",), "runs", hint="One row per run.")
    rows = []
    for r, p in points.groupby("run", sort=True):
        ok = p["adv_success"].astype(bool)
        rw = p["rw_robustness"]
        live = ok & (rw < 1) & (p["rw_robustness2"] < 1)  # not saturated: no ties at exactly 1
        row = {
            "run": r,
            "test points": len(p),
            "DeepFool success rate": float(ok.mean()),
            "min P_r": float(rw.min()),
            "fraction P_r > 0.99": float((rw > 0.99).mean()),
            "fraction P_r < 0.5": float((rw < 0.5).mean()),
            "Spearman(adv, P_r)": correlation(p.loc[live, "adv_robustness"], rw[live], "spearman"),
            "Spearman ceiling": correlation(rw[live], p.loc[live, "rw_robustness2"], "spearman"),
            "ranked points": int(live.sum()),
        }
        if runs is not None:
            _check_frame(runs, ("run", "min_pairwise_corr"), "runs")
            row["min pairwise corr"] = float(runs.loc[runs["run"] == r, "min_pairwise_corr"].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows).set_index("run")


# --------------------------------------------------------------------------------------------------
# notebook 07: tables of Appendix A
# --------------------------------------------------------------------------------------------------


def rank_agreement(robustness, distance) -> dict:
    """How well the distance to the closest counterfactual orders points like real-world robustness.

    robustness, distance : arrays of equal size (e.g. the closed-form maps of
    :func:`robeval.realworld.analytic.closed_form_maps`), flattened.

    Returns dict with spearman (rank correlation) and max_order_violation
    (:func:`robeval.realworld.robustness.max_order_violation`: 0 when no point farther from the boundary is less robust).
    """
    from robeval.realworld.robustness import max_order_violation

    r, d = np.ravel(robustness), np.ravel(distance)
    if r.shape != d.shape:
        raise ValueError(f"robustness and distance must have the same size, got {r.size} and {d.size}.")
    return {"spearman": correlation(r, d, method="spearman"), "max_order_violation": max_order_violation(r, d)}


def max_spread_along_x1(robustness_map) -> float:
    """Largest range (max − min) of a 2-D map along its x1 axis (axis 1, the columns of each row); 0 when
    the map does not depend on x1 (App. A.1 with w = (0, 1))."""
    m = np.asarray(robustness_map, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"robustness_map must be a 2-D (x2, x1) grid, got shape {m.shape}.")
    return float(np.ptp(m, axis=1).max())


def equal_distance_edge(corner, cov, extent: float, *, distance: float = 0.5, n: int = 50):
    """App. A.2: points inside the right-angle model's quadrant at counterfactual ``distance`` from the
    edge x2 = a2, moving away from the corner along it.

    Point ``k`` is ``(a1 + t_k, a2 + distance)`` with ``t`` evenly spaced over ``[distance, extent]`` (the
    distance to the other edge). Returns a DataFrame with t, distance (to the closest counterfactual) and
    robustness (closed-form P_r under covariance ``cov``).
    """
    import pandas as pd

    from robeval.realworld.analytic import right_angle_counterfactual, right_angle_robustness

    corner = np.asarray(corner, dtype=np.float64)
    if corner.shape != (2,):
        raise ValueError(f"corner must be (a1, a2), got shape {corner.shape}.")
    if not extent > distance > 0:
        raise ValueError(f"need extent > distance > 0, got extent={extent!r}, distance={distance!r}.")
    t = np.linspace(distance, extent, int(n))
    pts = np.column_stack([corner[0] + t, np.full_like(t, corner[1] + distance)])
    return pd.DataFrame(
        {
            "t": t,
            "distance": right_angle_counterfactual(pts, corner)[1],
            "robustness": right_angle_robustness(pts, corner, cov),
        }
    )


def analytic_check_points(corner, check_extent: float, n_check: int) -> tuple[np.ndarray, np.ndarray]:
    """Points of the Monte-Carlo check of App. A: a regular ``n_check × n_check`` grid over
    ``[-check_extent, check_extent]²`` and a ``max(n_check // 2, 3)``² patch of side 2 around ``corner``.
    Returns two float arrays (n, 2)."""
    g = np.linspace(-check_extent, check_extent, n_check)
    grid_pts = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    h = np.linspace(-1.0, 1.0, max(n_check // 2, 3))
    corner_pts = np.asarray(corner) + np.stack(np.meshgrid(h, h), -1).reshape(-1, 2)
    return grid_pts, corner_pts


def analytic_mc_checks(
    corner, covariances, check_extent: float, n_check: int, n_samples: int, seed: int
) -> pandas.DataFrame:
    """Monte-Carlo real-world robustness against the closed forms of App. A (Sec. 3.5 estimator check).

    The linear model (w = (0, 1), b = 0) on the grid of :func:`analytic_check_points`, the right-angle model
    (corner ``corner``) on the grid plus the corner patch, each under every covariance of ``covariances``
    (an ordered mapping name -> (2, 2) matrix). Each (model, covariance) draws from
    ``keyed(seed, model, covariance)``.

    Returns the rows of :func:`robeval.realworld.analytic.mc_vs_closed_form` with leading columns model
    and covariance.
    """
    import pandas as pd

    from robeval.realworld.analytic import mc_vs_closed_form

    grid_pts, corner_pts = analytic_check_points(corner, check_extent, n_check)
    checks = []
    for model, pts, params in [
        ("linear", grid_pts, dict(w=(0.0, 1.0), b=0.0)),
        ("right_angle", np.vstack([grid_pts, corner_pts]), dict(a=corner)),
    ]:
        for cov_name, cov in covariances.items():
            df = mc_vs_closed_form(model, pts, cov, n_samples, rng=keyed(seed, model, cov_name), **params)
            df.insert(0, "covariance", cov_name)
            df.insert(0, "model", model)
            checks.append(df)
    return pd.concat(checks, ignore_index=True)


def mc_check_summary(checks) -> pandas.DataFrame:
    """Per (model, covariance) of :func:`analytic_mc_checks`: points, max |z|, mean z², minimum exact
    p-value and the largest |MC − closed form|."""
    _check_frame(checks, ("model", "covariance", "z", "p_value", "mc", "exact"), "checks")
    err = (checks["mc"] - checks["exact"]).abs()
    return (
        checks.assign(err=err)
        .groupby(["model", "covariance"])
        .agg(
            points=("z", "size"),
            max_abs_z=("z", lambda z: np.abs(z).max()),
            mean_z2=("z", lambda z: np.mean(z**2)),
            min_p=("p_value", "min"),
            max_abs_err=("err", "max"),
        )
    )


def analytic_covariances(cfg) -> dict:
    """The uncertainty covariances of App. A from the settings of ``realworld_analytical`` (notebook 07):
    ``{"isotropic": sigma^2 I, "anisotropic": aniso_cov}``, float (2, 2) arrays in that order."""
    return {"isotropic": cfg["sigma"] ** 2 * np.eye(2), "anisotropic": np.asarray(cfg["aniso_cov"])}


def analytic_maps_from_settings(cfg) -> dict:
    """Figs. A.1 and A.2 from the settings of ``realworld_analytical``: the closed-form maps
    (:func:`robeval.realworld.analytic.closed_form_maps`, grid ``[-extent, extent]^2`` with ``n_grid`` points
    per axis, isotropic covariance) of the linear model with w = (0, 1), b = 0 and of the right-angle model
    with corner ``corner``. Returns ``{"linear": maps, "right_angle": maps}``."""
    from robeval.realworld.analytic import closed_form_maps

    cov_iso = analytic_covariances(cfg)["isotropic"]
    return {
        "linear": closed_form_maps("linear", cfg["extent"], cfg["n_grid"], cov_iso, w=(0.0, 1.0), b=0.0),
        "right_angle": closed_form_maps(
            "right_angle", cfg["extent"], cfg["n_grid"], cov_iso, a=np.asarray(cfg["corner"])
        ),
    }


def analytic_mc_checks_from_settings(cfg) -> pandas.DataFrame:
    """:func:`analytic_mc_checks` with the settings of ``realworld_analytical``: corner ``corner``, the
    covariances of :func:`analytic_covariances`, grid ``check_extent`` / ``n_check``, ``n_samples`` samples
    per point and ``seed``."""
    return analytic_mc_checks(
        np.asarray(cfg["corner"]),
        analytic_covariances(cfg),
        cfg["check_extent"],
        cfg["n_check"],
        cfg["n_samples"],
        cfg["seed"],
    )
