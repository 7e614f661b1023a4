"""Tests for robeval.realworld.adversarial: counterfactual distances with success flags."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from robeval.realworld.adversarial import AttackResult, brendel_bethge, ceml_counterfactuals, deepfool  # noqa: E402
from robeval.realworld.analytic import linear_counterfactual  # noqa: E402


def _linear_torch(w, b):
    """2-class logits model whose class-1 logit minus class-0 logit is w.x + b - 1/2 (Appendix A.1 boundary)."""
    lin = torch.nn.Linear(len(w), 2)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(np.stack([np.zeros_like(w), w]).astype(np.float32)))
        lin.bias.copy_(torch.tensor([0.0, b - 0.5], dtype=torch.float32))
    return lin


def test_deepfool_exact_on_linear_model():
    w, b = np.array([0.6, -1.2, 0.4]), 0.3
    X = np.random.default_rng(0).normal(size=(25, 3))
    res = deepfool(_linear_torch(w, b), X, epsilon=1e-6)
    _, d_exact = linear_counterfactual(X, w, b)
    assert res.success.all()
    # one DeepFool step lands on a linear boundary: distance = |w.x + b - 1/2| / |w| (float32 precision)
    np.testing.assert_allclose(res.distance, d_exact, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(res.robustness, d_exact / d_exact.max(), rtol=2e-3, atol=1e-5)


def test_failed_attack_is_flagged_not_silent():
    # a model whose prediction never changes: no counterfactual exists
    const = torch.nn.Linear(2, 2)
    with torch.no_grad():
        const.weight.zero_()
        const.bias.copy_(torch.tensor([1.0, 0.0]))
    X = np.random.default_rng(1).normal(size=(4, 2))
    res = deepfool(const, X, max_iter=5)
    assert not res.success.any()
    assert np.isnan(res.distance).all()
    with pytest.raises(ValueError, match="no successful point"):
        _ = res.robustness


def test_attack_result_robustness_excludes_failures():
    r = AttackResult(
        x_adv=np.zeros((3, 1)),
        distance=np.array([1.0, np.nan, 4.0]),
        success=np.array([True, False, True]),
        method="x",
        norm=2.0,
    )
    np.testing.assert_allclose(r.robustness, [0.25, np.nan, 1.0])
    assert r.success_rate == pytest.approx(2 / 3)


def test_ceml_random_forest_counterfactuals_flip_and_flag():
    pytest.importorskip("ceml")
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] > 0.2).astype(int)
    rf = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    pts = np.array([[1.5, 0.0], [-1.0, 0.5], [0.9, -1.0]])
    res = ceml_counterfactuals(rf, pts, progress=False)
    assert res.success.all()
    assert np.all(rf.predict(res.x_adv) != rf.predict(pts))
    # the forest's boundary lies between the training points around x1 = 0.2: distances are close to |x1 - 0.2|
    np.testing.assert_allclose(res.distance, np.abs(pts[:, 0] - 0.2), atol=0.35)
    # a forest trained on one class cannot be flipped: CEML fails and the point is flagged
    rf1 = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, np.zeros(80, int))
    res1 = ceml_counterfactuals(rf1, pts[:1], progress=False)
    assert not res1.success[0] and np.isnan(res1.distance[0])


@pytest.mark.slow
def test_brendel_bethge_finds_adversarials_no_closer_than_exact():
    # slow: the first call JIT-compiles ART's numba kernels (~1-2 min).
    # On a linear model the exact closest counterfactual is known: every adversarial example is at least that far.
    # ART draws its initial search from an unseeded RandomState; ours is seeded, so a rerun is identical, and the
    # attack never ends farther away than the starting point it was given.
    w, b = np.array([1.0, -0.5]), 0.0
    X = np.random.default_rng(3).normal(size=(6, 2))
    model = _linear_torch(w, b)
    res = brendel_bethge(model, X, steps=300, seed=0)
    _, d_exact = linear_counterfactual(X, w, b)
    assert res.success.all()
    assert np.all(res.distance >= d_exact * (1 - 1e-3))
    again = brendel_bethge(model, X, steps=300, seed=0)
    np.testing.assert_array_equal(again.x_adv, res.x_adv)
    assert not np.array_equal(brendel_bethge(model, X, steps=300, seed=1).x_adv, res.x_adv)

    from robeval.realworld.adversarial import art_classifier, bb_starting_points, data_box

    box = data_box(X)
    clf = art_classifier(model, 2, 2, clip_values=box)
    X32 = X.astype(np.float32)
    labels = lambda Z: clf.predict(Z).argmax(1)
    start, found = bb_starting_points(labels, X32, labels(X32), box, 100, np.random.default_rng(0))
    assert found.all() and np.all(labels(start) != labels(X32))
    d_start = np.linalg.norm(start - X32, axis=1)
    assert np.all(res.distance <= d_start * (1 + 1e-4))
    # the bisection stops within 1e-3 of the segment: one step back towards x is no longer adversarial
    assert np.all(d_start >= d_exact * (1 - 1e-3))


def test_bb_starting_points_bisection_on_a_threshold():
    # 1-D threshold model: label = x > 1; from x = 0 with the box [-4, 4] every draw above 1 is adversarial, and
    # bisection on the segment [x, draw] lands within threshold * |draw - x| above the boundary.
    from robeval.realworld.adversarial import bb_starting_points

    X = np.zeros((3, 1), dtype=np.float32)
    labels = lambda Z: (np.asarray(Z)[:, 0] > 1.0).astype(int)
    start, found = bb_starting_points(labels, X, labels(X), (-4.0, 4.0), 50, np.random.default_rng(0))
    assert found.all()
    assert np.all(start[:, 0] > 1.0) and np.all(start[:, 0] <= 1.0 + 4.0 * 1e-3 + 1e-6)
    # no draw can be adversarial inside a box where the label never changes
    _, none = bb_starting_points(labels, X, labels(X), (-4.0, 0.5), 20, np.random.default_rng(0))
    assert not none.any()


def test_ceml_jax_config_shim():
    pytest.importorskip("jax")
    from robeval.realworld._ceml_compat import install_jax_config_shim

    install_jax_config_shim()
    install_jax_config_shim()  # idempotent
    import jax
    from jax.config import config  # the import ceml 0.7 performs

    assert config is jax.config and hasattr(config, "update")


def test_fast_forest_predicts_exactly_like_the_forest():
    """The copy CEML searches predicts (labels and probabilities, forest and trees) exactly like the fitted forest,
    so the counterfactuals are the same -- only without scikit-learn's per-call validation."""
    pytest.importorskip("ceml")
    from sklearn.ensemble import RandomForestClassifier

    from robeval.realworld.adversarial import fast_forest

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3).astype(int)
    rf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    fast = fast_forest(rf)
    assert isinstance(fast, RandomForestClassifier) and fast is not rf and fast.estimators_[0] is not rf.estimators_[0]
    Z = rng.normal(size=(500, 4)) * 2
    np.testing.assert_array_equal(fast.predict(Z), rf.predict(Z))
    np.testing.assert_array_equal(fast.predict_proba(Z), rf.predict_proba(Z))
    for t_fast, t in zip(fast.estimators_, rf.estimators_):
        np.testing.assert_array_equal(t_fast.predict([Z[0]]), t.predict([Z[0]]))  # CEML's one-row list calls
    assert type(rf.estimators_[0]).__name__ == "DecisionTreeClassifier"  # the original is untouched
    assert fast_forest(X) is X  # anything else passes through
    # CEML's search on the copy finds exactly the counterfactual it finds on the forest
    from robeval.realworld._ceml_compat import import_ceml_sklearn

    cs = import_ceml_sklearn()
    x = X[0]
    y0 = rf.predict([x])[0]
    kw = dict(y_target=lambda y: y != y0, regularization="l2", C=1.0, optimizer="auto", return_as_dict=False)
    np.testing.assert_array_equal(
        cs.generate_counterfactual(fast, x, **kw)[0], cs.generate_counterfactual(rf, x, **kw)[0]
    )
    res = ceml_counterfactuals(rf, X[:3], progress=False)
    assert np.all(rf.predict(res.x_adv[res.success]) != rf.predict(X[:3][res.success]))
