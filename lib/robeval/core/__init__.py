"""The foundation every paper package uses; it imports no paper.

Floors, from the ground up (each imports only the floors below it; ``make test`` checks the contracts of
``pyproject.toml``'s ``[tool.importlinter]``, docs/layout.md draws them):

1. the base modules here: :mod:`.errors`, :mod:`.io` (atomic result files), :mod:`.env` (CPU kernels, devices),
   :mod:`.paths` and :mod:`.profiles` (+ ``settings/<experiment>.toml``: what each profile resolves to),
   :mod:`.validation` (input checks), :mod:`.seeding`, :mod:`.stats` (intervals over independent runs),
   :mod:`.data` (+ ``data_registry.tsv``: checksum-verified, offline-first data), :mod:`.images`,
   :mod:`.manifest` (checksums of result files), :mod:`.catalog` (the notebooks and their experiments);
2. :mod:`.runs` (resumable grids, code identities, packs) and :mod:`.nn` (torch models and training), side by side;
3. :mod:`.ledger` — the claims ledger and its rules;
4. :mod:`.publish` — figures, generated sentences, reports, plans and the website;
5. :mod:`.notebooks` — :func:`setup` (the first call of every notebook) and the papermill runner.
"""

import importlib as _importlib

# Loaded on first use (PEP 562), so that `robeval.core.env.pin_cpu_kernels` can run before numpy is imported.
_EXPORTS = {
    "Ledger": "ledger",
    "setup": "notebooks",
    "show_ledger": "notebooks",
    "short_index": "publish.view",
    "found": "publish.findings",
    "PROFILES": "paths",
    "results_dir": "paths",
    "savefig": "publish.plotting",
    "resolve": "profiles",
}

__all__ = ["PROFILES", "Ledger", "found", "resolve", "results_dir", "savefig", "setup", "short_index", "show_ledger"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'robeval.core' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"robeval.core.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
