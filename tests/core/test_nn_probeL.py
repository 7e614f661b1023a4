"""Probe L on robeval.core.nn: masked arrays are refused where their masked entries were read (L5: accuracy)."""

import numpy as np
import pytest

from robeval.core import nn

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"


def test_accuracy_refuses_masked_labels_and_images(net):
    # L5: the masked labels were counted like any other
    m, x, y = net
    with pytest.raises(TypeError, match="^y" + MASKED):
        nn.accuracy(m, x, np.ma.masked_array(y, [0, 0, 0, 1]))
    with pytest.raises(TypeError, match="^x" + MASKED):
        nn.accuracy(m, np.ma.masked_array(x, np.zeros_like(x, dtype=bool)), y)
    assert nn.accuracy(m, x, y) == 1.0
