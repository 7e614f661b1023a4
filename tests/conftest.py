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


@pytest.fixture
def tmp_results(tmp_path, monkeypatch):
    """Redirect results/figures of every profile into a temporary project root."""
    import robeval.core.paths as paths

    for name in ("BUILD_DIR", "RESULTS_DIR", "FIGURES_DIR"):
        monkeypatch.setattr(paths, name, tmp_path / name.lower())
    return tmp_path
