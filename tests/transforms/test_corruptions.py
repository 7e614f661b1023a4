"""Tests of robeval.transforms.corruptions: CIFAR-10-C (Hendrycks & Dietterich) and CIFAR-10-C-bar (Mintun et al.)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import ndimage, stats

from robeval.transforms import corruptions as C
from robeval.transforms.corruptions import cifar10_c, cifar10_c_bar, common

BENCHMARK = C.C_CORRUPTIONS + C.CBAR_CORRUPTIONS
EXTRA = tuple(c for c in C.CANDIDATE_CORRUPTIONS if c not in C.CBAR_CORRUPTIONS)
# Corruptions with no random parameters (the seed must not matter).
DETERMINISTIC = {
    "defocus_blur",
    "zoom_blur",
    "brightness",
    "contrast",
    "pixelate",
    "jpeg_compression",
    "circular_motion_blur",
    "bleach_bypass",
    "technicolor",
}
# Published parameters that are not ordered by pixel distance (see test_known_non_monotone_mechanisms).
NON_MONOTONE = {"glass_blur", "elastic_transform", "frost"}


@pytest.fixture(scope="module")
def cifar():
    from robeval.core.data import load_cifar10_subset

    x = load_cifar10_subset()[2][:12]  # uint8 NCHW test images
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def mean_dist(a, b):
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).mean())


# ------------------------------------------------------------------ names and parameters


def test_names_and_published_parameters():
    assert C.C_CORRUPTIONS == (
        "gaussian_noise",
        "shot_noise",
        "impulse_noise",
        "defocus_blur",
        "glass_blur",
        "motion_blur",
        "zoom_blur",
        "snow",
        "frost",
        "fog",
        "brightness",
        "contrast",
        "elastic_transform",
        "pixelate",
        "jpeg_compression",
    )
    assert len(C.CBAR_CORRUPTIONS) == 10 and set(C.CBAR_CORRUPTIONS) <= set(C.CANDIDATE_CORRUPTIONS)
    # CIFAR-specific values (not ImageNet-C's, whose gaussian_noise is .08 … .38)
    assert C.severity_params("gaussian_noise") == (0.04, 0.06, 0.08, 0.09, 0.10)
    assert C.severity_params("jpeg_compression") == (80, 65, 58, 50, 40)
    assert C.severity_params("blue_noise_sample") == (0.7, 1.4, 2.1, 3.5, 4.2)
    assert C.severity_params("transverse_chromatic_abberation") == (1.0, 2.0, 5.0, 9.0, 10.0)
    np.testing.assert_allclose(C.scan_levels("plasma_noise"), np.arange(1, 11) * 0.7)
    with pytest.raises(ValueError, match="scan_levels"):
        C.severity_params("plasma_noise")
    # all 30 candidates of the release's corruption_master_list.csv (fish_eye = its fish_eye_v2)
    assert len(C.CANDIDATE_CORRUPTIONS) == 30 and set(C.SCAN_RANGES) == set(C.CANDIDATE_CORRUPTIONS)
    assert {"perlin_noise", "caustic_refraction", "fish_eye"} <= set(C.CANDIDATE_CORRUPTIONS)
    np.testing.assert_allclose(C.scan_levels("caustic_refraction"), 1 + 0.4 * np.arange(1, 11))
    np.testing.assert_allclose(C.scan_levels("perlin_noise"), 4 + 0.6 * np.arange(1, 11))


# ------------------------------------------------------------------ properties of every corruption


@pytest.mark.parametrize("name", BENCHMARK)
def test_benchmark_corruption_properties(cifar, name):
    x = cifar
    dists = []
    for sev in range(1, 6):
        y = C.corrupt(x, name, sev, seed=1)
        assert y.shape == x.shape and y.dtype == np.uint8
        assert not np.array_equal(y, x), f"{name} severity {sev} is the identity"
        np.testing.assert_array_equal(y, C.corrupt(x, name, sev, seed=1))  # reproducible
        dists.append(mean_dist(y, x))
    if name in DETERMINISTIC:
        np.testing.assert_array_equal(y, C.corrupt(x, name, 5, seed=2))
    else:
        assert not np.array_equal(y, C.corrupt(x, name, 5, seed=2)), f"{name} ignores its seed"
    if name not in NON_MONOTONE:
        # distance from the clean image grows with severity (ties allowed: motion_blur 3→4 differs only in
        # kernel taps with weight < 1e-4)
        assert all(b >= a * 0.995 for a, b in zip(dists, dists[1:])), (name, np.round(dists, 2))
        assert dists[-1] > dists[0] * 1.2, (name, np.round(dists, 2))


@pytest.mark.parametrize("name", EXTRA)
def test_candidate_corruption_properties(cifar, name):
    x = cifar[:6]
    levels = C.scan_levels(name)[[0, 3, 6, 9]]
    dists = []
    for lv in levels:
        y = C.corrupt_with_param(x, name, float(lv), seed=3)
        assert y.shape == x.shape and y.dtype == np.uint8 and not np.array_equal(y, x)
        np.testing.assert_array_equal(y, C.corrupt_with_param(x, name, float(lv), seed=3))
        dists.append(mean_dist(y, x))
    assert all(b >= a * 0.98 for a, b in zip(dists, dists[1:])), (name, np.round(dists, 2))


def test_known_non_monotone_mechanisms(cifar):
    """Three published CIFAR-10-C schedules are not ordered by pixel distance; check their mechanisms instead."""
    x = cifar
    d = {s: mean_dist(C.corrupt(x, "glass_blur", s, seed=0), x) for s in range(1, 6)}
    # glass blur: a second shuffling pass moves pixels farther (sev 4 vs 2 and 5 vs 3 share sigma) …
    assert d[4] > d[2] and d[5] > d[3]
    # … while the stronger blur at one pass smooths the swaps back toward the clean image.
    assert d[3] < d[1]
    # elastic: at a fixed schedule entry, a larger displacement amplitude moves pixels farther.
    a, s_, j = C.severity_params("elastic_transform")[4]
    e = [mean_dist(C.corrupt_with_param(x, "elastic_transform", (k * a, s_, j), seed=0), x) for k in (0.5, 1, 2)]
    assert e[0] < e[1] < e[2]
    # frost: the overlay weight grows with severity while the image weight shrinks.
    params = C.severity_params("frost")
    assert [p[1] for p in params] == sorted(p[1] for p in params)
    f = [mean_dist(C.corrupt_with_param(x, "frost", (1.0, w), seed=0), x) for w in (0.2, 0.3, 0.4)]
    assert f[0] < f[1] < f[2]


# ------------------------------------------------------------------ bad input


def test_bad_input_errors(cifar):
    x = cifar[:2]
    with pytest.raises(ValueError, match="Valid names.*gaussian_noise.*blue_noise_sample"):
        C.corrupt(x, "gaussian_blurr", 1)
    for bad in (0, 6, 2.5, True):
        with pytest.raises(ValueError, match="severity"):
            C.corrupt(x, "contrast", bad)
    with pytest.raises(ValueError, match="uint8"):
        C.corrupt(x.astype(np.float32) / 255, "contrast", 1)
    with pytest.raises(ValueError, match="NCHW"):
        C.corrupt(x.transpose(0, 3, 1, 2), "contrast", 1)
    with pytest.raises(ValueError, match=r"images\[None\]"):
        C.corrupt(x[0], "contrast", 1)
    with pytest.raises(ValueError, match=r"\[0, 10\]"):
        C.corrupt_with_param(x, "ripple", 11.0)
    with pytest.raises(ValueError, match="tuple of length 2"):
        C.corrupt_with_param(x, "defocus_blur", 0.5)
    with pytest.raises(TypeError, match="seed"):
        C.corrupt(x, "ripple", 1, seed="abc")
    with pytest.raises(ValueError, match="draws random numbers: pass seed="):
        C.corrupt(x, "gaussian_noise", 1)  # never a silent fallback to fresh OS entropy
    # deterministic corruptions need no seed
    np.testing.assert_array_equal(C.corrupt(x, "contrast", 1), C.corrupt(x, "contrast", 1, seed=3))


def test_huge_or_non_numeric_parameters_get_a_clear_error(cifar):
    """Issue 36: a huge blur parameter raised MemoryError from numpy/scipy (a 298 GiB kernel grid)."""
    x = cifar[:1]
    with pytest.raises(ValueError, match=r"component 0 = 100000, more than 10 x the largest published value \(1.5\)"):
        C.corrupt_with_param(x, "defocus_blur", (1e5, 0.5))
    with pytest.raises(ValueError, match=r"\|value\| <= 1"):
        C.corrupt_with_param(x, "gaussian_noise", 1e9, seed=0)
    with pytest.raises(TypeError, match="tuple of 2 numbers"):
        C.corrupt_with_param(x, "defocus_blur", ("big", 0.5))
    # the published parameters and values up to the bound still work
    assert C.corrupt_with_param(x, "defocus_blur", (15.0, 0.5)).shape == x.shape


# ------------------------------------------------------------------ closed forms and statistics


def test_noise_statistics():
    grey = np.full((64, 32, 32, 3), 128, np.uint8)
    y = C.corrupt(grey, "gaussian_noise", 3, seed=0).astype(np.float64) / 255
    assert abs(y.std() - 0.08) < 0.002  # additive N(0, 0.08²) in [0, 1] units
    y = C.corrupt(grey, "shot_noise", 3, seed=0).astype(np.float64) / 255
    assert abs(y.var() - (128 / 255) / 100) / ((128 / 255) / 100) < 0.05  # Poisson: var = x / c
    y = C.corrupt(grey, "impulse_noise", 5, seed=0)
    changed = y != 128
    assert abs(changed.mean() - 0.07) < 0.005
    assert abs((y == 255).mean() - (y == 0).mean()) < 0.005


def test_contrast_and_brightness_closed_forms():
    x = np.zeros((1, 32, 32, 3), np.uint8)
    x[:, :16] = 201
    x[:, 16:] = 100
    y = C.corrupt(x, "contrast", 2, seed=0)  # factor 0.5 about the channel mean 150.5, truncated
    assert set(np.unique(y)) == {175, 125}
    g = np.full((1, 32, 32, 3), 100, np.uint8)
    y = C.corrupt(g, "brightness", 5, seed=0)  # grey: V + 0.3
    assert np.all(y == np.uint8((100 / 255 + 0.3) * 255))
    # random colours: matches skimage's HSV round trip to one grey level
    from skimage.color import hsv2rgb, rgb2hsv

    rnd = np.random.default_rng(0).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    hsv = rgb2hsv(rnd / 255.0, channel_axis=-1)
    hsv[..., 2] = np.clip(hsv[..., 2] + 0.15, 0, 1)
    ref = np.uint8(np.clip(hsv2rgb(hsv, channel_axis=-1), 0, 1) * 255)
    assert np.abs(C.corrupt(rnd, "brightness", 3, seed=0).astype(int) - ref).max() <= 1


def test_blur_kernels():
    k = cifar10_c.disk_kernel(1.5, 0.1)
    assert abs(k.sum() - 1) < 1e-12 and np.allclose(k, k.T) and np.allclose(k, k[::-1, ::-1])
    flat = np.full((2, 32, 32, 3), 77, np.uint8)
    assert np.all(C.corrupt(flat, "defocus_blur", 5) == 76) or np.all(C.corrupt(flat, "defocus_blur", 5) == 77)
    w = common.motion_blur_kernel(6, 2)
    assert len(w) == 13 and abs(w.sum() - 1) < 1e-12
    np.testing.assert_allclose(w[1] / w[0], np.exp(-1 / 8))
    # one bright pixel, angle 0: the streak trails to the left (taps sample x + i)
    img = np.zeros((1, 32, 32, 1))
    img[0, 10, 20] = 1.0
    out = common.motion_blur(img, 6, 2, np.array([0.0]))[0, :, :, 0]
    np.testing.assert_allclose(out[10, 20 - 12 : 21][::-1], w)
    assert out.sum() == pytest.approx(1.0)


def test_linear_operators_match_scipy():
    rng = np.random.default_rng(0)
    plane = rng.random((32, 32))
    for angle in (2.5, -9.0):
        op = common.rotation_matrix(32, [angle])
        ref = ndimage.rotate(plane, angle, reshape=False, order=3, mode="constant")
        np.testing.assert_allclose((op @ plane.ravel()).reshape(32, 32), ref, atol=1e-7)
    img = rng.random((1, 32, 32, 1))
    ch = int(np.ceil(32 / 1.2))
    top = (32 - ch) // 2
    ref = ndimage.zoom(img[0, top : top + ch, top : top + ch, 0], 1.2, order=1)
    trim = (ref.shape[0] - 32) // 2
    np.testing.assert_allclose(
        common.clipped_zoom(img, 1.2)[0, :, :, 0], ref[trim : trim + 32, trim : trim + 32], atol=1e-12
    )
    # transverse chromatic aberration at level 0: every channel gets scipy's zoom(1, prefilter=False)
    x = rng.integers(0, 256, (1, 32, 32, 3), dtype=np.uint8)
    y = C.corrupt_with_param(x, "transverse_chromatic_abberation", 0.0, seed=0)
    ref = np.stack([ndimage.zoom(x[0, :, :, c], 1.0, prefilter=False) for c in range(3)], axis=-1)
    diff = np.abs(y[0].astype(int) - ref)
    assert diff.max() <= 1 and (diff > 0).mean() < 0.02  # only exact .5 ties may round differently


def test_fourier_noise_spectra():
    rng = np.random.default_rng(0)
    blue = common.fourier_noise(rng, (200,), 32, lambda r: r)
    brown = common.fourier_noise(rng, (200,), 32, lambda r: 1 / (r**2 + 1))
    np.testing.assert_allclose(blue.std(axis=(1, 2)), 1.0)

    def lag1(a):
        return np.mean(a[:, :, 1:] * a[:, :, :-1])

    assert lag1(blue) < -0.3 and lag1(brown) > 0.8  # blue: high frequencies; brownish: smooth blotches
    # blue noise sample: the fraction of dropped pixels ≈ P(noise ≤ threshold) of a standard normal
    white = np.full((100, 32, 32, 3), 255, np.uint8)
    y = C.corrupt(white, "blue_noise_sample", 5, seed=0)
    assert abs((y[..., 0] == 0).mean() - stats.norm.cdf(0.3 * 4.2 - 2.5)) < 0.02


def test_occluders():
    white = np.full((200, 32, 32, 3), 255, np.uint8)
    y = C.corrupt_with_param(white, "checkerboard_cutout", 10.0, seed=0)  # every other square greyed
    assert abs((y[..., 0] == 128).mean() - 0.5) < 0.03
    y = C.corrupt_with_param(white, "checkerboard_cutout", 4.0, seed=0)
    assert abs((y[..., 0] == 128).mean() - 0.2) < 0.03
    dark = np.full((20, 32, 32, 3), 30, np.uint8)
    for name in ("sparkles", "inverse_sparkles"):  # both only add white light
        y = C.corrupt(dark, name, 3, seed=0)
        assert np.all(y >= 29) and y.mean() > 31
    fog = cifar10_c.plasma_fractal(np.random.default_rng(0), 3, 32, 2.0)
    assert fog.shape == (3, 32, 32) and np.allclose(fog.min(axis=(1, 2)), 0) and np.allclose(fog.max(axis=(1, 2)), 1)


def test_frost_layers():
    from robeval.core.data import load_frost_images

    photos = load_frost_images()
    layers = cifar10_c.frost_layers()
    assert [lay.shape[:2] for lay in layers] == [(round(p.shape[0] * 0.2), round(p.shape[1] * 0.2)) for p in photos]
    np.testing.assert_array_equal(layers[0][1, 1], photos[0][7, 7, :3])  # pixel 5·i + 2


# ------------------------------------------------------------------ dataset generation


def test_generate_dataset(tmp_path, cifar, monkeypatch):
    x, y = cifar[:5], np.arange(5)
    paths = C.generate_dataset(x, y, ["contrast", "ripple"], tmp_path, seed=7, chunk_size=3, progress=False)
    data = np.load(paths["ripple"])
    assert data.shape == (25, 32, 32, 3) and data.dtype == np.uint8
    np.testing.assert_array_equal(np.load(paths["labels"]), np.tile(y, 5))
    # image i of severity s is reproducible from its own stream keyed (seed, name, s, i), whatever the chunk
    root = C.corruption_seed(7, "ripple", 4)
    np.testing.assert_array_equal(data[15 + 3 : 15 + 5], C.corrupt(x[3:5], "ripple", 4, seed=root, idx=[3, 4]))
    np.testing.assert_array_equal(data[15 + 2], C.corrupt(x[2:3], "ripple", 4, seed=root, idx=[2])[0])
    imgs, labels = C.load_dataset(tmp_path, "contrast")
    assert imgs.shape == (5, 5, 32, 32, 3) and np.array_equal(labels, y)
    np.testing.assert_array_equal(imgs[1], C.corrupt(x, "contrast", 2))
    assert C.is_generated(tmp_path, "ripple", x, 7) and not C.is_generated(tmp_path, "ripple", x, 8)

    def boom(*a, **k):
        raise AssertionError("existing files must not be regenerated")

    with monkeypatch.context() as m:
        m.setattr(C, "corrupt", boom)
        C.generate_dataset(x, y, ["contrast", "ripple"], tmp_path, seed=7, chunk_size=3, progress=False)
    # a damaged file, or one made with another seed, is regenerated rather than resumed with
    raw = bytearray(paths["ripple"].read_bytes())
    raw[-1] ^= 1
    paths["ripple"].write_bytes(bytes(raw))
    assert not C.is_generated(tmp_path, "ripple", x, 7)
    C.generate_dataset(x, y, ["ripple"], tmp_path, seed=7, chunk_size=3, progress=False)
    np.testing.assert_array_equal(np.load(paths["ripple"]), data)
    C.generate_dataset(x, y, ["ripple"], tmp_path, seed=8, progress=False)
    assert not np.array_equal(np.load(paths["ripple"]), data)
    with pytest.raises(ValueError, match="labels"):
        C.generate_dataset(x, y[:3], ["contrast"], tmp_path, seed=7)


def test_generate_dataset_independent_of_chunk_size(tmp_path, cifar):
    """Every benchmark corruption: the files are byte-identical for two chunk sizes (and a subset of severities)."""
    x, y = cifar[:7], np.arange(7) % 3
    names = list(BENCHMARK) + list(C.VARIANTS)
    a = C.generate_dataset(x, y, names, tmp_path / "a", seed=3, severities=(1, 5), chunk_size=7, progress=False)
    b = C.generate_dataset(x, y, names, tmp_path / "b", seed=3, severities=(1, 5), chunk_size=3, progress=False)
    for name in names + ["labels"]:
        assert a[name].read_bytes() == b[name].read_bytes(), name
    imgs, labels = C.load_dataset(tmp_path / "a", "snow")
    assert imgs.shape == (2, 7, 32, 32, 3) and np.array_equal(labels, y)
    np.testing.assert_array_equal(imgs[1], C.corrupt(x, "snow", 5, seed=C.corruption_seed(3, "snow", 5)))


def test_load_dataset_refuses_a_folder_its_manifest_does_not_describe(tmp_path, cifar):
    """A fresh probe of issue 62: load_dataset reshaped by the severity count in corruptions.json without checking
    the file, so an edited entry (2 severities recorded for a 1-severity file of 2 images) gave 2 "severities" of 1
    image and only the first label."""
    import json

    x, y = cifar[:2], np.array([3, 7])
    C.generate_dataset(x, y, ["contrast"], tmp_path, seed=0, severities=(1,), progress=False)
    imgs, labels = C.load_dataset(tmp_path, "contrast")
    assert imgs.shape == (1, 2, 32, 32, 3) and labels.tolist() == [3, 7]
    manifest = tmp_path / "corruptions.json"
    kept = manifest.read_text()
    for edit in ("severities", "shape", "sha256"):
        data = json.loads(kept)
        entry = data["corruptions"]["contrast"]
        entry[edit] = {"severities": [1, 2], "shape": [4, 32, 32, 3], "sha256": "0" * 64}[edit]
        manifest.write_text(json.dumps(data))
        with pytest.raises(ValueError, match="Regenerate the folder") as err:
            C.load_dataset(tmp_path, "contrast")
        assert ("repeating the same N labels" in str(err.value)) == (edit == "severities")
    # labels.npy replaced by other labels of the right length: its recorded sha256 no longer holds
    manifest.write_text(kept)
    np.save(tmp_path / "labels.npy", np.array([7, 3], np.uint8))
    with pytest.raises(ValueError, match=r"labels.npy is not the file corruptions.json records"):
        C.load_dataset(tmp_path, "contrast")


def _generate_into(out, names):  # a process of its own (multiprocessing): one corrupt run
    rng = np.random.default_rng(1)
    x = rng.integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    C.generate_dataset(x, np.arange(6) % 3, names, out, seed=0, severities=(1,), progress=False)


def test_two_runs_into_one_folder_keep_each_others_manifest_entries(tmp_path):
    """A fresh probe of issue 62: two `robeval corrupt` runs into one --out both exited 0, but corruptions.json kept
    only the last writer's entries (its read-modify-write was not atomic). An entry is now added under a lock on the
    folder, re-reading the file: the other run's entries stay."""
    import multiprocessing as mp

    a, b = ["contrast", "brightness", "gaussian_noise"], ["shot_noise", "pixelate", "jpeg_compression"]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_generate_into, args=(tmp_path, names)) for names in (a, b)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert sorted(C._read_manifest(tmp_path)) == sorted(a + b)
    for name in a + b:
        assert C.load_dataset(tmp_path, name)[0].shape == (1, 6, 32, 32, 3)
    # the same, deterministically: an entry added while the file holds another keeps it
    C._write_manifest(tmp_path, entries={"zzz": {"x": 1}})
    assert sorted(C._read_manifest(tmp_path)) == sorted(a + b + ["zzz"])


# ------------------------------------------------------------------ per-image streams (batching invariance)

# a mid-range parameter of every corruption: severity 3 of the benchmarks, the 6th scan level of the candidates
ALL_WITH_PARAM = [(n, C.severity_params(n)[2]) for n in C.C_CORRUPTIONS + C.VARIANTS] + [
    (n, float(C.scan_levels(n)[5])) for n in C.CANDIDATE_CORRUPTIONS
]


@pytest.mark.parametrize("name,param", ALL_WITH_PARAM, ids=[n for n, _ in ALL_WITH_PARAM])
def test_results_do_not_depend_on_batching(cifar, name, param):
    x = cifar[:8]
    whole = C.corrupt_with_param(x, name, param, seed=5)
    halves = np.concatenate(
        [
            C.corrupt_with_param(x[:4], name, param, seed=5, idx=range(4)),
            C.corrupt_with_param(x[4:], name, param, seed=5, idx=np.arange(4, 8)),
        ]
    )
    np.testing.assert_array_equal(whole, halves)
    # one image alone, keyed by its position, and the batch in reverse order with reversed keys
    np.testing.assert_array_equal(C.corrupt_with_param(x[6:7], name, param, seed=5, idx=[6])[0], whole[6])
    rev = C.corrupt_with_param(x[::-1], name, param, seed=5, idx=np.arange(8)[::-1])
    np.testing.assert_array_equal(rev[::-1], whole)
    other = C.corrupt_with_param(x, name, param, seed=6)
    if name in DETERMINISTIC | {"color_dither"}:  # color dithering is deterministic too
        np.testing.assert_array_equal(other, whole)
    else:
        assert not np.array_equal(other, whole), f"{name} ignores its seed"
        # the same image under two keys gets two different draws
        twice = C.corrupt_with_param(np.repeat(x[:1], 2, axis=0), name, param, seed=5)
        assert not np.array_equal(twice[0], twice[1]), name


@pytest.mark.parametrize("name", C.CBAR_CORRUPTIONS)
def test_cbar_severities_do_not_depend_on_batching(cifar, name):
    x = cifar[:8]
    whole = C.corrupt(x, name, 4, seed=9)
    halves = [C.corrupt(x[:4], name, 4, seed=9, idx=range(4)), C.corrupt(x[4:], name, 4, seed=9, idx=range(4, 8))]
    np.testing.assert_array_equal(whole, np.concatenate(halves))


def test_image_rng_streams():
    from robeval.core.seeding import keyed

    rng = common.ImageRNG(11, 3, idx=[5, 0, 7])
    u = rng.uniform(0, 1, size=(3, 4))
    for row, key in zip(u, (5, 0, 7)):  # image i draws from default_rng(keyed(seed, idx[i]))
        np.testing.assert_array_equal(row, np.random.default_rng(keyed(11, key)).uniform(0, 1, 4))
    ss = common.ImageRNG(np.random.SeedSequence(4), 2).standard_normal(size=2)
    assert ss.shape == (2,) and ss[0] == np.random.default_rng(keyed(np.random.SeedSequence(4), 0)).standard_normal()
    lam = np.array([[1.0, 50.0], [1000.0, 2.0]])
    assert common.ImageRNG(0, 2).poisson(lam).shape == (2, 2)
    assert common.ImageRNG(0, 2).integers(0, 5, size=(2, 3)).shape == (2, 3)
    # a Generator is turned into a root seed with one draw: shared generators give fresh but reproducible draws
    g1, g2 = np.random.default_rng(1), np.random.default_rng(1)
    a = common.ImageRNG(g1, 2).random(2)
    np.testing.assert_array_equal(a, common.ImageRNG(g2, 2).random(2))
    assert not np.array_equal(a, common.ImageRNG(g1, 2).random(2))
    # no seed: fine until the first draw, which raises instead of using OS entropy
    guard = common.ImageRNG(None, 2, what="corruption 'x'")
    with pytest.raises(ValueError, match="draws random numbers: pass seed="):
        guard.uniform(size=2)
    with pytest.raises(ValueError, match="batch first"):
        common.ImageRNG(0, 3).uniform(size=(2, 3))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        common.ImageRNG(0, 3, idx=[0, 1])
    with pytest.raises(ValueError, match="0 .. 2\\*\\*32"):
        common.ImageRNG(0, 2, idx=[0, -1])
    with pytest.raises(TypeError, match="integers"):
        common.ImageRNG(0, 2, idx=[0.5, 1.0])
    with pytest.raises(TypeError, match="seed"):
        common.ImageRNG("abc", 2)
    with pytest.raises(ValueError, match="idx"):
        C.corrupt(np.zeros((2, 32, 32, 3), np.uint8), "gaussian_noise", 1, seed=0, idx=[1, 2, 3])


# ------------------------------------------------------------------ image size


@pytest.mark.parametrize("size", [64, 224])
def test_non_cifar_sizes_are_rejected_before_any_work(tmp_path, monkeypatch, size):
    import tracemalloc

    def boom(*a, **k):
        raise AssertionError("no operator may be built for a rejected image size")

    monkeypatch.setattr(common, "rotation_matrix", boom)
    monkeypatch.setattr(cifar10_c_bar, "_circular_blur_matrix", boom)
    x = np.zeros((2, size, size, 3), np.uint8)
    tracemalloc.start()
    try:
        for name in ("circular_motion_blur", "gaussian_noise", "ripple"):
            with pytest.raises(
                ValueError, match=rf"{size}x{size}.*CIFAR-10-C.*32x32.*resize.*ImageNet-C.*not implemented"
            ):
                C.corrupt(x, name, 5, seed=0)
        with pytest.raises(ValueError, match=rf"{size}x{size}"):
            C.generate_dataset(x, [0, 1], ["circular_motion_blur"], tmp_path, seed=0, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # the (H·W)² operator of circular blur would need 0.1-19 GiB
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------------ glass blur: the release copies pixels


def _reference_style_shuffle(img, offsets, delta):
    """The released data's loop on one uint8 image (H, W, 3), with its tuple assignment of numpy views."""
    x = img.copy()
    size = x.shape[0]
    for it in range(offsets.shape[0]):
        k = 0
        for h in range(size - delta, delta, -1):
            for w in range(size - delta, delta, -1):
                dx, dy = offsets[it, k]
                k += 1
                h2, w2 = h + dy, w + dx
                x[h, w], x[h2, w2] = x[h2, w2], x[h, w]  # views: a copy, not a swap
    return x


def test_glass_shuffle_copies_like_the_release():
    # 5x5 image with value 10·row + col; positions visited: rows 4, 3, 2 × columns 4, 3, 2 (in that order)
    img = (10 * np.arange(5)[:, None] + np.arange(5)[None, :]).astype(np.uint8)
    img = np.repeat(img[None, :, :, None], 3, axis=-1)
    rows, cols = cifar10_c.glass_positions(5, 1)
    assert list(zip(rows, cols))[:4] == [(4, 4), (4, 3), (4, 2), (3, 4)] and len(rows) == 9
    left = np.zeros((1, 1, 9, 2), np.int64)
    left[..., 0] = -1  # dx = -1, dy = 0 everywhere: each visited pixel reads its left neighbour
    copy = cifar10_c.glass_shuffle(img.copy(), left, 1)[0, :, :, 0]
    np.testing.assert_array_equal(copy[4], [40, 41, 41, 42, 43])  # copied from the left, nothing swapped
    np.testing.assert_array_equal(copy[:2], img[0, :2, :, 0])  # rows 0, 1 are never visited
    swap = cifar10_c.glass_shuffle(img.copy(), left, 1, swap=True)[0, :, :, 0]
    np.testing.assert_array_equal(swap[4], [40, 44, 41, 42, 43])  # true swaps bubble pixel 44 to column 1
    assert sorted(swap.ravel()) == sorted(img[0, :, :, 0].ravel())  # a permutation
    # one diagonal read at (3, 3): it takes (2, 2)'s value, (2, 2) keeps its own
    diag = np.zeros((1, 1, 9, 2), np.int64)
    diag[0, 0, 4] = (-1, -1)
    out = cifar10_c.glass_shuffle(img.copy(), diag, 1)[0, :, :, 0]
    assert out[3, 3] == 22 and out[2, 2] == 22 and (out != img[0, :, :, 0]).sum() == 1
    # random offsets, one and two passes, max_delta 1 and 2: the same as the release's loop with views
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    for delta, iters in ((1, 1), (1, 2), (2, 2)):
        n_pos = len(cifar10_c.glass_positions(32, delta)[0])
        offs = rng.integers(-delta, delta, size=(3, iters, n_pos, 2))
        got = cifar10_c.glass_shuffle(x.copy(), offs, delta)
        for i in range(3):
            np.testing.assert_array_equal(got[i], _reference_style_shuffle(x[i], offs[i], delta))


def test_glass_blur_release_vs_true_swap(cifar):
    # sigma 0: no blur, so only the shuffling acts; pixels with distinct colours make copies visible
    idx = np.arange(32 * 32)
    img = np.stack([idx // 32 * 8, idx % 32 * 8, np.full_like(idx, 7)], axis=-1).reshape(1, 32, 32, 3).astype(np.uint8)
    colours = {tuple(p) for p in img.reshape(-1, 3)}
    copy = C.corrupt_with_param(img, "glass_blur", (0.0, 1, 1), seed=0)
    swap = C.corrupt_with_param(img, "glass_blur_true_swap", (0.0, 1, 1), seed=0)
    assert sorted(map(tuple, swap.reshape(-1, 3))) == sorted(map(tuple, img.reshape(-1, 3)))  # permutation
    copied = [tuple(p) for p in copy.reshape(-1, 3)]
    assert set(copied) <= colours and len(set(copied)) < len(colours) * 0.8  # duplicates: values were copied
    # each pixel holds its own value or that of its upper / left / upper-left neighbour
    r, c = np.arange(32)[:, None], np.arange(32)[None, :]
    src_r, src_c = copy[0, :, :, 0] // 8, copy[0, :, :, 1] // 8
    assert np.all((r - src_r >= 0) & (r - src_r <= 1) & (c - src_c >= 0) & (c - src_c <= 1))
    # the released behaviour moves pixels less: mean change 31-44 % lower at severities 1-3
    x = cifar
    for s in (1, 2, 3):
        d_copy = mean_dist(C.corrupt(x, "glass_blur", s, seed=1), x)
        d_swap = mean_dist(C.corrupt(x, "glass_blur_true_swap", s, seed=1), x)
        assert 1.15 < d_swap / d_copy < 1.8, (s, d_copy, d_swap)
    assert C.severity_params("glass_blur_true_swap") == C.severity_params("glass_blur")
    assert "glass_blur_true_swap" not in C.C_CORRUPTIONS and "glass_blur_true_swap" in C.VARIANTS
    with pytest.raises(ValueError, match="max_delta"):
        C.corrupt_with_param(x[:1], "glass_blur", (0.5, 0, 1), seed=0)


# ------------------------------------------------------------------ construction of CIFAR-10-C-bar


def test_spread_and_severity_sets_hand_computed():
    from robeval.msd import cbar as K

    assert K.average_spread(np.array([[10, 15, 20, 25, 30], [5, 5, 10, 15, 15]])) == pytest.approx((0.5 + 0.5) / 2)
    # errors 1..10, spread 0.5, middle e=5 (index 4): s1 ∈ {1,2,3} → |e/5 − 1 + 0.5| ties at 2 and 3 → larger (e=3);
    # s5 ∈ {7..10} → ties at 7 and 8 → e=8; s4 ∈ {6, 7} → e=6 (|0.2 − 0.25|)
    sets = K.build_severity_sets(np.arange(1.0, 11.0), 0.5)
    assert len(sets) == 6 and sets[2] == (2, 3, 4, 5, 7)
    assert all(a < b < c < d < e for a, b, c, d, e in sets)


def test_distance_table_and_matching():
    from robeval.msd import cbar as K

    base = np.zeros((2, 5, 3))
    base[1] = 1.0
    scan = np.zeros((2, 6, 3))
    scan[1, :, 0] = np.arange(6)  # candidate 1 moves away from both baseline points
    sets = [[(0, 1, 2, 3, 4)], [(0, 1, 2, 3, 4), (1, 2, 3, 4, 5)]]
    with pytest.raises(ValueError, match="same number"):
        K.distance_table(base, scan, sets)
    sets = [[(0, 1, 2, 3, 4), (1, 2, 3, 4, 5)]] * 2
    d = K.distance_table(base, scan, sets)
    assert np.allclose(d[0], 0)
    # nearest of (0,0,0) and (1,1,1) for (x,0,0): x=0 → 0; x=1 → sqrt(2); x≥1 → min(x, sqrt((x−1)²+2))
    dist = [min(x, np.sqrt((x - 1) ** 2 + 2)) for x in range(6)]
    assert d[1, 0] == pytest.approx(np.mean(dist[:5])) and d[1, 1] == pytest.approx(np.mean(dist[1:]))
    err = np.array([[0.1, 0.2], [0.3, 0.5], [0.2, 0.9]])
    groups = K.sample_matched_datasets(err, 0.25, precision=0.01, num=2, n_groups=10, rng=np.random.default_rng(0))
    # by hand: pairs summing to 0.5 — candidates (0, 1) with sets (1, 0): 0.2 + 0.3; (1, 2) with (0, 0): 0.3 + 0.2;
    # candidates (0, 2) have no matching assignment and are dropped
    assert {tuple(g) for g in groups} == {((0, 1), (1, 0)), ((1, 0), (2, 0))}
    assert all(abs(np.mean([err[c, s] for c, s in g]) - 0.25) / 0.25 < 0.01 for g in groups)


def test_shifts_pick_the_far_corruptions():
    from robeval.msd import cbar as K

    rng = np.random.default_rng(0)
    n_c, n_levels, dim = 14, 6, 4
    rows = []
    for b in range(3):  # baseline benchmark near the origin
        for s in range(1, 6):
            rows.append(
                {
                    "corruption": f"b{b}",
                    "kind": "c",
                    "level": s,
                    "error": 0.1 * s,
                    "feature": list(rng.normal(0, 0.1, dim)),
                }
            )
    far = {f"cand{i:02d}" for i in range(0, n_c, 2)}  # every other candidate lives far away
    for i in range(n_c):
        name = f"cand{i:02d}"
        for j, lv in enumerate(np.linspace(1, 10, n_levels)):
            offset = 5.0 if name in far else 0.2
            rows.append(
                {
                    "corruption": name,
                    "kind": "cbar",
                    "level": lv,
                    "error": 0.05 + 0.08 * j + 0.01 * (i % 3),
                    "feature": list(offset + rng.normal(0, 0.1, dim)),
                }
            )
    res = K.construct(pd.DataFrame(rows), precision=0.05, num=3, n_groups=300, n_pairs=5000, n_runs=2, k=7, seed=0)
    assert res["target"] == pytest.approx(0.3)
    assert set(res["top"]) == far
    assert res["shifts"]["shift"].iloc[:7].min() > res["shifts"]["shift"].iloc[7:].max()
    if res["best"] is not None:
        assert set(res["best"]["severities"]) <= far and abs(res["best"]["error"] - 0.3) / 0.3 < 0.05


def test_color_dither_quantises_rows_independently(cifar):
    x = cifar[:4]
    y = C.corrupt_with_param(x, "color_dither", 10.0, seed=0)  # 14 − 10 = 4 levels per channel
    assert set(np.unique(y)) <= {0, 85, 170, 255}
    perm = np.random.default_rng(0).permutation(32)
    perm = np.concatenate([[0], perm[perm != 0]])  # row 0 is special (no 7/16 term): keep it first
    perm = np.concatenate([perm[perm != 31], [31]])  # and the last row (no 1/16 term) last
    y_perm = C.corrupt_with_param(x[:, perm], "color_dither", 10.0, seed=0)
    np.testing.assert_array_equal(y_perm, y[:, perm])


# ------------------------------------------------------------------ the last three construction candidates


def test_perlin_noise_field():
    # single octave: gradient noise vanishes on the lattice and is bounded by 1.5·sqrt(2)/2
    t = cifar10_c_bar._perlin_turbulence(np.random.default_rng(0), 20, 32, 4.0, octaves=1.0)
    assert np.abs(t[:, ::4, ::4]).max() < 1e-12 and t.max() <= 1.5 * np.sqrt(0.5) + 1e-9 and t.mean() > 0.1
    # blend weight a = 0.05·level with f = clip(0.5·turbulence + 0.5, 0, 1) ∈ [0.5, 1] (grey, same in every channel)
    black = np.zeros((20, 32, 32, 3), np.uint8)
    y = C.corrupt_with_param(black, "perlin_noise", 8.0, seed=0).astype(np.float64)
    a = 0.4
    assert np.all(y[..., 0] == y[..., 1]) and np.all(y[..., 0] == y[..., 2])
    assert y.min() >= np.floor(255 * a * 0.5) and y.max() <= 255 * a
    assert np.all(y[:, 0, 0] == np.floor(255 * a * 0.5))  # pixel (0, 0) is a lattice point of every octave
    assert y.std() > 3 and (y == np.floor(255 * a)).mean() < 0.1  # a varied field, rarely clipped
    white = np.full((4, 32, 32, 3), 255, np.uint8)
    assert C.corrupt_with_param(white, "perlin_noise", 8.0, seed=0).min() >= np.floor(255 * (1 - a / 2))


def test_caustic_refraction_on_flat_image_is_lighting_only():
    # refraction only moves sampling positions, so a flat image stays flat away from the border (shifts
    # ≤ 0.97·lens scale = 3.1 px at level 2) and what remains is the lighting term, linear in the level
    grey = np.full((8, 32, 32, 3), 128, np.uint8)
    light1, light2 = (
        C.corrupt_with_param(grey, "caustic_refraction", lv, seed=4).astype(np.float64) - 128 for lv in (1.0, 2.0)
    )
    assert np.all(light2 == light2[..., :1])  # the same light on every channel
    inner = (slice(None), slice(5, 27), slice(5, 27))
    y1, y2 = light1[inner][..., 0], light2[inner][..., 0]
    free = (y2 > -128) & (y2 < 127)
    assert free.mean() > 0.8 and np.abs(y1).mean() > 2
    assert np.abs(y2 - 2 * y1)[free].max() <= 3  # truncation to integers, twice
    # on a textured image the displacement matters too: the result is not the lit image alone
    x = np.random.default_rng(0).integers(0, 256, (8, 32, 32, 3), dtype=np.uint8)
    z = C.corrupt_with_param(x, "caustic_refraction", 2.0, seed=4).astype(np.float64)
    lit = np.clip(x + light2, 0, 255)
    assert np.abs(z - lit)[inner].mean() > 5


def test_fish_eye_lenses():
    rng = np.random.default_rng(0)
    d = rng.uniform(-3.5, 3.5, size=(2, 10000))
    sr, sc = cifar10_c_bar._fish_eye_shift(d[0], d[1], 3.0, 1.2)
    inside = np.hypot(d[0], d[1]) < 3.0
    assert np.all(sr[~inside] == 0) and np.all(sc[~inside] == 0)
    # each pixel reads the image closer to the lens centre, never beyond it (magnification)
    assert np.all(sr * d[0] >= 0) and np.all(np.abs(sr) <= np.abs(d[0])) and np.abs(sr[inside]).max() > 0.3
    assert np.all(sc * d[1] >= 0) and np.all(np.abs(sc) <= np.abs(d[1]))
    zero = np.zeros(1)
    assert cifar10_c_bar._fish_eye_shift(zero, zero, 3.0, 1.2) == (0.0, 0.0)  # the centre stays put
    np.testing.assert_array_equal(cifar10_c_bar._fish_eye_shift(d[0], d[1], 3.0, 1.0)[0], 0.0)  # index 1: no lens
    x = np.random.default_rng(1).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    np.testing.assert_array_equal(C.corrupt_with_param(x, "fish_eye", 0.0, seed=0), x)
    # a flat image stays flat (bilinear weights sum to 1) except near the bottom/right border, where lenses
    # centred in the last pixel row/column read the black outside
    grey = np.full((4, 32, 32, 3), 128, np.uint8)
    y = C.corrupt_with_param(grey, "fish_eye", 1.0, seed=0)
    assert set(np.unique(y[:, :22, :22])) <= {127, 128} and y[:, -1].mean() < 127
