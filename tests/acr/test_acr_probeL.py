"""Probe L on robeval.acr: an index of 2**32 or more no longer shares the noise stream of its low 32 bits (L3:
refused by name, as corrupt refuses it), masked arrays are refused where they were read (L5: clopper_pearson_lower,
Smooth's inputs), and a radius column of numeric text is refused (Minor). Indices below 2**32 keep their streams."""

import re

import numpy as np
import pandas as pd
import pytest
import torch

from robeval import acr
from robeval.acr import Smooth
from robeval.acr.smoothing import clopper_pearson_lower

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"
BIG = re.escape(
    "idx must lie in 0 .. 2**32 - 1 (each index keys its input's noise stream with 32 bits), got 4294967296, which "
    "would share the noise of index 0; renumber the inputs, e.g. by their positions in the dataset."
)


class Base(torch.nn.Module):
    def forward(self, z):
        z = z.reshape(len(z), -1)
        return torch.stack([z[:, 0], -z[:, 0]], 1)


@pytest.fixture
def smooth():
    return Smooth(Base(), num_classes=2, sigma=1.0)


X = np.zeros((2, 3), np.float32)  # two identical inputs: their noise must be independent


def test_an_index_of_2_32_or_more_is_refused(smooth):
    # L3: idx [0, 2**32] gave both inputs the same noise (n_a [22, 22]), and certify_dataset accepted [3, 3 + 2**32]
    with pytest.raises(ValueError, match="^" + BIG):
        smooth.certify(X, 20, 50, 0.001, seed=0, idx=[0, 2**32])
    with pytest.raises(ValueError, match="^" + BIG):
        smooth.predict(X, 50, 0.001, seed=0, idx=[2**32, 1])
    with pytest.raises(
        ValueError, match=r"^idx must lie in 0 \.\. 2\*\*32 - 1 .*got 9223372036854775807, which would share"
    ):
        smooth.certify(X, 20, 50, 0.001, seed=0, idx=[2**32 - 1, 2**63 - 1])
    with pytest.raises(
        ValueError,
        match=r"^idx must lie in 0 \.\. 2\*\*32 - 1 .*got 4294967299, which would share the noise of index 3",
    ):
        smooth.certify_dataset(X, [0, 0], n0=20, n=50, idx=[3, 3 + 2**32], progress=False)


def test_indices_below_2_32_keep_their_streams(smooth):
    a = smooth.certify(X, 20, 50, 0.001, seed=0, idx=[0, 1]).n_a.tolist()
    assert a == [22, 18]  # as before the fix (probe L's run)
    assert smooth.certify(X, 20, 50, 0.001, seed=0, idx=[2**32 - 1, 0]).n_a.tolist()[1] == 22


def test_clopper_pearson_lower_and_smooth_refuse_masked_arrays(smooth):
    # L5: the masked n_a was bounded like any other ([0.34, 0.93]); Smooth certified the masked inputs
    with pytest.raises(TypeError, match="^n_a" + MASKED):
        clopper_pearson_lower(np.ma.masked_array([50, 100], [0, 1]), 100, 0.001)
    with pytest.raises(TypeError, match="^x" + MASKED):
        smooth.certify(np.ma.masked_array(X, np.zeros_like(X, dtype=bool)), 20, 50, 0.001, seed=0)
    assert clopper_pearson_lower(np.array([50]), 100, 0.001)[0] == pytest.approx(0.3448, abs=1e-4)


def test_acr_refuses_a_radius_column_of_numeric_text():
    # Minor: a radius column of text that spells numbers was read as numbers
    df = pd.DataFrame({"idx": [0, 1], "label": [0, 1], "predict": [0, 1], "radius": ["0.5", "0.25"], "correct": [1, 1]})
    with pytest.raises(ValueError, match=r"^df: column 'radius' must hold numbers, but row 0 holds '0\.5' \(dtype "):
        acr.acr(df)
    assert acr.acr(df.assign(radius=[0.5, 0.25])) == pytest.approx(0.375)
