"""robeval — a reproducible research compendium for four ML robustness papers.

One package per paper, one for the foundation, one for the image transforms two papers share:

* :mod:`robeval.mscr` — Siedel et al. 2022, class separation and the MSCR;
* :mod:`robeval.msd` — Mintun, Kirillov & Xie 2021, augmentation/corruption similarity, CIFAR-10-C-bar;
* :mod:`robeval.realworld` — Scher & Trügler, real-world robustness of individual predictions;
* :mod:`robeval.acr` — Sun et al. 2025, ACR is a poor metric for randomized smoothing;
* :mod:`robeval.transforms` — CIFAR-10-C / C-bar corruptions and the augmentations;
* :mod:`robeval.core` — paths, profiles, data, run grids, the claims ledger, plotting, notebooks.

No paper package imports another; :mod:`robeval.core` imports none of them. Heavy dependencies (torch,
dask, papermill) are imported by the modules that need them.
"""

import os as _os

# Same numbers on every x86 machine: CPU kernels dispatch to AVX2 code paths (not AVX-512/AMX), which only
# takes effect when robeval is imported before torch. Users may override any of these.
for _key, _value in (("ATEN_CPU_CAPABILITY", "avx2"), ("ONEDNN_MAX_CPU_ISA", "AVX2"), ("MKL_CBWR", "AVX2")):
    _os.environ.setdefault(_key, _value)

__version__ = "0.1.0"
