"""Resumable run grids: map a function over independent cells, one atomic result file per cell.

A *cell* is a small dict of parameters (e.g. ``{"eps_train": 0.01, "seed": 3}``); ``config`` holds the
settings shared by every cell. Results live in ``<store>/<identity>/<cell-key>.json``, so

* finished cells are never recomputed — rerunning the same grid only computes what is missing;
* a killed run loses at most the cells in flight (each file is written atomically when its cell ends);
* the *identity* hashes the config (keys canonicalised, checkout/cache paths made relative), the cell
  function's qualified name, and the code it can run: the top-level definitions it reaches in its module and
  the ``robeval`` modules that module imports, without comments and docstrings (:mod:`robeval.core.runs.identity`).
  Changing the config or that code starts a fresh sub-store instead of serving stale results;
* with a deadline (``$ROBEVAL_GRID_DEADLINE``, a ``time.time()``: a CPU chunk's or a GPU lease's end) a cell is
  started only if it can finish by then, by the seconds that finished cells like it took
  (:func:`expected_seconds`); the first pending cell in order that fits is started instead, and when none fits
  the run stops with :class:`DeadlineReached` rather than start work the deadline would kill;
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

import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from robeval.core.errors import IncompleteResult
from robeval.core.io import atomic_write_json, check_output_folder, read_json
from robeval.core.runs.identity import config_identity, identity_error
from robeval.core.runs.store import (
    LOCK_TIMEOUT_S,
    cell_key,
    cell_value,
    check_lock_timeout,
    check_store_file,
    claim,
    claim_state,
    clean_leftovers,
    compute_cell,
    lock_path,
    normalise_cells,
    read_cell_file,
    release,
    row_clash,
    waiting_message,
    write_store_config,
)
from robeval.core.validation import check_bool, check_path

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas

Backend = str  # "auto" | "serial" | "joblib" | "dask"


STOP_AFTER_CELLS_ENV = "ROBEVAL_STOP_AFTER_CELLS"
DEADLINE_ENV = "ROBEVAL_GRID_DEADLINE"
DEADLINE_MARGIN = 1.2  # a cell is started when 1.2 x its expected seconds fit before the deadline


class DeadlineReached(IncompleteResult):
    """A grid stopped before its deadline (``$ROBEVAL_GRID_DEADLINE``): none of the cells left could finish by
    then. Its finished cells are kept; running the grid again (a chunk's next part) computes the rest."""


def grid_deadline() -> float | None:
    """The deadline in ``$ROBEVAL_GRID_DEADLINE`` (seconds since the epoch, as ``time.time()``), None when unset."""
    raw = os.environ.get(DEADLINE_ENV, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(
            f"${DEADLINE_ENV} must be a time in seconds since the epoch (as time.time() gives), got {raw!r}; "
            "unset it to run the grid without a deadline."
        )
    return value


def expected_seconds(cell: Mapping, finished: list[tuple[Mapping, float]]) -> float | None:
    """The wall seconds ``cell`` is expected to take: the median of the ``finished`` cells' seconds (pairs of a
    cell and the seconds its result file records) over the cells *like it* — equal to it in every parameter whose
    value is a string (a method, a corruption), whatever their numbers (runs, seeds, levels) — else over every
    finished cell; None when nothing has finished (the cell is then started: its cost is unknown)."""
    import statistics

    kinds = {k: v for k, v in cell.items() if isinstance(v, str)}
    alike = [s for c, s in finished if all(c.get(k) == v for k, v in kinds.items())]
    pool = alike or [s for _, s in finished]
    return float(statistics.median(pool)) if pool else None


_cells_written = 0


def _run_cell(fn: Callable, cell: dict, config: dict, path: str) -> str:
    """Run one cell and write its result file. Executed in the worker (so a kill loses only this cell)."""
    global _cells_written
    atomic_write_json(path, compute_cell(fn, cell, config))
    _cells_written += 1
    limit = os.environ.get(STOP_AFTER_CELLS_ENV)
    if limit and _cells_written >= int(limit):
        # a lease's deadline, simulated at a cell boundary (tests of resuming across leases): the process is
        # killed as the GPU driver kills a notebook at its deadline, with this cell written and nothing after it
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return path


def _check_n_jobs(value) -> None:
    """``n_jobs`` as joblib takes it: None, a whole number >= 1, or a negative one (-1: all cores)."""
    from numbers import Integral

    what = (
        "n_jobs must be None (all cores), a whole number of processes >= 1, or a negative count from all the cores "
        "(-1: all, -2: all but one)"
    )
    if value is not None and (isinstance(value, bool) or not isinstance(value, Integral)):
        raise TypeError(f"{what}, got {value!r:.60} ({type(value).__name__}).")
    if value == 0:
        raise ValueError(f"{what}, got 0.")


class Grid:
    """A resumable grid of cells over one function and one configuration.

    Parameters
    ----------
    fn : callable ``fn(cell: dict, config: dict) -> dict | list[dict] | DataFrame``
        A function defined with ``def`` at the top level of a .py file (a module, or a script: its code names the
        store); a lambda, a closure, a builtin or another callable object is refused (ValueError) before anything
        runs. Must be importable (a module-level function) for process and Dask backends.
    cells : list of dicts, or dict of lists (Cartesian product)
    store : directory for the cell files (see :func:`grid_store`)
    config : settings shared by all cells (JSON-serialisable); part of the store's identity, with ``fn``'s
        name and code (:func:`config_identity`).
    lock_timeout : seconds (a number > 0; ``inf``: never) after which another process's claim on a cell is
        considered dead.
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
        from robeval.core.runs.trust import check_grid_cell

        problem = identity_error(fn)  # a lambda or closure would share a store with other code: stale results
        if problem is not None:
            raise ValueError(f"fn: {problem}")
        check_grid_cell(fn)
        self.fn = fn
        self.cells = normalise_cells(cells)
        keys = [cell_key(c) for c in self.cells]
        if len(set(keys)) != len(keys):
            raise ValueError("The grid has duplicate cells; make every cell unique (e.g. add a seed).")
        first: dict[str, dict] = {}
        for c in self.cells:  # 1, 1.0 and True: one cell by value, two files by key
            other = first.setdefault(cell_value(c), c)
            if other is not c:
                raise ValueError(
                    f"The grid has duplicate cells: {other} and {c} are equal by value (1 == 1.0 == True) and would "
                    "be run and counted twice; give each value one type (e.g. all seeds as int)."
                )
        if config is not None and not isinstance(config, Mapping):
            raise TypeError(
                f"config must be a mapping of setting names to JSON values (e.g. {{'epochs': 3}}) or None, got "
                f"{type(config).__name__} {config!r:.60}."
            )
        self.config = dict(config or {})
        self.lock_timeout = check_lock_timeout(lock_timeout)
        self.store = check_path(store, "store")
        self.root = self.store / f"config-{config_identity(self.config, fn)}"
        self._paths = {k: self.root / f"{k}.json" for k in keys}
        # finished cells' (cell, seconds) by file name, read once (:meth:`finished_seconds`)
        self._seconds: dict[str, tuple | None] = {}

    def path(self, cell: Mapping) -> Path:
        """The result file of ``cell``, one of the grid's cells; ValueError naming it otherwise."""
        key = cell_key(cell)
        if key not in self._paths:
            raise ValueError(f"cell {dict(cell)} is not a cell of this grid; pass one of its cells (grid.cells).")
        return self._paths[key]

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
        ``n_jobs`` (joblib) is None (all cores), a number of processes >= 1, or a negative count from all the
        cores (-1: all, -2: all but one), as joblib takes it; ``progress`` is True or False. The store must be
        a folder (created if missing) this user can write.
        """
        from tqdm.auto import tqdm

        if backend not in ("auto", "serial", "joblib", "dask"):
            raise ValueError(f"Unknown backend {backend!r}; use 'auto', 'serial', 'joblib' or 'dask'.")
        _check_n_jobs(n_jobs)
        check_bool(progress, "progress")
        for name, value, kind in (
            ("scheduler", scheduler, str),
            ("desc", desc, str),
            ("resources", resources, Mapping),
        ):
            if value is not None and not isinstance(value, kind):
                raise TypeError(
                    f"{name} must be {'a mapping' if kind is Mapping else 'text'} or None, got {value!r:.60}."
                )
        check_output_folder(self.store, "store")  # a file, or a folder below a file: named, before anything runs
        self.root.mkdir(parents=True, exist_ok=True)
        clean_leftovers(self.root, lock_timeout=self.lock_timeout)
        write_store_config(self.root, self.fn, self.config)
        scheduler = scheduler or os.environ.get("ROBEVAL_DASK_SCHEDULER") or None
        label = desc or getattr(self.fn, "__name__", "grid")
        t0 = time.perf_counter()
        todo = self.pending()
        deadline = grid_deadline()
        bar = tqdm(total=len(self.cells), initial=len(self.cells) - len(todo), desc=label, disable=not progress)
        said, said_at = None, 0.0
        try:
            while todo:
                deferred: list[dict] = []
                try:
                    self._compute(todo, backend, n_jobs, scheduler, resources, bar, deadline, deferred)
                except Exception as exc:
                    done = len(self.done())
                    raise IncompleteResult(
                        f"{label}: a cell failed ({type(exc).__name__}: {exc}). {done} of {len(self.cells)} cells are "
                        f"finished and kept in {self.root}; fix the cause and run the grid again: finished cells are "
                        "not recomputed.",
                        done=done,
                        total=len(self.cells),
                    ) from exc
                if deferred:
                    done = len(self.done())
                    raise DeadlineReached(
                        f"{label}: {len(deferred)} of {len(self.cells)} cells left for a later run: none of them can "
                        f"finish before the deadline (${DEADLINE_ENV}, {max(0.0, deadline - time.time()):.0f} s away) "
                        f"by the seconds cells like them took. {done} finished cells are kept in {self.root}; run the "
                        "grid again (a chunk's next part) to compute the rest.",
                        done=done,
                        total=len(self.cells),
                    )
                todo = self.pending()
                if todo:  # claimed by another process: wait for its results or for its claim to expire
                    claims = [claim_state(lock_path(self.path(c)), self.lock_timeout) for c in todo]
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

    def finished_seconds(self) -> list[tuple[dict, float]]:
        """``(cell, seconds)`` of every finished cell in this grid's sub-store whose result file records its cell
        and wall seconds — this grid's cells and any other cell of the same config and code (another part's runs, a
        worker's share of the grid), so a grid of a few cells still knows what cells like its own took."""
        out = []
        for path in sorted(self.root.glob("*.json")) if self.root.is_dir() else []:
            if path.name in ("config.json", "adopted.json"):
                continue
            if path.name not in self._seconds:  # a finished cell's file does not change: read once
                try:
                    check_store_file(path)  # a FIFO or link in the store: never opened
                    payload = read_json(path)
                    cell, seconds = payload.get("cell"), payload.get("seconds")
                except (OSError, ValueError, AttributeError):
                    cell, seconds = None, None
                ok = isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0
                self._seconds[path.name] = (cell, float(seconds)) if ok and isinstance(cell, Mapping) else None
            if self._seconds[path.name] is not None:
                out.append(self._seconds[path.name])
        return out

    def fits(self, cell: Mapping, deadline: float | None, finished: list | None = None) -> bool:
        """Whether ``cell`` can finish before ``deadline``: :data:`DEADLINE_MARGIN` times its
        :func:`expected_seconds` (from ``finished``, default :meth:`finished_seconds`) fit in the time left (True
        without a deadline or an estimate)."""
        if deadline is None:
            return True
        expected = expected_seconds(cell, self.finished_seconds() if finished is None else finished)
        return expected is None or time.time() + DEADLINE_MARGIN * expected <= deadline

    def _fitting(self, cells: list[dict], deadline: float | None, deferred: list[dict]) -> Iterator[dict]:
        """``cells`` one at a time, each the first of those left that :meth:`fits` when it is asked for (a worker is
        free); when none fits, the rest go to ``deferred`` and the iteration ends."""
        left = list(cells)
        while left:
            finished = self.finished_seconds() if deadline is not None else []
            pick = next((c for c in left if self.fits(c, deadline, finished)), None)
            if pick is None:
                deferred.extend(left)
                return
            left.remove(pick)
            yield pick

    def _compute(self, todo, backend, n_jobs, scheduler, resources, bar, deadline=None, deferred=None) -> None:
        """Compute the cells of ``todo`` that this process can claim (serially: one claim at a time, so
        concurrent processes share the work; in parallel: a batch of claims, each started when a worker is free
        and the deadline leaves it time; the cells it does not leave time for go to ``deferred``)."""
        deferred = [] if deferred is None else deferred
        if backend == "auto":
            backend = "dask" if scheduler else ("serial" if (n_jobs in (None, 1) or len(todo) <= 1) else "joblib")
        if backend == "serial":
            for cell in self._fitting(todo, deadline, deferred):
                path = self.path(cell)
                if path.is_file() or not claim(path, self.lock_timeout):
                    continue
                try:
                    if not path.is_file():  # finished by another process since we listed it
                        _run_cell(self.fn, cell, self.config, str(path))
                finally:
                    release(path)
                bar.update()
            return
        mine = [c for c in todo if claim(self.path(c), self.lock_timeout)]
        try:
            if not mine:
                return
            if backend == "joblib":
                from joblib import Parallel, delayed

                options = {"n_jobs": n_jobs or -1, "return_as": "generator_unordered"}
                if deadline is not None:  # one cell per worker at a time, each chosen when a worker is free
                    options.update(pre_dispatch="n_jobs", batch_size=1)
                jobs = (
                    delayed(_run_cell)(self.fn, c, self.config, str(self.path(c)))
                    for c in self._fitting(mine, deadline, deferred)
                )
                for _ in Parallel(**options)(jobs):
                    bar.update()
            else:
                self._run_dask(mine, scheduler, resources, bar)
        finally:
            for c in mine:
                release(self.path(c))

    def _run_dask(self, cells: list[dict], scheduler: str | None, resources, bar) -> None:
        from dask.distributed import Client, as_completed

        if scheduler is None:
            raise ValueError(
                "backend='dask' needs a scheduler address (scheduler= or $ROBEVAL_DASK_SCHEDULER), "
                "e.g. the address of a dask.distributed.LocalCluster or a cluster's scheduler."
            )
        with Client(scheduler) as client:
            futures = {
                client.submit(compute_cell, self.fn, c, self.config, pure=False, resources=resources): c for c in cells
            }
            for fut in as_completed(futures):
                payload = fut.result()  # re-raises worker errors here
                atomic_write_json(self.path(futures[fut]), payload)  # written by the client: no shared disk needed
                bar.update()

    def collect(self, allow_missing: bool = False) -> pandas.DataFrame:
        """All finished results as one DataFrame: one row per returned row, cell parameters as columns."""
        import pandas as pd

        check_bool(allow_missing, "allow_missing")
        records = []
        missing = 0
        for cell in self.cells:
            path = self.path(cell)
            if not path.is_file():
                missing += 1
                continue
            payload = read_cell_file(path)  # a link, bad JSON or rows changed since written: refused, naming it
            for row in payload["rows"]:
                clash = row_clash(cell, row)
                if clash is not None:
                    raise ValueError(
                        f"{path}: {clash}. Fix the function (rename the row's key), delete the file and run the grid "
                        "again."
                    )
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
