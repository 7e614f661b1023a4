"""Notebook hygiene, and every notebook executed with papermill under the smoke profile.

A notebook's smoke run must finish, and every claim it marks comparable at the smoke profile must be
reproduced — those are the deterministic facts (separation distances, closed forms, dataset facts)."""
from __future__ import annotations

import json
import os
import time

import nbformat
import pytest

from robeval import claims, paths
from robeval.notebooks import KERNEL, notebook_paths, run_notebook

NOTEBOOKS = notebook_paths()
IDS = [p.stem for p in NOTEBOOKS]
SMOKE_BUDGET_S = 180


def test_notebooks_exist_in_order():
    assert NOTEBOOKS and NOTEBOOKS[0].stem == "00_data_and_environment"
    numbers = [p.stem[:2] for p in NOTEBOOKS]
    assert numbers == sorted(set(numbers)), "notebook numbers must be unique"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_committed_without_outputs_and_parameterised(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; run `make strip` before committing"
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: needs exactly one cell tagged 'parameters'"
    assert "profile = " in tagged[0].source, f"{path.name}: the parameters cell must define `profile`"
    assert nb.metadata.get("kernelspec", {}).get("name") == KERNEL
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "os.getcwd" not in code and "chdir" not in code, "paths must come from robeval.paths"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_runs_in_smoke_profile(path):
    t0 = time.perf_counter()
    out = run_notebook(path, "smoke")
    elapsed = time.perf_counter() - t0
    assert out.is_file()
    ledger_path = paths.results_dir("smoke") / "claims" / f"{path.stem}.json"
    assert ledger_path.is_file(), f"{path.name} recorded no claims (call ledger.save())"
    recorded = json.loads(ledger_path.read_text())["claims"]
    assert recorded, f"{path.name}: empty claims ledger"
    failed = [c["id"] for c in recorded if c["verdict"] == claims.NOT_REPRODUCED and c["profile"] == "smoke"
              and c.get("_smoke_checked", True) and "smoke" in _comparable(c)]
    assert not failed, f"{path.name}: claims comparable at smoke but not reproduced: {failed}"
    if os.environ.get("ROBEVAL_STRICT_TIME"):
        assert elapsed < SMOKE_BUDGET_S


def _comparable(claim) -> tuple:
    # a claim judged under smoke is comparable there unless its verdict says otherwise
    return () if claim["verdict"] == claims.NOT_COMPARABLE else ("smoke",)
