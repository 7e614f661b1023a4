"""The MSCR paper's claims (Siedel et al. 2022) checked against our runs and recorded in a claims ledger: the
public entry point the notebooks call.

Each notebook calls ONE function that reads its result files and records every claim:
:func:`evaluate_mscr_2d` (notebook ``01_mscr_2d``) and :func:`evaluate_mscr_cifar10` (``02_mscr_cifar10``).
They only read files, so ``robeval run --replot`` and ``robeval verify`` rebuild the ledgers without
recomputing. The claims indexes :data:`INDEX_01` and :data:`INDEX_02` list every table, figure statement and
appendix result of the paper with the claims that test it, or the reason none does.

This module re-exports them from where they live:

* :mod:`robeval.mscr.claims_2d` — notebook 01: :data:`INDEX_01`, :func:`evaluate_mscr_2d`, Table 1 (2D row),
  Table 2a, the 1-NN / k / noise-mode experiments and the authors' six 2D sheets;
* :mod:`robeval.mscr.claims_cifar` — notebook 02: :data:`INDEX_02`, :func:`evaluate_mscr_cifar10`, Table 1
  (CIFAR-10 row), Table 2b, the authors' CSV and our CIFAR-10 runs;
* :mod:`robeval.mscr.claims_sheet` — what the authors' 1200-run B/L_inf sheet decides on its own (rows ``SH_*``,
  intervals bounded over every correlation between cells) and the runs behind each sheet;
* :mod:`robeval.mscr.claims_grid` — the statements about one accuracy matrix shared by both notebooks (MSCR
  trend, steps and sign, best cell, diagonal, robustness trends, gains, optimum vs eps_min);
* :mod:`robeval.mscr.claim_stats` — :class:`RunCube` / :func:`run_cube`, the interval helpers and
  :func:`best_columns_table`.

Rules (see :mod:`robeval.core.ledger`), all over *independent runs* paired by run seed:

* a printed number (a Table 2a/2b cell, an MSCR value) — equivalence: our 95% CI inside ``paper ± margin``,
  where ``margin`` is the gap between the published cell and its nearest neighbouring eps_train column in the
  same row: the table's conclusions (best column, the MSCR's increase) rest on exactly these differences, so
  a CI that fits inside tells this column from its neighbours, and one that does not cannot reproduce it; where
  the authors' file has standard deviations (the B/L_inf and C/L2 sheets, the CIFAR-10 CSV) the CI is the Welch
  interval against the published mean, so the published mean's own sampling error counts too;
* "A beats B" — the paired t-interval over runs of the difference excludes 0 (a "best column" is tested
  against the runner-up of our means, a diagonal statement against the best column on the other side);
* a trend ("MSCR increases with eps_train") — the percentile-bootstrap interval over runs of the Spearman
  correlation between eps_train and the mean curve excludes 0 (from 10 runs on; below that, e.g. 3 CIFAR-10
  trainings per column, the t-interval over the runs' own Spearman rho);
* a claim tested on the authors' sheet alone (rows ``SH_*``: means and standard deviations, no runs) — a normal
  interval whose standard error is bounded over every correlation between the cells it combines
  (:func:`robeval.mscr.claims_sheet.bounded_interval`): consistency when it decides the claim, else inconclusive;
* the authors' files against each other or the paper against itself — consistency / erratum, an erratum only
  beyond the paper's own noise (its printed 95% intervals or rounding).

Every row carries its evidence class and unit (:mod:`robeval.core.ledger`): our forests / 1-NN fits are
replications over ``forest runs``, our CIFAR-10 networks over ``training runs`` (scaled replications below the
paper profile, judged by the settings' ``mechanism``); Table 1's separations computed exactly on the authors'
data are replications without sampling error; the authors' sheets, CSV and printed tables are reanalyses; the
paper's own arithmetic is a derivation; the dataset count is an environment check.

Hand-made inputs reach every rule through the ``record_*`` functions (tests/mscr/test_mscr_claims.py).
"""

from robeval.mscr.claim_stats import (
    RunCube,
    best_columns_table,
    best_vs_runner_up,
    common_seeds,
    fast_spearman,
    group_contrast,
    level_name,
    mean_iv,
    neighbour_gap,
    per_run_trend,
    regret,
    run_cube,
    run_labels,
    spearman_rho,
)
from robeval.mscr.claims_2d import (
    INDEX_01,
    evaluate_mscr_2d,
    record_1nn,
    record_k_effect,
    record_modes,
    record_printed_table2a,
    record_row_best,
    record_sheets,
    record_table1_2d,
    record_table1_sheet,
    record_table2a_cells,
    result_files_2d,
    table2a_cells,
    table2a_standardised,
    table2a_tolerances,
)
from robeval.mscr.claims_cifar import (
    FITTED_TRAIN_ACC,
    INDEX_02,
    authors_separation_missing,
    evaluate_mscr_cifar10,
    fitted_train_acc,
    net_bound,
    record_authors_separation,
    record_cifar_runs,
    record_csv_statements,
    record_paper_arithmetic,
    record_printed_table2b,
    record_table1_cifar,
    record_table2b_cells,
)
from robeval.mscr.claims_grid import (
    record_diagonal,
    record_gains,
    record_max_overall,
    record_mscr_sign,
    record_mscr_steps,
    record_mscr_trend,
    record_optimum_vs_eps_min,
    record_robustness_trends,
)
from robeval.mscr.claims_sheet import (
    bounded_interval,
    record_sheet_runs,
    record_sheet_tests,
    sheet_findings,
    sheet_runs,
)

__all__ = [
    "FITTED_TRAIN_ACC",
    "INDEX_01",
    "INDEX_02",
    "RunCube",
    "best_columns_table",
    "bounded_interval",
    "best_vs_runner_up",
    "common_seeds",
    "evaluate_mscr_2d",
    "evaluate_mscr_cifar10",
    "fast_spearman",
    "fitted_train_acc",
    "group_contrast",
    "level_name",
    "mean_iv",
    "neighbour_gap",
    "net_bound",
    "per_run_trend",
    "record_1nn",
    "record_cifar_runs",
    "record_csv_statements",
    "record_diagonal",
    "record_gains",
    "record_k_effect",
    "record_max_overall",
    "record_modes",
    "record_mscr_sign",
    "record_mscr_steps",
    "record_mscr_trend",
    "record_optimum_vs_eps_min",
    "authors_separation_missing",
    "record_authors_separation",
    "record_paper_arithmetic",
    "record_printed_table2a",
    "record_printed_table2b",
    "record_robustness_trends",
    "record_row_best",
    "record_sheet_runs",
    "record_sheet_tests",
    "record_sheets",
    "record_table1_2d",
    "record_table1_cifar",
    "record_table1_sheet",
    "record_table2a_cells",
    "table2a_cells",
    "table2a_tolerances",
    "table2a_standardised",
    "record_table2b_cells",
    "regret",
    "result_files_2d",
    "run_cube",
    "run_labels",
    "sheet_findings",
    "sheet_runs",
    "spearman_rho",
]
