"""The foundation every paper package uses; it imports no paper.

* :mod:`.paths`, :mod:`.profiles` (+ ``settings/<experiment>.toml``) — where things live and what each
  profile (smoke / default / paper) resolves to;
* :mod:`.data` (+ ``data_registry.tsv``) — checksum-verified, offline-first data files;
* :mod:`.runs` — resumable grids of independent cells; :mod:`.parallel` — chunked maps over worker processes
  whose output does not depend on their number; :mod:`.io` — atomic result files;
* :mod:`.ledger`, :mod:`.report` — the claims ledger and its Markdown report; :mod:`.ledger_view` —
  :func:`short_index`, the ledger as each notebook shows it;
* :mod:`.notebooks` — :func:`setup` (the first call of every notebook), :func:`show_ledger` and the
  papermill runner;
* :mod:`.findings` — :func:`found`, the generated "what we found" sentence that ends each notebook section;
* :mod:`.plotting` — style, :func:`savefig` and the figure manifest;
* :mod:`.validation` — input checks; :mod:`.models`, :mod:`.training`, :mod:`.env` — torch models,
  training loops and the environment (imported on demand: they load torch).
"""

import importlib as _importlib

# Loaded on first use (PEP 562), so that `robeval.core.env.pin_cpu_kernels` can run before numpy is imported.
_EXPORTS = {
    "Ledger": "ledger",
    "setup": "notebooks",
    "show_ledger": "notebooks",
    "short_index": "ledger_view",
    "found": "findings",
    "PROFILES": "paths",
    "results_dir": "paths",
    "savefig": "plotting",
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
