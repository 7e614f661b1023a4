"""Perturbation models (samplers) of the real-world robustness (Scher & Trügler, Sec. 3.2 and 3.5): a multivariate
normal (:class:`GaussianPerturbation`, one covariance or one per point), bounded features
(:class:`BoundedPerturbation`) and categorical features through transition matrices
(:class:`CategoricalPerturbation`). The sampler contract is in :mod:`robeval.realworld.robustness`;
:func:`~robeval.realworld.robustness.real_world_robustness` draws from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from numbers import Real

import numpy as np

from robeval.core.validation import check_covariance, check_numbers, check_positive
from robeval.realworld.covariance import covariance_factor

__all__ = ["GaussianPerturbation", "BoundedPerturbation", "CategoricalPerturbation"]

Sampler = Callable[[np.ndarray, int, int, np.random.Generator], np.ndarray]


class GaussianPerturbation:
    """Additive multivariate normal perturbation ``x' ~ N(0, cov)``.

    Parameters
    ----------
    cov : array_like, shape (d, d) or (n, d, d)
        One covariance for every point, or one per point (row ``index`` of the
        evaluated array uses ``cov[index]``), e.g. estimated from an ensemble.
    """

    def __init__(self, cov):
        self.cov = check_covariance(cov)
        self.factor = covariance_factor(self.cov)
        self.per_point = self.cov.ndim == 3
        self.d = self.cov.shape[-1]
        # a diagonal factor (e.g. the isotropic model of Eq. 5) scales columns instead of a matrix product:
        # the same numbers, without the GEMM
        F = self.factor
        self.diag = None if self.per_point or np.count_nonzero(F - np.diag(np.diag(F))) else np.diag(F).copy()

    def __call__(self, x: np.ndarray, index: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        L = self.factor[index] if self.per_point else self.factor
        z = rng.standard_normal((n_samples, self.d))
        return x + z @ L.T

    def n_points(self) -> int | None:
        """Number of per-point covariances, or None for a shared one."""
        return self.cov.shape[0] if self.per_point else None


class BoundedPerturbation:
    """Keep perturbed features inside physical bounds (e.g. a percentage in [0, 100]).

    Parameters
    ----------
    base : sampler
        Perturbation model producing unbounded perturbed points.
    lower, upper : array_like, shape (d,)
        Bounds per feature; use ``-inf`` / ``inf`` for unbounded features. ``d`` must be the base sampler's when it
        says it (a Gaussian's or bounded sampler's), else ValueError.
    mode : {"clip", "truncate"}
        ``"clip"`` projects violating coordinates onto the bound (probability
        mass piles up on the bound, as for a saturating sensor); ``"truncate"``
        redraws violating samples (rejection), giving the base distribution
        conditioned on the box.

        In both modes the unperturbed point must itself lie in ``[lower, upper]``, else ValueError naming the
        point and the coordinate (``X[1, 0] = 3.0 lies above upper[0] = 1.0``). Such a point is a data error (a
        feature not normalised, bounds of other units): clipping would move every sample onto the box's face, far
        from the point, and report the robustness of the box instead of the noise's (0 for a tiny noise);
        truncation would condition on a box the point is not in.
    max_rounds : int
        Rejection rounds before giving up with a ValueError (truncate only).
    """

    def __init__(self, base: Sampler, lower, upper, mode: str = "clip", max_rounds: int = 1000):
        if not callable(base):
            raise TypeError(f"base must be a sampler, callable as base(x, index, n_samples, rng), got {base!r:.60}.")
        self.base = base
        self.lower = check_numbers(lower, "lower", example="[0.0, -np.inf]")
        self.upper = check_numbers(upper, "upper", example="[100.0, np.inf]")
        if self.lower.shape != self.upper.shape or self.lower.ndim != 1:
            raise ValueError(
                f"lower and upper must be 1-D arrays of equal length d; got shapes {self.lower.shape}, {self.upper.shape}."
            )
        if np.any(np.isnan(self.lower)) or np.any(np.isnan(self.upper)) or np.any(self.lower > self.upper):
            raise ValueError("bounds must satisfy lower <= upper elementwise (use -inf/inf for no bound, never NaN).")
        d = sampler_dim(base)
        if d is not None and d != self.lower.shape[0]:
            raise ValueError(
                f"lower and upper have {self.lower.shape[0]} entries but the base sampler works on d={d} features; "
                f"pass one bound per feature ({d} each, -inf / inf for an unbounded feature)."
            )
        if mode not in ("clip", "truncate"):
            raise ValueError(f"mode must be 'clip' or 'truncate'; got {mode!r}.")
        self.mode = mode
        self.max_rounds = int(check_positive(max_rounds, "max_rounds", integer=True))

    def __call__(self, x: np.ndarray, index: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        if x.shape[-1] != self.lower.shape[0]:
            raise ValueError(f"bounds have {self.lower.shape[0]} features but the points have {x.shape[-1]}.")
        self._check_inside(np.asarray(x, dtype=np.float64), index)
        out = np.asarray(self.base(x, index, n_samples, rng), dtype=np.float64)
        if self.mode == "clip":
            return np.clip(out, self.lower, self.upper)
        bad = np.flatnonzero(np.any((out < self.lower) | (out > self.upper), axis=1))
        for _ in range(self.max_rounds):
            if bad.size == 0:
                return out
            redraw = np.asarray(self.base(x, index, bad.size, rng), dtype=np.float64)
            out[bad] = redraw
            bad = bad[np.any((redraw < self.lower) | (redraw > self.upper), axis=1)]
        raise ValueError(
            f"truncation still rejected {bad.size} samples after {self.max_rounds} rounds for point {index}; "
            "the point lies (almost) outside the bounds -- check them or use mode='clip'."
        )

    def _check_inside(self, x: np.ndarray, index: int) -> None:
        """ValueError naming the first coordinate of the unperturbed point ``x`` (row ``index``) outside the bounds."""
        for side, bound, out in (
            ("below lower", self.lower, x < self.lower),
            ("above upper", self.upper, x > self.upper),
        ):
            if np.any(out):
                j = int(np.flatnonzero(out)[0])
                raise ValueError(
                    f"X[{index}, {j}] = {float(x[j])!r} lies {side}[{j}] = {float(bound[j])!r}: the unperturbed point "
                    f"must lie within the bounds (mode={self.mode!r} would move its samples onto or into the box, and "
                    "measure the box, not the noise) -- check the bounds and the units of X."
                )


def sampler_dim(sampler) -> int | None:
    """The number of features a sampler works on when it says (a Gaussian's ``d``, bounds' length), else None."""
    if isinstance(sampler, GaussianPerturbation):
        return sampler.d
    if isinstance(sampler, BoundedPerturbation):
        return int(sampler.lower.shape[0])
    return None


def _check_column_key(col, d: int | None) -> int:
    """A column key of :class:`CategoricalPerturbation`: a whole number >= 0 (a 0.5 is never truncated to column 0),
    below ``d`` when the number of features is known; TypeError / ValueError naming ``columns``."""
    if isinstance(col, (bool, np.bool_)) or not isinstance(col, (Real, np.integer, np.floating)):
        raise TypeError(f"columns must be keyed by column positions (integers), got the key {col!r:.60}.")
    if not np.isfinite(col) or float(col) != int(col) or col < 0:
        raise ValueError(
            f"columns must be keyed by column positions (whole numbers >= 0), got the key {col!r}; a fractional key "
            "would be truncated to another column."
        )
    if d is not None and int(col) >= d:
        raise ValueError(
            f"columns names the column {int(col)}, but the continuous sampler works on {d} features (columns 0 .. "
            f"{d - 1}); key each categorical column by its position in the feature matrix."
        )
    return int(col)


def _column_entry(col, value) -> tuple[np.ndarray, np.ndarray]:
    """``columns[col]`` as float64 ``(categories (m,), transition (., .))``, else TypeError / ValueError naming it."""
    example = "e.g. ([0.0, 1.0], [[0.9, 0.1], [0.2, 0.8]])"
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)) or len(value) != 2:
        raise TypeError(f"columns[{col!r}] must be a pair (categories, transition), got {value!r:.60}; {example}.")
    parts = []
    for what, part, ndim in (("categories", value[0], 1), ("transition", value[1], 2)):
        try:
            arr = np.asarray(part, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"columns[{col!r}] must hold numbers, got the {what} {part!r:.40}; {example}.") from None
        if arr.ndim != ndim:
            raise ValueError(f"columns[{col!r}] has {what} of shape {arr.shape}; pass a {ndim}-D array, {example}.")
        parts.append(arr)
    return parts[0], parts[1]


class CategoricalPerturbation:
    """Resample categorical features through transition matrices (Sec. 3.5.2).

    A column key must be a whole number >= 0 (TypeError / ValueError naming ``columns`` otherwise), below the
    number of features when ``continuous`` states it (a :class:`GaussianPerturbation` or
    :class:`BoundedPerturbation`), else when the sampler is called.

    Parameters
    ----------
    columns : mapping ``{column: (categories, transition)}``
        ``categories`` is a length-m sequence of the values the column can take
        (as floats in the feature matrix); ``transition`` is an (m, m) row-stochastic
        matrix, ``transition[i, j]`` = probability that value ``categories[i]``
        is observed as ``categories[j]``.
    continuous : sampler, optional
        Model for the remaining (continuous) features. Its output in categorical
        columns is overwritten. If None those features stay unperturbed.
    """

    def __init__(self, columns: Mapping[int, tuple[Sequence[float], np.ndarray]], continuous: Sampler | None = None):
        if not isinstance(columns, Mapping):
            raise TypeError(
                f"columns must be a mapping {{column: (categories, transition)}}, got {type(columns).__name__} "
                f"{columns!r:.60}; e.g. {{0: ([0.0, 1.0], [[0.9, 0.1], [0.2, 0.8]])}}."
            )
        if not columns:
            raise ValueError("columns is empty; give at least one {column: (categories, transition)} entry.")
        if continuous is not None and not callable(continuous):
            raise TypeError(f"continuous must be a sampler (a callable) or None, got {continuous!r:.60}.")
        self.columns = {}
        d = sampler_dim(continuous)
        for col in columns:
            _check_column_key(col, d)
        for col, value in columns.items():
            cats, T = _column_entry(col, value)
            m = cats.shape[0]
            if m < 1 or len(np.unique(cats)) != m:
                raise ValueError(f"categories of column {col} must be a 1-D sequence of distinct values.")
            if T.shape != (m, m):
                raise ValueError(f"transition matrix of column {col} must be ({m}, {m}); got {T.shape}.")
            if np.any(T < 0) or not np.allclose(T.sum(axis=1), 1.0, atol=1e-9):
                raise ValueError(
                    f"transition matrix of column {col} must be non-negative with rows summing to 1 "
                    f"(row sums {T.sum(axis=1)}); normalise with T / T.sum(axis=1, keepdims=True)."
                )
            self.columns[int(col)] = (cats, np.cumsum(T, axis=1))
        self.continuous = continuous

    def __call__(self, x: np.ndarray, index: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        if self.continuous is None:
            out = np.repeat(x[None, :], n_samples, axis=0)
        else:
            out = np.array(self.continuous(x, index, n_samples, rng), dtype=np.float64)
        for col, (cats, cdf) in self.columns.items():
            if col >= x.shape[-1]:
                raise ValueError(
                    f"columns names the column {col}, but the points have {x.shape[-1]} features (columns 0 .. "
                    f"{x.shape[-1] - 1}); key each categorical column by its position in the feature matrix."
                )
            hit = np.flatnonzero(cats == x[col])
            if hit.size == 0:
                raise ValueError(
                    f"point {index} has value {x[col]!r} in categorical column {col}, "
                    f"which is not among its categories {cats.tolist()}."
                )
            u = rng.random(n_samples)
            # inverse-CDF sampling from the row of the observed category
            j = np.minimum(np.searchsorted(cdf[hit[0]], u, side="right"), len(cats) - 1)
            out[:, col] = cats[j]
        return out
