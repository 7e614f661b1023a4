"""Tests for robeval.transforms.augmentations: hand-computed cases, PIL equivalence, determinism, the powerset."""

import numpy as np
import pytest
import torch

from robeval.transforms import augmentations as A


@pytest.fixture(scope="module")
def images():
    rng = np.random.default_rng(0)
    x = rng.integers(30, 200, size=(6, 32, 32, 3)).astype(np.uint8)
    x[..., 0] = x[..., 0] // 3 + 60  # a low-contrast red channel
    x[:, :4, :4, 1] = 250  # bright pixels, so every solarize threshold the sampler can draw acts
    return x


# ---------------------------------------------------------------- per-op invariants
@pytest.mark.parametrize("name", A.BASE_OPS)
def test_op_keeps_shape_dtype_and_is_deterministic(images, name):
    fn = getattr(A, name)
    out1 = fn(images, 3.0, np.random.default_rng(1))
    out2 = fn(images, 3.0, np.random.default_rng(1))
    assert out1.shape == images.shape and out1.dtype == np.uint8
    np.testing.assert_array_equal(out1, out2)
    # not the identity at a nonzero magnitude: every image changes
    changed = np.any(out1.reshape(len(images), -1) != images.reshape(len(images), -1), axis=1)
    assert changed.all()


@pytest.mark.parametrize("name", A.BASE_OPS)
def test_ops_do_not_modify_input(images, name):
    before = images.copy()
    getattr(A, name)(images, 5.0, np.random.default_rng(0))
    np.testing.assert_array_equal(images, before)


def test_per_image_parameters_differ_between_images(images):
    # the same image repeated gets different random rotations
    x = np.repeat(images[:1], 8, axis=0)
    out = A.rotate(x, 10.0, np.random.default_rng(0))
    assert len({o.tobytes() for o in out}) == 8


# ---------------------------------------------------------------- hand cases
def test_solarize_threshold_hand_case():
    x = np.array([0, 99, 100, 101, 200, 255], dtype=np.uint8).reshape(1, 1, 6, 1)
    out = A.apply_op(x, "solarize", 100).ravel()
    np.testing.assert_array_equal(out, [0, 99, 155, 154, 55, 0])
    np.testing.assert_array_equal(A.apply_op(x, "solarize", 256), x)  # threshold 256: identity


def test_posterize_bits_hand_case():
    x = np.array([0b10110111, 0b01111111, 255, 7], dtype=np.uint8).reshape(1, 1, 4, 1)
    np.testing.assert_array_equal(A.apply_op(x, "posterize", 3).ravel(), [0b10100000, 0b01100000, 0b11100000, 0])
    np.testing.assert_array_equal(A.apply_op(x, "posterize", 8), x)


def test_autocontrast_known_array():
    x = np.array([[50, 100, 150]], dtype=np.uint8).reshape(1, 1, 3, 1)
    # scale 255/100, offset -127.5: 0, 127.5 -> 127 (truncation as PIL), 255
    np.testing.assert_array_equal(A.apply_op(x, "autocontrast").ravel(), [0, 127, 255])
    flat = np.full((1, 2, 2, 1), 77, dtype=np.uint8)
    np.testing.assert_array_equal(A.apply_op(flat, "autocontrast"), flat)


def test_equalize_two_level_image():
    # half the pixels 10, half 20: step = (8 - 4) // 255 = 0 -> PIL leaves the channel unchanged
    x = np.array([10] * 4 + [20] * 4, dtype=np.uint8).reshape(1, 2, 4, 1)
    np.testing.assert_array_equal(A.apply_op(x, "equalize"), x)
    # 1020 pixels spread over 4 levels: step = (1020 - 255) // 255 = 3, lut = (1 + below) // 3
    y = np.repeat(np.array([0, 1, 2, 3], dtype=np.uint8), 255).reshape(1, 30, 34, 1)
    np.testing.assert_array_equal(np.unique(A.apply_op(y, "equalize")), [0, 85, 170, 255])


@pytest.mark.parametrize("k", [1, 3, 5])
def test_translate_by_exactly_k_pixels(images, k):
    out = A.apply_op(images, "translate_x", float(k))
    np.testing.assert_array_equal(out[:, :, :-k], images[:, :, k:])
    assert np.all(out[:, :, -k:] == 0)
    out = A.apply_op(images, "translate_y", float(-k))
    np.testing.assert_array_equal(out[:, k:], images[:, :-k])
    assert np.all(out[:, :k] == 0)


def test_rotate_90_is_rot90_and_0_is_identity(images):
    np.testing.assert_array_equal(A.apply_op(images, "rotate", 90.0), np.rot90(images, 1, axes=(1, 2)))
    np.testing.assert_array_equal(A.apply_op(images, "rotate", 0.0), images)
    np.testing.assert_array_equal(A.apply_op(images, "shear_x", 0.0), images)


@pytest.mark.parametrize("op", ["rotate", "shear_x", "shear_y", "translate_x", "translate_y", "autocontrast"])
def test_one_instance_for_a_batch_equals_the_images_one_by_one(images, op):
    """The shared-instance shortcuts (one sampling map broadcast over the batch; autocontrast's contiguous
    reductions) give, bit for bit, what each image gives alone, whole-pixel shifts and flat channels included."""
    x = images.copy()
    x[2, ..., 1] = 77  # a flat channel: autocontrast leaves it as it is
    for magnitude in (0.0, 3.0, 7.3, -12.5):
        param = {"rotate": magnitude * 4, "shear_x": magnitude / 30, "shear_y": magnitude / 30}.get(op, magnitude)
        whole = A.apply_op(x, op, param)
        alone = np.concatenate([A.apply_op(x[i : i + 1], op, param) for i in range(len(x))])
        np.testing.assert_array_equal(whole, alone)
    mixed = np.array([0.0, 5.0, -3.0, 2.5, 9.0, -7.0])  # per-image parameters take the general path
    if op != "autocontrast":
        whole = A.apply_op(x, op, mixed)
        alone = np.concatenate([A.apply_op(x[i : i + 1], op, mixed[i]) for i in range(len(x))])
        np.testing.assert_array_equal(whole, alone)


def test_shear_x_moves_rows_proportionally_to_y():
    x = np.zeros((1, 32, 32, 1), dtype=np.uint8)
    x[:, :, 16] = 255  # a vertical line at column 16
    out = A.apply_op(x, "shear_x", 0.25)[0, :, :, 0]
    # output column of the line at row y: x + 0.25 (y + 0.5) = 16.5 - 0.5  =>  x = 16 - 0.25 (y + 0.5) + ...
    cols = np.array([np.average(np.arange(32), weights=row) for row in out.astype(float) if row.sum() > 0])
    slope = np.polyfit(np.arange(len(cols)), cols, 1)[0]
    assert slope == pytest.approx(-0.25, abs=0.02)


def test_ops_match_pil_within_rounding(images):
    from PIL import Image, ImageOps

    def pil(fn):
        return np.stack([np.array(fn(Image.fromarray(i))) for i in images]).astype(int)

    assert np.array_equal(pil(ImageOps.autocontrast), A.apply_op(images, "autocontrast"))
    assert np.array_equal(pil(ImageOps.equalize), A.apply_op(images, "equalize"))
    assert np.array_equal(pil(lambda im: ImageOps.posterize(im, 3)), A.apply_op(images, "posterize", 3))
    assert np.array_equal(pil(lambda im: ImageOps.solarize(im, 128)), A.apply_op(images, "solarize", 128))
    for name, coeffs, p in [
        ("shear_x", (1, 0.2, 0, 0, 1, 0), 0.2),
        ("shear_y", (1, 0, 0, 0.2, 1, 0), 0.2),
        ("translate_x", (1, 0, 2.5, 0, 1, 0), 2.5),
    ]:
        ref = pil(lambda im, coeffs=coeffs: im.transform((32, 32), Image.AFFINE, coeffs, resample=Image.BILINEAR))
        assert np.abs(ref - A.apply_op(images, name, p)).max() <= 1, name
    ref = pil(lambda im: im.rotate(7, resample=Image.BILINEAR))
    assert np.abs(ref - A.apply_op(images, "rotate", 7.0)).max() <= 1


def test_augmix_parameter_ranges():
    rng = np.random.default_rng(0)
    bits = A.sample_op_params("posterize", 2000, 3.0, rng)
    assert set(np.unique(bits)) == {3.0, 4.0}  # 4 - int(0.4 level), level in [0.1, 3)
    thr = A.sample_op_params("solarize", 2000, 3.0, rng)
    assert thr.min() >= 256 - 76 and thr.max() <= 256
    deg = A.sample_op_params("rotate", 2000, 3.0, rng)
    assert 8.5 < np.abs(deg).max() <= 9.0 and 0.3 <= np.abs(deg).min() < 0.4
    assert abs(np.mean(deg > 0) - 0.5) < 0.05
    px = A.sample_op_params("translate_x", 2000, 3.0, rng)
    assert np.abs(px).max() <= 3 * 32 / 30 + 1e-12


def test_bad_inputs_raise_clear_errors(images):
    with pytest.raises(ValueError, match="uint8"):
        A.rotate(images.astype(np.float32), 3.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="NHWC"):
        A.rotate(images.transpose(0, 3, 1, 2), 3.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="severity"):
        A.rotate(images, 11.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="Unknown augmentation op"):
        A.apply_op(images, "blur", 1.0)
    with pytest.raises(ValueError, match="unknown ops"):
        A.parse_scheme({"rotate", "zoom"})
    with pytest.raises(TypeError, match="rng must be an int"):
        A.rotate(images, 3.0, "0")
    with pytest.raises(ValueError, match="rng is required"):
        A.rotate(images, 3.0)  # never a silent fallback to fresh OS entropy
    np.testing.assert_array_equal(A.rotate(images, 3.0, 7), A.rotate(images, 3.0, np.random.default_rng(7)))


# ---------------------------------------------------------------- schemes
def test_powerset_has_512_unique_schemes_including_empty():
    schemes = A.powerset_schemes()
    assert len(schemes) == 512 and len(set(schemes)) == 512
    assert schemes[0] == frozenset() and schemes[-1] == frozenset(A.BASE_OPS)
    assert sum(len(s) == 1 for s in schemes) == 9 and sum(len(s) == 4 for s in schemes) == 126
    names = {A.scheme_name(s) for s in schemes}
    assert len(names) == 512 and "none" in names
    assert all(A.parse_scheme(A.scheme_name(s)) == s for s in schemes)


def test_empty_scheme_is_identity(images):
    np.testing.assert_array_equal(A.apply_scheme(images, frozenset(), np.random.default_rng(0)), images)


def test_scheme_sample_structure():
    s = A.sample_scheme({"rotate", "solarize"}, 500, np.random.default_rng(0))
    assert s.op_idx.shape == (500, 3, 3) and s.weights.shape == (500, 3)
    np.testing.assert_allclose(s.weights.sum(1), 1.0)
    assert np.all((s.m >= 0) & (s.m <= 1)) and abs(s.m.mean() - 0.5) < 0.05  # Beta(1, 1)
    depth = (s.op_idx >= 0).sum(2)
    assert set(np.unique(depth)) == {1, 2, 3}
    assert np.all(s.op_idx[:, :, 0] >= 0)  # every chain has at least one op
    # a chain skips only trailing steps
    assert np.all((s.op_idx[:, :, 1] >= 0) | (s.op_idx[:, :, 2] < 0))
    seq = A.sample_scheme({"rotate"}, 50, np.random.default_rng(0), mode="sequential")
    assert seq.op_idx.shape[1] == 1 and np.all(seq.m == 1)
    sup = A.sample_scheme({"rotate"}, 50, np.random.default_rng(0), mode="superposition")
    assert sup.op_idx.shape[2] == 1 and np.all(sup.op_idx >= 0)


def test_width_and_max_depth_are_capped_before_anything_is_drawn(images):
    """Probe J, F8: ``apply_scheme(width=5000)`` ran for seconds on 2 images (a Dirichlet over 5000 chains, then
    5000 chains per image), 10**5 for minutes, 10**9 would run for days. width and max_depth above MAX_CHAIN (64)
    are refused naming AugMix's 3, before the generator is touched; the cap itself and the defaults draw as
    before (digests of the draws computed with the code before probe J)."""
    import hashlib

    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    for key in ("width", "max_depth"):
        with pytest.raises(
            ValueError, match=rf"{key} must be at most 64 \(AugMix uses 3\), got 65; pass e\.g\. {key}=3"
        ):
            A.apply_scheme(images[:2], ("rotate",), rng, **{key: 65})
        with pytest.raises(ValueError, match=rf"{key} must be at most 64 .*got 1000000000"):
            A.sample_scheme(("rotate",), 2, rng, **{key: 10**9})
    assert rng.bit_generator.state == state  # refused before any draw
    capped = A.sample_scheme(("rotate", "solarize"), 3, np.random.default_rng(1), width=64, max_depth=64)
    assert capped.op_idx.shape == (3, 64, 64) and capped.weights.shape == (3, 64)

    def digest(s):
        return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in (s.op_idx, s.params, s.weights, s.m)))

    before = {"composite": "4ace40e5411769f8", "sequential": "b04a96a4a3b15c33", "superposition": "f6ee4bb8e8456d56"}
    for mode, want in before.items():
        s = A.sample_scheme(("rotate", "solarize", "posterize"), 40, np.random.default_rng(2), mode=mode)
        assert digest(s).hexdigest()[:16] == want
    s = A.sample_scheme(("rotate", "equalize"), 10, np.random.default_rng(3), width=5, max_depth=4)
    assert digest(s).hexdigest()[:16] == "b8c784d3ef225392"


def test_apply_scheme_sample_matches_hand_composition(images):
    # one instance, written out by hand: chain 0 = solarize(128) then translate_x(2), chain 1 = posterize(2)
    s = A.SchemeSample(
        ops=("posterize", "solarize", "translate_x"),
        op_idx=np.array([[[1, 2], [0, -1]]]),
        params=np.array([[[128.0, 2.0], [2.0, np.nan]]]),
        weights=np.array([[0.25, 0.75]]),
        m=np.array([0.6]),
    )
    c0 = A.apply_op(A.apply_op(images, "solarize", 128), "translate_x", 2.0).astype(np.float32)
    c1 = A.apply_op(images, "posterize", 2).astype(np.float32)
    expected = 0.4 * images + 0.6 * (0.25 * c0 + 0.75 * c1)
    out = A.apply_scheme_sample(images, s, dtype=np.float32)
    np.testing.assert_allclose(out, expected, atol=1e-3)
    # a length-1 sample is the same instance for every image
    out_u8 = A.apply_scheme_sample(images, s)
    assert out_u8.dtype == np.uint8
    assert np.abs(out_u8.astype(float) - expected).max() <= 0.5 + 1e-3  # rounded, float32 ties aside


def test_apply_scheme_deterministic_and_changes_images(images):
    scheme = frozenset({"translate_x", "equalize"})
    a = A.apply_scheme(images, scheme, np.random.default_rng(3))
    b = A.apply_scheme(images, scheme, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert a.shape == images.shape and a.dtype == np.uint8
    assert np.mean(a != images) > 0.3


def test_autoaugment_policy_and_determinism(images):
    assert len(A.AUTOAUGMENT_CIFAR10_POLICY) == 25
    assert all(len(sp) == 2 for sp in A.AUTOAUGMENT_CIFAR10_POLICY)
    a = A.autoaugment(images, np.random.default_rng(0))
    np.testing.assert_array_equal(a, A.autoaugment(images, np.random.default_rng(0)))
    assert a.shape == images.shape and a.dtype == np.uint8
    x = np.repeat(images[:1], 200, axis=0)
    out = A.autoaugment(x, np.random.default_rng(1))
    frac_changed = np.mean(np.any(out.reshape(200, -1) != x.reshape(200, -1), axis=1))
    assert 0.6 < frac_changed < 1.0  # some sub-policies often leave the image unchanged
    shared = A.autoaugment(x[:5], np.random.default_rng(2), same_instance=True)
    assert all(np.array_equal(o, shared[0]) for o in shared)


def test_enhance_ops_factor_one_is_identity(images):
    for name in ("color", "contrast", "brightness", "sharpness"):
        np.testing.assert_array_equal(A.apply_op(images, name, 1.0), images)
    np.testing.assert_array_equal(A.apply_op(images, "brightness", 0.0), np.zeros_like(images))


# ---------------------------------------------------------------- torch batch transforms
@pytest.mark.parametrize("name", ["none", "autoaugment", "augmix", "patch_gaussian", frozenset({"rotate"})])
def test_batch_transforms_shape_range_determinism(images, name):
    xb = torch.from_numpy(images.transpose(0, 3, 1, 2).copy()).float() / 255
    t = A.make_batch_transform(name)
    o1 = t(xb, torch.Generator().manual_seed(0))
    o2 = t(xb, torch.Generator().manual_seed(0))
    assert o1.shape == xb.shape and o1.dtype == xb.dtype
    assert float(o1.min()) >= 0 and float(o1.max()) <= 1
    assert torch.equal(o1, o2)
    if name != "none":
        assert not torch.equal(o1, xb)


def test_patch_gaussian_only_touches_a_patch():
    xb = torch.full((64, 3, 32, 32), 0.5)
    out = A.patch_gaussian(xb, torch.Generator().manual_seed(0))
    changed = (out != xb).any(1)  # (N, H, W)
    rows = changed.any(2).sum(1)
    cols = changed.any(1).sum(1)
    assert int(rows.max()) <= 25 and int(cols.max()) <= 25
    assert int(rows.max()) == 25  # some patch lies fully inside the image


def test_make_batch_transform_rejects_unknown_name():
    with pytest.raises(ValueError, match="autoaugment"):
        A.make_batch_transform("cutmix")


def test_patch_gaussian_images_numpy_twin():
    x = np.full((40, 32, 32, 3), 128, dtype=np.uint8)
    out = A.patch_gaussian_images(x, np.random.default_rng(0))
    assert out.dtype == np.uint8 and out.shape == x.shape
    changed = np.any(out != x, axis=3)
    assert changed.any(axis=2).sum(1).max() <= 25 and changed.any(axis=1).sum(1).max() <= 25
    np.testing.assert_array_equal(out, A.patch_gaussian_images(x, np.random.default_rng(0)))
    shared = A.patch_gaussian_images(x, np.random.default_rng(1), same_instance=True)
    masks = np.any(shared != x, axis=3)
    # one patch for all images: the changed region is the same (up to noise that rounds to zero)
    assert (masks.any(0) & ~masks.all(0)).mean() < 0.05


def test_augmix_jsd_step_fn_loss():
    from robeval.core.nn import models

    torch.manual_seed(0)
    model = models.build("cnn_small").eval()  # eval: batch norm must not see the augmented views' statistics
    xb = torch.rand(8, 3, 32, 32)
    yb = torch.randint(0, 10, (8,))
    l1 = A.augmix_jsd_step_fn(seed=1)(model, xb, yb, 0)
    l2 = A.augmix_jsd_step_fn(seed=1)(model, xb, yb, 0)
    ce = torch.nn.functional.cross_entropy(model(xb), yb)
    assert torch.isfinite(l1) and l1.item() == pytest.approx(l2.item())
    assert l1.item() >= ce.item() - 1e-6  # the JS divergence is non-negative
    l1.backward()  # differentiable
    # with a zero consistency weight the objective is plain cross-entropy
    assert A.augmix_jsd_step_fn(jsd_weight=0.0)(model, xb, yb, 0).item() == pytest.approx(ce.item(), rel=1e-5)
