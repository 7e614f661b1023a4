"""The claims of notebooks 08 and 09 (Sun et al., *ACR is a poor metric for randomized smoothing*): the public
entry point the notebooks call.

One library function per notebook reads the notebook's result files and records every claim with the rules
of :class:`robeval.core.ledger.Ledger`:

* :func:`evaluate_published_certifications` (notebook 08) — the authors' published certification files, the
  printed tables and the closed forms;
* :func:`evaluate_rs_training` (notebook 09) — our trained variants of Gaussian training (Table 5, Table 2).

This module re-exports them, with every ``record_*`` function, from where they live:

* :mod:`robeval.acr.claims_certifications` — notebook 08: :func:`evaluate_published_certifications`,
  :func:`index_08` and the statements about the published models over test images;
* :mod:`robeval.acr.claims_consistency` — notebook 08: the authors' artefacts against each other (printed
  tables, certification and ECDF files) and the closed forms (Sec. 4.2, Theorem 1, the toy example);
* :mod:`robeval.acr.claims_training` — notebook 09: :func:`evaluate_rs_training`, :func:`index_09`, Table 5,
  Table 2 and App. E.3 over seeds;
* :mod:`robeval.acr.claim_rules` — shared: the method, sigma and variant names and the rules deciding a
  statement (:func:`decide`, :func:`weakest`, :func:`best_of`, :func:`single_run_interval`).

Evidence of the rows (:mod:`robeval.core.ledger`)
-------------------------------------------------
``reanalysis`` (notebook 08)
    The authors' artefacts: a printed table against the authors' certification or ECDF files, the text
    against its own tables; and the statements about the published models decided on the certification files
    with their sampling error over test images (``unit`` "test images": the models are fixed, the 10 000
    CIFAR-10 (500 ImageNet) test images are a sample; models certified on the same images are compared image
    by image, :func:`robeval.core.stats.paired_interval`). A statement about training *methods* ("every SOTA
    method ...", "Ours has the best ACR") rests on one released model per method: ``about="models"``, so
    it is never decided "consistent" on those files (it can still be an erratum). Statements describing the
    released models themselves (Figs. 3 and 9, the ImageNet recovery share) are decided.
``derivation`` (notebook 08)
    Closed forms and identities evaluated exactly (Theorem 1 at the proof's budget, the slope of the radius,
    the budget toy example, Appendix B's maps). Where the paper's parameters were lost, every reasonable
    reading is a row, combined with :meth:`~robeval.core.ledger.Ledger.readings` (``B1_plugin_is_expectation``
    over cheap budgets, ``S41_toy_order_flips`` over the ACR's plug-in and expected readings).
``replication`` / ``scaled replication`` (notebook 09)
    Our training runs: intervals over independent seeds (``unit`` "training runs"), paired by seed (every
    variant of a seed shares its training images, initialisation, warm-up and certification noise), all
    about training methods. The Table 5 ACR and large-radius rows keep their mechanism only when the budget
    certifies the radii where the paper's gains live (:func:`radius_mechanism`); otherwise they are "not
    comparable".

Statements with several parts ("every SOTA method is below Gaussian", "A's ECDF is above B's for every x")
are decided by their weakest part (:func:`weakest`), each part at the Bonferroni level ``1 - 0.05 / parts``:
reproduced when every part is, contradicted when any part is contradicted, inconclusive otherwise. Statements
whose noise level was lost in the text extraction ("with sigma = ?, ...") hold when they hold at some sigma
(:func:`best_of`).

Each notebook's claims index (:func:`index_08`, :func:`index_09`) lists every table, figure and statement of
the paper that notebook covers, with the rows testing it or the reason none does.
"""

from __future__ import annotations

from robeval.acr.claim_rules import (
    ALONE as ALONE,
)
from robeval.acr.claim_rules import (
    LEVEL,
    SIGMAS,
    VARIANT_NAMES,
    best_of,
    decide,
    per_run_trend_interval,
    radius_mechanism,
    single_run_interval,
    weakest,
)
from robeval.acr.claim_rules import (
    NAMES as NAMES,
)
from robeval.acr.claim_rules import (
    PAIRS as PAIRS,
)
from robeval.acr.claim_rules import (
    SOTA as SOTA,
)
from robeval.acr.claims_certifications import (
    evaluate_published_certifications,
    index_08,
    record_appb3_claims,
    record_fig3_claims,
    record_fig11_claims,
    record_imagenet_recovery_claims,
    record_ours_best_acr_claims,
    record_sec6_large_radius_claims,
    record_sec7_claims,
    record_sec51_claims,
)
from robeval.acr.claims_consistency import (
    ACC_UNIT as ACC_UNIT,
)
from robeval.acr.claims_consistency import (
    ACR_UNIT as ACR_UNIT,
)
from robeval.acr.claims_consistency import (
    plugin_expectation_gaps,
    record_ablation_table_consistency,
    record_appendix_b_claims,
    record_ecdf_file_consistency,
    record_sec42_claims,
    record_table1_consistency,
    record_table2_consistency,
    record_table5_consistency,
    record_table8_consistency,
    record_table_consistency,
    record_theorem1_claims,
    record_toy_claims,
)
from robeval.acr.claims_training import (
    evaluate_rs_training,
    index_09,
    record_discard_claims,
    record_table2_claims,
    record_table5_claims,
    record_table5_sequential_claims,
)

__all__ = [
    "LEVEL",
    "SIGMAS",
    "VARIANT_NAMES",
    "best_of",
    "decide",
    "evaluate_published_certifications",
    "evaluate_rs_training",
    "index_08",
    "index_09",
    "per_run_trend_interval",
    "plugin_expectation_gaps",
    "radius_mechanism",
    "record_ablation_table_consistency",
    "record_appb3_claims",
    "record_appendix_b_claims",
    "record_ecdf_file_consistency",
    "record_fig3_claims",
    "record_fig11_claims",
    "record_imagenet_recovery_claims",
    "record_ours_best_acr_claims",
    "record_sec42_claims",
    "record_sec51_claims",
    "record_sec6_large_radius_claims",
    "record_sec7_claims",
    "record_table1_consistency",
    "record_table2_consistency",
    "record_table5_consistency",
    "record_table8_consistency",
    "record_table_consistency",
    "record_discard_claims",
    "record_table2_claims",
    "record_table5_claims",
    "record_table5_sequential_claims",
    "record_theorem1_claims",
    "record_toy_claims",
    "single_run_interval",
    "weakest",
]
