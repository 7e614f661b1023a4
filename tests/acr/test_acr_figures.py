"""Tests of robeval.acr.figures: every figure function draws small hand-made tables into the expected axes."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from robeval.acr import figures

SIGMAS = (0.25, 0.5, 1.0)
METHODS = ("gaussian", "ours")
NAMES = {"gaussian": "Gaussian", "ours": "Ours"}
ECDF_YLABEL = "$P(p_A \\geq x$, correct$)$"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(fig):
    return [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes]


def _ecdf_table(methods=METHODS, sigmas=SIGMAS, published=True):
    x = np.linspace(0.5, 1.0, 51)
    rows = [
        pd.DataFrame({"x": x, "y": 1 - x, "sigma": s, "method": m, **({"published": 1 - x} if published else {})})
        for s in sigmas
        for m in methods
    ]
    return pd.concat(rows, ignore_index=True)


def test_fig6_certified_accuracy_cifar10():
    radius = np.linspace(0, 4, 9)
    curves = pd.concat(
        [
            pd.DataFrame({"sigma": s, "method": m, "radius": radius, "certified_accuracy": np.exp(-radius)})
            for s in SIGMAS
            for m in METHODS
        ]
    )
    fig = figures.fig6_certified_accuracy_cifar10(curves, METHODS, NAMES)
    assert isinstance(fig, Figure)
    assert fig.robeval_plotted_by == "robeval.acr.figures.fig6_certified_accuracy_cifar10"
    assert _labels(fig) == [("radius $r$", "certified accuracy (%)"), ("radius $r$", ""), ("radius $r$", "")]
    assert [ax.get_title() for ax in fig.axes] == [f"CIFAR-10, $\\sigma$={s}" for s in SIGMAS]
    assert fig.axes[2].get_xlim() == (0, 4.0)
    assert [t.get_text() for t in fig.axes[-1].get_legend().get_texts()] == ["Gaussian", "Ours"]


def test_fig9_ecdf_cifar10_draws_recomputed_lines_and_published_dots():
    fig = figures.fig9_ecdf_cifar10(_ecdf_table(), METHODS, NAMES)
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("$x$", ECDF_YLABEL), ("$x$", ""), ("$x$", "")]
    assert len(fig.axes[0].lines) == 2 * len(METHODS)  # one line and one dotted series per method
    assert fig.get_suptitle().startswith("Sun et al. Figs. 3 and 9") and "lines: recomputed" in fig.get_suptitle()


def test_fig11_ecdf_imagenet_skips_missing_files():
    curves = _ecdf_table(published=False)
    curves = curves[~((curves.sigma == 0.25) & (curves.method == "gaussian"))]
    fig = figures.fig11_ecdf_imagenet(curves, METHODS, NAMES)
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("$x$", ECDF_YLABEL), ("$x$", ""), ("$x$", "")]
    assert [len(ax.lines) for ax in fig.axes] == [1, 2, 2]
    assert fig.axes[1].get_title() == "ImageNet, $\\sigma$=0.5"
    # a method keeps its colour in every panel, also where another method has no file
    colours = [[line.get_color() for line in ax.lines] for ax in fig.axes]
    assert colours[0] == colours[1][1:] and colours[1] == colours[2] and colours[1][0] != colours[1][1]


def test_fig8_appendix_b_budget():
    radius = np.linspace(0, 2, 5)
    parts = []
    for m in METHODS:
        for budget, rule in (("N=100000", "certification file"), ("N=1000", "plugin"), ("N=1000", "binomial")):
            parts.append(
                pd.DataFrame(
                    {
                        "method": m,
                        "budget": budget,
                        "rule": rule,
                        "radius": radius,
                        "certified_accuracy": 1 - radius / 2,
                    }
                )
            )
    fig = figures.fig8_appendix_b_budget(
        pd.concat(parts), METHODS, 0.5, 100000, 0.001, cheap_n=1000, cheap_alpha=0.001, names=NAMES
    )
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("radius", "certified accuracy (%), sigma=0.5"), ("radius", "")]
    assert fig.axes[0].get_title() == "certified with N=100000, alpha=0.001 (files)"
    assert fig.axes[1].get_title() == "from the ECDF: N'=1000, alpha'=0.001"
    assert [len(ax.lines) for ax in fig.axes] == [2, 4]
    # the cheap budget's curves take the colour of the method's curve in the left panel
    assert fig.axes[1].lines[1].get_color() == fig.axes[0].lines[0].get_color()


def test_fig2_radius_and_slope():
    p = np.linspace(0.5, 0.999, 20)
    curves = pd.DataFrame({"p": p, "radius": p - 0.5, "dradius_dp": 1 / (1 - p)})
    fig = figures.fig2_radius_and_slope(curves, p_max=0.9999)
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("$p_A$", "$R=\\Phi^{-1}(p_A)$  ($\\sigma=1$)"), ("$p_A$", "$dR/dp_A$")]
    assert fig.axes[1].get_yscale() == "log"


def test_sec41_toy_budget():
    n = np.logspace(1, 6, 8)
    scan = pd.DataFrame({"N": n, "acr_trivial": np.log(n), "acr_constant": np.full(8, 0.7)})
    fig = figures.sec41_toy_budget(scan, 0.92)
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("certification budget $N$", "ACR")]
    assert fig.axes[0].get_xscale() == "log"
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["trivial classifier", "$p_A$=0.92 everywhere (expected over $n_A$)"]


def test_table5_ecdf_and_certified_accuracy():
    x = np.linspace(0.5, 1.0, 11)
    ecdf = pd.concat([pd.DataFrame({"x": x, "y": 1 - x, "sigma": 0.5, "variant": v}) for v in ("gaussian", "all")])
    table5 = pd.DataFrame(
        {"sigma": [0.5, 0.5], "variant": ["gaussian", "all"], "ACR": [0.4, 0.5], "0.0": [80.0, 70.0], "0.25": [60, 55]}
    )
    fig = figures.table5_ecdf_and_certified_accuracy(ecdf, table5)
    assert isinstance(fig, Figure)
    assert _labels(fig) == [("$x$", r"$P(p_A\geq x$, correct$)$"), ("radius", "certified accuracy (%)")]
    assert [len(ax.lines) for ax in fig.axes] == [2, 2]
    assert list(fig.axes[1].lines[0].get_xdata()) == [0.0, 0.25]
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["gaussian (ACR 0.400)", "all (ACR 0.500)"]


def test_table5_figure_leaves_unmeasurable_radii_out_and_shows_the_paper():
    from robeval.acr.claim_rules import largest_radius
    from robeval.acr.published import PAPER_TABLE5_FULL

    x = np.linspace(0.5, 1.0, 11)
    ecdf = pd.concat([pd.DataFrame({"x": x, "y": 1 - x, "sigma": 0.5, "variant": v}) for v in ("gaussian", "all")])
    radii = ["0.00", "0.25", "0.50", "0.75", "1.00", "1.25"]
    table5 = pd.DataFrame(
        {"sigma": [0.5, 0.5], "variant": ["gaussian", "all"], "ACR": [0.1, 0.12],
         **{r: [20.0 - 3 * i, 21.0 - 3 * i] if float(r) <= 0.75 else [0.0, 0.0] for i, r in enumerate(radii)}}
    )  # fmt: skip
    fig = figures.table5_ecdf_and_certified_accuracy(ecdf, table5, n=100, alpha=0.001, paper=PAPER_TABLE5_FULL)
    cap = largest_radius(100, 0.001, 0.5)  # 0.767
    ours = [ln for ln in fig.axes[1].lines if ln.get_linestyle() == "-"]
    paper = [ln for ln in fig.axes[1].lines if ln.get_linestyle() == "--"]
    assert len(ours) == 2 and all(max(ln.get_xdata()) <= cap for ln in ours)  # no 0 plotted beyond the budget
    assert len(paper) == 2
    assert list(paper[0].get_ydata()) == list(PAPER_TABLE5_FULL.loc[(0.5, "gaussian"), radii].astype(float))
    assert "Table 5" in fig._suptitle.get_text()
    assert any("not measurable" in t.get_text() for t in fig.axes[1].texts)


def test_lines_that_share_a_panel_are_told_apart():
    """Issue 47, item 6: the palette's colours differ pairwise by a CIEDE2000 colour difference of at least 20 (the
    three oranges of the old Figs. 6 and 11 were 11.6-17 apart); every ACR method has its own colour and dash."""
    from matplotlib.colors import to_rgb
    from skimage.color import deltaE_ciede2000, rgb2lab

    from robeval.acr.figures import _styles
    from robeval.acr.published import METHODS
    from robeval.core.publish.plotting import DISTINCT_COLOURS

    lab = rgb2lab(np.array([[to_rgb(c) for c in DISTINCT_COLOURS]]))[0]
    gaps = [deltaE_ciede2000(lab[i], lab[j]) for i in range(len(lab)) for j in range(i)]
    assert min(gaps) >= 20, sorted(gaps)[:3]
    old = rgb2lab(np.array([[to_rgb(c) for c in ("#de8f05", "#d55e00", "#ca9161")]]))[0]  # seaborn C1, C3, C5
    assert max(deltaE_ciede2000(old[i], old[j]) for i in range(3) for j in range(i)) < 20  # the test can fail
    assert len({(s["color"], str(s["ls"])) for s in _styles(METHODS).values()}) == len(METHODS)
    styles = _styles(METHODS)
    assert len({s["color"] for s in styles.values()}) == len(METHODS)
    assert styles["gaussian"] == {"color": "#000000", "ls": "-"} and styles["ours"]["color"] == "#D55E00"
