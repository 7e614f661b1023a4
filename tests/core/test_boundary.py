"""Issue 20 (items 2-3): every entry that takes a model accepts an estimator, a torch module or a function; the
public boundary rejects NaN, wrong shapes, empty input, wrong units and sizes that would run for days."""

import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression

from robeval.core import profiles
from robeval.core.validation import as_model, check_labels
from robeval.mscr import evaluate_levels, min_class_separation, mscr_value
from robeval.realworld import real_world_robustness
from robeval.realworld.robustness import MAX_DRAWS

RNG = np.random.default_rng(0)
X2 = RNG.normal(size=(60, 2))
Y2 = (X2[:, 0] > 0).astype(np.int64)
EST = LogisticRegression().fit(X2, Y2)


class Halfplane(torch.nn.Module):
    """Logits (0, x_0): class 1 iff x_0 > 0, the same rule as ``EST`` up to its fitted boundary."""

    def forward(self, x):
        return torch.stack([torch.zeros(len(x)), x[:, 0]], dim=1)


def rule(Z):
    return (np.asarray(Z)[:, 0] > 0).astype(np.int64)


# ------------------------------------------------------------------------------------------ item 2: models
def test_one_adapter_for_estimators_modules_and_functions():
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 5.0]])
    assert as_model(EST).kind == "estimator" and as_model(Halfplane()).kind == "torch"
    for model in (EST, Halfplane(), rule, lambda z: torch.as_tensor(rule(z))):
        assert as_model(model).predict(Z).tolist() == [1, 0, 1]
    np.testing.assert_allclose(as_model(EST).scores(Z).sum(axis=1), 1.0)
    module = Halfplane().train()
    as_model(module).predict(Z)
    assert module.training  # the caller's mode is restored
    with pytest.raises(TypeError, match="scikit-learn estimator"):
        as_model("model.pkl")


@pytest.mark.parametrize("model", [EST, Halfplane(), rule], ids=["estimator", "torch", "function"])
def test_evaluate_levels_accepts_every_model_kind(model):
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, 0.0], [-0.5, 0.0]])
    y = [1, 0, 1, 0]
    # L_inf noise of radius 0.2 never crosses x_0 = 0 for |x_0| >= 0.5 (the estimator's boundary is near 0 too)
    acc = evaluate_levels(model, X, torch.tensor(y), [0.0, 0.2], k=5, norm=np.inf, seed=0)
    assert [a["acc"] for a in acc] == [1.0, 1.0] and [a["n_eval"] for a in acc] == [4, 20]
    assert mscr_value(acc[0], acc[1]) == 0.0  # the documented call (rows of evaluate_levels)


@pytest.mark.parametrize("model", [EST, Halfplane(), rule], ids=["estimator", "torch", "function"])
def test_real_world_robustness_accepts_every_model_kind(model):
    # a point at distance 1 from the boundary x_0 = 0 under N(0, I): P_r = Phi(1) ~ 0.8413 (rule / module)
    X = np.array([[1.0, 0.0], [-30.0, 0.0]])
    est = real_world_robustness(model, X, cov=np.eye(2), n_samples=4000, rng=0, return_se=True)
    assert est.robustness[1] == 1.0
    assert abs(est.robustness[0] - 0.8413) < 0.05


def test_mscr_value_keeps_its_numeric_form_and_names_bad_rows():
    assert mscr_value(0.8, 0.6) == pytest.approx(-25.0)
    with pytest.raises(TypeError, match="'acc'"):
        mscr_value({"eps_test": 0.0}, 0.5)
    with pytest.raises(TypeError, match="accuracy in"):
        mscr_value("0.8", object())


def test_corrupt_takes_the_loaders_nchw_layout():
    from robeval.transforms import corrupt

    x = np.random.default_rng(1).integers(0, 256, size=(2, 32, 32, 3), dtype=np.uint8)
    nhwc = corrupt(x, "gaussian_noise", 3, seed=0)
    nchw = corrupt(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), "gaussian_noise", 3, seed=0, layout="NCHW")
    np.testing.assert_array_equal(nchw.transpose(0, 2, 3, 1), nhwc)
    with pytest.raises(ValueError, match="NCHW"):
        corrupt(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), "gaussian_noise", 3, seed=0)
    with pytest.raises(ValueError, match="Unknown layout"):
        corrupt(x, "gaussian_noise", 3, seed=0, layout="HWC")


# ------------------------------------------------------------------------------------------ item 3: the cases of issue 20
def test_evaluate_levels_rejects_nan_in_X_test():
    X = np.array([[1.0, 0.0], [np.nan, 0.0]])
    with pytest.raises(ValueError, match="X_test contains NaN or inf"):
        evaluate_levels(rule, X, [1, 0], [0.0, 0.1], k=2, norm=np.inf, seed=0)


def test_min_class_separation_rejects_uint8_and_names_the_fix():
    X = np.array([[0, 0], [10, 0], [200, 0]], np.uint8)
    y = [0, 1, 1]
    with pytest.raises(ValueError, match=r"/ 255.*pixel_units=True"):
        min_class_separation(X, y)
    assert min_class_separation(X, y, pixel_units=True) == 10.0
    assert min_class_separation(X / 255.0, y) == pytest.approx(10 / 255)


def test_nan_labels_are_not_a_class():
    with pytest.raises(ValueError, match="NaN"):
        min_class_separation(np.eye(3), [0.0, 1.0, np.nan])
    with pytest.raises(ValueError, match="NaN"):
        evaluate_levels(rule, np.eye(3)[:, :2], [0.0, np.nan, 1.0], [0.0], k=1, norm=2, seed=0)
    with pytest.raises(ValueError, match="None or NaN"):
        check_labels(np.array(["a", None], dtype=object))


def test_real_world_robustness_refuses_endless_runs():
    X = np.zeros((1, 2))
    with pytest.raises(ValueError, match=r"1e\+13 Monte-Carlo draws.*allow_large=True"):
        real_world_robustness(rule, X, cov=np.eye(2), n_samples=10**13, rng=0)
    with pytest.raises(ValueError, match="allow_large=True"):
        real_world_robustness(rule, np.zeros((2000, 2)), cov=np.eye(2), n_samples="auto", n_max=10**6, rng=0)
    assert MAX_DRAWS == 10**9


def test_resolve_refuses_sizes_that_would_run_for_days():
    with pytest.raises(ValueError, match=r"n_samples.*size cap.*allow_large=True"):
        profiles.resolve("realworld_fog", "default", n_samples=10**15)
    with pytest.raises(ValueError, match="size cap"):
        profiles.resolve("mscr_2d", "smoke", runs=10**9)
    assert profiles.resolve("realworld_fog", "smoke", n_samples=10**8, allow_large=True).n_samples == 10**8
    assert profiles.check_value(5, "int >= 1, max 10", "x") == 5
    with pytest.raises(TypeError, match="allow_large"):
        profiles.resolve("realworld_fog", "smoke", allow_large="yes")


# ------------------------------------------------------------------------------------------ further bad inputs
@pytest.mark.parametrize(
    "call, error, match",
    [
        # evaluate_levels
        (lambda: evaluate_levels(rule, np.zeros((0, 2)), [], [0.0], 1, np.inf, seed=0), ValueError, "empty"),
        (lambda: evaluate_levels(rule, np.zeros((3, 2)), [0, 1], [0.0], 1, np.inf, seed=0), ValueError, "2 labels"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [], 1, np.inf, seed=0), ValueError, "eps_test is"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [-0.1], 1, np.inf, seed=0), ValueError, ">= 0"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], 0.1, 1, np.inf, seed=0), TypeError, "sequence"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [0.1], 0, np.inf, seed=0), ValueError, "k must"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [0.1], 2, 3, seed=0), ValueError, "norm"),
        (
            lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [0.1], 2, 2, seed=0, noise_mode="shared_offsets"),
            ValueError,
            "unit_offsets",
        ),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [0, 1], [0.1], 2, 2, seed="0"), TypeError, "seed"),
        (lambda: evaluate_levels(42, np.zeros((2, 2)), [0, 1], [0.1], 2, 2, seed=0), TypeError, "estimator"),
        (lambda: evaluate_levels(rule, np.zeros((2, 2)), [[0, 1]], [0.1], 2, 2, seed=0), ValueError, "one-dim"),
        # real_world_robustness
        (lambda: real_world_robustness(rule, np.zeros((0, 2)), cov=np.eye(2), rng=0), ValueError, "empty"),
        (lambda: real_world_robustness(rule, [[np.inf, 0.0]], cov=np.eye(2), rng=0), ValueError, "NaN or inf"),
        (
            lambda: real_world_robustness(lambda Z: EST.predict_proba(Z)[:, 1], X2, cov=np.eye(2), rng=0),
            ValueError,
            "score, not a label",
        ),
        (lambda: real_world_robustness(rule, X2, cov=np.eye(3), rng=0), ValueError, "3x3"),
        (lambda: real_world_robustness(rule, X2, cov=np.eye(2), rng=0, allow_large=1), TypeError, "allow_large"),
        # Smooth labels / class separation
        (lambda: min_class_separation(np.eye(3), [0, 0, 0]), ValueError, "1 class"),
        (lambda: min_class_separation(np.eye(3), [0, 1]), ValueError, "different lengths"),
        (lambda: check_labels("abc"), TypeError, "1-D sequence"),
        (lambda: check_labels([0, 3], num_classes=3), ValueError, r"outside \[0, 3\)"),
        (lambda: min_class_separation(np.eye(2), [0, 1], pixel_units="yes"), TypeError, "pixel_units"),
    ],
)
def test_further_bad_inputs_get_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------------------------------ issue 36: model outputs
def _binary_pair():
    """A binary torch model with one output column and the same model with two columns (0, logit)."""
    torch.manual_seed(0)
    one = torch.nn.Linear(4, 1)

    class Two(torch.nn.Module):
        def forward(self, x):
            z = one(x)
            return torch.cat([torch.zeros_like(z), z], dim=1)

    return one, Two()


X4 = np.random.default_rng(3).normal(size=(5, 4))


def test_one_logit_column_is_a_binary_model_in_real_world_robustness():
    one, two = _binary_pair()
    a = real_world_robustness(one, X4, cov=2 * np.eye(4), n_samples=2000, rng=0)
    b = real_world_robustness(two, X4, cov=2 * np.eye(4), n_samples=2000, rng=0)
    np.testing.assert_array_equal(a, b)  # to the bit, with the same seed
    assert a.min() > 0.5  # was 0.0 for every point: the logit itself was taken as the label
    # the same rule as a plain function: class = logit > 0
    w, c = one.weight.detach().double().numpy()[0], float(one.bias.detach())
    ref = real_world_robustness(
        lambda Z: (Z.astype(np.float32) @ w.astype(np.float32) + np.float32(c) > 0).astype(int),
        X4,
        cov=2 * np.eye(4),
        n_samples=2000,
        rng=0,
    )
    assert np.abs(a - ref).max() <= 0.002  # float32 rounding at the boundary only


def test_one_logit_column_is_a_binary_model_in_evaluate_levels():
    one, two = _binary_pair()
    y = as_model(two).predict(X4)
    y[0] = 1 - y[0]  # one wrong label: accuracy 4/5
    a = evaluate_levels(one, X4, y, [0, 0.01], 5, np.inf, seed=0)
    b = evaluate_levels(two, X4, y, [0, 0.01], 5, np.inf, seed=0)
    assert a == b and a[0]["acc"] == 0.8  # was 0.0: an (m, 1) output was taken as labels


def test_string_labels_are_mapped_to_the_estimators_classes_or_refused():
    X = X4.copy()
    y = (X[:, 0] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    as_int = evaluate_levels(clf, X, y, [0.0], 5, np.inf, seed=0)
    as_str = evaluate_levels(clf, X, y.astype(str), [0.0], 5, np.inf, seed=0)
    assert as_str == as_int and as_int[0]["acc"] > 0.5  # was 0.0: '1' == 1 is False
    with pytest.raises(ValueError, match=r"y_test holds strings.*predicts numbers.*astype\(int\)"):
        evaluate_levels(rule, X[:, :2], y.astype(str), [0.0], 5, np.inf, seed=0)
    with pytest.raises(ValueError, match="never compared across types"):
        evaluate_levels(clf, X, np.array(["yes", "no", "no", "yes", "no"]), [0.0], 5, np.inf, seed=0)


def test_read_output_decides_from_shape_and_dtype():
    from robeval.core.validation import read_output

    assert read_output(np.array([[0.3], [-0.2]]), 2).tolist() == [1, 0]  # one logit column
    assert read_output(np.array([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3]]), 2).tolist() == [1, 0]  # probabilities
    assert read_output(np.array([[False, True], [True, False]]), 2).tolist() == [1, 0]  # one-hot bool
    assert read_output(np.array(["a", "b"]), 2).tolist() == ["a", "b"]  # labels of any dtype
    assert read_output(np.array([[1.5], [2.0]]), 2, regression=True).tolist() == [1.5, 2.0]
    with pytest.raises(TypeError, match=r"tuple of 2 outputs.*\[0\]"):
        read_output((np.zeros((2, 3)), np.zeros((2, 5))), 2)
    with pytest.raises(ValueError, match="row 1.*exactly one 1"):
        read_output(np.array([[False, True], [True, True]]), 2)
    with pytest.raises(ValueError, match=r"fractional value 0.3.*score, not a label"):
        read_output(np.array([0.3, 1.0]), 2)
    with pytest.raises(ValueError, match="NaN or infinite"):
        read_output(np.array([[np.nan, 0.0], [0.0, 1.0]]), 2)
    with pytest.raises(ValueError, match="one row per input"):
        read_output(np.zeros((2, 3, 4)), 2)
    # class probabilities (m, C) are scores too (issue 20 refused them): the same labels as the estimator
    np.testing.assert_array_equal(
        real_world_robustness(EST.predict_proba, X2[:5], cov=np.eye(2), n_samples=300, rng=0),
        real_world_robustness(EST, X2[:5], cov=np.eye(2), n_samples=300, rng=0),
    )


def test_a_model_returning_one_hot_bools_works_everywhere():
    def one_hot(Z):
        return np.stack([Z[:, 0] <= 0, Z[:, 0] > 0], axis=1)  # bool (m, 2)

    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, 0.0], [-0.5, 0.0]])
    acc = evaluate_levels(one_hot, X, [1, 0, 1, 0], [0.0, 0.2], 5, np.inf, seed=0)
    assert [a["acc"] for a in acc] == [1.0, 1.0]
    np.testing.assert_array_equal(
        real_world_robustness(one_hot, X, cov=np.eye(2), n_samples=500, rng=0),
        real_world_robustness(rule, X, cov=np.eye(2), n_samples=500, rng=0),
    )


def test_savefig_checks_its_arguments_before_writing(tmp_results):
    """Probes E and F: savefig(None, ...) was an AttributeError, name=5 a regex TypeError, formats="png" was read
    letter by letter ("Format 'p' is not supported") and formats=() wrote a manifest entry with no files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robeval.core import savefig
    from robeval.core.paths import figures_dir

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    ax.set_title("a line", fontsize=14)
    kw = dict(reproduces="MSCR Fig. 5", data_from="robeval.mscr.protocol.run_cell_2d")
    cases = [
        (lambda: savefig(None, "t", "smoke", **kw), TypeError, "fig must be a matplotlib Figure"),
        (lambda: savefig(fig, 5, "smoke", **kw), ValueError, "Figure name 5 must be text"),
        (lambda: savefig(fig, "t", "smoke", formats="png", **kw), TypeError, "formats must be a non-empty tuple"),
        (lambda: savefig(fig, "t", "smoke", formats=(), **kw), TypeError, "formats must be a non-empty tuple"),
        (lambda: savefig(fig, "t", "smoke", formats=("png", "xyz"), **kw), ValueError, "formats holds 'xyz'"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    assert not (figures_dir("smoke") / "t.png").exists()
    savefig(fig, "t", "smoke", formats=("png",), **kw)
    assert (figures_dir("smoke") / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plt.close(fig)
