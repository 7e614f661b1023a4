"""Grid cells recomputed here with the code of another checkout: the witness :func:`robeval.core.runs.adopt` takes
(``against``) for a store that no machine of this kind computed.

A code change is adopted over a store only when a sample of its cells, recomputed with the new code, equals the
stored cells bit for bit. Cells whose bits depend on the CPU (torch's kernels size their blocks from the caches)
are recomputed only on the kind of machine that computed them (``on_this_machine``). A store none of whose cells
this kind of machine computed can still be shown unchanged by the code change: the sample is recomputed here twice,
with the code that computed the store (another checkout, e.g. ``git worktree add /tmp/before COMMIT``) and with this
checkout's, and the two must agree bit for bit; the stored cells are then carried on their checksums.

The other checkout's code runs in a child process (and its workers) whose ``PYTHONPATH`` is that checkout's ``lib``
folder and nothing else (never the working folder), with this checkout's root and data cache (``ROBEVAL_ROOT``,
``ROBEVAL_CACHE_DIR``: the store's ``<root>``/``<cache>`` paths and the cached networks are this checkout's); it
must give the store the identity the store is named by (the code that wrote it), or nothing is compared.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from robeval.core.io import atomic_write_json, read_json
from robeval.core.validation import check_path

# What the child process runs: it imports only names every robeval of the grid-store era has
# (robeval.core.runs.{trust, identity, store, parallel}, robeval.core.io.to_json).
_CHILD = """
import json, sys
request = json.load(open(sys.argv[1]))
lib = request["lib"]
import os.path
import robeval
from pathlib import Path
if os.path.realpath(os.path.dirname(os.path.dirname(robeval.__file__))) != os.path.realpath(lib):
    raise SystemExit("robeval was imported from " + robeval.__file__ + ", not from " + lib)
from robeval.core.io import to_json
from robeval.core.runs import trust
from robeval.core.runs.identity import config_identity
from robeval.core.runs.parallel import imap
from robeval.core.runs.store import compute_cell
for name in request["roots"]:
    if (Path(lib) / (name + ".py")).is_file() or (Path(lib) / name).is_dir():
        trust.CELL_ROOTS[name] = Path(lib).resolve()
fn = trust.cell_function(request["fn"])
identity = "config-" + config_identity(request["config"], fn)
rows = []
if identity == request["sub"]:
    jobs = [(fn, cell, request["config"]) for cell in request["cells"]]
    rows = [json.loads(to_json(r["rows"])) for r in imap(compute_cell, jobs, n_jobs=request["n_jobs"])]
json.dump({"identity": identity, "rows": rows}, open(request["out"], "w"))
"""


def checkout_lib(checkout: str | os.PathLike) -> Path:
    """The folder holding ``robeval`` in ``checkout``: ``checkout/lib`` (a checkout's root) or ``checkout`` itself
    (its ``lib``). ValueError naming the folder and the fix when it holds neither, or when it is this checkout's
    own code (which is what the witness is compared with)."""
    folder = check_path(checkout, "against")
    lib = next((p for p in (folder / "lib", folder) if (p / "robeval" / "__init__.py").is_file()), None)
    if lib is None:
        raise ValueError(
            f"against: {folder} is not a robeval checkout (neither {folder}/lib/robeval nor {folder}/robeval is there); "
            "pass a checkout of the code that computed the store, e.g. `git worktree add /tmp/before COMMIT`."
        )
    lib = lib.resolve()
    if os.pathsep in str(lib):
        raise ValueError(
            f"against: {lib} contains {os.pathsep!r}, which would split it on the child's PYTHONPATH (and "
            "import another folder's code); link or move the checkout to a path without it."
        )
    if lib == Path(__file__).resolve().parents[3]:
        raise ValueError(
            f"against: {folder} is this checkout's own code; pass a checkout of the code that computed the store "
            "(the commit before the change), e.g. `git worktree add /tmp/before COMMIT`."
        )
    return lib


def baseline_rows(
    checkout: str | os.PathLike,
    fn_name: str,
    config: Mapping[str, Any],
    cells: list[dict],
    *,
    sub: str,
    n_jobs: int = 1,
) -> list:
    """The rows of ``cells`` (a list of cell dicts) of the grid store ``sub`` (its folder name, ``config-<hash>``)
    as the code of ``checkout`` computes them on this machine, one entry per cell as JSON reads them back.

    ``fn_name`` is the cell function the store's ``config.json`` names and ``config`` its config; ``n_jobs`` worker
    processes compute them (as :func:`robeval.core.runs.adopt` recomputes its sample). The child process inherits
    the environment (the data mirror, the cache, the kernel pins). ValueError when that code gives the store
    another identity than ``sub`` (it is not the code that wrote the store); RuntimeError naming the last line
    of the child's error when it fails."""
    from robeval.core import paths
    from robeval.core.runs.trust import CELL_ROOTS

    lib = checkout_lib(checkout)
    with tempfile.TemporaryDirectory(prefix="robeval-baseline-") as tmp:
        request = {
            "lib": str(lib),
            "fn": fn_name,
            "config": dict(config),
            "cells": list(cells),
            "sub": sub,
            "n_jobs": int(n_jobs),
            "roots": sorted(name for name in CELL_ROOTS if name != "robeval"),
            "out": str(Path(tmp) / "rows.json"),
        }
        atomic_write_json(Path(tmp) / "request.json", request)
        env = {
            **os.environ,
            "PYTHONPATH": str(lib),  # the child's and its worker processes' code: that checkout's, nothing else
            "PYTHONSAFEPATH": "1",  # never the working folder (python -c would put it first on sys.path)
            "ROBEVAL_ROOT": str(paths.find_root() or ""),  # this checkout's <root> and <cache> paths and caches
            "ROBEVAL_CACHE_DIR": str(paths.cache_dir()),
        }
        if not env["ROBEVAL_ROOT"]:
            del env["ROBEVAL_ROOT"]
        done = subprocess.run(
            [
                sys.executable,
                *(["-P"] if sys.version_info >= (3, 11) else []),
                "-c",
                _CHILD,
                str(Path(tmp) / "request.json"),
            ],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not Path(request["out"]).is_file():
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(
                f"the code of {lib} could not recompute cells of {sub} ({last}); check that it is a checkout of the "
                "commit that wrote the store, with its data cache here."
            )
        answer = read_json(Path(request["out"]))
    if answer["identity"] != sub:
        raise ValueError(
            f"the code of {lib} gives this store the identity {answer['identity']}, not {sub}: it is not the code that "
            "computed these cells; pass a checkout of the commit that wrote the store (its config.json's 'code')."
        )
    return answer["rows"]
