"""Probe N (minor 1) on robeval.msd: features given as torch tensors that require grad are read detached (as
to_numpy does), giving the numpy answer, not torch's "Can't call numpy() on Tensor that requires grad"."""

import numpy as np
import pytest

from robeval import msd

A = np.random.default_rng(0).random((6, 2))
C = A[:2] + 1.0


def _grad(a):
    import torch

    return torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("fn", [msd.mmd, msd.msd, msd.mmd_many, msd.msd_many])
def test_features_that_require_grad_are_read_detached(fn):
    assert np.array_equal(np.asarray(fn(_grad(A), _grad(C))), np.asarray(fn(A, C)))
