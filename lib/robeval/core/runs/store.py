"""The files of a grid store: how a store and its cells are named, the store's ``config.json``, a cell's result
payload and the checksum written with it, and the claims (lock files) that keep two processes from computing one
cell twice. :mod:`robeval.core.runs.grid` runs grids on top of it; :mod:`robeval.core.runs.packs` moves finished
cells between stores and machines."""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import re
import socket
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from robeval.core.env import cpu_kind
from robeval.core.io import atomic_write_json, to_json
from robeval.core.paths import results_dir
from robeval.core.runs.identity import code_identity, digest, portable_config

LOCK_TIMEOUT_S = 6 * 3600.0  # a lock older than this is taken over (its owner is presumed dead)


STORE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # never "." or "..": a store is a folder below grids/


def grid_store(profile: str, name: str, *, create: bool = True) -> Path:
    """Directory where the grid ``name`` of ``profile`` keeps its cell files (its profile's results folder is
    created unless ``create`` is False: a reader such as ``robeval grids`` creates nothing)."""
    if not isinstance(name, str) or not STORE_NAME.fullmatch(name) or len(name) > 200:
        raise ValueError(
            f"Grid name {name!r:.80} may only contain letters, digits, '_', '-' and '.', must start with a letter, "
            "digit or '_', and have at most 200 characters."
        )
    return results_dir(profile, create=create) / "grids" / name


def cell_key(cell: Mapping[str, Any]) -> str:
    """Readable, filesystem-safe, unique file stem for ``cell``. TypeError naming ``cell`` unless it is a mapping
    of parameter names (text) to JSON values, nested no deeper than Python's limit."""
    what = (
        "cell must be a mapping of parameter names (text) to JSON values (numbers, text, lists, dicts), e.g. {'x': 1}"
    )
    if not isinstance(cell, Mapping):
        raise TypeError(f"{what}; got {type(cell).__name__} {str(cell)[:60]}.")
    named = [k for k in cell if not isinstance(k, str)]
    if named:
        raise TypeError(f"{what}; the parameter name {named[0]!r} is {type(named[0]).__name__}, not text.")
    try:
        ident = digest(dict(cell), 8)
        parts = []
        for k in sorted(cell):
            v = cell[k]
            text = f"{v:g}" if isinstance(v, float) else str(v)
            parts.append(f"{k}={text}")
    except RecursionError:
        raise TypeError(f"{what}; it is nested too deeply to be named (past Python's recursion limit).") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}; {exc}.") from None
    readable = re.sub(r"[^A-Za-z0-9=._-]+", "_", "__".join(parts))[:120]
    return f"{readable}__{ident}"


def cell_value(cell: Mapping[str, Any]) -> str:
    """``cell`` as text that two cells share exactly when they are equal by value, as Python compares them (``1``,
    ``1.0`` and ``True`` alike, at any depth; a tuple as its list): :func:`cell_key` names them apart (it digests
    their JSON text), so a grid holding both would run one cell twice and count it twice."""

    def by_value(v):
        if isinstance(v, Mapping):
            return {str(k): by_value(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [by_value(x) for x in v]
        if isinstance(v, numbers.Number) and not isinstance(v, numbers.Integral):
            try:
                f = float(v)
            except (TypeError, ValueError):  # a complex number: as it is
                return v
            return int(f) if f.is_integer() else f
        if isinstance(v, numbers.Integral):  # bool and numpy integers too
            return int(v)
        return v

    return to_json(by_value(dict(cell)), indent=None, sort_keys=True)


def normalise_cells(cells: Iterable[Mapping[str, Any]] | Mapping[str, Iterable]) -> list[dict]:
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


def write_store_config(root: Path, fn: Callable, config: Mapping) -> None:
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
    rows = [dict(r) for r in result]
    for row in rows:
        clash = row_clash(cell, row)
        if clash is not None:
            raise ValueError(f"{clash}; rename the row's key.")
    return rows


def row_clash(cell: Mapping, row: Mapping) -> str | None:
    """Why ``row`` (a row a grid function returned for ``cell``) contradicts its cell, or None: a key of the row
    that names a cell parameter with another value would replace the cell's value in the collected table."""
    for key in cell:
        if key not in row:
            continue
        try:
            same = bool(row[key] == cell[key])
        except (TypeError, ValueError):  # an array, or values that do not compare
            same = False
        if not same:
            return (
                f"the grid function returned a row with {key}={row[key]!r:.60} for the cell with {key}={cell[key]!r:.60}; "
                "a row key that names a cell parameter must hold the cell's value (the table shows one column)"
            )
    return None


def rows_digest(rows: list) -> str:
    """sha256 of a cell's rows as they read back from its JSON file (keys sorted, no whitespace); TypeError naming
    ``rows`` unless it is a list of rows (dicts)."""
    if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
        raise TypeError(f"rows must be a list of rows (dicts), got {type(rows).__name__} {str(rows)[:60]!r}.")
    return hashlib.sha256(to_json(json.loads(to_json(rows)), indent=None, sort_keys=True).encode()).hexdigest()


STORE_FILE_MAX = 64 * 2**20  # bytes of one file of a store (a cell file is kilobytes; the largest ~150 KB)


def check_store_file(path: Path) -> None:
    """ValueError naming ``path`` unless it is a regular file of at most :data:`STORE_FILE_MAX` bytes, checked
    before it is opened: a store robeval wrote holds nothing else, and a link (to ``/dev/zero``, to a file outside)
    or a FIFO in a store from elsewhere would be read without end or block the command."""
    import stat

    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        why = "is a link or a special file, which no store robeval wrote holds"
    elif st.st_size > STORE_FILE_MAX:
        why = f"has {st.st_size:,} bytes (a store's file has at most {STORE_FILE_MAX:,})"
    else:
        return
    raise ValueError(
        f"{path} {why}; the store is damaged or was not written by robeval: nothing of it is read. Remove the "
        "file, or take the store from an intact copy."
    )


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def compute_cell(fn: Callable, cell: dict, config: dict) -> dict:
    """Run one cell and return its result payload: rows, wall time, ``machine`` (the CPU kind, its vector ISA and
    the kernel pins it ran with, :func:`robeval.core.env.cpu_kind`: torch's training bits depend on them) and
    ``rows_sha256``, the checksum of the rows computed when they are written (:func:`rows_digest`), which
    :func:`pack` and :func:`adopt` verify."""
    t0 = time.perf_counter()
    rows = _rows(fn(dict(cell), dict(config)), cell)
    return {
        "cell": cell,
        "rows": rows,
        "seconds": time.perf_counter() - t0,
        "machine": cpu_kind(),
        "rows_sha256": rows_digest(rows),
    }


def cell_digest_error(path: Path, payload: Mapping) -> str | None:
    """Why the rows of a cell file do not match the checksum written with them; None when they do (or when the
    cell predates checksums)."""
    want = payload.get("rows_sha256") if isinstance(payload, Mapping) else None
    if want is None:
        return None
    if not isinstance(payload.get("rows"), list) or rows_digest(payload["rows"]) != want:
        return f"{path.name}: its rows do not match the checksum written with them"
    return None


def cell_name_error(path: Path, payload: Any) -> str | None:
    """Why the cell a cell file records (``payload["cell"]``) does not give the file's name (:func:`cell_key` +
    ``.json``), or None when it does. A store names each cell's file by its cell, so a file whose recorded cell
    names another file was renamed or swapped: its rows are another cell's results."""
    cell = payload.get("cell") if isinstance(payload, Mapping) else None
    if not isinstance(cell, Mapping):
        return f"{path.name} records no cell (a JSON object under 'cell'), so it cannot be told which cell it holds"
    try:
        want = cell_key(cell) + ".json"
    except TypeError:
        return f"{path.name} records a cell that is not a mapping of parameter names to JSON values"
    if want != path.name:
        return f"{path.name} records the cell {to_json(cell, indent=None)[:120]}, whose file is {want}"
    return None


def read_cell_file(path: Path) -> dict:
    """The payload of a finished cell's result file, checked before its rows are used: a regular file
    (:func:`check_store_file`), readable JSON holding a list of rows (dicts), the rows matching the checksum written
    with them (:func:`cell_digest_error`), the cell it records giving its name (:func:`cell_name_error`). ValueError
    naming the file and the fix otherwise: delete it, and running
    the grid again computes that cell anew (the other finished cells are kept)."""
    from robeval.core.io import read_json

    fix = "delete it and run the grid again: that cell is computed anew, the finished ones are kept"
    check_store_file(path)
    try:
        payload = read_json(path, what="the grid cell file", fix=fix)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        if str(exc).startswith("the grid cell file"):
            raise
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise ValueError(f"{path} is not a readable grid cell file ({why}); {fix}.") from None
    rows = payload.get("rows") if isinstance(payload, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{path} is not a grid cell file (a JSON object whose 'rows' is a list of objects); {fix}.")
    if cell_digest_error(path, payload) is not None:
        raise ValueError(
            f"{path}: its rows do not match the checksum written with them (rows_sha256): the file was changed after "
            f"its cell was computed, so its results cannot be trusted; {fix}."
        )
    name_error = cell_name_error(path, payload)
    if name_error is not None:
        raise ValueError(
            f"{path.parent / name_error}: the file was renamed or swapped, so its rows are not its name's cell's; {fix}."
        )
    return payload


# ------------------------------------------------------------------------------------------- cell locks
def lock_path(path: Path) -> Path:
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


def check_lock_timeout(value) -> float:
    """``lock_timeout`` as a float: a number of seconds > 0 (``inf``: a claim never goes stale by age)."""
    import math
    from numbers import Real

    what = "lock_timeout must be a number of seconds > 0 (a claim older than that is taken over; inf: never)"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{what}, got {value!r:.60} ({type(value).__name__}).")
    if math.isnan(value) or value <= 0:
        raise ValueError(f"{what}, got {value!r}.")
    return float(value)


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
    from robeval.core.validation import check_path

    lock, lock_timeout = check_path(lock, "lock"), check_lock_timeout(lock_timeout)
    out = {"lock": str(lock), "host": None, "pid": None, "age": 0.0}
    try:
        st = lock.lstat()
        out["age"] = max(0.0, time.time() - st.st_mtime)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:  # a link, FIFO or huge file (a store from
            raise ValueError("not a claim")  # elsewhere) is never opened: it could block or read without end
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
        if pid <= 0:
            raise ProcessLookupError  # no process has it (0 and -1 would name a group, or every process)
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or a number no process can have
        return {**out, "state": "dead"}
    except (KeyError, ValueError, TypeError):
        return {**out, "state": "dead" if out["age"] > 10.0 else "live"}
    except PermissionError:
        pass  # alive, owned by another user
    start = owner.get("start")
    if start is not None and _process_start(pid) not in (None, start):
        return {**out, "state": "dead"}  # the pid was reused: the holder is gone
    return {**out, "state": "live"}


def claim(path: Path, lock_timeout: float) -> bool:
    """Take the exclusive lock of a cell's result file; False if another live process holds it."""
    lock = lock_path(path)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if not is_stale(lock, lock_timeout):
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


def is_stale(lock: Path, lock_timeout: float) -> bool:
    return claim_state(lock, lock_timeout)["state"] in ("dead", "expired", "released")


def format_age(seconds: float) -> str:
    """A duration for people: ``"42 s"``, ``"12 min"``, ``"3.5 h"``. TypeError naming ``seconds`` unless it is a
    real number (not a bool, not text); ValueError for NaN."""
    import numbers

    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real):
        raise TypeError(f"seconds must be a number of seconds (e.g. 42.0), got {type(seconds).__name__} {seconds!r}.")
    if seconds != seconds:
        raise ValueError("seconds is NaN; pass the number of seconds (e.g. time.time() - start).")
    if seconds < 0:
        raise ValueError(f"seconds must be a number of seconds >= 0 (e.g. time.time() - start), got {seconds!r:.40}.")
    if seconds > 1e15:  # past float range, or ages no claim reaches: said in hours without dividing it
        return "inf h" if seconds == float("inf") else f"{float(min(seconds, 1e300)) / 3600:.3g} h"
    return (
        f"{seconds:.0f} s"
        if seconds < 120
        else f"{seconds / 60:.0f} min"
        if seconds < 7200
        else f"{seconds / 3600:.1f} h"
    )


def waiting_message(claims: list[dict], lock_timeout: float = LOCK_TIMEOUT_S) -> str:
    """What a run waiting on the claims ``claims`` (from :func:`claim_state`) tells its user. TypeError naming
    ``claims`` unless it is a list of :func:`claim_state`'s dicts."""
    claims = _checked_claims(claims)
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


_CLAIM_KEYS = ("state", "host", "pid", "age", "lock")  # what claim_state returns


def _checked_claims(claims: Any) -> list:
    """``claims`` as a list, checked to be :func:`claim_state`'s dicts (TypeError naming ``claims`` otherwise)."""
    what = f"claims must be a list of claim_state() dicts (with {', '.join(_CLAIM_KEYS)})"
    if isinstance(claims, (str, bytes, Mapping)) or not isinstance(claims, Iterable):
        raise TypeError(f"{what}; got {type(claims).__name__} {str(claims)[:60]}.")
    claims = list(claims)
    for i, c in enumerate(claims):
        if not isinstance(c, Mapping) or any(k not in c for k in _CLAIM_KEYS):
            raise TypeError(f"{what}; claim {i} is {str(c)[:80]}.")
        if c["state"] not in ("live", "dead", "expired", "foreign", "released"):
            raise ValueError(f"{what}; claim {i} has the state {c['state']!r:.40}, which claim_state() never gives.")
    return claims


def release(path: Path) -> None:
    try:
        os.unlink(lock_path(path))
    except FileNotFoundError:
        pass


def clean_leftovers(root: Path, older_than: float = 60.0, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
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
        if lock.with_suffix(".json").is_file() and is_stale(lock, lock_timeout):
            try:
                os.unlink(lock)
            except FileNotFoundError:
                pass
