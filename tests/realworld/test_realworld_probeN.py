"""Probe N on robeval.realworld: real_world_robustness refuses np.True_ as n_samples as it refuses True (N3: it meant
one sample per point); the torch thread count of torch_threads / fit_mlp goes through the threads check (N1's kind:
fit_mlp truncated threads=2.7 with int(), torch_threads passed any count to torch)."""

import numpy as np
import pytest

from robeval import realworld as rw
from robeval.realworld import experiments

X = np.array([[0.2, 0.3], [0.7, 0.6], [0.4, 0.9]])


def _rule(Z):
    return (np.asarray(Z)[:, 0] > 0.5).astype(int)


@pytest.mark.parametrize("flag", [True, np.True_, np.False_])
def test_real_world_robustness_refuses_booleans_as_n_samples(flag):
    with pytest.raises(ValueError, match=r"^n_samples must be an integer >= 1 or 'auto'; got "):
        rw.real_world_robustness(_rule, X, cov=np.eye(2) * 0.01, n_samples=flag, rng=0)


@pytest.mark.parametrize(
    ("bad", "kind"), [(2.7, TypeError), ("3", TypeError), (np.True_, TypeError), (-1, ValueError), (10**6, ValueError)]
)
def test_torch_threads_refuses_a_count_torch_would_misread(bad, kind):
    import torch

    before = torch.get_num_threads()
    with pytest.raises(kind, match=r"^n must be (an integer >= 1|at most 1024)"):
        with experiments.torch_threads(bad):
            pass
    assert torch.get_num_threads() == before


def test_torch_threads_zero_or_none_leaves_torchs_count():
    import torch

    before = torch.get_num_threads()
    for n in (None, 0):
        with experiments.torch_threads(n):
            assert torch.get_num_threads() == before


def test_fit_mlp_refuses_fractional_threads_instead_of_truncating():
    split = experiments.Split(
        X_train=np.array([[0.0, 0.0], [1.0, 1.0]]),
        y_train=np.array([0, 1]),
        X_test=np.array([[0.0, 0.0]]),
        y_test=np.array([0]),
        mean=np.zeros(2),
        scale=np.ones(2),
    )
    with pytest.raises(TypeError, match=r"^threads must be an integer >= 1, got 2\.7; pass e\.g\. threads=2\.$"):
        experiments.fit_mlp(split, epochs=1, threads=2.7)


def _grad(a):
    import torch

    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: rw.linear_robustness(x, np.array([1.0, -1.0]), 0.0, cov=np.eye(2) * 0.01),
        lambda x: rw.right_angle_robustness(x, cov=np.eye(2) * 0.01),
        lambda x: rw.real_world_robustness(_rule, x, cov=np.eye(2) * 0.01, n_samples=50, rng=0),
    ],
)
def test_points_that_require_grad_are_read_detached(call):
    # minor 1: torch's "Can't call numpy() on Tensor that requires grad" named no argument
    assert np.array_equal(call(_grad(X)), call(X))
