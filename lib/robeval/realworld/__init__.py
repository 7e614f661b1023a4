"""Real-world robustness — Scher & Trügler, *Robustness of machine learning models beyond adversarial
attacks*: the robustness of individual predictions to real-world perturbations.

Sections implemented:

* Sec. 3.5 — the Monte-Carlo estimator of P_r with perturbation models (:mod:`.robustness`; the
  perturbation models in :mod:`.samplers`, their covariances of Sec. 3.5.1 in :mod:`.covariance`), with an
  adaptive sample size per point (``n_samples="auto"`` or, valid under optional stopping, ``"auto-cs"``;
  beyond the paper);
* Appendix A — closed forms for a linear and a right-angle classifier (:mod:`.analytic`);
* Sec. 4.1 — adversarial distances from CEML counterfactuals and ART's Brendel-Bethge/DeepFool
  (:mod:`.adversarial`) and the Iris/Ionosphere experiment (:mod:`.experiments`, Figs. 3-5);
* Sec. 4.2 — the fog experiment on a documented synthetic stand-in (:mod:`.fog`, Fig. 6);
* the paper's printed numbers (:mod:`.published`) and the claims checked against them (:mod:`.claims`: notebook 05 in :mod:`.claims_sec41`, 06 in
  :mod:`.claims_fog`, 07 in :mod:`.claims_analytic`, the shared rules in :mod:`.claim_stats`) and the figures
  (:mod:`.figures`).
"""

from robeval.realworld.analytic import linear_robustness, right_angle_robustness
from robeval.realworld.boundary import (
    correlation,
    identity_covariance,
    random_covariance,
    real_world_robustness,
    rescale_distances,
)
from robeval.realworld.covariance import trace_normalized
from robeval.realworld.robustness import RobustnessEstimate, adaptive_sample_sizes
from robeval.realworld.samplers import BoundedPerturbation, CategoricalPerturbation, GaussianPerturbation

__all__ = [
    "BoundedPerturbation",
    "CategoricalPerturbation",
    "GaussianPerturbation",
    "RobustnessEstimate",
    "adaptive_sample_sizes",
    "correlation",
    "identity_covariance",
    "linear_robustness",
    "random_covariance",
    "real_world_robustness",
    "rescale_distances",
    "right_angle_robustness",
    "trace_normalized",
]
