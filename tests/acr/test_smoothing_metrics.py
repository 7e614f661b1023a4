"""Tests of robeval.acr: ACR, certified accuracy, ECDF of p_A, Appendix B, theory."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from robeval.acr.ecdf import certified_accuracy_from_ecdf, ecdf_from_certification, ecdf_from_certified_accuracy
from robeval.acr.files import load_certification, load_published_ecdf
from robeval.acr.metrics import acr, best_over_sigma, certification_table, certified_accuracy, check_certification_frame
from robeval.acr.smoothing import clopper_pearson_lower
from robeval.acr.theory import (
    budget_toy_example,
    constant_p_acr,
    fig2_curves,
    max_certified_radius,
    min_count_for_radius,
    radius_for_count,
    theorem1_min_budget,
    trivial_classifier_acr,
)
from robeval.core.data import DataFileMissing


def hand_table():
    # correct, radius: ACR = (0.5 + 1.2 + 0.25) / 6 = 0.325
    return pd.DataFrame(
        {
            "idx": range(6),
            "label": [0, 1, 2, 3, 4, 5],
            "predict": [0, 1, -1, 2, 4, 4],
            "radius": [0.5, 1.2, 0.0, 0.8, 0.25, 0.25],
            "correct": [1, 1, 0, 0, 1, 0],
        }
    )


def test_acr_and_certified_accuracy_hand_table():
    df = hand_table()
    assert acr(df) == pytest.approx((0.5 + 1.2 + 0.25) / 6)
    acc = certified_accuracy(df, [0.0, 0.25, 0.3, 0.5, 0.8, 1.2, 1.21])
    np.testing.assert_allclose(acc, np.array([3, 3, 2, 2, 1, 1, 0]) / 6)
    tab = certification_table({("s", "m"): df}, [0.0, 0.5])
    assert tab.loc[("s", "m"), "ACR"] == pytest.approx(0.325)
    assert tab.loc[("s", "m"), "0.50"] == pytest.approx(100 * 2 / 6)


def test_best_over_sigma():
    a = hand_table()
    b = a.assign(radius=[0.1, 0.1, 0.0, 0.0, 2.0, 0.0], correct=[1, 1, 0, 0, 1, 1], predict=[0, 1, -1, 2, 4, 5])
    out = best_over_sigma({0.25: a, 1.0: b}, [0.0, 0.5, 1.5])
    np.testing.assert_allclose(out["best_accuracy"], [4 / 6, 2 / 6, 1 / 6])
    assert list(out["best_sigma"]) == [1.0, 0.25, 1.0]


def test_frame_validation():
    with pytest.raises(ValueError, match="lacks columns"):
        acr(pd.DataFrame({"idx": [0], "radius": [0.2], "correct": [1]}))
    with pytest.raises(TypeError, match="DataFrame"):
        acr(np.zeros((3, 6)))
    with pytest.raises(ValueError, match="radius"):
        check_certification_frame(hand_table().assign(radius=-1.0))
    # an abstention certifies nothing: marked correct, it would be counted by certified_accuracy
    with pytest.raises(ValueError, match="abstentions"):
        certified_accuracy(hand_table().assign(correct=[1, 1, 1, 0, 1, 0]), [0.0])
    with pytest.raises(ValueError, match="disagrees with predict == label"):
        acr(hand_table().assign(correct=[1, 1, 0, 1, 1, 0]))
    with pytest.raises(ValueError, match="radii must be finite numbers >= 0"):
        certified_accuracy(hand_table(), [-0.5])
    with pytest.raises(ValueError, match="alpha"):
        max_certified_radius(1000, 1.5, 1.0)
    with pytest.raises(ValueError, match="sigma"):
        max_certified_radius(1000, 0.001, 0.0)
    with pytest.raises(ValueError, match="n must"):
        min_count_for_radius(0.1, 0, 0.001, 1.0)


def test_max_radius_and_min_count():
    # the published files' largest radii: 0.953 (sigma 0.25), 1.91 (0.5), 3.81 (1.0)
    assert max_certified_radius(100000, 0.001, 1.0) == pytest.approx(3.8114566, rel=1e-6)
    assert max_certified_radius(100000, 0.001, 0.25) == pytest.approx(0.95286, rel=1e-4)
    assert max_certified_radius(1e300, 0.001, 1.0) > 30
    n, alpha, sigma = 1000, 0.01, 0.5
    r_all = radius_for_count(np.arange(n + 1), n, alpha, sigma)
    assert np.all(np.diff(r_all) > 0)
    for r in (0.0, 0.1, 0.37, 0.9, float(r_all[-1])):
        brute = np.argmax(r_all >= r)
        assert min_count_for_radius(r, n, alpha, sigma)[0] == brute
    assert np.isnan(min_count_for_radius(r_all[-1] + 1e-6, n, alpha, sigma)[0])


def synthetic_certification(rng, m=3000, n=100000, alpha=0.001, sigma=0.5):
    """Certification frame with exact radii from simulated counts (p_A ~ Beta, 70% correct)."""
    p = np.clip(rng.beta(4, 0.7, size=m), 0, 1)
    n_a = rng.binomial(n, p)
    pl = clopper_pearson_lower(n_a, n, alpha)
    abst = pl < 0.5
    r = np.where(abst, 0.0, sigma * norm.ppf(np.where(abst, 0.5, pl)))
    correct = (~abst) & (rng.random(m) < 0.9)
    return pd.DataFrame(
        {
            "idx": range(m),
            "label": 0,
            "predict": np.where(abst, -1, np.where(correct, 0, 1)),
            "radius": r,
            "correct": correct.astype(int),
        }
    ), n_a


def test_ecdf_from_certification_counts():
    rng = np.random.default_rng(0)
    df, n_a = synthetic_certification(rng)
    e = ecdf_from_certification(df, 0.5, count_offset=0)
    ok = df["correct"].to_numpy().astype(bool)
    direct = np.array([np.mean(ok & (n_a >= math.ceil(x * 100000 - 1e-9))) for x in e["x"]])
    # below ~0.505 the counts still abstain; there the curve is the clean certified accuracy
    lo = e["x"].to_numpy() <= 0.505
    np.testing.assert_allclose(e["y"].to_numpy()[~lo], direct[~lo])
    np.testing.assert_allclose(e["y"].to_numpy()[lo], ok.mean())
    assert np.all(np.diff(e["y"]) <= 0)


def test_appendix_b_round_trip():
    rng = np.random.default_rng(1)
    df, _ = synthetic_certification(rng)
    n, alpha, sigma = 100000, 0.001, 0.5
    e = ecdf_from_certification(df, sigma, n, alpha, count_offset=0)
    x = e["x"].to_numpy()[10:]
    y = e["y"].to_numpy()[10:]
    # B.1 under the same budget, at the radii certified by the grid's counts, returns the ECDF ...
    radii = radius_for_count(np.ceil(x * n - 1e-9), n, alpha, sigma)
    b1 = certified_accuracy_from_ecdf(x, y, radii, n, alpha, sigma)
    np.testing.assert_allclose(b1["min_p_a"], x, atol=1e-9)
    np.testing.assert_allclose(b1["certified_accuracy"], y)
    # ... and B.2 maps that curve back to the same ECDF
    b2 = ecdf_from_certified_accuracy(radii, b1["certified_accuracy"], x, n, alpha, sigma)
    np.testing.assert_allclose(b2["y"], y)
    # B.1 from the ECDF agrees with certified accuracy computed on the frame itself
    np.testing.assert_allclose(b1["certified_accuracy"], certified_accuracy(df, radii), atol=1e-12)


def test_appendix_b_cheaper_budget_binomial_vs_plugin():
    x = np.round(np.arange(500, 1001) / 1000, 3)
    y = np.where(x <= 0.9, 0.6, 0.0)  # 60% correct with p_A = 0.9 exactly (point mass)
    y[-1] = 0.0
    out = certified_accuracy_from_ecdf(x, y, [0.0, 0.3], 1000, 0.001, 0.5, method="binomial")
    n_min = out["min_count"].to_numpy()
    from scipy.stats import binom

    np.testing.assert_allclose(out["certified_accuracy"], 0.6 * binom.sf(n_min - 1, 1000, 0.9), rtol=1e-10)
    plug = certified_accuracy_from_ecdf(x, y, [0.0, 0.3], 1000, 0.001, 0.5)
    assert plug["certified_accuracy"].iloc[0] == pytest.approx(0.6)
    with pytest.raises(ValueError, match="non-increasing"):
        certified_accuracy_from_ecdf(x, 1 - y, [0.1], 1000, 0.001, 0.5)


def test_theorem1_budget():
    for a, pi, sigma in [(1.0, 0.1, 0.5), (2.0, 0.5, 1.0), (5.0, 0.5, 1.0)]:
        n = theorem1_min_budget(a, 0.001, sigma, pi)
        assert trivial_classifier_acr(n, 0.001, sigma, pi) > a
        assert trivial_classifier_acr(max(n - 1, 1) if n < 1e15 else n * (1 - 1e-6), 0.001, sigma, pi) <= a * (1 + 1e-9)
    # closed form: N = ln(alpha) / ln Phi(A / (pi sigma))
    assert theorem1_min_budget(1.0, 0.001, 1.0, 0.5) == math.floor(math.log(0.001) / norm.logcdf(2.0)) + 1


def test_fig2_curves():
    f = fig2_curves([0.5, 0.9, 0.999, 0.99999], sigma=1.0)
    assert f["radius"].iloc[0] == 0.0 and f["dradius_dp"].iloc[0] == pytest.approx(math.sqrt(2 * math.pi))
    h = 1e-7
    for p, d in zip(f["p"].iloc[1:3], f["dradius_dp"].iloc[1:3]):
        fd = (norm.ppf(p + h) - norm.ppf(p - h)) / (2 * h)
        assert d == pytest.approx(fd, rel=1e-4)
    # the extreme case of Section 4.2: the slope at the largest certifiable p_A (N=1e5,
    # alpha=1e-3) is more than 1000x the slope at p_A = 1/2
    p_max = 0.001**1e-5
    assert fig2_curves([p_max])["dradius_dp"].iloc[0] / math.sqrt(2 * math.pi) > 1000


def test_budget_toy_example_and_constant_p():
    assert constant_p_acr(1.0, [1000], 0.001, 0.5)[0] == pytest.approx(max_certified_radius(1000, 0.001, 0.5))
    assert constant_p_acr(0.9, [1000], 0.001, 0.5, mode="plugin")[0] == pytest.approx(
        float(radius_for_count(900, 1000, 0.001, 0.5))
    )
    t = budget_toy_example(0.9, [30, 100, 300, 10**6], sigma=0.5, alpha=0.001, mode="plugin")
    # the ACR order flips twice as the budget grows: trivial, constant, trivial
    assert list(t["better"]) == ["trivial", "constant", "trivial", "trivial"]
    np.testing.assert_allclose(t["acr_trivial"], 0.5 * max_certified_radius(t["N"].to_numpy(float), 0.001, 0.5))


def _published(method, sigma):
    pass

    try:
        return load_certification("cifar10", method, sigma), load_published_ecdf(method, sigma)
    except (DataFileMissing, OSError) as exc:  # pragma: no cover - only without the data mirror
        pytest.skip(f"published ACR data not available: {exc}")


def test_published_catrs_matches_table3_and_ecdf_file():
    df, pub = _published("catrs", 0.5)
    assert len(df) == 10000
    # Table 3, CAT-RS at sigma = 0.5: ACR 0.757, certified accuracy 62.3 / 50.5 / 38.5 / 27.1 at r = 0 / 0.5 / 1.0 / 1.5
    assert acr(df) == pytest.approx(0.757, abs=6e-4)
    np.testing.assert_allclose(100 * certified_accuracy(df, [0.0, 0.5, 1.0, 1.5]), [62.3, 50.5, 38.5, 27.1], atol=0.1)
    # the largest radius in the file is the budget's maximum (all 1e5 draws hit), stored with 3 digits
    assert df["radius"].max() == pytest.approx(max_certified_radius(100000, 0.001, 0.5), abs=5e-3)
    e = ecdf_from_certification(df, 0.5)
    np.testing.assert_allclose(e["x"], pub["x"])
    assert np.abs(e["y"].to_numpy() - pub["y"].to_numpy()).max() <= 0.002


def test_acr_of_radii_whose_sum_overflows():
    """Probe J, F7: radii 1e308 (finite, so valid) gave ACR inf: their sum overflowed before the division. The mean
    is taken at a scale where (and only where) the plain one overflows; ordinary frames give exactly the plain
    mean as before."""
    big = pd.DataFrame({"idx": [0, 1, 2], "label": [0, 1, 2], "predict": [0, 1, 0], "radius": [1e308, 1e308, 0.0],
                        "correct": [1, 1, 0]})  # fmt: skip
    assert acr(big) == pytest.approx(2 * (1e308 / 3), rel=1e-15) and math.isfinite(acr(big))
    rng = np.random.default_rng(0)
    for n in (1, 7, 1000):
        df = pd.DataFrame({"idx": range(n), "label": rng.integers(0, 3, n)})
        df["predict"] = np.where(rng.random(n) < 0.7, df["label"], (df["label"] + 1) % 3)
        df["correct"] = (df["predict"] == df["label"]).astype(int)
        df["radius"] = rng.random(n) * 3
        plain = float((df["radius"].to_numpy(np.float64) * df["correct"].to_numpy(np.float64)).mean())
        assert acr(df) == plain  # bit for bit: the formula before probe J
