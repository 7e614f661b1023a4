"""The 15 CIFAR-10-C corruptions of Hendrycks & Dietterich (ICLR 2019), re-implemented in numpy/scipy.

Parameters are the CIFAR-specific ones of the authors' ``make_cifar_c.py`` (hendrycks/robustness,
``ImageNet-C/create_c/``), which are milder than ImageNet-C's. Every function takes a uint8 batch
(N, 32, 32, 3), the published parameter of one severity and an :class:`~.common.ImageRNG` (one random
stream per image, batch axis first in every draw), and returns a uint8 batch; so one call on a batch equals
the reference's per-image loop in distribution, and an image's result does not depend on its batch.
Differences from the reference implementation (Wand/ImageMagick, OpenCV) are noted where they exist; none
changes a parameter. ``glass_blur`` follows the released data, whose pixel "swap" copies (see
:func:`glass_shuffle`); ``glass_blur_true_swap`` is the swap the reference code's comment describes.
"""

from __future__ import annotations

import io
from functools import lru_cache

import numpy as np
from scipy import ndimage

from robeval.transforms.corruptions.common import (
    bilinear_sample_reflect101,
    clipped_zoom,
    from_unit,
    motion_blur,
    pixel_grid,
    to_unit,
)

# Severity 1..5 parameters, copied as numbers from make_cifar_c.py.
PARAMS: dict[str, tuple] = {
    "gaussian_noise": (0.04, 0.06, 0.08, 0.09, 0.10),  # std of additive noise, pixel range [0, 1]
    "shot_noise": (500, 250, 100, 75, 50),  # Poisson photon count at full intensity
    "impulse_noise": (0.01, 0.02, 0.03, 0.05, 0.07),  # salt-and-pepper fraction of values
    "defocus_blur": ((0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (1, 0.2), (1.5, 0.1)),  # disk radius, alias blur
    "glass_blur": ((0.05, 1, 1), (0.25, 1, 1), (0.4, 1, 1), (0.25, 1, 2), (0.4, 1, 2)),  # sigma, max delta, iterations
    "motion_blur": ((6, 1), (6, 1.5), (6, 2), (8, 2), (9, 2.5)),  # ImageMagick radius, sigma
    "zoom_blur": (
        (1, 1.06, 0.01),
        (1, 1.11, 0.01),
        (1, 1.16, 0.01),
        (1, 1.21, 0.01),
        (1, 1.26, 0.01),
    ),  # arange of zooms
    "snow": (
        (0.1, 0.2, 1, 0.6, 8, 3, 0.95),
        (0.1, 0.2, 1, 0.5, 10, 4, 0.9),
        (0.15, 0.3, 1.75, 0.55, 10, 4, 0.9),
        (0.25, 0.3, 2.25, 0.6, 12, 6, 0.85),
        (0.3, 0.3, 1.25, 0.65, 14, 12, 0.8),
    ),  # mean, std, zoom, threshold, blur radius, blur sigma, image weight
    "frost": ((1, 0.2), (1, 0.3), (0.9, 0.4), (0.85, 0.4), (0.75, 0.45)),  # image weight, frost weight
    "fog": ((0.2, 3), (0.5, 3), (0.75, 2.5), (1, 2), (1.5, 1.75)),  # fog strength, plasma wibble decay
    "brightness": (0.05, 0.1, 0.15, 0.2, 0.3),  # added to HSV value
    "contrast": (0.75, 0.5, 0.4, 0.3, 0.15),  # factor on deviations from the channel mean
    "elastic_transform": (
        (32 * 0, 32 * 0, 32 * 0.08),
        (32 * 0.05, 32 * 0.2, 32 * 0.07),
        (32 * 0.08, 32 * 0.06, 32 * 0.06),
        (32 * 0.1, 32 * 0.04, 32 * 0.05),
        (32 * 0.1, 32 * 0.03, 32 * 0.03),
    ),  # displacement alpha, displacement smoothing sigma, affine jitter (pixels)
    "pixelate": (0.95, 0.9, 0.85, 0.75, 0.65),  # down-scaling factor (box filter)
    "jpeg_compression": (80, 65, 58, 50, 40),  # JPEG quality
}

C_CORRUPTIONS: tuple[str, ...] = tuple(PARAMS)  # Hendrycks order: noise, blur, weather, digital

CATEGORIES: dict[str, str] = {
    **dict.fromkeys(("gaussian_noise", "shot_noise", "impulse_noise"), "noise"),
    **dict.fromkeys(("defocus_blur", "glass_blur", "motion_blur", "zoom_blur"), "blur"),
    **dict.fromkeys(("snow", "frost", "fog", "brightness"), "weather"),
    **dict.fromkeys(("contrast", "elastic_transform", "pixelate", "jpeg_compression"), "digital"),
}


# --------------------------------------------------------------------------- noise


def gaussian_noise(images, c, rng):
    x = to_unit(images)
    return from_unit(x + rng.normal(0.0, c, size=x.shape))


def shot_noise(images, c, rng):
    x = to_unit(images)
    return from_unit(rng.poisson(x * c) / c)  # per-image means, batch first


def impulse_noise(images, c, rng):
    # skimage's 's&p' mode: each value (per channel) is replaced with probability c, half by 0, half by 1.
    x = to_unit(images)
    hit = rng.random(x.shape) < c
    salt = rng.random(x.shape) < 0.5
    return from_unit(np.where(hit, salt.astype(np.float64), x))


# --------------------------------------------------------------------------- blur


def _gaussian_3tap(sigma: float) -> np.ndarray:
    # OpenCV's 3-tap Gaussian (used to anti-alias the disk kernel).
    w = np.exp(-(np.arange(-1, 2) ** 2) / (2 * sigma**2))
    return w / w.sum()


def disk_kernel(radius: float, alias_blur: float) -> np.ndarray:
    """Anti-aliased disk (defocus) kernel on a 17×17 grid, normalised to sum 1, zero border trimmed."""
    half = 8 if radius <= 8 else int(np.ceil(radius))
    ax = np.arange(-half, half + 1)
    yy, xx = np.meshgrid(ax, ax, indexing="ij")
    disk = (xx**2 + yy**2 <= radius**2).astype(np.float64)
    disk /= disk.sum()
    g = _gaussian_3tap(alias_blur)
    disk = ndimage.correlate1d(ndimage.correlate1d(disk, g, axis=0, mode="mirror"), g, axis=1, mode="mirror")
    nz = np.nonzero(disk > 0)
    return disk[nz[0].min() : nz[0].max() + 1, nz[1].min() : nz[1].max() + 1]


def defocus_blur(images, c, rng):
    kernel = disk_kernel(*c)
    x = to_unit(images)
    # OpenCV filter2D's default border is reflect-101 = scipy's "mirror".
    out = ndimage.correlate(x, kernel[None, :, :, None], mode="mirror")
    return from_unit(out)


def _gaussian_nearest(x, sigma):
    # skimage.filters.gaussian defaults: mode='nearest', truncate=4, channels not mixed.
    return ndimage.gaussian_filter(x, sigma=(0, sigma, sigma, 0), mode="nearest", truncate=4.0)


def glass_positions(size: int, delta: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels the reference's shuffling loop visits, in its order: rows from
    ``size - delta`` down to ``delta + 1``, and within each row columns in the same order."""
    span = np.arange(size - delta, delta, -1)
    rows, cols = np.meshgrid(span, span, indexing="ij")
    return rows.ravel(), cols.ravel()


def glass_shuffle(x: np.ndarray, offsets: np.ndarray, delta: int, *, swap: bool = False) -> np.ndarray:
    """The local pixel shuffling of glass blur, in place on a uint8 batch ``x`` (n, H, W, 3); returns ``x``.

    ``offsets`` int (n, iterations, P, 2) holds the (dx, dy) drawn for each of the P positions of
    :func:`glass_positions`, in visiting order (the reference draws ``randint(-delta, delta, size=2)``).
    With ``swap=False`` (the released CIFAR-10-C) the visited pixel (h, w) takes the current value of
    (h + dy, w + dx) and nothing else changes: the reference's ``x[h, w], x[h', w'] = x[h', w'], x[h, w]``
    evaluates the right-hand side to two numpy *views*, so after the first assignment the second one writes
    back the value that was just copied. With ``swap=True`` the two pixels are exchanged.
    """
    n, size = x.shape[0], x.shape[1]
    rows, cols = glass_positions(size, delta)
    batch = np.arange(n)
    for it in range(offsets.shape[1]):
        dx, dy = offsets[:, it, :, 0], offsets[:, it, :, 1]
        if not swap and delta <= 1:
            # offsets in {-1, 0}: every source lies at or after its destination in the visiting order (or is
            # never visited), so it still holds its value from the start of the pass: one gather per pass
            x[batch[:, None], rows, cols] = x[batch[:, None], rows + dy, cols + dx]
            continue
        # sequential within an image (a later step reads what an earlier one wrote), vectorised over images
        for k in range(len(rows)):
            r, q = rows[k], cols[k]
            r2, q2 = r + dy[:, k], q + dx[:, k]
            src = x[batch, r2, q2]  # a copy (fancy indexing)
            if swap:
                x[batch, r2, q2] = x[batch, r, q]
            x[batch, r, q] = src
    return x


def _glass_blur(images, c, rng, swap: bool):
    sigma, delta, iterations = float(c[0]), c[1], c[2]
    if delta != int(delta) or int(delta) < 1 or iterations != int(iterations) or int(iterations) < 0:
        raise ValueError(
            f"glass blur takes (sigma, max_delta, iterations) with integers max_delta >= 1 and iterations >= 0, "
            f"got {tuple(c)}."
        )
    delta, iterations = int(delta), int(iterations)
    n, size = images.shape[0], images.shape[1]
    x = from_unit(_gaussian_nearest(to_unit(images), sigma))
    n_pos = len(glass_positions(size, delta)[0])
    offsets = rng.integers(-delta, delta, size=(n, iterations, n_pos, 2))  # [dx, dy] in [-delta, delta)
    glass_shuffle(x, offsets, delta, swap=swap)
    return from_unit(_gaussian_nearest(x / 255.0, sigma))


def glass_blur(images, c, rng):
    """Glass blur as in the released CIFAR-10-C: blur, local pixel *copying* (see :func:`glass_shuffle`), blur."""
    return _glass_blur(images, c, rng, swap=False)


def glass_blur_true_swap(images, c, rng):
    """Glass blur with the pixel swap the reference code intends (exchanges pixels; not the released data)."""
    return _glass_blur(images, c, rng, swap=True)


def motion_blur_c(images, c, rng):
    radius, sigma = c
    angles = rng.uniform(-45, 45, size=len(images))
    out = motion_blur(images.astype(np.float64), radius, sigma, angles)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)  # ImageMagick quantises to the nearest level


def zoom_blur(images, c, rng):
    x = to_unit(images)
    factors = np.arange(*c)
    out = np.zeros_like(x)
    for z in factors:
        out += clipped_zoom(x, z)
    return from_unit((x + out) / (len(factors) + 1))


# --------------------------------------------------------------------------- weather


def _rgb_to_gray(x):
    return 0.299 * x[..., 0] + 0.587 * x[..., 1] + 0.114 * x[..., 2]


def snow(images, c, rng):
    mean, std, zoom_factor, threshold, radius, sigma, weight = c
    n, h, w, _ = images.shape
    x = to_unit(images)
    layer = rng.normal(mean, std, size=(n, h, w, 1))
    layer = clipped_zoom(layer, zoom_factor)
    layer[layer < threshold] = 0
    layer = np.clip(layer, 0, 1)
    layer = np.floor(layer * 255.0)  # the reference stores the flake layer as an 8-bit image
    angles = rng.uniform(-135, -45, size=n)
    layer = np.clip(np.rint(motion_blur(layer, radius, sigma, angles)), 0, 255) / 255.0
    x = weight * x + (1 - weight) * np.maximum(x, _rgb_to_gray(x)[..., None] * 1.5 + 0.5)
    return from_unit(x + layer + np.rot90(layer, k=2, axes=(1, 2)))


@lru_cache(maxsize=1)
def frost_layers() -> tuple[np.ndarray, ...]:
    """The frost photographs of ImageNet-C, RGB uint8, down-scaled by 0.2 as for CIFAR-10-C.

    OpenCV's bilinear resize by fx = fy = 0.2 samples source pixel 5·i + 2 exactly (the interpolation
    weights vanish), so it is a strided subsample of ``round(0.2 · size)`` pixels per axis.
    """
    from robeval.core import data

    photos = data.load_frost_images()
    if isinstance(photos, dict):
        photos = [photos[k] for k in sorted(photos)]
    layers = []
    for photo in photos:
        arr = np.asarray(photo)
        if arr.ndim != 3 or arr.shape[-1] not in (3, 4):
            raise ValueError(f"load_frost_images() returned an array of shape {arr.shape}; expected (H, W, 3|4).")
        arr = arr[..., :3].astype(np.uint8)
        hh, ww = int(round(arr.shape[0] * 0.2)), int(round(arr.shape[1] * 0.2))
        layers.append(np.ascontiguousarray(arr[2::5, 2::5][:hh, :ww]))
    if len(layers) < 5:
        raise ValueError(f"frost needs the 6 ImageNet-C frost photographs, load_frost_images() gave {len(layers)}.")
    return tuple(layers)


def frost(images, c, rng):
    weight, frost_weight = c
    n, h, w, _ = images.shape
    layers = frost_layers()

    def draw(g):
        # The reference draws np.random.randint(5): only the first five photographs are ever used; the crop's
        # range depends on the photograph, so each image draws from its own stream in the reference's order.
        k = int(g.integers(0, 5))
        return k, int(g.integers(0, layers[k].shape[0] - h)), int(g.integers(0, layers[k].shape[1] - w))

    crops = np.empty(images.shape, dtype=np.float64)
    for i, (k, r, q) in enumerate(rng.each(draw)):
        crops[i] = layers[k][r : r + h, q : q + w]
    return np.clip(weight * images.astype(np.float64) + frost_weight * crops, 0, 255).astype(np.uint8)


def plasma_fractal(rng, n: int, mapsize: int = 32, wibbledecay: float = 3.0) -> np.ndarray:
    """Diamond-square plasma height maps in [0, 1], one per image: float array (n, mapsize, mapsize).

    ``rng``: an :class:`~.common.ImageRNG` for n images (or a numpy Generator); every draw is (n, ...)."""
    if mapsize & (mapsize - 1):
        raise ValueError(f"mapsize must be a power of two, got {mapsize}.")
    m = np.zeros((n, mapsize, mapsize))
    # the noise of every step (a square and two diamond fills of (mapsize/step)² points each), drawn in one
    # go per image in the order the steps use it; uniform(-wibble, wibble) = wibble · uniform(-1, 1)
    n_steps = int(np.log2(mapsize))
    sizes = [4**s for s in range(n_steps) for _ in range(3)]  # step mapsize >> s fills (2**s)² points
    noise = rng.uniform(-1.0, 1.0, size=(n, sum(sizes)))
    offset = [0]
    step = mapsize
    wibble = 100.0

    def wibbled_mean(a):
        k = a.shape[1] * a.shape[2]
        u = noise[:, offset[0] : offset[0] + k].reshape(a.shape)
        offset[0] += k
        return a / 4 + wibble * (wibble * u)

    while step >= 2:
        half = step // 2
        # squares: centre of each square = mean of its corners + noise
        corners = m[:, 0:mapsize:step, 0:mapsize:step]
        acc = corners + np.roll(corners, -1, axis=1)
        acc = acc + np.roll(acc, -1, axis=2)
        m[:, half:mapsize:step, half:mapsize:step] = wibbled_mean(acc)
        # diamonds: edge midpoints = mean of the adjacent corners and centres + noise
        centres = m[:, half:mapsize:step, half:mapsize:step]
        corners = m[:, 0:mapsize:step, 0:mapsize:step]
        ltsum = centres + np.roll(centres, 1, axis=1) + corners + np.roll(corners, -1, axis=2)
        m[:, 0:mapsize:step, half:mapsize:step] = wibbled_mean(ltsum)
        ttsum = centres + np.roll(centres, 1, axis=2) + corners + np.roll(corners, -1, axis=1)
        m[:, half:mapsize:step, 0:mapsize:step] = wibbled_mean(ttsum)
        step //= 2
        wibble /= wibbledecay
    assert offset[0] == noise.shape[1]
    m -= m.min(axis=(1, 2), keepdims=True)
    return m / m.max(axis=(1, 2), keepdims=True)


def fog(images, c, rng):
    strength, decay = c
    n, h, w, _ = images.shape
    x = to_unit(images)
    max_val = x.max(axis=(1, 2, 3), keepdims=True)
    size = 1 << int(np.ceil(np.log2(h)))
    x = x + strength * plasma_fractal(rng, n, size, decay)[:, :h, :w, None]
    scale = max_val + strength  # 0 only for a black image without fog (strength 0): it stays black
    return from_unit(x * max_val / np.where(scale > 0, scale, 1.0))


def brightness(images, c, rng):
    # In HSV, R, G and B are all proportional to V at fixed hue and saturation, so V → min(V + c, 1)
    # rescales the pixel; a black pixel (V = 0, S = 0) becomes grey c.
    x = to_unit(images)
    v = x.max(axis=-1, keepdims=True)
    v_new = np.clip(v + c, 0, 1)
    scaled = np.where(v > 0, x * v_new / np.where(v > 0, v, 1.0), v_new)
    return from_unit(scaled)


# --------------------------------------------------------------------------- digital


def contrast(images, c, rng):
    x = to_unit(images)
    means = x.mean(axis=(1, 2), keepdims=True)
    return from_unit((x - means) * c + means)


def _reflect_half(idx, n):
    # scipy's 'reflect' (half-sample symmetric: d c b a | a b c d | d c b a)
    period = 2 * n
    idx = np.mod(idx, period)
    return np.where(idx >= n, period - 1 - idx, idx)


def elastic_transform(images, c, rng):
    alpha, sigma, jitter = c
    n, h, w, _ = images.shape
    x = to_unit(images)
    # 1) random affine: move three anchor points by up to ±jitter pixels (OpenCV's (x, y) order)
    centre = np.array([w // 2, h // 2], dtype=np.float64)
    sq = min(h, w) // 3
    src = np.array([centre + sq, [centre[0] + sq, centre[1] - sq], centre - sq])
    dst = src[None] + rng.uniform(-jitter, jitter, size=(n, 3, 2))
    # affine M with M @ [p, 1] = q for the three pairs; the warp samples the source at M⁻¹ q
    src_h = np.concatenate([src, np.ones((3, 1))], axis=1)  # (3, 3)
    m = np.linalg.solve(src_h[None], dst).transpose(0, 2, 1)  # (n, 2, 3)
    full = np.concatenate([m, np.broadcast_to([[[0.0, 0.0, 1.0]]], (n, 1, 3))], axis=1)
    inv = np.linalg.inv(full)
    rows, cols = pixel_grid(h)
    src_x = inv[:, 0, 0, None, None] * cols + inv[:, 0, 1, None, None] * rows + inv[:, 0, 2, None, None]
    src_y = inv[:, 1, 0, None, None] * cols + inv[:, 1, 1, None, None] * rows + inv[:, 1, 2, None, None]
    x = bilinear_sample_reflect101(x, src_y, src_x)
    # 2) smooth random displacement field (same for all channels), bilinear with half-sample reflection
    dxy = rng.uniform(-1, 1, size=(n, 2, h, w)).transpose(1, 0, 2, 3)  # (dx, dy) per image
    if sigma > 0:
        dxy = ndimage.gaussian_filter(dxy, sigma=(0, 0, sigma, sigma), mode="reflect", truncate=3.0)
    dx, dy = dxy * alpha
    r = rows[None] + dy
    q = cols[None] + dx
    r0, q0 = np.floor(r).astype(np.int64), np.floor(q).astype(np.int64)
    fr, fq = (r - r0)[..., None], (q - q0)[..., None]
    b = np.arange(n)[:, None, None]

    def tap(rr, qq):
        return x[b, _reflect_half(rr, h), _reflect_half(qq, w)]

    out = (tap(r0, q0) * (1 - fq) + tap(r0, q0 + 1) * fq) * (1 - fr) + (
        tap(r0 + 1, q0) * (1 - fq) + tap(r0 + 1, q0 + 1) * fq
    ) * fr
    return from_unit(out)


def pixelate(images, c, rng):
    from PIL import Image

    h, w = images.shape[1:3]
    small = (int(w * c), int(h * c))
    out = np.empty_like(images)
    for i, img in enumerate(images):  # PIL's box filter (with its 8-bit rounding) has no batch form
        pil = Image.fromarray(img).resize(small, Image.BOX).resize((w, h), Image.BOX)
        out[i] = np.asarray(pil)
    return out


def jpeg_compression(images, c, rng):
    from PIL import Image

    out = np.empty_like(images)
    for i, img in enumerate(images):  # the codec works image by image
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, "JPEG", quality=int(c))
        buf.seek(0)
        out[i] = np.asarray(Image.open(buf).convert("RGB"))
    return out


FUNCTIONS = {
    "gaussian_noise": gaussian_noise,
    "shot_noise": shot_noise,
    "impulse_noise": impulse_noise,
    "defocus_blur": defocus_blur,
    "glass_blur": glass_blur,
    "motion_blur": motion_blur_c,
    "zoom_blur": zoom_blur,
    "snow": snow,
    "frost": frost,
    "fog": fog,
    "brightness": brightness,
    "contrast": contrast,
    "elastic_transform": elastic_transform,
    "pixelate": pixelate,
    "jpeg_compression": jpeg_compression,
}
assert tuple(FUNCTIONS) == C_CORRUPTIONS

# Variants outside the benchmark, applied with the published parameters of the corruption they vary.
VARIANT_OF: dict[str, str] = {"glass_blur_true_swap": "glass_blur"}
VARIANT_FUNCTIONS = {"glass_blur_true_swap": glass_blur_true_swap}
VARIANT_PARAMS: dict[str, tuple] = {name: PARAMS[base] for name, base in VARIANT_OF.items()}
