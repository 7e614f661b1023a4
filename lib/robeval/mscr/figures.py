"""Figures of Siedel et al. 2022 (MSCR).

2D data (notebook 01): Fig. 3 — the dataset, with the distribution of per-point class separations beside it;
Fig. 4 — the effect of the number of noisy copies k; Fig. 5 — random forest vs 1-nearest-neighbour;
Fig. 6a — MSCR vs clean accuracy. CIFAR-10 (notebook 02): the distribution of per-image class separations
behind Table 1's CIFAR-10 row; Fig. 6b — MSCR vs clean accuracy; Fig. 7 — the accuracy surface over
(eps_train, eps_test) with the per-row optima.

Every function takes the data as read back from the result files of the notebooks (tidy grid rows
summarised by :func:`robeval.mscr.protocol.mscr_summary`, :func:`robeval.mscr.protocol.accuracy_matrix` or
:func:`robeval.mscr.tables.k_effect_stats`; per-point separations of
:func:`robeval.mscr.separation.nearest_other_class_distance`) and returns the matplotlib Figure; the
notebooks save it with :func:`robeval.core.publish.plotting.savefig`.
"""

from __future__ import annotations

import numpy as np

from robeval.core.publish.plotting import plotter

__all__ = [
    "fig3_dataset",
    "fig4_effect_of_k",
    "fig5_rf_vs_1nn",
    "fig6a_tradeoff_2d",
    "fig6b_tradeoff_cifar",
    "fig7_accuracy_surface",
    "table1_cifar_separation_distribution",
]

_CLASS_COLOURS = ("tab:red", "tab:green")


@plotter
def fig3_dataset(X, y, sep, dataset: str, norm_label: str):
    """Fig. 3: the 2D dataset (left) and its per-point class separations (right, log counts).

    X : (n, 2) points; y : (n,) labels 0 and 1 (:func:`robeval.core.data.load_mscr_2d`).
    sep : (n,) every point's distance to the nearest point of the other class under the norm ``norm_label``
        ("Linf" or "L2"); the dashed line marks its minimum ``2r``.
    dataset : the dataset's name ("A", "B" or "C"), for the title.
    """
    import matplotlib.pyplot as plt

    X = np.asarray(X)
    y = np.asarray(y)
    sep = np.asarray(sep, dtype=np.float64)
    two_r = float(sep.min())
    fig, ax = plt.subplots(1, 2, figsize=(10, 4.2))
    for c, col in zip((0, 1), _CLASS_COLOURS):
        ax[0].scatter(*X[y == c].T, s=2, color=col, label=f"class {c}")
    ax[0].set(xlabel="x[0]", ylabel="x[1]", title=f"MSCR Fig. 3: 2D dataset {dataset}", aspect="equal")
    ax[0].legend(markerscale=5)
    ax[1].hist(sep, bins=60, color="0.4")
    ax[1].axvline(two_r, color="tab:red", ls="--", label=f"2r = {two_r:.4f}")
    ax[1].set(xlabel=f"{norm_label} distance to nearest other-class point", ylabel="points", yscale="log")
    ax[1].legend()
    return fig


@plotter
def fig4_effect_of_k(k_stats, eps: float):
    """Fig. 4: mean robust accuracy (top) and its standard deviation over runs (bottom) against k.

    k_stats : :func:`robeval.mscr.tables.k_effect_stats` (index k, columns ``mean`` and ``std``, percent).
    eps : eps_train = eps_test of the runs, for the title.

    The paper publishes Fig. 4 as a plot without values (and its text: k = 10 because larger k did not improve
    the robust accuracy or its deviation significantly); the figure says so instead of overlaying numbers.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(2, 1, figsize=(5.5, 5.4), sharex=True, layout="constrained")
    ax[0].plot(k_stats.index, k_stats["mean"], "o-", label="ours")
    ax[0].set(ylabel="robust accuracy [%]", title=f"MSCR Fig. 4: effect of k (eps_train = eps_test = {eps})")
    ax[1].plot(k_stats.index, k_stats["std"], "o-")
    ax[1].set(xlabel="noisy copies per point k", ylabel="std over runs [%]")
    ax[1].annotate(
        "paper: a plot without published values (k = 10 chosen)",
        (0.0, -0.42),
        xycoords="axes fraction",
        fontsize=9,
        color="0.3",
    )
    return fig


@plotter
def fig5_rf_vs_1nn(summaries, reference=None, reference_label: str = "RF, authors' sheet (1200 runs)", eps_min=None):
    """Fig. 5: clean accuracy (a) and MSCR (b) over eps_train, one line per model, with 95% CIs.

    summaries : mapping label -> :func:`robeval.mscr.protocol.mscr_summary` (rows sorted by ``eps_train``),
        e.g. ``{"RF": ..., "1-NN": ...}``; every summary covers the same eps_train levels, which label the
        evenly spaced x positions.
    reference : optionally ``(mscr, clean accuracy)``, percent, indexed by eps_train: the paper's values where it
        has them (the authors' sheet of the RF; the 1-NN line of Fig. 5 is published as a plot only), drawn as black
        triangles at the matching eps_train (to 1e-9; others are left out).
    eps_min : optionally the measured eps_min, whose tick reads "eps_min" (as in Table 2a's header).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 4.0), layout="constrained")
    for label, s in summaries.items():
        xs = np.arange(len(s))
        ax[0].errorbar(xs, s["acc_clean"], yerr=s["acc_clean_margin"], fmt="o-", capsize=3, label=label)
        ax[1].errorbar(xs, s["mscr"], yerr=s["mscr_margin"], fmt="o-", capsize=3, label=label)
    eps_train = np.asarray(next(iter(summaries.values()))["eps_train"], dtype=float)
    if reference is not None:
        for a, values in zip((ax[1], ax[0]), reference):
            match = np.isclose(np.asarray(values.index, dtype=float)[:, None], eps_train[None, :], rtol=0, atol=1e-9)
            rows = np.flatnonzero(match.any(axis=1))  # reference levels we ran, at the x position of ours
            if len(rows):
                a.plot(
                    match[rows].argmax(axis=1), np.asarray(values, dtype=float)[rows], "k^", ms=6, label=reference_label
                )
    ticks = [
        "eps_min" if eps_min is not None and np.isclose(e, eps_min, rtol=0, atol=1e-12) else f"{e:.3g}"
        for e in eps_train
    ]
    for a, t in zip(ax, ("MSCR Fig. 5a: clean accuracy [%]", "MSCR Fig. 5b: MSCR [%]")):
        a.set_xticks(np.arange(len(eps_train)), ticks, rotation=45)
        a.set(xlabel="eps_train", title=t)
        a.legend(fontsize=9)
    return fig


def _tradeoff(ax, curves, reference, reference_label: str, annotate: str | None) -> None:
    """MSCR (x) against clean accuracy (y): one error-bar line per summary in ``curves``, the published
    values as black triangles, and the eps_train of the points of ``curves[annotate]`` written beside them (where
    the labels do not overprint each other)."""
    for label, s in curves.items():
        ax.errorbar(
            s["mscr"],
            s["acc_clean"],
            xerr=s["mscr_margin"],
            yerr=s["acc_clean_margin"],
            fmt="o-",
            capsize=2,
            label=label,
        )
    if reference is not None:
        ref_mscr, ref_clean = reference
        ax.plot(np.asarray(ref_mscr), np.asarray(ref_clean), "k^--", label=reference_label)
    if annotate is not None:
        # label a point only where it does not overprint an earlier label (points crowd near eps_train = 0)
        ax.autoscale_view()
        s = curves[annotate]
        placed = []
        for e, xv, yv in zip(s["eps_train"], s["mscr"], s["acc_clean"]):
            px = ax.transData.transform((xv, yv))
            if all(np.hypot(*(px - q)) > 28 for q in placed):
                ax.annotate(f"{e:.3g}", (xv, yv), fontsize=7, xytext=(3, 3), textcoords="offset points")
                placed.append(px)
    ax.set(xlabel="MSCR [%]", ylabel="clean accuracy [%]")


@plotter
def fig6a_tradeoff_2d(summaries, main: str, reference=None):
    """Fig. 6a: MSCR vs clean accuracy of the 2D random forests, one point per eps_train.

    summaries : mapping noise mode -> :func:`robeval.mscr.protocol.mscr_summary` (drawn as "ours (<mode>)").
    main : the mode whose points are labelled with their eps_train.
    reference : ``(mscr, clean accuracy)`` per eps_train of the authors' sheet (1200 runs), or None.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    curves = {f"ours ({m})": s for m, s in summaries.items()}
    _tradeoff(ax, curves, reference, "published (1200 runs)", f"ours ({main})")
    ax.set(title="MSCR Fig. 6a: trade-off over eps_train")
    ax.legend()
    return fig


@plotter
def fig6b_tradeoff_cifar(summary, label: str, reference):
    """Fig. 6b: MSCR vs clean accuracy of the CIFAR-10 models, one point per eps_train.

    summary : :func:`robeval.mscr.protocol.mscr_summary` of our runs, drawn as ``label``.
    reference : ``(mscr, clean accuracy)`` per eps_train of the authors' CSV (WRN-28-10, 20 runs).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    _tradeoff(ax, {label: summary}, reference, "authors' CSV (WRN-28-10, 20 runs)", label)
    ax.set(title="MSCR Fig. 6b: trade-off over eps_train (CIFAR-10)")
    ax.legend(fontsize=8)
    return fig


def _surface(ax, mean, title: str) -> None:
    """One accuracy surface: evenly spaced eps_train columns, eps_test rows; red dots mark each row's best
    column, the white line the diagonal eps_train = eps_test (interpolated along eps_test)."""
    etr = np.asarray(mean.columns, dtype=float)
    ete = np.asarray(mean.index, dtype=float)
    acc = mean.to_numpy(dtype=float)
    TR, TE = np.meshgrid(np.arange(len(etr)), ete)
    ax.plot_surface(TR, TE, acc, cmap="viridis", alpha=0.8)
    ax.scatter(acc.argmax(axis=1), ete, acc.max(axis=1), color="red", s=12, depthshade=False)
    diag_j = np.arange(len(etr))
    ax.plot(diag_j, etr, [np.interp(e, ete, acc[:, j]) for j, e in enumerate(etr)], color="white", lw=2)
    ax.set_xticks(np.arange(len(etr)), [f"{e:.3g}" for e in etr], fontsize=8)
    ax.set(xlabel="eps_train", ylabel="eps_test", zlabel="accuracy [%]", title=title)
    ax.view_init(elev=28, azim=-135)  # clean corner (0, 0) in front, as in the paper's Fig. 7


@plotter
def fig7_accuracy_surface(ours, reference, ours_label: str, reference_label: str = "authors' CSV (WRN-28-10)"):
    """Fig. 7: accuracy [%] over (eps_train, eps_test) as two 3-D surfaces, ours (left) and the authors' (right).

    ours, reference : accuracy matrices (index eps_test ascending, columns eps_train), e.g. the ``mean`` of
        :func:`robeval.mscr.protocol.accuracy_matrix` and the CSV's ``acc`` relabelled with the corrected
        eps_test levels.
    """
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(9, 4.4))  # 9 in at 800 px: the 8-point eps_train ticks read at >= 9 px
    _surface(fig.add_subplot(1, 2, 1, projection="3d"), ours, ours_label)
    _surface(fig.add_subplot(1, 2, 2, projection="3d"), reference, reference_label)
    fig.suptitle(
        "MSCR Fig. 7: accuracy over (eps_train, eps_test); red dots: each eps_test row's best eps_train; "
        "white line: eps_train = eps_test",
        fontsize=10,
    )
    return fig


@plotter
def table1_cifar_separation_distribution(sep, two_r_paper: float):
    """Table 1 (CIFAR-10 row) as a distribution: per-image L_inf distance to the nearest image of another
    class (bins of 2/255), with this set's minimum ``2r`` and the paper's ``2r`` on all 60000 images.

    sep : (n,) per-image separations in [0, 1] (``per_point_separation.csv``); two_r_paper : the paper's 2r.
    """
    import matplotlib.pyplot as plt

    sep = np.asarray(sep, dtype=np.float64)
    two_r = float(sep.min())
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(sep, bins=np.arange(0, 1.0001, 2 / 255), color="0.4")
    ax.axvline(two_r, color="tab:red", ls="--", label=f"2r here = {two_r:.4f}")
    ax.axvline(two_r_paper, color="k", ls=":", label=f"2r full CIFAR-10 (paper) = {two_r_paper:.4f}")
    ax.set(
        xlabel="L_inf distance to the nearest other-class image",
        ylabel="images",
        title=f"MSCR Table 1: CIFAR-10 per-image class separation ({len(sep)} images)",
    )
    ax.legend()
    return fig


ANNOT_PT = 9.0  # the cell numbers of the heatmaps, in points (>= 9 px at page width: robeval.core.publish.plotting.MIN_TEXT_PX)


@plotter
def accuracy_heatmaps(panels: dict, title: str, decimals: int = 2, shared_scale: bool = True):
    """Table 2a/2b as heatmaps: accuracy [%] per (eps_test row, eps_train column), one panel per matrix of
    ``panels`` (label -> DataFrame indexed by eps_test with eps_train columns, e.g. ours and the published
    sheet); each row's best eps_train is boxed (the optima the paper discusses). ``shared_scale``: one colour
    scale for all panels (else one per panel, for models of very different accuracy)."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.patches import Rectangle

    mats = list(panels.values())
    lo = min(float(np.nanmin(m.to_numpy())) for m in mats)
    hi = max(float(np.nanmax(m.to_numpy())) for m in mats)
    # two panels to a row: at an 800-px page column the cell numbers stay >= 9 px (ANNOT_PT points on ~10.5 inches)
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 4.8 * nrows), layout="constrained", squeeze=False)
    axes = grid.reshape(1, -1)
    for ax in axes[0][len(panels) :]:
        ax.set_visible(False)
    for i, (ax, (label, m)) in enumerate(zip(axes[0], panels.items())):
        if not shared_scale:
            lo, hi = float(np.nanmin(m.to_numpy())), float(np.nanmax(m.to_numpy()))
        sns.heatmap(
            m,
            ax=ax,
            vmin=lo,
            vmax=hi,
            cmap="viridis",
            annot=True,
            fmt=f".{decimals}f",
            annot_kws={"fontsize": ANNOT_PT},
            cbar=i % ncols == ncols - 1 or i == len(panels) - 1 or not shared_scale,
            cbar_kws={"label": "accuracy [%]"},
            xticklabels=[f"{e:.3g}" for e in m.columns],
            yticklabels=[f"{e:.3g}" for e in m.index],
        )
        for r, j in enumerate(np.nanargmax(m.to_numpy(), axis=1)):
            ax.add_patch(Rectangle((j, r), 1, 1, fill=False, edgecolor="white", lw=2))
        ax.set(title=label, xlabel="eps_train", ylabel="eps_test" if i % ncols == 0 else "")
        ax.tick_params(axis="y", labelrotation=0, labelsize=9)
        ax.tick_params(axis="x", labelrotation=45, labelsize=9)
    fig.suptitle(f"{title} (boxed: the best eps_train of each row)")
    return fig


@plotter
def standardised_difference_heatmaps(panels: dict, title: str, tolerance_note: str = "", limit: float = 6.0):
    """Table 2a (or 2b) as the standardised differences the whole-table verdict rests on: per cell
    z = (ours − published) / se, se the combined uncertainty of our runs and the sheet's (ledger rows ``T2a_acc``),
    one panel per reading of the noise (label -> DataFrame indexed by eps_test with eps_train columns). A
    diverging scale clipped at ± ``limit``; each cell printed with its z (one decimal)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 5.0), layout="constrained", squeeze=False)
    for i, (ax, (label, z)) in enumerate(zip(axes[0], panels.items())):
        sns.heatmap(
            z.clip(-limit, limit),
            ax=ax,
            vmin=-limit,
            vmax=limit,
            center=0.0,
            cmap="RdBu_r",
            annot=z.round(1),
            fmt="",
            annot_kws={"fontsize": ANNOT_PT},
            cbar=i == len(panels) - 1,
            cbar_kws={"label": f"z = (ours − published) / se  (clipped at ±{limit:g})"},
            xticklabels=[str(e) for e in z.columns],
            yticklabels=[str(e) for e in z.index],
        )
        ax.set(title=label, xlabel="eps_train", ylabel="eps_test" if i == 0 else "")
        ax.tick_params(axis="y", labelrotation=0, labelsize=9)
        ax.tick_params(axis="x", labelrotation=45, labelsize=9)
    fig.suptitle(title + (f"\n{tolerance_note}" if tolerance_note else ""), fontsize=11)
    return fig
