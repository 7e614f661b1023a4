"""robeval — a reproducible research compendium for four ML robustness papers.

One package per paper, one for the foundation, one for the image transforms two papers share:

* :mod:`robeval.mscr` — Siedel et al. 2022, class separation and the MSCR;
* :mod:`robeval.msd` — Mintun, Kirillov & Xie 2021, augmentation/corruption similarity, CIFAR-10-C-bar;
* :mod:`robeval.realworld` — Scher & Trügler, real-world robustness of individual predictions;
* :mod:`robeval.acr` — Sun et al. 2025, ACR is a poor metric for randomized smoothing;
* :mod:`robeval.transforms` — CIFAR-10-C / C-bar corruptions and the augmentations;
* :mod:`robeval.core` — paths, profiles, data, run grids, the claims ledger, plotting, notebooks;
* :mod:`robeval.dryrun` — the paper profile's cost model, from units measured on this machine (it uses the
  paper packages, so it sits above them).

No paper package imports another; :mod:`robeval.core` imports none of them. Heavy dependencies (torch,
dask, papermill) are imported by the modules that need them.

Importing robeval changes nothing in the process. The compendium's own runs (``robeval run``, the
notebooks' kernel) pin the CPU kernels for bit-identical reruns; call
:func:`robeval.core.env.pin_cpu_kernels` before importing numpy or torch to do the same.
"""

__version__ = "0.1.0"
