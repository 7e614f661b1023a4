"""Issue 62's probe: inputs that gave silent wrong answers in robeval.transforms."""

import os

import numpy as np
import pytest

from robeval import transforms
from robeval.transforms import augmentations

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


def test_apply_scheme_names_itself_for_a_misspelt_keyword():
    """O4: the refusal named sample_scheme, which the user did not call."""
    with pytest.raises(TypeError, match=r"apply_scheme\(\) got an unexpected keyword argument 'widht'"):
        transforms.apply_scheme(IMAGES, ["autocontrast"], np.random.default_rng(0), widht=3)


def test_pixelate_factor_too_small_names_param():
    """O3: corrupt_with_param(I, 'pixelate', 0) gave PIL's 'height and width must be > 0'."""
    for c in (0, 0.01):
        with pytest.raises(ValueError, match=r"param of pixelate is a down-scaling factor.*>= 1/32"):
            transforms.corrupt_with_param(IMAGES, "pixelate", c)
    assert transforms.corrupt_with_param(IMAGES, "pixelate", 1 / 32).shape == IMAGES.shape


def test_generate_dataset_deletes_only_its_own_temporaries(tmp_path):
    """L1: every *.tmp and .*.tmp file of the folder was deleted, a user's own included."""
    out = tmp_path / "userdir"
    out.mkdir()
    keep = ["thesis-draft.tmp", ".vimswap.tmp", "notes.txt", ".fog.npy.tmp", ".mine.npy.abcdefgh.tmp", "fog.npy.x.tmp"]
    for name in keep:
        (out / name).write_text("user")
    stale = [".fog.npy.abcd_123.tmp", ".labels.npy.zzzzzzzz.tmp", ".corruptions.json.a1b2c3d4.tmp"]
    for name in stale:
        (out / name).write_text("killed writer")
        os.utime(out / name, (0, 0))  # long ago: a killed run's (a fresh one may be another run's, still writing)
    transforms.generate_dataset(IMAGES, [1, 2], ["fog"], out, severities=(1,), progress=False)
    left = sorted(p.name for p in out.iterdir())
    assert left == sorted(keep + ["corruptions.json", "fog.npy", "labels.npy"])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    "name, param",
    [("defocus_blur", (0, 0)), ("zoom_blur", (0, 0, 0)), ("snow", (0,) * 7), ("fog", (0, 0)), ("snow", (1e-9,) * 7)],
)
def test_a_parameter_a_corruption_cannot_take_is_refused_naming_it(name, param):
    """A third look: zero parameters gave numpy's "zero-size array", ZeroDivisionError or "array is too big"."""
    images = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)
    refused = rf"^(param .* of {name} cannot be applied to 32x32 images .*published ones|{name}'s .* must be )"
    with pytest.raises(ValueError, match=refused):  # since probe I #6 a zero divisor is named before it is tried
        transforms.corrupt_with_param(images, name, param, seed=0)


def test_make_batch_transform_checks_its_keywords_when_made():
    """A third look: a misspelt keyword failed only during training, naming apply_scheme (or was ignored)."""
    for name, options in (
        ("none", "it takes no keyword options here"),
        ("patch_gaussian", "its keyword options are patch_width, max_sigma"),
        ("augmix", "its keyword options are width, max_depth, alpha"),
        (["rotate"], "its keyword options are width, max_depth, alpha"),
    ):
        with pytest.raises(
            TypeError, match=f"make_batch_transform\\(\\) got an unexpected keyword argument 'widht'; {options}"
        ):
            augmentations.make_batch_transform(name, widht=2)
    assert callable(augmentations.make_batch_transform("patch_gaussian", patch_width=3))


@pytest.mark.parametrize(
    "name, param, why",
    [
        ("shot_noise", 0, r"param of shot_noise is a Poisson photon count > 0 .*got 0\. Published values: \(500,"),
        ("impulse_noise", 2.0, r"param of impulse_noise is the share of values .* in \[0, 1\]; got 2\.0\. Published"),
        ("jpeg_compression", 50.5, r"param of jpeg_compression is a JPEG quality, a whole number in 1\.\.100 .*50\.5"),
        ("jpeg_compression", 101, r"param of jpeg_compression is a JPEG quality, a whole number in 1\.\.100 .*101"),
        ("defocus_blur", (-1, 0.1), r"param \(-1\.0, 0\.1\) of defocus_blur has a negative component.*Published"),
        ("frost", (-1, 0.4), r"param \(-1\.0, 0\.4\) of frost has a negative component.*Published values"),
        ("snow", (0.1, 0.2, 1, 0.6, 8, 3, -0.5), r"param .* of snow has a negative component"),
    ],
)
def test_a_parameter_outside_its_corruptions_domain_is_refused(name, param, why):
    """N6: a zero photon count gave black images, a negative defocus radius the positive one's blur, a negative frost
    weight dark images, an impulse amount 2 and a JPEG quality 50.5 (truncated to 50) were accepted."""
    with pytest.raises(ValueError, match=why):
        transforms.corrupt_with_param(IMAGES, name, param, seed=0)


def test_every_published_parameter_still_passes_the_domain_checks():
    from robeval.transforms.corruptions import cifar10_c

    for name, params in cifar10_c.PARAMS.items():
        for param in params:
            out = transforms.corrupt_with_param(IMAGES[:1], name, param, seed=0)
            assert out.shape == IMAGES[:1].shape
    assert transforms.corrupt_with_param(IMAGES, "jpeg_compression", 50.0).shape == IMAGES.shape  # a whole float


def test_a_missing_seed_is_named_as_such_not_as_a_bad_param():
    """O-N1: corrupt(images, "shot_noise", 3) without seed said "param 100 of shot_noise cannot be applied"."""
    need_seed = r"^corruption 'shot_noise' draws random numbers: pass seed= \(an int"
    with pytest.raises(ValueError, match=need_seed) as err:
        transforms.corrupt(IMAGES, "shot_noise", 3)
    assert "param" not in str(err.value)
    with pytest.raises(ValueError, match=need_seed):
        transforms.corrupt_with_param(IMAGES, "shot_noise", 100)
    with pytest.raises(ValueError, match=r"^corruption 'blue_noise_sample' draws random numbers: pass seed="):
        transforms.corrupt_with_param(IMAGES, "blue_noise_sample", 3.0)
    assert transforms.corrupt(IMAGES, "contrast", 3).shape == IMAGES.shape  # a deterministic one needs no seed


def test_patch_gaussian_refuses_a_patch_width_beyond_int64():
    """probeE #14: an OverflowError (Python int too large to convert to C long) escaped."""
    with pytest.raises(ValueError, match=r"patch_width must be an integer in 1\.\.2\*\*62"):
        transforms.patch_gaussian_images(IMAGES, np.random.default_rng(0), patch_width=10**30)
    wide = transforms.patch_gaussian_images(IMAGES, np.random.default_rng(0), patch_width=2**62)
    np.testing.assert_array_equal(
        wide, transforms.patch_gaussian_images(IMAGES, np.random.default_rng(0), patch_width=64)
    )


def test_generate_dataset_out_dir_that_is_a_file(tmp_path):
    """probeE #16: raw FileExistsError / NotADirectoryError."""
    (tmp_path / "notadir").write_text("x")
    for out in (tmp_path / "notadir", tmp_path / "notadir" / "sub"):
        with pytest.raises(
            ValueError, match=r"out_dir .* cannot be made a folder: .*notadir' exists and is not a folder"
        ):
            transforms.generate_dataset(IMAGES, np.array([0, 1]), ["fog"], out, severities=(1,), progress=False)


def test_load_dataset_without_a_record_says_5_is_the_default(tmp_path):
    """probeE #24: the message said "as corruptions.json records" for a file it has no record of."""
    np.save(tmp_path / "fog.npy", np.zeros((7, 32, 32, 3), np.uint8))
    np.save(tmp_path / "labels.npy", np.zeros(7, np.uint8))
    with pytest.raises(
        ValueError, match="expected 5 severities \\(the default: corruptions.json records no severities"
    ):
        transforms.load_dataset(tmp_path, "fog")


def test_idx_beyond_the_stream_keys_is_named_by_its_value():
    """Probe E #14, #23: idx=[10**30, 1] raised OverflowError, [2**63, 1] was called "dtype float64" (numpy's
    reading of the list) and a uint64 2**64 - 1 wrapped to -1. Each is now the range error with the value given."""
    for idx, shown in (
        ([10**30, 1], "1 .. 1000000000000000000000000000000"),
        ([2**63, 1], "1 .. 9223372036854775808"),
        (np.array([2**64 - 1, 0], dtype=np.uint64), "0 .. 18446744073709551615"),
    ):
        with pytest.raises(ValueError, match=rf"idx must lie in 0 \.\. 2\*\*32 - 1, got values in {shown}\."):
            transforms.corrupt(IMAGES[:2], "fog", 1, seed=0, idx=idx)
    # valid keys, as a list, a numpy or an unsigned array, give one and the same images
    a = transforms.corrupt(IMAGES[:2], "fog", 1, seed=0, idx=[3, 4])
    for idx in (np.array([3, 4]), np.array([3, 4], dtype=np.uint32), (3, 4)):
        np.testing.assert_array_equal(transforms.corrupt(IMAGES[:2], "fog", 1, seed=0, idx=idx), a)
