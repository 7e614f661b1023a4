"""Claims of Mintun, Kirillov & Xie 2021 recorded by notebooks 03 (MSD, powerset) and 04 (CIFAR-10-C-bar):
the public entry point the notebooks call.

One function per notebook reads the notebook's result files and records every claim:
:func:`evaluate_msd_powerset` (notebook 03, :mod:`robeval.msd.claims_parts` over :mod:`robeval.msd.claims_powerset`) and
:func:`evaluate_msd_cifar10_c_bar` (notebook 04, :mod:`robeval.msd.claims_cbar`). The claims index of each
notebook (:data:`INDEX_03`, :data:`INDEX_04`) lists every statement of the paper a reproduction could test, with
the claim ids that test it or the reason none does; pass it to ``ledger.cover``. The interval helpers are in
:mod:`robeval.msd.claim_stats`.
"""

from robeval.msd.claim_stats import (
    LEVEL,
    bootstrap,
    mean_over_runs,
    paired_over_runs,
    shifted_mean,
    welch_over_units,
)
from robeval.msd.claims_cbar import (
    INDEX_04,
    T1_MARGIN,
    T1_METHODS,
    T1PC_MARGIN,
    evaluate_msd_cifar10_c_bar,
    record_construction_claims,
    record_paper_consistency,
    record_table1_claims,
)
from robeval.msd.claims_parts import evaluate_msd_powerset, part_rows, record_not_run
from robeval.msd.claims_powerset import (
    APPA_PAIRS,
    FIG4_PAIRS,
    INDEX_03,
    MAJORITY,
    MIN_BASES,
    N_ABOVE_MARGIN,
    NOISE,
    appb_bases_interval,
    appb_bases_row,
    mmd_lost,
    record_appendix_a_claims,
    record_inclusion_claims,
    record_method_claims,
    record_single_op_claims,
    record_spearman_claims,
    record_toy_claims,
    toy_error_lost,
)

__all__ = [
    "APPA_PAIRS",
    "FIG4_PAIRS",
    "INDEX_03",
    "INDEX_04",
    "LEVEL",
    "MAJORITY",
    "MIN_BASES",
    "N_ABOVE_MARGIN",
    "NOISE",
    "T1_MARGIN",
    "T1_METHODS",
    "T1PC_MARGIN",
    "appb_bases_interval",
    "appb_bases_row",
    "bootstrap",
    "evaluate_msd_cifar10_c_bar",
    "evaluate_msd_powerset",
    "mean_over_runs",
    "mmd_lost",
    "paired_over_runs",
    "part_rows",
    "record_not_run",
    "shifted_mean",
    "welch_over_units",
    "record_appendix_a_claims",
    "record_construction_claims",
    "record_inclusion_claims",
    "record_method_claims",
    "record_paper_consistency",
    "record_single_op_claims",
    "record_spearman_claims",
    "record_table1_claims",
    "record_toy_claims",
    "toy_error_lost",
]
