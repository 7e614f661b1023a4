"""Tests of robeval.acr: Cohen et al.'s CERTIFY / PREDICT and the published TSV format."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import binomtest, norm
from statsmodels.stats.proportion import proportion_confint

from robeval.acr.files import format_radius, format_time, write_certification_tsv
from robeval.acr.smoothing import (
    ABSTAIN,
    Smooth,
    binom_test_two_sided,
    certified_radius,
    clopper_pearson_lower,
    radius_from_p_lower,
)


class Linear2(torch.nn.Module):
    """Binary linear base classifier: logits (0, w.x + b), i.e. class 1 iff w.x + b > 0."""

    def __init__(self, w, b):
        super().__init__()
        self.w = torch.nn.Parameter(torch.as_tensor(w, dtype=torch.float32), requires_grad=False)
        self.b = float(b)

    def forward(self, x):
        s = x.reshape(len(x), -1) @ self.w + self.b
        return torch.stack([torch.zeros_like(s), s], dim=1)


def linear_setup(d=8, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    return Linear2(w, 0.1), w, 0.1


def true_p_a(w, b, x, sigma):
    """P(f(x + eps) = 1) = Phi((w.x + b) / (sigma ||w||)) for the linear classifier."""
    return norm.cdf((x @ w + b) / (sigma * np.linalg.norm(w)))


def test_clopper_pearson_matches_statsmodels():
    n = np.array([1, 7, 100, 1000, 100000, 100000, 100000, 37])
    k = np.array([0, 7, 51, 999, 100000, 99000, 0, 20])
    for alpha in (0.001, 0.05, 0.2):
        ours = clopper_pearson_lower(k, n, alpha)
        ref = np.array([proportion_confint(kk, nn, alpha=2 * alpha, method="beta")[0] for kk, nn in zip(k, n)])
        ref = np.nan_to_num(ref, nan=0.0)
        np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-12)
    # all hits: closed form alpha ** (1 / n)
    assert clopper_pearson_lower(100000, 100000, 0.001) == pytest.approx(0.001**1e-5, rel=1e-12)


def test_radius_formula_and_abstain_below_half():
    # n_A = N: radius is sigma * Phi^{-1}(alpha^(1/N)); the published files top out at 0.953 / 3.81
    ab, r = certified_radius(100000, 100000, 0.001, 0.25)
    assert not ab and format_radius(r) == "0.953"
    ab, r = certified_radius(100000, 100000, 0.001, 1.0)
    assert format_radius(r) == "3.81"
    # generic count: sigma * Phi^{-1}(CP lower)
    p = proportion_confint(90000, 100000, alpha=0.002, method="beta")[0]
    ab, r = certified_radius(90000, 100000, 0.001, 0.5)
    assert r == pytest.approx(0.5 * norm.ppf(p), rel=1e-10)
    # 50.1% hits: lower bound below 1/2 -> abstain with radius 0
    ab, r = certified_radius(50100, 100000, 0.001, 0.5)
    assert ab and r == 0.0
    assert radius_from_p_lower(0.5, 1.0) == 0.0
    assert radius_from_p_lower(1 - 1e-12, 1.0) == pytest.approx(norm.isf(1e-12), rel=1e-6)


def test_binom_test_matches_scipy():
    for n in (0, 1, 2, 5, 17, 100, 1001):
        for k in range(0, n + 1, max(1, n // 13)):
            ref = 1.0 if n == 0 else binomtest(k, n, 0.5).pvalue
            assert binom_test_two_sided(k, n) == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_certify_linear_classifier_matches_closed_form():
    torch.manual_seed(0)
    model, w, b = linear_setup()
    sigma, n, alpha = 0.5, 20000, 0.001
    rng = np.random.default_rng(1)
    x = rng.normal(scale=0.4, size=(6, len(w))).astype(np.float32)
    p1 = true_p_a(w, b, x.astype(np.float64), sigma)
    p_top, c_top = np.maximum(p1, 1 - p1), (p1 > 0.5).astype(int)
    sm = Smooth(model, 2, sigma)
    res = sm.certify(x, n0=100, n=n, alpha=alpha, batch_size=4096, seed=3)
    for i in range(len(x)):
        se = math.sqrt(p_top[i] * (1 - p_top[i]) / n)
        # the count is Binomial(n, p_A): within 5 standard errors of the closed form
        assert abs(res.n_a[i] / n - p_top[i]) <= 5 * se + 1e-9
        # the lower bound lies below the truth and not far below (CP width ~ 3.1 se here)
        assert res.p_a_lower[i] <= p_top[i] + 1e-9 or abs(res.n_a[i] / n - p_top[i]) < 5 * se
        assert p_top[i] - res.p_a_lower[i] < 9 * se + 1e-4
        if res.p_a_lower[i] >= 0.5:
            assert res.prediction[i] == c_top[i]
            # certified radius <= distance to the decision hyperplane (the exact smoothed radius)
            dist = abs(x[i] @ w + b) / np.linalg.norm(w)
            assert res.radius[i] <= dist + 5 * sigma * se / norm.pdf(norm.ppf(p_top[i]))
            assert res.radius[i] == pytest.approx(sigma * norm.ppf(res.p_a_lower[i]), rel=1e-9)
        else:
            assert res.prediction[i] == ABSTAIN and res.radius[i] == 0.0


def test_certify_bound_coverage_is_valid():
    """P(p_A_lower > p_A) <= alpha: 300 certifications at alpha = 0.1 on points with p_A = 0.8."""
    model, w, b = linear_setup()
    sigma = 1.0
    # put all points where the closed-form p_A is 0.8
    u = w / np.linalg.norm(w)
    x = np.tile(((norm.ppf(0.8) * sigma * np.linalg.norm(w) - b) / np.linalg.norm(w)) * u, (300, 1)).astype(np.float32)
    p_true = true_p_a(w, b, x.astype(np.float64), sigma)
    assert np.allclose(p_true, 0.8, atol=1e-5)
    res = Smooth(model, 2, sigma).certify(x, n0=10, n=200, alpha=0.1, batch_size=60000, seed=11)
    exceed = np.mean(res.p_a_lower > 0.8)
    # binomial(300, <=0.1) upper tail: P(X >= 45) < 0.005
    assert exceed < 0.15
    # where selection picked the top class (n0 = 10 sometimes picks the other one, as it should),
    # the counts are Binomial(200, 0.8): mean within 4 standard errors
    top = res.counts0.argmax(axis=1) == 1
    assert 0.8 < top.mean() < 1.0
    assert abs(res.n_a[top].mean() - 160) < 4 * math.sqrt(200 * 0.16 / top.sum())


def test_predict_and_abstain_on_boundary():
    model, w, b = linear_setup()
    sm = Smooth(model, 2, 0.25)
    u = w / np.linalg.norm(w)
    far = (2.0 - b / np.linalg.norm(w)) * u  # distance 2 >> sigma: class 1 almost surely
    on = (-b / np.linalg.norm(w)) * u  # on the hyperplane: p = 1/2 exactly
    x = np.stack([far, -far - 2 * b / np.linalg.norm(w) * u] + [on] * 40).astype(np.float32)
    pred = sm.predict(x, n=500, alpha=0.01, batch_size=5000, seed=0)
    assert pred[0] == 1 and pred[1] == 0
    # on the boundary PREDICT returns a class with probability <= alpha per point
    assert np.mean(pred[2:] != ABSTAIN) <= 0.1


def test_seeded_reproducible_and_dataset_frame(tmp_path):
    model, w, b = linear_setup()
    sm = Smooth(model, 2, 0.5)
    x = np.random.default_rng(0).normal(size=(5, len(w))).astype(np.float32)
    y = (x @ w + b > 0).astype(int)
    a = sm.certify_dataset(x, y, n0=20, n=300, alpha=0.001, batch_size=256, seed=5, progress=False)
    c = sm.certify_dataset(x, y, n0=20, n=300, alpha=0.001, batch_size=256, seed=5, progress=False)
    pd.testing.assert_frame_equal(a.drop(columns="time"), c.drop(columns="time"))
    assert list(a.columns[:6]) == ["idx", "label", "predict", "radius", "correct", "time"]
    assert set(a["N"]) == {300}
    path = write_certification_tsv(a, tmp_path / "noise_0.5.tsv")
    text = path.read_text().splitlines()
    assert text[0] == "idx\tlabel\tpredict\tradius\tcorrect\ttime"
    back = pd.read_csv(path, sep="\t")
    np.testing.assert_allclose(back["radius"], a["radius"], rtol=5e-3, atol=1e-12)
    assert (back["predict"] == a["predict"]).all()


def test_tsv_formatting():
    assert format_radius(0.87654) == "0.877" and format_radius(0.0) == "0.0" and format_radius(3.8114) == "3.81"
    assert format_time(3.761169) == "0:00:03.761169"
    assert format_time(151.238689) == "0:02:31.238689"


def test_validation_errors():
    model, w, b = linear_setup()
    with pytest.raises(ValueError, match="sigma"):
        Smooth(model, 2, 0.0)
    with pytest.raises(ValueError, match="sigma"):
        Smooth(model, 2, -1)
    sm = Smooth(model, 2, 0.5)
    x = np.zeros((1, len(w)), np.float32)
    for alpha in (0.0, 1.0, -0.1, 2):
        with pytest.raises(ValueError, match="alpha"):
            sm.certify(x, 10, 10, alpha, seed=0)
    with pytest.raises(ValueError, match="n0 must"):
        sm.certify(x, 0, 10, 0.01, seed=0)
    with pytest.raises(ValueError, match="n must"):
        sm.certify(x, 10, 0, 0.01, seed=0)
    with pytest.raises(ValueError, match="n must"):
        sm.predict(x, 0, 0.01, seed=0)
    with pytest.raises(ValueError, match="uint8"):
        sm.certify(np.zeros((1, 8), np.uint8), 10, 10, 0.01, seed=0)
    with pytest.raises(ValueError, match="seed is required"):
        sm.certify(x, 10, 10, 0.01, seed=None)  # never fresh OS entropy
    with pytest.raises(TypeError, match="num_classes"):
        Smooth(model, 2.5, 0.5)
    with pytest.raises(ValueError, match="columns"):
        write_certification_tsv(pd.DataFrame({"idx": [0], "radius": [0.1]}), "/tmp/never.tsv")


def _mlp(k_out: int, d: int = 6, seed: int = 0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(d, 16), torch.nn.ReLU(), torch.nn.Linear(16, k_out)).eval()


def test_num_classes_must_match_the_logits():
    """A too-small num_classes would let votes spill into the next image's counts: it must raise."""
    x = np.random.default_rng(0).normal(size=(2, 6)).astype(np.float32)
    with pytest.raises(ValueError, match="num_classes=3"):
        Smooth(_mlp(5), 3, 0.5).certify(x, 10, 20, 0.01, seed=0)
    with pytest.raises(ValueError, match="num_classes=7"):
        Smooth(_mlp(5), 7, 0.5).predict(x, 20, 0.01, seed=0)


def test_an_unbatched_image_gets_a_clear_message():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten(), torch.nn.LazyLinear(10)).eval()
    model(torch.zeros(1, 3, 8, 8))
    one = np.zeros((3, 8, 8), np.float32)
    with pytest.raises(ValueError, match=r"x\[None\]"):
        Smooth(model, 10, 0.25).certify(one, 10, 10, 0.01, seed=0)
    assert Smooth(model, 10, 0.25).certify(one[None], 10, 10, 0.01, seed=0).prediction.shape == (1,)


def test_results_do_not_depend_on_speed_settings():
    """batch_size and images_per_step group the work; every image's noise is keyed by (seed, idx)."""
    model = _mlp(3)
    sm = Smooth(model, 3, 0.5)
    x = np.random.default_rng(1).normal(size=(8, 6)).astype(np.float32)
    y = np.arange(8) % 3
    runs_ = [
        sm.certify_dataset(x, y, n0=30, n=700, alpha=0.01, batch_size=bs, images_per_step=ips, seed=4, progress=False)
        for bs, ips in ((64, 1), (1000, 8), (333, 3), (7, 5))
    ]
    for other in runs_[1:]:
        pd.testing.assert_frame_equal(runs_[0].drop(columns="time"), other.drop(columns="time"))
    # 8 images at once equal 4 + 4 with their dataset indices
    whole = sm.certify(x, 30, 700, 0.01, batch_size=100, seed=4)
    a = sm.certify(x[:4], 30, 700, 0.01, batch_size=50, seed=4, idx=np.arange(4))
    b = sm.certify(x[4:], 30, 700, 0.01, batch_size=999, seed=4, idx=np.arange(4, 8))
    np.testing.assert_array_equal(whole.n_a, np.concatenate([a.n_a, b.n_a]))
    np.testing.assert_array_equal(whole.counts0, np.concatenate([a.counts0, b.counts0]))
    # and another seed gives other counts
    assert not np.array_equal(whole.n_a, sm.certify(x, 30, 700, 0.01, seed=5).n_a)
    p1 = sm.predict(x, 500, 0.01, batch_size=64, seed=2)
    np.testing.assert_array_equal(p1, sm.predict(x, 500, 0.01, batch_size=10_000, seed=2))


# --------------------------------------------------------------------------- sequential certification
class _Threshold(torch.nn.Module):
    """f(z) = 1[z_0 > 0]: smoothed with N(0, sigma^2) noise, p_A(class 1) = Phi(x_0 / sigma) exactly."""

    def forward(self, z):
        return torch.stack([-z[:, 0], z[:, 0]], dim=1) * 1000.0


def test_sequential_certification_never_certifies_more_often_than_alpha():
    """2000 independent trials of a point whose true p_A is just below the threshold Phi(r / sigma): the
    fraction falsely certified must not exceed alpha (Bonferroni spending over the stages keeps it valid under
    optional stopping)."""
    from robeval.acr.smoothing import sequential_schedule

    sigma, r, alpha = 1.0, 0.5, 0.05
    x0 = r - 0.05  # p_A = Phi(0.45) < p* = Phi(0.5)
    sm = Smooth(_Threshold(), 2, sigma)
    x = np.full((2000, 1), x0, np.float32)
    res = sm.certify_radius(x, r, n0=10, n_max=3200, alpha=alpha, batch_size=20000, seed=0)
    rate = res.certified.mean()
    assert rate <= alpha, rate
    assert len(sequential_schedule(100, 3200)) == 6 and res.threshold == pytest.approx(norm.cdf(0.5))


def test_sequential_certification_agrees_with_certify_and_saves_draws():
    sigma, r, alpha = 1.0, 0.5, 0.001
    sm = Smooth(_Threshold(), 2, sigma)
    x0 = np.array([2.5, 1.5, 1.0, 0.1, -0.2, 3.0], np.float32)[:, None]  # true radii = |x0| (linear model)
    seq = sm.certify_radius(x0, r, n0=50, n_max=100_000, alpha=alpha, batch_size=50_000, seed=1)
    fixed = sm.certify(x0, 50, 100_000, alpha, batch_size=50_000, seed=1)
    # where both are confident (true radius far from r), they agree
    np.testing.assert_array_equal(seq.certified, fixed.radius >= r)
    np.testing.assert_array_equal(seq.certified, [True, True, True, False, False, True])
    # points far from the threshold stop after the first stages
    assert seq.n_used[0] <= 200 and seq.n_used[5] <= 200 and seq.n_used.mean() < 100_000 / 10
    # abstentions: class -1 where not certified
    assert (seq.prediction[~seq.certified] == -1).all() and (seq.prediction[seq.certified] == 1).all()


def test_sequential_certification_does_not_depend_on_grouping():
    sm = Smooth(_mlp(3), 3, 0.5)
    x = np.random.default_rng(2).normal(size=(8, 6)).astype(np.float32)
    whole = sm.certify_radius(x, 0.1, 20, 3200, 0.01, batch_size=64, seed=9)
    a = sm.certify_radius(x[:4], 0.1, 20, 3200, 0.01, batch_size=1000, seed=9, idx=np.arange(4))
    b = sm.certify_radius(x[4:], 0.1, 20, 3200, 0.01, batch_size=7, seed=9, idx=np.arange(4, 8))
    np.testing.assert_array_equal(whole.n_a, np.concatenate([a.n_a, b.n_a]))
    np.testing.assert_array_equal(whole.n_used, np.concatenate([a.n_used, b.n_used]))
    with pytest.raises(ValueError, match="radius"):
        sm.certify_radius(x, -1.0, 20, 3200, 0.01, seed=0)
    with pytest.raises(ValueError, match="n_start"):
        sm.certify_radius(x, 0.1, 20, 50, 0.01, seed=0)
