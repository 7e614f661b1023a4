"""Where things live. Every path comes from here, never from the working directory.

Layout (relative to the project root):
    notebooks/                 the ordered notebooks
    figures/                   figures of the ``default`` profile (committed, shown in the README)
    results/<profile>/         result files and claims of the ``default`` and ``paper`` profiles
    build/<profile>/           everything the ``smoke`` profile writes (tests never dirty the tree),
                               figures of the ``paper`` profile, executed notebooks
    data/cache/                downloaded data (git-ignored)
"""
from __future__ import annotations

import os
from pathlib import Path

PROFILES = ("smoke", "default", "paper")


def _find_root() -> Path:
    env = os.environ.get("ROBEVAL_ROOT")
    if env:
        return Path(env).expanduser().resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "notebooks").is_dir():
            return parent
    raise RuntimeError(
        "Cannot locate the robeval project root above "
        f"{here}. Install the package editable from a checkout (`make venv`) or set ROBEVAL_ROOT."
    )


ROOT: Path = _find_root()
NOTEBOOKS_DIR: Path = ROOT / "notebooks"
BUILD_DIR: Path = ROOT / "build"
FIGURES_DIR: Path = ROOT / "figures"
RESULTS_DIR: Path = ROOT / "results"


def check_profile(profile: str) -> str:
    """Return ``profile`` if it is one of ``PROFILES``; otherwise raise a ValueError naming the choices."""
    if profile not in PROFILES:
        raise ValueError(
            f"Unknown profile {profile!r}. Use one of {', '.join(PROFILES)} "
            "(e.g. `make reproduce PROFILE=smoke` or papermill `-p profile smoke`)."
        )
    return profile


def _mk(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def figures_dir(profile: str) -> Path:
    """Figures of ``profile``: ``figures/`` for default, ``build/<profile>/figures`` otherwise."""
    check_profile(profile)
    return _mk(FIGURES_DIR if profile == "default" else BUILD_DIR / profile / "figures")


def results_dir(profile: str) -> Path:
    """Result files of ``profile``: ``build/smoke/results`` for smoke, ``results/<profile>`` otherwise."""
    check_profile(profile)
    return _mk(BUILD_DIR / "smoke" / "results" if profile == "smoke" else RESULTS_DIR / profile)


def executed_notebooks_dir(profile: str) -> Path:
    check_profile(profile)
    return _mk(BUILD_DIR / "notebooks" / profile)


def cache_dir() -> Path:
    """Download cache for data files (``ROBEVAL_CACHE_DIR`` or ``data/cache``)."""
    env = os.environ.get("ROBEVAL_CACHE_DIR")
    return _mk(Path(env).expanduser() if env else ROOT / "data" / "cache")
