"""Shared rules of the ACR claims (:mod:`robeval.acr.claims`, notebooks 08 and 09): the names of methods,
noise levels and training variants, and how a statement with several parts is decided.

* :data:`LEVEL` (family-wise confidence), :data:`SIGMAS`, the published methods (``NAMES``, ``SOTA``) and the
  training variants of notebook 09 (:data:`VARIANT_NAMES`, ``ALONE``, ``PAIRS``);
* :func:`decide` — the verdict of one interval against a direction or a printed value with its margin;
* :func:`weakest` — a statement with several parts, each at the Bonferroni level ``1 - 0.05 / parts``, is
  decided by its weakest part; :func:`best_of` — a statement whose noise level was lost ("with sigma = ?")
  holds when it holds at some sigma; :func:`single_run_interval` — the no-CI stand-in for one run.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from robeval.acr.published import (
    METHOD_NAMES,
    METHODS,
)
from robeval.core.ledger import CONTRADICTED, INCONCLUSIVE, REPRODUCED
from robeval.core.stats import Interval, mean_interval

LEVEL = 0.95  # family-wise confidence of every statement (split over its parts by Bonferroni)
SIGMAS = (0.25, 0.5, 1.0)
NAMES = METHOD_NAMES
SOTA = tuple(m for m in METHODS if m != "gaussian")
VARIANT_NAMES = {
    "gaussian": "Gaussian",
    "discard": "discard hard data",
    "reweight": "reweight by certified radius",
    "attack": "adaptive attack",
    "discard+reweight": "discard + reweight",
    "discard+attack": "discard + attack",
    "reweight+attack": "reweight + attack",
    "all": "all three (Ours)",
}
ALONE = ("discard", "reweight", "attack")
PAIRS = ("discard+reweight", "discard+attack", "reweight+attack")


def variant_id(variant: str) -> str:
    """A variant's name as it appears in claim ids ('+' is not allowed there)."""
    return variant.replace("+", "-")


# --------------------------------------------------------------------------------------------
# deciding statements with several parts
# --------------------------------------------------------------------------------------------


def decide(interval: Interval, *, direction: str | None = None, paper=None, margin=None) -> str:
    """The verdict the ledger's rule gives ``interval``: with ``direction`` the comparison rule (the interval
    excludes 0 on that side), with ``paper`` and ``margin`` the equivalence rule (inside ``paper ± margin``)."""
    if direction is not None:
        lo, hi = (interval.low, interval.high) if direction == ">" else (-interval.high, -interval.low)
        return REPRODUCED if lo > 0 else CONTRADICTED if hi < 0 else INCONCLUSIVE
    if paper - margin <= interval.low and interval.high <= paper + margin:
        return REPRODUCED
    if interval.high < paper - margin or interval.low > paper + margin:
        return CONTRADICTED
    return INCONCLUSIVE


def _slack(interval: Interval, direction=None, paper=None, margin=None) -> float:
    """How far the interval is from flipping its verdict (smaller = weaker evidence for the statement)."""
    if direction is not None:
        return interval.low if direction == ">" else -interval.high
    return min(interval.low - (paper - margin), (paper + margin) - interval.high)


def weakest(parts, **rule) -> tuple:
    """The part that decides an "every part holds" statement: a contradicted part if any (the most extreme),
    else an inconclusive one, else the reproduced part with the least room.

    Parameters
    ----------
    parts : sequence of (label, Interval)
    rule : ``direction=">"|"<"`` or ``paper=..., margin=...`` (see :func:`decide`)

    Returns
    -------
    (label, Interval, verdict)
    """
    parts = list(parts)
    if not parts:
        raise ValueError("a statement needs at least one part.")
    rank = {CONTRADICTED: 0, INCONCLUSIVE: 1, REPRODUCED: 2}
    scored = [(rank[decide(iv, **rule)], _slack(iv, **rule), label, iv) for label, iv in parts]
    r, _, label, iv = min(scored, key=lambda t: (t[0], t[1]))
    return label, iv, decide(iv, **rule)


def best_of(options) -> tuple:
    """The option that decides a "holds for some option" statement (e.g. "at some sigma"): a reproduced option
    if any, else an inconclusive one, else a contradicted one. The option is chosen by the data, so each
    option's intervals must already be corrected for the choice (their Bonferroni level counts the options as
    well as the parts): a reproduction by some option is then a union test at the family's level, and a
    contradiction needs every option contradicted (an intersection: no further correction).

    Parameters
    ----------
    options : sequence of (label, (part_label, Interval, verdict)) — each the :func:`weakest` of its parts
    """
    options = list(options)
    if not options:
        raise ValueError("best_of needs at least one option.")
    rank = {REPRODUCED: 0, INCONCLUSIVE: 1, CONTRADICTED: 2}
    return min(options, key=lambda o: rank[o[1][2]])


def bonferroni(k: int, level: float = LEVEL) -> float:
    return 1 - (1 - level) / max(int(k), 1)


def single_run_interval(values) -> Interval:
    """An interval over runs: the t-interval of :func:`robeval.core.stats.mean_interval` with >= 2 runs; with one
    run the estimate and an unbounded interval (a single run decides nothing: the row stays inconclusive)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if len(v) >= 2:
        return mean_interval(v, LEVEL)
    if len(v) == 1 and np.isfinite(v[0]):
        return Interval(float(v[0]), -math.inf, math.inf, math.nan, 1, LEVEL, "one run: no interval (needs >= 2)")
    raise ValueError("no finite run to summarise.")


def one_run_note(interval: Interval) -> str:
    """A note for rows that rest on a single run (the ledger's ``decides`` cannot size an unbounded interval)."""
    return " — a single seed gives no interval: 2 or more seeds decide" if interval.n < 2 else ""


def _parts_text(parts, fmt="{:+.4f}") -> str:
    return "; ".join(
        f"{label}: {fmt.format(iv.estimate)} [{fmt.format(iv.low)}, {fmt.format(iv.high)}]" for label, iv in parts
    )


def per_run_trend_interval(levels, per_run, level: float = LEVEL) -> Interval:
    """A trend over ``levels`` valid at a few runs: the Spearman correlation of each run's curve with the levels
    (``per_run``: shape (runs, k)), and the t-interval of their mean over the runs (a percentile bootstrap over
    3-4 runs has no useful coverage). All runs with the same rho give a zero-width interval at that rho."""
    from robeval.core.stats import spearman

    x = np.asarray(levels, dtype=np.float64)
    m = np.asarray(per_run, dtype=np.float64)
    if m.ndim != 2 or m.shape[1] != len(x):
        raise ValueError(f"per_run must have shape (runs, {len(x)}), got {m.shape}.")
    rho = np.array([spearman(x, row) for row in m], dtype=np.float64)
    iv = single_run_interval(rho)
    return dataclasses.replace(iv, method=f"{iv.method} of the per-run Spearman rho")


EFFECT_RADIUS = 2.0  # in units of sigma: the radii where the paper's ACR gains live (p_A >= Phi(2) ~ 0.977)


def largest_radius(n: int, alpha: float, sigma: float) -> float:
    """``sigma * Phi^-1(alpha^(1/N))``: the largest radius a budget ``(N, alpha)`` can certify."""
    from scipy.stats import norm

    return float(sigma * norm.ppf(float(alpha) ** (1 / int(n))))


def radius_mechanism(n: int, alpha: float, sigma: float, r_max: float | None = None) -> tuple[bool, str]:
    """Whether the p_A -> 1 mechanism of the paper's ACR gains survives a certification budget: the budget must
    certify the radii where the paper's effect lives (``EFFECT_RADIUS * sigma``, e.g. 1.0 at sigma=0.5; Table 5
    reads its gains there and beyond). ``r_max``: the largest radius the budget certifies (default: fixed-N
    CERTIFY's :func:`largest_radius`; a sequential budget passes its own). Returns ``(survives, the reason)`` for
    the ledger's ``mechanism``."""
    r_max = largest_radius(n, alpha, sigma) if r_max is None else float(r_max)
    need = EFFECT_RADIUS * float(sigma)
    if r_max >= need:
        return True, (
            f"N={n} certifies radii up to {r_max:.2f} >= {need:g} at sigma={sigma}: the easy inputs whose p_A -> 1 "
            "the components reward still reach the large radii where the paper's ACR gains live"
        )
    return False, (
        f"N={n} caps the certified radius at {r_max:.2f} < {need:g} at sigma={sigma}: the p_A -> 1 mechanism the "
        "ablation is about (easy inputs pushed to large radii) is cut off by the budget, so the ACR gains the paper reports cannot show at this budget"
    )
