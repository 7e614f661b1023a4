"""Issue 62's probe: inputs that gave silent wrong answers in robeval.transforms."""

import numpy as np
import pytest

from robeval import transforms

IMAGES = np.random.default_rng(0).integers(0, 255, (2, 32, 32, 3), dtype=np.uint8)


def test_corrupt_refuses_repeated_idx():
    with pytest.raises(ValueError, match="idx lists the key 5 more than once"):
        transforms.corrupt(IMAGES, "gaussian_noise", 3, seed=0, idx=[5, 5])
    with pytest.raises(ValueError, match="idx lists the key 5 more than once"):
        transforms.corrupt_with_param(IMAGES, "gaussian_noise", 0.08, seed=0, idx=[5, 5])
    a = transforms.corrupt(IMAGES, "gaussian_noise", 3, seed=0, idx=[5, 6])
    assert a.shape == IMAGES.shape
