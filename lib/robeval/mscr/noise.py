"""Uniform noise in L_p balls (MSCR paper, Sec. 3.1 and Algorithm 1, step 6).

``sample_uniform_ball`` returns exactly ``k`` points drawn uniformly from the ball
``{x' : ||x' - x||_p <= eps}`` around every point ``x``, in any dimension:

* L_inf: every coordinate uniform on ``[-eps, eps]`` (the ball is a cube).
* L2: a standard Gaussian vector normalised to the unit sphere (rotation invariance makes the direction
  uniform) times the radius ``eps * U**(1/d)`` (the volume of the radius-r ball grows as r**d, so
  P(R <= r) = (r / eps)**d).
* L1: ``(E_1, ..., E_d) / (E_1 + ... + E_{d+1})`` with i.i.d. Exp(1) variables is uniform on the simplex
  ``{x >= 0, sum x <= 1}`` (a Dirichlet(1, ..., 1) vector without its last coordinate); independent
  random signs spread it uniformly over the 2**d orthants of the cross-polytope.

(The authors' L2 sampler drew k points in the cube and discarded those outside the ball, so it returned
fewer than k points, none at all for k = 1 with some probability; the sampler here always returns k.)

Offsets depend only on the unit ball, so ``eps * unit_ball_offsets(...)`` is the noise for every eps:
this is what makes the reference code's reuse of random numbers across noise levels reproducible here
(``noise_mode="shared_offsets"`` in :mod:`robeval.mscr`).
"""

from __future__ import annotations

import math

import numpy as np

from robeval.core.budgets import check_allocation
from robeval.core.seeding import as_generator
from robeval.core.validation import as_float_points, check_eps, check_float_dtype, check_float_range, check_numbers
from robeval.mscr.separation import check_norm

__all__ = ["unit_ball_offsets", "sample_offsets", "sample_uniform_ball", "radial_cdf"]


def _check_count(name, value, minimum=1):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_clip(clip) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in clip)
    except (TypeError, ValueError):
        raise TypeError(f"clip must be a pair (lo, hi) of numbers, got {clip!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
        raise ValueError(f"clip must be a box (lo, hi) with finite lo < hi, got {clip!r}; e.g. clip=(0, 1) for images.")
    return lo, hi


def _check_inside_clip(X: np.ndarray, box: tuple[float, float]) -> None:
    """ValueError naming the first entry of the centres ``X`` outside the clip box: clipping would move every
    sample of that point onto the box's face, far from it (a feature not normalised, a box of other units)."""
    for side, bound, out in (("below clip's lo", box[0], X < box[0]), ("above clip's hi", box[1], X > box[1])):
        if np.any(out):
            at = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(out)[0]), X.shape))
            raise ValueError(
                f"X[{', '.join(map(str, at))}] = {float(X[at])!r} lies {side} = {bound!r}: every centre must lie within clip (clipping "
                "would move its samples onto the box's face, far from the point). Scale the features into the box "
                "(e.g. images to [0, 1]) or pass clip=None."
            )


def unit_ball_offsets(n: int, k: int, d: int, norm, rng: np.random.Generator, dtype=np.float64) -> np.ndarray:
    """Offsets uniformly distributed in the unit L_p ball (or standard Gaussian for ``norm="gaussian"``).

    Parameters
    ----------
    n, k, d : int
        Number of points, samples per point, dimension.
    norm : {np.inf, 2, 1, "gaussian"}
        Ball geometry; ``"gaussian"`` gives i.i.d. N(0, 1) coordinates (then ``eps`` is the std).
    rng : numpy.random.Generator
    dtype : numpy dtype of the result (float64 or float32).

    Returns
    -------
    numpy.ndarray, shape (n, k, d)
    """
    n = _check_count("n", n)
    k = _check_count("k", k)
    d = _check_count("d", d)
    rng = as_generator(rng, "rng")
    dtype = check_float_dtype(dtype)
    shape = (n, k, d)
    check_allocation(
        shape, 8, what="points n x samples k x dimension d",
        fix="draw the noise for fewer points at a time (e.g. X[i : i + m]) or fewer samples k.",
    )  # fmt: skip
    if isinstance(norm, str) and norm.lower() == "gaussian":
        return rng.standard_normal(shape, dtype=dtype)
    p = check_norm(norm)
    if p == math.inf:
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype, copy=False)
    if p == 2.0:
        g = rng.standard_normal(shape)
        g /= np.linalg.norm(g, axis=-1, keepdims=True)
        radius = rng.random((n, k, 1)) ** (1.0 / d)
        return (g * radius).astype(dtype, copy=False)
    # p == 1: Dirichlet construction plus random signs
    e = rng.standard_exponential((n, k, d + 1))
    simplex = e[..., :d] / e.sum(-1, keepdims=True)
    signs = rng.integers(0, 2, size=shape, dtype=np.int8) * 2 - 1
    return (simplex * signs).astype(dtype, copy=False)


def sample_offsets(n: int, k: int, d: int, eps: float, norm, rng: np.random.Generator, dtype=np.float64):
    """``eps * unit_ball_offsets(n, k, d, norm, rng)``: uniform offsets in the radius-``eps`` ball.

    Returns
    -------
    numpy.ndarray, shape (n, k, d), in the units of ``eps``.
    """
    eps = check_eps(eps)
    dt = check_float_dtype(dtype)
    _check_eps_fits(eps, dt)
    offsets = unit_ball_offsets(n, k, d, norm, rng, dtype=dt)
    with np.errstate(over="ignore"):  # an overflow is refused below, by name
        out = eps * offsets
    if eps > float(np.finfo(dt).max) / 64 and not np.all(np.isfinite(out)):  # only a Gaussian's tail can get this far
        raise ValueError(
            f"eps = {eps!r} times the noise overflows {dt} (Gaussian draws beyond {float(np.finfo(dt).max) / eps:.3g} "
            "become inf); pass a smaller eps (rescale the data)"
            + (" or dtype=np.float64." if dt == np.float32 else ".")
        )
    return out


def _check_eps_fits(eps: float, dt: np.dtype) -> None:
    """ValueError naming ``eps`` and ``dt`` where ``dt`` cannot hold the noise: ``eps`` beyond its largest number
    (every offset inf), or below its smallest normal number (the offsets round to 0 or to a few bits: no noise)."""
    info = np.finfo(dt)
    if eps > float(info.max):
        raise ValueError(
            f"eps = {eps!r} is beyond {dt}'s largest number ({float(info.max):.4g}): every offset would be inf; "
            + ("pass dtype=np.float64 or rescale" if dt == np.float32 else "rescale")
            + " the data so that eps fits."
        )
    if 0 < eps < float(info.tiny):
        raise ValueError(
            f"eps = {eps!r} is below {dt}'s smallest normal number ({float(info.tiny):.4g}): the offsets would round "
            f"to 0 (no noise at all) or to a few bits; pass {'dtype=np.float64, ' if dt == np.float32 else ''}a "
            "larger eps (rescale the data) or eps=0 for no noise."
        )


def sample_uniform_ball(X, eps: float, k: int, norm, rng: np.random.Generator, *, clip=None, dtype=None):
    """Draw ``k`` points uniformly in the L_p ball of radius ``eps`` around every row of ``X``.

    Parameters
    ----------
    X : array_like, shape (n, d) or (n, *shape)
        Centres (finite numbers); images keep their shape. Integer input is converted explicitly: with a ``clip``
        box inside [0, 1], integer pixels 0..255 are divided by 255 (other integers are refused); otherwise the
        integers are taken as floats in their own units. Text and NaN are refused, naming the row; a numpy
        masked array too (TypeError: its masked rows would get noise like any other).
    eps : float >= 0
        Ball radius in the units of ``X`` (std for ``norm="gaussian"``). ``eps = 0`` returns k copies.
    k : int >= 1
        Samples per point.
    norm : {np.inf, 2, 1, "gaussian"}
    rng : numpy.random.Generator
        The only source of randomness: equal seeds give equal samples.
    clip : tuple (lo, hi), optional
        Clip the noisy points to a box (e.g. (0, 1) for images). Clipping moves mass to the box faces;
        leave it None for the exact ball distribution. Every centre must lie in the box, else ValueError naming
        the first entry outside it (``X[1, 0] = 3.0 lies above clip's hi = 1.0``).
    dtype : numpy floating dtype, optional
        Output dtype; default float64 (float32 if X is float32). An integer dtype is refused: the offsets would
        be truncated to 0.

    Returns
    -------
    numpy.ndarray, shape (n, k, d) or (n, k, *shape)
        ``out[i, j] = X[i] + offset_ij`` with ``||offset_ij||_p <= eps``.
    """
    eps = check_eps(eps)
    k = _check_count("k", k)
    box = None if clip is None else _check_clip(clip)
    # one input contract (robeval.core.validation.as_float_points): noise is drawn and added in floating point
    # whatever X's dtype; integer pixels are divided by 255 where the clip box says the data live in [0, 1]
    unit = box is not None and box[0] >= 0 and box[1] <= 1
    X = as_float_points(X, name="X", unit_interval=unit, dtype=dtype)
    dtype = X.dtype
    n, shape = X.shape[0], X.shape[1:]
    d = int(np.prod(shape))
    if box is not None:
        _check_inside_clip(X, box)
    flat = X.reshape(n, 1, d).astype(dtype, copy=False)
    offsets = sample_offsets(n, k, d, eps, norm, rng, dtype=dtype)
    with np.errstate(over="ignore"):  # an overflow is refused below, by name
        out = flat + offsets
    big = float(np.finfo(dtype).max) / 4  # a centre this large (or such an eps) can overflow when the noise is added
    if (eps > big or (flat.size and max(-float(flat.min()), float(flat.max())) > big)) and not np.all(np.isfinite(out)):
        raise ValueError(
            f"X plus noise of radius eps = {eps!r} overflows {dtype} (a centre of magnitude up to "
            f"{max(-float(flat.min()), float(flat.max())):.4g}); rescale X and eps"
            + (", or pass dtype=np.float64." if dtype == np.float32 else ".")
        )
    if box is not None:
        np.clip(out, *box, out=out)
    return out.reshape((n, k) + shape)


def radial_cdf(r, d: int, norm=2, eps: float = 1.0):
    """CDF of ``||offset||_p / eps`` for uniform offsets in the ``eps``-ball: ``(r / eps)**d`` on [0, eps].

    Valid for every L_p ball (the ball is star-shaped and its volume scales as radius**d). Used by the KS
    tests of the sampler. ``r`` must hold real numbers: text (which ``float()`` would parse), booleans, complex
    numbers and numpy masked arrays (their masked radii would be read) are refused with TypeError; an ``eps`` beyond
    float range (a Python int such as 10**400) with :class:`~robeval.core.errors.FloatRangeError` naming it.
    """
    d = _check_count("d", d)
    check_norm(norm)
    check_float_range(eps, "eps")  # named with float's bound, not read as inf
    eps = check_eps(eps)
    if eps == 0:
        raise ValueError("eps must be > 0 for a radial CDF")
    try:
        r = check_numbers(r, "r", example="[0.25, 0.5] (radii)")
    except ValueError:  # rows of different lengths
        raise TypeError(f"r must hold numbers (radii), got {r!r:.60}.") from None
    if np.any(np.isnan(r)):
        raise ValueError("r contains NaN; pass radii (numbers >= 0, inf allowed).")
    r = np.clip(r / eps, 0.0, 1.0)
    return r**d
