"""The claims ledger: every statement of a paper we test, beside our evidence and a verdict by one rule set.

* :mod:`.ledger` — :class:`Ledger`, what a notebook records rows with, and :meth:`Ledger.finalise`, which judges
  them (the rules are in the module's docstring);
* :mod:`.vocab` — the words a row may use (verdicts, evidence classes, units) and what each verdict needs;
* :mod:`.decisions`, :mod:`.rules` — the tests behind a verdict (Holm, equivalence, stability, reruns) and the
  rules that read other profiles' ledgers;
* :mod:`.readings` — ambiguous statements: one row per reading, decided only where every reading agrees;
  :mod:`.ambiguities` registers the readings, :mod:`.central` the papers' central statements;
* :mod:`.store` — a ledger's JSON file, loading and checking saved ledgers;
* :mod:`.data_claims` — notebook 00's rows about the data layer.

Imports the base modules of :mod:`robeval.core` only (``paths``, ``profiles``, ``io``, ``manifest``, ``stats``,
``validation``): a verdict never depends on how its numbers were computed.
"""

from robeval.core.ledger.ledger import Ledger, check_ledger
from robeval.core.ledger.store import check_saved_ledger, claim_id_error, load_claims, load_ledgers
from robeval.core.ledger.vocab import (
    ABOUT,
    ALLOWED,
    CONSISTENCY,
    CONTRADICTED,
    DERIVATION,
    ENVIRONMENT,
    ERRATUM,
    EVIDENCE,
    EXACT,
    FAILED,
    INCONCLUSIVE,
    KINDS,
    MIN_BOOTSTRAP_N,
    MIN_TRAININGS,
    MODELS,
    NOISE_BASES,
    NOT_COMPARABLE,
    PAPERS,
    REANALYSIS,
    REPLICATION,
    REPRODUCED,
    ROUNDING,
    RUN_SPREAD,
    SAMPLING,
    SCALED,
    TRAINING_UNITS,
    UNIT_LIMITS,
    UNITS,
    VERDICTS,
    VERIFIED,
    Claim,
    check_verdict,
    check_vocabulary,
    comparable_span,
    holm,
    is_scaled,
    p_value,
    phrase_need,
    table_differences,
)
from robeval.core.paths import PROFILES

__all__ = [
    "ABOUT",
    "ALLOWED",
    "CONSISTENCY",
    "CONTRADICTED",
    "Claim",
    "DERIVATION",
    "ENVIRONMENT",
    "ERRATUM",
    "EVIDENCE",
    "EXACT",
    "FAILED",
    "INCONCLUSIVE",
    "KINDS",
    "Ledger",
    "MIN_BOOTSTRAP_N",
    "MIN_TRAININGS",
    "MODELS",
    "NOISE_BASES",
    "NOT_COMPARABLE",
    "PAPERS",
    "PROFILES",
    "REANALYSIS",
    "REPLICATION",
    "REPRODUCED",
    "ROUNDING",
    "RUN_SPREAD",
    "SAMPLING",
    "SCALED",
    "TRAINING_UNITS",
    "UNITS",
    "UNIT_LIMITS",
    "VERDICTS",
    "VERIFIED",
    "check_ledger",
    "check_saved_ledger",
    "check_verdict",
    "check_vocabulary",
    "claim_id_error",
    "comparable_span",
    "holm",
    "is_scaled",
    "load_claims",
    "load_ledgers",
    "p_value",
    "phrase_need",
    "table_differences",
]
