"""ACR — Sun, Mao, Müller & Vechev (ICML 2025), *Average certified radius is a poor metric for randomized
smoothing*, with Cohen et al. (2019)'s randomized smoothing it builds on.

Sections implemented:

* Cohen et al. Sec. 3.2 — CERTIFY and PREDICT (:class:`Smooth`, :mod:`.smoothing`);
* Sec. 3, 6, 7 — ACR, certified accuracy and their tables (:mod:`.metrics`);
* Sec. 4.1-4.2, Theorem 1, Fig. 2 — closed forms (:mod:`.theory`);
* Sec. 7, Figs. 3/9/11, Appendix B — the ECDF of p_A (:mod:`.ecdf`);
* Sec. 5, Tables 2 and 5 — Gaussian training and the three easy-input modifications (:mod:`.training`, its
  building blocks in :mod:`.easy_inputs` and notebook 09's tables in :mod:`.training_tables`);
* beyond the paper — sequential certification at fixed radii (:meth:`Smooth.certify_radius`) against fixed-N
  CERTIFY on notebook 09's Gaussian model, and a whole certified-accuracy table from one sequential run per
  image (:func:`.sequential.certify_table`);
* the printed tables and published certification files (:mod:`.published`, :mod:`.files`), the claims
  checked against them (:mod:`.claims`: notebook 08 in :mod:`.claims_certifications` and
  :mod:`.claims_consistency`, notebook 09 in :mod:`.claims_training`, the shared rules in :mod:`.claim_rules`)
  and the figures (:mod:`.figures`).
"""

from robeval.acr.ecdf import certified_accuracy_from_ecdf, ecdf_from_certification
from robeval.acr.files import read_certification, write_certification_tsv
from robeval.acr.metrics import acr, certification_table, certified_accuracy
from robeval.acr.smoothing import ABSTAIN, CertifyResult, Smooth, certified_radius, clopper_pearson_lower
from robeval.acr.theory import max_certified_radius, trivial_classifier_acr

__all__ = [
    "ABSTAIN",
    "CertifyResult",
    "Smooth",
    "acr",
    "certification_table",
    "certified_accuracy",
    "certified_accuracy_from_ecdf",
    "certified_radius",
    "clopper_pearson_lower",
    "ecdf_from_certification",
    "max_certified_radius",
    "read_certification",
    "trivial_classifier_acr",
    "write_certification_tsv",
]
