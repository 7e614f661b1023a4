"""Tests for robeval.msd.figures: every figure function draws small hand-made inputs and returns a Figure
with the expected axes and labels."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from robeval.msd import figures
from robeval.transforms.augmentations import BASE_OPS, scheme_name

CORRUPTIONS = ["impulse_noise", "motion_blur", *[c for c in figures.FIG3_CORRUPTIONS if c != "motion_blur"]]
SCHEMES = [(), ("solarize",), ("translate_x",), ("solarize", "translate_x"), ("shear_x", "rotate"), BASE_OPS]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labels(fig):
    return [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes if ax.get_visible()]


def _avg(corruptions=CORRUPTIONS):
    """Severity averages as average_over_severities returns them: six powerset schemes (the empty one, two
    single ops, two pairs, the full AugMix scheme) and one published method, on every corruption."""
    rng = np.random.default_rng(0)
    rows = []
    for c in corruptions:
        for ops in SCHEMES:
            rows.append(
                {
                    "scheme": scheme_name(ops),
                    "family": "powerset",
                    "n_ops": len(ops),
                    "corruption": c,
                    "error": rng.uniform(0.1, 0.6),
                    "msd": rng.uniform(0.5, 2.0),
                    "mmd": rng.uniform(1.0, 3.0),
                }
            )
        rows.append(
            {
                "scheme": "patch_gaussian",
                "family": "method",
                "n_ops": np.nan,
                "corruption": c,
                "error": 0.3,
                "msd": 1.0,
                "mmd": 2.0,
            }
        )
    return pd.DataFrame(rows)


def _rho(corruptions=CORRUPTIONS):
    """The spearman.csv table indexed by corruption."""
    n = len(corruptions)
    return pd.DataFrame(
        {"rho_msd": np.linspace(-0.5, 0.9, n), "rho_mmd": np.linspace(0.1, 0.2, n)}, index=pd.Index(corruptions)
    )


def test_fig2b_mixture_toy():
    toy = pd.DataFrame(
        {
            "fraction": [0.0, 0.05, 0.3, 1.0],
            "mmd": [2.6, 2.4, 1.9, 0.5],
            "msd": [2.1, 0.12, 0.07, 0.06],
            "error_impulse_noise": [0.63, 0.61, 0.57, 0.56],
        }
    )
    fig = figures.fig2b_mixture_toy(toy)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2  # distances and the twin error axis
    ax, ax2 = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        "impulse-noise fraction of the augmentation (%)",
        "distance to impulse noise (feature units)",
    )
    assert ax2.get_ylabel() == "error on impulse noise (%)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["MMD", "MSD", "error"]
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [0, 5, 30, 100])
    np.testing.assert_allclose(ax2.lines[0].get_ydata(), [63, 61, 57, 56])
    assert fig.robeval_plotted_by == "robeval.msd.figures.fig2b_mixture_toy"


@pytest.mark.parametrize(
    ("fn", "xlabel"), [(figures.fig3_msd_vs_error, "MSD"), (figures.appB_mmd_vs_error, "MMD")], ids=["fig3", "appB"]
)
def test_six_corruption_rows(fn, xlabel):
    fig = fn(_avg(), _rho())
    assert isinstance(fig, Figure)
    panels, bar = fig.axes[:6], fig.axes[6:]
    assert len(panels) == 6 and len(bar) == 1 and bar[0].get_ylabel() == "number of ops in the scheme"
    # two rows of three (legible at page width); the error axis is labelled in the first column only
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in panels] == [
        (xlabel, "error (%)"),
        (xlabel, ""),
        (xlabel, ""),
    ] * 2
    assert [ax.get_title().split("  (")[0] for ax in panels] == [c.replace("_", " ") for c in figures.FIG3_CORRUPTIONS]
    assert fig._suptitle.get_text().startswith("Mintun et al.")
    # the powerset schemes only (the published method is not a point of Fig. 3 / App. B)
    assert all(len(ax.collections[0].get_offsets()) == len(SCHEMES) for ax in panels)


def test_fig3_title_carries_the_spearman_correlation():
    rho = _rho()
    fig = figures.fig3_msd_vs_error(_avg(), rho, corruptions=["gaussian_noise"])
    assert fig.axes[0].get_title() == f"gaussian noise  (Spearman ρ = {rho.loc['gaussian_noise', 'rho_msd']:.2f})"
    # the paper's count of corruptions above its threshold stands beside ours
    above = int((rho["rho_msd"] > 0.6).sum())
    assert (
        f"ours (batch-norm adaptation): ρ > 0.6 for {above} of {len(rho)} corruptions; paper (Sec. 4.2"
        in fig._suptitle.get_text()
    )
    assert "12 of 15" in fig._suptitle.get_text()


def test_fig5_marks_augmix_and_the_methods():
    fig = figures.fig5_powerset_all_corruptions(_avg(), _rho(), CORRUPTIONS)
    assert isinstance(fig, Figure)
    bar = fig.axes[-1]  # the colour bar of the number of ops
    assert bar.get_ylabel() == "number of ops in the scheme"
    visible = [ax for ax in fig.axes[:-1] if ax.get_visible()]
    assert len(fig.axes) == 10 and len(visible) == len(CORRUPTIONS) == 7  # three rows of three, two unused
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in visible] == [("MSD", "error (%)")] * 7
    assert [t.get_text() for t in visible[0].get_legend().get_texts()] == ["AugMix", "patch_gaussian"]
    assert "all 7 CIFAR-10-C corruptions" in fig.get_suptitle()


def test_fig4_highlights_the_op():
    fig = figures.fig4_solarize_translate(_avg(), _rho())
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 4
    assert _labels(fig) == [("MSD", "error (%)")] * 4
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert legends[0] == legends[1] == ["without solarize", "with solarize"]
    assert legends[2] == legends[3] == ["without translate_x", "with translate_x"]
    # 3 of the 6 schemes contain solarize: "solarize", "solarize+translate_x" and the full scheme
    assert len(fig.axes[0].collections[1].get_offsets()) == 3
    assert [ax.get_title().split("  (")[0] for ax in fig.axes] == ["impulse noise", "motion blur"] * 2


def test_fig1_single_ops_motion_blur():
    single = pd.DataFrame(
        {
            "scheme": ["none", "solarize", "translate_x"],
            "kind": ["baseline", "color", "geometric"],
            "error": [0.5, 0.48, 0.4],
        }
    )
    fig = figures.fig1_single_ops_motion_blur(single)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    assert _labels(fig) == [("", "motion-blur error (%)")]
    np.testing.assert_allclose([p.get_height() for p in fig.axes[0].patches], [50, 48, 40])


def test_fig6_corruption_grid():
    names = ["gaussian_noise", "motion_blur", "blue_noise_sample"]
    grid = np.random.default_rng(0).integers(0, 256, size=(3, 6, 8, 8, 3), dtype=np.uint8)
    fig = figures.fig6_corruption_grid(grid, names, c_names=("gaussian_noise", "motion_blur"))
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["clean", "sev 1", "sev 2", "sev 3", "sev 4", "sev 5"]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "gaussian noise (C)",
        "motion blur (C)",
        "blue noise sample (C-bar)",
    ]
    assert ax.images[0].get_array().shape == (3 * 10, 6 * 10, 3)  # 8-px images with 2-px gaps
    assert ax.lines[0].get_ydata()[0] == 2 * 10 - 1  # the line below the two CIFAR-10-C rows


def test_table1_c_vs_cbar():
    summary = pd.DataFrame(
        {"c_err": [40.0, 35.0], "cbar_err": [41.0, 38.0], "paper_c_err": [27.0, 11.1], "paper_cbar_err": [27.1, 16.0]},
        index=pd.Index(["Baseline", "AugMix"], name="method"),
    )
    fig = figures.table1_c_vs_cbar(summary, "ours (cnn_small, smoke)")
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    assert _labels(fig) == [("", "mean corruption error (%)")] * 2
    assert [ax.get_title() for ax in fig.axes] == ["ours (cnn_small, smoke)", "paper (WRN-40-2)"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["Baseline", "AugMix"]
    np.testing.assert_allclose([p.get_height() for p in fig.axes[1].patches], [27.0, 11.1, 27.1, 16.0])


def test_cbar_construction_shifts():
    shifts = pd.DataFrame(
        {
            "corruption": ["blue_noise_sample", "plasma_noise", "sparkles"],
            "shift": [0.7, 0.3, -0.2],
            "shift_std": [0.02, 0.01, 0.03],
        }
    )
    fig = figures.cbar_construction_shifts(shifts, 2, published=("blue_noise_sample", "sparkles"))
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert _labels(fig) == [("", "distance shift (std units)")]
    assert "our top 2" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["blue noise sample", "plasma noise", "sparkles"]
    red = [p.get_facecolor() for p in ax.patches]
    assert red[0] == red[2] != red[1]
