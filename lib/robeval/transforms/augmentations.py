"""Data augmentations of Mintun, Kirillov & Xie (2021): the AugMix base operations, the augmentation
powerset, AutoAugment (CIFAR-10 policy), AugMix and Patch Gaussian.

Every image operation works on a batch of uint8 images in NHWC layout and returns the same shape and
dtype. Operations are vectorised over the batch and take *per-image* parameters, so one call can apply
either a single sampled transform to every image (the transform features of :mod:`robeval.msd` need
this) or independent random transforms to each image (training).

Base operations (Hendrycks et al. 2020, AugMix; PIL semantics re-implemented in numpy):

==============  =========  =================================================  ======================
name            kind       parameter (unit)                                    AugMix sampling, level
==============  =========  =================================================  ======================
autocontrast    color      none (per-channel min/max stretch)                  --
equalize        color      none (per-channel histogram equalisation)           --
posterize       color      bits kept (int 0..8)                                4 - int(0.4 level)
solarize        color      threshold (int 0..256): v >= thr -> 255 - v         256 - int(25.6 level)
rotate          geometric  degrees, counter-clockwise about the centre        +-3 level
shear_x         geometric  shear coefficient (x_in = x + s y)                  +-0.03 level
shear_y         geometric  shear coefficient (y_in = y + s x)                  +-0.03 level
translate_x     geometric  pixels (x_in = x + t; content moves left for t>0)  +-level W/30
translate_y     geometric  pixels (y_in = y + t; content moves up for t>0)    +-level H/30
==============  =========  =================================================  ======================

``level ~ U(0.1, severity)`` with the AugMix severity on a 0-10 scale (3 in AugMix and in the paper's
powerset). Geometric ops fill uncovered pixels with black and use bilinear interpolation.

A *scheme* is a subset of the nine base ops (``powerset_schemes()`` gives all 512). As in the paper
(following AugMix), a scheme's ops are composited two ways at once: ``width`` chains of 1..``max_depth``
ops applied one after another, whose outputs are linearly superimposed with Dirichlet weights and
mixed with the clean image, ``x_aug = (1 - m) x + m sum_i w_i chain_i(x)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from numbers import Real

import numpy as np

from robeval.core.seeding import as_generator
from robeval.core.validation import check_bool, check_images, check_keywords, check_positive

__all__ = [
    "BASE_OPS",
    "COLOR_OPS",
    "GEOMETRIC_OPS",
    "OPS",
    "EXTRA_OPS",
    "Op",
    "autocontrast",
    "equalize",
    "posterize",
    "solarize",
    "rotate",
    "shear_x",
    "shear_y",
    "translate_x",
    "translate_y",
    "apply_op",
    "sample_op_params",
    "powerset_schemes",
    "scheme_name",
    "parse_scheme",
    "SchemeSample",
    "sample_scheme",
    "apply_scheme_sample",
    "apply_scheme",
    "AUTOAUGMENT_CIFAR10_POLICY",
    "autoaugment",
    "patch_gaussian",
    "patch_gaussian_images",
    "make_batch_transform",
    "augmix_jsd_step_fn",
    "as_batch_transform",
    "BATCH_TRANSFORM_NAMES",
]

# The nine AugMix base operations, in the order used by the paper's released powerset scripts.
COLOR_OPS = ("autocontrast", "equalize", "posterize", "solarize")
GEOMETRIC_OPS = ("shear_x", "shear_y", "translate_x", "translate_y", "rotate")
BASE_OPS = COLOR_OPS + GEOMETRIC_OPS
BATCH_TRANSFORM_NAMES = ("none", "autoaugment", "augmix", "patch_gaussian")
MAX_CHAIN = 64  # the most chains (width) and ops per chain (max_depth) of a scheme instance; AugMix uses 3 and 3


# ---- input checks --------------------------------------------------------------------------------
def _per_image(param, n: int, name: str) -> np.ndarray:
    """Broadcast a scalar or (n,) parameter to a float64 (n,) array."""
    p = np.asarray(param, dtype=np.float64)
    if p.ndim == 0:
        p = np.full(n, float(p))
    if p.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have shape ({n},) (one value per image), got {p.shape}.")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} contains NaN or infinite values; pass finite parameters.")
    return p


def _check_severity(severity) -> float:
    if (
        isinstance(severity, (bool, np.bool_))
        or not isinstance(severity, Real)
        or not np.isfinite(severity)
        or not 0.1 <= float(severity) <= 10
    ):
        raise ValueError(f"severity must be a number in [0.1, 10] (AugMix scale; the paper uses 3), got {severity!r}.")
    return float(severity)


# ---- colour operations (per-channel look-up tables, PIL semantics) ----------------------------------
def _apply_channel_lut(images: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """Apply per-(image, channel) look-up tables ``lut`` (N, C, 256) to ``images`` (N, H, W, C)."""
    n, h, w, c = images.shape
    # one gather from the flattened uint8 tables, in the images' own layout (no transposes)
    offsets = (np.arange(n, dtype=np.intp)[:, None] * c + np.arange(c, dtype=np.intp)[None, :]) * 256
    idx = images.astype(np.intp) + offsets[:, None, None, :]
    return np.asarray(lut).astype(np.uint8).reshape(n * c * 256)[idx]


def _channel_histograms(images: np.ndarray) -> np.ndarray:
    """(N, C, 256) int64 histograms of each channel of each image."""
    n, h, w, c = images.shape
    offsets = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * 256  # (n, c)
    idx = images.transpose(0, 3, 1, 2).reshape(n, c, h * w).astype(np.int64) + offsets[:, :, None]
    return np.bincount(idx.ravel(), minlength=n * c * 256).reshape(n, c, 256)


def _autocontrast(images: np.ndarray, params=None) -> np.ndarray:
    # Stretch each channel linearly so its min maps to 0 and its max to 255; PIL truncates to int.
    n, h, w, c = images.shape
    # reduce over a contiguous (N, C, H*W) copy: numpy reduces the strided (1, 2) axes ~15x slower
    planes = np.ascontiguousarray(images.reshape(n, h * w, c).transpose(0, 2, 1))
    lo = planes.min(axis=2).astype(np.float64)  # (N, C)
    hi = planes.max(axis=2).astype(np.float64)
    flat = hi <= lo
    scale = np.where(flat, 1.0, 255.0 / np.where(flat, 1.0, hi - lo))
    offset = np.where(flat, 0.0, -lo * scale)
    v = np.arange(256, dtype=np.float64)
    lut = np.floor(v[None, None, :] * scale[:, :, None] + offset[:, :, None])
    lut = np.clip(lut, 0, 255).astype(np.int64)
    return _apply_channel_lut(images, lut)


def _equalize(images: np.ndarray, params=None) -> np.ndarray:
    # PIL's equalisation: step = (pixels - count of the last occupied bin) // 255,
    # lut[i] = (step // 2 + #pixels below i) // step; identity when step == 0.
    hist = _channel_histograms(images)  # (N, C, 256)
    last = 255 - np.argmax(hist[:, :, ::-1] > 0, axis=2)
    last_count = np.take_along_axis(hist, last[:, :, None], axis=2)[:, :, 0]
    step = (hist.sum(axis=2) - last_count) // 255
    below = np.cumsum(hist, axis=2) - hist
    safe = np.maximum(step, 1)[:, :, None]
    lut = np.minimum((step[:, :, None] // 2 + below) // safe, 255)
    identity = np.broadcast_to(np.arange(256), lut.shape)
    lut = np.where((step > 0)[:, :, None], lut, identity)
    return _apply_channel_lut(images, lut)


def _posterize(images: np.ndarray, bits) -> np.ndarray:
    bits = _per_image(bits, len(images), "bits")
    if np.any((bits < 0) | (bits > 8) | (bits != np.round(bits))):
        raise ValueError("posterize bits must be integers in 0..8 (number of most significant bits kept).")
    mask = (0xFF << (8 - bits.astype(np.int64))) & 0xFF
    return (images & mask.astype(np.uint8)[:, None, None, None]).astype(np.uint8)


def _solarize(images: np.ndarray, threshold) -> np.ndarray:
    thr = _per_image(threshold, len(images), "threshold")
    if np.any((thr < 0) | (thr > 256)):
        raise ValueError("solarize threshold must lie in 0..256 (256 leaves the image unchanged).")
    inverted = images >= thr[:, None, None, None]
    return np.where(inverted, 255 - images, images).astype(np.uint8)


# --------------------------------------------------------------------------------------------------
# geometric operations: one vectorised bilinear affine warp
# --------------------------------------------------------------------------------------------------
def _affine_warp(images: np.ndarray, mats: np.ndarray) -> np.ndarray:
    """Warp each image with the 2x3 matrix ``mats[i]`` mapping output pixel-centre coordinates
    (x + 0.5, y + 0.5) to input coordinates (PIL ``Image.transform(AFFINE)`` convention).

    Bilinear interpolation; output pixels whose source lies outside the image are black. When every image has
    the same matrix (one scheme instance for a batch: MSD's transform features), the sampling map is computed
    once and broadcast; the arithmetic per pixel is the same, so is the result.
    """
    n, h, w, c = images.shape
    shared = n > 1 and bool(np.all(mats == mats[:1]))
    u0, v0, u1, v1, fu, fv, inside = _warp_map(mats[:1] if shared else mats, h, w)
    if shared:
        # one map for all: gather pixel rows of the (N, H*W, C) batch (bytes, then float: the same values)
        flat = images.reshape(n, h * w, c)
        r0, r1 = (v0 * w).ravel(), (v1 * w).ravel()
        u0, u1 = u0.ravel(), u1.ravel()

        def px(idx):
            return np.take(flat, idx, axis=1).astype(np.float32)

        top, bottom = px(r0 + u0), px(r1 + u0)
        # in place, in the order of the expressions of the other branch: top += (right - top) * fu
        right = px(r0 + u1)
        right -= top
        right *= fu
        top += right
        right = px(r1 + u1)
        right -= bottom
        right *= fu
        bottom += right
    else:
        # gather from the flattened batch: four 1-D takes are much cheaper than 3-D fancy indexing
        flat = images.reshape(n * h * w, c).astype(np.float32)
        base = (np.arange(n, dtype=np.int32) * (h * w))[:, None, None]
        r0 = (base + v0 * w).ravel()
        r1 = (base + v1 * w).ravel()
        u0, u1 = u0.ravel(), u1.ravel()
        top = np.take(flat, r0 + u0, axis=0)
        top += (np.take(flat, r0 + u1, axis=0) - top) * fu
        bottom = np.take(flat, r1 + u0, axis=0)
        bottom += (np.take(flat, r1 + u1, axis=0) - bottom) * fu
    top += (bottom - top) * fv
    top *= inside
    return np.clip(np.rint(top), 0, 255).astype(np.uint8).reshape(n, h, w, c)


def _warp_map(mats: np.ndarray, h: int, w: int):
    """The bilinear sampling map of :func:`_affine_warp` for matrices ``mats`` (M, 2, 3): clipped source corners
    ``u0, v0, u1, v1`` int32 (M, H, W), weights ``fu, fv`` float32 (M*H*W, 1), ``inside`` bool (M*H*W, 1)."""
    ys, xs = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing="ij")
    a, b, tx = mats[:, 0, 0, None, None], mats[:, 0, 1, None, None], mats[:, 0, 2, None, None]
    d, e, ty = mats[:, 1, 0, None, None], mats[:, 1, 1, None, None], mats[:, 1, 2, None, None]
    u = a * xs + b * ys + (tx - 0.5)  # source column in index coordinates, (M, H, W)
    v = d * xs + e * ys + (ty - 0.5)
    inside = (u >= -0.5) & (u < w - 0.5) & (v >= -0.5) & (v < h - 0.5)
    # snap round-off so that integer shifts copy pixels exactly
    for t in (u, v):
        r = np.rint(t)
        near = np.abs(t - r) < 1e-6
        t[near] = r[near]
    u0, v0 = np.floor(u), np.floor(v)
    fu = (u - u0).astype(np.float32).reshape(-1, 1)
    fv = (v - v0).astype(np.float32).reshape(-1, 1)
    u0 = u0.astype(np.int32)
    v0 = v0.astype(np.int32)
    u1 = np.clip(u0 + 1, 0, w - 1)
    v1 = np.clip(v0 + 1, 0, h - 1)
    np.clip(u0, 0, w - 1, out=u0)
    np.clip(v0, 0, h - 1, out=v0)
    return u0, v0, u1, v1, fu, fv, inside.reshape(-1, 1)


def _affine_mats(n: int, a=1.0, b=0.0, tx=0.0, d=0.0, e=1.0, ty=0.0) -> np.ndarray:
    mats = np.zeros((n, 2, 3))
    for (i, j), val in {(0, 0): a, (0, 1): b, (0, 2): tx, (1, 0): d, (1, 1): e, (1, 2): ty}.items():
        mats[:, i, j] = val
    return mats


def _rotate(images: np.ndarray, degrees) -> np.ndarray:
    # Counter-clockwise rotation about the image centre (PIL Image.rotate): output -> input map
    # is the inverse rotation, expressed in y-down pixel coordinates.
    n, h, w, _ = images.shape
    theta = np.deg2rad(_per_image(degrees, n, "degrees"))
    cos, sin = np.cos(theta), np.sin(theta)
    cx, cy = w / 2.0, h / 2.0
    mats = _affine_mats(n, a=cos, b=-sin, tx=cx - cos * cx + sin * cy, d=sin, e=cos, ty=cy - sin * cx - cos * cy)
    return _affine_warp(images, mats)


def _shear_x(images: np.ndarray, shear) -> np.ndarray:
    return _affine_warp(images, _affine_mats(len(images), b=_per_image(shear, len(images), "shear")))


def _shear_y(images: np.ndarray, shear) -> np.ndarray:
    return _affine_warp(images, _affine_mats(len(images), d=_per_image(shear, len(images), "shear")))


def _translate_x(images: np.ndarray, pixels) -> np.ndarray:
    return _affine_warp(images, _affine_mats(len(images), tx=_per_image(pixels, len(images), "pixels")))


def _translate_y(images: np.ndarray, pixels) -> np.ndarray:
    return _affine_warp(images, _affine_mats(len(images), ty=_per_image(pixels, len(images), "pixels")))


# --------------------------------------------------------------------------------------------------
# extra PIL operations used by the AutoAugment CIFAR-10 policy (not part of the powerset)
# --------------------------------------------------------------------------------------------------
def _luma(images: np.ndarray) -> np.ndarray:
    """ITU-R 601-2 luma as PIL's convert('L') computes it, (N, H, W) float, rounded."""
    if images.shape[-1] == 1:
        return images[..., 0].astype(np.float64)
    r, g, b = (images[..., i].astype(np.float64) for i in range(3))
    return np.floor((r * 19595 + g * 38470 + b * 7471 + 0x8000) / 65536)


def _blend(degenerate: np.ndarray, images: np.ndarray, factor) -> np.ndarray:
    """PIL ImageEnhance: ``degenerate + factor (image - degenerate)``, rounded and clipped."""
    f = _per_image(factor, len(images), "factor")[:, None, None, None]
    out = degenerate + f * (images.astype(np.float64) - degenerate)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _invert(images: np.ndarray, params=None) -> np.ndarray:
    return (255 - images).astype(np.uint8)


def _color(images: np.ndarray, factor) -> np.ndarray:
    return _blend(np.repeat(_luma(images)[..., None], images.shape[-1], axis=-1), images, factor)


def _contrast(images: np.ndarray, factor) -> np.ndarray:
    mean = np.floor(_luma(images).mean(axis=(1, 2)) + 0.5)[:, None, None, None]
    return _blend(np.broadcast_to(mean, images.shape).astype(np.float64), images, factor)


def _brightness(images: np.ndarray, factor) -> np.ndarray:
    return _blend(np.zeros(images.shape), images, factor)


def _sharpness(images: np.ndarray, factor) -> np.ndarray:
    # degenerate = PIL SMOOTH filter (3x3 kernel, centre 5, others 1, /13) on the interior,
    # original pixels on the one-pixel border.
    img = images.astype(np.float64)
    smooth = img.copy()
    acc = np.zeros_like(img[:, 1:-1, 1:-1])
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            wgt = 5.0 if dy == dx == 0 else 1.0
            acc += wgt * img[:, 1 + dy : img.shape[1] - 1 + dy, 1 + dx : img.shape[2] - 1 + dx]
    smooth[:, 1:-1, 1:-1] = np.rint(acc / 13.0)
    return _blend(smooth, images, factor)


# --------------------------------------------------------------------------------------------------
# op registry and AugMix-style parameter sampling
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    """One base operation.

    Attributes
    ----------
    name : str
    kind : {"color", "geometric"}
    apply : callable(images uint8 (N, H, W, C), params (N,) or None) -> uint8 (N, H, W, C)
    sample : callable(n, levels (n,), signs (n,), im_size (H, W)) -> params (n,) float64, or None for
        parameter-free ops.
    """

    name: str
    kind: str
    apply: Callable
    sample: Callable | None


def _signed(levels, signs, scale):
    return levels * scale * signs


OPS: dict[str, Op] = {
    "autocontrast": Op("autocontrast", "color", _autocontrast, None),
    "equalize": Op("equalize", "color", _equalize, None),
    "posterize": Op("posterize", "color", _posterize, lambda n, lv, sg, size: 4.0 - np.floor(lv * 4 / 10)),
    "solarize": Op("solarize", "color", _solarize, lambda n, lv, sg, size: 256.0 - np.floor(lv * 256 / 10)),
    "rotate": Op("rotate", "geometric", _rotate, lambda n, lv, sg, size: _signed(lv, sg, 30 / 10)),
    "shear_x": Op("shear_x", "geometric", _shear_x, lambda n, lv, sg, size: _signed(lv, sg, 0.3 / 10)),
    "shear_y": Op("shear_y", "geometric", _shear_y, lambda n, lv, sg, size: _signed(lv, sg, 0.3 / 10)),
    "translate_x": Op(
        "translate_x", "geometric", _translate_x, lambda n, lv, sg, size: _signed(lv, sg, size[1] / 3 / 10)
    ),
    "translate_y": Op(
        "translate_y", "geometric", _translate_y, lambda n, lv, sg, size: _signed(lv, sg, size[0] / 3 / 10)
    ),
}
# Extra ops (AutoAugment only). Parameters: factor for the enhance ops, none for invert.
EXTRA_OPS: dict[str, Op] = {
    "invert": Op("invert", "color", _invert, None),
    "color": Op("color", "color", _color, None),
    "contrast": Op("contrast", "color", _contrast, None),
    "brightness": Op("brightness", "color", _brightness, None),
    "sharpness": Op("sharpness", "color", _sharpness, None),
}
_ALL_OPS = {**OPS, **EXTRA_OPS}


def _get_op(name: str) -> Op:
    if name not in _ALL_OPS:
        raise ValueError(f"Unknown augmentation op {name!r}; valid ops are: {', '.join(_ALL_OPS)}.")
    return _ALL_OPS[name]


def apply_op(images, name: str, params=None) -> np.ndarray:
    """Apply base op ``name`` with explicit per-image parameters.

    Parameters
    ----------
    images : uint8 ndarray (N, H, W, C), C in {1, 3}
    name : str
        One of :data:`BASE_OPS` (or the AutoAugment extras ``invert``, ``color``, ``contrast``,
        ``brightness``, ``sharpness``).
    params : float or float ndarray (N,), optional
        The op's parameter in its natural unit (see the module table): bits, threshold, degrees, shear
        coefficient, pixels, or enhancement factor. Ignored by ``autocontrast``, ``equalize``, ``invert``.

    Returns
    -------
    uint8 ndarray (N, H, W, C)
    """
    images = check_images(images)
    op = _get_op(name)
    if len(images) == 0:
        return images.copy()
    needs_param = name not in ("autocontrast", "equalize", "invert")
    if needs_param and params is None:
        raise ValueError(f"op {name!r} needs a parameter; see the table in robeval.transforms.augmentations.")
    return op.apply(images, params)


def sample_op_params(
    name: str, n: int, severity: float, rng: np.random.Generator, im_size: tuple[int, int] = (32, 32)
) -> np.ndarray | None:
    """Sample ``n`` AugMix parameters of base op ``name``: ``level ~ U(0.1, severity)`` and a random sign.

    Returns
    -------
    float64 ndarray (n,) in the op's natural unit, or None for parameter-free ops.
    """
    op = _get_op(name)
    if name not in OPS:
        raise ValueError(f"{name!r} is not an AugMix base op; valid: {', '.join(BASE_OPS)}.")
    severity = _check_severity(severity)
    rng = as_generator(rng, "rng")
    levels = rng.uniform(0.1, severity, size=n)
    signs = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return None if op.sample is None else op.sample(n, levels, signs, im_size)


def _random_op(name: str):
    def fn(images, magnitude: float = 3.0, rng: np.random.Generator | None = None) -> np.ndarray:
        images = check_images(images)
        rng = as_generator(rng, "rng")
        params = sample_op_params(name, len(images), magnitude, rng, images.shape[1:3])
        return apply_op(images, name, params)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"""Apply ``{name}`` to each image with AugMix-sampled parameters.

    Parameters
    ----------
    images : uint8 ndarray (N, H, W, C)
    magnitude : float in [0.1, 10]
        AugMix severity; each image draws ``level ~ U(0.1, magnitude)`` (and a random sign for the
        geometric ops) which maps to the op parameter as in the module table.
    rng : numpy Generator

    Returns
    -------
    uint8 ndarray (N, H, W, C)
    """
    return fn


autocontrast = _random_op("autocontrast")
equalize = _random_op("equalize")
posterize = _random_op("posterize")
solarize = _random_op("solarize")
rotate = _random_op("rotate")
shear_x = _random_op("shear_x")
shear_y = _random_op("shear_y")
translate_x = _random_op("translate_x")
translate_y = _random_op("translate_y")


# --------------------------------------------------------------------------------------------------
# schemes and the powerset
# --------------------------------------------------------------------------------------------------
def powerset_schemes() -> list[frozenset]:
    """All 2**9 = 512 subsets of :data:`BASE_OPS`, ordered by size then by op order (empty first)."""
    out = []
    for k in range(len(BASE_OPS) + 1):
        out.extend(frozenset(c) for c in combinations(BASE_OPS, k))
    return out


def parse_scheme(scheme) -> frozenset:
    """Normalise a scheme given as an iterable of op names or a '+'-joined string ('' = empty)."""
    if isinstance(scheme, (bytes, bytearray)):  # would be read byte by byte, as the op names 97, 117, ...
        raise TypeError(f"scheme must be op names or a '+'-joined string, got bytes {scheme!r:.60}; decode it first.")
    if isinstance(scheme, str):
        scheme = [s for s in scheme.split("+") if s and s != "none"]
    try:
        ops = frozenset(scheme)
    except TypeError as exc:
        raise ValueError(f"scheme must be an iterable of op names or a '+'-joined string, got {scheme!r}.") from exc
    unknown = sorted(o for o in ops if o not in OPS)
    if unknown:
        raise ValueError(f"scheme contains unknown ops {unknown}; valid base ops are: {', '.join(BASE_OPS)}.")
    return ops


def scheme_name(scheme) -> str:
    """Stable string name of a scheme: ops in :data:`BASE_OPS` order joined by '+', 'none' if empty."""
    ops = parse_scheme(scheme)
    return "+".join(o for o in BASE_OPS if o in ops) or "none"


_MODES = {
    # paper / AugMix: chains of 1..3 ops in sequence, 3 chains superimposed, mixed with the clean image
    "composite": dict(width=3, max_depth=3, random_depth=True, mix=True),
    # only sequential application (one chain, no superposition or mixing)
    "sequential": dict(width=1, max_depth=3, random_depth=True, mix=False),
    # only linear superposition of singly-transformed copies
    "superposition": dict(width=3, max_depth=1, random_depth=False, mix=True),
}


@dataclass(frozen=True)
class SchemeSample:
    """``n`` sampled instances of a scheme, stored as arrays so a batch can be applied at once.

    Attributes
    ----------
    ops : tuple of str            op names indexed by ``op_idx``
    op_idx : int64 (n, width, depth)   op of each chain step, -1 = step skipped
    params : float64 (n, width, depth) op parameter of each step (NaN for parameter-free ops)
    weights : float64 (n, width)  superposition weights (rows sum to 1)
    m : float64 (n,)              weight of the augmented mix against the clean image
    """

    ops: tuple
    op_idx: np.ndarray
    params: np.ndarray
    weights: np.ndarray
    m: np.ndarray

    def __len__(self) -> int:
        return len(self.m)


def sample_scheme(
    scheme,
    n: int,
    rng: np.random.Generator,
    *,
    mode: str = "composite",
    severity: float = 3.0,
    width: int | None = None,
    max_depth: int | None = None,
    alpha: float = 1.0,
    im_size: tuple[int, int] = (32, 32),
) -> SchemeSample:
    """Draw ``n`` independent instances of ``scheme`` (AugMix compositing, Hendrycks et al. 2020).

    Each instance has ``width`` chains; chain ``i`` has depth ``d_i ~ U{1..max_depth}`` (fixed to
    ``max_depth`` in ``superposition`` mode) and ops drawn uniformly with replacement from the scheme,
    each with AugMix parameters at ``severity``; ``w ~ Dirichlet(alpha)``, ``m ~ Beta(alpha, alpha)``.

    Parameters
    ----------
    scheme : iterable of op names, or '+'-joined str
    n : int >= 1
    rng : numpy Generator
    mode : {"composite", "sequential", "superposition"}
    severity : float in [0.1, 10]
    width, max_depth : int in 1..MAX_CHAIN (64), optional   override the mode's defaults (3 and 3); not a bool
    alpha : float > 0   Dirichlet / Beta concentration (1 in AugMix and the paper); not a bool
    im_size : (H, W)    scales the translation range (W / 3 at level 10)
    """
    ops = tuple(o for o in BASE_OPS if o in parse_scheme(scheme))
    if mode not in _MODES:
        raise ValueError(f"Unknown mode {mode!r}; valid modes are: {', '.join(_MODES)}.")
    rng = as_generator(rng, "rng")
    severity = _check_severity(severity)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    check_positive(alpha, "alpha")  # a number > 0, not a bool
    cfg = dict(_MODES[mode])
    for key, value in (("width", width), ("max_depth", max_depth)):
        cfg[key] = cfg[key] if value is None else int(check_positive(value, key, integer=True))
        if cfg[key] > MAX_CHAIN:  # checked before anything is drawn: width * max_depth ops per image
            raise ValueError(f"{key} must be at most {MAX_CHAIN} (AugMix uses 3), got {cfg[key]}; pass e.g. {key}=3.")
    W, D = cfg["width"], cfg["max_depth"]
    weights = rng.dirichlet([alpha] * W, size=n) if W > 1 else np.ones((n, 1))
    m = rng.beta(alpha, alpha, size=n) if cfg["mix"] else np.ones(n)
    if not ops:  # the empty scheme is the identity
        return SchemeSample(ops, np.full((n, W, D), -1), np.full((n, W, D), np.nan), weights, m)
    op_idx = rng.integers(0, len(ops), size=(n, W, D))
    if cfg["random_depth"]:
        depth = rng.integers(1, D + 1, size=(n, W))
        op_idx = np.where(np.arange(D)[None, None, :] < depth[:, :, None], op_idx, -1)
    params = np.full((n, W, D), np.nan)
    for k, name in enumerate(ops):
        sel = op_idx == k
        p = sample_op_params(name, int(sel.sum()), severity, rng, im_size)
        if p is not None:
            params[sel] = p
    return SchemeSample(ops, op_idx, params, weights, m)


def apply_scheme_sample(images, sample: SchemeSample, *, dtype=np.uint8) -> np.ndarray:
    """Apply sampled scheme instances to ``images``.

    Parameters
    ----------
    images : uint8 ndarray (N, H, W, C)
    sample : SchemeSample of length N (one instance per image) or 1 (the same instance for all images)
    dtype : np.uint8 (rounded) or np.float32 (values in [0, 255], no rounding)

    Returns
    -------
    ndarray (N, H, W, C) of ``dtype``
    """
    images = check_images(images)
    n = len(images)
    if len(sample) not in (1, n):
        raise ValueError(f"sample has {len(sample)} instances for {n} images; pass 1 or {n}.")
    if np.dtype(dtype) not in (np.dtype(np.uint8), np.dtype(np.float32)):
        raise ValueError(f"dtype must be np.uint8 or np.float32, got {dtype!r}.")
    if not sample.ops or n == 0:
        return images.astype(dtype, copy=True)

    def rows(a):  # broadcast a single instance over the batch
        return np.broadcast_to(a, (n,) + a.shape[1:]) if len(sample) == 1 else a

    op_idx, params, weights, m = rows(sample.op_idx), rows(sample.params), rows(sample.weights), rows(sample.m)
    W, D = op_idx.shape[1:]
    mix = np.zeros(images.shape, dtype=np.float32)
    for i in range(W):
        chain = images.copy()
        for j in range(D):  # apply step j of chain i, grouping images by their op
            for k, name in enumerate(sample.ops):
                sel = np.flatnonzero(op_idx[:, i, j] == k)
                if sel.size:
                    chain[sel] = OPS[name].apply(chain[sel], params[sel, i, j])
        mix += weights[:, i, None, None, None].astype(np.float32) * chain
    mm = m[:, None, None, None].astype(np.float32)
    out = (1 - mm) * images + mm * mix
    if np.dtype(dtype) == np.dtype(np.uint8):
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return np.clip(out, 0, 255).astype(np.float32)


def _check_output_dtype(dtype) -> None:  # apply_scheme's result: uint8 or float32, nothing else
    try:
        ok = np.dtype(dtype) in (np.uint8, np.float32)
    except TypeError:
        raise TypeError(f"dtype must be np.uint8 or np.float32 (the result's dtype), got {dtype!r:.60}.") from None
    if not ok:
        raise ValueError(f"dtype must be np.uint8 or np.float32 (the result's dtype), got {np.dtype(dtype)}.")


def apply_scheme(
    images,
    scheme,
    rng: np.random.Generator,
    mode: str = "composite",
    *,
    severity: float = 3.0,
    same_instance: bool = False,
    dtype=np.uint8,
    **kw,
) -> np.ndarray:
    """Augment each image with an independent random instance of ``scheme`` (or one shared instance).

    Parameters
    ----------
    images : uint8 ndarray (N, H, W, C)
    scheme : iterable of op names (subset of :data:`BASE_OPS`) or '+'-joined str
    rng : numpy Generator
    mode : {"composite", "sequential", "superposition"}
        ``composite`` is the paper's (AugMix) compositing: sequential chains superimposed linearly.
    severity : float   AugMix severity (paper: 3)
    same_instance : bool   apply one sampled instance to every image (used for transform features); a bool
    dtype : np.uint8 or np.float32 (another dtype: ValueError; a value that is no dtype: TypeError)
    **kw : width, max_depth, alpha forwarded to :func:`sample_scheme` (another keyword: TypeError)

    Returns
    -------
    ndarray (N, H, W, C)
    """
    images = check_images(images)
    check_bool(same_instance, "same_instance")
    _check_output_dtype(dtype)
    check_keywords(kw, ("width", "max_depth", "alpha"), "apply_scheme")
    n = 1 if same_instance else max(len(images), 1)
    sample = sample_scheme(scheme, n, rng, mode=mode, severity=severity, im_size=images.shape[1:3], **kw)
    return apply_scheme_sample(images, sample, dtype=dtype)


# ---- AutoAugment, CIFAR-10 policy (Cubuk et al. 2019): 25 sub-policies of two (op, probability, level) ----
AUTOAUGMENT_CIFAR10_POLICY = (
    (("invert", 0.1, 7), ("contrast", 0.2, 6)),
    (("rotate", 0.7, 2), ("translate_x", 0.3, 9)),
    (("sharpness", 0.8, 1), ("sharpness", 0.9, 3)),
    (("shear_y", 0.5, 8), ("translate_y", 0.7, 9)),
    (("autocontrast", 0.5, 8), ("equalize", 0.9, 2)),
    (("shear_y", 0.2, 7), ("posterize", 0.3, 7)),
    (("color", 0.4, 3), ("brightness", 0.6, 7)),
    (("sharpness", 0.3, 9), ("brightness", 0.7, 9)),
    (("equalize", 0.6, 5), ("equalize", 0.5, 1)),
    (("contrast", 0.6, 7), ("sharpness", 0.6, 5)),
    (("color", 0.7, 7), ("translate_x", 0.5, 8)),
    (("equalize", 0.3, 7), ("autocontrast", 0.4, 8)),
    (("translate_y", 0.4, 3), ("sharpness", 0.2, 6)),
    (("brightness", 0.9, 6), ("color", 0.2, 8)),
    (("solarize", 0.5, 2), ("invert", 0.0, 3)),
    (("equalize", 0.2, 0), ("autocontrast", 0.6, 0)),
    (("equalize", 0.2, 8), ("equalize", 0.6, 4)),
    (("color", 0.9, 9), ("equalize", 0.6, 6)),
    (("autocontrast", 0.8, 4), ("solarize", 0.2, 8)),
    (("brightness", 0.1, 3), ("color", 0.7, 0)),
    (("solarize", 0.4, 5), ("autocontrast", 0.9, 3)),
    (("translate_y", 0.9, 9), ("translate_y", 0.7, 9)),
    (("autocontrast", 0.9, 2), ("solarize", 0.8, 3)),
    (("equalize", 0.8, 8), ("invert", 0.1, 3)),
    (("translate_y", 0.7, 9), ("autocontrast", 0.9, 1)),
)


def _autoaugment_param(name: str, level: int, signs: np.ndarray, im_size) -> np.ndarray | None:
    """AutoAugment magnitude ``level`` (0..10 scale) -> op parameter (random sign where symmetric)."""
    frac = level / 10.0
    if name in ("shear_x", "shear_y"):
        return frac * 0.3 * signs
    if name == "translate_x":
        return frac * (150 / 331) * im_size[1] * signs
    if name == "translate_y":
        return frac * (150 / 331) * im_size[0] * signs
    if name == "rotate":
        return frac * 30.0 * signs
    if name in ("color", "contrast", "brightness", "sharpness"):
        return 1.0 + frac * 0.9 * signs
    if name == "posterize":
        return np.full(len(signs), float(int(4 + frac * 4)))
    if name == "solarize":
        return np.full(len(signs), 256.0 - frac * 256.0)
    return None


def autoaugment(images, rng: np.random.Generator, *, same_instance: bool = False) -> np.ndarray:
    """AutoAugment with the CIFAR-10 policy: each image draws one of the 25 sub-policies and applies
    its two ops in order, each with its probability, at its fixed magnitude (random sign for
    symmetric ops).

    Parameters
    ----------
    images : uint8 ndarray (N, H, W, C)
    rng : numpy Generator
    same_instance : bool   draw one sub-policy instance and apply it to every image (transform features)

    Returns
    -------
    uint8 ndarray (N, H, W, C)
    """
    images = check_images(images)
    rng = as_generator(rng, "rng")
    check_bool(same_instance, "same_instance")
    n = len(images)
    m = 1 if same_instance else n

    def draw(a):  # one draw per image, or one shared draw
        return np.broadcast_to(a, (n,)) if same_instance else a

    out = images.copy()
    policy = draw(rng.integers(0, len(AUTOAUGMENT_CIFAR10_POLICY), size=m))
    for step in range(2):
        apply_mask = draw(rng.random(m))
        signs = draw(np.where(rng.random(m) < 0.5, -1.0, 1.0))
        for p, sub in enumerate(AUTOAUGMENT_CIFAR10_POLICY):
            name, prob, level = sub[step]
            sel = np.flatnonzero((policy == p) & (apply_mask < prob))
            if sel.size:
                params = _autoaugment_param(name, level, signs[sel], images.shape[1:3])
                out[sel] = _get_op(name).apply(out[sel], params)
    return out


# --------------------------------------------------------------------------------------------------
# torch batch transforms for robeval.core.nn.training.train(batch_transform=...)
# --------------------------------------------------------------------------------------------------
def patch_gaussian(xb, gen, *, patch_width: int = 25, max_sigma: float = 1.0):
    """Patch Gaussian (Lopes et al. 2019) as configured by the paper for CIFAR-10: a ``patch_width``
    square (clipped at the border) centred uniformly in the image gets N(0, sigma^2) noise with
    ``sigma ~ U(0, max_sigma)`` per image, in [0, 1] pixel units; the result is clipped to [0, 1].

    Parameters
    ----------
    xb : torch float tensor (N, C, H, W) in [0, 1]
    gen : torch.Generator (CPU)

    Returns
    -------
    torch float tensor (N, C, H, W)
    """
    import torch

    n, c, h, w = xb.shape
    cy = torch.randint(0, h, (n,), generator=gen)
    cx = torch.randint(0, w, (n,), generator=gen)
    sigma = torch.rand(n, generator=gen) * max_sigma
    noise = torch.randn((n, c, h, w), generator=gen) * sigma[:, None, None, None]
    half_lo, half_hi = patch_width // 2, (patch_width + 1) // 2
    rr = torch.arange(h)[None, :]
    cc = torch.arange(w)[None, :]
    in_rows = (rr >= (cy[:, None] - half_lo)) & (rr < (cy[:, None] + half_hi))
    in_cols = (cc >= (cx[:, None] - half_lo)) & (cc < (cx[:, None] + half_hi))
    mask = (in_rows[:, :, None] & in_cols[:, None, :])[:, None, :, :].to(xb.dtype)
    return torch.clamp(xb + (mask * noise).to(xb.device, xb.dtype), 0.0, 1.0)


def patch_gaussian_images(
    images, rng: np.random.Generator, *, same_instance: bool = False, patch_width: int = 25, max_sigma: float = 1.0
) -> np.ndarray:
    """Patch Gaussian on uint8 NHWC images (numpy twin of :func:`patch_gaussian`, same parameters).

    ``same_instance=True`` draws one patch centre and one sigma for all images (the noise itself is drawn
    per pixel of every image), which is what transform features need.

    Returns
    -------
    uint8 ndarray (N, H, W, C)
    """
    images = check_images(images)
    rng = as_generator(rng, "rng")
    if isinstance(patch_width, bool) or not isinstance(patch_width, (int, np.integer)) or not 1 <= patch_width <= 2**62:
        raise ValueError(f"patch_width must be an integer in 1..2**62 (pixels; paper: 25), got {patch_width!r}.")
    if isinstance(max_sigma, (bool, np.bool_, str, bytes)) or not np.isfinite(np.float64(max_sigma)) or max_sigma < 0:
        raise ValueError(f"max_sigma must be a finite number >= 0 (noise std in [0, 1] units), got {max_sigma!r}.")
    check_bool(same_instance, "same_instance")
    n, h, w, c = images.shape
    m = 1 if same_instance else n
    cy, cx = rng.integers(0, h, size=m), rng.integers(0, w, size=m)
    sigma = rng.uniform(0.0, max_sigma, size=m)
    noise = rng.standard_normal(images.shape) * np.broadcast_to(sigma, (n,))[:, None, None, None]
    lo, hi = patch_width // 2, (patch_width + 1) // 2
    rows = np.arange(h)[None, :]
    cols = np.arange(w)[None, :]
    in_r = (rows >= np.broadcast_to(cy, (n,))[:, None] - lo) & (rows < np.broadcast_to(cy, (n,))[:, None] + hi)
    in_c = (cols >= np.broadcast_to(cx, (n,))[:, None] - lo) & (cols < np.broadcast_to(cx, (n,))[:, None] + hi)
    mask = (in_r[:, :, None] & in_c[:, None, :])[..., None]
    out = images / 255.0 + mask * noise
    return np.clip(np.rint(np.clip(out, 0, 1) * 255), 0, 255).astype(np.uint8)


def _torch_to_uint8_nhwc(xb) -> np.ndarray:
    import torch

    x = torch.clamp(torch.round(xb.detach().float() * 255.0), 0, 255).to(torch.uint8)
    return x.permute(0, 2, 3, 1).cpu().numpy()


def as_batch_transform(fn):
    """Wrap a numpy augmentation as a torch batch transform for :func:`robeval.core.nn.training.train`.

    Parameters
    ----------
    fn : callable(images uint8 (N, H, W, C), rng numpy Generator) -> array (N, H, W, C) in [0, 255]

    Returns
    -------
    callable(xb: torch float (N, C, H, W) in [0, 1], gen: torch.Generator) -> tensor of the same shape, dtype
    and device. The numpy rng is seeded from ``gen``, so training reruns are identical.
    """
    import torch

    from robeval.core.nn.training import needs_host_generator

    def transform(xb, gen):
        seed = int(torch.randint(0, 2**62, (1,), generator=gen).item())
        out = fn(_torch_to_uint8_nhwc(xb), np.random.default_rng(seed))
        t = torch.from_numpy(np.ascontiguousarray(out, dtype=np.float32) / 255.0).permute(0, 3, 1, 2)
        return t.to(device=xb.device, dtype=xb.dtype).contiguous()

    return needs_host_generator(transform)


def make_batch_transform(name_or_scheme, *, severity: float = 3.0, mode: str = "composite", **kw):
    """Build a ``batch_transform(xb, gen) -> tensor`` for :func:`robeval.core.nn.training.train`.

    Parameters
    ----------
    name_or_scheme : str or iterable of op names
        ``"none"`` (identity), ``"autoaugment"`` (CIFAR-10 policy), ``"augmix"`` (all nine base ops
        composited as in AugMix, severity 3, width 3, depth 1-3; without the JSD loss),
        ``"patch_gaussian"`` (width 25, sigma ~ U(0, 1)), or a scheme (frozenset / list of op names, or a
        '+'-joined string) composited as in the paper.
    severity, mode : used for schemes and ``"augmix"``.
    **kw : forwarded to :func:`patch_gaussian` or :func:`sample_scheme` (another keyword: TypeError).

    Returns
    -------
    callable(xb: torch float tensor (N, C, H, W) in [0, 1], gen: torch.Generator) -> tensor of the same
    shape, dtype and device.
    """
    opts = dict(none=(), autoaugment=(), patch_gaussian=("patch_width", "max_sigma"))  # a scheme's: sample_scheme's
    check_keywords(kw, opts.get(str(name_or_scheme), ("width", "max_depth", "alpha")), "make_batch_transform")
    if isinstance(name_or_scheme, str) and name_or_scheme in BATCH_TRANSFORM_NAMES:
        name = name_or_scheme
        if name == "none":
            return lambda xb, gen: xb
        if name == "patch_gaussian":  # draws on the CPU generator, adds the noise on xb's device
            from robeval.core.nn.training import needs_host_generator

            return needs_host_generator(lambda xb, gen: patch_gaussian(xb, gen, **kw))
        if name == "autoaugment":
            return as_batch_transform(autoaugment)
        scheme = frozenset(BASE_OPS)  # augmix
    else:
        try:
            scheme = parse_scheme(name_or_scheme)
        except ValueError as exc:
            raise ValueError(f"{exc} Named transforms: {', '.join(BATCH_TRANSFORM_NAMES)}.") from None
    _check_severity(severity)
    if mode not in _MODES:
        raise ValueError(f"Unknown mode {mode!r}; valid modes are: {', '.join(_MODES)}.")
    return as_batch_transform(
        lambda x, rng: apply_scheme(x, scheme, rng, mode, severity=severity, dtype=np.float32, **kw)
    )


def augmix_jsd_step_fn(*, severity: float = 3.0, jsd_weight: float = 12.0, seed: int = 0):
    """AugMix training objective with the Jensen-Shannon consistency loss (Hendrycks et al. 2020), as a
    ``step_fn(model, xb, yb, epoch) -> loss`` for :func:`robeval.core.nn.training.train`.

    ``loss = CE(model(x), y) + jsd_weight * JS(p_clean, p_aug1, p_aug2)`` where the two AugMix views are drawn
    from ``xb`` (already cropped and flipped) with the full nine-op scheme at ``severity``; ``jsd_weight`` = 12
    as in AugMix and the paper's released CIFAR-10 configuration. Randomness comes from a private torch
    Generator seeded with ``seed``, so reruns are identical. Use it with ``batch_transform=None``.
    """
    import torch
    import torch.nn.functional as F

    transform = make_batch_transform("augmix", severity=severity)
    gen = torch.Generator().manual_seed(int(seed))

    def step(model, xb, yb, epoch):
        x_cpu = xb.detach().cpu()
        views = [transform(x_cpu, gen).to(xb.device) for _ in range(2)]
        logits = model(torch.cat([xb] + views))
        l_clean, l_a1, l_a2 = logits.split(len(xb))
        probs = [F.softmax(lg, dim=1) for lg in (l_clean, l_a1, l_a2)]
        log_mix = torch.clamp((probs[0] + probs[1] + probs[2]) / 3.0, 1e-7, 1.0).log()
        jsd = sum(F.kl_div(log_mix, p, reduction="batchmean") for p in probs) / 3.0
        return F.cross_entropy(l_clean, yb) + jsd_weight * jsd

    return step
