"""Finding #7 of probe I (issue 62): ``msd.mmd`` / ``msd.msd`` read a 1-D feature vector as one sample."""

import numpy as np
import pytest

from robeval import msd


def test_mmd_and_msd_refuse_one_dimensional_features_with_both_readings():
    rng = np.random.default_rng(0)
    a, b = rng.random(5), rng.random(5) + 3
    for f in (msd.mmd, msd.msd):
        with pytest.raises(
            ValueError, match=r"^aug_feats has shape \(5,\), which reads two ways; pass aug_feats\[:, None\]"
        ):
            f(a, b[:, None])
        with pytest.raises(
            ValueError, match=r"^corr_feats has shape \(4,\), which reads two ways; .* for 4 samples of one"
        ):
            f(a[:, None], b[:4])
    assert msd.mmd(a[:, None], b[:, None]) == pytest.approx(3.3900131059063545, rel=1e-12)
    assert msd.msd(a[:, None], b[:, None]) == pytest.approx(2.9322468266561463, rel=1e-12)
    assert msd.mmd(a[None], b[None]) == pytest.approx(7.593197883951914, rel=1e-12)
