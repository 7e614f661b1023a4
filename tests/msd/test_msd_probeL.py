"""Probe L, L5 on robeval.msd: mixture_transform refuses masked probabilities (probs [0.5, --] was accepted, though
its unmasked values do not sum to 1)."""

import numpy as np
import pytest

from robeval.msd.distance import mixture_transform


def test_mixture_transform_refuses_masked_probabilities():
    with pytest.raises(
        TypeError, match=r"^probs is a numpy masked array; its masked values would be read like any other"
    ):
        mixture_transform(["fog", "contrast"], np.ma.masked_array([0.5, 0.5], [0, 1]))
    assert callable(mixture_transform(["fog", "contrast"], [0.5, 0.5]))
