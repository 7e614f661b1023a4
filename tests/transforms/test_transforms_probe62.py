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


@pytest.mark.parametrize(
    "call",
    [
        lambda g: transforms.apply_scheme(IMAGES, "rotate", g, same_instance="no"),
        lambda g: transforms.autoaugment(IMAGES, g, same_instance="no"),
        lambda g: transforms.patch_gaussian_images(IMAGES, g, same_instance="no"),
    ],
)
def test_same_instance_must_be_bool(call):
    with pytest.raises(TypeError, match="same_instance must be True or False"):
        call(np.random.default_rng(0))


def test_apply_scheme_dtype_generate_dataset_names_load_released_mmap(tmp_path):
    g = np.random.default_rng(0)
    with pytest.raises(TypeError, match="dtype must be np.uint8 or np.float32"):
        transforms.apply_scheme(IMAGES, "rotate", g, dtype="x")
    with pytest.raises(ValueError, match="names is empty"):
        transforms.generate_dataset(IMAGES, [0, 1], [], tmp_path / "gen")
    assert not (tmp_path / "gen" / "labels.npy").exists()
    with pytest.raises(TypeError, match="progress must be True or False"):
        transforms.generate_dataset(IMAGES, [0, 1], ["fog"], tmp_path / "gen", progress="no")
    with pytest.raises(TypeError, match="mmap must be True or False"):
        transforms.load_released(tmp_path, "fog", mmap="no")
