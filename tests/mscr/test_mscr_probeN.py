"""Probe N on robeval.mscr (N3): run_seeds refuses a numpy boolean as n_runs, as it refuses True (np.True_ meant one
run); mscr_value refuses dates, durations and structured records as ``acc_rob`` (dates of days 0 and 1 were read as
accuracies 0 and 1), as it does for ``acc_clean``."""

import numpy as np
import pytest

from robeval import mscr


@pytest.mark.parametrize("flag", [True, np.True_, np.False_])
def test_run_seeds_refuses_booleans_as_the_number_of_runs(flag):
    with pytest.raises(ValueError, match=r"^n_runs must be an integer >= 0 \(a count of runs, not True/False\), got "):
        mscr.run_seeds(3, flag)
    with pytest.raises(TypeError, match="^seed must be an integer"):
        mscr.run_seeds(flag, 3)
    assert len(mscr.run_seeds(3, np.int64(2))) == 2


BAD = {
    "dates": np.arange(2).astype("datetime64[D]"),
    "durations": np.arange(2).astype("timedelta64[s]"),
    "records": np.zeros(2, dtype=[("a", float)]),
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("side", ["acc_clean", "acc_rob"])
def test_mscr_value_refuses_dates_durations_and_records_on_either_side(kind, side):
    args = {"acc_clean": np.array([0.9, 0.8]), "acc_rob": np.array([0.9, 0.8])}
    args[side] = BAD[kind]
    with pytest.raises(
        TypeError,
        match=rf"^{side} must be an accuracy in \[0, 1\] \(a real number\), got values of dtype .*; pass the "
        rf"accuracies as floats, e\.g\. {side}=\[0\.85, 0\.9\]\.$",
    ):
        mscr.mscr_value(**args)
    assert np.allclose(mscr.mscr_value([0.9, 0.8], [0.45, 0.8]), [-50.0, 0.0])


def test_mscr_value_reads_tensors_that_require_grad_detached():
    # minor 1: torch's "Can't call numpy() on Tensor that requires grad" named no argument
    import torch

    clean = torch.tensor([0.9, 0.8], dtype=torch.float64, requires_grad=True)
    rob = torch.tensor([0.45, 0.8], dtype=torch.float64, requires_grad=True)
    assert np.allclose(mscr.mscr_value(clean, rob), [-50.0, 0.0])
    assert np.allclose(mscr.mscr_value({"acc": clean[0]}, 0.45), -50.0)


class Reached(Exception):
    """Raised by the patched training: the thread check let the config through."""


THREADS_FIX = r"^config\['torch_threads'\] must be an integer >= 1, got .*; pass e\.g\. config\['torch_threads'\]=2\.$"
THREADS_CAP = r"^config\['torch_threads'\] must be at most 1024 .* got 1,000,000; pass the thread count"


@pytest.fixture
def no_training(monkeypatch):
    from robeval.mscr import cifar

    def reached(*a, **k):
        raise Reached

    monkeypatch.setattr(cifar, "train_cifar_model", reached)
    monkeypatch.setattr(cifar, "_load_cifar", reached)


CFG = dict(arch="cnn_small", width=4, epochs=1, batch_size=10, n_train=20, n_test=10, eps_test=[0.0], train_threads=1)


@pytest.mark.parametrize(
    ("bad", "kind", "match"),
    [
        (2.7, TypeError, THREADS_FIX),
        ("3", TypeError, THREADS_FIX),
        (True, TypeError, THREADS_FIX),
        (np.True_, TypeError, THREADS_FIX),
        (-1, ValueError, THREADS_FIX),
        (10**6, ValueError, THREADS_CAP),
    ],
)
def test_run_cell_cifar_refuses_a_bad_torch_threads_before_computing(bad, kind, match, no_training):
    # N1: 2.7 was truncated to 2, '3' read, -1 torch's RuntimeError, 10**6 killed the interpreter (SIGSEGV)
    import torch

    before = torch.get_num_threads()
    with pytest.raises(kind, match=match):
        mscr.run_cell_cifar({"seed": 1, "eps_train": 0.0}, {**CFG, "torch_threads": bad})
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("fine", [None, 0, 1, np.int64(2)])
def test_run_cell_cifar_takes_a_whole_thread_count_or_zero(fine, no_training):
    import torch

    before = torch.get_num_threads()
    try:
        with pytest.raises(Reached):
            mscr.run_cell_cifar({"seed": 1, "eps_train": 0.0}, {**CFG, "torch_threads": fine})
        assert torch.get_num_threads() == (before if not fine else int(fine))
    finally:
        torch.set_num_threads(before)


def test_evaluate_levels_reads_points_that_require_grad_detached():
    import torch
    from sklearn.neighbors import KNeighborsClassifier

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.1, 0.0], [0.9, 1.0]])
    y = np.array([0, 1, 0, 1])
    clf = KNeighborsClassifier(1).fit(X, y)
    grad = torch.tensor(X, requires_grad=True)
    assert mscr.evaluate_levels(clf, grad, y, [0.0, 0.2], 2, 2, seed=0) == mscr.evaluate_levels(
        clf, X, y, [0.0, 0.2], 2, 2, seed=0
    )
