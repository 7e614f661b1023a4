"""Shared fixtures. Tests read data through ROBEVAL_DATA_DIR (CI: ../shared/data) and write under build/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if "ROBEVAL_DATA_DIR" not in os.environ and (ROOT.parent / "shared" / "data").is_dir():
    os.environ["ROBEVAL_DATA_DIR"] = str(ROOT.parent / "shared" / "data")
os.environ.setdefault("ROBEVAL_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# `make test` runs two pytest-xdist workers on 2 cores: one thread each, so torch and BLAS do not oversubscribe
# the cores (a test that compares thread counts sets its own). A plain `pytest` keeps the machine's default.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") != "1":
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

# Test files that share files on disk run in the same xdist worker (`--dist loadgroup`); every other file is a
# group of its own, so a module's fixtures are built once. The smoke notebook runs and the smoke site both read
# and write build/smoke.
SHARED_WORKER = {"test_notebooks.py": "smoke-results", "test_site.py": "smoke-results"}


def pytest_collection_modifyitems(config, items):
    """Group each test by its file (or its file's shared group) for ``pytest -n N --dist loadgroup``."""
    for item in items:
        name = Path(str(item.fspath)).name
        group = SHARED_WORKER.get(name, str(Path(str(item.fspath)).relative_to(ROOT)))
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def tmp_results(tmp_path, monkeypatch):
    """Redirect results/figures of every profile into a temporary project root."""
    import robeval.core.paths as paths

    for name in ("BUILD_DIR", "RESULTS_DIR", "FIGURES_DIR"):
        monkeypatch.setattr(paths, name, tmp_path / name.lower())
    return tmp_path
