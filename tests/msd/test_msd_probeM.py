"""Probe M on robeval.msd: feature arrays of numeric text are refused by mmd, msd, mmd_many and msd_many (M11: the
text was parsed and a distance returned)."""

import numpy as np
import pytest

from robeval import msd

A = np.random.default_rng(0).random((4, 3))
C = np.random.default_rng(1).random((5, 3))


@pytest.mark.parametrize(
    "fn, second",
    [(msd.mmd, "corr_feats"), (msd.msd, "corr_feats"), (msd.mmd_many, "corr_means"), (msd.msd_many, "corr_means")],
)
def test_distances_refuse_features_given_as_text(fn, second):
    # M11 (b7): aug_feats=A.astype(str) gave the numeric answer (0.1453..., 0.2085..., ...)
    start = r" must hold numbers, e\.g\. a \(n_samples, D\) float array of transform features; got np\.str_\('0\."
    with pytest.raises(TypeError, match="^aug_feats" + start):
        fn(A.astype(str), C)
    with pytest.raises(TypeError, match="^" + second + start):
        fn(A, C.astype(str))
    assert np.all(np.isfinite(fn(A, C)))
