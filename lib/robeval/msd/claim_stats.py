"""Interval helpers shared by the MSD claims (:mod:`robeval.msd.claims_powerset`, :mod:`robeval.msd.claims_cbar`).

Uncertainty (``robeval.core.stats``, 95 %): a percentile bootstrap over the independent units of an experiment
(powerset schemes, candidate corruptions), t-intervals over independent runs, paired t-intervals over runs
measured in pairs. A statistic that cannot be bounded (fewer than two units, or a non-finite estimate) gets an
unbounded interval, which the ledger rules turn into an inconclusive verdict.
"""

from __future__ import annotations

import math

import numpy as np

from robeval.core import stats
from robeval.msd.nets import run_seed

LEVEL = 0.95


def unbounded(estimate: float, n: int, why: str) -> stats.Interval:
    """The interval of a statistic that cannot be bounded (fewer than two runs, or a failed statistic)."""
    est = float(estimate) if np.isfinite(estimate) else 0.0
    return stats.Interval(est, -math.inf, math.inf, math.nan, int(n), LEVEL, why)


def bootstrap(statistic, *samples, seed: int, n_boot: int = 2000) -> stats.Interval:
    """:func:`robeval.core.stats.bootstrap_interval` over the rows of ``samples`` (the independent units), or
    an unbounded interval with fewer than two rows or a non-finite estimate."""
    n = len(samples[0])
    est = float(statistic(*[np.asarray(s, dtype=float) for s in samples])) if n else math.nan
    if n < 2 or not np.isfinite(est):
        return unbounded(est, n, f"no interval ({n} unit(s))")
    return stats.bootstrap_interval(statistic, *samples, level=LEVEL, n_boot=int(n_boot), seed=int(seed))


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
