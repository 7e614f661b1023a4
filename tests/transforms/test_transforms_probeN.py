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


def test_corrupt_and_corrupt_with_param_refuse_masked_idx():
    # the masked key 1 was read: the same checksum as idx=[0, 1]
    idx = np.ma.masked_array([0, 1], [0, 1])
    with pytest.raises(TypeError, match="^idx" + MASKED + r"Pass the values that count: idx\.compressed\(\)"):
        T.corrupt(IMGS, "gaussian_noise", 3, seed=0, idx=idx)
    with pytest.raises(TypeError, match="^idx" + MASKED):
        T.corrupt_with_param(IMGS, "gaussian_noise", 0.04, seed=0, idx=idx)
    assert T.corrupt(IMGS, "gaussian_noise", 3, seed=0, idx=np.array([0, 1])).shape == IMGS.shape


@pytest.mark.parametrize("name", [["brightness"], ("fog",), {"fog"}, None, 3])
def test_corrupt_refuses_a_name_that_is_not_text(name):
    # a list failed as "TypeError: unhashable type: 'list'"
    fix = r"; call once per name \(generate_dataset takes several names\)\.$"
    with pytest.raises(TypeError, match=r"^name must be one corruption name as text, e\.g\. 'fog', got .*" + fix):
        T.corrupt(IMGS, name, 3, seed=0)
    with pytest.raises(TypeError, match=r"^name must be one corruption name as text"):
        T.corrupt_with_param(IMGS, name, 0.5, seed=0)
