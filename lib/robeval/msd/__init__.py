"""MSD — Mintun, Kirillov & Xie (2021), *On interaction between augmentations and corruptions in natural
corruption robustness*.

Sections implemented:

* Sec. 3 — transform feature space, MMD and the Minimal Sample Distance (:mod:`.distance`);
* Sec. 4, Figs. 1-5, App. B — the augmentation powerset and the Fig. 2b toy (:mod:`.powerset`, :mod:`.tables`);
* Sec. 5, App. D, Table 1 — CIFAR-10-C-bar: its construction and the C vs C-bar comparison (:mod:`.cbar`);
* the printed numbers (:mod:`.published`), the claims checked against them (:mod:`.claims`, the entry point;
  :mod:`.claims_powerset` for notebook 03, :mod:`.claims_cbar` for notebook 04, interval helpers in
  :mod:`.claim_stats`), and the figures (:mod:`.figures`). The corruptions and augmentations themselves are in
  :mod:`robeval.transforms`.
"""

from robeval.msd.distance import (
    corruption_features,
    corruption_transform,
    mixture_transform,
    mmd,
    mmd_many,
    model_feature_fn,
    msd,
    msd_many,
    scheme_transform,
    transform_features,
)

__all__ = [
    "corruption_features",
    "corruption_transform",
    "mixture_transform",
    "mmd",
    "mmd_many",
    "model_feature_fn",
    "msd",
    "msd_many",
    "scheme_transform",
    "transform_features",
]
