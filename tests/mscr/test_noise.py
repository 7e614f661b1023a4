"""Tests for robeval.mscr.noise: exact count, support, uniformity (KS of the radial CDF), determinism."""

import numpy as np
import pytest
from scipy import stats

from robeval.mscr.noise import radial_cdf, sample_offsets, sample_uniform_ball, unit_ball_offsets


def _norm(v, p):
    return np.linalg.norm(v, ord=p, axis=-1)


@pytest.mark.parametrize("norm", [np.inf, 2, 1])
@pytest.mark.parametrize("d", [1, 2, 5, 3072])
def test_exact_count_inside_ball(norm, d):
    X = np.random.default_rng(0).random((4, d))
    out = sample_uniform_ball(X, 0.3, 7, norm, np.random.default_rng(1))
    assert out.shape == (4, 7, d)
    assert np.all(_norm(out - X[:, None, :], norm) <= 0.3 * (1 + 1e-12))


@pytest.mark.parametrize("norm", [np.inf, 2, 1])
@pytest.mark.parametrize("d", [2, 3, 10, 50])
def test_radial_cdf_ks(norm, d):
    # for a uniform point in any L_p ball of radius 1: P(||x||_p <= r) = r^d
    off = unit_ball_offsets(4000, 1, d, norm, np.random.default_rng(10 + d))[:, 0]
    r = _norm(off, norm)
    res = stats.kstest(r, lambda t: radial_cdf(t, d, norm))
    assert res.pvalue > 1e-3, (norm, d, res)


def test_ks_detects_the_wrong_radius_law():
    # the test must be able to fail: radius U instead of U^(1/d) is rejected
    rng = np.random.default_rng(0)
    g = rng.standard_normal((4000, 5))
    bad = g / np.linalg.norm(g, axis=1, keepdims=True) * rng.random((4000, 1))
    assert stats.kstest(np.linalg.norm(bad, axis=1), lambda t: radial_cdf(t, 5)).pvalue < 1e-6


def test_l1_orthants_and_symmetry():
    off = unit_ball_offsets(20000, 1, 3, 1, np.random.default_rng(5))[:, 0]
    # each of the 8 orthants gets 1/8 of the mass
    codes = ((off > 0) * np.array([1, 2, 4])).sum(1)
    counts = np.bincount(codes, minlength=8)
    assert stats.chisquare(counts).pvalue > 1e-3
    # coordinate marginal of the uniform 3-D cross-polytope: density 3/2 (1 - |t|)^2 on [-1, 1]
    cdf = lambda t: np.where(t < 0, 0.5 * (1 + t) ** 3, 1 - 0.5 * (1 - t) ** 3)
    assert stats.kstest(off[:, 0], cdf).pvalue > 1e-3


def test_linf_marginals_uniform_and_independent():
    off = unit_ball_offsets(5000, 2, 3, np.inf, np.random.default_rng(2)).reshape(-1, 3)
    for j in range(3):
        assert stats.kstest(off[:, j], stats.uniform(-1, 2).cdf).pvalue > 1e-3
    assert abs(np.corrcoef(off.T)[0, 1]) < 0.05


def test_l2_direction_uniform_in_2d():
    off = unit_ball_offsets(5000, 1, 2, 2, np.random.default_rng(8))[:, 0]
    angle = np.arctan2(off[:, 1], off[:, 0])
    assert stats.kstest(angle, stats.uniform(-np.pi, 2 * np.pi).cdf).pvalue > 1e-3


def test_seeded_determinism_and_eps_scaling():
    X = np.zeros((3, 4))
    a = sample_uniform_ball(X, 0.5, 2, 2, np.random.default_rng(42))
    b = sample_uniform_ball(X, 0.5, 2, 2, np.random.default_rng(42))
    c = sample_uniform_ball(X, 0.5, 2, 2, np.random.default_rng(43))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # same random numbers, radius doubled -> offsets doubled
    np.testing.assert_allclose(sample_offsets(3, 2, 4, 1.0, 2, np.random.default_rng(42)), 2 * a)


def test_eps_zero_gives_copies_and_images_keep_shape_and_clip():
    X = np.random.default_rng(0).random((2, 3, 4, 4)).astype(np.float32)
    out = sample_uniform_ball(X, 0.0, 3, np.inf, np.random.default_rng(0))
    assert out.shape == (2, 3, 3, 4, 4) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.repeat(X[:, None], 3, axis=1))
    big = sample_uniform_ball(X, 0.5, 3, np.inf, np.random.default_rng(0), clip=(0.0, 1.0))
    assert big.min() >= 0.0 and big.max() <= 1.0


def test_gaussian_option_std():
    off = sample_offsets(20000, 1, 2, 0.1, "gaussian", np.random.default_rng(0))
    assert np.std(off) == pytest.approx(0.1, rel=0.02)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(eps=-0.1), "eps"),
        (dict(eps=float("nan")), "eps"),
        (dict(k=0), "k must be"),
        (dict(norm=3), "norm"),
        (dict(rng=None), "rng is required"),
    ],
)
def test_bad_input(kwargs, match):
    args = dict(X=np.zeros((2, 2)), eps=0.1, k=2, norm=np.inf, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sample_uniform_ball(**args)


def test_nan_features_rejected():
    with pytest.raises(ValueError, match="NaN"):
        sample_uniform_ball(np.array([[np.nan, 0.0]]), 0.1, 1, 2, np.random.default_rng(0))


# ------------------------------------------------------------------ probe J, F7: float over- and underflow
def test_an_eps_the_dtype_cannot_hold_is_refused_by_name():
    """Probe J, F7: eps = 1e39 in float32 gave inf offsets, eps = 1e-46 gave no noise at all (every offset 0.0)
    although eps > 0; a Gaussian eps near float64's limit overflowed in its tail; a centre near float32's limit
    plus the noise overflowed. Each is refused naming eps (or X) and the dtype."""
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"eps = 1e\+39 is beyond float32's largest number .*dtype=np\.float64"):
        sample_offsets(1, 2, 2, 1e39, 2, g, dtype=np.float32)
    with pytest.raises(ValueError, match=r"eps = 1e\+39 is beyond float32's largest number"):
        sample_uniform_ball(np.zeros((2, 2), np.float32), 1e39, 2, 2, g)
    with pytest.raises(ValueError, match=r"eps = 1e-46 is below float32's smallest normal number .*no noise at all"):
        sample_offsets(1, 2, 2, 1e-46, 2, g, dtype=np.float32)
    with pytest.raises(ValueError, match=r"eps = 1e-310 is below float64's smallest normal number"):
        sample_offsets(1, 2, 2, 1e-310, np.inf, g)
    with pytest.raises(ValueError, match=r"eps = 1e\+308 times the noise overflows float64 \(Gaussian draws beyond"):
        sample_offsets(10, 100, 2, 1e308, "gaussian", g)
    with pytest.raises(
        ValueError,
        match=r"X plus noise of radius eps = 1e\+38 overflows float32 \(a centre of magnitude up to 3\.3e\+38\)",
    ):
        sample_uniform_ball(np.full((2, 2), 3.3e38, np.float32), 1e38, 50, np.inf, g)
    # the limits themselves are fine: float32's largest eps, float64's for a ball, float32's smallest normal
    big = float(np.finfo(np.float32).max)
    assert np.all(np.isfinite(sample_offsets(2, 3, 2, big, np.inf, g, dtype=np.float32)))
    assert np.all(np.isfinite(sample_offsets(2, 3, 2, 1.7e308, 1, g)))
    tiny = sample_offsets(2, 3, 2, float(np.finfo(np.float32).tiny), np.inf, g, dtype=np.float32)
    assert np.count_nonzero(tiny) == tiny.size


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", [np.inf, 2, 1, "gaussian"])
def test_ordinary_eps_draws_exactly_as_before(dtype, norm):
    """The checks add no arithmetic: an ordinary eps gives exactly ``eps * unit_ball_offsets(...)`` (the formula
    before probe J) and the ball around X exactly ``X + that``."""
    for eps in (0.0, 1e-3, 0.25, 8.0):
        got = sample_offsets(5, 7, 3, eps, norm, np.random.default_rng(0), dtype=dtype)
        want = eps * unit_ball_offsets(5, 7, 3, norm, np.random.default_rng(0), dtype=dtype)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        X = np.random.default_rng(1).random((4, 3)).astype(dtype)
        ball = sample_uniform_ball(X, eps, 7, norm, np.random.default_rng(0))
        offsets = eps * unit_ball_offsets(4, 7, 3, norm, np.random.default_rng(0), dtype=dtype)
        assert ball.dtype == dtype and np.array_equal(ball, X[:, None, :] + offsets)
