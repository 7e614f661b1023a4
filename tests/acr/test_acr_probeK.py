"""Probe K (K18, K19): the ECDF functions refuse Series paired with other indexes and a count offset above n."""

import numpy as np
import pandas as pd
import pytest

from robeval.acr.ecdf import (
    certified_accuracy_from_ecdf,
    ecdf_from_certification,
    ecdf_from_certified_accuracy,
    ecdf_indicators,
)

X, Y = [0.5, 0.75, 1.0], [0.9, 0.5, 0.1]


def test_certified_accuracy_from_ecdf_refuses_series_with_other_indexes():
    # K18: the values were paired by position without a word
    with pytest.raises(ValueError, match=r"^ecdf_x and ecdf_y are pandas objects with different indexes \(ecdf_x: "
                       r"\[0, 1, 2\], ecdf_y: \[2, 1, 0\]\)"):  # fmt: skip
        certified_accuracy_from_ecdf(pd.Series(X), pd.Series(Y, index=[2, 1, 0]), [0.0], 100, 0.001, 0.25)
    # same index: as arrays. Radius 0 needs CP_lower(n_A, 100, 0.001) >= 1/2, first at n_A = 66; the plug-in rule reads
    # the ECDF at the first grid point at or above 0.66, x = 0.75, where y = 0.5
    got = certified_accuracy_from_ecdf(pd.Series(X), pd.Series(Y), [0.0], 100, 0.001, 0.25)
    assert got["min_count"].tolist() == [66.0] and got["certified_accuracy"].tolist() == [0.5]
    with pytest.raises(ValueError, match=r"^radii and accuracy are pandas objects with different indexes"):
        ecdf_from_certified_accuracy(pd.Series([0, 0.1, 0.2]), pd.Series(Y, index=[2, 1, 0]), X, 100, 0.001, 0.25)


FRAME = pd.DataFrame({"label": [0, 1, 2, 3], "predict": [0, 1, 2, 0], "radius": [0.1, 0.2, 0.3, 0.0],
                      "correct": [1, 1, 1, 0]})  # fmt: skip


def test_ecdf_refuses_a_count_offset_above_n():
    # K19: count_offset=10**6 with n=100 was accepted (every count clipped to 0: y = the clean accuracy everywhere)
    msg = (
        r"^count_offset must be at most n = 100 \(it is subtracted from the count ceil\(x n\), at most n\), got 1000000"
    )
    with pytest.raises(ValueError, match=msg):
        ecdf_from_certification(FRAME, 0.25, n=100, count_offset=10**6)
    with pytest.raises(ValueError, match=r"^count_offset must be at most n = 100 .*got 101"):
        ecdf_indicators(FRAME, 0.25, [0.5], n=100, count_offset=101)
    # n itself is the largest offset: every count is 0, which abstains, so y is the clean accuracy 3/4 everywhere
    assert set(ecdf_from_certification(FRAME, 0.25, n=100, count_offset=100)["y"]) == {0.75}
    ind = ecdf_indicators(FRAME, 0.25, [0.5, 1.0], n=100, count_offset=100)
    np.testing.assert_array_equal(ind, [[True, True], [True, True], [True, True], [False, False]])


def test_the_published_imagenet_gaussian_files_certify_beyond_n_1e5_alpha_0_001():
    """A data fact (probe K, K19): every published certification file reaches at most sigma * 3.81, the largest
    radius CERTIFY gives at the stated budget N = 1e5, alpha = 0.001 (all draws hit; radii printed to 3 significant
    digits) — except ImageNet's Gaussian files, which reach sigma * 3.91: the bound at alpha = 0.01 (or, the same
    number, N = 1.5e5 at alpha = 0.001). So those three files were certified with another budget than the data
    README and notebook 08 (`ecdf_curves` at N = 1e5, alpha = 0.001) assume for them."""
    from robeval.acr.published import published_frames
    from robeval.acr.theory import max_certified_radius

    stated, looser = max_certified_radius(100_000, 0.001, 1.0), max_certified_radius(100_000, 0.01, 1.0)
    assert round(float(stated), 2) == 3.81 and round(float(looser), 2) == 3.91
    top = {
        (d, s, m): float(f["radius"].max()) / s
        for d in ("cifar10", "imagenet")
        for (s, m), f in published_frames(d).items()
    }
    beyond = sorted(k for k, r in top.items() if r > stated + 0.01)  # 0.01: 3 significant digits of 0.953 / 0.25
    assert beyond == [("imagenet", 0.25, "gaussian"), ("imagenet", 0.5, "gaussian"), ("imagenet", 1.0, "gaussian")]
    assert all(abs(top[k] - looser) < 0.011 for k in beyond)
