"""The tests behind :meth:`robeval.core.ledger.Ledger.consistency`: the paper's artefacts checked against each
other with the paper's own noise (issue 60, item 3).

Consistency and erratum pass the same kind of test: a gap between numbers of different runs (``RUN_SPREAD``) is a
draw with standard error ``noise / 1.96`` — the paper's own, so a rerun of ours recomputes it and more runs of ours
cannot narrow it (``floor_se``). :func:`gap_test` (a gap that should be 0): beyond the noise a difference test
(erratum); within it two one-sided tests for a true gap inside ± ``margin`` (consistency only where they reject).
:func:`direction_test` (a statement of direction, by its weakest claimed-side margin): consistency only beyond the
noise on the claimed side, an erratum only beyond it on the other. Every test joins the notebook's Holm family and
the stability gate in :meth:`robeval.core.ledger.Ledger.finalise`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from robeval.core.ledger import decisions as _decisions
from robeval.core.ledger.vocab import NOISE_BASES, RUN_SPREAD, finite_float

Z95 = 1.959963984540054  # the normal 97.5% quantile: a 95% band is 1.96 standard errors


@dataclass(frozen=True)
class GapTest:
    """What a check of the paper's numbers found: ``holds`` (True: consistency, False: erratum, None: neither
    shown), its ``test`` (None for an exact or rounding check: no sampling), the ``check`` text with the numbers, the
    ``estimate`` to record and, when undecided, what would decide it."""

    holds: bool | None
    test: object
    check: str
    estimate: float | None
    undecided: str


def _tolerance(id: str, noise, noise_basis: str, what: str) -> float:
    tol = finite_float(noise, "noise")
    if tol < 0:
        raise ValueError(f"{id}: noise must be >= 0, got {noise!r}.")
    if not noise_basis:
        raise ValueError(
            f"{id}: {what} needs noise= and noise_basis= saying what the paper's own noise is: one of {NOISE_BASES}."
        )
    return tol


def direction_test(id: str, claimed, noise, noise_basis: str, check: str) -> GapTest:
    """A statement of direction judged by ``claimed``, its weakest margin on the claimed side (signed, in the units
    of ``noise``): holds beyond ``+noise``, fails beyond ``-noise``, undecided between."""
    c = finite_float(claimed, "claimed")
    tol = _tolerance(id, noise, noise_basis, "claimed=")
    check = (
        f"{check}; consistency only beyond the paper's own noise on the claimed side, erratum only beyond it on the "
        f"other ({noise_basis}): weakest claimed-side margin {c:.4g} vs {tol:.4g}"
    )
    holds = True if c > tol else False if c < -tol else None
    test = None
    if noise_basis == RUN_SPREAD and tol > 0:
        test = _decisions.Test(_decisions.DIFFERENCE, c, tol / Z95, math.inf, 1, tol / Z95)
    undecided = (
        ""
        if holds is not None
        else f"a margin beyond the paper's own noise on either side: the weakest claimed-side margin, {c:.4g}, lies "
        f"within ± {tol:.4g}, so the printed numbers neither show the statement nor contradict it"
    )
    return GapTest(holds, test, check, c, undecided)


def gap_test(id: str, discrepancy, noise, noise_basis: str, check: str, margin=None) -> GapTest:
    """A gap that should be 0 (``discrepancy``, in the paper's units) against the paper's own ``noise``: an
    erratum only beyond it; with :data:`RUN_SPREAD`, a consistency only where an equivalence test against
    ± ``margin`` (default ``noise``) shows the true gap within it."""
    d = finite_float(discrepancy, "discrepancy")
    tol = _tolerance(id, noise, noise_basis, "discrepancy=")
    holds = abs(d) <= tol
    check = f"{check}; erratum only beyond the paper's own noise ({noise_basis}): |{d:.4g}| vs {tol:.4g}"
    if margin is not None and noise_basis != RUN_SPREAD:
        raise ValueError(
            f"{id}: margin= is the equivalence margin of a gap between runs (noise_basis={RUN_SPREAD!r}); with "
            f"{noise_basis!r} the gap is decided by noise= alone."
        )
    if noise_basis != RUN_SPREAD or tol == 0:
        return GapTest(holds, None, check, d, "")
    se = tol / Z95
    if not holds:
        return GapTest(False, _decisions.Test(_decisions.DIFFERENCE, -abs(d), se, math.inf, 1, se), check, d, "")
    m = tol if margin is None else finite_float(margin, "margin")
    if m <= 0:
        raise ValueError(f"{id}: margin must be > 0 (the largest gap the statement tolerates).")
    test = _decisions.Test(_decisions.EQUIVALENCE, d, se, math.inf, 1, se, m)
    p_eq = _decisions.p_decision(test, _decisions.EQUIVALENT)
    check = f"{check}; consistency only if a true gap within ± {m:.4g} is shown (TOST p = {p_eq:.3g})"
    if p_eq < _decisions.ALPHA:
        return GapTest(True, test, check, d, "")
    undecided = (
        f"a gap shown to lie within ± {m:.4g}: ours, {d:.4g}, lies within the paper's noise ({tol:.4g}) but the "
        f"paper's own spread (se {se:.3g}) is too wide for an equivalence test against ± {m:.4g} to reject (TOST p = "
        f"{p_eq:.3g}); so close a check could not have found an erratum either — a statement with a wider tolerated "
        "gap, or the paper's runs with a smaller spread, would decide it"
    )
    return GapTest(None, test, check, d, undecided)
