"""Resumable run grids: map a function over independent cells, one atomic result file per cell.

A *cell* is a small dict of parameters (e.g. ``{"eps_train": 0.01, "seed": 3}``); ``config`` holds the
settings shared by every cell. Results live in ``<store>/<identity>/<cell-key>.json``, so

* finished cells are never recomputed — rerunning the same grid only computes what is missing;
* a killed run loses at most the cells in flight (each file is written atomically when its cell ends);
* the *identity* hashes the config (keys canonicalised, checkout/cache paths made relative), the cell
  function's qualified name, and the code it can run: the top-level definitions it reaches in its module and
  the ``robeval`` modules that module imports, without comments and docstrings (:mod:`robeval.core.identity`).
  Changing the config or that code starts a fresh sub-store instead of serving stale results;
* a cell is *claimed* with an exclusive lock file (host, pid and process start) before it is computed, so two
  processes on the same grid never compute a cell twice: the second one skips claimed cells and waits for their
  results. A claim whose holder is provably gone (same host, process not alive) is taken over at once, one older
  than ``lock_timeout`` seconds too; while a run waits on a claim of another host it says so on stderr, with the
  claim's age and the command that clears it (:func:`claim_state`).

Cells run serially, with joblib processes (default on a laptop), or on a Dask distributed cluster when
a scheduler address is given (``scheduler=`` or ``$ROBEVAL_DASK_SCHEDULER``); with Dask the results travel
back through the futures and are written by the client, so workers need no shared filesystem. Determinism
is the cell's job: every cell carries its own seed, so results never depend on scheduling.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robeval.core.errors import IncompleteResult
from robeval.core.identity import _digest, code_identity, config_identity, portable_config
from robeval.core.io import atomic_write_json, read_json, to_json
from robeval.core.paths import results_dir

if TYPE_CHECKING:
    import pandas

Backend = str  # "auto" | "serial" | "joblib" | "dask"
LOCK_TIMEOUT_S = 6 * 3600.0  # a lock older than this is taken over (its owner is presumed dead)
_STORE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # never "." or "..": a store is a folder below grids/


def grid_store(profile: str, name: str) -> Path:
    """Directory where the grid ``name`` of ``profile`` keeps its cell files."""
    if not isinstance(name, str) or not _STORE_NAME.fullmatch(name):
        raise ValueError(
            f"Grid name {name!r} may only contain letters, digits, '_', '-' and '.', and must start with a letter, "
            "digit or '_'."
        )
    return results_dir(profile) / "grids" / name


def cell_key(cell: Mapping[str, Any]) -> str:
    """Readable, filesystem-safe, unique file stem for ``cell``."""
    parts = []
    for k in sorted(cell):
        v = cell[k]
        text = f"{v:g}" if isinstance(v, float) else str(v)
        parts.append(f"{k}={text}")
    readable = re.sub(r"[^A-Za-z0-9=._-]+", "_", "__".join(parts))[:120]
    return f"{readable}__{_digest(dict(cell), 8)}"


def _normalise_cells(cells: Iterable[Mapping[str, Any]] | Mapping[str, Iterable]) -> list[dict]:
    if isinstance(cells, Mapping):  # dict of lists → Cartesian product
        import itertools

        bad = [k for k, v in cells.items() if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable)]
        if bad:
            raise ValueError(
                f"A dict of cells maps each parameter to a list of values (their Cartesian product is the grid); "
                f"{bad[0]!r} maps to {cells[bad[0]]!r}. Write e.g. {{{bad[0]!r}: [{cells[bad[0]]!r}]}}."
            )
        keys = list(cells)
        out = [dict(zip(keys, combo)) for combo in itertools.product(*(list(cells[k]) for k in keys))]
    elif isinstance(cells, Iterable) and not isinstance(cells, (str, bytes)):
        out = []
        for c in cells:
            if not isinstance(c, Mapping):
                raise TypeError(f"A grid cell must be a dict of parameters, got {type(c).__name__}: {c!r}.")
            out.append(dict(c))
    else:
        raise TypeError(f"cells must be a list of dicts or a dict of lists, got {type(cells).__name__}.")
    if not out:
        raise ValueError("The grid has no cells; pass at least one (a list of dicts, or a dict of non-empty lists).")
    for c in out:
        if not c:
            raise ValueError("A grid cell is empty; every cell needs at least one parameter (e.g. its seed).")
    return out


def _write_store_config(root: Path, fn: Callable, config: Mapping) -> None:
    """The sub-store's ``config.json`` (cell function, code identity, config), unless it is there already."""
    if not (root / "config.json").is_file():
        atomic_write_json(
            root / "config.json",
            {"fn": f"{fn.__module__}.{fn.__qualname__}", "code": code_identity(fn), "config": portable_config(config)},
        )


def _rows(result: Any, cell: dict) -> list[dict]:
    try:
        import pandas as pd

        if isinstance(result, pd.DataFrame):
            result = result.to_dict(orient="records")
    except ImportError:  # pragma: no cover
        pass
    if isinstance(result, Mapping):
        result = [result]
    if not isinstance(result, list) or not all(isinstance(r, Mapping) for r in result):
        raise TypeError(
            f"Grid function returned {type(result).__name__} for cell {cell}; return a dict, a list of dicts "
            "or a DataFrame."
        )
    return [dict(r) for r in result]


def rows_digest(rows: list) -> str:
    """sha256 of a cell's rows as they read back from its JSON file (keys sorted, no whitespace)."""
    return hashlib.sha256(to_json(json.loads(to_json(rows)), indent=None, sort_keys=True).encode()).hexdigest()


def _file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _compute_cell(fn: Callable, cell: dict, config: dict) -> dict:
    """Run one cell and return its result payload: rows, wall time and ``rows_sha256``, the checksum of the rows
    computed when they are written (:func:`rows_digest`), which :func:`pack` and :func:`adopt` verify."""
    t0 = time.perf_counter()
    rows = _rows(fn(dict(cell), dict(config)), cell)
    return {"cell": cell, "rows": rows, "seconds": time.perf_counter() - t0, "rows_sha256": rows_digest(rows)}


def _cell_digest_error(path: Path, payload: Mapping) -> str | None:
    """Why the rows of a cell file do not match the checksum written with them; None when they do (or when the
    cell predates checksums)."""
    want = payload.get("rows_sha256") if isinstance(payload, Mapping) else None
    if want is None:
        return None
    if not isinstance(payload.get("rows"), list) or rows_digest(payload["rows"]) != want:
        return f"{path.name}: its rows do not match the checksum written with them"
    return None


STOP_AFTER_CELLS_ENV = "ROBEVAL_STOP_AFTER_CELLS"
_cells_written = 0


def _run_cell(fn: Callable, cell: dict, config: dict, path: str) -> str:
    """Run one cell and write its result file. Executed in the worker (so a kill loses only this cell)."""
    global _cells_written
    atomic_write_json(path, _compute_cell(fn, cell, config))
    _cells_written += 1
    limit = os.environ.get(STOP_AFTER_CELLS_ENV)
    if limit and _cells_written >= int(limit):
        # a lease's deadline, simulated at a cell boundary (tests of resuming across leases): the process is
        # killed as the GPU driver kills a notebook at its deadline, with this cell written and nothing after it
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return path


# ------------------------------------------------------------------------------------------- cell locks
def _lock_path(path: Path) -> Path:
    return path.with_suffix(".lock")


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from /proc), or None where /proc does not say: with the
    pid it identifies a process, so a pid reused by another process is not taken for the claim's holder."""
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text()
    except (OSError, ValueError):
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _me() -> dict:
    """The identity a claim records: host, process id and start, and when it was made."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "start": _process_start(os.getpid()), "time": time.time()}


def claim_state(lock: str | os.PathLike, lock_timeout: float = LOCK_TIMEOUT_S) -> dict:
    """Who holds the claim ``lock`` on a cell, and whether they can still finish it.

    Returns ``state``, ``host``, ``pid``, ``age`` (seconds since the claim was written) and ``lock`` (its path), with
    ``state`` one of

    * ``"live"``: a running process of this host holds it (or its owner is writing it right now);
    * ``"dead"``: provably gone: its process is not alive on this host, or the pid now belongs to another process
      (a claim left by a killed run); a run takes it over at once;
    * ``"expired"``: older than ``lock_timeout``: its holder is presumed dead, the claim is taken over;
    * ``"foreign"``: held by a process of another host, which this host cannot check; a run waits for it (up to
      ``lock_timeout``) and says so, with the command that clears it if that run is gone;
    * ``"released"``: the lock is gone.
    """
    lock = Path(lock)
    out = {"lock": str(lock), "host": None, "pid": None, "age": 0.0}
    try:
        out["age"] = max(0.0, time.time() - lock.stat().st_mtime)
        owner = json.loads(lock.read_text())
        if not isinstance(owner, dict):
            raise ValueError("not a claim")
    except FileNotFoundError:
        return {**out, "state": "released"}
    except (OSError, ValueError):
        # being written by its owner right now, or garbage left by a crash
        return {**out, "state": "dead" if out["age"] > 10.0 else "live"}
    out["host"], out["pid"] = owner.get("host"), owner.get("pid")
    if out["age"] > lock_timeout:
        return {**out, "state": "expired"}
    if owner.get("host") != socket.gethostname():
        return {**out, "state": "foreign"}
    try:
        pid = int(owner["pid"])
        os.kill(pid, 0)
    except ProcessLookupError:
        return {**out, "state": "dead"}
    except (KeyError, ValueError, TypeError):
        return {**out, "state": "dead" if out["age"] > 10.0 else "live"}
    except PermissionError:
        pass  # alive, owned by another user
    start = owner.get("start")
    if start is not None and _process_start(pid) not in (None, start):
        return {**out, "state": "dead"}  # the pid was reused: the holder is gone
    return {**out, "state": "live"}


def _claim(path: Path, lock_timeout: float) -> bool:
    """Take the exclusive lock of a cell's result file; False if another live process holds it."""
    lock = _lock_path(path)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if not _stale(lock, lock_timeout):
                return False
            try:  # take over a stale lock (its owner died)
                os.unlink(lock)
            except FileNotFoundError:
                pass
            continue
        with os.fdopen(fd, "w") as fh:
            json.dump(_me(), fh)
        return True
    return False


def _stale(lock: Path, lock_timeout: float) -> bool:
    return claim_state(lock, lock_timeout)["state"] in ("dead", "expired", "released")


def format_age(seconds: float) -> str:
    """A duration for people: ``"42 s"``, ``"12 min"``, ``"3.5 h"``."""
    return (
        f"{seconds:.0f} s"
        if seconds < 120
        else f"{seconds / 60:.0f} min"
        if seconds < 7200
        else f"{seconds / 3600:.1f} h"
    )


def waiting_message(claims: list[dict], lock_timeout: float = LOCK_TIMEOUT_S) -> str:
    """What a run waiting on the claims ``claims`` (from :func:`claim_state`) tells its user."""
    foreign = [c for c in claims if c["state"] == "foreign"]
    live = [c for c in claims if c["state"] == "live"]
    parts = [f"waiting for {len(claims)} cell(s) claimed by another process"]
    if live:
        c = live[0]
        parts.append(
            f"{len(live)} by a running process of this host (e.g. pid {c['pid']}, claimed {format_age(c['age'])} ago)"
        )
    if foreign:
        c = max(foreign, key=lambda c: c["age"])
        paths = " ".join(f"'{f['lock']}'" for f in foreign[:3]) + (" ..." if len(foreign) > 3 else "")
        parts.append(
            f"{len(foreign)} by host {c['host']!r} (pid {c['pid']}, claimed {format_age(c['age'])} ago), which this host "
            f"cannot check; taken over when {format_age(lock_timeout)} old. If that run is gone (a killed container or "
            f"machine), clear its claims: rm {paths}"
        )
    return "; ".join(parts) + "."


def _release(path: Path) -> None:
    try:
        os.unlink(_lock_path(path))
    except FileNotFoundError:
        pass


def _clean_leftovers(root: Path, older_than: float = 60.0, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
    """Remove what killed runs left behind: half-written temporary files (atomic writes live for
    milliseconds), and the claims of a dead process on cells it finished (a batch keeps its claims until the
    batch ends, so a kill leaves them; nothing would ever release them, since finished cells are skipped)."""
    now = time.time()
    for tmp in root.glob(".*.tmp"):
        try:
            if now - tmp.stat().st_mtime > older_than:
                tmp.unlink()
        except FileNotFoundError:
            pass
    for lock in root.glob("*.lock"):
        if lock.with_suffix(".json").is_file() and _stale(lock, lock_timeout):
            try:
                os.unlink(lock)
            except FileNotFoundError:
                pass


class Grid:
    """A resumable grid of cells over one function and one configuration.

    Parameters
    ----------
    fn : callable ``fn(cell: dict, config: dict) -> dict | list[dict] | DataFrame``
        Must be importable (a module-level function) for process and Dask backends.
    cells : list of dicts, or dict of lists (Cartesian product)
    store : directory for the cell files (see :func:`grid_store`)
    config : settings shared by all cells (JSON-serialisable); part of the store's identity, with ``fn``'s
        name and code (:func:`config_identity`).
    lock_timeout : seconds after which another process's claim on a cell is considered dead.
    """

    def __init__(
        self,
        fn: Callable,
        cells,
        *,
        store: str | os.PathLike,
        config: Mapping | None = None,
        lock_timeout: float = LOCK_TIMEOUT_S,
    ):
        if not callable(fn):
            raise TypeError(f"fn must be a function fn(cell, config), got {type(fn).__name__}.")
        self.fn = fn
        self.cells = _normalise_cells(cells)
        keys = [cell_key(c) for c in self.cells]
        if len(set(keys)) != len(keys):
            raise ValueError("The grid has duplicate cells; make every cell unique (e.g. add a seed).")
        self.config = dict(config or {})
        self.lock_timeout = float(lock_timeout)
        self.root = Path(store) / f"config-{config_identity(self.config, fn)}"
        self._paths = {k: self.root / f"{k}.json" for k in keys}

    def path(self, cell: Mapping) -> Path:
        return self._paths[cell_key(cell)]

    def pending(self) -> list[dict]:
        """Cells without a finished result file."""
        return [c for c in self.cells if not self.path(c).is_file()]

    def done(self) -> list[dict]:
        return [c for c in self.cells if self.path(c).is_file()]

    def run(
        self,
        *,
        backend: Backend = "auto",
        n_jobs: int | None = None,
        scheduler: str | None = None,
        resources: Mapping[str, float] | None = None,
        desc: str | None = None,
        progress: bool = True,
        poll_s: float = 2.0,
    ) -> pandas.DataFrame:
        """Compute the pending cells, then return all results as a tidy DataFrame.

        Cells claimed by another live process are left to it; once this process has computed what it
        could, it waits for their results (taking over a cell whose claim went stale). ``resources`` (Dask
        only) are the worker resources each cell needs, e.g. ``{"GPU": 1}`` for training or certifying.
        """
        from tqdm.auto import tqdm

        if backend not in ("auto", "serial", "joblib", "dask"):
            raise ValueError(f"Unknown backend {backend!r}; use 'auto', 'serial', 'joblib' or 'dask'.")
        self.root.mkdir(parents=True, exist_ok=True)
        _clean_leftovers(self.root, lock_timeout=self.lock_timeout)
        _write_store_config(self.root, self.fn, self.config)
        scheduler = scheduler or os.environ.get("ROBEVAL_DASK_SCHEDULER") or None
        label = desc or getattr(self.fn, "__name__", "grid")
        t0 = time.perf_counter()
        todo = self.pending()
        bar = tqdm(total=len(self.cells), initial=len(self.cells) - len(todo), desc=label, disable=not progress)
        said, said_at = None, 0.0
        try:
            while todo:
                try:
                    self._compute(todo, backend, n_jobs, scheduler, resources, bar)
                except Exception as exc:
                    done = len(self.done())
                    raise IncompleteResult(
                        f"{label}: a cell failed ({type(exc).__name__}: {exc}). {done} of {len(self.cells)} cells are "
                        f"finished and kept in {self.root}; fix the cause and run the grid again: finished cells are "
                        "not recomputed.",
                        done=done,
                        total=len(self.cells),
                    ) from exc
                todo = self.pending()
                if todo:  # claimed by another process: wait for its results or for its claim to expire
                    claims = [claim_state(_lock_path(self.path(c)), self.lock_timeout) for c in todo]
                    claims = [c for c in claims if c["state"] in ("live", "foreign")]
                    key = tuple(sorted((c["lock"], c["state"]) for c in claims))
                    if claims and (key != said or time.monotonic() - said_at > 600):
                        print(f"{label}: {waiting_message(claims, self.lock_timeout)}", file=sys.stderr, flush=True)
                        said, said_at = key, time.monotonic()
                    time.sleep(poll_s)
                    bar.n = len(self.cells) - len(todo)
                    bar.refresh()
        finally:
            bar.close()
        if progress:  # a text line for notebooks saved by papermill, whose widget bars do not persist
            print(f"{label}: {len(self.cells)} cells done ({time.perf_counter() - t0:.0f} s)", flush=True)
        return self.collect()

    def _compute(self, todo, backend, n_jobs, scheduler, resources, bar) -> None:
        """Compute the cells of ``todo`` that this process can claim (serially: one claim at a time, so
        concurrent processes share the work; in parallel: a batch of claims)."""
        if backend == "auto":
            backend = "dask" if scheduler else ("serial" if (n_jobs in (None, 1) or len(todo) <= 1) else "joblib")
        if backend == "serial":
            for cell in todo:
                path = self.path(cell)
                if path.is_file() or not _claim(path, self.lock_timeout):
                    continue
                try:
                    if not path.is_file():  # finished by another process since we listed it
                        _run_cell(self.fn, cell, self.config, str(path))
                finally:
                    _release(path)
                bar.update()
            return
        mine = [c for c in todo if _claim(self.path(c), self.lock_timeout)]
        try:
            if not mine:
                return
            if backend == "joblib":
                from joblib import Parallel, delayed

                jobs = (delayed(_run_cell)(self.fn, c, self.config, str(self.path(c))) for c in mine)
                for _ in Parallel(n_jobs=n_jobs or -1, return_as="generator_unordered")(jobs):
                    bar.update()
            else:
                self._run_dask(mine, scheduler, resources, bar)
        finally:
            for c in mine:
                _release(self.path(c))

    def _run_dask(self, cells: list[dict], scheduler: str | None, resources, bar) -> None:
        from dask.distributed import Client, as_completed

        if scheduler is None:
            raise ValueError(
                "backend='dask' needs a scheduler address (scheduler= or $ROBEVAL_DASK_SCHEDULER), "
                "e.g. the address of a dask.distributed.LocalCluster or a cluster's scheduler."
            )
        with Client(scheduler) as client:
            futures = {
                client.submit(_compute_cell, self.fn, c, self.config, pure=False, resources=resources): c for c in cells
            }
            for fut in as_completed(futures):
                payload = fut.result()  # re-raises worker errors here
                atomic_write_json(self.path(futures[fut]), payload)  # written by the client: no shared disk needed
                bar.update()

    def collect(self, allow_missing: bool = False) -> pandas.DataFrame:
        """All finished results as one DataFrame: one row per returned row, cell parameters as columns."""
        import pandas as pd

        records = []
        missing = 0
        for cell in self.cells:
            path = self.path(cell)
            if not path.is_file():
                missing += 1
                continue
            payload = read_json(path)
            for row in payload["rows"]:
                records.append({**cell, **row})
        if missing and not allow_missing:
            raise RuntimeError(
                f"{missing} of {len(self.cells)} cells have no result yet in {self.root}; call run() to compute them."
            )
        return pd.DataFrame.from_records(records)


def run_grid(
    fn: Callable,
    cells,
    *,
    store: str | os.PathLike,
    config: Mapping | None = None,
    backend: Backend = "auto",
    n_jobs: int | None = None,
    scheduler: str | None = None,
    resources: Mapping[str, float] | None = None,
    desc: str | None = None,
    progress: bool = True,
) -> pandas.DataFrame:
    """Run (or resume) a grid and return its tidy results; see :class:`Grid`."""
    return Grid(fn, cells, store=store, config=config).run(
        backend=backend, n_jobs=n_jobs, scheduler=scheduler, resources=resources, desc=desc, progress=progress
    )


# moving cells between stores, machines and code versions (split out; re-exported so runs.adopt etc. are unchanged)
from robeval.core.runs_transfer import (  # noqa: E402
    LEGACY_PACKS,
    PACK_FORMAT,
    adopt,
    adopt_pack,
    pack,
    store_status,
    unpack,
)

__all__ = [
    "Grid",
    "IncompleteResult",
    "LEGACY_PACKS",
    "LOCK_TIMEOUT_S",
    "PACK_FORMAT",
    "STOP_AFTER_CELLS_ENV",
    "adopt",
    "adopt_pack",
    "cell_key",
    "claim_state",
    "code_identity",
    "config_identity",
    "grid_store",
    "pack",
    "rows_digest",
    "run_grid",
    "store_status",
    "unpack",
    "waiting_message",
]
