"""Shared machinery of the corruption transforms: input checks, uint8 conversion, per-image seeding and
the small image-processing primitives (bilinear sampling, line kernels, cached linear operators) that
several corruptions build on. Everything works on uint8/float batches in NHWC layout."""

from __future__ import annotations

import functools
from collections.abc import Callable
from numbers import Integral

import numpy as np

from robeval.core.seeding import as_seed_sequence, generator_or_guard, key_of
from robeval.core.validation import check_images as _check_images

IMAGE_SIZE = 32  # CIFAR-10 side length; the CIFAR parameters of both benchmarks assume it


# --------------------------------------------------------------------------- input handling


def check_images(images, *, name: str = "images") -> np.ndarray:
    """Validate a uint8 NHWC batch of 32x32 RGB images (N, 32, 32, 3), pixel values 0-255; a single image
    (32, 32, 3) must be wrapped as ``images[None]``.

    Only CIFAR-sized images are accepted: every parameter (noise levels, kernel radii, crop sizes, lens
    counts) is the CIFAR-10-C / CIFAR-10-C-bar one and would be applied silently, with a different meaning,
    to larger images (and some operators grow as (H·W)²).
    """
    arr = _check_images(images, name=name, channels=(3,), square=True)
    if arr.shape[1:3] != (IMAGE_SIZE, IMAGE_SIZE):
        h, w = arr.shape[1:3]
        raise ValueError(
            f"{name} are {h}x{w}, but these corruptions use the CIFAR-10-C / CIFAR-10-C-bar parameters, which "
            f"are defined for {IMAGE_SIZE}x{IMAGE_SIZE} images; resize the batch to {IMAGE_SIZE}x{IMAGE_SIZE} "
            "first (e.g. PIL Image.resize((32, 32), Image.BILINEAR) per image). ImageNet-C / ImageNet-C-bar "
            "parameters (224x224) are not implemented."
        )
    return arr


def check_idx(idx, n: int) -> np.ndarray:
    """Per-image stream keys: ``None`` → ``arange(n)``; else n distinct non-negative integers (below 2**32), not a
    numpy masked array (TypeError naming ``idx``: its masked keys would be read like any other)."""
    from robeval.core.frames import check_unmasked

    if idx is None:
        return np.arange(n, dtype=np.int64)
    check_unmasked(idx, "idx")
    whole = lambda v: isinstance(v, Integral) and not isinstance(v, (bool, np.bool_))
    # a list of Python ints stays ints (numpy reads [2**63, 1] as float64 and 10**30 as an object)
    arr = np.asarray(idx, dtype=object) if isinstance(idx, (list, tuple)) and all(map(whole, idx)) else np.asarray(idx)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        if not (arr.dtype.kind == "O" and all(whole(v) for v in arr.flat)):
            raise TypeError(f"idx must hold integers (one stream key per image), got dtype {arr.dtype}.")
    if arr.dtype.kind in "Ou" and arr.size:  # the range before the cast, which would wrap them
        flat = arr.ravel().tolist() if arr.dtype.kind == "O" else (arr.min(), arr.max())
        lo, hi = min(int(v) for v in flat), max(int(v) for v in flat)
        if lo < 0 or hi >= 2**32:
            raise ValueError(f"idx must lie in 0 .. 2**32 - 1, got values in {lo} .. {hi}.")
    arr = arr.astype(np.int64)
    if arr.shape != (n,):
        raise ValueError(
            f"idx must have shape ({n},), one key per image (e.g. the images' positions in the dataset), "
            f"got shape {arr.shape}."
        )
    if n and (arr.min() < 0 or arr.max() >= 2**32):
        raise ValueError(f"idx must lie in 0 .. 2**32 - 1, got values in {arr.min()} .. {arr.max()}.")
    values, counts = np.unique(arr, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(
            f"idx lists the key {int(values[counts > 1][0])} more than once; give each image its own key (equal keys "
            "share a random stream: those images would get the same noise)."
        )
    return arr


def check_severity(severity) -> int:
    """Severity must be an integer 1..5 (the benchmark levels)."""
    if isinstance(severity, (bool, np.bool_)) or not isinstance(severity, (int, np.integer)):
        raise ValueError(
            f"severity must be an integer in 1..5, got {severity!r}; for a continuous magnitude use "
            "corrupt_with_param(images, name, param)."
        )
    if not 1 <= int(severity) <= 5:
        raise ValueError(f"severity must lie in 1..5, got {severity}.")
    return int(severity)


def to_unit(images: np.ndarray) -> np.ndarray:
    """uint8 0..255 → float64 0..1."""
    return images.astype(np.float64) / 255.0


def from_unit(x: np.ndarray) -> np.ndarray:
    """float in [0, 1] → uint8, clipping and truncating as the reference generators do (np.uint8 of x*255)."""
    return np.clip(x * 255.0, 0, 255).astype(np.uint8)


def from_255(x: np.ndarray) -> np.ndarray:
    """float in [0, 255] → uint8 by clipping and truncation (the C-bar code's ``clip(...).astype(uint8)``)."""
    return np.clip(x, 0, 255).astype(np.uint8)


def magnitude(level: float, maxval: float) -> float:
    """The C-bar transforms' linear magnitude map: level in [0, 10] → level * maxval / 10."""
    return float(level) * maxval / 10.0


# --------------------------------------------------------------------------- per-image random streams


def root_seed(seed) -> np.random.SeedSequence:
    """The SeedSequence that per-image streams are keyed from: an int or a SeedSequence as it is (checked by
    :func:`robeval.core.seeding.as_seed_sequence`); a Generator is turned into a root with one draw (so a
    caller may pass one shared Generator, which then advances by one draw per call)."""
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**32, size=4, dtype=np.uint64).tolist())
    return as_seed_sequence(seed)


class SeedRequired(ValueError):
    """Raised by :class:`ImageRNG` on the first draw when no seed was given: the corruption draws random numbers."""


class ImageRNG:
    """One independent random stream per image of a batch, with the Generator methods the corruptions use.

    Image ``i`` draws from ``numpy.random.default_rng(robeval.core.seeding.keyed(seed, idx[i]))``. Every
    method takes a ``size`` whose first axis is the batch (``size=(n, ...)``, or ``size=n`` for one value per
    image) and returns the per-image draws stacked along it. A corruption that draws only through this
    object therefore gives image ``i`` the same result whatever else is in the batch: ``corrupt`` on 8 images
    equals ``corrupt`` on images 0-3 and 4-7 with ``idx=[0..3]`` and ``idx=[4..7]``.

    ``seed=None`` is allowed until the first draw, which then raises (deterministic corruptions need no seed;
    random ones never fall back to OS entropy). Streams are created on the first draw only.
    """

    def __init__(self, seed, n: int, idx=None, *, what: str = "this corruption"):
        self.n = int(n)
        self.idx = check_idx(idx, self.n)
        self._what = what
        if seed is not None and not isinstance(seed, np.random.Generator):
            seed = as_seed_sequence(seed)  # validate now (TypeError / ValueError), not at the first draw
        self._seed = seed
        self._generators: list[np.random.Generator] | None = None

    @property
    def generators(self) -> list[np.random.Generator]:
        """The per-image Generators (created on first use)."""
        if self._generators is None:
            if self._seed is None:
                try:
                    generator_or_guard(None, self._what).integers(0)  # raises: this corruption needs a seed
                except ValueError as exc:  # the same words, as the type callers tell from a parameter's refusal
                    raise SeedRequired(str(exc)) from None
            root = root_seed(self._seed)
            entropy = list(root.entropy) if isinstance(root.entropy, (list, tuple)) else [root.entropy]
            # = seeding.keyed(root, i) for every image, without re-validating the root each time
            self._generators = [
                np.random.default_rng(np.random.SeedSequence(entropy + [key_of(int(i))], spawn_key=root.spawn_key))
                for i in self.idx
            ]
        return self._generators

    def _rest(self, size) -> tuple[int, ...]:
        size = (size,) if isinstance(size, Integral) else tuple(size) if size is not None else ()
        if not size or size[0] != self.n:
            raise ValueError(f"per-image draws need size=(n, ...) with the batch first (n={self.n}), got {size}.")
        return tuple(int(v) for v in size[1:])

    def _stack(self, draw, size) -> np.ndarray:
        rest = self._rest(size)
        return np.stack([np.asarray(draw(g, rest)) for g in self.generators])

    def _fill(self, size, method: str) -> np.ndarray:
        # float64 draws written straight into one (n, k) buffer, image by image (no per-image arrays to stack)
        rest = self._rest(size)
        out = np.empty((self.n, int(np.prod(rest, dtype=np.int64))))
        for g, row in zip(self.generators, out):
            getattr(g, method)(out=row)
        return out.reshape((self.n,) + rest)

    def uniform(self, low=0.0, high=1.0, size=None) -> np.ndarray:
        # numpy's uniform is low + (high - low) · random(), evaluated the same way here
        return low + (high - low) * self._fill(size, "random")

    def normal(self, loc=0.0, scale=1.0, size=None) -> np.ndarray:
        # numpy's normal is loc + scale · standard_normal(), evaluated the same way here
        return loc + scale * self._fill(size, "standard_normal")

    def standard_normal(self, size=None) -> np.ndarray:
        return self._fill(size, "standard_normal")

    def random(self, size=None) -> np.ndarray:
        return self._fill(size, "random")

    def integers(self, low, high=None, size=None, endpoint: bool = False) -> np.ndarray:
        return self._stack(lambda g, r: g.integers(low, high, r, endpoint=endpoint), size)

    def choice(self, a, size=None, replace: bool = True, p=None) -> np.ndarray:
        return self._stack(lambda g, r: g.choice(a, r, replace=replace, p=p), size)

    def poisson(self, lam) -> np.ndarray:
        """Poisson counts with a per-image mean: ``lam`` has the batch first, (n, ...)."""
        lam = np.asarray(lam)
        self._rest(lam.shape)
        return np.stack([g.poisson(lam[i]) for i, g in enumerate(self.generators)])

    def each(self, draw: Callable[[np.random.Generator], object]) -> list:
        """``[draw(generator_i) for each image]``, for draws whose shape or bounds differ between images."""
        return [draw(g) for g in self.generators]

    def __repr__(self) -> str:
        return f"ImageRNG(n={self.n}, idx={self.idx[:4].tolist()}{'...' if self.n > 4 else ''})"


# --------------------------------------------------------------------------- sampling primitives


def bilinear_sample(images: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, fill: float = 0.0) -> np.ndarray:
    """Bilinear interpolation of every image at its own sampling grid; neighbours outside the image count as ``fill``.

    Parameters
    ----------
    images : float array (N, H, W, C)
    rows, cols : float arrays (N, H', W') — source coordinates (pixel centres at integers)

    Returns
    -------
    float array (N, H', W', C)
    """
    h, w = images.shape[1:3]

    def tap(batch, r, c):
        inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
        vals = images[batch, np.clip(r, 0, h - 1), np.clip(c, 0, w - 1)]
        return np.where(inside[..., None], vals, fill)

    return _bilinear(images, rows, cols, tap)


def _bilinear(images: np.ndarray, rows: np.ndarray, cols: np.ndarray, tap) -> np.ndarray:
    # shared interpolation; ``tap(batch, r, c)`` reads integer neighbours and decides the border rule
    n = images.shape[0]
    r0 = np.floor(rows).astype(np.int64)
    c0 = np.floor(cols).astype(np.int64)
    fr = (rows - r0)[..., None]
    fc = (cols - c0)[..., None]
    batch = np.arange(n).reshape((n,) + (1,) * (rows.ndim - 1))
    top = tap(batch, r0, c0) * (1 - fc) + tap(batch, r0, c0 + 1) * fc
    bottom = tap(batch, r0 + 1, c0) * (1 - fc) + tap(batch, r0 + 1, c0 + 1) * fc
    return top * (1 - fr) + bottom * fr


def reflect101(idx: np.ndarray, n: int) -> np.ndarray:
    """Reflect integer indices into 0..n-1 without repeating the edge pixel (OpenCV BORDER_REFLECT_101)."""
    if n == 1:
        return np.zeros_like(idx)
    period = 2 * (n - 1)
    idx = np.abs(idx) % period
    return np.where(idx >= n, period - idx, idx)


def bilinear_sample_reflect101(images: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Bilinear interpolation with reflect-101 borders (as cv2.warpAffine with BORDER_REFLECT_101)."""
    h, w = images.shape[1:3]
    return _bilinear(images, rows, cols, lambda batch, r, c: images[batch, reflect101(r, h), reflect101(c, w)])


def pixel_grid(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column index grids (size, size) as float64."""
    rows, cols = np.meshgrid(np.arange(size, dtype=np.float64), np.arange(size, dtype=np.float64), indexing="ij")
    return rows, cols


def motion_blur_kernel(radius: float, sigma: float) -> np.ndarray:
    """Weights of ImageMagick's ``MotionBlurImage`` line kernel.

    The kernel has ``2*floor(radius)+1`` taps at distances i = 0, 1, … along the blur direction with
    one-sided Gaussian weights exp(-i²/2σ²), normalised to sum 1: the image is smeared *behind* each
    pixel, which is what gives Wand's motion blur its streaks.
    """
    width = 2 * int(np.floor(radius)) + 1 if radius > 0 else 1
    i = np.arange(width, dtype=np.float64)
    weights = np.exp(-(i**2) / (2.0 * sigma**2))
    return weights / weights.sum()


def motion_blur(images: np.ndarray, radius: float, sigma: float, angles_deg: np.ndarray) -> np.ndarray:
    """Motion blur of each image along its own angle (degrees), with edge-clamped borders.

    Parameters
    ----------
    images : float array (N, H, W, C)
    angles_deg : float array (N,)

    Returns
    -------
    float array (N, H, W, C): output pixel (y, x) = Σ_i k_i · image[y + round(i sin θ), x + round(i cos θ)].
    """
    n, h, w, _ = images.shape
    weights = motion_blur_kernel(radius, sigma)
    theta = np.deg2rad(np.asarray(angles_deg, dtype=np.float64))
    rows, cols = pixel_grid(h)
    batch = np.arange(n)[:, None, None]
    out = np.zeros_like(images, dtype=np.float64)
    for i, k in enumerate(weights):
        # ImageMagick rounds each tap offset to the nearest pixel (ceil(v - 0.5)).
        dy = np.ceil(i * np.sin(theta) - 0.5).astype(np.int64)[:, None, None]
        dx = np.ceil(i * np.cos(theta) - 0.5).astype(np.int64)[:, None, None]
        r = np.clip(rows.astype(np.int64)[None] + dy, 0, h - 1)
        c = np.clip(cols.astype(np.int64)[None] + dx, 0, w - 1)
        out += k * images[batch, r, c]
    return out


def clipped_zoom(images: np.ndarray, factor: float) -> np.ndarray:
    """Zoom into the centre of each image by ``factor`` ≥ 1 (bilinear, as scipy.ndimage.zoom) and crop back to size.

    images : float array (N, H, W, C) → same shape.
    """
    h = images.shape[1]
    ch = int(np.ceil(h / factor))
    top = (h - ch) // 2
    z = zoom_matrix(ch, float(factor), 1, True)
    trim = (z.shape[0] - h) // 2
    z = z[trim : trim + h]
    return apply_separable(images[:, top : top + ch, top : top + ch], z)


@functools.lru_cache(maxsize=256)
def zoom_matrix(n_in: int, factor: float, order: int = 1, prefilter: bool = True) -> np.ndarray:
    """The 1D ``scipy.ndimage.zoom`` of length ``n_in`` by ``factor`` as a matrix (n_out, n_in).

    scipy's zoom of a plane is the tensor product of two such 1D maps (the sampling grid is separable and
    stays inside the input), so a batch is zoomed with two small matrix products instead of a 4D spline.
    """
    from scipy.ndimage import zoom

    cols = [zoom(e, factor, order=order, prefilter=prefilter, mode="constant") for e in np.eye(n_in)]
    return np.stack(cols, axis=1)


def apply_separable(images: np.ndarray, rows_op: np.ndarray, cols_op: np.ndarray | None = None) -> np.ndarray:
    """out[n, i, j, c] = Σ_kl R[i, k] C[j, l] x[n, k, l, c] for float images (N, H, W, C)."""
    cols_op = rows_op if cols_op is None else cols_op
    n, k, l, c = images.shape
    tmp = np.matmul(rows_op, images.reshape(n, k, l * c)).reshape(n, -1, l, c)  # (n, i, l, c)
    out = np.matmul(tmp.transpose(0, 1, 3, 2), cols_op.T)  # (n, i, c, j)
    return out.transpose(0, 1, 3, 2)


def apply_plane_matrix(images: np.ndarray, op) -> np.ndarray:
    """Apply one linear map of flattened planes (H·W × H·W, dense or scipy.sparse) to every channel of
    every image. images float (N, H, W, C) → float (N, H, W, C)."""
    n, h, w, c = images.shape
    planes = images.transpose(0, 3, 1, 2).reshape(n * c, h * w)
    out = (op @ planes.T).T
    return np.asarray(out).reshape(n, c, h, w).transpose(0, 2, 3, 1)


def _cubic_bspline(t: np.ndarray) -> np.ndarray:
    t = np.abs(t)
    return np.where(t < 1, 2 / 3 - t**2 + t**3 / 2, np.where(t < 2, (2 - t) ** 3 / 6, 0.0))


@functools.lru_cache(maxsize=8)
def _spline_prefilter_1d(n: int) -> np.ndarray:
    from scipy.ndimage import spline_filter1d

    return spline_filter1d(np.eye(n), order=3, axis=0, mode="mirror")


def rotation_matrix(size: int, angles_deg, weights=None):
    """``Σ_t w_t · scipy.ndimage.rotate(·, angle_t, reshape=False, order=3, mode='constant')`` as a sparse
    (size², size²) matrix on flattened planes.

    scipy's rotation = cubic B-spline prefilter (mirror boundary) followed by 16-tap B-spline evaluation at
    the rotated source coordinate (taps mirrored at the border, zero for sources outside the image). We
    assemble exactly that operator (tested equal to scipy to 1e-12), prune entries below 1e-9, and reuse
    it for the whole batch.
    """
    from scipy import sparse

    angles = np.atleast_1d(np.asarray(angles_deg, dtype=np.float64))
    weights = np.ones_like(angles) if weights is None else np.asarray(weights, dtype=np.float64)
    n = size
    centre = (n - 1) / 2
    r, q = np.meshgrid(np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64), indexing="ij")
    dr, dq = (r - centre).ravel(), (q - centre).ravel()
    out_idx = np.arange(n * n)
    blocks = []
    for angle, wt in zip(angles, weights):
        a = np.deg2rad(angle)
        sr = np.cos(a) * dr + np.sin(a) * dq + centre
        sq = -np.sin(a) * dr + np.cos(a) * dq + centre
        inside = (sr >= 0) & (sr <= n - 1) & (sq >= 0) & (sq <= n - 1)
        r0, q0 = np.floor(sr).astype(np.int64), np.floor(sq).astype(np.int64)
        for i in range(-1, 3):
            for j in range(-1, 3):
                kr, kq = r0 + i, q0 + j
                val = wt * _cubic_bspline(sr - kr) * _cubic_bspline(sq - kq) * inside
                blocks.append((out_idx, reflect101(kr, n) * n + reflect101(kq, n), val))
    rows = np.concatenate([b[0] for b in blocks])
    cols = np.concatenate([b[1] for b in blocks])
    vals = np.concatenate([b[2] for b in blocks])
    interp = sparse.csr_matrix((vals, (rows, cols)), shape=(n * n, n * n))
    p1 = _spline_prefilter_1d(n)
    dense = interp @ np.kron(p1, p1)
    dense[np.abs(dense) < 1e-9] = 0.0
    return sparse.csr_matrix(dense)


def fourier_noise(rng, shape: tuple[int, ...], size: int, power: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Coloured noise of unit standard deviation with amplitude spectrum ``power(|k|)``.

    ``rng`` is an :class:`ImageRNG` (``shape`` starts with the batch axis) or a numpy Generator.

    Random phases on a centred frequency grid (mirrored to be nearly Hermitian as in the C-bar release),
    amplitude = ``power`` of the distance from the grid centre, inverse FFT, real part, standardised per
    noise field.

    Returns float array ``shape + (size, size)``.
    """
    rows, cols = pixel_grid(size)
    radius = np.hypot(rows - size / 2, cols - size / 2)
    amplitude = power(radius)
    half = rng.uniform(0.0, 2 * np.pi, size=shape + (size, size // 2))
    phases = np.concatenate([half, half[..., ::-1, ::-1]], axis=-1)
    spectrum = amplitude * np.exp(1j * phases)
    spectrum = np.roll(spectrum, (size // 2, size // 2), axis=(-2, -1))
    noise = np.real(np.fft.ifft2(spectrum, axes=(-2, -1)))
    return noise / noise.std(axis=(-2, -1), keepdims=True)
