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
