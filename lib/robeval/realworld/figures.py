"""Figures of Scher & Trügler (real-world robustness of individual predictions).

Sec. 4.1 (notebook 05): Fig. 3 (Iris) and Fig. 4 (Ionosphere) — adversarial vs real-world robustness at two
perturbation scales and their correlation over scales; Fig. 5 — real-world robustness with identity vs random
covariance. Sec. 4.2 (notebook 06): Fig. 6 — the fog classifier's test hours. Appendix A (notebook 07):
Figs. A.1 and A.2 — closed-form maps of both notions for the linear and the right-angle model; the right-angle
model's points at equal counterfactual distance (a cut through Fig. A.2); and the check of the Monte-Carlo
estimator against the closed forms (not in the paper).

Every function takes the data as read back from the result files of :mod:`robeval.realworld.experiments`
and :mod:`robeval.realworld.fog` and returns the matplotlib Figure; the notebooks save it with
:func:`robeval.core.publish.plotting.savefig`.
"""

from __future__ import annotations

from robeval.core.publish.plotting import DISTINCT_COLOURS, DISTINCT_MARKERS, plotter

__all__ = [
    "fig3_iris",
    "fig4_ionosphere",
    "fig5_covariance",
    "fig6_fog",
    "figA1_linear",
    "figA2_right_angle",
    "figA2_equal_distance_edge",
    "appA_mc_check",
]


def _first_run(points):
    """The rows of the first run (all rows when there is no ``run`` column), and that run's label."""
    if "run" not in points.columns:
        return points, ""
    first = points["run"].min()
    return points[points["run"] == first], f"run {first}"


def _scatter_sweep(points, sweep, scatter_scales, n_samples: int, title: str, paper_floor=None, paper_band=None):
    """Figs. 3 and 4: panels a, b scatter the two scores at two scales (first run); panel c the correlation
    over scales, one thin line per run and the mean over runs in bold. ``paper_floor`` (scale -> (value, panel,
    how it was read)) marks where the paper's panel axis starts; ``paper_band`` the range of the paper's panel c
    axis: what the published figure shows, drawn beside ours."""
    import matplotlib.pyplot as plt

    # 10.5 in at 800 px: 76 px per inch, 9-point text reads at 9.5 px (robeval.core.publish.plotting.MIN_TEXT_PX)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.8), constrained_layout=True)
    pts, label = _first_run(points)
    ok = pts["adv_success"].astype(bool)
    for ax, s, tag in zip(axes[:2], scatter_scales, "ab"):
        ax.scatter(pts.loc[ok, "adv_robustness"], pts.loc[ok, f"rw_identity_{s:g}"], s=12)
        ax.set(
            xlabel="adversarial robustness",
            ylabel="real world robustness",
            title=f"{tag}) perturbation scale: {s:g}" + (f" ({label})" if label else ""),
            xlim=(0, 1.05),
        )
        floor = (paper_floor or {}).get(float(s))
        if floor is not None:
            ax.axhline(floor[0], color="crimson", ls="--", lw=1)
            ax.text(0.02, floor[0], f" paper ({floor[1]}): axis starts above {floor[0]:g}", color="crimson", fontsize=9,
                    va="bottom", transform=ax.get_yaxis_transform())  # fmt: skip
    ax = axes[2]
    runs = sorted(sweep["run"].unique()) if "run" in sweep.columns else [None]
    for r in runs:
        sw = sweep if r is None else sweep[sweep["run"] == r]
        if len(runs) > 1:
            ax.semilogx(sw["scale"], sw["pearson"], "-", color="C0", lw=0.7, alpha=0.4)
            ax.semilogx(sw["scale"], sw["spearman"], "--", color="C1", lw=0.7, alpha=0.4)
    mean = sweep.groupby("scale")[["pearson", "spearman"]].mean().reset_index()
    suffix = f" (mean of {len(runs)} runs)" if len(runs) > 1 else ""
    ax.semilogx(mean["scale"], mean["pearson"], "o-", color="C0", ms=3, label="Pearson" + suffix)
    ax.semilogx(mean["scale"], mean["spearman"], "s--", color="C1", ms=3, label="Spearman" + suffix)
    ax.set(
        xlabel="perturbation scale real world robustness",
        ylabel="correlation real world and\nadversarial robustness",
        title=f"c) brute force n: {n_samples:.1e}",
    )
    if paper_band is not None:
        ax.axhspan(*paper_band, color="crimson", alpha=0.07, label="paper's Fig. 3c axis range")
    ax.legend(fontsize=9)
    fig.suptitle(title)
    return fig


@plotter
def fig3_iris(points, sweep, scatter_scales, n_samples: int):
    """Fig. 3: Iris (binary), random forest, CEML counterfactuals.

    points, sweep : the ``iris_points.csv`` and ``iris_sweep.csv`` tables of
        :func:`robeval.realworld.experiments.run_sec41_grid` (column ``run``); panels a, b show the first run
        (points whose attack failed are not drawn), panel c every run's curve and their mean.
    scatter_scales : the two perturbation scales of panels a and b (columns ``rw_identity_<scale>``).
    n_samples : Monte-Carlo samples per point in the sweep (panel c's title).
    """
    from robeval.realworld.published import FIG3_AXIS_FLOOR, FIG3C_AXIS

    return _scatter_sweep(
        points,
        sweep,
        scatter_scales,
        n_samples,
        "Scher & Trügler Fig. 3 — Iris (binary), random forest, CEML counterfactuals (red: the published figure)",
        paper_floor=FIG3_AXIS_FLOOR,
        paper_band=FIG3C_AXIS,
    )


@plotter
def fig4_ionosphere(points, sweep, scatter_scales, n_samples: int, attack: str):
    """Fig. 4: Ionosphere, MLP 256-256, adversarial distances from ``attack`` (e.g. ``"brendel_bethge"``).

    Arguments as :func:`fig3_iris` (the ``ionosphere_*`` tables).
    """
    return _scatter_sweep(
        points, sweep, scatter_scales, n_samples, f"Scher & Trügler Fig. 4 — Ionosphere, MLP 256-256, {attack}"
    )


@plotter
def fig5_covariance(points_by_dataset, scale_by_dataset):
    """Fig. 5: real-world robustness with identity (x) vs random (y) covariance of the same trace, first run,
    first random covariance.

    points_by_dataset : ordered mapping dataset -> its ``<dataset>_points.csv`` table; one panel each.
    scale_by_dataset : mapping dataset -> the perturbation scale shown (columns ``rw_identity_<scale>``,
        ``rw_random0_<scale>``).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(points_by_dataset), figsize=(8.5, 3.8), constrained_layout=True, squeeze=False)
    for ax, (dataset, pts), tag in zip(axes[0], points_by_dataset.items(), "abcdefgh"):
        s = scale_by_dataset[dataset]
        pts, label = _first_run(pts)
        a, b = pts[f"rw_identity_{s:g}"], pts[f"rw_random0_{s:g}"]
        ax.scatter(a, b, s=12)
        lo = min(a.min(), b.min())
        ax.plot([lo, 1], [lo, 1], "k-", lw=0.7)
        ax.set(
            xlabel="real world robustness (identity covariance)",
            ylabel="real world robustness (random covariance)",
            title=f"{tag}) {dataset}, scale {s:g}" + (f" ({label})" if label else ""),
        )
    fig.suptitle("Scher & Trügler Fig. 5: identity against random covariance of the same trace", fontsize=11)
    return fig


@plotter
def fig6_fog(points, synthetic: bool):
    """Fig. 6: (a) adversarial vs real-world robustness of the fog classifier's test hours; (b) histograms of
    both (logarithmic count axis).

    points : the ``fog_points.csv`` table of :func:`robeval.realworld.fog.run_fog_grid` (the first run is drawn;
        the adversarial score only where DeepFool succeeded).
    synthetic : whether the data are the synthetic stand-in (said in the title).
    """
    import matplotlib.pyplot as plt
    import numpy as np

    points, label = _first_run(points)
    ok = points["adv_success"].astype(bool)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    axes[0].scatter(points.loc[ok, "adv_robustness"], points.loc[ok, "rw_robustness"], s=6, alpha=0.6)
    axes[0].set(xlabel="adversarial robustness", ylabel="real world robustness", title="a)")
    bins = np.linspace(0, 1, 26)
    axes[1].hist(points.loc[ok, "adv_robustness"], bins=bins, alpha=0.6, label="adversarial robustness")
    axes[1].hist(points["rw_robustness"], bins=bins, alpha=0.6, label="real world robustness")
    axes[1].set_yscale("log")
    axes[1].set(xlabel="robustness", ylabel="count", title="b)")
    axes[1].legend()
    fig.suptitle(
        "Scher & Trügler Fig. 6 — fog classifier"
        + (f", {label}" if label else "")
        + (" (synthetic stand-in, not the paper's data)" if synthetic else "")
    )
    return fig


def _maps(m, title: str):
    """Figs. A.1/A.2: the closed-form P_r map and the counterfactual-distance map side by side."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), constrained_layout=True)
    ext = [m["x1"][0], m["x1"][-1], m["x2"][0], m["x2"][-1]]
    for ax, key, label in zip(
        axes, ["robustness", "distance"], ["real-world robustness $P_r$", "distance to closest counterfactual"]
    ):
        im = ax.imshow(m[key], origin="lower", extent=ext, aspect="equal", cmap="viridis")
        ax.set(xlabel="$x_1$", ylabel="$x_2$", title=label)
        ax.grid(False)
        fig.colorbar(im, ax=ax, shrink=0.85)
    fig.suptitle(title)
    return fig


@plotter
def figA1_linear(m):
    """Fig. A.1: linear boundary, w = (0, 1), b = 0, sigma = 1.

    m : the maps of :func:`robeval.realworld.analytic.closed_form_maps` (``map_linear.npz``): ``x1``, ``x2``
        (grid axes) and ``robustness``, ``distance`` (indexed ``[i2, i1]``).
    """
    return _maps(m, "Scher & Trügler Fig. A.1 — linear model $w\\cdot x+b>1/2$, $w=(0,1)$, $b=0$, $\\sigma=1$")


@plotter
def figA2_right_angle(m, corner):
    """Fig. A.2: right-angle model with corner ``corner`` = (a1, a2), sigma = 1.

    m : as :func:`figA1_linear` (``map_right_angle.npz``).
    """
    return _maps(
        m, f"Scher & Trügler Fig. A.2 — right-angle model, corner $a=({corner[0]:g},{corner[1]:g})$, $\\sigma=1$"
    )


@plotter
def figA2_equal_distance_edge(edge):
    """A cut through Fig. A.2: points inside the quadrant at counterfactual distance 0.5, moving away from
    the corner; P_r falls from Phi(0.5) (dotted line) towards Phi(0.5)^2 near the corner while the distance
    stays constant.

    edge : the table of :func:`robeval.realworld.summaries.equal_distance_edge` (t, distance, robustness).
    """
    import matplotlib.pyplot as plt
    from scipy import stats

    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    ax.plot(edge["t"], edge["robustness"], label="real-world robustness $P_r$")
    ax.plot(edge["t"], edge["distance"], "--", label="distance to closest counterfactual")
    ax.axhline(stats.norm.cdf(0.5), color="grey", lw=0.8, ls=":")
    ax.set(
        xlabel="distance to the other edge",
        ylabel="value",
        title="Right-angle model: points at counterfactual distance 0.5",
    )
    ax.legend()
    return fig


@plotter
def appA_mc_check(checks, n_samples: int):
    """App. A check of the Monte-Carlo estimator (not in the paper): MC P_r against the closed form per
    (model, covariance), and the histogram of z-scores against the standard normal density.

    checks : the table of :func:`robeval.realworld.summaries.analytic_mc_checks` (model, covariance,
        exact, mc, se, z); points with zero standard error are left out of the histogram.
    n_samples : Monte-Carlo samples per point (axis label).
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from scipy import stats

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    for k, ((model, cov_name), d) in enumerate(checks.groupby(["model", "covariance"])):
        colour, marker = DISTINCT_COLOURS[k % len(DISTINCT_COLOURS)], DISTINCT_MARKERS[k % len(DISTINCT_MARKERS)]
        axes[0].plot(d["exact"], d["mc"], marker, ms=3, ls="", color=colour, label=f"{model}, {cov_name}")
    axes[0].plot([0, 1], [0, 1], "k-", lw=0.7)
    axes[0].set(xlabel="closed form $P_r$", ylabel=f"Monte Carlo $P_r$ (N={n_samples})", title="MC vs closed form")
    axes[0].legend(fontsize=8)
    z = checks.loc[checks.se > 0, "z"]
    axes[1].hist(z, bins=30, density=True, alpha=0.7)
    zz = np.linspace(-4, 4, 200)
    axes[1].plot(zz, stats.norm.pdf(zz), "k-", lw=1)
    axes[1].set(xlabel="z = (MC − exact) / SE", ylabel="density", title="z-scores vs N(0,1)")
    return fig
