"""Uncertainty from independent runs, for the claims ledger.

Every interval here is a two-sided confidence interval at ``level`` (default 0.95) built from *independent*
runs (seeds, data splits, trained models): a t-interval for a mean, a paired t-interval for a difference
between conditions measured on the same runs, a seeded percentile bootstrap over runs for statistics such as
a rank correlation, and a Wilson interval for a proportion of independent trials. Each function returns an
:class:`Interval` that also carries the standard error and the number of runs, so a ledger rule can state the
power it had and how many runs would decide it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np
from scipy import stats

from robeval.core.validation import check_level, check_numbers, check_probability, mean_std, to_numpy


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided confidence interval.

    ``estimate``, ``low``, ``high`` in the units of the data; ``se`` the standard error (NaN if unknown);
    ``n`` the number of independent runs (or trials) it rests on; ``level`` the confidence level;
    ``method`` how it was computed.
    """

    estimate: float
    low: float
    high: float
    se: float
    n: int
    level: float
    method: str
    floor_se: float = 0.0  # the part of ``se`` that more runs of ours cannot shrink (a published mean's own se)
    # ``redraw(gen, m=None, k=1) -> (estimates, ses)``, arrays (k,): the statistic and its se recomputed on k
    # *predictive* resamples of m of the independent units (:func:`predictive_indices`), for the ledger's resampled
    # stability; None where the units are not at hand (a derived or published interval). Not part of the
    # interval's value (no comparison, no repr).
    redraw: object = field(default=None, compare=False, repr=False)
    # for a zero-width interval over several units (every unit, or every resample, gave one value): the exact
    # two-sided p-value its units still allow — the sign test over the units for a mean (2 · 2^-n), the
    # bootstrap's resolution for a percentile bootstrap (2 / (B + 1)); 1 for an estimate of 0. None otherwise.
    exact_p: float | None = field(default=None, compare=False, repr=False)
    # a percentile bootstrap's resampled statistics (finite ones, shape (B,)): the ledger's p-value of a bootstrap
    # row is read from them, as the interval is, not from a normal approximation with their sd
    draws: object = field(default=None, compare=False, repr=False)

    @property
    def halfwidth(self) -> float:
        return (self.high - self.low) / 2

    def as_tuple(self) -> tuple[float, float]:
        return (self.low, self.high)


def predictive_indices(gen: np.random.Generator, n: int, m: int | None = None, k: int = 1) -> np.ndarray:
    """Indices, shape (k, m), of ``k`` predictive resamples of ``n`` independent units: ``m`` (default ``n``)
    draws with replacement from a bootstrap resample of the units. The first draw stands for a truth compatible
    with the runs, the second for a rerun from it, so a resampled mean varies about twice as much as one
    bootstrap's: the bootstrap form of the predictive distribution of a replication (the observed effect is itself
    an estimate)."""
    if not isinstance(gen, np.random.Generator):
        raise TypeError(
            f"gen must be a numpy Generator (np.random.default_rng(seed)), got {type(gen).__name__} {gen!r:.40}."
        )
    n = _whole(n, "n", 1, "the number of independent units")
    m = None if m is None else _whole(m, "m", 1, "the number of units drawn per resample")
    k = _whole(k, "k", 1, "the number of resamples")
    first = gen.integers(0, n, (int(k), n))
    return np.take_along_axis(first, gen.integers(0, n, (int(k), n if m is None else int(m))), axis=1)


def _mean_redraw(v: np.ndarray, extra_var: float = 0.0):
    """``redraw`` of a mean over the units ``v``: arrays (k,) of the mean and its se on ``k`` predictive
    resamples of ``m`` units (``extra_var``: a fixed variance added to se², a published mean's)."""

    def redraw(gen, m=None, k=1):
        w = v[predictive_indices(gen, len(v), m, k)]
        return w.mean(axis=1), np.sqrt(w.var(axis=1, ddof=1) / w.shape[1] + extra_var)

    return redraw


def _whole(value, name: str, minimum: int, what: str) -> int:
    """``value`` as an int when it is a whole number >= ``minimum`` (an int, or a float with no fractional part);
    TypeError / ValueError naming ``name`` and ``what`` it counts otherwise (a bool, text, 2.5, inf, NaN)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(
            f"{name} must be {what} (a whole number >= {minimum}), got {value!r:.60} ({type(value).__name__})."
        )
    whole = isinstance(value, Integral) or (math.isfinite(value) and float(value).is_integer())
    if not whole or value < minimum:
        raise ValueError(f"{name} must be {what} (a whole number >= {minimum}), got {value!r}.")
    return int(value)


def _numeric(values, name: str) -> np.ndarray:
    """``values`` as a float64 array of its own shape; a numpy masked array (its mask would be dropped), text,
    None or complex numbers are refused naming ``name`` (booleans count as 1 and 0)."""
    from robeval.core.frames import check_unmasked

    check_unmasked(values, name)
    arr = to_numpy(values)
    if arr.dtype.kind not in "biuf":
        arr = check_numbers(values, name, example="[0.91, 0.93, 0.92]")  # names the first value that is no number
    return np.asarray(arr, dtype=np.float64)


def _runs(values, name: str, min_n: int = 2) -> np.ndarray:
    """``values`` checked as one number per independent run (:func:`_numeric`, one-dimensional), then finite and
    at least ``min_n`` of them (:func:`_values`)."""
    v = _numeric(values, name)
    if v.ndim != 1:
        raise ValueError(
            f"{name} must hold one number per run (a one-dimensional array), got shape {v.shape}; pass the runs' "
            f"values as a 1-D array (of a table of runs x columns, one column: {name}[:, j])."
        )
    return _values(v, name, min_n)


def _values(values, name: str, min_n: int = 2) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinite values; drop failed runs explicitly before summarising.")
    if len(v) < min_n:
        raise ValueError(f"{name} has {len(v)} value(s); an interval over independent runs needs at least {min_n}.")
    return v


def mean_interval(values, level: float = 0.95) -> Interval:
    """t-interval for the mean of independent runs (``values``: one number per run); values of any scale (see
    :func:`~robeval.core.validation.mean_std`)."""
    check_probability(level, "level")
    v = _runs(values, "values")
    n = len(v)
    mean, std = mean_std(v)
    se = float(std / math.sqrt(n))
    t = float(stats.t.ppf(0.5 + level / 2, n - 1))
    exact = (1.0 if mean == 0 else min(1.0, 2.0 * 0.5**n)) if se == 0 else None  # sign test: all n units alike
    return Interval(
        mean, mean - t * se, mean + t * se, se, n, level, f"t-interval over {n} runs", 0.0, _mean_redraw(v), exact
    )


def mean_vs_reference_interval(values, ref_sd: float, ref_n: int, level: float = 0.95) -> Interval:
    """Our mean over runs, with the interval that compares it with a published mean carrying its own sampling
    error: the Welch t-interval of (ours − published), shifted by the published mean.

    ``values``: one number per independent run of ours; ``ref_sd``: the published standard deviation over its
    ``ref_n`` independent runs (same units). The interval is centred on our mean with
    se² = s²/n + ref_sd²/ref_n and Welch–Satterthwaite degrees of freedom, so "inside published ± margin" is
    the equivalence test of the two means. ``floor_se`` = ref_sd/sqrt(ref_n): what more runs of ours cannot
    remove (:func:`runs_needed` accounts for it)."""
    check_probability(level, "level")
    v = _runs(values, "values")
    if isinstance(ref_sd, (bool, np.bool_)) or not isinstance(ref_sd, Real):
        raise TypeError(f"ref_sd must be a finite standard deviation >= 0 (a number), got {ref_sd!r:.60}.")
    sd_r = float(ref_sd)
    if not (math.isfinite(sd_r) and sd_r >= 0):
        raise ValueError(f"ref_sd must be a finite standard deviation >= 0, got {ref_sd!r}")
    _whole(ref_n, "ref_n", 2, "the published number of runs")
    n, mean = len(v), float(v.mean())
    a, b = float(v.var(ddof=1)) / n, sd_r**2 / int(ref_n)
    se = math.sqrt(a + b)
    if se == 0:
        df = n - 1
    else:
        df = (a + b) ** 2 / ((a**2 / (n - 1) if a > 0 else 0.0) + (b**2 / (int(ref_n) - 1) if b > 0 else 0.0))
    t = float(stats.t.ppf(0.5 + level / 2, df))
    return Interval(
        mean, mean - t * se, mean + t * se, se, n, level,
        f"Welch t-interval over {n} runs vs the published mean's {int(ref_n)} runs", floor_se=math.sqrt(b),
        redraw=_mean_redraw(v, b),
    )  # fmt: skip


def paired_interval(a, b, level: float = 0.95) -> Interval:
    """t-interval for the mean of ``a - b`` over runs measured in pairs (same seed / split for both)."""
    a = _runs(a, "a")
    b = _runs(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same runs: a has {len(a)}, b has {len(b)}.")
    iv = mean_interval(a - b, level)
    return replace(iv, method=f"paired t-interval over {iv.n} runs")


def bootstrap_interval(
    statistic, *samples, level: float = 0.95, n_boot: int = 2000, seed: int = 0, fixed=(), fixed_se=None
) -> Interval:
    """Seeded percentile bootstrap over runs: ``statistic(*resampled, *fixed)`` where every sample's rows (axis 0 =
    runs) are resampled with the same run indices (paired designs stay paired).

    fixed : arrays passed after the samples, not resampled (e.g. published means).
    fixed_se : their standard errors (same shapes, or None for exact values). Each resample then also draws
        ``fixed + fixed_se * z``, z standard normal (a parametric bootstrap of published means over independent
        runs), from a stream apart from the run resampling, so the run indices do not depend on it. The
        interval's ``floor_se`` is then the sd of the statistic over such draws alone (the runs as they are):
        the part of the se that more runs of ours cannot shrink (see :func:`runs_needed`).
    """
    check_probability(level, "level")
    if not samples:
        raise TypeError(
            "bootstrap_interval needs at least one sample after the statistic: bootstrap_interval(statistic, values)."
        )
    n_boot = _whole(n_boot, "n_boot", 2, "the number of bootstrap resamples")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, Integral):
        raise TypeError(f"seed must be a whole number >= 0 (the bootstrap's seed), got {seed!r:.60}.")
    if seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 (the bootstrap's seed), got {seed!r}.")
    arrays = [_numeric(s, f"samples[{i}]") for i, s in enumerate(samples)]
    if any(a.ndim == 0 for a in arrays):
        raise ValueError("bootstrap samples need their runs along axis 0; got a single number, not an array of runs.")
    n = len(arrays[0])
    if n < 2 or any(len(a) != n for a in arrays):
        raise ValueError("bootstrap samples need the same number (>= 2) of runs along axis 0.")
    fixed = [_numeric(f, f"fixed[{i}]") for i, f in enumerate(fixed)]
    if fixed_se is not None:
        fixed_se = [np.asarray(e, dtype=np.float64) for e in fixed_se]
        if len(fixed_se) != len(fixed) or any(e.shape != f.shape for e, f in zip(fixed_se, fixed)):
            raise ValueError("fixed_se needs one array per fixed array, of the same shape.")
        if any(not np.all(np.isfinite(e) & (e >= 0)) for e in fixed_se):
            raise ValueError("fixed_se must be finite and >= 0 (standard errors).")
    est = float(statistic(*arrays, *fixed))

    def redraw(gen):  # the published means, drawn from their sampling distribution
        return fixed if fixed_se is None else [v + e * gen.standard_normal(v.shape) for v, e in zip(fixed, fixed_se)]

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(int(n_boot), n))
    draws = np.random.default_rng([seed, 1])
    boot = np.empty(len(idx), dtype=np.float64)
    for b, i in enumerate(idx):
        boot[b] = statistic(*(a[i] for a in arrays), *redraw(draws))
    boot = boot[np.isfinite(boot)]
    if len(boot) < 0.9 * n_boot:
        return Interval(est, -math.inf, math.inf, math.nan, n, level, f"bootstrap over {n} runs (degenerate)")
    lo, hi = np.quantile(boot, [0.5 - level / 2, 0.5 + level / 2])
    se = float(boot.std(ddof=1))

    def predictive(gen, m=None, k=1):  # the statistic on k predictive resamples of the runs; its se as observed
        idx = predictive_indices(gen, n, m, k)
        return np.array([statistic(*(a[i] for a in arrays), *fixed) for i in idx], dtype=np.float64), np.full(k, se)

    floor = 0.0
    if fixed_se is not None:
        alone = np.random.default_rng([seed, 2])
        f_only = np.asarray([statistic(*arrays, *redraw(alone)) for _ in range(int(n_boot))], dtype=np.float64)
        floor = float(f_only[np.isfinite(f_only)].std(ddof=1)) if np.isfinite(f_only).sum() > 1 else 0.0
    exact = (1.0 if est == 0 else min(1.0, 2.0 / (len(boot) + 1))) if se == 0 else None  # every resample alike
    return Interval(
        est, float(lo), float(hi), se, n, level, f"percentile bootstrap over {n} runs", floor, predictive, exact, boot
    )


def spearman(x, y) -> float:
    """Spearman rank correlation (NaN when one side is constant) of two vectors of one length >= 1; TypeError /
    ValueError naming ``x`` or ``y`` for text, a masked array, a 2-D array, an empty one or two lengths."""
    x, y = _numeric(x, "x"), _numeric(y, "y")
    if x.ndim != 1 or y.ndim != 1 or len(x) != len(y) or not len(x):
        raise ValueError(
            f"x and y must be one-dimensional, of one length >= 1 (one value per item), got shapes {x.shape} and "
            f"{y.shape}."
        )
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(stats.spearmanr(x, y).statistic)


def trend_interval(levels, per_run, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> Interval:
    """Spearman rank correlation between ``levels`` (k,) and the mean over runs of ``per_run`` (runs, k),
    with a bootstrap interval over runs: does the mean curve rise (> 0) or fall (< 0) with the level?"""
    levels = _runs(levels, "levels", 1)
    m = _numeric(per_run, "per_run")
    if m.ndim != 2 or m.shape[1] != len(levels):
        raise ValueError(f"per_run must have shape (runs, {len(levels)}), got {m.shape}.")
    return bootstrap_interval(lambda a: spearman(levels, a.mean(axis=0)), m, level=level, n_boot=n_boot, seed=seed)


def calibration_p(observed: int, predicted: float) -> float:
    """Whether ``observed`` changed verdicts over reruns agree with ``predicted`` (the sum of the rows' 1 −
    agreement): the two-sided exact Poisson p-value of ``observed`` at mean ``predicted`` (the sum of many rare,
    independent changes), doubling the smaller tail, at most 1. A small p says the rows' agreement is miscalibrated:
    too many changes (overconfident) or too few (underconfident)."""
    k = _whole(observed, "observed", 0, "a count of changed verdicts")
    if isinstance(predicted, (bool, np.bool_)) or not isinstance(predicted, Real):
        raise TypeError(f"predicted must be a positive expected number of changes, got {predicted!r:.60}.")
    if not (math.isfinite(predicted) and predicted > 0):
        raise ValueError(f"predicted must be a positive expected number of changes, got {predicted!r}.")
    low, high = stats.poisson.cdf(k, predicted), stats.poisson.sf(k - 1, predicted)
    return float(min(1.0, 2 * min(low, high)))


def wilson_half_width(successes, trials, z: float):
    """Half-width of the Wilson interval for ``successes`` of ``trials`` at normal quantile ``z``; vectorised
    over arrays (numpy broadcasting), a float for scalars. Positive even at 0 or all successes. ValueError unless
    every ``trials`` >= 1 and 0 <= ``successes`` <= ``trials`` (a NaN half-width would pass for an answer)."""
    k = _numeric(successes, "successes")
    n = _numeric(trials, "trials")
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(k) | ~np.isfinite(n) | (n < 1) | (k < 0) | (k > n)
    if np.any(bad):
        raise ValueError(
            f"wilson_half_width needs trials >= 1 and 0 <= successes <= trials, finite, got successes "
            f"{np.broadcast_to(k, bad.shape)[bad][0]:g} of trials {np.broadcast_to(n, bad.shape)[bad][0]:g}."
        )
    p = k / n
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(half) if half.ndim == 0 else half


def proportion_interval(successes: int, trials: int, level: float = 0.95) -> Interval:
    """Wilson interval for a proportion of independent trials."""
    check_probability(level, "level")
    _whole(trials, "trials", 1, "the number of trials")
    _whole(successes, "successes", 0, "the number of successes")
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {successes}/{trials}.")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = wilson_half_width(successes, trials, z)
    se = math.sqrt(max(p * (1 - p), 1e-12) / trials)
    return Interval(
        p, max(0.0, centre - half), min(1.0, centre + half), se, trials, level, f"Wilson over {trials} trials"
    )


def runs_needed(interval: Interval, target_halfwidth: float) -> int | None:
    """Runs needed for ``interval``'s half-width to shrink to ``target_halfwidth`` (half-width ~ 1/sqrt(n)).

    With a ``floor_se`` (a published mean's own se) only our part of the se shrinks with n: None when the
    floor alone is wider than the target (no number of our runs decides it)."""
    if not isinstance(interval, Interval):
        raise TypeError(
            f"interval must be an Interval (from mean_interval, paired_interval, ...), got {type(interval).__name__} "
            f"{interval!r:.60}."
        )
    if isinstance(target_halfwidth, (bool, np.bool_)) or not isinstance(target_halfwidth, Real):
        raise TypeError(f"target_halfwidth must be a half-width > 0 (a number), got {target_halfwidth!r:.60}.")
    if not (math.isfinite(interval.halfwidth) and interval.halfwidth > 0 and target_halfwidth > 0):
        return None
    floor = interval.floor_se
    if floor <= 0 or not (interval.se > floor):
        return int(math.ceil(interval.n * (interval.halfwidth / target_halfwidth) ** 2))
    q = interval.halfwidth / interval.se  # the quantile the interval uses
    room = (target_halfwidth / q) ** 2 - floor**2
    if room <= 0:
        return None
    return int(math.ceil(interval.n * (interval.se**2 - floor**2) / room))


def _check_reals(**values) -> None:
    """TypeError naming the first of ``values`` (name=value) that is not a real number (text, None, a bool)."""
    for name, value in values.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
            raise TypeError(f"{name} must be a number, got {value!r:.60} ({type(value).__name__}).")


def power_to_detect(effect: float, se: float, level: float = 0.95) -> float | None:
    """Probability that a two-sided test at ``level`` detects a true effect ``effect`` given the standard
    error ``se`` (normal approximation)."""
    _check_reals(effect=effect, se=se)
    check_level(level)
    if not (math.isfinite(effect) and math.isfinite(se)) or se <= 0:
        return None
    z = float(stats.norm.ppf(0.5 + level / 2))
    return float(stats.norm.cdf(abs(effect) / se - z))


def power_to_confirm(margin: float, se: float, level: float = 0.95) -> float | None:
    """Probability that the equivalence rule (interval inside ``paper ± margin``) confirms a paper value
    that is exactly right, given the standard error ``se`` (normal approximation)."""
    _check_reals(margin=margin, se=se)
    check_level(level)
    if not (math.isfinite(margin) and math.isfinite(se)) or se <= 0:
        return None
    z = float(stats.norm.ppf(0.5 + level / 2))
    return float(max(0.0, 2 * stats.norm.cdf(margin / se - z) - 1))


def _side_p(m: np.ndarray, s: np.ndarray, n: int) -> np.ndarray:
    """One-sided p-values of "mean > 0" for paired means ``m`` with standard errors ``s`` over ``n`` runs (same
    shapes): the t-test's, and where a difference did not vary over the runs the sign test's (0.5^n for a mean
    above 0, 1 otherwise)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = stats.t.sf(m / np.where(s > 0, s, 1.0), n - 1)
    return np.where(s > 0, p, np.where(m > 0, 0.5**n, 1.0))


def _sides_of_contrast(x: np.ndarray, group_a, group_b):
    """Both sides of :func:`best_contrast_interval` on runs ``x`` of shape (k, n, columns) (k sets of n runs):
    the pairs' mean differences ``m`` and ses ``s`` (k, |A|, |B|), and per side the corrected one-sided p with
    its deciding pair (positions into the groups), each (k,)."""
    k, n = x.shape[0], x.shape[1]
    d = x[:, :, group_a][:, :, :, None] - x[:, :, group_b][:, :, None, :]  # (k, n, |A|, |B|)
    m = d.mean(axis=1)
    s = d.std(axis=1, ddof=1) / math.sqrt(n)
    up, down = _side_p(m, s, n), _side_p(-m, s, n)
    rows = np.arange(k)
    # claimed side, A beats B: some a beats every b — the union over a (Bonferroni, |A|) of an intersection over b
    worst_b = up.max(axis=2)  # (k, |A|)
    a_up = worst_b.argmin(axis=1)
    b_up = up[rows, a_up].argmax(axis=1)
    p_up = np.minimum(1.0, len(group_a) * worst_b[rows, a_up])
    # other side, B beats A: every a is beaten by some b — an intersection over a of a union over b (Bonferroni, |B|)
    best_b = np.minimum(1.0, len(group_b) * down.min(axis=2))  # (k, |A|)
    a_dn = best_b.argmax(axis=1)
    b_dn = down[rows, a_dn].argmin(axis=1)
    p_dn = best_b[rows, a_dn]
    return m, s, (p_up, a_up, b_up), (p_dn, a_dn, b_dn)


def _choose_contrast(x: np.ndarray, groups):
    """The corrected decision of :func:`rows_contrast_interval` on runs ``x`` of shape (k, n, rows, columns):
    per set of runs the deciding row's chosen pair — its mean difference, se, the corrected two-sided p, the
    row, the pair's column positions, and the Bonferroni factor of the side taken — each of shape (k,)."""
    k = x.shape[0]
    ks = np.arange(k)
    per = [_sides_of_contrast(x[:, :, r, :], a, b) for r, (a, b) in enumerate(groups)]
    p_up = np.stack([u[0] for _, _, u, _ in per])  # (rows, k)
    p_dn = np.stack([d[0] for _, _, _, d in per])
    # the claimed side holds in every row (intersection-union: the weakest row decides); the other side in some
    # row (Bonferroni over the rows)
    r_up, r_dn = p_up.argmax(axis=0), p_dn.argmin(axis=0)
    side_up = p_up[r_up, ks]
    side_dn = np.minimum(1.0, len(groups) * p_dn[r_dn, ks])
    pick_up = side_up <= side_dn
    row = np.where(pick_up, r_up, r_dn)
    est, se, col_a, col_b, factor = (np.empty(k) for _ in range(5))
    for j in range(k):
        r = int(row[j])
        m, s, up, dn = per[r]
        side, f = (up, len(groups[r][0])) if pick_up[j] else (dn, len(groups[r][1]) * len(groups))
        a, b = int(side[1][j]), int(side[2][j])
        est[j], se[j] = m[j, a, b], s[j, a, b]
        col_a[j], col_b[j], factor[j] = groups[r][0][a], groups[r][1][b], f
    p = np.minimum(1.0, 2 * np.where(pick_up, side_up, side_dn))
    return est, se, p, row.astype(int), col_a.astype(int), col_b.astype(int), factor


def _corrected_se(est: np.ndarray, s: np.ndarray, p: np.ndarray, factor: np.ndarray, df: float, level: float):
    """The se at which a t-test over ``df`` degrees of freedom gives the corrected two-sided ``p`` for ``est``
    (so the ledger's test, read from the se, gives exactly that p); where p is 1 or the estimate 0, the
    Bonferroni-widened se of the pair (``factor`` choices), which decides nothing at any level that matters."""
    q = float(stats.t.ppf(0.5 + level / 2, df))
    fallback = s * stats.t.ppf(1 - (1 - level) / (2 * factor), df) / q
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = np.abs(est) / stats.t.isf(p / 2, df)
    ok = (p < 1) & (est != 0) & np.isfinite(exact)
    return np.where(ok, np.maximum(exact, s), fallback)


def _positions(group, name: str) -> list[int]:
    """``group`` as a list of column positions: TypeError naming ``name`` unless it is a list, tuple or 1-D array of
    whole numbers (a bare number, text, 0.7 or True is never read as a position)."""
    ok = isinstance(group, (list, tuple)) or isinstance(group, np.ndarray) and group.ndim == 1
    if not ok or not all(isinstance(i, Integral) and not isinstance(i, (bool, np.bool_)) for i in group):
        raise TypeError(f"{name} must be a list of column positions (whole numbers), e.g. [0, 2]; got {group!r:.60}.")
    return [int(i) for i in group]


def _check_groups(x: np.ndarray, group_a, group_b, names=("group_a", "group_b")) -> tuple[list[int], list[int]]:
    ga, gb = _positions(group_a, names[0]), _positions(group_b, names[1])
    if not ga or not gb or set(ga) & set(gb):
        raise ValueError(f"need two disjoint, non-empty groups of columns, got {ga} and {gb}.")
    if min(ga + gb) < 0 or max(ga + gb) >= x.shape[-1]:
        raise ValueError(f"column positions must lie in 0..{x.shape[-1] - 1}, got {ga} and {gb}.")
    if not np.all(np.isfinite(x[..., ga + gb])):
        raise ValueError("runs must be finite in the compared columns.")
    return ga, gb


def rows_contrast_interval(runs, groups, level: float = 0.95) -> tuple[Interval, int, int, int]:
    """ "In every row the optimum lies in that row's group A": :func:`best_contrast_interval` per row, combined
    over the rows — the claimed side must hold in every row (intersection-union: the weakest row decides, no
    correction), the other side in some row (Bonferroni over the rows).

    ``runs``: shape (n runs, rows, columns), paired over runs; ``groups``: per row ``(group_a, group_b)``,
    disjoint lists of column positions. Returns ``(interval, row, a, b)``: the deciding row and pair, the
    interval that pair's paired t-interval widened so that its se gives the corrected p (never narrower than
    the pair's own); ``redraw`` reruns every choice on predictive resamples of the runs. One run gives an
    unbounded interval."""
    check_probability(level, "level")
    x = _numeric(runs, "runs")
    pair = "a list of pairs (positions of the columns A, of the columns B), one per row, e.g. [([0], [1, 2])]"
    if (
        not isinstance(groups, Sequence)
        or isinstance(groups, str)
        or not all(isinstance(g, Sequence) and not isinstance(g, str) and len(g) == 2 for g in groups)
    ):
        raise TypeError(f"groups must be {pair}; got {groups!r:.60}.")
    if x.ndim != 3 or x.shape[1] != len(groups) or not len(groups):
        raise ValueError(f"runs must have shape (runs, {len(groups)} rows, columns), got {x.shape}.")
    groups = [
        _check_groups(x[:, r, :], a, b, (f"groups[{r}][0]", f"groups[{r}][1]")) for r, (a, b) in enumerate(groups)
    ]
    n = len(x)
    if n < 2:
        means = x.mean(axis=0)
        gaps = [means[r, a].max() - means[r, b].max() for r, (a, b) in enumerate(groups)]
        r = int(np.argmin(gaps))
        a, b = (
            groups[r][0][int(np.argmax(means[r, groups[r][0]]))],
            groups[r][1][int(np.argmax(means[r, groups[r][1]]))],
        )
        iv = Interval(float(gaps[r]), -math.inf, math.inf, math.nan, n, level, "one run: no interval (needs >= 2)")
        return iv, r, a, b
    df = float(n - 1)
    m, s, p, row, ca, cb, factor = _choose_contrast(x[None], groups)
    se = float(_corrected_se(m, s, p, factor, df, level)[0])
    est = float(m[0])
    q = float(stats.t.ppf(0.5 + level / 2, df))

    def redraw(gen, mm=None, k=1):
        idx = predictive_indices(gen, n, mm, k)
        e, sr, pr, _, _, _, fr = _choose_contrast(x[idx], groups)
        return e, _corrected_se(e, sr, pr, fr, float(idx.shape[1] - 1), level)

    over = f"{len(groups)} rows, " if len(groups) > 1 else ""
    method = (
        f"paired t-interval over {n} runs, corrected for choosing the pair from the data ({over}best of "
        f"{len(groups[int(row[0])][0])} vs best of {len(groups[int(row[0])][1])} columns: intersection-union for "
        "one side, Bonferroni for the other)"
    )
    iv = Interval(est, est - q * se, est + q * se, se, n, level, method, 0.0, redraw)
    return iv, int(row[0]), int(ca[0]), int(cb[0])


def best_contrast_interval(runs, group_a, group_b, level: float = 0.95) -> tuple[Interval, int, int]:
    """The paired difference between the best column of ``group_a`` and the best of ``group_b``, corrected for
    choosing both from the data.

    ``runs``: shape (n runs, columns), the columns measured on the same runs (paired); ``group_a``,
    ``group_b``: disjoint lists of column positions. The statement "the optimum lies in A" (max over A of the
    means > max over B) is decided by two tests, each valid for the choice it makes:

    * for A: some column a of A beats every column b of B — an intersection over b (no correction: every pair
      must pass, the weakest decides) inside a union over a (Bonferroni over |A|);
    * against A: every a is beaten by some b — a union over b (Bonferroni over |B|) inside an intersection over
      a (no correction).

    The side with the smaller corrected p is reported, with the pair that decides it: the interval is that
    pair's paired t-interval widened so that its se gives the corrected p (never narrower than the pair's own).
    ``redraw`` reruns the whole choice on predictive resamples of the runs. With |A| = 1 this is "column a is
    the best": against every other column, no correction to reproduce, Bonferroni over the others to
    contradict. Returns ``(interval, a, b)``, the chosen columns. One run gives an unbounded interval."""
    x = _numeric(runs, "runs")
    if x.ndim != 2:
        raise ValueError(f"runs must have shape (runs, columns), got {x.shape}.")
    group_a, group_b = _positions(group_a, "group_a"), _positions(group_b, "group_b")
    iv, _, a, b = rows_contrast_interval(x[:, None, :], [(group_a, group_b)], level)
    return iv, a, b
