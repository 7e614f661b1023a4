"""Tests for robeval.realworld.robustness (Monte-Carlo real-world robustness) and its closed forms."""

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from robeval.realworld.analytic import (
    bivariate_normal_cdf,
    linear_classifier,
    linear_counterfactual,
    linear_robustness,
    right_angle_classifier,
    right_angle_counterfactual,
    right_angle_robustness,
)
from robeval.realworld.covariance import covariance_factor, identity_covariance, random_covariance, trace_normalized
from robeval.realworld.robustness import (
    max_order_violation,
    min_pairwise_correlation,
    real_world_robustness,
    rescale_distances,
)
from robeval.realworld.samplers import BoundedPerturbation, CategoricalPerturbation, GaussianPerturbation

ANISO = np.array([[1.0, 0.6], [0.6, 0.5]])


def _assert_agrees(mc, exact, n):
    """Each point's number of label changes is Binomial(n, 1 - exact): exact two-sided test per point."""
    k = np.rint((1 - mc) * n)
    q = np.clip(1 - exact, 0.0, 1.0)
    pval = np.minimum(1.0, 2 * np.minimum(stats.binom.cdf(k, n, q), stats.binom.sf(k - 1, n, q)))
    assert pval.min() > 1e-5, pval.min()  # Bonferroni over ~150 points: family-wise level ~1e-3
    # where the normal approximation holds, the z-scores have mean square near 1
    se = np.sqrt(q * (1 - q) / n)
    keep = n * q * (1 - q) > 20
    assert keep.sum() > 20
    z = (mc[keep] - exact[keep]) / se[keep]
    assert 0.6 < np.mean(z**2) < 1.5, np.mean(z**2)


# ---------------------------------------------------------------- closed forms


def test_linear_closed_form_is_paper_eq8():
    # Appendix A.1 with w1 = 0, b = 0: P_r = 1/2 +- 1/2 erf((2 sqrt2 w2 x2 - sqrt2) / (4 sigma2 w2))
    w2, s1, s2 = 1.7, 0.4, 0.8
    x2 = np.linspace(-2, 3, 41)
    X = np.column_stack([np.zeros_like(x2) + 5.0, x2])
    got = linear_robustness(X, [0.0, w2], 0.0, cov=np.diag([s1**2, s2**2]))
    e = special.erf((2 * np.sqrt(2) * w2 * x2 - np.sqrt(2)) / (4 * s2 * w2))
    paper = np.where(x2 > 1 / (2 * w2), 0.5 * e + 0.5, -0.5 * e + 0.5)
    np.testing.assert_allclose(got, paper, atol=1e-14)


def test_linear_closed_form_hand_values():
    # margin 1 standard deviation -> Phi(1); on the boundary -> 1/2; zero variance along w -> 1
    X = np.array([[0.0, 1.5], [0.0, 0.5], [3.0, 2.0]])
    np.testing.assert_allclose(linear_robustness(X[:2], [0, 1], 0, np.eye(2)), [stats.norm.cdf(1), 0.5])
    assert linear_robustness(X[2:], [0, 1], 0, np.diag([1.0, 0.0]))[0] == 1.0


def test_bivariate_normal_cdf_matches_scipy():
    rng = np.random.default_rng(0)
    h, k = rng.normal(scale=2, size=(2, 60))
    rho = rng.uniform(-0.95, 0.95, 60)
    h[:4] = 0.0
    k[2:6] = 0.0
    ref = [stats.multivariate_normal(cov=[[1, r], [r, 1]]).cdf([a, b]) for a, b, r in zip(h, k, rho)]
    np.testing.assert_allclose(bivariate_normal_cdf(h, k, rho), ref, atol=1e-7)
    # independence factorises; infinite limits reduce to the marginal
    np.testing.assert_allclose(bivariate_normal_cdf(0.3, -0.4, 0.0), stats.norm.cdf(0.3) * stats.norm.cdf(-0.4))
    np.testing.assert_allclose(bivariate_normal_cdf(np.inf, 0.7, 0.5), stats.norm.cdf(0.7))
    assert bivariate_normal_cdf(-np.inf, 0.7, 0.5) == 0.0


def test_right_angle_closed_form_hand_values():
    a = (1.0, -1.0)
    # isotropic sigma = 1: inside point 1 sd from both edges -> Phi(1)^2; at the corner -> 1 - 1/4
    X = np.array([[2.0, 0.0], [1.0, -1.0], [0.0, -1.0 + 1e-12]])
    got = right_angle_robustness(X, a)
    np.testing.assert_allclose(got[:2], [stats.norm.cdf(1) ** 2, 0.75])
    np.testing.assert_allclose(got[2], 1 - stats.norm.cdf(-1) * 0.5, atol=1e-9)


def test_counterfactuals_hand_computed():
    x_cf, d = linear_counterfactual([[3.0, 2.0], [0.0, 0.0]], [0.0, 2.0], 0.0)
    np.testing.assert_allclose(x_cf, [[3.0, 0.25], [0.0, 0.25]])
    np.testing.assert_allclose(d, [1.75, 0.25])
    X = np.array([[2.0, 0.5], [0.5, 3.0], [-2.0, 4.0], [3.0, -1.0], [-3.0, -4.0]])
    x_cf, d = right_angle_counterfactual(X, (0.0, 0.0))
    np.testing.assert_allclose(d, [0.5, 0.5, 2.0, 1.0, 5.0])
    np.testing.assert_allclose(x_cf, [[2.0, 0.0], [0.0, 3.0], [0.0, 4.0], [3.0, 0.0], [0.0, 0.0]])


# ------------------------------------------------ Monte Carlo vs closed forms


@pytest.mark.parametrize("cov", [np.eye(2) * 0.5, ANISO], ids=["isotropic", "anisotropic"])
def test_mc_matches_linear_closed_form(cov):
    rng = np.random.default_rng(1)
    w, b = np.array([0.8, -1.3]), 0.2
    X = rng.uniform(-2, 2, size=(150, 2))
    n = 4000
    mc = real_world_robustness(linear_classifier(w, b), X, cov=cov, n_samples=n, rng=2)
    _assert_agrees(mc, linear_robustness(X, w, b, cov), n)


def test_mc_matches_linear_closed_form_5d():
    rng = np.random.default_rng(3)
    d = 5
    w = rng.normal(size=d)
    cov = trace_normalized(random_covariance(d, 4), scale=3.0)
    X = rng.normal(size=(120, d))
    n = 4000
    mc = real_world_robustness(linear_classifier(w, 0.1), X, cov=cov, n_samples=n, rng=5)
    _assert_agrees(mc, linear_robustness(X, w, 0.1, cov), n)


@pytest.mark.parametrize("cov", [np.eye(2), ANISO], ids=["isotropic", "anisotropic"])
def test_mc_matches_right_angle_closed_form(cov):
    rng = np.random.default_rng(6)
    a = (0.5, -0.2)
    # half the points near the corner, where the two robustness notions disagree
    X = np.vstack([rng.uniform(-3, 3, size=(100, 2)), np.asarray(a) + rng.normal(scale=0.4, size=(60, 2))])
    n = 4000
    mc = real_world_robustness(right_angle_classifier(a), X, cov=cov, n_samples=n, rng=7)
    _assert_agrees(mc, right_angle_robustness(X, a, cov), n)


def test_per_point_covariance_stack():
    rng = np.random.default_rng(8)
    X = rng.uniform(-1.5, 1.5, size=(80, 2))
    A = rng.normal(size=(80, 2, 2))
    covs = np.einsum("nji,njk->nik", A, A) * rng.uniform(0.05, 2.0, size=(80, 1, 1))
    covs[:5] = 0.0  # no uncertainty at all -> prediction can never change
    n = 4000
    f = right_angle_classifier((0.0, 0.0))
    mc = real_world_robustness(f, X, cov=covs, n_samples=n, rng=9)
    np.testing.assert_array_equal(mc[:5], 1.0)
    _assert_agrees(mc[5:], right_angle_robustness(X[5:], (0.0, 0.0), covs[5:]), n)
    # a stack of identical matrices is the same as the shared matrix
    same = real_world_robustness(f, X, cov=np.repeat(ANISO[None], 80, axis=0), n_samples=500, rng=1)
    np.testing.assert_array_equal(same, real_world_robustness(f, X, cov=ANISO, n_samples=500, rng=1))


# ------------------------------------------------------------ Monte Carlo error


def test_standard_error_shrinks_like_inverse_sqrt_n():
    # 400 copies of a point with exact P_r = Phi(0.25) (margin 0.5, sd 2); each copy has its own random stream
    f = linear_classifier([1.0, 0.0], 0.0)
    X = np.tile([[1.0, 0.0]], (400, 1))
    p = stats.norm.cdf(0.25)
    sds = []
    for n in (100, 1600):
        est = real_world_robustness(f, X, cov=np.eye(2) * 4.0, n_samples=n, rng=10, return_se=True)
        sds.append(est.robustness.std(ddof=1))
        # the reported standard error is the binomial one and matches the spread over copies
        np.testing.assert_allclose(np.median(est.se), np.sqrt(p * (1 - p) / n), rtol=0.1)
        assert abs(est.robustness.mean() - p) < 4 * np.sqrt(p * (1 - p) / n / 400)
    ratio = sds[0] / sds[1]
    assert 3.3 < ratio < 4.8, ratio  # sqrt(1600 / 100) = 4


def test_seeded_determinism_and_chunk_invariance():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 2))
    f = right_angle_classifier((0.0, 0.0))
    a = real_world_robustness(f, X, cov=ANISO, n_samples=700, rng=12)
    b = real_world_robustness(f, X, cov=ANISO, n_samples=700, rng=12, chunk_rows=257)
    c = real_world_robustness(f, X[:7], cov=ANISO, n_samples=700, rng=12, chunk_rows=100)
    d = real_world_robustness(f, X, cov=ANISO, n_samples=700, rng=13)
    np.testing.assert_array_equal(a, b)  # chunking (incl. splitting one point's samples) is invisible
    np.testing.assert_array_equal(a[:7], c)  # a point's estimate does not depend on the others
    assert not np.array_equal(a, d)


def test_predict_called_in_bounded_chunks():
    calls = []

    def predict(Z):
        calls.append(len(Z))
        return (Z[:, 0] > 0).astype(int)

    real_world_robustness(predict, np.zeros((10, 3)) + 0.1, cov=np.eye(3), n_samples=300, rng=0, chunk_rows=1000)
    # one call for the base predictions, then 3000 sample rows in chunks of <= 1000 (3 points each)
    assert calls == [10, 900, 900, 900, 300]


# ------------------------------------------------------------ perturbation models


def test_covariance_models():
    C = random_covariance(6, 0)
    np.testing.assert_allclose(np.trace(C), 1.0)
    np.testing.assert_allclose(C, C.T)
    assert np.linalg.eigvalsh(C).min() > 0
    np.testing.assert_array_equal(C, random_covariance(6, np.random.default_rng(0)))
    np.testing.assert_allclose(identity_covariance(4), np.eye(4) / 4)
    np.testing.assert_allclose(np.trace(trace_normalized(C, 0.43)), 0.43)
    L = covariance_factor(np.diag([4.0, 0.0]))  # singular covariances are allowed
    np.testing.assert_allclose(L @ L.T, np.diag([4.0, 0.0]), atol=1e-12)


def test_gaussian_sampler_moments():
    g = GaussianPerturbation(ANISO)
    Z = g(np.array([1.0, -2.0]), 0, 200000, np.random.default_rng(0))
    np.testing.assert_allclose(Z.mean(axis=0), [1.0, -2.0], atol=0.01)
    np.testing.assert_allclose(np.cov(Z.T), ANISO, atol=0.01)


def test_bounded_clip_and_truncate():
    sigma = 0.2
    base = GaussianPerturbation(np.array([[sigma**2]]))
    x = np.array([[0.2]])
    # clip at an upper bound below the decision threshold: the prediction can never flip
    f_hi = lambda Z: (Z[:, 0] > 0.3).astype(int)
    clipped = BoundedPerturbation(base, [-np.inf], [0.25], mode="clip")
    assert real_world_robustness(f_hi, x, sampler=clipped, n_samples=5000, rng=0)[0] == 1.0
    # truncation to x >= 0: P(flip) = P(0 <= x_hat < 0.1) / P(x_hat >= 0)
    f_lo = lambda Z: (Z[:, 0] < 0.1).astype(int)
    trunc = BoundedPerturbation(base, [0.0], [np.inf], mode="truncate")
    n = 40000
    mc = real_world_robustness(f_lo, x, sampler=trunc, n_samples=n, rng=1)[0]
    cdf = lambda v: stats.norm.cdf((v - 0.2) / sigma)
    p_flip = (cdf(0.1) - cdf(0.0)) / (1 - cdf(0.0))
    assert abs(mc - (1 - p_flip)) < 4 * np.sqrt(p_flip * (1 - p_flip) / n)
    Z = trunc(x[0], 0, 1000, np.random.default_rng(0))
    assert Z.min() >= 0.0


def test_categorical_transition_matrix():
    T = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    pert = CategoricalPerturbation({1: ([0.0, 1.0, 2.0], T)}, continuous=GaussianPerturbation(np.diag([1.0, 0.0])))
    f = lambda Z: (Z[:, 1] == 2.0).astype(int)
    X = np.array([[0.0, 0.0], [5.0, 1.0], [-1.0, 2.0]])
    n = 20000
    mc = real_world_robustness(f, X, sampler=pert, n_samples=n, rng=2)
    exact = np.array([1 - T[0, 2], 1 - T[1, 2], T[2, 2]])
    assert np.all(np.abs(mc - exact) < 4 * np.sqrt(exact * (1 - exact) / n))
    Z = pert(X[1], 1, 5, np.random.default_rng(0))
    assert set(np.unique(Z[:, 1])) <= {0.0, 1.0, 2.0}
    with pytest.raises(ValueError, match="not among its categories"):
        real_world_robustness(f, np.array([[0.0, 7.0]]), sampler=pert, n_samples=10, rng=0)
    with pytest.raises(ValueError, match="rows summing to 1"):
        CategoricalPerturbation({0: ([0, 1], [[0.5, 0.4], [0.5, 0.5]])})


def test_regression_threshold_eq4():
    # f(x) = w.x; unchanged iff |w.x'| <= gamma  ->  P_r = 2 Phi(gamma / |w|) - 1 for identity covariance
    w = np.array([3.0, 4.0])
    gamma = 2.5
    X = np.random.default_rng(3).normal(size=(50, 2))
    n = 4000
    mc = real_world_robustness(lambda Z: Z @ w, X, cov=np.eye(2), n_samples=n, rng=4, threshold=gamma)
    exact = 2 * stats.norm.cdf(gamma / 5.0) - 1
    assert abs(mc.mean() - exact) < 4 * np.sqrt(exact * (1 - exact) / n / 50)


# ------------------------------------------------------------ comparison helpers


def test_rescale_distances_and_failures():
    r = rescale_distances([1.0, 4.0, 2.0, 9.0], success=[True, True, True, False])
    np.testing.assert_allclose(r[:3], [0.25, 1.0, 0.5])
    assert np.isnan(r[3])
    with pytest.raises(ValueError, match="no successful point"):
        rescale_distances([1.0], success=[False])


def test_min_pairwise_correlation():
    E = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.5], [3.0, 2.0, 1.0]])
    assert min_pairwise_correlation(E) == pytest.approx(-1.0)
    assert min_pairwise_correlation(E[:2]) == pytest.approx(np.corrcoef(E[0], E[1])[0, 1])


def test_max_order_violation():
    assert max_order_violation([0.5, 0.7, 0.9, 1.0, 1.0], [0.0, 1.0, 2.0, 3.0, 9.0]) == 0.0
    assert max_order_violation([0.5, 0.9, 0.7], [0.0, 1.0, 2.0]) == pytest.approx(0.2)
    assert max_order_violation([0.4, 0.6], [1.0, 1.0]) == pytest.approx(0.2)  # tie in distance
    # closed forms: linear model orders points exactly like the distance, the right-angle model does not
    g = np.linspace(-3, 3, 41)
    X = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    lin = linear_robustness(X, [0.0, 1.0], 0.0)
    assert max_order_violation(lin, linear_counterfactual(X, [0.0, 1.0], 0.0)[1]) < 1e-12
    ra = right_angle_robustness(X, (0.0, 0.0))
    assert max_order_violation(ra, right_angle_counterfactual(X, (0.0, 0.0))[1]) > 0.2


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(cov=np.array([[1.0, 0.5], [0.0, 1.0]])), "not symmetric"),
        (dict(cov=np.array([[1.0, 2.0], [2.0, 1.0]])), "not positive semi-definite"),
        (dict(cov=np.eye(3)), "points have 2 features"),
        (dict(cov=np.ones((2, 2, 3))), "square"),
        (dict(cov=np.stack([np.eye(2)] * 3)), "stack of 3 covariances but X has 4"),
        (dict(cov=np.eye(2), n_samples=0), "n_samples must be an integer >= 1"),
        (dict(cov=np.eye(2), rng=None), "rng is required"),
        (dict(cov=np.eye(2), sampler=GaussianPerturbation(np.eye(2))), "exactly one of cov"),
        (dict(), "exactly one of cov"),
        (dict(cov=np.array([[np.nan, 0], [0, 1.0]])), "NaN or inf"),
    ],
)
def test_bad_input_errors(kwargs, match):
    args = dict(n_samples=10, rng=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        real_world_robustness(right_angle_classifier(), np.zeros((4, 2)), **args)


def test_bad_predict_and_points():
    with pytest.raises(ValueError, match="predict returned shape"):
        real_world_robustness(lambda Z: np.zeros(len(Z) + 1), np.zeros((3, 2)), cov=np.eye(2), n_samples=5, rng=0)
    with pytest.raises(ValueError, match="predict returned shape"):  # scores (m, C) are read; images are not
        real_world_robustness(lambda Z: np.zeros((len(Z), 2, 2)), np.zeros((3, 2)), cov=np.eye(2), n_samples=5, rng=0)
    with pytest.raises(ValueError, match="NaN or inf"):
        real_world_robustness(right_angle_classifier(), [[np.nan, 0.0]], cov=np.eye(2), n_samples=5, rng=0)
    with pytest.raises(ValueError, match="2-D array"):
        real_world_robustness(right_angle_classifier(), [0.0, 1.0], cov=np.eye(2), n_samples=5, rng=0)
    with pytest.raises(ValueError, match="sampler returned shape"):
        real_world_robustness(
            right_angle_classifier(), np.zeros((2, 2)), sampler=lambda x, i, m, g: np.zeros((m, 3)), n_samples=5, rng=0
        )


# ------------------------------------------------------------ Sec. 4.1 helpers


def test_scale_sweep_matches_closed_form_and_convergence():
    from robeval.realworld.experiments import convergence_check, scale_sweep

    rng = np.random.default_rng(20)
    w, b = np.array([1.0, 2.0]), 0.0
    X = rng.uniform(-1, 1, size=(40, 2))
    _, dist = linear_counterfactual(X, w, b)
    adv = rescale_distances(dist)
    scales = [0.01, 0.1, 1.0]
    n = 2000
    R, table = scale_sweep(
        linear_classifier(w, b), X, np.eye(2), scales, adv, n_samples=n, seed=3, trace=2.0, progress=False
    )
    for k, s in enumerate(scales):  # trace 2 at scale 1: covariance s * I
        _assert_agrees_loose(R[k], linear_robustness(X, w, b, s * np.eye(2)), n)
    # for a linear boundary with isotropic noise both notions rank points alike: high rank correlation
    # (at the smallest scale many estimates saturate at exactly 1, and the ties lower Spearman's rho)
    assert (table["spearman"].iloc[1:] > 0.95).all() and table["spearman"].iloc[0] > 0.5
    E, mc = convergence_check(linear_classifier(w, b), X, 0.1 * np.eye(2), n_samples=n, n_repeats=3, seed=0)
    assert E.shape == (3, 40) and 0.99 < mc <= 1.0


def _assert_agrees_loose(mc, exact, n):
    q = 1 - exact
    k = np.rint((1 - mc) * n)
    pval = np.minimum(1.0, 2 * np.minimum(stats.binom.cdf(k, n, q), stats.binom.sf(k - 1, n, q)))
    assert pval.min() > 1e-5


def test_iris_split_facts():
    from robeval.realworld.experiments import fit_iris_forest, iris_split

    s = iris_split(0)
    assert s.X_train.shape == (66, 4) and s.X_test.shape == (34, 4)
    np.testing.assert_allclose(s.X_train.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(s.X_train.std(axis=0), 1, atol=1e-12)
    assert np.bincount(s.y_test).tolist() == [17, 17]  # stratified
    rf = fit_iris_forest(s)
    assert len(rf.estimators_) == 10 and max(t.get_depth() for t in rf.estimators_) <= 3
    assert rf.score(s.X_test, s.y_test) == 1.0  # setosa vs versicolor is separable


# ------------------------------------------------------------ Sec. 4.1 runs


def test_sec41_run_is_seeded_per_run():
    pytest.importorskip("ceml")
    from robeval.core.seeding import keyed
    from robeval.realworld.experiments import sec41_run

    kw = dict(
        n_samples=300,
        sweep_samples=100,
        scales=[0.01, 0.3, 3.0],
        scatter_scales=[0.07, 0.43],
        n_repeats=3,
        n_random_cov=2,
        attack="ceml",
        iris_classes=(1, 2),
        max_test_points=6,
    )
    a = sec41_run("iris", keyed(0, "iris", 0), **kw)
    b = sec41_run("iris", keyed(0, "iris", 0), **kw)
    c = sec41_run("iris", keyed(0, "iris", 1), **kw)
    pts = a["points"]
    assert len(pts) == 6 and list(a["sweep"]["scale"]) == kw["scales"]
    expected = {"rw_peak", "rw_peak2", "rw_identity_0.07", "rw_identity2_0.07", "rw_identity_0.43"}
    assert expected | {"rw_random0_0.07", "rw_random1_0.07"} <= set(pts.columns)
    assert pts.equals(b["points"]) and a["summary"] == b["summary"]  # same seed, same run
    assert not pts["rw_identity_0.07"].equals(c["points"]["rw_identity_0.07"])  # another split and streams
    assert a["summary"]["peak_scale"] in kw["scales"] and a["summary"]["n_repeats"] == 3
    with pytest.raises(ValueError, match="n_repeats"):
        sec41_run("iris", 0, **{**kw, "n_repeats": 1})
    with pytest.raises(ValueError, match="CEML"):
        sec41_run("iris", 0, **{**kw, "attack": "deepfool"})


def test_sec41_grid_configuration():
    from robeval.core.profiles import resolve
    from robeval.realworld.experiments import sec41_cells, sec41_config

    cfg = resolve("realworld_iris_ionosphere", "smoke")
    config = sec41_config(cfg)
    # how many runs and workers do not change a run's result: they stay out of the grid's identity
    assert "n_runs" not in config and "n_jobs" not in config
    assert config == sec41_config(resolve("realworld_iris_ionosphere", "smoke", n_runs=7))
    assert config["ionosphere"]["attack"] == "deepfool" and config["iris"]["attack"] == "ceml"
    assert [c["dataset"] for c in sec41_cells(2)] == ["ionosphere", "ionosphere", "iris", "iris"]
    with pytest.raises(ValueError, match="n_runs"):
        sec41_cells(0)
    # Fig. 5 under the other Iris class pairs: one cell per pair and run after the main runs
    extra = sec41_cells(2, [1, 2])[4:]
    assert extra == [{"dataset": "iris", "run": r, "pair": p} for p in ("setosa-versicolor", "setosa-virginica")
                     for r in (0, 1)]  # fmt: skip
    assert config["reading_samples"] == cfg["sweep_samples"]


def test_fig5_pair_run_under_every_covariance_reading():
    from robeval.core.seeding import keyed
    from robeval.realworld.experiments import COV_READINGS, fig5_pair_run, iris_pair_name, own_cov_reading

    kw = dict(classes=(0, 1), scale=0.43, n_random_cov=2, cov_trace="features", n_samples=400, reading_samples=200,
              max_test_points=8)  # fmt: skip
    a = fig5_pair_run(keyed(0, "iris", 0, "pair", "x"), **kw)
    assert a.equals(fig5_pair_run(keyed(0, "iris", 0, "pair", "x"), **kw))  # seeded
    assert set(a["pair"]) == {"setosa-versicolor"} and list(a["reading"].unique()) == list(COV_READINGS)
    assert len(a) == 4 * 8 and {"rw_identity", "rw_identity2", "rw_random0", "rw_random1"} <= set(a.columns)
    n = a.groupby("reading")["n_samples"].first()
    assert n[own_cov_reading("features")] == 400 and n["trace1-std"] == 200  # our reading at n_samples
    p = a.set_index("reading")
    assert ((p[["rw_identity", "rw_random0"]] >= 0) & (p[["rw_identity", "rw_random0"]] <= 1)).all().all()
    # the smallest per-feature variance (0.43^2 / 4) flips fewer labels than the largest (0.43)
    assert p.loc["trace1-std", "rw_identity"].mean() >= p.loc["identity-variance", "rw_identity"].mean()
    assert iris_pair_name([2, 1]) == "versicolor-virginica"
    with pytest.raises(ValueError, match="two different labels"):
        iris_pair_name((1, 1))


# ---------------------------------------------------------------- adaptive sample sizes (n_samples="auto")


def test_adaptive_schedule_and_wilson_se_by_hand():
    from robeval.realworld.robustness import adaptive_sample_sizes, wilson_se

    assert adaptive_sample_sizes(256, 10000) == [256, 512, 1024, 2048, 4096, 8192, 10000]
    assert adaptive_sample_sizes(5, 5) == [5]
    # k = n: Wilson half-width z^2/(2n) / (1 + z^2/n) / z; by hand for n = 100: 0.0192 / 1.0384 / 1.96 = 0.00943
    z = 1.959963984540054
    assert wilson_se(100, 100) == pytest.approx((z / 200) / (1 + z**2 / 100))
    assert wilson_se(0, 100) == wilson_se(100, 100)
    # large n: close to the plug-in standard error sqrt(p(1-p)/n)
    assert wilson_se(3000, 10000) == pytest.approx(np.sqrt(0.3 * 0.7 / 10000), rel=1e-3)


def test_adaptive_draws_are_a_prefix_of_the_fixed_draws():
    """A point that runs to n_max gets exactly the fixed-N estimate (same per-point stream); robust points
    stop at n_min; every point's answer is independent of the others."""
    rng = np.random.default_rng(3)
    X = np.column_stack([np.r_[np.full(5, 8.0), rng.uniform(-0.3, 0.3, 5)], rng.normal(size=10)])
    f = linear_classifier([1.0, 0.0], 0.0)
    cov = np.eye(2) * 0.25
    fixed = real_world_robustness(f, X, cov=cov, n_samples=4096, rng=11, return_se=True)
    auto = real_world_robustness(
        f, X, cov=cov, n_samples="auto", n_min=64, n_max=4096, se_target=1e-6, rng=11, return_se=True
    )
    np.testing.assert_array_equal(auto.n_samples, 4096)
    np.testing.assert_array_equal(auto.robustness, fixed.robustness)
    loose = real_world_robustness(
        f, X, cov=cov, n_samples="auto", n_min=64, n_max=4096, se_target=0.01, rng=11, return_se=True
    )
    # 16 sigma from the boundary: no draw changes the label, the Wilson se at n = 64 is 0.0147 > 0.01, at 128 0.0075
    np.testing.assert_array_equal(loose.n_samples[:5], 128)
    np.testing.assert_array_equal(loose.robustness[:5], 1.0)
    assert np.all(loose.n_samples[5:] >= 1024)  # near the boundary p(1-p)/n <= 1e-4 needs n >= ~1000
    # chunking and the set of evaluated points do not change a point's answer
    alone = real_world_robustness(
        f, X, cov=cov, n_samples="auto", n_min=64, n_max=4096, se_target=0.01, rng=11, chunk_rows=100, return_se=True
    )
    np.testing.assert_array_equal(alone.robustness, loose.robustness)
    np.testing.assert_array_equal(alone.n_samples, loose.n_samples)


def test_adaptive_estimate_agrees_with_the_closed_form():
    """Linear classifier, Gaussian noise: the adaptive estimates agree with Eq. (8)'s exact P_r (fixed seed)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 2)) * [0.6, 1.0]
    w, b = np.array([1.0, 0.5]), 0.2
    cov = np.diag([0.3, 0.2])
    exact = linear_robustness(X, w, b, cov=cov)
    est = real_world_robustness(
        linear_classifier(w, b), X, cov=cov, n_samples="auto", se_target=0.01, n_max=20000, rng=5, return_se=True
    )
    z = (est.robustness - exact) / np.maximum(est.se, 1e-12)
    near = (exact > 0.02) & (exact < 0.98)
    assert near.sum() > 20
    assert np.max(np.abs(z[near])) < 4.0  # 200 points: Bonferroni-level |z| bound
    assert 0.5 < np.mean(z[near] ** 2) < 1.6
    assert np.all(np.abs(est.robustness - exact) < 5 * 0.01)
    assert est.n_samples.sum() < 0.5 * 20000 * len(X)  # most points stop early


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"n_samples": "adaptive"}, "'auto'"),
        ({"n_samples": "auto", "se_target": 0.0}, "se_target"),
        ({"n_samples": "auto", "n_min": 500, "n_max": 100}, "n_min"),
        ({"n_samples": "auto", "n_max": 0}, "n_max"),
    ],
)
def test_adaptive_arguments_are_validated(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        real_world_robustness(linear_classifier([1.0], 0.0), np.zeros((2, 1)), cov=np.eye(1), rng=0, **kwargs)


def test_a_string_scale_gets_a_clear_error():
    """Issue 36: trace_normalized(cov, "2") raised numpy's "ufunc 'isfinite' not supported"."""
    from robeval.realworld.covariance import trace_normalized
    from robeval.realworld.experiments import scale_sweep

    with pytest.raises(TypeError, match=r"scale must be a number.*float\(\.\.\.\)"):
        trace_normalized(np.eye(2), "2")
    np.testing.assert_allclose(trace_normalized(np.eye(2), 2), np.eye(2))
    with pytest.raises(TypeError, match="scales must hold numbers, got 'abc'"):
        scale_sweep(
            lambda Z: np.zeros(len(Z), int), np.zeros((2, 2)), np.eye(2), [1.0, "abc"], np.ones(2), n_samples=5, seed=0
        )
    with pytest.raises(TypeError, match="sequence of numbers"):
        scale_sweep(
            lambda Z: np.zeros(len(Z), int), np.zeros((2, 2)), np.eye(2), "1.0", np.ones(2), n_samples=5, seed=0
        )


def test_scale_sweep_keeps_the_finished_scales_when_a_later_one_fails():
    from robeval.core.errors import IncompleteResult
    from robeval.realworld.experiments import scale_sweep

    X = np.array([[0.5, 0.0], [-1.0, 0.0], [2.0, 0.0]])
    adv = np.array([0.2, 0.4, 1.0])
    rule = lambda Z: (Z[:, 0] > 0).astype(int)
    scales = [0.5, 1.0, 2.0]

    calls = []

    def flaky(Z):  # two calls per scale (base points, one chunk of draws): fails on the third scale
        calls.append(len(Z))
        if len(calls) > 4:
            raise MemoryError("out of memory in the model")
        return rule(Z)

    full_R, full_table = scale_sweep(rule, X, np.eye(2), scales, adv, n_samples=2000, seed=0, progress=False)
    with pytest.raises(IncompleteResult, match=r"scale 2 failed.*The 2 of 3 scales.*scales\[2:\]") as err:
        scale_sweep(flaky, X, np.eye(2), scales, adv, n_samples=2000, seed=0, progress=False)
    R, table = err.value.partial
    np.testing.assert_array_equal(R, full_R[:2])
    rest_R, rest_table = scale_sweep(rule, X, np.eye(2), scales[2:], adv, n_samples=2000, seed=0, progress=False)
    np.testing.assert_array_equal(np.vstack([R, rest_R]), full_R)
    assert pd.concat([table, rest_table], ignore_index=True).equals(full_table)
