"""Shared rules of the real-world robustness claims (:mod:`robeval.realworld.claims`, notebooks 05-07):
the thresholds taken from the paper and the intervals over runs.

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

RESOLUTION = 2 * math.sqrt(0.25 / 10_000)  # 0.01: 2 SE of one P_r = 1/2 estimate with the paper's N = 10^4
CONVERGENCE = 0.999  # Sec. 4.1.3 / 4.2: "the correlation was larger than 0.999 for all pairs of runs"
SEC41_FIGURES = {"iris": 3, "ionosphere": 4}
# Fig. 3a/3b: the lowest y tick and the tick spacing bound the axis' lower end, hence the plotted minimum
# (no point of a scatter plot lies below its axis): 3a ticks 0.80, 0.85, ... -> axis starts above 0.75;
# 3b ticks 0.6, 0.7, ... -> above 0.5. Keyed by the perturbation scale of the panel.
FIG3_AXIS_FLOOR = {0.07: (0.75, "Fig. 3a", "lowest y tick 0.80, ticks every 0.05"),
                   0.43: (0.5, "Fig. 3b", "lowest y tick 0.6, ticks every 0.1")}  # fmt: skip
# Fig. 3c: y ticks 0.2 ... 0.8 every 0.1, so the plotted correlations lie inside (0.1, 0.9)
FIG3C_AXIS = (0.1, 0.9)
SMOKE_NOTE = "smoke profile: checks the pipeline only (few points, samples and runs)"
# what the paper prints, for the consistency rows (the paper against itself)
PRINTED = {
    "text_n_samples": 10_000,  # Sec. 4.1: "N = 10000 samples ... for each test point"
    "fig3c_legend_n": 100_000,  # Fig. 3c legend: "brute force n:1.0e+05"
    "stated_trace": 1,  # Sec. 4.1: covariance "normalized to a trace of 1"
    "identity_diagonal": 1,  # Sec. 4.1: identity with "all diagonal terms 1", same trace (Fig. 5)
    "figA2_caption_model": "linear",  # Fig. A.2 caption: "2-dimensional linear decision boundary, w1 = 0, w2 = 1"
    "figA2_model": "right_angle",  # App. A.2: the right-angle rule model
}


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


def _too_few(claim: Claim, interval, what: str = "runs (setting n_runs)") -> Claim:
    """Say how many runs decide a row that had fewer than two (its interval is unbounded)."""
    if interval.n < 2 and claim.verdict not in ("not comparable",):
        claim.decides = f">= 3 independent {what}; this profile had {interval.n}"
    return claim


def _note(*parts) -> str:
    return "; ".join(p for p in parts if p)
