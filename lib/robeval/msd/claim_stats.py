"""Interval helpers shared by the MSD claims (:mod:`robeval.msd.claims_powerset`, :mod:`robeval.msd.claims_cbar`).

Uncertainty (``robeval.core.stats``, 95 %): a percentile bootstrap over the independent units of an experiment
(powerset schemes, candidate corruptions), t-intervals over independent runs, paired t-intervals over runs
measured in pairs. A statistic that cannot be bounded (fewer than two units, or a non-finite estimate) gets an
unbounded interval, which the ledger rules turn into an inconclusive verdict.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from robeval.core import stats
from robeval.msd.nets import run_seed

LEVEL = 0.95


def unbounded(estimate: float, n: int, why: str) -> stats.Interval:
    """The interval of a statistic that cannot be bounded (fewer than two runs, or a failed statistic)."""
    est = float(estimate) if np.isfinite(estimate) else 0.0
    return stats.Interval(est, -math.inf, math.inf, math.nan, int(n), LEVEL, why)


def bootstrap(
    statistic, *samples, seed: int, n_boot: int = 2000, unit: str = "runs", mean_of_units: bool = False
) -> stats.Interval:
    """:func:`robeval.core.stats.bootstrap_interval` over the rows of ``samples`` (the independent units, named
    ``unit`` in the interval's method), or an unbounded interval with fewer than two rows or a non-finite
    estimate.

    ``mean_of_units``: the statistic is a mean over the units of a per-unit value (minus a constant), e.g. a mean
    percentile. A statistic at the bound of its range (every unit at its extreme: every resample alike, a
    zero-width interval) then gets the sign test over the units, 2 · 2^-n, as its exact p, not the bootstrap's
    resolution 2 / (B + 1): the bound is as sure as n units all on one side make it (issue 60, item 7)."""
    n = len(samples[0])
    est = float(statistic(*[np.asarray(s, dtype=float) for s in samples])) if n else math.nan
    if n < 2 or not np.isfinite(est):
        return unbounded(est, n, f"no interval ({n} {unit})")
    iv = stats.bootstrap_interval(statistic, *samples, level=LEVEL, n_boot=int(n_boot), seed=int(seed))
    method = iv.method.replace(f"over {n} runs", f"over {n} {unit}")
    if mean_of_units and iv.se == 0 and est != 0:  # every unit alike, on one side: the sign test over the units
        return dataclasses.replace(iv, method=f"{method}; every {unit[:-1] if unit.endswith('s') else unit} alike: "
                                   f"sign test over the {n} {unit}", exact_p=min(1.0, 2.0 * 0.5**n))  # fmt: skip
    return dataclasses.replace(iv, method=method)


def mean_over_runs(values) -> stats.Interval:
    """t-interval over independent runs, or an unbounded interval with fewer than two finite runs."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return unbounded(float(v.mean()) if len(v) else math.nan, len(v), f"no interval ({len(v)} run(s))")
    return stats.mean_interval(v, LEVEL)


def paired_over_runs(a, b) -> stats.Interval:
    """Paired t-interval of ``a − b`` over runs, or an unbounded interval with fewer than two runs."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2:
        return unbounded(float(np.mean(a - b)) if len(a) else math.nan, len(a), f"no interval ({len(a)} run(s))")
    return stats.paired_interval(a, b, LEVEL)


def claim_seed(cfg_seed: int, claim_id: str) -> int:
    return run_seed(cfg_seed, "bootstrap", claim_id)


def welch_over_units(a, b, unit: str = "schemes") -> stats.Interval:
    """Welch t-interval of ``mean(a) − mean(b)`` over two groups of independent units (valid at small n, where a
    percentile bootstrap is not), or an unbounded interval with fewer than two units in a group."""
    from scipy import stats as st

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    n = len(a) + len(b)
    if len(a) < 2 or len(b) < 2:
        est = float(a.mean() - b.mean()) if len(a) and len(b) else math.nan
        return unbounded(est, n, f"no interval ({len(a)} and {len(b)} {unit})")
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    est = float(a.mean() - b.mean())
    if se == 0:
        return stats.Interval(est, est, est, 0.0, n, LEVEL, f"Welch t-interval over {n} {unit} (no spread)")
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    t = float(st.t.ppf(0.5 + LEVEL / 2, df))
    return stats.Interval(est, est - t * se, est + t * se, se, n, LEVEL, f"Welch t-interval over {n} {unit}")


def shifted_mean(values, shift: float, unit: str = "schemes") -> stats.Interval:
    """t-interval of ``shift − mean(values)`` over independent units (a fixed reference minus a group mean)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return unbounded(float(shift - v.mean()) if len(v) else math.nan, len(v), f"no interval ({len(v)} {unit})")
    iv = stats.mean_interval(shift - v, LEVEL)
    return dataclasses.replace(iv, method=f"t-interval over {iv.n} {unit}")
