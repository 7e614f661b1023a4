"""Computing without losing work: resumable grids of independent cells and moving their results between machines.

* :mod:`.grid` — :class:`Grid` / :func:`run_grid`: a function mapped over cells, one atomic result file per cell,
  resumed after any kill, in processes or on a Dask cluster;
* :mod:`.store` — the files of a grid store: names, the store's config, a cell's payload and checksum, claims;
* :mod:`.identity` — what names a grid's results: the config and the code its cell function can reach;
* :mod:`.packs` — adopting a store across a code change, packing finished cells for another machine, and
  rebinding a pack to code its cells were adopted over;
* :mod:`.baseline` — cells recomputed here with another checkout's code: the witness of a code change for a
  store no machine of this kind computed;
* :mod:`.archive` — a tar archive's raw headers, checked before :mod:`tarfile` reads them;
* :mod:`.status` — how far a grid store got, read without running anything;
* :mod:`.trust` — what a store from elsewhere may make this checkout do: call a registered cell function, with
  paths inside the data cache and the profile's results;
* :mod:`.weights` — trained networks packed and taken over like cells;
* :mod:`.parallel` — chunked maps over worker processes whose output does not depend on their number.

Imports only the base modules of :mod:`robeval.core` (``io``, ``paths``, ``errors``); the ledger, the networks
and the publishing code are not needed to compute a cell.
"""

from robeval.core.errors import IncompleteResult
from robeval.core.runs.grid import DEADLINE_ENV, STOP_AFTER_CELLS_ENV, DeadlineReached, Grid, run_grid
from robeval.core.runs.identity import code_identity, config_identity
from robeval.core.runs.packs import (
    LEGACY_PACKS,
    PACK_FORMAT,
    adopt,
    adopt_pack,
    is_current_substore,
    machine_kind,
    pack,
    rebind_pack,
    unpack,
)
from robeval.core.runs.status import store_status
from robeval.core.runs.store import (
    LOCK_TIMEOUT_S,
    cell_key,
    claim_state,
    format_age,
    grid_store,
    rows_digest,
    waiting_message,
)

__all__ = [
    "DEADLINE_ENV",
    "DeadlineReached",
    "Grid",
    "IncompleteResult",
    "LEGACY_PACKS",
    "LOCK_TIMEOUT_S",
    "PACK_FORMAT",
    "STOP_AFTER_CELLS_ENV",
    "adopt",
    "adopt_pack",
    "is_current_substore",
    "machine_kind",
    "cell_key",
    "claim_state",
    "code_identity",
    "config_identity",
    "format_age",
    "grid_store",
    "pack",
    "rebind_pack",
    "rows_digest",
    "run_grid",
    "store_status",
    "unpack",
    "waiting_message",
]
