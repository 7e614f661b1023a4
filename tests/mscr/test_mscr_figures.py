"""Tests for robeval.mscr.figures: every figure function draws small hand-made inputs and returns a Figure
with the expected axes and labels."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from robeval.mscr import figures

EPS = [0.0, 0.01, 0.05]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(fig):
    return [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes]


def _summary(offset=0.0):
    """An ``mscr_summary`` frame over EPS (percent)."""
    return pd.DataFrame(
        {
            "eps_train": EPS,
            "mscr": [-5.0 + offset, -2.0 + offset, 0.5 + offset],
            "mscr_std": [1.0, 1.0, 1.0],
            "mscr_margin": [0.8, 0.7, np.nan],
            "acc_clean": [99.0 - offset, 98.5 - offset, 97.0 - offset],
            "acc_clean_margin": [0.2, 0.3, 0.4],
            "n_runs": [3, 3, 3],
        }
    )


def _matrix(eps_test=(0.0, 0.02, 0.1), eps_train=EPS):
    """An accuracy matrix (index eps_test, columns eps_train, percent) with a row optimum off the diagonal."""
    rng = np.random.default_rng(0)
    values = 90 - 100 * np.asarray(eps_test)[:, None] + rng.uniform(0, 1, (len(eps_test), len(eps_train)))
    return pd.DataFrame(
        values, index=pd.Index(eps_test, name="eps_test"), columns=pd.Index(eps_train, name="eps_train")
    )


def test_fig3_dataset():
    X = np.array([[0.0, 0.0], [0.1, 0.2], [0.5, 0.5], [0.6, 0.4]])
    y = np.array([0, 0, 1, 1])
    sep = np.array([0.4, 0.3, 0.3, 0.5])
    fig = figures.fig3_dataset(X, y, sep, "B", "Linf")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig) == [("x[0]", "x[1]"), ("Linf distance to nearest other-class point", "points")]
    assert fig.axes[0].get_title() == "MSCR Fig. 3: 2D dataset B"
    assert fig.axes[1].get_legend().get_texts()[0].get_text() == "2r = 0.3000"
    assert fig.robeval_plotted_by == "robeval.mscr.figures.fig3_dataset"


def test_fig4_effect_of_k():
    k_stats = pd.DataFrame({"mean": [99.1, 99.3, 99.4], "std": [0.3, 0.2, 0.2]}, index=pd.Index([1, 5, 10], name="k"))
    fig = figures.fig4_effect_of_k(k_stats, 0.001)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig) == [("", "robust accuracy [%]"), ("noisy copies per point k", "std over runs [%]")]
    assert fig.axes[0].get_title() == "MSCR Fig. 4: effect of k (eps_train = eps_test = 0.001)"
    # the paper publishes Fig. 4 without values: the figure says so rather than overlaying none
    assert any("without published values" in t.get_text() for t in fig.axes[1].texts)


def test_fig5_rf_vs_1nn():
    fig = figures.fig5_rf_vs_1nn({"RF": _summary(), "1-NN": _summary(1.0)})
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert _labels(fig) == [("eps_train", ""), ("eps_train", "")]
    assert [ax.get_title() for ax in fig.axes] == ["MSCR Fig. 5a: clean accuracy [%]", "MSCR Fig. 5b: MSCR [%]"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["0", "0.01", "0.05"]
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["RF", "1-NN"]
    # the paper's values where it has them (the authors' RF sheet): black triangles at the matching eps_train only
    mscr = pd.Series([-0.5, 0.2, 9.0], index=[0.0, 0.05, 0.3])  # 0.3 is not one of ours: left out
    clean = pd.Series([99.0, 98.0, 1.0], index=[0.0, 0.05, 0.3])
    fig = figures.fig5_rf_vs_1nn({"RF": _summary(), "1-NN": _summary(1.0)}, (mscr, clean))
    tri = [ln for ln in fig.axes[1].get_lines() if ln.get_marker() == "^"]
    assert len(tri) == 1 and list(tri[0].get_xdata()) == [0, 2] and list(tri[0].get_ydata()) == [-0.5, 0.2]
    tri = [ln for ln in fig.axes[0].get_lines() if ln.get_marker() == "^"]
    assert list(tri[0].get_ydata()) == [99.0, 98.0]
    assert "RF, authors' sheet (1200 runs)" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    fig = figures.fig5_rf_vs_1nn({"RF": _summary()}, eps_min=0.01)
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["0", "eps_min", "0.05"]


def test_fig6a_tradeoff_2d_with_and_without_reference():
    summaries = {"iid": _summary(), "shared_offsets": _summary(0.5)}
    fig = figures.fig6a_tradeoff_2d(summaries, "iid", ([-4.0, -1.0, 0.0], [99.2, 98.9, 97.5]))
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert _labels(fig) == [("MSCR [%]", "clean accuracy [%]")]
    ax = fig.axes[0]
    assert ax.get_title() == "MSCR Fig. 6a: trade-off over eps_train"
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {
        "ours (iid)",
        "ours (shared_offsets)",
        "published (1200 runs)",
    }
    assert [t.get_text() for t in ax.texts] == ["0", "0.01", "0.05"]  # eps_train of the main mode
    fig = figures.fig6a_tradeoff_2d({"iid": _summary()}, "iid")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["ours (iid)"]


def test_fig6b_tradeoff_cifar():
    fig = figures.fig6b_tradeoff_cifar(
        _summary(), "ours (cnn_small, 1 run(s))", ([-35.0, -20.0, 2.0], [91.7, 91.3, 82.0])
    )
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert _labels(fig) == [("MSCR [%]", "clean accuracy [%]")]
    assert fig.axes[0].get_title() == "MSCR Fig. 6b: trade-off over eps_train (CIFAR-10)"
    assert {t.get_text() for t in fig.axes[0].get_legend().get_texts()} == {
        "ours (cnn_small, 1 run(s))",
        "authors' CSV (WRN-28-10, 20 runs)",
    }


def test_fig7_accuracy_surface():
    fig = figures.fig7_accuracy_surface(_matrix(), _matrix((0.0, 0.05, 0.1, 0.2)), "ours (cnn_small)")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    for ax, title in zip(fig.axes, ("ours (cnn_small)", "authors' CSV (WRN-28-10)")):
        assert ax.name == "3d"
        assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("eps_train", "eps_test", "accuracy [%]")
        assert ax.get_title() == title


def test_table1_cifar_separation_distribution():
    sep = np.array([54, 60, 71, 130, 200]) / 255
    fig = figures.table1_cifar_separation_distribution(sep, 0.211765)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert _labels(fig) == [("L_inf distance to the nearest other-class image", "images")]
    ax = fig.axes[0]
    assert ax.get_title() == "MSCR Table 1: CIFAR-10 per-image class separation (5 images)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "2r here = 0.2118",
        "2r full CIFAR-10 (paper) = 0.2118",
    ]


def test_accuracy_heatmaps_box_each_rows_best_column():
    import pandas as pd
    from matplotlib.patches import Rectangle

    from robeval.mscr.figures import accuracy_heatmaps

    m = pd.DataFrame([[90.0, 95.0, 80.0], [70.0, 60.0, 85.0]], index=[0.0, 0.1], columns=[0.0, 0.05, 0.1])
    fig = accuracy_heatmaps({"ours": m, "published": m + 1}, "toy", shared_scale=False)
    heat = [ax for ax in fig.axes if ax.get_title() in ("ours", "published")]
    assert [ax.get_title() for ax in heat] == ["ours", "published"]
    boxes = [(p.get_x(), p.get_y()) for p in heat[0].patches if isinstance(p, Rectangle) and not p.get_fill()]
    assert boxes == [(1, 0), (2, 1)]  # row 0's best is column 1 (95), row 1's is column 2 (85)
    assert len(fig.axes) == 4  # two panels, one colour bar each


def test_accuracy_heatmaps_cell_numbers_are_legible_at_page_width():
    import pandas as pd

    from robeval.mscr.figures import accuracy_heatmaps

    m = pd.DataFrame(np.full((9, 9), 99.5), index=range(9), columns=range(9))
    fig = accuracy_heatmaps({"ours (iid)": m, "ours (shared)": m, "published": m}, "Siedel et al. Table 2a")
    width_in = fig.get_size_inches()[0]
    sizes = {t.get_fontsize() for ax in fig.axes for t in ax.texts}
    # shown in an 850-px column, a point is 850 / (72 * width) px: every cell number at least 9 px high
    assert sizes and min(sizes) * 850 / (72 * width_in) >= 9
    visible = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in visible] == ["ours (iid)", "ours (shared)", "published"]  # two to a row
