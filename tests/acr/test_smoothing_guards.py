"""Issue 20: Smooth never certifies a broken model, and accepts the models and labels users have."""

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.linear_model import LogisticRegression

from robeval.acr.smoothing import ABSTAIN, Smooth

D = 6


class Const(torch.nn.Module):
    """Logits from a fixed function of the batch; subclasses break the contract on purpose."""

    def __init__(self, k=3):
        super().__init__()
        self.k = k

    def forward(self, x):
        logits = torch.zeros(len(x), self.k)
        logits[:, 0] = 1.0
        return logits


class NaNLogits(Const):
    def forward(self, x):
        return torch.full((len(x), self.k), float("nan"))


class OneRow(Const):
    def forward(self, x):
        return super().forward(x)[:1]


class ExtraColumn(Const):
    def forward(self, x):
        return torch.zeros(len(x), self.k + 1)


X = np.zeros((4, D), np.float32)


@pytest.mark.parametrize(
    "model, match",
    [(NaNLogits(), "NaN or infinite"), (OneRow(), "one row per input"), (ExtraColumn(), "num_classes=3")],
)
def test_broken_models_are_never_certified(model, match):
    sm = Smooth(model, 3, 0.25)
    for call in (
        lambda: sm.certify(X, 10, 100, 0.001, seed=0),
        lambda: sm.predict(X, 100, 0.001, seed=0),
        lambda: sm.certify_radius(X, 0.1, 10, 200, 0.001, seed=0),
        lambda: sm.certify_dataset(X, [0, 1, 2, 0], n0=10, n=100, progress=False),
    ):
        with pytest.raises(ValueError, match=match):
            call()


class NaNAfterTwoBatches(Const):
    """Sound for two forward batches, then one NaN logit: the check must not stop at the first batches."""

    calls = 0

    def forward(self, x):
        out = super().forward(x)
        type(self).calls += 1
        if type(self).calls > 2:
            out[-1, 1] = float("nan")
        return out


class VoteOutOfRange(Const):
    def forward(self, x):
        votes = torch.zeros(len(x), dtype=torch.int64)
        votes[-1] = self.k  # one vote for a class that does not exist
        return votes


def test_a_bad_value_in_a_later_batch_is_caught_when_the_counts_are_read():
    """sample_counts checks values on the device and reads the tally once at its end (no per-batch sync), so a
    bad output anywhere in the run still raises, with the number of bad values and what they are."""
    sm = Smooth(NaNAfterTwoBatches(), 3, 0.25)
    # forward calls: 1 for the n0 = 10 selection draws, 6 for N = 300 in batches of 50; calls 3..7 hold one NaN each
    with pytest.raises(ValueError, match=r"for 300 noisy inputs in batches of 50, outputs with 5 NaN or infinite"):
        sm.certify(X[:1], 10, 300, 0.001, batch_size=50, seed=0)
    sm = Smooth(VoteOutOfRange(), 3, 0.25)
    with pytest.raises(ValueError, match=r"vote\(s\) lie outside \[0, 3\)"):
        sm.certify(X[:1], 10, 100, 0.001, batch_size=50, seed=0)
    with pytest.raises(ValueError, match=r"vote\(s\) lie outside \[0, 3\)"):  # the public check raises at once
        sm.top_class(torch.tensor([0, 3]), 2)


def test_a_sound_constant_model_is_certified_with_the_closed_form_radius():
    # every vote is class 0: n_A = N, p_lower = alpha ** (1 / N), radius = sigma * Phi^-1(p_lower)
    from scipy.stats import norm

    res = Smooth(Const(), 3, 0.25).certify(X, 10, 100, 0.001, seed=0)
    assert (res.prediction == 0).all()
    np.testing.assert_allclose(res.radius, 0.25 * norm.ppf(0.001 ** (1 / 100)), rtol=1e-10)


@pytest.mark.parametrize(
    "labels, match",
    [
        ([0.5, 1, 2, 0], "non-integer value 0.5"),
        ([0, 1, 42, 0], r"label 42, outside \[0, 3\)"),
        ([0, 1, -1, 0], r"label -1, outside \[0, 3\)"),
        (np.array([0, np.nan, 1, 2]), "NaN"),
        ([0, 1, 2], "3 labels for 4 inputs"),
        (["cat", "dog", "cat", "dog"], "integer class indices"),
    ],
)
def test_bad_labels_raise(labels, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Smooth(Const(), 3, 0.25).certify_dataset(X, labels, n0=10, n=100, progress=False)


def test_torch_list_and_numpy_labels_give_the_same_frame():
    sm = Smooth(Const(), 3, 0.25)
    frames = [
        sm.certify_dataset(X, y, n0=10, n=100, progress=False)
        for y in (np.array([0, 1, 2, 0]), [0, 1, 2, 0], torch.tensor([0, 1, 2, 0]), np.array([0.0, 1.0, 2.0, 0.0]))
    ]
    for f in frames[1:]:
        assert f.drop(columns="time").equals(frames[0].drop(columns="time"))
    assert frames[0]["correct"].tolist() == [1, 0, 0, 1]


def test_certified_correct_accepts_torch_labels():
    res = Smooth(Const(), 3, 0.25).certify_radius(X, 0.1, 10, 400, 0.001, seed=0)
    assert res.certified.all()
    assert res.certified_correct(torch.tensor([0, 1, 0, 2])).tolist() == [True, False, True, False]
    with pytest.raises(ValueError, match="2 labels for 4 inputs"):
        res.certified_correct([0, 1])


def test_sklearn_estimator_and_callables_are_accepted_and_checked():
    rng = np.random.default_rng(0)
    Xtr = rng.normal(size=(200, D))
    ytr = (Xtr[:, 0] > 0).astype(int)
    est = LogisticRegression().fit(Xtr, ytr)
    x = np.array([[3.0] + [0.0] * (D - 1), [-3.0] + [0.0] * (D - 1)], np.float32)
    # votes from predict: far from the boundary both points are certified with their class
    res = Smooth(est, 2, 0.25).certify(x, 10, 200, 0.001, seed=0)
    assert res.prediction.tolist() == [1, 0]
    # a numpy function returning logits gives the same decision as the estimator's votes
    res2 = Smooth(lambda z: est.decision_function(z)[:, None] * np.array([-1.0, 1.0]), 2, 0.25).certify(
        x, 10, 200, 0.001, seed=0
    )
    assert res2.prediction.tolist() == [1, 0]
    # votes out of range / fractional votes / a vote per batch raise
    with pytest.raises(ValueError, match=r"outside \[0, 2\)"):
        Smooth(lambda z: np.full(len(z), 5), 2, 0.25).predict(x, 50, 0.01, seed=0)
    with pytest.raises(ValueError, match="fractional"):
        Smooth(lambda z: np.full(len(z), 0.5), 2, 0.25).predict(x, 50, 0.01, seed=0)
    with pytest.raises(ValueError, match="one row per input"):
        Smooth(lambda z: np.array([0]), 2, 0.25).predict(x, 50, 0.01, seed=0)
    with pytest.raises(TypeError, match="scikit-learn estimator"):
        Smooth("model.pt", 2, 0.25)


def test_predict_still_abstains_on_a_fair_coin_but_never_on_nan():
    coin = Smooth(lambda z: (z[:, 0] > 0).astype(np.int64), 2, 1.0)
    assert coin.predict(np.zeros((1, D), np.float32), 100, 0.001, seed=0).tolist() == [ABSTAIN]
    with pytest.raises(ValueError, match="NaN"):
        Smooth(lambda z: np.full((len(z), 2), np.nan), 2, 1.0).predict(np.zeros((1, D), np.float32), 100, 0.001, seed=0)


# ------------------------------------------------------------------------------------------ issue 36
def _binary_pair():
    """A binary torch model with one logit column and the same model with two columns (0, logit)."""
    torch.manual_seed(1)
    one = torch.nn.Linear(D, 1)

    class Two(torch.nn.Module):
        def forward(self, x):
            z = one(x)
            return torch.cat([torch.zeros_like(z), z], dim=1)

    return one, Two()


def test_a_binary_model_with_one_logit_column_certifies_as_its_two_column_twin():
    one, two = _binary_pair()
    x = np.random.default_rng(0).normal(size=(3, D)).astype(np.float32)
    a = Smooth(one, 2, 0.5).certify(x, 20, 300, 0.001, seed=0)
    b = Smooth(two, 2, 0.5).certify(x, 20, 300, 0.001, seed=0)
    np.testing.assert_array_equal(a.prediction, b.prediction)
    np.testing.assert_array_equal(a.n_a, b.n_a)
    np.testing.assert_array_equal(a.radius, b.radius)
    assert (
        Smooth(one, 2, 0.5).predict(x, 300, 0.01, seed=1).tolist()
        == Smooth(two, 2, 0.5).predict(x, 300, 0.01, seed=1).tolist()
    )
    with pytest.raises(ValueError, match="num_classes=3"):  # one column is binary only
        Smooth(one, 3, 0.5).certify(x, 20, 300, 0.001, seed=0)


def test_one_hot_bool_votes_are_read_and_bad_rows_named():
    def one_hot(z):
        return np.stack([z[:, 0] <= 0, z[:, 0] > 0], axis=1)

    x = np.array([[3.0] + [0.0] * (D - 1), [-3.0] + [0.0] * (D - 1)], np.float32)
    res = Smooth(one_hot, 2, 0.25).certify(x, 10, 200, 0.001, seed=0)
    votes = Smooth(lambda z: (z[:, 0] > 0).astype(np.int64), 2, 0.25).certify(x, 10, 200, 0.001, seed=0)
    assert res.prediction.tolist() == [1, 0] and res.n_a.tolist() == votes.n_a.tolist()
    with pytest.raises(ValueError, match="do not hold exactly one 1"):
        Smooth(lambda z: np.ones((len(z), 2), bool), 2, 0.25).certify(x, 10, 200, 0.001, seed=0)
    with pytest.raises(TypeError, match=r"tuple of 2 outputs"):
        Smooth(lambda z: (np.zeros((len(z), 2)), z), 2, 0.25).certify(x, 10, 200, 0.001, seed=0)


class FailsOnThirdImage(torch.nn.Module):
    """Sound logits until the forward pass sees an image whose first feature is 3 (a model that raises mid-run)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(D, 3)

    def forward(self, x):
        if bool((x[:, 0] > 2.5).any()):
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return self.lin(x)


def test_certify_dataset_keeps_the_finished_images_when_a_later_one_fails():
    from robeval.core.errors import IncompleteResult

    torch.manual_seed(0)
    model = FailsOnThirdImage()
    x = np.zeros((5, D), np.float32)
    x[:, 0] = [0.0, 0.5, 3.0, 1.0, 1.5]
    y = [0, 1, 2, 0, 1]
    sm = Smooth(model, 3, 0.1)
    with pytest.raises(IncompleteResult, match=r"images 2\.\.2 failed.*The 2 of 5 images.*x\[2:\]") as err:
        sm.certify_dataset(x, y, 100, 200, seed=0, images_per_step=1, progress=False)  # was: nothing returned
    assert err.value.done == 2 and err.value.total == 5 and isinstance(err.value.__cause__, ValueError)
    kept = err.value.partial
    assert kept["idx"].tolist() == [0, 1]
    # resuming after the cause is fixed gives exactly the uninterrupted run (noise keyed by (seed, idx))
    x_fixed = x.copy()
    x_fixed[2, 0] = 2.0
    model_ok = Smooth(model, 3, 0.1)
    full = model_ok.certify_dataset(x_fixed, y, 100, 200, seed=0, images_per_step=1, progress=False)
    rest = model_ok.certify_dataset(
        x_fixed[2:], y[2:], 100, 200, seed=0, idx=np.arange(2, 5), images_per_step=1, progress=False
    )
    joined = pd.concat([kept, rest], ignore_index=True)
    assert joined.drop(columns="time").equals(full.drop(columns="time"))
    # a failure in the first group: nothing was finished, the original error
    with pytest.raises(ValueError, match="illegal memory access"):
        sm.certify_dataset(x[2:], y[2:], 100, 200, seed=0, progress=False)


def test_smoothing_misuse_gets_a_clear_error_not_a_traceback():
    lin = torch.nn.Linear(D, 3)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"device='cuda' asks for a GPU, but torch sees none on this machine"):
            Smooth(lin, 10, 0.25, device="cuda")
    # probe F #13: a misspelt name or a wrong type is said to be one, not blamed on a missing CUDA device
    with pytest.raises(ValueError, match=r"^device='gpu' is not a torch device name; pass one such as 'cpu'"):
        Smooth(lin, 3, 0.25, device="gpu")
    for bad in (1.5, True):
        with pytest.raises(TypeError, match=rf"^device must be a torch device name .*got {bad!r} of type"):
            Smooth(lin, 3, 0.25, device=bad)
    with pytest.raises(ValueError, match=r"^device='meta' holds no data"):
        Smooth(lin, 3, 0.25, device="meta")
    with pytest.raises(TypeError, match="radius must be one number.*once per radius"):
        Smooth(lin, 3, 0.25).certify_radius(X, [0.1, 0.2], 10, 200, 0.001, seed=0)
    # a float64 model: the noisy batch is cast to its dtype (was: a dtype error with a hint about x[None])
    x = np.random.default_rng(0).normal(size=(3, D)).astype(np.float32)
    double = Smooth(torch.nn.Linear(D, 3).double(), 3, 0.25).certify(x, 10, 100, 0.001, seed=0)
    assert double.prediction.shape == (3,)
    # the x[None] hint only where the shape is the problem
    with pytest.raises(ValueError, match=r"x\[None\]"):
        Smooth(torch.nn.Linear(D + 1, 3), 3, 0.25).certify(x, 10, 100, 0.001, seed=0)


class OutOfMemory(Const):
    def forward(self, x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")


def test_out_of_memory_says_lower_the_batch_size():
    with pytest.raises(ValueError, match=r"ran out of memory.*smaller batch_size") as err:
        Smooth(OutOfMemory(), 3, 0.25).certify(X, 10, 100, 0.001, batch_size=110, seed=0)
    assert "x[None]" not in str(err.value)


# ------------------------------------------------------ issue 48: no side effects, no unbounded work
class Dropping(torch.nn.Module):
    """A linear model with dropout and batch norm: its mode changes its outputs."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(D, 3)
        self.drop = torch.nn.Dropout(0.5)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.drop(self.lin(x)))


def test_certify_predict_and_certify_radius_restore_the_models_mode():
    """``Smooth(model_in_train_mode).certify(...)`` left the model in eval mode; every entry point now restores
    each submodule's own mode (also a mixed one), after success and after an error."""
    torch.manual_seed(0)
    x = np.zeros((2, D), dtype=np.float32)
    m = Dropping().train()
    s = Smooth(m, 3, 0.25)
    s.certify(x, 10, 20, 0.001, seed=0)
    assert all(mod.training for mod in m.modules())
    s.predict(x, 20, 0.001, seed=0)
    s.certify_radius(x, 0.1, 10, 200, 0.001, seed=0)
    assert all(mod.training for mod in m.modules())
    m.bn.eval()  # a mixed mode is given back as it was
    s.certify(x, 10, 20, 0.001, seed=0)
    assert m.training and m.lin.training and m.drop.training and not m.bn.training
    with pytest.raises(ValueError, match="alpha"):
        s.certify(x, 10, 20, 2.0, seed=0)
    assert m.training and not m.bn.training
    m.eval()
    s.certify(x, 10, 20, 0.001, seed=0)
    assert not any(mod.training for mod in m.modules())


def test_certify_refuses_an_unbounded_number_of_draws_with_an_estimate():
    """``certify(x, n0=50, n=10**12)`` ran until killed; it is now refused at once with the time it would take."""
    import time

    s = Smooth(Const(), 3, 0.25)
    x = np.zeros((1, D), dtype=np.float32)
    t0 = time.perf_counter()
    with pytest.raises(
        ValueError, match=r"1e\+12 noise draws \(len\(x\) \* \(n0 \+ n\)\).*MAX_DRAWS.*(hours|days).*allow_large=True"
    ):
        s.certify(x, 50, 10**12, 0.001, seed=0)
    with pytest.raises(ValueError, match=r"len\(x\) \* n\).*allow_large"):
        s.predict(np.zeros((1000, D), dtype=np.float32), 10**7, 0.001, seed=0)
    with pytest.raises(ValueError, match=r"n0 \+ n_max"):
        s.certify_radius(x, 0.1, 100, 10**10, 0.001, seed=0)
    with pytest.raises(ValueError, match="MAX_DRAWS"):
        s.certify_dataset(x, [0], n0=100, n=10**10, progress=False)
    assert time.perf_counter() - t0 < 30
    with pytest.raises(TypeError, match="allow_large must be True or False"):
        s.certify(x, 50, 10**12, 0.001, seed=0, allow_large="yes")


def test_certify_batch_size_is_a_speed_setting_within_memory():
    """A huge ``batch_size`` failed in the allocator without naming it; it is now cut to the draws of the call
    (same counts), and a batch too large for memory is refused naming batch_size and the largest that fits."""
    s = Smooth(Const(), 3, 0.25)
    x = np.random.default_rng(0).random((2, D)).astype(np.float32)
    a = s.certify(x, 10, 300, 0.001, seed=1)
    b = s.certify(x, 10, 300, 0.001, batch_size=10**12, seed=1)
    np.testing.assert_array_equal(a.n_a, b.n_a)
    np.testing.assert_array_equal(a.counts0, b.counts0)
    big = np.zeros((1, 3, 256, 256), dtype=np.float32)  # 768 KiB a noisy input: 4 GiB hold 5461
    with pytest.raises(ValueError, match=r"batch_size=10000 noisy inputs of shape \(3, 256, 256\).*batch_size <= 5461"):
        Smooth(lambda z: np.zeros(len(z), dtype=np.int64), 3, 0.25).certify(big, 10, 10**4, 0.001, 10**4, seed=0)


def test_smooth_with_string_classes_says_how_to_map_them():
    """An estimator with string classes failed with a torch dtype message."""
    rng = np.random.default_rng(0)
    est = LogisticRegression().fit(rng.normal(size=(30, D)), np.array(["cat", "dog", "eel"] * 10))
    with pytest.raises(ValueError, match=r"classes_ are \['cat', 'dog', 'eel'\].*np.searchsorted"):
        Smooth(est, 3, 0.25)
    with pytest.raises(ValueError, match=r"returned <U3 values \(\['cat'\]\).*class indices"):
        Smooth(lambda z: np.array(["cat"] * len(z)), 3, 0.25).certify(np.zeros((1, D), np.float32), 5, 5, 0.01, seed=0)
    ok = LogisticRegression().fit(rng.normal(size=(30, D)), np.arange(30) % 3)
    assert Smooth(ok, 3, 0.25).certify(np.zeros((1, D), np.float32), 5, 20, 0.01, seed=0).n == 20


def test_certify_input_text_and_nan_are_refused_naming_the_row():
    s = Smooth(Const(), 3, 0.25)
    x = np.zeros((3, D))
    x[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"x contains NaN or infinite values \(first in row 2\)"):
        s.certify(x, 5, 5, 0.01, seed=0)
    text = np.zeros((2, D)).astype(object)
    text[1, 0] = "0.5"
    with pytest.raises(ValueError, match="x must hold numbers.*row 1"):
        s.certify(text, 5, 5, 0.01, seed=0)
    with pytest.raises(ValueError, match="x is uint8"):
        s.certify(np.zeros((1, D), np.uint8), 5, 5, 0.01, seed=0)
