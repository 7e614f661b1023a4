"""How far a grid store got, read without running anything (:func:`store_status`, ``robeval grids``), and a
sub-store's adoption log (:func:`adoption_log`, which :mod:`robeval.core.runs.packs` appends to)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from robeval.core.io import read_json
from robeval.core.runs.identity import config_identity
from robeval.core.runs.store import LOCK_TIMEOUT_S, check_store_file, claim_state
from robeval.core.runs.trust import cell_function, store_config


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
    from robeval.core.runs.store import check_lock_timeout
    from robeval.core.validation import check_path

    store, lock_timeout = check_path(store, "store"), check_lock_timeout(lock_timeout)
    if store.exists() and not store.is_dir():
        raise ValueError(f"store {store} is a file, not a grid store folder; pass the grid's store folder.")
    out = []
    subs = sorted(p for p in store.glob("config-*") if p.is_dir()) if store.is_dir() else []
    for sub in subs:
        meta = store_config(sub / "config.json") if (sub / "config.json").is_file() else {}
        try:
            fn = cell_function(meta["fn"])
            current = sub.name == f"config-{config_identity(meta['config'], fn)}"
        except (KeyError, ValueError):
            current = None
        files = [p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json")]
        seconds, stamps = 0.0, []
        for p in files:
            check_store_file(p)
            seconds += _cell_seconds(p)
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
        log = adoption_log(sub / "adopted.json")

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


def _damaged(path: Path, what: str) -> ValueError:
    return ValueError(
        f"{path} is not {what}; the store is damaged (or was not written by robeval): delete the file, and a rerun of "
        "its grid recomputes what it held."
    )


def _cell_seconds(path: Path) -> float:
    """The measured seconds a cell file records (0 when it records none); ValueError naming a damaged file."""
    try:
        payload = read_json(path)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested too deep
        raise _damaged(path, "readable JSON") from None
    if not isinstance(payload, dict):
        raise _damaged(path, "a grid cell file (a JSON object with 'cell' and 'rows')")
    seconds = payload.get("seconds", 0.0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e12:
        raise _damaged(path, f"a grid cell file: its 'seconds' is {seconds!r}, not a number of seconds >= 0")
    return float(seconds)


def adoption_log(path: Path) -> list[dict]:
    """A sub-store's ``adopted.json`` (a list of checks, each with a count of ``cells``); [] when there is none."""
    if not os.path.lexists(path):
        return []
    check_store_file(path)
    try:
        log = read_json(path)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        raise _damaged(path, "readable JSON") from None
    if not isinstance(log, list) or not all(
        isinstance(e, dict)
        and isinstance(e.get("cells", 0), int)
        and not isinstance(e.get("cells", 0), bool)
        and e.get("cells", 0) >= 0
        for e in log
    ):
        raise _damaged(path, "an adoption log (a list of checks, each with a whole number of cells)")
    return log
