"""The foundation every paper package uses; it imports no paper.

* :mod:`.paths`, :mod:`.profiles` (+ ``settings/<experiment>.toml``) — where things live and what each
  profile (smoke / default / paper) resolves to;
* :mod:`.data` (+ ``data_registry.tsv``) — checksum-verified, offline-first data files;
* :mod:`.runs` — resumable grids of independent cells; :mod:`.io` — atomic result files;
* :mod:`.ledger`, :mod:`.report` — the claims ledger and its Markdown report;
* :mod:`.notebooks` — :func:`setup` (the first call of every notebook) and the papermill runner;
* :mod:`.plotting` — style, :func:`savefig` and the figure manifest;
* :mod:`.validation` — input checks; :mod:`.models`, :mod:`.training`, :mod:`.env` — torch models,
  training loops and the environment (imported on demand: they load torch).
"""

from robeval.core.ledger import Ledger
from robeval.core.notebooks import setup
from robeval.core.paths import PROFILES, results_dir
from robeval.core.plotting import savefig
from robeval.core.profiles import resolve

__all__ = ["PROFILES", "Ledger", "resolve", "results_dir", "savefig", "setup"]
