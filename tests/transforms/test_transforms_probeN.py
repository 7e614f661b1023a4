"""Probe N on robeval.transforms (N3): generate_dataset refuses masked labels before writing anything (the masked
label was written to labels.npy)."""

import numpy as np
import pytest

from robeval import transforms as T
from robeval.transforms.corruptions import folder_inputs

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)\. "
IMGS = (np.random.default_rng(0).random((2, 32, 32, 3)) * 255).astype(np.uint8)


def test_generate_dataset_refuses_masked_labels_before_writing(tmp_path):
    out = tmp_path / "gd"
    with pytest.raises(TypeError, match="^labels" + MASKED + r"Pass the values that count: labels\.compressed\(\)"):
        T.generate_dataset(
            IMGS, np.ma.masked_array([0, 7], [0, 1]), ["brightness"], out, severities=(1,), progress=False
        )
    assert not out.exists()
    with pytest.raises(TypeError, match="^labels" + MASKED):
        folder_inputs(IMGS, np.ma.masked_array([0, 7], [0, 1]), (1,))
