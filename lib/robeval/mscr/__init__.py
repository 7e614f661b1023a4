"""MSCR — Siedel, Vock, Morozov & Voß (2022), *Utilizing class separation distance for the evaluation of
corruption robustness of machine learning classifiers*.

Sections implemented:

* Sec. 3.1, Table 1 — minimal class separation ``2r`` and ``eps_min = r`` (:mod:`.separation`);
* Sec. 3.2 — uniform noise in the L_p ball (:mod:`.noise`);
* Algorithm 1, Eq. 2 — the accuracy matrix over (eps_train, eps_test) and the MSCR on 2D data
  (:mod:`.protocol`) and on CIFAR-10 (:mod:`.cifar`);
* Tables 1, 2a/2b, Figs. 3-7 — tables and figures (:mod:`.tables`, :mod:`.figures`);
* what the authors printed and published (:mod:`.published`) and the claims checked against it (:mod:`.claims`:
  notebook 01 in :mod:`.claims_2d`, notebook 02 in :mod:`.claims_cifar`, the accuracy-matrix statements of both
  in :mod:`.claims_grid`, the shared helpers in :mod:`.claim_stats`).
"""

from robeval.mscr.cifar import run_cell_cifar, uniform_linf_box
from robeval.mscr.noise import radial_cdf, sample_offsets, sample_uniform_ball, unit_ball_offsets
from robeval.mscr.protocol import (
    NOISE_MODES,
    accuracy_matrix,
    evaluate_levels,
    make_cells,
    mean_ci,
    mscr_per_run,
    mscr_summary,
    mscr_value,
    row_optima,
    run_cell_2d,
    run_seeds,
)
from robeval.mscr.separation import eps_min, min_class_separation, nearest_other_class_distance

__all__ = [
    "NOISE_MODES",
    "accuracy_matrix",
    "eps_min",
    "evaluate_levels",
    "make_cells",
    "mean_ci",
    "min_class_separation",
    "mscr_per_run",
    "mscr_summary",
    "mscr_value",
    "nearest_other_class_distance",
    "radial_cdf",
    "row_optima",
    "run_cell_2d",
    "run_cell_cifar",
    "run_seeds",
    "sample_offsets",
    "sample_uniform_ball",
    "uniform_linf_box",
    "unit_ball_offsets",
]
