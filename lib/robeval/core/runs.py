"""Resumable run grids: map a function over independent cells, one atomic result file per cell.

A *cell* is a small dict of parameters (e.g. ``{"eps_train": 0.01, "seed": 3}``); ``config`` holds the
settings shared by every cell. Results live in ``<store>/<identity>/<cell-key>.json``, so

* finished cells are never recomputed — rerunning the same grid only computes what is missing;
* a killed run loses at most the cells in flight (each file is written atomically when its cell ends);
* the *identity* hashes the config (keys canonicalised, checkout/cache paths made relative), the cell
  function's qualified name, and the code it runs: the source, without comments and docstrings, of the
  function's module and of every ``robeval`` module it imports, transitively. Changing the config or that
  code starts a fresh sub-store instead of serving stale results;
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

import ast
import functools
import hashlib
import importlib.util
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
from robeval.core.io import atomic_write_json, check_output_file, read_json, to_json
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


def _digest(obj: Any, n: int = 12) -> str:
    return hashlib.sha256(to_json(obj, indent=None, sort_keys=True).encode()).hexdigest()[:n]


def _relocatable(obj: Any, anchors: tuple[tuple[str, str], ...]) -> Any:
    """``obj`` with absolute paths under the checkout or the cache written relative to a placeholder, so a
    grid's identity survives moving or re-cloning the project (the files' content is fixed by the other
    settings, not by where they live)."""
    if isinstance(obj, str):
        for prefix, tag in anchors:
            if obj == prefix or obj.startswith(prefix + os.sep):
                return tag + obj[len(prefix) :]
        return obj
    if isinstance(obj, Mapping):
        return {k: _relocatable(v, anchors) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_relocatable(v, anchors) for v in obj]
    return obj


def config_identity(config: Mapping[str, Any], fn: Callable | None = None) -> str:
    """The hash naming a grid's sub-store: the config (keys sorted, checkout/cache paths made relative) and,
    given ``fn``, its qualified name and :func:`code_identity`."""
    from robeval.core.paths import cache_dir, find_root

    root = find_root()
    anchors = ((str(cache_dir()), "<cache>"),) + (((str(root), "<root>"),) if root is not None else ())
    ident: dict[str, Any] = {"config": _relocatable(dict(config), anchors)}
    if fn is not None:
        ident["fn"] = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
        ident["code"] = code_identity(fn)
    return _digest(ident)


def _module_source(name: str) -> str | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin).read_text(encoding="utf-8")


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _robeval_imports(tree: ast.AST, module: str) -> set[str]:
    out = set()
    package = module.rsplit(".", 1)[0] if "." in module else module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "robeval"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            if base.split(".")[0] != "robeval":
                continue
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}  # `from robeval.x import module`
    return out


@functools.lru_cache(maxsize=256)
def _closure_digest(module: str) -> str:
    """Digest of the code of ``module`` and every robeval module it imports (transitively), comments and
    docstrings excluded."""
    seen, todo, parts = set(), [module], []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            src = _module_source(name)
        except (ImportError, ValueError):
            src = None
        if src is None:
            continue
        tree = ast.parse(src)
        parts.append(f"{name}:{ast.dump(_strip_docstrings(ast.parse(src)))}")
        todo.extend(_robeval_imports(tree, name) - seen)
    return hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()


def code_identity(fn: Callable) -> str:
    """A digest of the code a cell function runs: its module and the robeval modules that module imports,
    transitively, without comments and docstrings (so reformatting or documenting does not invalidate
    results, but any change of the computation does)."""
    module = getattr(fn, "__module__", None)
    if not module:
        return "unknown"
    return _closure_digest(module)[:16]


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
            {"fn": f"{fn.__module__}.{fn.__qualname__}", "code": code_identity(fn), "config": config},
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


# ------------------------------------------------------------------------------------ adopting a store
def _same(a: Any, b: Any) -> bool:
    """Exact equality of two JSON values, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _check_sample(cells: list[dict], n_check: int, seed: int) -> list[int]:
    """Positions of the cells to recompute: one per value of every cell field with at most 50 distinct values
    (each noise level, model, k ...), then random ones up to ``n_check``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    chosen: set[int] = set()
    for field in sorted({k for c in cells for k in c}):
        values = {}
        for i, c in enumerate(cells):
            values.setdefault(to_json(c.get(field)), []).append(i)
        if len(values) <= 50:
            for _, idx in sorted(values.items()):
                if not chosen.intersection(idx):
                    chosen.add(int(rng.choice(idx)))
    rest = [i for i in range(len(cells)) if i not in chosen]
    extra = max(0, min(n_check - len(chosen), len(rest)))
    chosen |= {int(i) for i in rng.choice(rest, size=extra, replace=False)} if extra else set()
    return sorted(chosen)


def _import_fn(name: str) -> Callable:
    module, _, qualname = name.rpartition(".")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, ValueError):
        raise ValueError(f"the store's cell function {name!r} cannot be imported from this checkout.") from None
    return obj


def _store_config(path: Path) -> dict:
    """A sub-store's ``config.json``: a JSON object with the cell function's name ``fn`` (text) and ``config`` (an
    object); ValueError naming the file otherwise."""
    try:
        meta = read_json(path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not readable JSON ({exc}); the store is damaged: rerun its grid.") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("fn"), str) or not isinstance(meta.get("config"), dict):
        keys = sorted(meta) if isinstance(meta, dict) else type(meta).__name__
        raise ValueError(
            f"{path} is not a grid store's config (it needs 'fn', the cell function's name, and 'config'; it has "
            f"{keys}); the store was not written by robeval.core.runs or was altered: rerun its grid."
        )
    return meta


def adopt(
    store: str | os.PathLike,
    *,
    source: str | os.PathLike | None = None,
    n_check: int = 12,
    seed: int = 0,
    progress: bool = True,
    checksums: Mapping[str, Mapping[str, str]] | None = None,
    recompute_all: bool = False,
) -> list[dict]:
    """Keep finished cells across a code change that does not change their results, after checking that.

    A grid's identity covers its cell function's code, so any edit of that code or of a ``robeval`` module it
    imports starts a fresh sub-store, even when the edit leaves every result unchanged (a new helper in the
    same module, a refactor). For every sub-store ``config-*`` of ``source`` (default: ``store`` itself)
    whose identity under this checkout's code differs, ``adopt`` recomputes a sample of its cells with this
    checkout's code — one cell per value of every field with at most 50 values (each noise level, model, k),
    then random cells up to ``n_check`` — and compares the results exactly (every row, every float). Only if
    all are identical are the finished cells hard-linked (or copied) into ``store``'s sub-store of the current
    identity, with the check recorded in its ``adopted.json``. Cells already there are kept; a rerun, e.g.
    after the old code's run added cells, adopts the new ones after a fresh check.

    The sample shows that the code change kept the results; checksums show that no cell was changed since it was
    written. A sub-store whose identity is the current one (the same config and code, e.g. a pack from an earlier
    lease of a GPU machine, whose results a recomputation would not reproduce bit for bit) is taken on the pack's
    checksums alone, with nothing recomputed (``checked`` 0). Before anything is recomputed, every cell file of the sub-store is verified: the checksum of its rows
    written with it (``rows_sha256``, :func:`rows_digest`; cells written before checksums have none) and, with
    ``checksums`` (``{sub-store: {file name: sha256 of the file}}``, from a pack's manifest: :func:`adopt_pack`),
    the file's own checksum; a file the checksums do not list fails too. ``recompute_all`` recomputes every cell
    instead of a sample (for cells without any checksum).

    Returns one dict per sub-store: ``from``, ``to`` (directory names), ``cells`` (adopted now),
    ``checked`` (cells recomputed), ``verified`` (cell files whose checksum matched), ``status`` ("adopted",
    "current" or "empty"). Raises RuntimeError, and adopts nothing from that sub-store, when a cell fails its
    checksum (it was changed after it was written) or a recomputed cell differs (the code change changed the
    results): its cells must be recomputed.
    """
    import shutil

    from tqdm.auto import tqdm

    store = Path(store)
    source = Path(source) if source is not None else store
    if not isinstance(n_check, int) or isinstance(n_check, bool) or n_check < 1:
        raise ValueError(f"n_check must be an integer >= 1 (cells to recompute), got {n_check!r}.")
    subs = sorted(p for p in source.glob("config-*") if (p / "config.json").is_file()) if source.is_dir() else []
    if not subs:
        raise ValueError(f"{source} holds no grid sub-store (config-*/config.json); pass the grid's store folder.")
    report = []
    for sub in subs:
        if checksums is not None:  # a pack's config.json is verified before anything of it is read
            listed = checksums.get(sub.name) or {}
            if listed.get("config.json") != _file_digest(sub / "config.json"):
                why = "lists no checksum for it" if "config.json" not in listed else "recorded other bytes for it"
                raise RuntimeError(
                    f"{sub.name}/config.json fails its checksum (the pack's manifest {why}), so nothing of this "
                    "sub-store is adopted. Take the pack as it was written (e.g. `git checkout -- PACK`) or rerun the "
                    "grid to recompute its cells."
                )
        meta = _store_config(sub / "config.json")
        fn = _import_fn(meta["fn"])
        config = meta["config"]
        target = store / f"config-{config_identity(config, fn)}"
        if target.resolve() == sub.resolve():
            report.append(
                {"from": sub.name, "to": target.name, "cells": 0, "checked": 0, "verified": 0, "status": "current"}
            )
            continue
        files = sorted(p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json"))
        todo = [p for p in files if not (target / p.name).is_file()]
        if not todo:
            report.append(
                {"from": sub.name, "to": target.name, "cells": 0, "checked": 0, "verified": 0, "status": "empty"}
            )
            continue
        payloads, broken, verified = [], {}, 0
        for p in files:
            try:
                payloads.append(read_json(p))
            except ValueError:
                payloads.append(None)
                broken.setdefault(p.name, f"{p.name}: not valid JSON")
                continue
            err = _cell_digest_error(p, payloads[-1])
            if err is not None:
                broken.setdefault(p.name, err)
            verified += payloads[-1].get("rows_sha256") is not None if isinstance(payloads[-1], Mapping) else 0
        if checksums is not None:
            listed = checksums.get(sub.name) or {}
            for p in [
                sub / "config.json",
                *([sub / "adopted.json"] if (sub / "adopted.json").is_file() else []),
                *files,
            ]:
                if p.name not in listed:
                    broken.setdefault(p.name, f"{p.name}: the pack's manifest lists no checksum for it")
                elif _file_digest(p) != listed[p.name]:
                    broken.setdefault(
                        p.name, f"{p.name}: its bytes differ from the checksum the pack recorded when it was written"
                    )
            verified = len(files)
        if broken:
            raise RuntimeError(
                f"{len(broken)} file(s) of {sub.name} fail their checksum (e.g. {next(iter(broken.values()))}): they were changed "
                "after they were written, so nothing of this sub-store is adopted. Take the cells from an intact copy "
                "(the pack as it was written, e.g. `git checkout -- PACK`) or rerun the grid to recompute them."
            )
        bad_cells = [f"{p.name}" for p, pl in zip(files, payloads) if not isinstance(pl.get("cell"), dict)]
        if bad_cells:
            raise RuntimeError(f"{sub.name}: {bad_cells[0]} is not a grid cell file (no 'cell'); rerun the grid.")
        # a pack's sub-store of the current identity (same config, same code) whose every file matches the pack's
        # checksums needs no recomputation: nothing changed that could change a result. This is also the only way
        # to carry cells between leases of a GPU, whose training is not bit-reproducible by a recomputation
        same_code = sub.name == target.name and checksums is not None
        if recompute_all:
            picks = list(range(len(files)))
        elif same_code:
            picks = []
        else:
            picks = _check_sample([pl["cell"] for pl in payloads], n_check, seed)
        bad = []
        for i in tqdm(picks, desc=f"check {sub.name}", disable=not progress):
            new = json.loads(to_json(_compute_cell(fn, payloads[i]["cell"], config)["rows"]))
            if not _same(new, payloads[i]["rows"]):
                bad.append(files[i].name)
        if bad:
            raise RuntimeError(
                f"{len(bad)} of {len(picks)} recomputed cells of {sub} differ under this checkout's code "
                f"(e.g. {bad[0]}): the code change changed the results, so its cells cannot be adopted; "
                "rerun the grid to recompute them."
            )
        target.mkdir(parents=True, exist_ok=True)
        _write_store_config(target, fn, config)
        for p in todo:
            try:
                os.link(p, target / p.name)
            except FileExistsError:
                pass
            except OSError:  # another filesystem, or no hard links
                tmp = target / f".{p.name}.adopt.tmp"
                shutil.copy2(p, tmp)
                os.replace(tmp, target / p.name)
        log_path = target / "adopted.json"
        log = read_json(log_path) if log_path.is_file() else []
        log.append(
            {
                "from": str(sub),
                "from_code": meta.get("code"),
                "to_code": code_identity(fn),
                "cells": len(todo),
                "checked": [files[i].name for i in picks],
                "verified": verified,
                "identical": True,
                "same_code": same_code,
                "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }
        )
        atomic_write_json(log_path, log)
        report.append(
            {
                "from": sub.name,
                "to": target.name,
                "cells": len(todo),
                "checked": len(picks),
                "verified": verified,
                "status": "adopted",
            }
        )
    return report


# Packs committed before packs carried checksums (format "robeval grid pack 1" without per-file sha256): the sha256
# of the whole pack file as committed. Such a pack is adopted as it was (a sample recomputed) only while it is
# byte-identical to the committed file: the whole-file digest covers every cell of it. Any other pack without
# checksums needs recompute_all (every cell recomputed).
LEGACY_PACKS = {
    "46f22dd86ce8d08a086140f5b6f6ba385a8f1f408bd85773e293ffccf90e0e40": (
        "results/paper/checkpoints/mscr_2d_paper_grids.tar.xz, notebook 01's paper grids (2026-11-26)"
    ),
}


def adopt_pack(
    archive: str | os.PathLike,
    stores: Mapping[str, str | os.PathLike] | Callable[[str], str | os.PathLike],
    *,
    n_check: int = 12,
    seed: int = 0,
    progress: bool = True,
    recompute_all: bool = False,
) -> dict[str, list[dict]]:
    """:func:`adopt` the stores ``stores`` (``{store name in the pack: store folder here}``) from the pack ``archive``;
    a function ``name -> store folder`` instead adopts every store the pack holds (e.g. ``lambda n:
    grid_store("gpu", n)``, a lease's whole pack).

    Packs are verified, not sampled: a pack written by :func:`pack` records the sha256 of every file in its
    manifest, and every cell carries the checksum of its rows written with it; :func:`adopt` refuses a sub-store
    with any file that fails either (and recomputes its sample as before). A pack without checksums (written
    before them) is adopted only when it is one of :data:`LEGACY_PACKS`, byte for byte, or with ``recompute_all``
    (every cell recomputed). Returns ``{name: adopt's report}``; raises RuntimeError prefixed with the store name
    (earlier stores stay adopted), ValueError for a pack that is not one or lacks a store.
    """
    import tempfile

    archive = Path(archive)
    with tempfile.TemporaryDirectory(prefix="robeval-pack-") as tmp:
        manifest = unpack(archive, tmp)
        if callable(stores):
            stores = {name: stores(name) for name in manifest["stores"]}
        missing = [n for n in stores if n not in manifest["stores"]]
        if missing:
            raise ValueError(
                f"the pack {archive} holds no store {', '.join(missing)}; it holds {', '.join(manifest['stores'])}."
            )
        subs = [m for name in stores for m in manifest["stores"][name].values()]
        with_sums = all(isinstance(m.get("sha256"), dict) for m in subs)
        if not with_sums and not recompute_all and _file_digest(archive) not in LEGACY_PACKS:
            raise ValueError(
                f"the pack {archive} records no checksums (written before packs had them) and is not a known "
                "committed pack, so a changed cell could not be told; adopt it with --recompute-all (every cell "
                "recomputed and compared), or repack the stores with this code (`robeval grids --pack`)."
            )
        out = {}
        for name, store in stores.items():
            sums = {sub: m["sha256"] for sub, m in manifest["stores"][name].items()} if with_sums else None
            try:
                out[name] = adopt(
                    store,
                    source=Path(tmp) / name,
                    n_check=n_check,
                    seed=seed,
                    progress=progress,
                    checksums=sums,
                    recompute_all=recompute_all,
                )
            except RuntimeError as exc:
                raise RuntimeError(f"{name}: {exc}") from None
    return out


def store_status(store: str | os.PathLike, *, lock_timeout: float = LOCK_TIMEOUT_S) -> list[dict]:
    """How far a grid store got, and whether this checkout's code can use it: one dict per sub-store.

    For long grids spread over days (the paper profile), this answers what a rerun will find without running
    anything: ``sub`` (the ``config-*`` folder), ``fn`` (the cell function), ``current`` (True when the
    sub-store's identity is the one this checkout's code and config give, so a rerun continues it; False
    when the code changed since — ``robeval adopt`` checks and keeps its cells; None when the function cannot
    be imported here), ``cells`` (finished), ``running`` (claims of live processes of this host on unfinished
    cells), ``abandoned`` (claims of dead or expired holders on unfinished cells: a rerun takes them over; claims a
    killed batch left on finished cells are not counted, a rerun removes them), ``foreign`` (claims of processes of
    other hosts, which this host cannot check) and ``foreign_claims`` (their :func:`claim_state`, oldest first),
    ``compute_s`` (the sum
    of the cells' own timings, in seconds: the grid's measured cost, on however many cores it ran),
    ``adopted`` (cells brought in by :func:`adopt`), ``first`` and ``last`` (when the earliest and latest
    finished cell was written, ISO 8601 UTC). Sub-stores are listed by name; an empty list when ``store``
    does not exist.
    """
    store = Path(store)
    out = []
    subs = sorted(p for p in store.glob("config-*") if p.is_dir()) if store.is_dir() else []
    for sub in subs:
        meta = read_json(sub / "config.json") if (sub / "config.json").is_file() else {}
        try:
            fn = _import_fn(meta["fn"])
            current = sub.name == f"config-{config_identity(meta['config'], fn)}"
        except (KeyError, ValueError):
            current = None
        files = [p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json")]
        seconds, stamps = 0.0, []
        for p in files:
            seconds += float(read_json(p).get("seconds", 0.0))
            stamps.append(p.stat().st_mtime)
        running = abandoned = 0
        foreign = []
        for lock in sub.glob("*.lock"):
            if lock.with_suffix(".json").is_file():
                continue  # a claim left on a finished cell (a killed batch): nothing to compute, a rerun removes it
            claim = claim_state(lock, lock_timeout)
            if claim["state"] == "foreign":
                foreign.append(claim)
            elif claim["state"] == "live":
                running += 1
            elif claim["state"] != "released":
                abandoned += 1
        log = read_json(sub / "adopted.json") if (sub / "adopted.json").is_file() else []

        def iso(t):
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) if t is not None else None

        out.append(
            {
                "sub": sub.name,
                "fn": meta.get("fn"),
                "current": current,
                "cells": len(files),
                "running": running,
                "abandoned": abandoned,
                "foreign": len(foreign),
                "foreign_claims": sorted(foreign, key=lambda c: -c["age"]),
                "compute_s": round(seconds, 1),
                "adopted": int(sum(entry.get("cells", 0) for entry in log)),
                "first": iso(min(stamps) if stamps else None),
                "last": iso(max(stamps) if stamps else None),
            }
        )
    return out


# ------------------------------------------------------------------------------------ packing stores
PACK_FORMAT = "robeval grid pack 1"
_PACK_SUB = re.compile(r"config-[0-9a-f]+")
_PACK_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9=._-]*\.json")


def _pack_member_ok(name: str) -> bool:
    """Whether ``name`` is a member a pack may hold: ``MANIFEST.json`` or ``<store>/config-<id>/<file>.json``, with
    a store name :func:`grid_store` accepts (never ``.`` or ``..``): checked by this code, whatever the Python
    version's tarfile does."""
    if name == "MANIFEST.json":
        return True
    parts = name.split("/")
    return (
        len(parts) == 3
        and bool(_STORE_NAME.fullmatch(parts[0]))
        and bool(_PACK_SUB.fullmatch(parts[1]))
        and bool(_PACK_FILE.fullmatch(parts[2]))
    )


def pack(stores: Iterable[str | os.PathLike], out: str | os.PathLike) -> dict:
    """Write the finished cells of grid stores into one xz-compressed tar file (atomically).

    A grid store lives in an ignored folder of the checkout, so it is lost with the machine it was computed on.
    A pack is the store's finished cells as one small file (about 75 bytes a cell for notebook 01's grids) that
    can travel and be kept, e.g. committed as a checkpoint of a computation that spans several machines or
    working sessions. Nothing reads a pack by itself: ``robeval adopt --from PACK`` checks every file against
    its checksum, recomputes a sample of its cells with the current code and takes them only if every checksum
    matches and every recomputed number is identical (:func:`adopt`).

    Lock files and half-written temporary files are left out.

    Parameters
    ----------
    stores : iterable of path
        Grid store folders (:func:`grid_store`), each holding ``config-*`` sub-stores; the folder's name is the
        store's name in the pack.
    out : path
        The pack's path, ending in ``.tar.xz``.

    Returns
    -------
    dict
        The manifest written into the pack as ``MANIFEST.json``: ``format``, ``created`` (ISO 8601 UTC), and per
        store name, per sub-store, ``fn``, ``code`` (identity of the code that computed it), ``cells`` and
        ``sha256`` (``{file name: sha256 of the file}`` for every file packed, which :func:`adopt_pack`
        verifies). A cell whose rows no longer match the checksum written with them is refused (ValueError), so a
        pack never certifies a changed cell.
    """
    import io as _io
    import tarfile

    out = Path(out)
    if not out.name.endswith(".tar.xz"):
        raise ValueError(f"the pack's name must end in .tar.xz, got {out.name!r}.")
    check_output_file(out, "the pack")  # a file where its folder should be, a read-only folder: said first
    stores = [Path(s) for s in stores]
    if not stores:
        raise ValueError("no grid store to pack; name at least one store folder.")
    names = [s.name for s in stores]
    if len(set(names)) != len(names):
        raise ValueError(f"two stores share a name ({names}); a pack holds each store name once.")
    manifest: dict[str, Any] = {
        "format": PACK_FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "stores": {},
    }
    members: list[tuple[str, Path]] = []
    for store in stores:
        subs = sorted(p for p in store.glob("config-*") if (p / "config.json").is_file()) if store.is_dir() else []
        if not subs:
            raise ValueError(f"{store} holds no grid sub-store (config-*/config.json); pass a grid's store folder.")
        manifest["stores"][store.name] = {}
        for sub in subs:
            meta = read_json(sub / "config.json")
            cells = sorted(p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json"))
            broken = [e for e in (_cell_digest_error(p, read_json(p)) for p in cells) if e is not None]
            if broken:
                raise ValueError(
                    f"{len(broken)} cell(s) of {store.name}/{sub.name} fail their checksum (e.g. {broken[0]}); they "
                    "were changed after they were written. Delete them (a rerun recomputes them) and pack again."
                )
            extra = [sub / n for n in ("config.json", "adopted.json") if (sub / n).is_file()]
            manifest["stores"][store.name][sub.name] = {
                "fn": meta.get("fn"),
                "code": meta.get("code"),
                "cells": len(cells),
                "sha256": {p.name: _file_digest(p) for p in extra + cells},
            }
            members += [(f"{store.name}/{sub.name}/{p.name}", p) for p in extra + cells]
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with tarfile.open(tmp, "w:xz", preset=9) as tf:
            blob = to_json(manifest).encode()
            info = tarfile.TarInfo("MANIFEST.json")
            info.size, info.mtime = len(blob), int(time.time())
            tf.addfile(info, _io.BytesIO(blob))
            for arcname, path in members:
                tf.add(path, arcname=arcname, recursive=False)
        os.replace(tmp, out)
    except OSError as exc:
        if tmp.exists():
            tmp.unlink()
        raise ValueError(
            f"the pack {out} could not be written ({exc.strerror or exc}); pass a path in a folder you can write, "
            "with room for it."
        ) from None
    return manifest


def unpack(archive: str | os.PathLike, dest: str | os.PathLike) -> dict:
    """Extract a pack written by :func:`pack` into the folder ``dest`` (one folder per store) and return its
    manifest. Every member is checked first by this code (:func:`_pack_member_ok`), whatever the Python version:
    only ``MANIFEST.json`` and ``<store>/config-<id>/<file>.json`` regular files, each once, are accepted (ValueError
    naming anything else, and nothing is extracted). The members are then written by this code too, each to the path
    its checked name gives below ``dest``; tarfile's extraction (and its filters, which Python 3.10 may lack) is not
    used. Checksums are verified by :func:`adopt_pack`."""
    import tarfile

    archive = Path(archive)
    if not archive.is_file():
        raise ValueError(f"{archive}: no such pack; make one with `robeval grids --pack FILE.tar.xz`.")
    import lzma
    import zlib

    broken = (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error)
    try:
        tf = tarfile.open(archive, "r:xz")
    except broken as exc:
        raise ValueError(
            f"{archive} is not a grid pack (an xz-compressed tar from `robeval grids --pack`): {exc or type(exc).__name__}"
        ) from None
    with tf:
        # every member is read (and so the whole archive decompressed) before anything is written: a pack cut
        # short (a partial copy) or corrupted is refused here, with nothing extracted
        try:
            members = tf.getmembers()
            seen = set()
            for m in members:
                if not m.isfile() or not _pack_member_ok(m.name) or m.name in seen:
                    why = "twice" if m.name in seen else "which is not part of a grid pack"
                    raise ValueError(f"{archive} holds {m.name!r}, {why}; refusing to extract anything.")
                seen.add(m.name)
            data = {m.name: tf.extractfile(m).read() for m in members}
            while tf.fileobj.read(1 << 20):  # to the end of the xz stream: a cut-off index or footer fails here
                pass
        except broken as exc:
            raise ValueError(
                f"{archive} is truncated or corrupted ({type(exc).__name__}: {exc or 'unexpected end of data'}); "
                "nothing was extracted. Copy the pack again in full (compare its size or sha256 with the original)."
            ) from None
        if "MANIFEST.json" not in seen:
            raise ValueError(f"{archive} has no MANIFEST.json; it was not written by `robeval grids --pack`.")
        try:
            manifest = json.loads(data["MANIFEST.json"])
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(
                f"{archive}: its MANIFEST.json is not valid JSON ({exc}); the pack was not written by `robeval grids "
                "--pack` or was altered. Repack the stores with `robeval grids --pack`."
            ) from None
        if not isinstance(manifest, dict) or manifest.get("format") != PACK_FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else None
            raise ValueError(f"{archive}: unknown pack format {found!r} (this code reads {PACK_FORMAT!r}).")
        stores = manifest.get("stores")
        if not isinstance(stores, dict) or not all(
            isinstance(subs, dict) and all(isinstance(m, dict) for m in subs.values()) for subs in stores.values()
        ):
            raise ValueError(
                f"{archive}: its MANIFEST.json lists no stores; it was not written by `robeval grids --pack`."
            )
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        for m in members:
            if m.name == "MANIFEST.json":
                continue
            target = dest.joinpath(*m.name.split("/"))
            if root not in target.resolve().parents:  # cannot happen for a checked name; kept as a last guard
                raise ValueError(f"{archive}: member {m.name!r} would be written outside {dest}; refusing.")
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.unpack.tmp")
            tmp.write_bytes(data[m.name])
            os.replace(tmp, target)
            os.utime(target, (m.mtime, m.mtime))
    return manifest
