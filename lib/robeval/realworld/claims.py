"""Claims of Scher & Trügler (real-world robustness) recorded by notebooks 05 (Iris, Ionosphere), 06 (fog)
and 07 (analytical cases), under the rules of :mod:`robeval.core.ledger`: the public entry point the notebooks
call.

One function per notebook reads the notebook's result files and records every claim:
:func:`evaluate_sec41` (05), :func:`evaluate_fog` (06) and :func:`evaluate_analytic` (07). They call the
``record_*`` functions, which take the per-run statistics as tables (so that tests can hand them made-up
inputs). ``INDEX_05``, ``INDEX_06`` and ``INDEX_07`` list what the paper states that a reproduction could test,
each with the claim ids that test it or the reason none does; the notebooks pass them to
:meth:`robeval.core.ledger.Ledger.cover`.

This module re-exports them from where they live:

* :mod:`robeval.realworld.claims_sec41` — notebook 05 (Sec. 4.1, Figs. 3-5): ``INDEX_05``,
  :func:`evaluate_sec41` and its ``record_*`` functions;
* :mod:`robeval.realworld.claims_fog` — notebook 06 (Sec. 4.2, Fig. 6): ``INDEX_06``, :func:`evaluate_fog`,
  :func:`record_fog_claims`;
* :mod:`robeval.realworld.claims_analytic` — notebook 07 (Appendix A): ``INDEX_07``,
  :func:`evaluate_analytic`, :func:`record_analytic_claims`;
* :mod:`robeval.realworld.claim_stats` — shared: the thresholds (``RESOLUTION``, ``FIG3_AXIS_FLOOR``,
  ``PRINTED``, ...) and :func:`run_interval`.

How the rows decide
-------------------
* Statements about the trained classifiers of Sec. 4 (stochastic: split, model, attack start, Monte Carlo) are
  judged on intervals over independent *runs* (:mod:`robeval.core.stats`), paired by run where two quantities
  come from the same run. With fewer than two runs a row is ``inconclusive``.
* The thresholds some statements need come from the paper itself: its figure axes (Fig. 3), its convergence
  criterion (0.999), or -- where the paper gives none -- the resolution of its own estimator: ``RESOLUTION`` =
  0.01, twice the binomial standard error of one estimate of P_r = 1/2 with the paper's N = 10^4 samples.
* Closed forms (Appendix A) decide exactly (``fact``); the paper's prose against its own formulas and captions
  are ``consistency`` rows (``consistency`` or ``erratum``), never reproductions.

What each verdict rests on (``evidence`` / ``unit`` of :mod:`robeval.core.ledger`)
------------------------------------------------------------------------------------
* 05 (Sec. 4.1): ``replication`` over independent trainings (``forest runs`` for the Iris forest, ``training
  runs`` for the Ionosphere MLP; ``about="models"`` for the rows about the classifiers); at the default profile
  ``scaled replication`` with the settings' ``mechanism``. The Fig. 3a/3b axis rows are tested under every
  reading the paper leaves open (:data:`robeval.realworld.claims_sec41.FIG3_READINGS`) and combined with
  :meth:`~robeval.core.ledger.Ledger.readings`. ``fig3c-legend-n`` (``reanalysis``) and
  ``sec41-trace-normalisation`` (``derivation``) are the paper against itself, errata only beyond its own noise.
* 06 (Sec. 4.2): ``replication`` over trained networks; on the synthetic stand-in every row declares
  ``survives=False`` ("synthetic data") and is ``not comparable``.
* 07 (Appendix A): ``derivation`` (closed forms; our Monte-Carlo estimator against our own closed forms, over
  ``grid points``), the Fig. A.2 caption ``reanalysis``. The paper's qualitative words (``A1-monotone``,
  ``A1-rw-exponential``) are read with one standard of charity: as qualitative claims, an erratum only when the
  charitable reading fails too.
"""

from __future__ import annotations

from robeval.realworld.claim_stats import (
    CONVERGENCE as CONVERGENCE,
)
from robeval.realworld.claim_stats import (
    FIG3_AXIS_FLOOR,
    PRINTED,
    RESOLUTION,
    run_interval,
)
from robeval.realworld.claim_stats import (
    FIG3C_AXIS as FIG3C_AXIS,
)
from robeval.realworld.claim_stats import (
    SEC41_FIGURES as SEC41_FIGURES,
)
from robeval.realworld.claim_stats import (
    SMOKE_NOTE as SMOKE_NOTE,
)
from robeval.realworld.claims_analytic import (
    INDEX_07,
    evaluate_analytic,
    record_analytic_claims,
)
from robeval.realworld.claims_fog import (
    INDEX_06,
    evaluate_fog,
    record_fog_claims,
)
from robeval.realworld.claims_sec41 import (
    FIG3_AMBIGUITY,
    FIG3_READINGS,
    INDEX_05,
    evaluate_sec41,
    record_covariance_claims,
    record_fig3_range_claims,
    record_sec41_claims,
    record_sec41_consistency,
)

__all__ = [
    "INDEX_05",
    "INDEX_06",
    "INDEX_07",
    "FIG3_READINGS",
    "FIG3_AMBIGUITY",
    "RESOLUTION",
    "FIG3_AXIS_FLOOR",
    "PRINTED",
    "run_interval",
    "record_sec41_claims",
    "record_fig3_range_claims",
    "record_covariance_claims",
    "record_sec41_consistency",
    "evaluate_sec41",
    "record_fog_claims",
    "evaluate_fog",
    "record_analytic_claims",
    "evaluate_analytic",
]
