"""Shared rules of the real-world robustness claims (:mod:`robeval.realworld.claims`, notebooks 05-07):
the thresholds and the intervals over runs (the paper's printed numbers are in :mod:`.published`).

* ``RESOLUTION`` (0.01: twice the binomial standard error of one estimate of P_r = 1/2 with the paper's
  N = 10^4 samples), ``CONVERGENCE`` (0.999), the Fig. 3 axis bounds (``FIG3_AXIS_FLOOR``, ``FIG3C_AXIS``)
  and what the paper prints (``PRINTED``) for the consistency rows;
* :func:`run_interval` — the t-interval over independent runs (paired by run where two quantities come from
  the same run); a row resting on fewer than two runs is ``inconclusive``.
"""

from __future__ import annotations

import math

import numpy as np

from robeval.core.ledger import Claim
from robeval.realworld.published import (  # noqa: F401  (the paper's numbers, re-exported for the claims)
    CONVERGENCE,
    FIG3_AXIS_FLOOR,
    FIG3C_AXIS,
    PAPER_REPEATS,
    PRINTED,
    SEC41_FIGURES,
)

RESOLUTION = 2 * math.sqrt(0.25 / 10_000)  # 0.01: 2 SE of one P_r = 1/2 estimate with the paper's N = 10^4
SMOKE_NOTE = "smoke profile: checks the pipeline only (few points, samples and runs)"


# --------------------------------------------------------------------------------------------------
# intervals over runs
# --------------------------------------------------------------------------------------------------
def run_interval(values, *, paired_with=None, level: float = 0.95):
    """t-interval over independent runs of ``values`` (paired: of ``values − paired_with``), NaN runs dropped.

    Returns ``(interval, n_dropped)``. With fewer than two finite runs the interval is unbounded
    (``(-inf, inf)``, method "fewer than 2 runs: no interval"), so every rule reads it as inconclusive.
    """
    from robeval.core.stats import Interval, mean_interval, paired_interval

    a = np.asarray(values, dtype=np.float64).reshape(-1)
    if paired_with is None:
        keep = np.isfinite(a)
        b = None
    else:
        b = np.asarray(paired_with, dtype=np.float64).reshape(-1)
        if a.shape != b.shape:
            raise ValueError(f"paired values need the same runs: {a.size} vs {b.size}.")
        keep = np.isfinite(a) & np.isfinite(b)
    dropped = int((~keep).sum())
    if keep.sum() < 2:
        est = float((a[keep] - (b[keep] if b is not None else 0.0))[0]) if keep.any() else 0.0
        return Interval(
            est, -math.inf, math.inf, math.nan, int(keep.sum()), level, "fewer than 2 runs: no interval"
        ), dropped
    if b is None:
        return mean_interval(a[keep], level), dropped
    return paired_interval(a[keep], b[keep], level), dropped


def has_paper_repeats(n_repeats) -> bool:
    """Whether a convergence check ran the paper's 20 Monte-Carlo repetitions (or more): its minimum pairwise
    correlation is then over the paper's 190 pairs; over fewer it is biased upward, towards the claim."""
    return isinstance(n_repeats, (int, np.integer)) and n_repeats >= PAPER_REPEATS


def too_few(claim: Claim, interval, what: str = "runs (setting n_runs)") -> Claim:
    """Say how many runs decide a row that had fewer than two (its interval is unbounded)."""
    if interval.n < 2 and claim.verdict not in ("not comparable",):
        claim.decides = f">= 3 independent {what}; this profile had {interval.n}"
    return claim


def note_text(*parts) -> str:
    return "; ".join(p for p in parts if p)
