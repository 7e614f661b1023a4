"""The notebooks' side of the library, the top floor of :mod:`robeval.core`.

* :mod:`.kernel` — what runs inside a notebook: :func:`setup` (its first call), the check of papermill's injected
  parameters, :func:`show_ledger`;
* :mod:`.runner` — what ``robeval run`` / ``verify`` / ``strip`` do: execute notebooks with papermill under one
  profile, rebuild their ledgers from the stored results, strip outputs, then update the reports.

May import every other package of :mod:`robeval.core`; nothing in :mod:`robeval.core` imports it.
"""

from robeval.core.notebooks.kernel import PAPERMILL_MARKER, check_injected_parameters, ledger_for, setup, show_ledger
from robeval.core.notebooks.runner import (
    COMPUTE_TAG,
    KERNEL,
    OUTPUT_MARKER,
    NotebookFailed,
    check_notebook_file,
    check_parameters,
    check_replaceable,
    check_stored_results,
    parse_parameter_value,
    replot_copy,
    require_papermill,
    run_all,
    run_notebook,
    scratch_outputs,
    strip_outputs,
    verify,
)

__all__ = [
    "COMPUTE_TAG",
    "KERNEL",
    "OUTPUT_MARKER",
    "NotebookFailed",
    "PAPERMILL_MARKER",
    "check_injected_parameters",
    "check_notebook_file",
    "check_parameters",
    "check_replaceable",
    "check_stored_results",
    "ledger_for",
    "parse_parameter_value",
    "replot_copy",
    "require_papermill",
    "run_all",
    "run_notebook",
    "scratch_outputs",
    "setup",
    "show_ledger",
    "strip_outputs",
    "verify",
]
