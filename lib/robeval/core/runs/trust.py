"""What a grid store from elsewhere (a pack, another checkout's folder) may make this checkout do: call one of
robeval's registered grid cell functions (:func:`cell_function`, :func:`check_grid_cell`), with a config whose
paths stay inside the data cache and the profile's results (:func:`foreign_path_error`), read from its
``config.json`` (:func:`store_config`). A pack carries data, never code: :mod:`robeval.core.runs.packs` adopts a
store only through these checks."""

from __future__ import annotations

import importlib
import inspect
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from robeval.core.io import read_json
from robeval.core.runs.identity import local_config
from robeval.core.runs.store import check_store_file

# Where a store's cell function may come from: a top-level package name and the folder its modules must lie in.
# Only this checkout's robeval; a pack carries data, never code (tests add their own cell modules here).
CELL_ROOTS: dict[str, Path] = {"robeval": Path(__file__).resolve().parents[2]}
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")


def _module_inside(module: str, folder: Path) -> bool:
    """Whether ``module`` is a module (or package) whose file lies inside ``folder``, checked from its import spec:
    only its parent packages, already checked the same way, are imported to find it; ``module`` itself is not."""
    import importlib.util
    import sys

    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        loaded = sys.modules.get(name)
        if loaded is not None:
            where = getattr(loaded, "__file__", None)
        else:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                return False
            where = spec.origin if spec is not None and spec.has_location else None
        if not where or folder not in Path(where).resolve().parents:
            return False
    return True


def check_grid_cell(fn: Callable) -> None:
    """ValueError unless ``fn``, when it is a function of a module of :data:`CELL_ROOTS` (robeval), is one of the
    grid cell functions its module lists in ``GRID_CELLS``: only those may be named by a store or a pack
    (:func:`cell_function`), so every grid of robeval is checked to use one when it is made. Functions of other
    modules (a user's own cells) pass: their stores are computed, not adopted."""
    import sys

    module = getattr(fn, "__module__", None) or ""
    if module.split(".")[0] not in CELL_ROOTS:
        return
    name = getattr(fn, "__qualname__", "?")
    if name not in getattr(sys.modules.get(module), "GRID_CELLS", ()):
        raise ValueError(
            f"{module}.{name} is not one of {module}'s grid cell functions: add its name to {module}.GRID_CELLS "
            "(the functions a grid store, and so a pack, may name; a pack carries data, never code)."
        )


def cell_function(name: str) -> Callable:
    """The grid cell function a store's ``config.json`` names (``"robeval.msd.cbar.table1_cell"``), looked up in
    this checkout only: a plain function defined at the top level of a module of :data:`CELL_ROOTS` (robeval) and
    listed in that module's ``GRID_CELLS`` (any other robeval function, e.g. one that writes files, is refused).
    Everything is checked before anything not yet imported is imported: the name's package, and that every
    module on its path is a file of that package (``importlib.util.find_spec``); then the object must be a function
    whose defining module and name are the ones named. ValueError naming the function and the fix otherwise (a
    pack carries data, never code: ``builtins.print``, ``os.system``, ``this.s`` are refused unimported)."""
    import sys

    fix = (
        "a grid store names its cell function by where robeval defines it (e.g. robeval.msd.cbar.table1_cell); "
        "take the pack or store from a robeval run of this project, or rerun its grid."
    )
    if not isinstance(name, str) or not _DOTTED.fullmatch(name):
        raise ValueError(f"the store's cell function {name!r} is not a dotted function name; {fix}")
    module, _, qualname = name.rpartition(".")
    top = module.split(".")[0]
    if top not in CELL_ROOTS:
        raise ValueError(
            f"the store's cell function {name!r} is not in {' or '.join(sorted(CELL_ROOTS))}; nothing was imported: "
            f"{fix}"
        )
    if not _module_inside(module, CELL_ROOTS[top]):
        raise ValueError(
            f"the store's cell function {name!r}: {module} is not a module of this checkout's {top} "
            f"({CELL_ROOTS[top]}); nothing was imported: {fix}"
        )
    try:
        obj: Any = importlib.import_module(module)
    except ImportError:
        raise ValueError(f"the store's cell function {name!r} cannot be imported from this checkout; {fix}") from None
    fn = getattr(obj, qualname, None)
    if not (
        inspect.isfunction(fn)
        and fn.__module__ == module
        and fn.__qualname__ == qualname
        and sys.modules.get(module) is obj
    ):
        raise ValueError(
            f"the store's cell function {name!r} is not a function defined at the top level of {module}; {fix}"
        )
    if qualname not in getattr(obj, "GRID_CELLS", ()):
        raise ValueError(
            f"the store's cell function {name!r} is not one of the grid cell functions of {module} (its GRID_CELLS); "
            f"it was not called: {fix}"
        )
    return fn


def store_config(path: Path) -> dict:
    """A sub-store's ``config.json``: a JSON object with the cell function's name ``fn`` (text) and ``config`` (an
    object, its ``<root>``/``<cache>`` paths made this checkout's: :func:`robeval.core.runs.identity.local_config`);
    ValueError naming the file otherwise (a link or special file is not opened)."""
    check_store_file(path)
    try:
        meta = read_json(path)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deep
        raise ValueError(f"{path} is not readable JSON ({exc}); the store is damaged: rerun its grid.") from None
    why = None
    if not isinstance(meta, dict):
        why = f"it is a JSON {type(meta).__name__}, not an object"
    elif not isinstance(meta.get("fn"), str) or not isinstance(meta.get("config"), dict):
        wrong = [
            f"its {key!r} is {type(meta[key]).__name__} {meta[key]!r:.40}, not {kind}"
            for key, kind, ok in (("fn", "text", str), ("config", "an object", dict))
            if key in meta and not isinstance(meta[key], ok)
        ]
        missing = [key for key in ("fn", "config") if key not in meta]
        why = "; ".join(
            wrong + ([f"it has no {' or '.join(map(repr, missing))} (it has {sorted(meta)})"] if missing else [])
        )
    if why is not None:
        raise ValueError(
            f"{path} is not a grid store's config (it needs 'fn', the cell function's name as text, and 'config', an "
            f"object; {why}); the store was not written by robeval.core.runs or was altered: rerun its grid."
        )
    return {**meta, "config": local_config(meta["config"])}


_PATH_KEY = re.compile(r"(?:^|_)(?:path|dir|file|folder)$")  # config keys whose values are file names


def _strings(obj: Any, key: str = "") -> Iterable[tuple[str, str]]:
    """Every string of a JSON value with the key it sits under (keys and values), depth first."""
    if isinstance(obj, str):
        yield key, obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _strings(k, key)
            yield from _strings(v, str(k))
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v, key)


def foreign_path_error(config: Mapping[str, Any], cells: Iterable[Any], store: Path) -> str | None:
    """Why a store from elsewhere (a pack, ``--from``) may not be computed with here, or None.

    A store robeval wrote names files as ``<cache>/...`` (the data cache) or ``<root>/results/<profile>/...`` (the
    profile's own results, beside its ``grids/`` folder). So every path of ``config`` (as this checkout reads it:
    a string under a key ending in path/dir/file/folder, or holding a separator or a leading ``~``) must lie, with
    its symbolic links followed, inside the cache or the results folder of ``store`` (the folder holding ``store``
    when it is not in a ``grids/`` folder); a cell may name no path at all. Otherwise adopting would make a cell
    read or write a file the user never offered: a relative name read from the working folder, another profile's
    committed results, the package itself."""
    from robeval.core.paths import cache_dir

    store = Path(store).resolve()
    home = store.parent.parent if store.parent.name == "grids" else store.parent
    allowed = (cache_dir().resolve(), home)
    for key, text in _strings(config):
        if not (_PATH_KEY.search(key) or "/" in text or "\\" in text or text.startswith("~")):
            continue
        if ".." in re.split(r"[\\/]", text):
            return f"its config names {text!r} ({key}), a path that climbs out of its folder ('..')"
        if not os.path.isabs(text):
            return f"its config names {text!r} ({key}), a relative path (read from wherever the command runs)"
        real = Path(text).resolve()
        if not any(real == a or a in real.parents for a in allowed):
            return (
                f"its config names {text!r} ({key}), a path outside this checkout's data cache and the results "
                f"folder of the store it is adopted into ({home})"
            )
    for cell in cells:
        for key, text in _strings(cell):
            if ".." in re.split(r"[\\/]", text) or text.startswith(("/", "\\", "~")):
                return f"a cell names {text!r} ({key}), a path"
    return None
