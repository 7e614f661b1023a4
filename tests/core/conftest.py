"""Fixtures shared by tests/core's test files."""

import numpy as np
import pytest
import torch

from robeval.core import nn


@pytest.fixture
def net():
    """An untrained, seeded ``cnn_small`` in eval mode, 4 images (float32, NCHW 3x32x32 in [0, 1)) and its predictions."""
    torch.manual_seed(0)
    m = nn.build("cnn_small").eval()
    x = np.random.default_rng(0).random((4, 3, 32, 32)).astype(np.float32)
    return m, x, nn.predict(m, x)
