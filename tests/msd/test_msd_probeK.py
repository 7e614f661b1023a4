"""Probe K, K18 (mmd): two DataFrames of transform features whose columns differ are refused, not paired by
position."""

import numpy as np
import pandas as pd
import pytest

from robeval.msd import distance


def test_k18_mmd_reordered_columns_refused():
    rng = np.random.default_rng(0)
    a = pd.DataFrame(rng.normal(size=(5, 3)), columns=["a", "b", "c"])
    c = pd.DataFrame(rng.normal(size=(4, 3)), columns=["a", "b", "c"])
    with pytest.raises(
        ValueError,
        match=r"different columns \(aug_feats: \['a', 'b', 'c'\], corr_feats: \['c', 'b', 'a'\]\).*corr_feats\[aug_feats\.columns\]",
    ):
        distance.mmd(a, c[["c", "b", "a"]])
    assert distance.mmd(a, c[["c", "b", "a"]][a.columns]) == distance.mmd(a.to_numpy(), c.to_numpy())
    assert distance.mmd(a, c.to_numpy()) == distance.mmd(
        a.to_numpy(), c.to_numpy()
    )  # a frame and an array: by position
