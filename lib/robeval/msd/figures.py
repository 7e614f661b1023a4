"""Figures of Mintun, Kirillov & Xie (2021), *On interaction between augmentations and corruptions*.

Sec. 4 (notebook 03): Fig. 2b — MMD, MSD and error on impulse noise for the impulse-noise/motion-blur
mixture toy; Fig. 3 — MSD vs error over the augmentation powerset for six corruptions; Fig. 5 — the same for
every CIFAR-10-C corruption with the published methods (AutoAugment, Patch Gaussian; AugMix = the full
scheme) as extra points; App. B — MMD vs error; Fig. 4 — schemes with solarize / translate x highlighted on
impulse noise and motion blur; Fig. 1 — single-op schemes on motion blur.
Sec. 5 (notebook 04): Fig. 6 — every CIFAR-10-C and CIFAR-10-C-bar corruption at every severity; Table 1 —
mean error on CIFAR-10-C vs CIFAR-10-C-bar per augmentation method (ours and the paper's, as bars); the
construction's distance shift per candidate corruption (App. D, as bars).

Every function takes the data as read back from the result files of :mod:`robeval.msd.powerset`,
:mod:`robeval.msd.tables` and :mod:`robeval.msd.cbar` and returns the matplotlib Figure; the notebooks save
it with :func:`robeval.core.publish.plotting.savefig`.
"""

from __future__ import annotations

import math

import numpy as np

from robeval.core.publish.plotting import plotter
from robeval.msd.cbar import mosaic
from robeval.msd.published import PAPER_N_ABOVE_THRESHOLD, PAPER_SPEARMAN_THRESHOLD
from robeval.transforms import augmentations
from robeval.transforms.corruptions import C_CORRUPTIONS, CBAR_CORRUPTIONS

__all__ = [
    "FIG3_CORRUPTIONS",
    "FIG4_CORRUPTIONS",
    "FIG4_OPS",
    "appB_bn_vs_retrain",
    "appB_mmd_vs_error",
    "cbar_construction_shifts",
    "fig1_single_ops_motion_blur",
    "fig2b_mixture_toy",
    "fig3_msd_vs_error",
    "fig4_solarize_translate",
    "fig5_powerset_all_corruptions",
    "fig6_corruption_grid",
    "table1_c_vs_cbar",
]

# the corruptions of the paper's Fig. 3 (and of our App. B panel)
FIG3_CORRUPTIONS = ("gaussian_noise", "motion_blur", "snow", "contrast", "pixelate", "brightness")
# Fig. 4: which op is highlighted (rows) on which corruption (columns)
FIG4_OPS = ("solarize", "translate_x")
FIG4_CORRUPTIONS = ("impulse_noise", "motion_blur")


def _scatter(ax, avg, rho, corruption: str, distance: str = "msd", color_op: str | None = None, show_methods=False):
    """One panel of Figs. 3-5 / App. B: ``distance`` vs error (%) of the powerset schemes on ``corruption``.

    Colour = number of ops; with ``color_op`` the schemes with / without that op in vermillion / grey instead; with
    ``show_methods`` the full nine-op scheme (AugMix) and the published methods (``family == "method"``) are
    marked. The title carries the Spearman correlation ``rho.loc[corruption, "rho_<distance>"]``.
    """
    power = avg[avg["family"] == "powerset"]
    methods = avg[avg["family"] == "method"]
    g = power[power["corruption"] == corruption]
    if color_op is None:
        ax.scatter(g[distance], 100 * g["error"], s=14, c=g["n_ops"], cmap="viridis", vmin=0, vmax=9)
        if show_methods:
            full = g[g["n_ops"] == len(augmentations.BASE_OPS)]
            if len(full):
                ax.scatter(full[distance], 100 * full["error"], s=60, marker="*", c="C3", label="AugMix")
            for k, (_, m) in enumerate(methods[methods["corruption"] == corruption].iterrows()):
                ax.scatter(m[distance], 100 * m["error"], s=50, marker="^Dv"[k % 3], c=f"C{k + 4}", label=m["scheme"])
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=9)
    else:
        has = g["scheme"].map(lambda s: color_op in augmentations.parse_scheme(s))
        ax.scatter(g.loc[~has, distance], 100 * g.loc[~has, "error"], s=14, c="0.7", label=f"without {color_op}")
        ax.scatter(g.loc[has, distance], 100 * g.loc[has, "error"], s=14, c="C3", label=f"with {color_op}")
    r = rho.loc[corruption, f"rho_{distance}"]
    ax.set_title(f"{corruption.replace('_', ' ')}  (Spearman ρ = {r:.2f})", fontsize=10)
    ax.set_xlabel(distance.upper(), fontsize=9)
    ax.set_ylabel("error (%)", fontsize=9)


def _scatter_row(avg, rho, corruptions, distance: str, title: str):
    """Panels of :func:`_scatter`, three to a row (legible at page width), one colour bar for the number of ops."""
    import matplotlib.pyplot as plt
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    ncols = min(3, len(corruptions))
    nrows = -(-len(corruptions) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(11, 3.3 * nrows), squeeze=False, constrained_layout=True)
    for k, (ax, c) in enumerate(zip(axes.flat, corruptions)):
        _scatter(ax, avg, rho, c, distance=distance)
        if k % ncols:
            ax.set_ylabel("")
    for ax in list(axes.flat)[len(corruptions) :]:
        ax.set_visible(False)
    bar = fig.colorbar(ScalarMappable(Normalize(0, 9), cmap="viridis"), ax=axes.ravel().tolist(), shrink=0.8, pad=0.01)
    bar.set_label("number of ops in the scheme", fontsize=9)
    fig.suptitle(title, fontsize=11)
    return fig


@plotter
def fig2b_mixture_toy(toy):
    """Fig. 2b: MMD and MSD to impulse noise (left axis) and the error on impulse noise (right axis) against
    the impulse-noise fraction of the impulse-noise/motion-blur augmentation mixture.

    toy : :func:`robeval.msd.tables.toy_summary` of the result files (fraction, mmd, msd, error_impulse_noise;
        fractions and errors in [0, 1]; the error is NaN at fractions without trained models).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.4))
    pct = 100 * toy["fraction"]
    ax.plot(pct, toy["mmd"], "o-", label="MMD")
    ax.plot(pct, toy["msd"], "s-", label="MSD")
    ax.set_xlabel("impulse-noise fraction of the augmentation (%)")
    ax.set_ylabel("distance to impulse noise (feature units)")
    ax2 = ax.twinx()
    trained = toy[toy["error_impulse_noise"].notna()]
    ax2.plot(100 * trained["fraction"], 100 * trained["error_impulse_noise"], "^--", color="C3", label="error")
    ax2.set_ylabel("error on impulse noise (%)", color="C3")
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], loc="upper center")
    ax.set_title("Mintun et al. Fig. 2b: augmentation = impulse noise / motion blur mixture")
    return fig


@plotter
def fig3_msd_vs_error(avg, rho, corruptions=FIG3_CORRUPTIONS):
    """Fig. 3: MSD vs corruption error over the augmentation powerset, one panel per corruption (colour =
    number of ops in the scheme).

    avg : per (scheme, corruption) means over severities (:func:`robeval.msd.tables.average_over_severities`
        of ``powerset_runs.csv``): scheme, family, n_ops, corruption, error, msd, mmd.
    rho : the ``spearman.csv`` table (:func:`robeval.msd.tables.spearman_table`) indexed by corruption.
    corruptions : the panels (default: the paper's six).
    """
    above = int((rho["rho_msd"] > PAPER_SPEARMAN_THRESHOLD).sum())
    return _scatter_row(
        avg,
        rho,
        corruptions,
        "msd",
        "Mintun et al. Fig. 3: MSD vs corruption error over the augmentation powerset\n"
        f"ours (batch-norm adaptation): ρ > {PAPER_SPEARMAN_THRESHOLD:g} for {above} of {len(rho)} corruptions; paper (Sec. 4.2, retrained "
        f"networks): {PAPER_N_ABOVE_THRESHOLD} of 15",
    )


@plotter
def appB_mmd_vs_error(avg, rho, corruptions=FIG3_CORRUPTIONS):
    """App. B: as :func:`fig3_msd_vs_error` with the MMD instead of the MSD (the paper: MMD correlates poorly with
    the error; each panel's title gives our Spearman rho, so the figure shows whether our runs agree)."""
    return _scatter_row(
        avg, rho, corruptions, "mmd", "Mintun et al. App. B: MMD vs corruption error (the paper: MMD correlates poorly)"
    )


@plotter
def appB_bn_vs_retrain(bn_avg, retrain_avg):
    """App. B side by side: per retrained scheme and corruption, the error after retraining (x) and after
    batch-norm adaptation of the base network (y), one colour per scheme, with the diagonal.

    bn_avg, retrain_avg : :func:`robeval.msd.tables.average_over_severities` of ``powerset_bn.csv`` and
        ``powerset_retrain.csv`` (scheme, corruption, error in [0, 1]).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 4.2), constrained_layout=True)
    r = retrain_avg[retrain_avg["corruption"] != "clean"]
    b = bn_avg[(bn_avg["corruption"] != "clean") & (bn_avg["family"] == "powerset")]
    both = r.merge(b, on=["scheme", "corruption"], suffixes=("_retrain", "_bn"))
    for k, (scheme, g) in enumerate(both.groupby("scheme", sort=False)):
        ax.scatter(100 * g["error_retrain"], 100 * g["error_bn"], s=16, color=f"C{k % 10}", label=scheme)
    lim = [
        100 * min(both["error_retrain"].min(), both["error_bn"].min()) - 2,
        100 * max(both["error_retrain"].max(), both["error_bn"].max()) + 2,
    ]
    ax.plot(lim, lim, "k--", lw=1)
    ax.set(xlabel="error after retraining (%)", ylabel="error after batch-norm adaptation (%)")
    ax.set_title("App. B vs Sec. 4: the same schemes, two ways", fontsize=10)
    ax.legend(fontsize=6)
    return fig


@plotter
def fig5_powerset_all_corruptions(avg, rho, corruptions):
    """Fig. 5: MSD vs error for every corruption (three panels a row, legible at page width): the powerset cloud,
    the full nine-op scheme (AugMix, star) and the published methods of ``avg`` (rows with ``family == "method"``).

    Arguments as :func:`fig3_msd_vs_error`; ``corruptions`` are all the corruptions of the run.
    """
    import matplotlib.pyplot as plt

    corruptions = list(corruptions)
    nrows = max(1, math.ceil(len(corruptions) / 3))
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    fig, axes = plt.subplots(nrows, 3, figsize=(10.5, 3.2 * nrows), squeeze=False, constrained_layout=True)
    for ax, c in zip(axes.ravel(), corruptions):
        _scatter(ax, avg, rho, c, show_methods=True)
    for ax in axes.ravel()[len(corruptions) :]:
        ax.set_visible(False)
    bar = fig.colorbar(
        ScalarMappable(Normalize(0, 9), cmap="viridis"), ax=axes.ravel().tolist(), shrink=0.5, pad=0.01, aspect=40
    )
    bar.set_label("number of ops in the scheme", fontsize=9)
    fig.suptitle(
        f"Mintun et al. Fig. 5: MSD vs error for all {len(corruptions)} CIFAR-10-C corruptions "
        "(powerset cloud + published methods)"
    )
    return fig


@plotter
def fig4_solarize_translate(avg, rho, ops=FIG4_OPS, corruptions=FIG4_CORRUPTIONS):
    """Fig. 4: MSD vs error with the schemes that include op ``ops[i]`` (row i) highlighted, on corruption
    ``corruptions[j]`` (column j). Arguments as :func:`fig3_msd_vs_error`."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(ops), len(corruptions), figsize=(4 * len(corruptions), 3.2 * len(ops)), squeeze=False)
    for i, op in enumerate(ops):
        for j, c in enumerate(corruptions):
            _scatter(axes[i, j], avg, rho, c, color_op=op)
            axes[i, j].legend(fontsize=7)
    fig.suptitle("Mintun et al. Fig. 4: MSD vs error, schemes with the op highlighted")
    fig.tight_layout()
    return fig


@plotter
def fig1_single_ops_motion_blur(single):
    """Fig. 1: motion-blur error of the empty scheme and of every single-op scheme (blue geometric, orange
    colour, grey baseline).

    single : :func:`robeval.msd.tables.single_op_table` on motion blur (scheme, kind, error in [0, 1]).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    colors = single["kind"].map({"baseline": "0.4", "geometric": "C0", "color": "C1"})
    ax.bar(single["scheme"], 100 * single["error"], color=colors)
    ax.set_ylabel("motion-blur error (%)")
    ax.tick_params(axis="x", rotation=45)
    ax.set_title("Mintun et al. Fig. 1: single-op schemes (blue geometric, orange colour, grey baseline)")
    return fig


@plotter
def fig6_corruption_grid(grid, names, c_names=C_CORRUPTIONS):
    """Fig. 6 / App. F: every corruption (rows) as clean image and severities 1-5 (columns).

    grid : uint8 (len(names), 6, H, W, 3), the ``grid`` of ``corruption_grid.npz``
        (:func:`robeval.msd.cbar.corruption_grid`).
    names : the rows' corruption names, the CIFAR-10-C ones (``c_names``) first; a line separates them from
        the CIFAR-10-C-bar ones and every label says which benchmark the row belongs to.
    """
    import matplotlib.pyplot as plt

    grid = np.asarray(grid)
    names = [str(n) for n in names]
    picture = mosaic(grid)
    cell_px = grid.shape[2] + 2
    fig, ax = plt.subplots(figsize=(5.5, 0.36 * len(names)), constrained_layout=True)
    ax.imshow(picture, interpolation="nearest")
    ax.set_xticks(np.arange(6) * cell_px + cell_px / 2 - 1, ["clean"] + [f"sev {s}" for s in range(1, 6)], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(
        np.arange(len(names)) * cell_px + cell_px / 2 - 1,
        [f"{n.replace('_', ' ')} ({'C' if n in c_names else 'C-bar'})" for n in names],
        fontsize=7,
    )
    ax.grid(False)
    ax.axhline(sum(n in c_names for n in names) * cell_px - 1, color="k", lw=1.5)
    ax.set_title("Mintun et al. Fig. 6 / App. F: every corruption at severities 1-5", fontsize=10)
    return fig


@plotter
def table1_c_vs_cbar(summary, ours_title: str):
    """Table 1 (CIFAR-10) as bars: mean corruption error on CIFAR-10-C and CIFAR-10-C-bar per method, ours
    (left, titled ``ours_title``) and the paper's (right, WRN-40-2).

    summary : the ``table1_summary.csv`` table (:func:`robeval.msd.cbar.summarise_table1`) indexed by method,
        with c_err, cbar_err, paper_c_err, paper_cbar_err in %.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), constrained_layout=True)
    xpos = np.arange(len(summary))
    panels = [("c_err", "cbar_err", ours_title), ("paper_c_err", "paper_cbar_err", "paper (WRN-40-2)")]
    for ax, (c_col, cb_col, title) in zip(axes, panels):
        ax.bar(xpos - 0.2, summary[c_col], 0.4, label="CIFAR-10-C")
        ax.bar(xpos + 0.2, summary[cb_col], 0.4, label="CIFAR-10-C-bar")
        ax.set_xticks(xpos, summary.index, rotation=15)
        ax.set(ylabel="mean corruption error (%)", title=title)
        ax.legend(loc="lower right", fontsize=9)
    fig.suptitle("Mintun et al. Table 1: mean corruption error on CIFAR-10-C and CIFAR-10-C-bar")
    return fig


@plotter
def cbar_construction_shifts(shifts, n_top: int, published=CBAR_CORRUPTIONS):
    """App. D / Sec. 5: distance shift from CIFAR-10-C of every candidate corruption (± its std over runs),
    in the order of ``shifts`` (largest first); vermillion bars are in the published CIFAR-10-C-bar, the dashed
    line closes our top ``n_top``.

    shifts : the ``construction_shifts.csv`` table (``result["shifts"]`` of :func:`robeval.msd.cbar.construct`):
        corruption, shift, shift_std.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    # 9.5 in at 800 px: 84 px per inch, the 8.5-point names read at 9.9 px (robeval.core.publish.plotting.MIN_TEXT_PX)
    fig, ax = plt.subplots(figsize=(9.5, 4.2), constrained_layout=True)
    inside, outside = "#D55E00", "#0072B2"  # vermillion / blue (Okabe & Ito), named in the legend, not the title
    colors = [inside if c in published else outside for c in shifts["corruption"]]
    ax.bar(np.arange(len(shifts)), shifts["shift"], yerr=shifts["shift_std"], color=colors)
    ax.axvline(n_top - 0.5, color="k", ls="--", lw=1)
    ax.set_xticks(np.arange(len(shifts)), shifts["corruption"].str.replace("_", " "), fontsize=8.5)
    ax.tick_params(axis="x", rotation=60)
    for label in ax.get_xticklabels():  # each name ends under its bar
        label.set(ha="right", rotation_mode="anchor")
    ax.set(
        ylabel="distance shift (std units)",
        title=f"Distance shift from CIFAR-10-C per candidate (our top {n_top} left of the dashes)",
    )
    ax.legend(
        [Patch(color=inside), Patch(color=outside)],
        ["in the published CIFAR-10-C-bar", "not in it"],
        fontsize=9,
        loc="upper right",
    )
    return fig
