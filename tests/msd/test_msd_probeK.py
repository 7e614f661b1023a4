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


@pytest.mark.parametrize("fn, second", [(distance.msd, "corr_feats"), (distance.msd_many, "corr_means"),
                                        (distance.mmd_many, "corr_means")])  # fmt: skip
def test_k18_every_distance_refuses_reordered_columns(fn, second):
    """Probe K18 for msd and the *_many forms: reordered columns were paired by position, as in mmd."""
    rng = np.random.default_rng(1)
    a = pd.DataFrame(rng.normal(size=(5, 3)), columns=["a", "b", "c"])
    c = pd.DataFrame(rng.normal(size=(4, 3)), columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=rf"^aug_feats and {second} are DataFrames with different columns .*"
                       rf"{second} = {second}\[aug_feats\.columns\]"):  # fmt: skip
        fn(a, c[["c", "b", "a"]])
    np.testing.assert_array_equal(fn(a, c), fn(a.to_numpy(), c.to_numpy()))  # one order: as arrays


@pytest.mark.parametrize("fn", [distance.msd, distance.mmd, distance.msd_many, distance.mmd_many])
def test_k21_a_masked_feature_array_is_refused(fn):
    """Probe K21 for msd: a masked array's mask was dropped, its masked samples counted like the others."""
    a = np.ma.masked_array([[0.0, 0.0], [100.0, 100.0]], mask=[[False, False], [True, True]])
    c = np.array([[1.0, 0.0]])
    with pytest.raises(TypeError, match=r"^aug_feats is a numpy masked array; .*aug_feats\.compressed\(\)"):
        fn(a, c)
    with pytest.raises(TypeError, match=r"is a numpy masked array"):
        fn(c, np.ma.masked_array(a.data))
