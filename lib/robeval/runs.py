"""Resumable run grids: map a function over independent cells, one atomic result file per cell.

A *cell* is a small dict of parameters (e.g. ``{"eps_train": 0.01, "seed": 3}``); ``config`` holds the
settings shared by every cell. Results live in ``<store>/<config-hash>/<cell-key>.json``, so

* finished cells are never recomputed — rerunning the same grid only computes what is missing;
* a killed run loses at most the cells in flight (each file is written atomically when its cell ends);
* changing ``config`` starts a fresh sub-store instead of mixing incompatible results.

Cells run serially, with joblib processes (default on a laptop), or on a Dask distributed cluster when
a scheduler address is given (``scheduler=`` or ``$ROBEVAL_DASK_SCHEDULER``). Determinism is the cell's
job: every cell carries its own seed, so results never depend on scheduling.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .io import atomic_write_json, read_json, to_json
from .paths import results_dir

Backend = str  # "auto" | "serial" | "joblib" | "dask"


def grid_store(profile: str, name: str) -> Path:
    """Directory where the grid ``name`` of ``profile`` keeps its cell files."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"Grid name {name!r} may only contain letters, digits, '_', '-' and '.'.")
    return results_dir(profile) / "grids" / name


def _digest(obj: Any, n: int = 12) -> str:
    return hashlib.sha256(to_json(obj, indent=None).encode()).hexdigest()[:n]


def _relocatable(obj: Any, anchors: tuple[tuple[str, str], ...]) -> Any:
    """``obj`` with absolute paths under the checkout or the cache written relative to a placeholder, so a
    grid's identity survives moving or re-cloning the project (the files' content is fixed by the other
    settings, not by where they live)."""
    if isinstance(obj, str):
        for prefix, tag in anchors:
            if obj == prefix or obj.startswith(prefix + os.sep):
                return tag + obj[len(prefix):]
        return obj
    if isinstance(obj, Mapping):
        return {k: _relocatable(v, anchors) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_relocatable(v, anchors) for v in obj]
    return obj


def config_identity(config: Mapping[str, Any]) -> str:
    """The hash naming a grid's sub-store: the config with checkout/cache paths made relative."""
    from .paths import ROOT, cache_dir

    anchors = ((str(cache_dir()), "<cache>"), (str(ROOT), "<root>"))
    return _digest(_relocatable(dict(config), anchors))


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

        keys = list(cells)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(list(cells[k]) for k in keys))]
    out = [dict(c) for c in cells]
    for c in out:
        if not c:
            raise ValueError("A grid cell is empty; every cell needs at least one parameter (e.g. its seed).")
    return out


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


def _run_cell(fn: Callable, cell: dict, config: dict, path: str) -> str:
    """Run one cell and write its result file. Executed in the worker (so a kill loses only this cell)."""
    t0 = time.perf_counter()
    result = fn(dict(cell), dict(config))
    rows = _rows(result, cell)
    atomic_write_json(path, {"cell": cell, "rows": rows, "seconds": time.perf_counter() - t0})
    return path


class Grid:
    """A resumable grid of cells over one function and one configuration.

    Parameters
    ----------
    fn : callable ``fn(cell: dict, config: dict) -> dict | list[dict] | DataFrame``
        Must be importable (a module-level function) for process and Dask backends.
    cells : list of dicts, or dict of lists (Cartesian product)
    store : directory for the cell files (see :func:`grid_store`)
    config : settings shared by all cells (JSON-serialisable); part of the store's identity.
    """

    def __init__(self, fn: Callable, cells, *, store: str | os.PathLike, config: Mapping | None = None):
        self.fn = fn
        self.cells = _normalise_cells(cells)
        keys = [cell_key(c) for c in self.cells]
        if len(set(keys)) != len(keys):
            raise ValueError("The grid has duplicate cells; make every cell unique (e.g. add a seed).")
        self.config = dict(config or {})
        self.root = Path(store) / f"config-{config_identity(self.config)}"
        self._paths = {k: self.root / f"{k}.json" for k in keys}

    def path(self, cell: Mapping) -> Path:
        return self._paths[cell_key(cell)]

    def pending(self) -> list[dict]:
        """Cells without a finished result file."""
        return [c for c in self.cells if not self.path(c).is_file()]

    def done(self) -> list[dict]:
        return [c for c in self.cells if self.path(c).is_file()]

    def run(self, *, backend: Backend = "auto", n_jobs: int | None = None, scheduler: str | None = None,
            desc: str | None = None, progress: bool = True) -> "pandas.DataFrame":  # noqa: F821
        """Compute the pending cells, then return all results as a tidy DataFrame."""
        from tqdm.auto import tqdm

        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.root / "config.json", self.config)
        todo = self.pending()
        scheduler = scheduler or os.environ.get("ROBEVAL_DASK_SCHEDULER") or None
        if backend == "auto":
            backend = "dask" if scheduler else ("serial" if (n_jobs in (None, 1) or len(todo) <= 1) else "joblib")
        if backend not in ("serial", "joblib", "dask"):
            raise ValueError(f"Unknown backend {backend!r}; use 'auto', 'serial', 'joblib' or 'dask'.")
        label = desc or getattr(self.fn, "__name__", "grid")
        bar = tqdm(total=len(self.cells), initial=len(self.cells) - len(todo), desc=label, disable=not progress)
        try:
            if not todo:
                pass
            elif backend == "serial":
                for cell in todo:
                    _run_cell(self.fn, cell, self.config, str(self.path(cell)))
                    bar.update()
            elif backend == "joblib":
                from joblib import Parallel, delayed

                jobs = (delayed(_run_cell)(self.fn, c, self.config, str(self.path(c))) for c in todo)
                for _ in Parallel(n_jobs=n_jobs or -1, return_as="generator_unordered")(jobs):
                    bar.update()
            else:
                self._run_dask(todo, scheduler, bar)
        finally:
            bar.close()
        return self.collect()

    def _run_dask(self, todo: list[dict], scheduler: str | None, bar) -> None:
        from dask.distributed import Client, as_completed

        if scheduler is None:
            raise ValueError("backend='dask' needs a scheduler address (scheduler= or $ROBEVAL_DASK_SCHEDULER), "
                             "e.g. the address of a dask.distributed.LocalCluster or a cluster's scheduler.")
        with Client(scheduler) as client:
            futures = [client.submit(_run_cell, self.fn, c, self.config, str(self.path(c)), pure=False)
                       for c in todo]
            for fut in as_completed(futures):
                fut.result()  # re-raise worker errors here
                bar.update()

    def collect(self, allow_missing: bool = False) -> "pandas.DataFrame":  # noqa: F821
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
            raise RuntimeError(f"{missing} of {len(self.cells)} cells have no result yet in {self.root}; "
                               "call run() to compute them.")
        return pd.DataFrame.from_records(records)


def run_grid(fn: Callable, cells, *, store: str | os.PathLike, config: Mapping | None = None,
             backend: Backend = "auto", n_jobs: int | None = None, scheduler: str | None = None,
             desc: str | None = None, progress: bool = True) -> "pandas.DataFrame":  # noqa: F821
    """Run (or resume) a grid and return its tidy results; see :class:`Grid`."""
    return Grid(fn, cells, store=store, config=config).run(backend=backend, n_jobs=n_jobs, scheduler=scheduler,
                                                          desc=desc, progress=progress)
