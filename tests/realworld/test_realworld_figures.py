"""Tests for robeval.realworld.figures: every figure function draws small hand-made inputs and returns a
Figure with the expected axes and labels."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from robeval.realworld import figures


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(fig):
    return [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes]


def _points(scales=(0.07, 0.43), runs=(0,)):
    """A ``<dataset>_points.csv`` table of run_sec41_grid with 6 test points per run, one failed attack."""
    rng = np.random.default_rng(0)
    parts = []
    for r in runs:
        pts = pd.DataFrame(
            {
                "run": r,
                "adv_success": [True, True, True, False, True, True],
                "adv_robustness": [0.1, 0.4, 1.0, np.nan, 0.7, 0.2],
            }
        )
        for s in scales:
            pts[f"rw_identity_{s:g}"] = rng.uniform(0.5, 1.0, len(pts))
            pts[f"rw_random0_{s:g}"] = rng.uniform(0.5, 1.0, len(pts))
        parts.append(pts)
    return pd.concat(parts, ignore_index=True)


def _sweep(runs=(0,)):
    scales = np.logspace(-3, 2, 4)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "run": r,
                    "scale": scales,
                    "pearson": [np.nan, 0.3, 0.8, 0.5],
                    "spearman": [np.nan, 0.2, 0.7, 0.6],
                    "mean_robustness": 1,
                }
            )
            for r in runs
        ],
        ignore_index=True,
    )


SCATTER_LABELS = [
    ("adversarial robustness", "real world robustness"),
    ("adversarial robustness", "real world robustness"),
    ("perturbation scale real world robustness", "correlation real world and\nadversarial robustness"),
]


def test_fig3_iris():
    fig = figures.fig3_iris(_points(), _sweep(), [0.07, 0.43], 1000)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    assert _labels(fig) == SCATTER_LABELS
    assert [ax.get_title() for ax in fig.axes] == [
        "a) perturbation scale: 0.07 (run 0)",
        "b) perturbation scale: 0.43 (run 0)",
        "c) brute force n: 1.0e+03",
    ]
    assert fig.axes[0].collections[0].get_offsets().shape == (5, 2)  # the failed attack is not drawn
    assert fig.axes[2].get_xscale() == "log"
    assert fig.get_suptitle().startswith("Scher & Trügler Fig. 3 — Iris")
    assert fig.robeval_plotted_by == "robeval.realworld.figures.fig3_iris"
    # the published figure beside ours: where the paper's panel a/b axes start, and its panel c axis range
    assert [list(ln.get_ydata()) for ln in fig.axes[0].lines] == [[0.75, 0.75]]
    assert [list(ln.get_ydata()) for ln in fig.axes[1].lines] == [[0.5, 0.5]]
    assert "paper's Fig. 3c axis range" in [t.get_text() for t in fig.axes[2].get_legend().get_texts()]


def test_fig3_draws_the_first_run_and_every_sweep():
    fig = figures.fig3_iris(_points(runs=(0, 1, 2)), _sweep(runs=(0, 1, 2)), [0.07, 0.43], 1000)
    assert fig.axes[0].collections[0].get_offsets().shape == (5, 2)  # first run only, failed attack left out
    assert fig.axes[0].get_title() == "a) perturbation scale: 0.07 (run 0)"
    assert len(fig.axes[2].lines) == 2 * 3 + 2  # Pearson and Spearman per run, and their means
    assert fig.axes[2].get_legend().get_texts()[0].get_text() == "Pearson (mean of 3 runs)"


def test_fig4_ionosphere():
    fig = figures.fig4_ionosphere(_points(), _sweep(), [0.07, 0.43], 10000, "DeepFool")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    assert _labels(fig) == SCATTER_LABELS
    assert fig.get_suptitle() == "Scher & Trügler Fig. 4 — Ionosphere, MLP 256-256, DeepFool"


def test_fig5_covariance():
    pts = {"iris": _points(), "ionosphere": _points()}
    fig = figures.fig5_covariance(pts, {"iris": 0.07, "ionosphere": 0.43})
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    pair = ("real world robustness (identity covariance)", "real world robustness (random covariance)")
    assert _labels(fig) == [pair, pair]
    assert [ax.get_title() for ax in fig.axes] == ["a) iris, scale 0.07 (run 0)", "b) ionosphere, scale 0.43 (run 0)"]


@pytest.mark.parametrize("synthetic", [True, False])
def test_fig6_fog(synthetic):
    rng = np.random.default_rng(1)
    pts = pd.DataFrame(
        {
            "run": np.repeat([0, 1], 20),
            "adv_success": rng.random(40) > 0.1,
            "adv_robustness": rng.random(40),
            "rw_robustness": rng.uniform(0.4, 1.0, 40),
        }
    )
    fig = figures.fig6_fog(pts, synthetic)
    assert fig.axes[0].collections[0].get_offsets().shape[0] == pts[:20].adv_success.sum()  # first run only
    assert "run 0" in fig.get_suptitle()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig) == [("adversarial robustness", "real world robustness"), ("robustness", "count")]
    assert fig.axes[1].get_yscale() == "log"
    assert ("synthetic stand-in" in fig.get_suptitle()) == synthetic


def _maps(n=5):
    g = np.linspace(-1.0, 1.0, n)
    G1, G2 = np.meshgrid(g, g)
    return {"x1": g, "x2": g, "robustness": 0.5 + 0.1 * np.abs(G2), "distance": np.abs(G2) + 0 * G1}


MAP_LABELS = [("$x_1$", "$x_2$"), ("$x_1$", "$x_2$")]


def test_figA1_linear():
    fig = figures.figA1_linear(_maps())
    assert isinstance(fig, Figure) and len(fig.axes) == 4  # two maps, two colour bars
    assert _labels(fig)[:2] == MAP_LABELS
    assert [ax.get_title() for ax in fig.axes[:2]] == [
        "real-world robustness $P_r$",
        "distance to closest counterfactual",
    ]
    assert fig.axes[0].images[0].get_extent() == [-1.0, 1.0, -1.0, 1.0]


def test_figA2_right_angle():
    fig = figures.figA2_right_angle(_maps(), [0.5, -1.0])
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert _labels(fig)[:2] == MAP_LABELS
    assert "a=(0.5,-1)" in fig.get_suptitle()


def test_figA2_equal_distance_edge():
    t = np.linspace(0.5, 4.0, 8)
    edge = pd.DataFrame({"t": t, "distance": 0.5, "robustness": np.linspace(0.48, 0.69, 8)})
    fig = figures.figA2_equal_distance_edge(edge)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert _labels(fig) == [("distance to the other edge", "value")]
    assert len(fig.axes[0].lines) == 3  # P_r, distance, Phi(0.5)


def test_appA_mc_check():
    rng = np.random.default_rng(2)
    rows = []
    for model in ("linear", "right_angle"):
        for cov in ("isotropic", "anisotropic"):
            exact = rng.uniform(0.5, 1.0, 10)
            rows.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "covariance": cov,
                        "exact": exact,
                        "mc": exact + rng.normal(0, 0.01, 10),
                        "se": np.where(exact > 0.99, 0.0, 0.01),
                        "z": rng.normal(0, 1, 10),
                    }
                )
            )
    fig = figures.appA_mc_check(pd.concat(rows, ignore_index=True), 2000)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig) == [
        ("closed form $P_r$", "Monte Carlo $P_r$ (N=2000)"),
        ("z = (MC − exact) / SE", "density"),
    ]
    assert len(fig.axes[0].get_legend().get_texts()) == 4  # one entry per (model, covariance)
