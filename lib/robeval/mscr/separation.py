"""Class separation distances (Yang et al. 2020, "r-separation"; MSCR paper, Sec. 3 and Table 1).

For a labelled point set the *minimal class separation* ``2r`` is the smallest distance between two
points of different classes; the MSCR paper sets ``eps_min = r = 2r / 2`` (Algorithm 1, step 1).

Both functions here are **exact** (no approximate nearest neighbours) for the L_inf, L2 and L1 norms:

* In low dimension (``d <= 64``) every query chunk is compared with every point (brute force); up to
  :data:`KDTREE_MAX_DIM` dimensions on the CPU a k-d tree per class proposes each point's :data:`KDTREE_K`
  nearest other-class points first and only those are measured, by the same ``torch.cdist`` as the brute
  force (so the distances are bit-identical to it: tests/mscr/test_separation.py); a point whose proposals are
  all tied to 1e-9 falls back to the brute force. The 48,572 points of the MSCR sheet C: 0.2 s instead of 20 s.
* In high dimension (flattened images) the search is *branch and bound* over coordinates. Any subset of
  coordinates gives a lower bound on the L_inf and the L1 distance (partial max / partial sum), and the
  Gram identity gives the L2 distance up to a rigorously bounded rounding error. For every query point an
  upper bound ``U_i`` is the exact distance to a few promising candidates; only pairs whose lower bound
  is below ``U_i`` are refined, block of coordinates by block, and pruned as soon as their partial
  distance reaches ``U_i``. The survivors give the exact minimum. L_inf on 5000 CIFAR-10 images (3072
  dimensions): ~3 s on two idle CPU cores, about a third of the brute-force time even on a heavily loaded
  machine (``benchmarks/bench_mscr.py``). L1 uses a pyramid of group sums as lower bounds instead.

Duplicated points are handled by the labels, not by indices: a duplicate of the same class never counts,
a duplicate of another class gives distance 0 (and then ``eps_min = 0``: no noise level is admissible).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from robeval.core.env import usable_device
from robeval.core.frames import check_same_index, check_unmasked
from robeval.core.validation import (
    as_float_points,
    check_exact_integers,
    check_keywords,
    check_labels,
    check_no_bools,
    check_positive,
    check_X_y,
    to_numpy,
)

__all__ = [
    "NORMS",
    "check_norm",
    "nearest_other_class_distance",
    "min_class_separation",
    "eps_min",
]

NORMS = (np.inf, 2, 1)
KDTREE_MAX_DIM = 8  # low-dimensional data on the CPU: k-d tree proposals, exact distances (see the module text)
KDTREE_K = 8  # other-class candidates proposed per point
_TIE_RTOL = 1e-9  # proposals tied to this relative tolerance could hide a nearer point: brute force for that point


def check_norm(norm) -> float:
    """Return ``norm`` as a float in {inf, 2.0, 1.0}; raise ValueError otherwise (TypeError for a bool).

    Accepts ``np.inf``, ``"inf"``, ``"linf"``, ``2``, ``"l2"``, ``1``, ``"l1"``.
    """
    if isinstance(norm, (bool, np.bool_)):  # float(True) == 1.0 would silently mean the L1 norm
        raise TypeError(f"norm must be np.inf, 2 or 1 (or 'linf', 'l2', 'l1'), not {norm!r}.")
    aliases = {"inf": math.inf, "linf": math.inf, "l_inf": math.inf, "l2": 2.0, "l1": 1.0, "2": 2.0, "1": 1.0}
    if isinstance(norm, str):
        key = norm.strip().lower()
        if key not in aliases:
            raise ValueError(f"unknown norm {norm!r}; use np.inf, 2 or 1 (or 'linf', 'l2', 'l1')")
        return aliases[key]
    try:
        value = float(norm)
    except (TypeError, ValueError):
        raise ValueError(f"unknown norm {norm!r}; use np.inf, 2 or 1") from None
    if value not in (math.inf, 2.0, 1.0):
        raise ValueError(f"unknown norm {norm!r}; only np.inf, 2 and 1 are supported")
    return value


def _check_labelled(X, y, pixel_units: bool = False):
    if isinstance(pixel_units, (bool, np.bool_)) is False:
        raise TypeError(f"pixel_units must be True or False, got {pixel_units!r}.")
    check_same_index(X, y, ("X", "y"))  # a frame of points and a Series of labels: paired by position
    check_unmasked(X, "X")  # np.asarray drops a mask: masked points would count
    check_unmasked(y, "y")
    check_no_bools(X, "X", example="[[0.1, 0.2], [0.5, 0.4]]")  # True / False coordinates would be read as 1 / 0
    try:
        X = to_numpy(X)
    except ValueError:  # numpy's "inhomogeneous shape": a list of points of different lengths
        lengths = sorted({len(row) for row in X if hasattr(row, "__len__")})
        raise ValueError(
            f"X must be an (n, d) array of points with d coordinates each, but its rows have different lengths "
            f"({', '.join(map(str, lengths[:4]))}); give every point the same number of coordinates."
        ) from None
    check_exact_integers(X, "X")  # int64 -> float64 would round 2**60 and 2**60 + 1 to one point
    y = check_labels(y, name="y")
    if X.dtype == np.uint8 and not pixel_units:
        raise ValueError(
            "X is uint8 (pixel values 0..255), but distances are returned in the units of X, and noise radii "
            "(eps_min) are in [0, 1] intensity units. Pass X.astype(np.float64) / 255, or pass pixel_units=True "
            "to compute exactly in pixel units and divide the result by 255 yourself."
        )
    if X.dtype.kind not in "biu":  # the shared contract: text and NaN refused naming the row (integers stay exact)
        X = as_float_points(X, name="X", min_rows=0)
    X, y = check_X_y(X, y, X_ndim=None, min_ndim=2, min_rows=2, min_classes=2)
    return X.reshape(len(X), -1), y


def _check_span(X: np.ndarray, norm: float) -> None:
    """ValueError when a distance between points of ``X`` could overflow float64 (the ``norm`` of the span of
    every coordinate, as the distance kernels compute it, is not finite): the nearest-neighbour search would see
    every distance as inf (it raised IndexError)."""
    if X.dtype.kind != "f":
        return
    with np.errstate(over="ignore", invalid="ignore"):
        span = X.max(axis=0) - X.min(axis=0)
        total = float(span.max() if norm == math.inf else span.sum() if norm == 1.0 else np.sum(span * span))
    if not math.isfinite(total):
        raise ValueError(
            f"X spans {float(np.max(np.abs(X))):.3g} in absolute value: distances between its points overflow float64 "
            "(their squares or sums are infinite), so no class separation can be computed. Rescale X first, e.g. "
            "X / np.abs(X).max(), and scale the separation back."
        )


def _tiny_exponent(X: np.ndarray, norm: float) -> int:
    """The power of two that brings the largest absolute coordinate of float ``X`` into [0.5, 1) when an L2 distance
    between its points could lose digits (largest magnitude below 2**-400: squares of coordinate differences reach
    the subnormal range of float64, and near 1e-165 they read 0); else 0. Multiplying by ``2**k`` and the distances
    back by ``2**-k`` changes no bit of a distance that does not underflow, so ordinary data is measured as is."""
    if norm != 2.0 or X.dtype.kind != "f" or X.size == 0:
        return 0
    top = float(np.max(np.abs(X)))
    return -int(np.frexp(top)[1]) if 0.0 < top < 2.0**-400 else 0


def _as_tensor(X: np.ndarray, norm: float, device) -> torch.Tensor:
    # Integer data (uint8 images) is exact in float32 for L_inf and L1 sums (255 * 3072 < 2**24);
    # L2 and float data use float64.
    if (
        np.issubdtype(X.dtype, np.integer)
        and norm != 2.0
        and int(np.abs(X.astype(np.int64)).max(initial=0)) * X.shape[1] < 2**24
    ):
        dtype = torch.float32
    else:
        dtype = torch.float64
    X = np.ascontiguousarray(X)
    if not X.flags.writeable:  # a read-only array (a DataFrame's values): torch warns it cannot share one
        X = X.copy()
    return torch.as_tensor(X, device=device).to(dtype)


def _pair_distance(diff: torch.Tensor, norm: float) -> torch.Tensor:
    a = diff.abs()
    if norm == math.inf:
        return a.amax(-1)
    if norm == 1.0:
        return a.sum(-1)
    return torch.sqrt((a * a).sum(-1))


def _brute_chunk(T, q, labels, norm):
    """Exact distances from query rows ``q`` (indices) to all other-class points, by direct differences."""
    D = torch.cdist(T[q], T, p=norm, compute_mode="donot_use_mm_for_euclid_dist")
    D[labels[q][:, None] == labels[None, :]] = math.inf
    return D.min(1).values


def _kdtree_nearest(T: torch.Tensor, labels: np.ndarray, norm: float, chunk_size: int) -> np.ndarray:
    """Low-dimensional CPU path of :func:`nearest_other_class_distance`: exact, bit-identical to the brute force.

    ``T``: (n, d) float tensor on the CPU; ``labels``: (n,) int array of class codes. A k-d tree over the points
    of the other classes proposes each point's :data:`KDTREE_K` nearest (in its own arithmetic); ``torch.cdist``
    then measures exactly those pairs as :func:`_brute_chunk` would. A point farther than the K-th proposal is
    farther than the best one by more than any rounding of either arithmetic, unless all K proposals lie within
    a relative :data:`_TIE_RTOL` of each other: such points are measured by the brute force.
    """
    from scipy.spatial import cKDTree

    X = T.numpy()
    out = np.empty(len(X), dtype=np.float64)
    tied = []
    for c in np.unique(labels):
        mine = np.flatnonzero(labels == c)
        other = np.flatnonzero(labels != c)
        k = min(KDTREE_K, len(other))
        kd, idx = cKDTree(X[other]).query(X[mine], k=k, p=norm)
        kd, idx = kd.reshape(len(mine), k), other[idx.reshape(len(mine), k)]
        for start in range(0, len(mine), chunk_size):
            rows = slice(start, start + chunk_size)
            q = torch.as_tensor(mine[rows])
            cand = torch.as_tensor(idx[rows])
            exact = torch.cdist(T[q].unsqueeze(1), T[cand], p=norm, compute_mode="donot_use_mm_for_euclid_dist")
            out[mine[rows]] = exact[:, 0, :].min(1).values.double().numpy()
        if k < len(other):
            tied.append(mine[kd[:, -1] <= kd[:, 0] * (1.0 + _TIE_RTOL)])
    tied = np.concatenate(tied) if tied else np.empty(0, dtype=np.int64)
    if len(tied):
        lab = torch.as_tensor(labels)
        for start in range(0, len(tied), chunk_size):
            q = torch.as_tensor(tied[start : start + chunk_size])
            out[q.numpy()] = _brute_chunk(T, q, lab, norm).double().numpy()
    return out


def _lower_bound_chunk(T, q, norm, sub_cols, sqnorm):
    """A matrix (len(q), n) of lower bounds on the distances from the query rows to all points."""
    if norm == 2.0:
        G = T[q] @ T.T
        d2 = sqnorm[q][:, None] + sqnorm[None, :] - 2.0 * G
        # rounding error of the Gram identity is below d * u * (|a|^2 + |b|^2) (u: unit roundoff)
        tol = 4.0 * T.shape[1] * torch.finfo(T.dtype).eps * (sqnorm[q][:, None] + sqnorm[None, :])
        return torch.sqrt(torch.clamp(d2 - tol, min=0.0))
    Ts = T[:, sub_cols]
    return torch.cdist(Ts[q], Ts, p=norm)


def _refine_pairs(T, qi, pj, upper, init, norm, blocks, pair_batch):
    """Exact distance for pairs (qi[m], pj[m]) whose distance is below ``upper[m]``; inf otherwise.

    ``init[m]`` is the partial max (L_inf) or partial sum (L1) over coordinates already visited (zeros for
    L2). The remaining coordinates are visited block by block; partial maxima / sums only grow, so a pair
    is dropped as soon as its partial value reaches its bound.
    """
    out = torch.full((qi.numel(),), math.inf, dtype=T.dtype, device=T.device)
    for start in range(0, qi.numel(), pair_batch):
        sl = slice(start, start + pair_batch)
        a, b, u = qi[sl], pj[sl], upper[sl]
        alive = torch.arange(a.numel(), device=T.device)
        acc = init[sl].clone()
        u_cmp = u * u if norm == 2.0 else u
        for lo, hi in blocks:
            diff = (T[a[alive], lo:hi] - T[b[alive], lo:hi]).abs()
            if norm == math.inf:
                acc[alive] = torch.maximum(acc[alive], diff.amax(1))
            elif norm == 1.0:
                acc[alive] = acc[alive] + diff.sum(1)
            else:
                acc[alive] = acc[alive] + (diff * diff).sum(1)
            alive = alive[acc[alive] < u_cmp[alive]]
            if alive.numel() == 0:
                break
        if alive.numel():
            val = torch.sqrt(acc[alive]) if norm == 2.0 else acc[alive]
            out[start + alive] = val
    return out


def _check_flag(value, name: str) -> None:
    from robeval.core.validation import check_bool

    check_bool(value, name)


def nearest_other_class_distance(
    X,
    y,
    norm=np.inf,
    *,
    chunk_size: int = 1024,
    device=None,
    n_candidates: int = 32,
    subset_dims: int = 256,
    progress: bool = False,
    pixel_units: bool = False,
) -> np.ndarray:
    """Distance of every point to the nearest point of another class (exact).

    Parameters
    ----------
    X : array_like, shape (n, d) or (n, *shape)
        Points; images are flattened. Any real dtype; distances are in the units of ``X``. uint8 images
        raise ValueError unless ``pixel_units=True`` (then distances are in pixel units 0..255, exact; divide
        them by 255 for [0, 1] intensity units). Refused: rows of different lengths, integers beyond 2**53
        (float64 would merge distinct points: :func:`robeval.core.validation.check_exact_integers`) and a numpy
        masked array ``X`` or ``y`` (TypeError: the masked values would count; drop those points first).
    y : array_like, list or torch tensor, shape (n,)
        Class labels (at least two classes; NaN labels raise). Paired with the rows of ``X`` by position: a
        DataFrame ``X`` and a Series ``y`` with different indexes are refused
        (:func:`robeval.core.frames.check_same_index`).
    norm : {np.inf, 2, 1}
        The L_p norm of the distance.
    chunk_size : int
        Query rows handled at once; memory is O(chunk_size * n).
    device : str or torch.device, optional
        Torch device ("cuda" for 60000 x 3072 on a GPU); default CPU. A name torch does not know, or a
        device this machine cannot use ("cuda" without a GPU, "mps", "meta"), raises ValueError.
    n_candidates : int
        Candidates per query used for the initial upper bound (high-dimensional path only).
    subset_dims : int
        Coordinates used for the first lower bound of L_inf / L1 (high-dimensional path only).
    progress : bool
        Show a tqdm bar over query chunks.
    pixel_units : bool
        Accept uint8 images and return distances in pixel units (see ``X``).

    Returns
    -------
    numpy.ndarray, shape (n,), float64
        ``dist[i] = min_{j : y_j != y_i} ||X_i - X_j||_p``.
    """
    p = check_norm(norm)
    X2, y = _check_labelled(X, y, pixel_units)
    _check_span(X2, p)
    k = _tiny_exponent(X2, p)
    if k:  # the squares of an L2 distance underflow: measure at the scale 2**k (exact) and scale back (exact)
        X2 = np.ldexp(X2, k)
        kwargs = dict(chunk_size=chunk_size, device=device, n_candidates=n_candidates, subset_dims=subset_dims)
        return np.ldexp(nearest_other_class_distance(X2, y, p, progress=progress, **kwargs), -k)
    check_positive(chunk_size, "chunk_size", integer=True)
    check_positive(n_candidates, "n_candidates", integer=True)
    check_positive(subset_dims, "subset_dims", integer=True)
    _check_flag(progress, "progress")
    n, d = X2.shape
    device = torch.device("cpu") if device is None else usable_device(device)
    T = _as_tensor(X2, p, device)
    _, inv = np.unique(y, return_inverse=True)
    labels = torch.as_tensor(inv, device=device)
    high_dim = d > 64
    if high_dim and p == 1.0:
        # pyramid of contiguous group sums: coarse lower bounds first, exact L1 last
        levels = [_group_sums(T, g) for g in (64, 16, 4) if g < d] + [T]
    elif high_dim:
        # A fixed random column order: the first ``m`` columns are a spread-out subset of the image, so
        # their partial distance is a good lower bound. Distances do not depend on the column order.
        T = T[:, torch.as_tensor(np.random.default_rng(0).permutation(d), device=device)].contiguous()
        m = min(subset_dims, d)
        sub_cols = slice(0, m)
        # the first lower bound already covers columns [0, m); refine over growing blocks of the rest
        blocks = [(m + i, m + i + s) for i, s in _block_plan(d - m)]
        sqnorm = (T * T).sum(1) if p == 2.0 else None
        if p == 2.0:
            blocks = [(0, d)]  # the Gram bound is already tight; refine pairs in one pass
    if d <= KDTREE_MAX_DIM and device.type == "cpu":
        return _kdtree_nearest(T, inv, p, chunk_size)
    out = np.empty(n, dtype=np.float64)
    chunks = range(0, n, chunk_size)
    if progress:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, desc="separation", unit="chunk")
    for start in chunks:
        q = torch.arange(start, min(start + chunk_size, n), device=device)
        if not high_dim:
            out[q.cpu().numpy()] = _brute_chunk(T, q, labels, p).double().cpu().numpy()
            continue
        if p == 1.0:
            lb = torch.cdist(levels[0][q], levels[0], p=1.0)
        else:
            lb = _lower_bound_chunk(T, q, p, sub_cols, sqnorm)
        lb[labels[q][:, None] == labels[None, :]] = math.inf
        # upper bound: exact distance to the few candidates with the smallest lower bound
        cand = lb.topk(min(n_candidates, n), dim=1, largest=False).indices
        Tq = T[q]
        # one candidate column at a time keeps memory at O(chunk * d)
        exact_c = torch.stack([_pair_distance(Tq - T[cand[:, c]], p) for c in range(cand.shape[1])], dim=1)
        exact_c[torch.isinf(lb.gather(1, cand))] = math.inf  # same-class candidates (tiny classes)
        upper = exact_c.min(1).values
        # survivors: every pair whose lower bound is below the current best
        qi, pj = torch.nonzero(lb < upper[:, None], as_tuple=True)
        if p == 1.0:
            refined = _refine_pyramid(levels[1:], q[qi], pj, upper[qi], pair_batch=4096)
        else:
            init = lb[qi, pj] if p != 2.0 else torch.zeros(qi.numel(), dtype=T.dtype, device=device)
            refined = _refine_pairs(T, q[qi], pj, upper[qi], init, p, blocks, pair_batch=4096)
        best = upper.clone()
        best.scatter_reduce_(0, qi, refined, reduce="amin")
        out[q.cpu().numpy()] = best.double().cpu().numpy()
    return out


def _group_sums(T: torch.Tensor, g: int) -> torch.Tensor:
    """Sums over contiguous groups of ``g`` coordinates (zero-padded): shape (n, ceil(d / g)).

    ``||P a - P b||_1 <= ||a - b||_1`` for this summing map P (triangle inequality per group), and for
    flattened images contiguous coordinates are neighbouring pixels, so the bound is tight.
    """
    n, d = T.shape
    pad = (-d) % g
    if pad:
        T = torch.cat([T, T.new_zeros(n, pad)], dim=1)
    return T.reshape(n, -1, g).sum(2)


def _refine_pyramid(levels, qi, pj, upper, pair_batch):
    """L1 refinement over a pyramid of group sums (coarse to fine, the last level is the data itself).

    Returns the exact L1 distance of every pair whose distance is below ``upper``; inf for the others.
    """
    T = levels[-1]
    out = torch.full((qi.numel(),), math.inf, dtype=T.dtype, device=T.device)
    for start in range(0, qi.numel(), pair_batch):
        sl = slice(start, start + pair_batch)
        a, b, u = qi[sl], pj[sl], upper[sl]
        alive = torch.arange(a.numel(), device=T.device)
        for L in levels:
            val = (L[a[alive]] - L[b[alive]]).abs().sum(1)
            keep = val < u[alive]
            alive, val = alive[keep], val[keep]
            if alive.numel() == 0:
                break
        if alive.numel():
            out[start + alive] = val
    return out


#: The keyword options min_class_separation and eps_min pass on to nearest_other_class_distance.
OPTIONS = ("chunk_size", "device", "n_candidates", "subset_dims", "progress", "pixel_units")


def _block_plan(m: int):
    """Offsets and sizes of coordinate blocks: small first (cheap pruning), then doubling."""
    i, size = 0, 128
    while i < m:
        yield i, min(size, m - i)
        i += size
        size *= 2


def min_class_separation(X, y, norm=np.inf, **kwargs) -> float:
    """Minimal class separation ``2r = min_{i, j : y_i != y_j} ||X_i - X_j||_p`` (exact).

    Parameters and units as in :func:`nearest_other_class_distance` (its keyword options, :data:`OPTIONS`, are
    accepted here; another keyword is a TypeError naming this function); returns a Python float > 0.

    Raises ValueError naming the points when two identical points carry different labels: their separation is 0,
    and every noise level built on it (``eps_min = 0``) would report any classifier as perfectly robust.
    """
    check_keywords(kwargs, OPTIONS, "min_class_separation")
    dist = nearest_other_class_distance(X, y, norm, **kwargs)
    if dist.min() > 0:
        return float(dist.min())
    X2, labels = _check_labelled(X, y, kwargs.get("pixel_units", False))
    labels = labels.tolist()
    zero = np.flatnonzero(dist == 0)
    pairs = []
    for i in zero:
        same = np.flatnonzero(np.all(X2 == X2[i], axis=1) & (np.asarray(labels, dtype=object) != labels[i]))
        pairs += [(int(i), int(j)) for j in same if j > i]
        if len(pairs) >= 3:
            break
    if not pairs:  # distinct points at distance 0: an L2 distance whose squares underflow (coordinates differing
        # only below ~1e-154 next to larger ones, which the power-of-two scaling of the whole X cannot lift)
        raise ValueError(
            f"the class separation reads 0 at {len(zero)} points (first: point {int(zero[0])}) that have no identical "
            "twin with another label: their differences are so small next to the other coordinates of X that the "
            "squares of the L2 distance underflow float64. Rescale or centre those coordinates, or use norm=np.inf "
            "or norm=1, which do not square."
        )
    shown = "; ".join(f"points {i} and {j} (labels {labels[i]!r} and {labels[j]!r})" for i, j in pairs[:3])
    raise ValueError(
        f"the class separation is 0: {len(zero)} points have an identical twin with another label, e.g. {shown}. "
        "The minimal class separation (and eps_min = half of it) is undefined for such data: a noise level of 0 "
        "would call every classifier perfectly robust. Drop or relabel the conflicting duplicates (e.g. keep one "
        "label per distinct point) before measuring the separation."
    )


def eps_min(X, y, norm=np.inf, **kwargs) -> float:
    """The MSCR corner-case noise level ``eps_min = r = 2r / 2`` (Algorithm 1, step 1); options as in
    :func:`min_class_separation`."""
    check_keywords(kwargs, OPTIONS, "eps_min")
    return 0.5 * min_class_separation(X, y, norm, **kwargs)
