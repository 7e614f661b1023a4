"""Probe L, L5 on robeval.transforms: corrupt refuses a masked image batch (its masked pixels were corrupted and
returned like any other, in either layout)."""

import numpy as np
import pytest

from robeval.transforms import corrupt


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_corrupt_refuses_masked_images(layout):
    images = np.zeros((2, 32, 32, 3), np.uint8) if layout == "NHWC" else np.zeros((2, 3, 32, 32), np.uint8)
    with pytest.raises(TypeError, match=r"^images is a numpy masked array; its masked values would be read like any"):
        corrupt(np.ma.masked_array(images, np.zeros_like(images, dtype=bool)), "contrast", 1, layout=layout)
    assert corrupt(images, "contrast", 1, layout=layout).shape == images.shape
