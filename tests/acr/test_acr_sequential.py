"""robeval.acr.sequential: the fixed-N vs sequential certification table of notebook 09, by hand."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from robeval.acr.sequential import sequential_cells, sequential_table


def _rows():
    fixed = pd.DataFrame(
        {
            "method": "fixed",
            "radius": -1.0,
            "idx": [0, 1, 2, 3],
            "certified_radius": [0.6, 0.3, 0.0, 0.9],
            "correct": [1, 1, 0, 1],
            "forward_passes": 1010,
        }
    )
    seq = pd.DataFrame(
        {
            "method": "sequential",
            "radius": 0.5,
            "idx": [0, 1, 2, 3, 4, 5, 6, 7],
            "certified": [1, 0, 0, 0, 1, 1, 0, 1],
            "forward_passes": [110, 210, 110, 1010, 110, 110, 110, 110],
        }
    )
    return pd.concat([fixed, seq], ignore_index=True)


def test_sequential_table_by_hand():
    tab = sequential_table(_rows(), [0.5])
    row = tab.loc[0.5]
    # fixed: certified at 0.5 where radius >= 0.5 and correct: images 0 and 3 -> 2/4
    assert row.fixed == 0.5 and row.n_fixed == 4
    # sequential on the same images: 0 only -> 1/4; decisions agree on images 0, 1, 2 -> 3/4
    assert row.sequential_same == 0.25 and row.agreement == 0.75
    # all 8 images: 4 certified; Wilson interval contains 0.5 and is symmetric about it
    assert row.sequential_all == 0.5 and row.n_sequential == 8
    assert row.lo == pytest.approx(1 - row.hi)
    # forward passes: 1010 vs mean(110 x 6, 210, 1010) = 235 -> ratio 4.298
    assert row.passes_sequential == pytest.approx(235.0)
    assert row.forward_ratio == pytest.approx(1010 / 235)


def test_sequential_table_needs_every_cell():
    with pytest.raises(ValueError, match="radius 0.25"):
        sequential_table(_rows(), [0.25])


def test_cells_check_the_image_counts():
    cfg = SimpleNamespace(seq_radii=[0.25, 0.5], seq_images=10, seq_fixed_images=4)
    cells = sequential_cells(cfg)
    assert cells == [
        {"method": "fixed", "radius": -1.0},
        {"method": "sequential", "radius": 0.25},
        {"method": "sequential", "radius": 0.5},
    ]
    with pytest.raises(ValueError, match="seq_fixed_images"):
        sequential_cells(SimpleNamespace(seq_radii=[0.5], seq_images=3, seq_fixed_images=4))
    assert np.isfinite(sequential_table(_rows(), [0.5]).forward_ratio).all()


def test_reachable_radius_closed_form():
    from scipy.stats import norm

    from robeval.acr.claim_rules import largest_radius
    from robeval.acr.sequential import reachable_radius

    # one look (n_start = n_max): Clopper-Pearson with all hits is alpha^(1/N), fixed-N CERTIFY's cap
    assert reachable_radius(1000, 0.001, 0.5, n_start=1000) == pytest.approx(largest_radius(1000, 0.001, 0.5))
    # looks 100, 200, ..., 6400, 10000 (K = 8): level alpha / 8
    assert reachable_radius(10_000, 0.001, 0.5) == pytest.approx(0.5 * norm.ppf((0.001 / 8) ** (1 / 10_000)))
    assert reachable_radius(10_000, 0.001, 0.5) == pytest.approx(1.561, abs=1e-3)
    assert reachable_radius(10_000, 0.001, 0.5) < largest_radius(10_000, 0.001, 0.5)


def test_table_certifications_and_costs_by_hand():
    from robeval.acr.sequential import table_certifications, table_costs

    rows = pd.DataFrame(
        {
            "sigma": 0.5,
            "variant": ["gaussian"] * 4 + ["all"] * 4,
            "seed": [0, 0, 1, 1] * 2,
            "idx": [0, 1] * 4,
            "radius": [1.5, 0.0, 0.3, 0.6, 1.55, 0.2, 0.0, 1.52],
            "correct": [1, 0, 1, 1, 1, 1, 0, 1],
            "n_used": [10_000, 100, 200, 400, 10_000, 100, 100, 10_000],
        }
    ).assign(forward_passes=lambda d: d.n_used + 10, label=0, predict=lambda d: 1 - d.correct)
    tab = table_certifications(rows, [0.0, 0.5, 1.5])
    # gaussian: seed 0 ACR (1.5 + 0) / 2 = 0.75, seed 1 (0.3 + 0.6) / 2 = 0.45 -> mean 0.6
    assert tab.loc[(0.5, "gaussian"), "ACR"] == pytest.approx(0.6)
    # certified at 1.5: seed 0 one of two (50%), seed 1 none -> 25%; all: seed 0 50%, seed 1 50% -> 50%
    assert tab.loc[(0.5, "gaussian"), "1.50"] == pytest.approx(25.0)
    assert tab.loc[(0.5, "all"), "1.50"] == pytest.approx(50.0)
    assert tab.loc[(0.5, "all"), "seeds"] == 2
    assert tab.loc[(0.5, "gaussian"), "passes"] == pytest.approx((10_010 + 110 + 210 + 410) / 4)
    cost = table_costs(rows, n0=10, n_max=10_000)
    assert cost.loc[(0.5, "all"), "share_at_n_max"] == pytest.approx(0.5)
    assert cost.loc[(0.5, "all"), "ratio"] == pytest.approx(10_010 / ((10_010 * 2 + 110 * 2) / 4))
    with pytest.raises(ValueError, match="forward_passes"):
        table_costs(rows.drop(columns="forward_passes"), 10, 10_000)
