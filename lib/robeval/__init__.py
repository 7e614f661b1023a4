"""robeval — a reproducible research compendium for four ML robustness papers.

Modules are named after the papers' concepts: ``separation``, ``noise``, ``mscr`` (Siedel et al. 2022),
``corruptions``, ``augmentations``, ``msd`` (Mintun et al. 2021), ``realworld``, ``adversarial``
(Scher & Trügler), ``smoothing`` (Cohen et al. 2019 / the ACR critique). The foundation is ``paths``,
``profiles``, ``data``, ``runs``, ``claims``, ``plotting``, ``io`` and ``validation``.
Heavy dependencies (torch, dask, papermill) are imported lazily by the modules that need them.
"""

__version__ = "0.1.0"
