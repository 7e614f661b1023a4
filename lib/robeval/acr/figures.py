"""Figures of Sun et al. (ICML 2025), *Average Certified Radius is a Poor Metric for Randomized Smoothing*.

Notebook 08 (the authors' published certification files): Fig. 6 — certified accuracy against the radius on
CIFAR-10 (:func:`fig6_certified_accuracy_cifar10`); Figs. 3/9 — the ECDF of ``p_A`` on CIFAR-10, recomputed
and published (:func:`fig9_ecdf_cifar10`); Fig. 11 — the same on ImageNet (:func:`fig11_ecdf_imagenet`);
Fig. 8 / Appendix B.1 — certified accuracy under a cheaper budget derived from the ECDF
(:func:`fig8_appendix_b_budget`); Fig. 2 — the certified radius and its slope against ``p_A``
(:func:`fig2_radius_and_slope`); the budget toy example of Sections 4.1/4.2 (:func:`sec41_toy_budget`).
Notebook 09 (our own randomized-smoothing training): Table 5's variants as ECDF and certified-accuracy curves
(:func:`table5_ecdf_and_certified_accuracy`).

Every function takes the data as read back from the result files of :mod:`robeval.acr.metrics`,
:mod:`robeval.acr.ecdf`, :mod:`robeval.acr.theory` and :mod:`robeval.acr.training`, and returns the
matplotlib Figure; the notebooks save it with :func:`robeval.core.publish.plotting.savefig`.
"""

from __future__ import annotations

from robeval.acr.published import METHOD_NAMES, METHODS
from robeval.core.publish.plotting import DISTINCT_COLOURS, DISTINCT_DASHES, DISTINCT_MARKERS, plotter

__all__ = [
    "fig2_radius_and_slope",
    "fig6_certified_accuracy_cifar10",
    "fig8_appendix_b_budget",
    "fig9_ecdf_cifar10",
    "fig11_ecdf_imagenet",
    "sec41_toy_budget",
    "table5_ecdf_and_certified_accuracy",
]

SIGMAS = (0.25, 0.5, 1.0)
ECDF_YLABEL = "$P(p_A \\geq x$, correct$)$"
# the baseline (Gaussian training) and the paper's own method are drawn thicker than the other methods
HIGHLIGHTED = ("gaussian", "ours")


def _line_width(method: str) -> float:
    return 2.2 if method in HIGHLIGHTED else 1.2


def _styles(methods) -> dict:
    """Colour and dash of every method (``{method: {"color", "ls"}}``), the same in every panel, even where a method
    has no file, and the same in Figs. 6, 8, 9 and 11: the baseline (Gaussian) black and the paper's method
    vermillion, both solid and thick; the others each with a colour and a dash of their own (seven lines differ in
    colour and in dash, for every colour vision and in print)."""
    fixed = {"gaussian": "#000000", "ours": "#D55E00"}
    others = [c for c in DISTINCT_COLOURS if c not in fixed.values()]
    styles, k = {}, 0
    for m in methods:
        if m in fixed:
            styles[m] = {"color": fixed[m], "ls": "-"}
        else:
            styles[m] = {"color": others[k % len(others)], "ls": DISTINCT_DASHES[1 + k % (len(DISTINCT_DASHES) - 1)]}
            k += 1
    return styles


def _sigma_panels(n: int):
    import matplotlib.pyplot as plt

    # 10.5 in at 800 px: 76 px per inch, so the 9-point legend reads at 9.5 px (robeval.core.publish.plotting.MIN_TEXT_PX)
    fig, axes = plt.subplots(1, n, figsize=(10.5, 3.6), sharey=True, squeeze=False, layout="constrained")
    return fig, list(axes[0])


@plotter
def fig6_certified_accuracy_cifar10(curves, methods=METHODS, names=METHOD_NAMES, sigmas=SIGMAS):
    """Fig. 6: certified accuracy (percent) against the radius, one panel per ``sigma`` (CIFAR-10).

    curves : the ``fig6_curves.csv`` table of :func:`robeval.acr.metrics.certified_accuracy_curves`
        (columns ``sigma``, ``method``, ``radius``, ``certified_accuracy`` as a fraction).
    methods, names : the methods to draw, in order, and their legend labels.
    sigmas : one panel per noise level; the x-axis of each runs from 0 to ``4 sigma``.
    """
    fig, axes = _sigma_panels(len(sigmas))
    styles = _styles(methods)
    for ax, s in zip(axes, sigmas):
        for m in methods:
            c = curves[(curves.sigma == s) & (curves.method == m)]
            ax.plot(c.radius, 100 * c.certified_accuracy, label=names[m], lw=_line_width(m), **styles[m])
        ax.set_title(f"CIFAR-10, $\\sigma$={s}")
        ax.set_xlabel("radius $r$")
        ax.set_xlim(0, 4 * s)
    axes[0].set_ylabel("certified accuracy (%)")
    axes[-1].legend(fontsize=9, handlelength=3)
    fig.suptitle("Sun et al. Fig. 6: certified accuracy against the radius (the authors' certification files)")
    return fig


def _ecdf_panels(curves, methods, names, sigmas, dataset: str, published_every: int | None):
    fig, axes = _sigma_panels(len(sigmas))
    styles = _styles(methods)
    for ax, s in zip(axes, sigmas):
        for m in methods:
            c = curves[(curves.sigma == s) & (curves.method == m)]
            if not len(c):
                continue
            ax.plot(c.x, c.y, label=names[m], lw=_line_width(m), **styles[m])
            if published_every:
                ax.plot(c.x[::published_every], c.published[::published_every], "o", ms=3, color=styles[m]["color"])
        ax.set_title(f"{dataset}, $\\sigma$={s}")
        ax.set_xlabel("$x$")
    axes[0].set_ylabel(ECDF_YLABEL)
    axes[-1].legend(fontsize=9, handlelength=3)
    return fig


@plotter
def fig9_ecdf_cifar10(curves, methods=METHODS, names=METHOD_NAMES, sigmas=SIGMAS, published_every: int = 25):
    """Figs. 3 and 9: the ECDF ``P(p_A >= x, correct)`` on CIFAR-10, one panel per ``sigma``.

    curves : the ``ecdf_cifar10.csv`` table of :func:`robeval.acr.ecdf.ecdf_curves` (columns ``x``, ``y``,
        ``sigma``, ``method`` and ``published``, the authors' ECDF files on the same grid).
    methods, names : the methods to draw, in order, and their legend labels.
    published_every : the published ECDF is drawn as dots at every ``published_every``-th grid point.

    Lines are recomputed from the certification files, dots are the published ECDF files.
    """
    fig = _ecdf_panels(curves, methods, names, sigmas, "CIFAR-10", published_every)
    fig.suptitle(
        "Sun et al. Figs. 3 and 9: the ECDF of $p_A$ on CIFAR-10 (lines: recomputed from the certification files; "
        "dots: the published ECDF files)",
        fontsize=10,
    )
    return fig


@plotter
def fig11_ecdf_imagenet(curves, methods=METHODS, names=METHOD_NAMES, sigmas=SIGMAS):
    """Fig. 11: the ECDF ``P(p_A >= x, correct)`` on ImageNet, one panel per ``sigma``.

    curves : the ``ecdf_imagenet.csv`` table of :func:`robeval.acr.ecdf.ecdf_curves` (columns ``x``, ``y``,
        ``sigma``, ``method``); a method without a file at some ``sigma`` is left out of that panel, and keeps
        its colour in the others (the colours of Figs. 6 and 9).
    methods, names : the methods to draw, in order, and their legend labels.
    """
    fig = _ecdf_panels(curves, methods, names, sigmas, "ImageNet", None)
    fig.suptitle("Sun et al. Fig. 11: the ECDF of $p_A$ on ImageNet (recomputed from the certification files)")
    return fig


@plotter
def fig8_appendix_b_budget(
    curves, methods, sigma: float, n: int, alpha: float, cheap_n: int, cheap_alpha: float, names=METHOD_NAMES
):
    """Fig. 8 / Appendix B.1: certified accuracy at the files' budget and, from the ECDF, at a cheaper one.

    curves : the ``appendixB_curves.csv`` table of :func:`robeval.acr.ecdf.appendix_b_curves` (columns
        ``method``, ``budget`` (``"N=<n>"``), ``rule`` (``"certification file"``, ``"plugin"``,
        ``"binomial"``), ``radius``, ``certified_accuracy`` as a fraction).
    methods, names : the methods to draw, in order, and their legend labels.
    sigma : the noise level of the curves (y-axis label).
    n, alpha : the budget of the certification files (left panel).
    cheap_n, cheap_alpha : the cheaper budget (right panel: plug-in rule solid, binomial expectation dashed).
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
    styles = _styles(list(METHODS) + [m for m in methods if m not in METHODS])  # Fig. 6's colour of each method
    for m in methods:
        colour = styles[m]["color"]
        a = curves[(curves.method == m) & (curves.budget == f"N={n}") & (curves.rule == "certification file")]
        axes[0].plot(a.radius, 100 * a.certified_accuracy, color=colour, lw=_line_width(m), label=names[m])
        b = curves[(curves.method == m) & (curves.budget == f"N={cheap_n}")]
        plugin, binomial = b[b.rule == "plugin"], b[b.rule == "binomial"]
        axes[1].plot(plugin.radius, 100 * plugin.certified_accuracy, color=colour, lw=_line_width(m))
        axes[1].plot(binomial.radius, 100 * binomial.certified_accuracy, "--", color=colour, lw=_line_width(m))
    axes[0].set_title(f"certified with N={n}, alpha={alpha} (files)")
    axes[1].set_title(f"from the ECDF: N'={cheap_n}, alpha'={cheap_alpha}")
    for ax in axes:
        ax.set_xlabel("radius")
    axes[0].legend(fontsize=9)
    rules = [Line2D([], [], color="0.3", ls="-"), Line2D([], [], color="0.3", ls="--")]
    axes[1].legend(rules, ["plug-in rule", "binomial expectation"], fontsize=9, handlelength=3)
    axes[0].set_ylabel(f"certified accuracy (%), sigma={sigma}")
    fig.suptitle("Sun et al. Fig. 8 / App. B.1: certified accuracy at a cheaper budget, read from the ECDF")
    return fig


@plotter
def fig2_radius_and_slope(curves, p_max: float):
    """Fig. 2: the certified radius ``R = Phi^{-1}(p_A)`` (``sigma = 1``) and its slope ``dR/dp_A`` (log scale).

    curves : the ``fig2_curves.csv`` table of :func:`robeval.acr.theory.fig2_curves` (columns ``p``,
        ``radius``, ``dradius_dp``).
    p_max : the largest certifiable ``p_A`` at the budget (dotted vertical line in both panels).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
    ax[0].plot(curves.p, curves.radius)
    ax[0].set_xlabel("$p_A$")
    ax[0].set_ylabel("$R=\\Phi^{-1}(p_A)$  ($\\sigma=1$)")
    ax[1].semilogy(curves.p, curves.dradius_dp)
    ax[1].set_xlabel("$p_A$")
    ax[1].set_ylabel("$dR/dp_A$")
    for a in ax:
        a.axvline(p_max, ls=":", c="k")
    fig.suptitle(
        "Sun et al. Fig. 2: the certified radius and its slope against $p_A$ (dotted: the largest certifiable $p_A$)"
    )
    return fig


@plotter
def sec41_toy_budget(scan, p: float):
    """Sections 4.1/4.2 toy example: ACR of the trivial classifier and of a classifier with ``p_A = p``
    everywhere, against the certification budget ``N`` (log scale).

    scan : the ``toy_scan.csv`` table of :func:`robeval.acr.theory.budget_scan` (columns ``N``,
        ``acr_trivial``, ``acr_constant``, the latter the expectation over ``n_A ~ Bin(N, p)``).
    p : ``p_A`` of the non-trivial classifier (legend label).
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.semilogx(scan.N, scan.acr_trivial, label="trivial classifier")
    ax.semilogx(scan.N, scan.acr_constant, label=f"$p_A$={p} everywhere (expected over $n_A$)")
    ax.set_xlabel("certification budget $N$")
    ax.set_ylabel("ACR")
    ax.set_title("Sun et al. Sec. 4.1/4.2: ACR against the budget N (toy example)")
    ax.legend()
    return fig


@plotter
def table5_ecdf_and_certified_accuracy(ecdf, table5, n=None, alpha=None, paper=None, sequential=None, note=""):
    """Table 5 as curves: the ECDF of ``p_A`` and the certified accuracy of every trained variant, beside the
    paper's printed Table 5.

    ecdf : the ``ecdf.csv`` table of :func:`robeval.acr.training.variant_ecdfs` (columns ``x``, ``y``,
        ``sigma``, ``variant``; one curve per ``(sigma, variant)``).
    table5 : the ``table5.csv`` table of :func:`robeval.acr.training.variant_certification_table` with its
        index reset (columns ``sigma``, ``variant``, ``ACR`` and one column per radius, in percent).
    n, alpha : the fixed-N certification budget; radii above its largest certifiable radius
        ``sigma * Phi^-1(alpha^(1/n))`` are not plotted (not measurable, rather than 0) and are shaded.
    paper : the printed Table 5 (:data:`robeval.acr.published.PAPER_TABLE5_FULL`, index (sigma, variant)),
        drawn dashed for the variants and sigma of ``table5``.
    sequential : optionally the sequential Table 5 (:func:`robeval.acr.sequential.table_certifications`, index
        (sigma, variant)), drawn dotted: the budget that reaches the large radii.
    note : a line under the title, e.g. that the run is a pipeline check and no evidence.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from robeval.acr.claim_rules import largest_radius

    radius_cols = [c for c in table5.columns if c not in ("sigma", "variant", "ACR")]
    radii = [float(c) for c in radius_cols]
    # 10 in at 800 px: 80 px per inch, the 9-point legends read at 10 px (robeval.core.publish.plotting.MIN_TEXT_PX)
    fig, ax = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
    variants = list(dict.fromkeys(list(ecdf["variant"]) + list(table5["variant"])))
    look = {
        v: {"color": DISTINCT_COLOURS[i % len(DISTINCT_COLOURS)], "marker": DISTINCT_MARKERS[i % len(DISTINCT_MARKERS)]}
        for i, v in enumerate(variants)
    }
    for (s, v), e in ecdf.groupby(["sigma", "variant"], sort=False):
        ax[0].plot(e.x, e.y, color=look[v]["color"], label=rf"{v} ($\sigma$={s})")
    cap_max = 0.0
    for _, r in table5.iterrows():
        cap = largest_radius(n, alpha, float(r.sigma)) if n and alpha else float("inf")
        cap_max = max(cap_max, cap if cap != float("inf") else max(radii))
        keep = [i for i, x in enumerate(radii) if x <= cap + 1e-12]
        colour = look[r.variant]["color"]
        ax[1].plot(
            [radii[i] for i in keep],
            r[[radius_cols[i] for i in keep]].astype(float),
            marker=look[r.variant]["marker"],
            ms=4,
            color=colour,
            label=f"{r.variant} (ACR {r.ACR:.3f})",
        )
        if sequential is not None and (r.sigma, r.variant) in sequential.index:
            q = sequential.loc[(r.sigma, r.variant)]
            cols = [c for c in radius_cols if c in q.index]
            ax[1].plot([float(c) for c in cols], q[cols].astype(float), ":", color=colour, lw=1.4)
        if paper is not None and (r.sigma, r.variant) in paper.index:
            q = paper.loc[(r.sigma, r.variant)]
            paper_cap = largest_radius(100_000, 0.001, float(r.sigma))  # the paper's budget: N = 1e5, alpha = 0.001
            cols = [c for c in radius_cols if c in q.index and float(c) <= paper_cap + 1e-12]
            ax[1].plot([float(c) for c in cols], q[cols].astype(float), "--", color=colour, lw=1.2, alpha=0.85)
    if n and alpha and cap_max < max(radii):
        ax[1].axvspan(cap_max, max(radii), color="0.88", zorder=0)
        ax[1].text(
            (cap_max + max(radii)) / 2, 0.55, f"not measurable\nat N = {n}", transform=ax[1].get_xaxis_transform(),
            ha="center", va="center", fontsize=10, color="0.3",
        )  # fmt: skip
    ax[0].set_xlabel("$x$")
    ax[0].set_ylabel(r"$P(p_A\geq x$, correct$)$")
    ax[0].set_title("ECDF of $p_A$ (Sec. 7's metric)", fontsize=10)
    ax[0].legend(fontsize=9)
    ax[1].set_xlabel("radius")
    ax[1].set_ylabel("certified accuracy (%)")
    ax[1].set_title("certified accuracy (ACR: ours, fixed N)", fontsize=10)
    ax[1].legend(fontsize=9, loc="upper right")
    styles = [(Line2D([], [], color="0.3", marker="o", ms=4), f"ours, fixed N = {n}" if n else "ours, fixed N")]
    if sequential is not None:
        styles.append((Line2D([], [], color="0.3", ls=":", lw=1.4), "ours, sequential"))
    if paper is not None:
        styles.append((Line2D([], [], color="0.3", ls="--", lw=1.2), "paper (ResNet-110, N = 100 000)"))
    fig.legend(*zip(*styles), fontsize=9, loc="outside lower center", ncols=len(styles), handlelength=3)
    sigmas = ", ".join(f"{s:g}" for s in sorted(set(table5["sigma"])))
    title = f"Sun et al. Table 5 as curves: the training variants at $\\sigma$ = {sigmas}"
    fig.suptitle(title + (f"\n({note})" if note else ""), fontsize=11)
    return fig
