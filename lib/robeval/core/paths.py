"""Where things live. Every path comes from here, never from the working directory.

Layout (relative to the project root):
    notebooks/                 the ordered notebooks
    figures/                   figures of the ``default`` profile (committed, shown in the README)
    results/<profile>/         result files and claims of the ``default``, ``long``, ``gpu`` and ``paper`` profiles
    build/<profile>/           everything the ``smoke`` profile writes (tests never dirty the tree),
                               figures of the ``long``, ``gpu`` and ``paper`` profiles, executed notebooks
    build/dry_run/             results and figures of the ``paper`` profile under ``ROBEVAL_DRY_RUN=1``
                               (``build/dry_run/gpu/``: those of the ``gpu`` profile)
    data/cache/                downloaded data (git-ignored)
"""

from __future__ import annotations

import os
from pathlib import Path

# in order of size: smoke (CI), default (a laptop CPU), long (hours of a 2-core CPU, run in resumable chunks; the
# image notebooks only, defined only where an experiment has a [long] table), gpu (one GPU, the image notebooks only,
# on the same CIFAR-10 subset as default; defined only where an experiment has a [gpu] table), paper (the published
# protocol)
PROFILES = ("smoke", "default", "long", "gpu", "paper")


def find_root() -> Path | None:
    """The project checkout (``$ROBEVAL_ROOT``, else the first parent of this file holding ``pyproject.toml``
    and ``notebooks/``), or None when robeval is installed from a wheel outside a checkout."""
    env = os.environ.get("ROBEVAL_ROOT")
    if env:
        return Path(env).expanduser().resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "notebooks").is_dir():
            return parent
    return None


def _require_root() -> Path:
    root = find_root()
    if root is None:
        raise RuntimeError(
            "This needs the robeval project checkout (notebooks, results, figures), but robeval is installed "
            f"outside one ({Path(__file__).resolve()}). Clone the project and run `make venv`, or set "
            "ROBEVAL_ROOT to a checkout. The library itself (corruptions, smoothing, ...) works without it."
        )
    return root


# Project folders are found when first used (PEP 562), so the library imports and its data layer work
# outside a checkout; tests may monkeypatch these names.
_FOLDERS = {
    "ROOT": "",
    "NOTEBOOKS_DIR": "notebooks",
    "BUILD_DIR": "build",
    "FIGURES_DIR": "figures",
    "RESULTS_DIR": "results",
}


def __getattr__(name: str) -> Path:
    if name in _FOLDERS:
        root = _require_root()
        return root / _FOLDERS[name] if _FOLDERS[name] else root
    raise AttributeError(f"module 'robeval.core.paths' has no attribute {name!r}")


def _folder(name: str) -> Path:
    """A project folder, honouring a monkeypatched module attribute."""
    value = globals().get(name)
    return value if value is not None else __getattr__(name)


def check_profile(profile: str) -> str:
    """Return ``profile`` if it is one of ``PROFILES``; otherwise raise a ValueError naming the choices."""
    if profile not in PROFILES:
        raise ValueError(
            f"Unknown profile {profile!r}. Use one of {', '.join(PROFILES)} "
            "(e.g. `make reproduce PROFILE=smoke` or papermill `-p profile smoke`)."
        )
    return profile


DRY_RUN_PROFILES = ("gpu", "paper")  # the profiles a dry run (ROBEVAL_DRY_RUN=1) can cut short
DRY_RUN_ENV = "ROBEVAL_DRY_RUN"


def dry_run() -> bool:
    """True when ``$ROBEVAL_DRY_RUN`` is ``1``/``true``/``yes``: the ``paper`` profile runs as a dry run.

    Any other non-empty value raises ValueError (a typo must not silently start a multi-GPU-week run)."""
    value = os.environ.get(DRY_RUN_ENV, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise ValueError(f"{DRY_RUN_ENV}={value!r} is not understood; set it to 1 (dry run) or 0 / unset it (real run).")


def _dry_paper(profile: str) -> bool:
    """The ``paper`` (or ``gpu``) profile running as a dry run (``ROBEVAL_DRY_RUN=1``): it must never write
    results/paper (results/gpu)."""
    return profile in DRY_RUN_PROFILES and dry_run()


def dry_run_dir(profile: str = "paper", *, create: bool = True) -> Path:
    """Everything a dry run writes (results, ledgers, grids, figures): ``build/dry_run`` for the paper profile,
    ``build/dry_run/gpu`` for the gpu profile; created unless ``create`` is False (a reader's question)."""
    check_profile(profile)
    _check_create(create)
    base = _folder("BUILD_DIR") / "dry_run"
    path = base if profile == "paper" else base / profile
    return _mk(path) if create else path


def _check_create(create) -> bool:
    """``create`` when it is True or False; TypeError naming it otherwise (``create="no"`` would create)."""
    if not isinstance(create, bool):
        raise TypeError(f"create must be True or False, got {create!r:.60} ({type(create).__name__}).")
    return create


def _mk(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def figures_dir(profile: str) -> Path:
    """Figures of ``profile``: ``figures/`` for default, ``build/<profile>/figures`` otherwise
    (``$ROBEVAL_FIGURES_DIR`` overrides it, e.g. for ``robeval verify``)."""
    check_profile(profile)
    env = os.environ.get("ROBEVAL_FIGURES_DIR")
    if env:
        return _mk(Path(env))
    if _dry_paper(profile):
        return _mk(dry_run_dir(profile) / "figures")
    return _mk(_folder("FIGURES_DIR") if profile == "default" else _folder("BUILD_DIR") / profile / "figures")


def results_dir(profile: str, *, create: bool = True) -> Path:
    """Result files of ``profile``: ``build/smoke/results`` for smoke, ``build/dry_run`` for a dry run of the
    paper profile (``ROBEVAL_DRY_RUN=1``), ``results/<profile>`` otherwise. Created for a writer; a command that
    only reads (``robeval grids``) passes ``create=False`` and gets the path as it is, existing or not. TypeError
    for a ``create`` that is not True or False."""
    check_profile(profile)
    _check_create(create)
    if _dry_paper(profile):
        return dry_run_dir(profile, create=create)
    path = _folder("BUILD_DIR") / "smoke" / "results" if profile == "smoke" else _folder("RESULTS_DIR") / profile
    return _mk(path) if create else path


def stored_ledger(profile: str, notebook: str) -> Path | None:
    """The committed ledger of ``notebook`` at ``profile`` (``results/<profile>/claims/<notebook>.json``), or None
    where there is none; creates nothing. Smoke and dry-run ledgers are never stored there."""
    check_profile(profile)
    if profile == "smoke" or _dry_paper(profile):
        return None
    path = _folder("RESULTS_DIR") / profile / "claims" / f"{notebook}.json"
    return path if path.is_file() else None


def executed_notebooks_dir(profile: str) -> Path:
    check_profile(profile)
    if _dry_paper(profile):
        return _mk(dry_run_dir(profile) / "notebooks")
    return _mk(_folder("BUILD_DIR") / "notebooks" / profile)


def _can_write(folder: Path) -> bool:
    """Whether ``folder`` exists (created here if missing) and this user may create files in it. (Tests
    monkeypatch this: root may write anywhere whatever the permission bits.)"""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def cache_dir() -> Path:
    """Download cache for data files: ``$ROBEVAL_CACHE_DIR``, else ``data/cache`` in a checkout, else the
    user cache (``pooch.os_cache("robeval")``, e.g. ``~/.cache/robeval``) for an installed package, or for a
    checkout whose ``data/cache`` cannot be created or written (a read-only checkout: the data files are read from
    the mirror, ``ROBEVAL_DATA_DIR``, and anything fetched or derived goes to the user cache)."""
    env = os.environ.get("ROBEVAL_CACHE_DIR")
    if env:
        return _mk(Path(env).expanduser())
    root = find_root()
    if root is not None and _can_write(root / "data" / "cache"):
        return root / "data" / "cache"
    import pooch

    user = Path(pooch.os_cache("robeval"))
    try:
        return _mk(user)
    except OSError as exc:
        where = f"{root / 'data' / 'cache'} nor " if root is not None else ""
        raise ValueError(
            f"no writable cache folder for data files: neither {where}{user} can be written ({exc.strerror or exc}). "
            "Set ROBEVAL_CACHE_DIR to a folder you can write."
        ) from None
