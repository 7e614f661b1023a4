"""Probe M on robeval.acr: Smooth.certify's ``idx`` and certify_dataset's ``labels`` as numpy masked arrays are
refused (M10: the masked entries were read, through the shared checkers check_indices / check_labels)."""

import numpy as np
import pytest
import torch

from robeval.acr import Smooth

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)\. "


class Base(torch.nn.Module):
    def forward(self, z):
        z = z.reshape(len(z), -1)
        return torch.stack([z[:, 0], -z[:, 0]], 1)


@pytest.fixture
def smooth():
    x = np.random.default_rng(0).random((4, 3)).astype(np.float32)
    return Smooth(Base(), num_classes=2, sigma=0.25), x


def test_certify_refuses_a_masked_idx(smooth):
    # M10: certify(idx=masked) was accepted: the masked index keyed its input's noise stream
    S, x = smooth
    idx = np.ma.masked_array([0, 5, 2, 3], [0, 1, 0, 0])
    with pytest.raises(TypeError, match="^idx" + MASKED):
        S.certify(x, 10, 20, 0.01, seed=0, idx=idx)
    with pytest.raises(TypeError, match="^idx" + MASKED):
        S.certify_dataset(x, [0, 1, 0, 1], n0=10, n=20, alpha=0.01, idx=idx, progress=False)


def test_certify_dataset_refuses_masked_labels(smooth):
    # M10: certify_dataset(labels=masked) counted the masked label in `correct`
    S, x = smooth
    labels = np.ma.masked_array([0, 1, 0, 1], [0, 0, 1, 0])
    with pytest.raises(TypeError, match="^labels" + MASKED):
        S.certify_dataset(x, labels, n0=10, n=20, alpha=0.01, progress=False)
    assert len(S.certify_dataset(x, labels.data, n0=10, n=20, alpha=0.01, progress=False)) == 4


@pytest.mark.parametrize(
    "labels",
    [[True, False, True, False], np.array([True, False, True, False]), torch.tensor([True, False, True, False])],
)
def test_certify_dataset_refuses_boolean_labels(smooth, labels):
    # minor: certify_dataset(labels=[True, False]) read the booleans as the classes 1 and 0
    S, x = smooth
    said = r"^labels must hold numbers, e\.g\. \[0, 2, 1\] \(class indices 0\.\.num_classes-1\); got booleans"
    with pytest.raises(TypeError, match=said):
        S.certify_dataset(x, labels, n0=10, n=20, alpha=0.01, progress=False)
    result = S.certify_radius(x, 0.1, n0=10, n_max=200, alpha=0.01, seed=0)
    with pytest.raises(TypeError, match=said):
        result.certified_correct(labels)
    assert result.certified_correct([1, 0, 1, 0]).dtype == bool
