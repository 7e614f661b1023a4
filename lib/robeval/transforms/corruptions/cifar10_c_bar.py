"""CIFAR-10-C-bar (Mintun, Kirillov & Xie, NeurIPS 2021) and the other candidate corruptions of its construction.

``CANDIDATE_CORRUPTIONS`` holds all 30 candidates of the release's ``corruption_master_list.csv`` under the
names of ``imagenet_c_bar/corrupt.py`` (its ``pinch_and_twirl`` and ``fish_eye`` are the master list's
``pinch_and_twirl_v2`` and ``fish_eye_v2``).

Each transform maps a continuous magnitude ``level`` in [0, 10] to its physical parameters linearly
(``level * max / 10``, the release's ``float_parameter``), samples its random parameters per image from
that image's own stream (an :class:`~.common.ImageRNG`: every draw has the batch axis first, so a result does
not depend on the batch), and is vectorised over the batch. The 10 chosen corruptions use the published CIFAR-10 severities of the
release's ``cifar10_c_bar.csv``; the candidates use the ranges of ``corruption_master_list.csv``
(severity scan: 10 evenly spaced magnitudes in [lo, hi], severity s ↦ lo + (hi - lo)·s/10).
Formulas follow the transforms' definitions in facebookresearch/augmentation-corruption
(``imagenet_c_bar/corrupt.py``); the code is our own, written for batches.

Images are uint8 NHWC; internally the C-bar transforms work on floats in 0..255 and truncate to uint8.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import ndimage

from robeval.transforms.corruptions.common import (
    apply_plane_matrix,
    apply_separable,
    bilinear_sample,
    fourier_noise,
    from_255,
    magnitude,
    pixel_grid,
    rotation_matrix,
    zoom_matrix,
)

GREY = 128.0  # fill colour of occluders (checkerboard cut-outs, lines)

# Published CIFAR-10-C-bar severities (magnitude levels) of cifar10_c_bar.csv.
PARAMS: dict[str, tuple[float, ...]] = {
    "blue_noise_sample": (0.7, 1.4, 2.1, 3.5, 4.2),
    "brownish_noise": (2.5, 4.0, 5.5, 6.5, 7.0),
    "checkerboard_cutout": (1.0, 2.0, 3.0, 4.0, 5.0),
    "circular_motion_blur": (2.8, 3.6, 4.4, 5.2, 6.0),
    "inverse_sparkles": (1.0, 1.5, 2.5, 4.5, 5.0),
    "lines": (0.5, 1.0, 1.5, 2.0, 2.5),
    "pinch_and_twirl": (5.5, 6.0, 6.5, 8.5, 10.0),
    "ripple": (5.5, 6.0, 6.5, 7.5, 8.0),
    "sparkles": (0.7, 3.5, 5.6, 6.3, 7.0),
    "transverse_chromatic_abberation": (1.0, 2.0, 5.0, 9.0, 10.0),
}
CBAR_CORRUPTIONS: tuple[str, ...] = tuple(sorted(PARAMS))

# Magnitude ranges of the CIFAR-10 severity scan (corruption_master_list.csv, column "cifar").
SCAN_RANGES: dict[str, tuple[float, float]] = {
    "single_frequency_greyscale": (0, 3),
    "cocentric_sine_waves": (0, 5),
    "plasma_noise": (0, 7),
    "caustic_noise": (2, 7),
    "sparkles": (0, 7),
    "inverse_sparkles": (0, 5),
    "checkerboard_cutout": (0, 10),
    "lines": (0, 5),
    "scatter": (1, 5),
    "chromatic_abberation": (0, 7),
    "transverse_chromatic_abberation": (0, 10),
    "pinch_and_twirl": (5, 10),
    "ripple": (5, 10),
    "bleach_bypass": (0, 10),
    "technicolor": (0, 10),
    "pseudocolor": (0, 7),
    "color_balance": (0, 10),
    "blue_noise_sample": (0, 7),
    "blue_noise": (0, 2),
    "hue_shift": (0, 10),
    "circular_motion_blur": (2, 10),
    "brownish_noise": (2, 7),
    "water_drop": (2, 10),
    "voronoi_noise": (1, 5),
    "quadrilateral_no_bars": (0, 10),
    "perspective_no_bars": (0, 10),
    "color_dither": (0, 10),
    "caustic_refraction": (1, 5),
    "fish_eye": (0, 1),  # "fish_eye_v2" in the master list (= the release's fish_eye transform)
    "perlin_noise": (4, 10),
}


def scan_levels(name: str, n_levels: int = 10) -> np.ndarray:
    """Magnitudes of the severity scan of the construction: lo + (hi - lo)·s/n for s = 1..n."""
    lo, hi = SCAN_RANGES[name]
    return lo + (hi - lo) * np.arange(1, n_levels + 1) / n_levels


# =========================================================================== the 10 CIFAR-10-C-bar corruptions


def blue_noise_sample(images, level, rng):
    """Keep pixels where a standardised blue-noise field exceeds ``0.3·level − 2.5``; the rest turn black."""
    n, size = images.shape[0], images.shape[1]
    threshold = magnitude(level, 3.0) - 2.5
    noise = fourier_noise(rng, (n,), size, lambda r: r)  # amplitude ∝ |k|: blue noise
    mask = noise > threshold
    return from_255(images * mask[..., None])


def brownish_noise(images, level, rng):
    """Add per-channel noise with amplitude spectrum 1/(|k|²+1) (smooth blotches), std ``6.4·level``."""
    n, size = images.shape[0], images.shape[1]
    noise = fourier_noise(rng, (n, 3), size, lambda r: 1.0 / (r**2 + 1)).transpose(0, 2, 3, 1)
    return from_255(images + magnitude(level, 64.0) * noise)


def checkerboard_cutout(images, level, rng):
    """Grey out a random fraction ``level/10`` of the black squares of a randomly rotated checkerboard."""
    n, size = images.shape[0], images.shape[1]
    angle = rng.uniform(0, 2 * np.pi, size=n)[:, None, None]
    scale = np.maximum(rng.uniform(0.1, 0.25, size=n) * size, 1.0)[:, None, None]
    fraction = magnitude(level, 1.0)
    cells = (4 * size // scale).astype(np.int64)  # grid side per image
    # every image draws a grid of the largest possible side (scale ≥ 0.1·size), so that its stream does not
    # depend on the other images of the batch; it uses the top-left cells × cells corner
    max_cells = int(4 * size // max(0.1 * size, 1.0)) + 1
    grid = rng.uniform(size=(n, max_cells, max_cells)) < fraction
    rows, cols = pixel_grid(size)
    nx = (np.cos(angle) * rows + np.sin(angle) * cols) / scale
    ny = (-np.sin(angle) * rows + np.cos(angle) * cols) / scale
    parity_differs = np.trunc(np.mod(nx, 2)) != np.trunc(np.mod(ny, 2))
    # The release indexes the grid with int() (truncation towards 0, negative indices wrap).
    ix = np.mod(np.trunc(nx).astype(np.int64), cells)
    iy = np.mod(np.trunc(ny).astype(np.int64), cells)
    selected = grid[np.arange(n)[:, None, None], ix, iy]
    keep = parity_differs | ~selected
    return from_255(np.where(keep[..., None], images.astype(np.float64), GREY))


def circular_motion_blur(images, level, rng):
    """Weighted sum of 21 rotations about the centre by angles in [−a, a], a = ``1.5·level`` degrees,
    with weights exp(−2t²), t ∈ [−1, 1] (cubic-spline rotation with black borders, as scipy.ndimage.rotate)."""
    amount = magnitude(level, 15.0)
    t = 2 * np.arange(21) / 20 - 1
    weights = np.exp(-2 * t**2)
    # The blur is one linear map for every image: build its matrix once and apply it to the batch.
    op = _circular_blur_matrix(images.shape[1], float(amount), tuple(t), tuple(weights / weights.sum()))
    out = apply_plane_matrix(images.astype(np.float64) / 255.0, op)
    return from_255(np.clip(out, 0, 1) * 255.0)


@functools.lru_cache(maxsize=32)
def _circular_blur_matrix(size, amount, t, weights):
    return rotation_matrix(size, np.asarray(t) * amount, weights)


def _star_mask(rows, cols, centre, ray_lengths, n_rays, exponent):
    """The sparkle kernel of the release: f ∈ [0, 1], ≈1 inside a star of random ray lengths, decaying outside.

    centre (n, 2); ray_lengths (n, R) padded; n_rays (n,) actual rays per star; exponent scalar.
    Returns (n, H, W).
    """
    dy = rows[None] - centre[:, 0, None, None]
    dx = cols[None] - centre[:, 1, None, None]
    dist2 = dy**2 + dx**2
    rays = n_rays[:, None, None].astype(np.float64)
    d = (np.arctan2(dx, dy) + np.pi) / (2 * np.pi) * rays
    i = np.floor(d).astype(np.int64)
    frac = d - i
    b = np.arange(len(centre))[:, None, None]
    r = n_rays[:, None, None]
    l0 = ray_lengths[b, np.mod(i, r)]
    l1 = ray_lengths[b, np.mod(i + 1, r)]
    length = l0 + frac * (l1 - l0)
    g = (length**2 / (dist2 + 1e-4)) ** exponent
    f = (1 - (frac - 0.5) ** 2) * g
    return np.clip(f, 0, 1)


def inverse_sparkles(images, level, rng):
    """Everything outside a jagged star around a random centre fades to white; higher level = sharper star
    edge (exponent (100 − amount)/50 with amount = 100 − 6.5·level)."""
    n, size = images.shape[0], images.shape[1]
    centre = rng.uniform(0.25, 0.75, size=(n, 2)) * size
    radius = 0.25 * size
    amount = 100 - magnitude(level, 65.0)
    n_rays = rng.integers(50, 200, size=n)
    lengths = radius + 0.25 * radius * rng.standard_normal(size=(n, 200))
    rows, cols = pixel_grid(size)
    f = _star_mask(rows, cols, centre, lengths, n_rays, (100 - amount) / 50.0)[..., None]
    return from_255(255.0 + f * (images - 255.0))


def sparkles(images, level, rng):
    """Five white star bursts of radius ``0.32·level`` pixels at random positions."""
    n, size = images.shape[0], images.shape[1]
    radius = magnitude(level, 0.1) * size
    out = images.astype(np.float64)
    if radius == 0:
        return from_255(out)
    rows, cols = pixel_grid(size)
    centres = rng.uniform(0, size, size=(n, 5, 2)).transpose(1, 0, 2)  # (star, image, 2)
    n_rays = rng.integers(50, 200, size=(n, 5)).T
    lengths = np.maximum(1.0, radius + 0.25 * radius * rng.standard_normal(size=(n, 5, 200))).transpose(1, 0, 2)
    for k in range(5):  # stars are painted one after the other
        f = _star_mask(rows, cols, centres[k], lengths[k], n_rays[k], 1.0)[..., None]
        out = out + f * (255.0 - out)
    return from_255(out)


def lines(images, level, rng):
    """Draw ``int(3.2·level)`` anti-aliased grey lines of half-length 32 px through random points; their
    directions scatter around a common random angle."""
    from skimage.draw import line_aa

    n, size = images.shape[0], images.shape[1]
    num_lines = int(magnitude(level, 1.0) * size)
    half_length = 1.0 * size
    base = rng.uniform(0, 2 * np.pi, size=n)
    spread = rng.uniform(0.1, 1.0, size=n)
    pts = rng.uniform(size=(n, max(num_lines, 1), 3))
    keep = np.ones((n, size, size))  # product of (1 − alpha) over lines: blends toward grey commute
    for i in range(n):
        for j in range(num_lines):
            x, y = size * pts[i, j, 0], size * pts[i, j, 1]
            a = base[i] + 2 * np.pi * spread[i] * (pts[i, j, 2] - 0.5)
            s, c = np.sin(a) * half_length, np.cos(a) * half_length
            rr, cc, val = line_aa(int(x - c), int(y - s), int(x + c), int(y + s))
            ok = (rr >= 0) & (cc >= 0) & (rr < size) & (cc < size)
            keep[i, rr[ok], cc[ok]] *= 1.0 - val[ok]
    keep = keep[..., None]
    return from_255(keep * images + (1 - keep) * GREY)


def pinch_and_twirl(images, level, rng):
    """On a 3×3 grid of discs (radius 5 px), pinch by ``0.04·level + 0.1`` and twirl by ±``0.05π·level``
    (random sign per disc), strongest at the disc centre."""
    n, size = images.shape[0], images.shape[1]
    per_axis = 3 if size < 224 else 5
    angles = rng.choice([-1.0, 1.0], size=(n, per_axis, per_axis)) * magnitude(level, np.pi / 2)
    amount = magnitude(level, 0.4) + 0.1
    cell = size // per_axis
    radius = cell / 2
    rows, cols = pixel_grid(size)
    src_r = np.broadcast_to(rows, (n, size, size)).copy()
    src_c = np.broadcast_to(cols, (n, size, size)).copy()
    for i in range(per_axis):  # i: column block, j: row block (the release's loop order)
        for j in range(per_axis):
            r_sl, c_sl = slice(j * cell, (j + 1) * cell), slice(i * cell, (i + 1) * cell)
            pr, pc = rows[r_sl, c_sl], cols[r_sl, c_sl]
            cr, cc = j * cell + radius, i * cell + radius
            dy, dx = pr - cr, pc - cc
            dist = np.hypot(dy, dx)
            inside = (dist <= radius) & (np.round(dist, 3) != 0)
            d = np.where(inside, dist / radius, 0.5)
            t = np.sin(0.5 * np.pi * d) ** (-amount)
            a = angles[:, i, j, None, None] * (1 - d) ** 2
            new_r = cr + (dy * t) * np.cos(a) - (dx * t) * np.sin(a)
            new_c = cc + (dy * t) * np.sin(a) + (dx * t) * np.cos(a)
            src_r[:, r_sl, c_sl] = np.where(inside, new_r, pr)
            src_c[:, r_sl, c_sl] = np.where(inside, new_c, pc)
    return from_255(bilinear_sample(images.astype(np.float64), src_r, src_c))


def ripple(images, level, rng):
    """Sinusoidal warp along both axes: amplitude ``0.08·level`` px, wavelengths U(3.2, 9.6) px, random phases."""
    n, size = images.shape[0], images.shape[1]
    amplitude = magnitude(level, 0.025) * size
    wavelengths = rng.uniform(0.1, 0.3, size=(n, 2)) * size
    phases = rng.uniform(0, 2 * np.pi, size=(n, 2))
    rows, cols = pixel_grid(size)
    src_r = rows + amplitude * np.sin(2 * np.pi * rows / wavelengths[:, 0, None, None] + phases[:, 0, None, None])
    src_c = cols + amplitude * np.sin(2 * np.pi * cols / wavelengths[:, 1, None, None] + phases[:, 1, None, None])
    return from_255(bilinear_sample(images.astype(np.float64), src_r, src_c))


def transverse_chromatic_abberation(images, level, rng):
    """Magnify the three colour channels by 1, 1 + s/2 and 1 + s (random channel order), s = ``0.05·level``;
    scipy's zoom with ``prefilter=False`` (cubic B-spline smoothing, as in the release), centre crop."""
    n, size = images.shape[0], images.shape[1]
    s = magnitude(level, 0.5)
    scales = np.array([1.0, 1.0 + s / 2, 1.0 + s])
    order = np.argsort(rng.random((n, 3)), axis=1)  # a random permutation per image
    per_channel = scales[order]  # (n, 3)
    x = images.astype(np.float64)
    out = np.empty_like(x)
    for sc in scales:
        z = zoom_matrix(size, float(sc), 3, False)
        edge = (z.shape[0] - size) // 2
        zoomed = apply_separable(x, z[edge : edge + size])
        out = np.where((per_channel == sc)[:, None, None, :], zoomed, out)
    # scipy rounds half up when zooming a uint8 array
    return np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)


# =========================================================================== further construction candidates


def single_frequency_greyscale(images, level, rng):
    """Add a grey plane wave sin(k·p + φ) of amplitude ``19.6·level`` with random frequency and phase."""
    n, size = images.shape[0], images.shape[1]
    mag = rng.uniform(-np.pi, np.pi, size=n)
    other = rng.uniform(-1, 1, size=n) * np.abs(mag)
    swap = rng.random(n) < 0.5
    fx, fy = np.where(swap, other, mag), np.where(swap, mag, other)
    phase = rng.uniform(0, 2 * np.pi, size=n)
    rows, cols = pixel_grid(size)
    wave = np.sin(cols[None] * fx[:, None, None] + rows[None] * fy[:, None, None] + phase[:, None, None])
    return from_255(images + magnitude(level, 196.0) * wave[..., None])


def cocentric_sine_waves(images, level, rng):
    """Add wobbly concentric rings (saw-tooth in radius) around a random centre, amplitude ``12.8·level``."""
    n, size = images.shape[0], images.shape[1]
    offset = rng.uniform(0, size, size=(n, 2))
    freq = rng.uniform(0, 10, size=n)[:, None, None]
    amplitude = rng.uniform(0, size / 10, size=n)[:, None, None]
    ring = np.maximum(rng.uniform(0, size / 10, size=n), 1e-3)[:, None, None]
    rows, cols = pixel_grid(size)
    dx = cols[None] - offset[:, 0, None, None]
    dy = rows[None] - offset[:, 1, None, None]
    angle = np.arctan2(dx, dy) * freq
    dist = (np.mod(np.hypot(dx, dy) + np.sin(angle) * amplitude, ring)) / ring - 0.5
    return from_255(images + magnitude(level, 128.0) * dist[..., None])


def blue_noise(images, level, rng):
    """Add per-channel blue noise (amplitude ∝ |k|) of std ``19.6·level``."""
    n, size = images.shape[0], images.shape[1]
    noise = fourier_noise(rng, (n, 3), size, lambda r: r).transpose(0, 2, 3, 1)
    return from_255(images + magnitude(level, 196.0) * noise)


def plasma_noise(images, level, rng):
    """Blend with an iterated-sine 'plasma' colour field; weight ``6.4·level``/255 on the field."""
    n, size = images.shape[0], images.shape[1]
    time = rng.uniform(0, 6 * np.pi, size=n)[:, None, None]
    iterations = rng.integers(4, 7, size=n)
    sharp = rng.uniform(0.5, 1.0, size=n)[:, None, None]
    scale = rng.uniform(0.075, 0.2, size=n)[:, None, None] * size
    rows, cols = pixel_grid(size)
    x = np.broadcast_to(cols, (n, size, size)) / scale
    y = np.broadcast_to(rows, (n, size, size)) / scale
    i0, i1, i2, i3 = (np.ones((n, 1, 1)), np.ones((n, 1, 1)), np.ones((n, 1, 1)), np.zeros((n, 1, 1)))
    for s in range(int(iterations.max())):
        active = (s < iterations)[:, None, None]
        r0 = np.cos(y * i0 - i3 + time / i1) / i2
        r1 = np.sin(x * i0 - i3 + time / i1) / i2
        r0, r1 = r0 - 0.3 * r1, r1 + 0.3 * r0
        x = np.where(active, x + r0, x)
        y = np.where(active, y + r1, y)
        i0, i1, i2, i3 = (
            np.where(active, v, old)
            for v, old in ((i0 * 1.93, i0), (i1 * 1.15, i1), (i2 * (2.25 - sharp), i2), (i3 * time * i1, i3))
        )
    field = np.stack([np.sin(x - time), np.sin((x + y + np.sin(time)) * 0.5), np.sin(y + time)], axis=-1)
    intensity = magnitude(level, 64.0)
    return from_255((1 - intensity / 255) * images + intensity * field)


def _caustic_pattern(size, time, scale):
    """The release's caustic light field in [0, 1] (iterated trigonometric map of the tiled position).

    time, scale : float arrays (n, 1, 1) (scale in pixels). Returns (n, size, size).
    """
    rows, cols = pixel_grid(size)
    p0 = np.mod(rows[None] / scale, 1) * 2 * np.pi - 250
    p1 = np.mod(cols[None] / scale, 1) * 2 * np.pi - 250
    i0, i1 = p0.copy(), p1.copy()
    c = np.ones_like(p0)
    inten = 0.005
    for k in range(5):
        t = time * (1.0 - 3.5 / (k + 1))
        i0, i1 = p0 + np.cos(t - i0) + np.sin(t + i1), p1 + np.sin(t - i1) + np.cos(t + i0)
        length = np.sqrt((p0 / (np.sin(i0 + t) / inten)) ** 2 + (p1 / (np.cos(i1 + t) / inten)) ** 2)
        c = c + 1.0 / length
    c = 1.17 - (c / 5.0) ** 1.4
    return np.clip(np.abs(c) ** 8.0, 0, 1)


def _random_caustic_pattern(rng, n, size):
    """:func:`_caustic_pattern` with the release's per-image draws: time ~ U(0.5, 2), scale ~ U(0.75, 1.25)·size."""
    time = rng.uniform(0.5, 2.0, size=n)[:, None, None]
    scale = rng.uniform(0.75, 1.25, size=n)[:, None, None] * size
    return _caustic_pattern(size, time, scale)


def caustic_noise(images, level, rng):
    """Add a water-caustic light pattern (iterated trigonometric map), brightness ``25.5·level``."""
    n, size = images.shape[0], images.shape[1]
    colour = _random_caustic_pattern(rng, n, size)
    return from_255(images + magnitude(level, 255.0) * colour[..., None])


def scatter(images, level, rng):
    """Replace each pixel by one up to ``3.2·level`` px away, chosen by a deterministic hash of its position."""
    n, size = images.shape[0], images.shape[1]
    seed = rng.uniform(0, 10, size=n)[:, None, None]
    radius = magnitude(level, size / 10)
    rows, cols = pixel_grid(size)

    def hash_(a, b):
        return np.mod(np.sin(12.9898 * np.sin(a * seed) + 78.233 * np.cos(b * seed)) * 43758.5453, 1)

    src_c = np.clip(cols + radius * (2 * hash_(cols, rows) - 1), 0, size - 1)
    src_r = np.clip(rows + radius * (2 * hash_(rows, cols) - 1), 0, size - 1)
    return from_255(bilinear_sample(images.astype(np.float64), src_r, src_c))


def chromatic_abberation(images, level, rng):
    """Shift each colour channel by ``0.32·level`` px in its own random direction (linear interpolation)."""
    n, size = images.shape[0], images.shape[1]
    dist = magnitude(level, size / 10)
    angles = rng.uniform(0, 2 * np.pi, size=(n, 3))
    rows, cols = pixel_grid(size)
    out = np.empty(images.shape)
    x = images.astype(np.float64)
    for ch in range(3):
        # scipy.ndimage.shift(prefilter=False) samples at p − shift with constant-0 borders
        src_r = rows[None] - (np.cos(angles[:, ch]) * dist)[:, None, None]
        src_c = cols[None] - (np.sin(angles[:, ch]) * dist)[:, None, None]
        out[..., ch] = bilinear_sample(x[..., ch : ch + 1], src_r, src_c)[..., 0]
    return from_255(out)


def water_drop(images, level, rng):
    """Radial ripple (a drop in water) around a random centre: amplitude ``0.025·level``, random wavelength."""
    n, size = images.shape[0], images.shape[1]
    centre = rng.uniform(0.25, 0.75, size=(n, 2)) * size
    radius = size // 2
    amplitude = magnitude(level, 0.25)
    wavelength = rng.uniform(0.05, 0.2, size=n)[:, None, None] * size
    phase = rng.uniform(0, 2 * np.pi, size=n)[:, None, None]
    rows, cols = pixel_grid(size)
    dy = rows[None] - centre[:, 0, None, None]
    dx = cols[None] - centre[:, 1, None, None]
    dist = np.hypot(dy, dx)
    amount = amplitude * np.sin(dist / wavelength * 2 * np.pi - phase)
    amount = np.where(dist > 0, amount * wavelength / np.where(dist > 0, dist, 1), amount)
    amount = np.where(dist > radius, 0.0, amount)
    return from_255(bilinear_sample(images.astype(np.float64), rows + amount * dy, cols + amount * dx))


def caustic_refraction(images, level, rng):
    """Look at the image through a wavy water surface whose height is the (Gaussian-softened) caustic field.

    The surface normal at a pixel is (∂h/∂row, ∂h/∂col, 1) normalised, with central differences
    h(r+1) − h(r−1) (zero outside the image). A vertical ray refracts into the water (index 4): it leaves the
    vertical by sin(θ − θ'), θ = angle of the normal, sin θ' = sin θ / 4, towards the normal's tilt, and the
    pixel is read (bilinear, black outside) that far away times the lens scale ``1.6·level`` px (no shift where
    the normal is within 1e-3 of vertical; shifts rounded to 1e-3 px as the release does). A lighting term
    ``0.2·level · (∂h/∂row − ∂h/∂col)`` (in [0, 1] units) is added to every channel.
    """
    n, size = images.shape[0], images.shape[1]
    eta = 4.0
    lens_scale = magnitude(level, 0.5 * size)
    lighting = magnitude(level, 2.0)
    # the channels of the release's field are equal, so its luma (weights summing to 1) is the field itself
    height = ndimage.gaussian_filter(_random_caustic_pattern(rng, n, size), sigma=(0, 1, 1), mode="reflect")
    padded = np.pad(height, ((0, 0), (1, 1), (1, 1)))
    g_row = padded[:, 2:, 1:-1] - padded[:, :-2, 1:-1]
    g_col = padded[:, 1:-1, 2:] - padded[:, 1:-1, :-2]
    tilt = np.hypot(g_row, g_col)
    cos_theta = 1.0 / np.sqrt(1.0 + tilt**2)
    theta = np.arccos(cos_theta)
    deviation = np.sin(theta - np.arcsin(np.sin(theta) / eta))
    bent = cos_theta < 1.0 - 1e-3
    unit = np.where(bent, deviation / np.where(tilt > 0, tilt, 1.0), 0.0) * lens_scale
    rows, cols = pixel_grid(size)
    src_r = rows + np.round(unit * g_row, 3)
    src_c = cols + np.round(unit * g_col, 3)
    out = bilinear_sample(images.astype(np.float64) / 255.0, src_r, src_c)
    out = out + (lighting * (g_row - g_col))[..., None]
    return from_255(np.clip(out, 0, 1) * 255.0)


def _fish_eye_shift(d_row, d_col, radius, eta):
    """Sampling shift (towards the lens centre) of the release's hemispherical lens of index ``eta``.

    A pixel at offset d from the centre, inside the disc of ``radius``, sees the surface of a hemisphere of
    height z = sqrt(radius² − |d|²); along each axis the ray refracts by arcsin(u) − arcsin(u/eta),
    u = d_axis / sqrt(d_axis² + z²), and the pixel reads the image z·tan(that angle) closer to the centre
    (magnification). The shift is 0 outside the disc, at the centre and for eta = 1.
    """
    inside = d_row**2 + d_col**2 < radius**2
    z = np.sqrt(np.where(inside, radius**2 - d_row**2 - d_col**2, 1.0))

    def axis(d):
        u = d / np.sqrt(d**2 + z**2)
        return np.where(inside, np.tan(np.arcsin(u) - np.arcsin(u / eta)) * z, 0.0)

    return axis(d_row), axis(d_col)


def fish_eye(images, level, rng):
    """Many small fish-eye lenses (the release's ``fish_eye``; ``fish_eye_v2`` in its master list): int(0.01·224²)
    = 501 lenses of radius max(0.05·size, 3) px (3 px on CIFAR) at uniform random centres, refractive index
    ``1 + 0.2·level``, applied one after the other (each lens resamples, bilinear, black outside, the image
    left by the previous ones)."""
    n, size = images.shape[0], images.shape[1]
    num = int(0.01 * 224**2)  # the release's density is defined for 224 px: the count does not scale with size
    radius = max(0.05 * size, 3.0)
    eta = magnitude(level, 2.0) + 1.0
    centres = rng.uniform(0, size, size=(n, num, 2)).transpose(1, 0, 2)  # (lens, image, 2)
    # integer offsets k from floor(centre) with |floor(c) + k − c| < radius for some fractional part of c
    offs = np.arange(int(np.floor(-radius)) + 1, int(np.ceil(radius)) + 1, dtype=np.float64)
    off_r, off_c = (a.ravel() for a in np.meshgrid(offs, offs, indexing="ij"))
    pad = int(np.ceil(radius)) + 2  # zero border: the release's bilinear reads black outside the image
    side = size + 2 * pad
    # float32 working copy as in the release (its bilinear weights are float64, the stored image float32)
    work = np.zeros((n, side, side, 3), dtype=np.float32)
    work[:, pad : pad + size, pad : pad + size] = images
    flat = work.reshape(n * side * side, 3)  # a view: writes go through to ``work``
    base = (np.arange(n) * side * side)[:, None]
    chunk = 32  # lenses whose geometry is computed together; they are still applied one after the other
    for start in range(0, num, chunk):
        c = centres[start : start + chunk]  # (k, n, 2)
        cr, cc = c[..., 0:1], c[..., 1:2]
        pr, pc = np.floor(cr) + off_r, np.floor(cc) + off_c  # (k, n, P) pixel positions around each centre
        on_image = (pr >= 0) & (pr < size) & (pc >= 0) & (pc < size)
        shift_r, shift_c = _fish_eye_shift(pr - cr, pc - cc, radius, eta)
        sr = pr + pad - np.where(on_image, shift_r, 0.0)  # exact integers where nothing moves
        sc = pc + pad - np.where(on_image, shift_c, 0.0)
        r0, c0 = np.floor(sr), np.floor(sc)
        fr, fc = (sr - r0)[..., None], (sc - c0)[..., None]
        i00 = base + r0.astype(np.int64) * side + c0.astype(np.int64)
        taps = np.stack([i00, i00 + 1, i00 + side, i00 + side + 1], axis=1)  # (k, 4, n, P)
        dest = base + ((pr + pad) * side + pc + pad).astype(np.int64)
        for j in range(len(c)):
            t = np.take(flat, taps[j], axis=0)  # (4, n, P, 3)
            flat[dest[j]] = (t[0] * (1 - fc[j]) + t[1] * fc[j]) * (1 - fr[j]) + (
                t[2] * (1 - fc[j]) + t[3] * fc[j]
            ) * fr[j]
    return from_255(work[:, pad : pad + size, pad : pad + size])


def _luma(x):
    return (x * np.array([0.2126, 0.7152, 0.0722])).sum(axis=-1, keepdims=True)


def bleach_bypass(images, level, rng):
    """Film 'bleach bypass' look (overlay of the image with its luminance), mixed in with weight ``level/10``."""
    x = images.astype(np.float64)
    amount = magnitude(level, 1.0)
    luma = _luma(x) / 255
    lw = np.clip(10.0 * (luma - 0.45), 0, 1.0)
    low = 2 * x * luma / 255
    high = 1.0 - 2.0 * (1.0 - luma) * (1.0 - x / 255)
    out = ((1 - lw) * low + lw * high) * 255
    return from_255((1 - amount) * x + amount * out)


def technicolor(images, level, rng):
    """Two-strip 'technicolor' colour separation, mixed in with weight ``level/10``."""
    x = images.astype(np.float64)
    amount = magnitude(level, 1.0)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    red_m = 1.0 - (r - (g / 2 + b / 2)) / 255
    green_m = 1.0 - (g - (r / 2 + b / 2)) / 255
    blue_m = 1.0 - (b - (r / 2 + g / 2)) / 255
    new = np.stack([green_m * blue_m * r, red_m * blue_m * g, red_m * green_m * b], axis=-1)
    return from_255((1 - amount) * x + amount * new)


def pseudocolor(images, level, rng):
    """Map luminance through a random 5-colour palette (piecewise smooth/linear), weight ``level/20``."""
    n = images.shape[0]
    x = images.astype(np.float64)
    smooth = rng.uniform(0.25, 0.75, size=n)[:, None, None, None]
    colours = rng.integers(0, 255, size=(n, 5, 3)).transpose(1, 0, 2)[:, :, None, None, :].astype(np.float64)
    amount = magnitude(level, 0.5)
    luma = _luma(x) / 255

    def smoothstep(e0, e1, v):
        t = np.clip((np.clip(v, e0, e1) - e0) / (e1 - e0), 0, 1)
        return 3 * t**2 - 2 * t**3

    out = np.zeros_like(x)
    for k, (e0, e1) in enumerate(((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0))):
        c0, c1 = colours[k], colours[k + 1]
        smooth_c = c0 + (c1 - c0) * smoothstep(e0, e1, luma)
        a = 4.0 * (luma - e0)
        linear_c = (1 - a) * c0 + a * c1
        seg = (luma >= e0) & ((luma < e1) if k < 3 else True)
        out = np.where(seg, (1 - smooth) * linear_c + smooth * smooth_c, out)
    return from_255((1 - amount) * x + amount * out)


def hue_shift(images, level, rng):
    """Rotate the hue by ±``0.05·level`` turns (random sign)."""
    from skimage.color import hsv2rgb, rgb2hsv

    n = images.shape[0]
    amount = magnitude(level, 0.5) * rng.choice([-1.0, 1.0], size=n)
    hsv = rgb2hsv(images.astype(np.float64) / 255, channel_axis=-1)
    hsv[..., 0] = np.mod(hsv[..., 0] + np.mod(amount, 1.0)[:, None, None], 1.0)
    return from_255(hsv2rgb(hsv, channel_axis=-1) * 255)


def color_balance(images, level, rng):
    """PIL colour enhancement (saturation) by factor 1 ± ``level/10``."""
    x = images.astype(np.float64)
    n = x.shape[0]
    factor = 1.0 + rng.choice([-1.0, 1.0], size=n) * magnitude(level, 1.0)
    grey = (x[..., 0] * 299 + x[..., 1] * 587 + x[..., 2] * 114) / 1000  # PIL's "L" conversion
    out = grey[..., None] + factor[:, None, None, None] * (x - grey[..., None])
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def voronoi_noise(images, level, rng):
    """Add grey Voronoi-cell noise (smoothstep of the distance to hashed cell points), amplitude ±``25.5·level``."""
    n, size = images.shape[0], images.shape[1]
    time = rng.uniform(0, 10, size=n)[:, None, None]
    density = rng.uniform(0.5, 0.9, size=n)[:, None, None]
    cell = rng.uniform(0.05, 0.2, size=n)[:, None, None] * size
    sign = np.where(rng.uniform(size=n) > 0.5, -1.0, 1.0)
    rows, cols = pixel_grid(size)
    vx, vy = cols[None] / cell + 1, rows[None] / cell + 1
    gx, gy = np.floor(vx), np.floor(vy)
    fx, fy = vx - gx, vy - gy
    dist = np.ones_like(vx)
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            px, py = gx + i, gy + j
            # the release's cell hash: w = M @ (g + p), h = frac(sin(w)·sqrt(w)·time·0.0025)
            wx, wy = 13.85 * px + 47.77 * py, 99.41 * px + 88.48 * py
            hx = np.mod(np.sin(wx) * np.sqrt(wx) * time * 0.0025, 1)
            hy = np.mod(np.sin(wy) * np.sqrt(wy) * time * 0.0025, 1)
            dist = np.minimum(dist, np.hypot(i + hx - fx, j + hy - fy))
    t = np.clip(dist * density, 0, 1)
    noise = 3 * t**2 - 2 * t**3 - 0.5
    amplitude = sign * magnitude(level, 255.0)
    return from_255(images + amplitude[:, None, None, None] * noise[..., None])


def _perlin_turbulence(rng, n, size, scale, octaves=16.0):
    """The release's Perlin turbulence: Σ_f |noise(f·p)| / f over f = 1, 2, 4, … ≤ ``octaves``, p = (row, col)/scale.

    noise is Ken Perlin's 2D gradient noise as in the release's generator: per image a random permutation of
    256 lattice labels and 256 unit gradients (random integer vectors in [−256, 256)² normalised), label of
    lattice point (i, j) = perm[(perm[i mod 256] + j) mod 256], dot products of the gradients with the offsets
    to the four corners blended with the fade curve t²(3 − 2t), times 1.5. Returns (n, size, size), ≥ 0.
    A zero integer vector (chance 2⁻¹⁸ per gradient; NaN in the release) becomes the gradient (1, 0).
    """
    perm = np.argsort(rng.random((n, 256)), axis=1)
    grads = rng.integers(-256, 256, size=(n, 256, 2)).astype(np.float64)
    norm = np.hypot(grads[..., 0], grads[..., 1])
    grads = np.where(norm[..., None] > 0, grads / np.where(norm > 0, norm, 1.0)[..., None], np.array([1.0, 0.0]))
    rows, cols = pixel_grid(size)

    def label(i, j):  # (size, size) integer lattice coordinates → (n, size·size) gradient labels
        first = np.take_along_axis(perm, np.broadcast_to(np.mod(i, 256).ravel(), (n, i.size)), axis=1)
        return np.take_along_axis(perm, np.mod(first + j.ravel(), 256), axis=1)

    def corner(i, j, dx, dy):
        g = np.take_along_axis(grads, label(i, j)[..., None], axis=1)  # (n, P, 2)
        return (g[..., 0] * dx.ravel() + g[..., 1] * dy.ravel()).reshape(n, size, size)

    total = np.zeros((n, size, size))
    f = 1.0
    while f <= octaves:
        x, y = f * rows / scale, f * cols / scale
        ix, iy = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
        rx, ry = x - ix, y - iy
        sx, sy = rx**2 * (3 - 2 * rx), ry**2 * (3 - 2 * ry)
        a = corner(ix, iy, rx, ry) * (1 - sx) + corner(ix + 1, iy, rx - 1, ry) * sx
        b = corner(ix, iy + 1, rx, ry - 1) * (1 - sx) + corner(ix + 1, iy + 1, rx - 1, ry - 1) * sx
        total += np.abs(1.5 * (a + sy * (b - a))) / f
        f *= 2
    return total


def perlin_noise(images, level, rng):
    """Blend with grey Perlin turbulence (5 octaves, base period 32·size/224 px): out = (1 − a)·x + 255·a·f,
    f = clip(0.5·turbulence + 0.5, 0, 1) ∈ [0.5, 1], a = ``0.05·level``."""
    n, size = images.shape[0], images.shape[1]
    field = np.clip(0.5 * _perlin_turbulence(rng, n, size, 32 * size / 224) + 0.5, 0, 1)
    alpha = magnitude(level, 0.5)
    return from_255((1 - alpha) * images + 255 * alpha * field[..., None])


def _pil_warp_with_fill(images, method, params_per_image):
    """PIL bilinear warp per image; regions mapped from outside the source keep the original pixels
    (the release's "no bars" variants blend with a warped all-white mask)."""
    from PIL import Image

    n, size = images.shape[0], images.shape[1]
    out = np.empty(images.shape, dtype=np.float64)
    white = Image.fromarray(np.full((size, size, 3), 255, np.uint8))
    for i in range(n):  # PIL has no batch API
        data = tuple(float(v) for v in params_per_image[i])
        warped = np.asarray(
            Image.fromarray(images[i]).transform((size, size), method, data, resample=Image.BILINEAR), np.float64
        )
        mask = np.asarray(white.transform((size, size), method, data, resample=Image.BILINEAR), np.float64) / 255
        out[i] = mask * warped + (1 - mask) * images[i]
    return out.astype(np.uint8)


def quadrilateral_no_bars(images, level, rng):
    """Map a random quadrilateral (corners moved by up to ``level/10 · size/3`` px) onto the image square."""
    from PIL import Image

    n, size = images.shape[0], images.shape[1]
    corners = np.array([[0, 0], [0, size], [size, size], [size, 0]], dtype=np.float64)
    shift = magnitude(level, size / 3) * rng.uniform(-1, 1, size=(n, 4, 2))
    return _pil_warp_with_fill(images, Image.QUAD, (corners[None] + shift).reshape(n, 8))


def perspective_no_bars(images, level, rng):
    """Random projective warp: shear ±0.01·level, shift ±0.32·level px, scale 2^(±0.015·level),
    perspective terms 0.02·level/size (the release's parametrisation, random signs)."""
    from PIL import Image

    n, size = images.shape[0], images.shape[1]
    signs = np.where(rng.uniform(size=(n, 6)) > 0.5, -1.0, 1.0)
    off = magnitude(level, 0.1)
    shift = magnitude(level, size / 10)
    fac = magnitude(level, 0.15)
    den = magnitude(level, 0.2 / size)
    params = np.stack(
        [
            2 ** (fac * signs[:, 4]),
            off * signs[:, 0],
            shift * signs[:, 2],
            off * signs[:, 1],
            2 ** (fac * signs[:, 5]),
            shift * signs[:, 3],
            np.full(n, den),
            np.full(n, den),
        ],
        axis=1,
    )
    return _pil_warp_with_fill(images, Image.PERSPECTIVE, params)


def color_dither(images, level, rng):
    """Quantise each channel to ``14 − int(level)`` levels with error diffusion.

    The release's diffusion kernel (Floyd–Steinberg weights) addresses its neighbours within the current
    row only, so in effect the quantisation error of a pixel passes to its right neighbour with weight
    7/16 (rows > 0) and then 1/16 (rows < H − 1), each step clipped and truncated to 8 bits; rows are
    independent, which lets us process all rows of all images at once, column by column.
    """
    levels = 14 - int(magnitude(level, 10))
    colour_map = np.array([int(255 * i / (levels - 1)) for i in range(levels)], dtype=np.float64)
    div = np.array([int(levels * i / 256) for i in range(256)])
    h, w = images.shape[1], images.shape[2]
    work = images.astype(np.float64).copy()
    out = np.empty_like(work)
    rows = np.arange(h)
    for x in range(w):
        cur = work[:, :, x]
        new = colour_map[div[cur.astype(np.int64)]]
        out[:, :, x] = new
        if x + 1 < w:
            err = cur - new
            nxt = work[:, :, x + 1]
            nxt = np.where((rows > 0)[None, :, None], np.trunc(np.clip(nxt + err * 7 / 16, 0, 255)), nxt)
            nxt = np.where((rows < h - 1)[None, :, None], np.trunc(np.clip(nxt + err * 1 / 16, 0, 255)), nxt)
            work[:, :, x + 1] = nxt
    return out.astype(np.uint8)


CBAR_FUNCTIONS = {
    "blue_noise_sample": blue_noise_sample,
    "brownish_noise": brownish_noise,
    "checkerboard_cutout": checkerboard_cutout,
    "circular_motion_blur": circular_motion_blur,
    "inverse_sparkles": inverse_sparkles,
    "lines": lines,
    "pinch_and_twirl": pinch_and_twirl,
    "ripple": ripple,
    "sparkles": sparkles,
    "transverse_chromatic_abberation": transverse_chromatic_abberation,
}

CANDIDATE_FUNCTIONS = {
    **CBAR_FUNCTIONS,
    "single_frequency_greyscale": single_frequency_greyscale,
    "cocentric_sine_waves": cocentric_sine_waves,
    "blue_noise": blue_noise,
    "plasma_noise": plasma_noise,
    "caustic_noise": caustic_noise,
    "scatter": scatter,
    "chromatic_abberation": chromatic_abberation,
    "water_drop": water_drop,
    "bleach_bypass": bleach_bypass,
    "technicolor": technicolor,
    "pseudocolor": pseudocolor,
    "hue_shift": hue_shift,
    "color_balance": color_balance,
    "voronoi_noise": voronoi_noise,
    "quadrilateral_no_bars": quadrilateral_no_bars,
    "perspective_no_bars": perspective_no_bars,
    "color_dither": color_dither,
    "caustic_refraction": caustic_refraction,
    "fish_eye": fish_eye,
    "perlin_noise": perlin_noise,
}
CANDIDATE_CORRUPTIONS: tuple[str, ...] = tuple(sorted(CANDIDATE_FUNCTIONS))
assert set(CANDIDATE_CORRUPTIONS) <= set(SCAN_RANGES), set(CANDIDATE_CORRUPTIONS) - set(SCAN_RANGES)
