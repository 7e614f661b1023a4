"""Notebook hygiene, and every notebook executed with papermill under the smoke profile.

A notebook's smoke run must finish, and every claim it marks comparable at the smoke profile must be
reproduced — those are the deterministic facts (separation distances, closed forms, dataset facts)."""

from __future__ import annotations

import json
import os

import nbformat
import pytest

from robeval.core import paths
from robeval.core.catalog import notebook_paths
from robeval.core.notebooks import KERNEL, run_notebook
from smoke_checks import SITE_NOTEBOOKS, check_smoke_ledger, run_smoke, site_runs_smoke

NOTEBOOKS = notebook_paths()
IDS = [p.stem for p in NOTEBOOKS]

# notebooks whose smoke run trains networks and draws Monte-Carlo samples: their verdicts must not depend on the
# number of threads the machine gives torch and numpy
# (09 trains with robeval.core.nn.training, as 02 does, and draws Monte-Carlo samples; 02's own check, ~2 min of the
# 20-minute test budget, runs with ROBEVAL_THREAD_CHECK_ALL=1 and passed in CI on 2026-11-27)
THREAD_CHECK = ("09_acr_rs_training",) + (
    ("02_mscr_cifar10",) if os.environ.get("ROBEVAL_THREAD_CHECK_ALL") == "1" else ()
)
# their one-thread run there is also their smoke run (the same checks, check_smoke_ledger): one run fewer; so are
# the website fixture's smoke runs of SITE_NOTEBOOKS (tests/core/test_site.py), unless a stored build replaces them
ELSEWHERE = THREAD_CHECK + (SITE_NOTEBOOKS if site_runs_smoke() else ())
SMOKE_RUN_HERE = [p for p in NOTEBOOKS if p.stem not in ELSEWHERE]


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
    kernelspec = nb.metadata.get("kernelspec", {})
    assert kernelspec.get("name") == KERNEL and kernelspec.get("display_name") == "Python (robeval)", kernelspec
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "os.getcwd" not in code and "chdir" not in code, "paths must come from robeval.core.paths"


def _parameters_and_setup(nb):
    """Names assigned in the parameters cell, and the setup(...) call of the notebook."""
    import ast

    cells = [c for c in nb.cells if c.cell_type == "code"]
    params_cell = next(c for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
    names = [t.id for node in ast.parse(params_cell.source).body if isinstance(node, ast.Assign) for t in node.targets]
    calls = [
        node
        for c in cells
        for node in ast.walk(ast.parse(c.source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setup"
    ]
    return names, calls


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_parameter_reaches_the_settings(path):
    """Each papermill parameter is passed to setup() under its own name and is a setting of the experiment."""
    from robeval.core import profiles

    nb = nbformat.read(path, as_version=4)
    names, calls = _parameters_and_setup(nb)
    assert names[0] == "profile", f"{path.name}: the parameters cell starts with `profile = ...`"
    assert len(calls) == 1, f"{path.name}: call robeval.core.setup(experiment, profile, ...) exactly once"
    call = calls[0]
    experiment = call.args[0].value
    assert call.args[1].id == "profile"
    passed = {kw.arg: getattr(kw.value, "id", None) for kw in call.keywords}
    for name in names[1:]:
        assert passed.get(name) == name, f"{path.name}: parameter {name!r} must be passed to setup as {name}={name}"
    assert set(passed) == set(names[1:]), (
        f"{path.name}: setup() gets {sorted(set(passed) - set(names))} not in the parameters cell"
    )
    cfg = profiles.resolve(experiment, "smoke")
    unknown = [n for n in names[1:] if n not in profiles.known_settings(experiment)]
    assert not unknown, f"{path.name}: parameters {unknown} are not settings of {experiment}"
    assert cfg.meta["notebook"] == path.stem, f"settings/{experiment}.toml names notebook {cfg.meta['notebook']!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebooks_hold_no_logic(path):
    """Functions, manual folders and ledgers belong to the library (robeval.core.setup does the set-up)."""
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for banned in ("def ", "class ", "mkdir(", "Ledger(", "apply_style(", " as rruns", "resolve("):
        assert banned not in code, f"{path.name}: {banned!r} in a code cell"


# calls that run an experiment: `robeval run --replot` and `robeval verify` leave out the cells tagged `compute`,
# so a restyled plot or a rebuilt ledger never reruns one
EXPERIMENT_CALLS = ("run_grid(", ".run(backend=", "run_by_seed(", "save_units(")  # .run: a runs.Grid's


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_experiment_runs_in_a_compute_cell(path):
    nb = nbformat.read(path, as_version=4)
    untagged = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        and any(call in c.source for call in EXPERIMENT_CALLS)
        and "compute" not in c.get("metadata", {}).get("tags", [])
    ]
    assert not untagged, f"{path.name}: cells {untagged} run an experiment but are not tagged 'compute'"


@pytest.mark.notebook
@pytest.mark.parametrize("path", SMOKE_RUN_HERE, ids=[p.stem for p in SMOKE_RUN_HERE])
def test_notebook_runs_in_smoke_profile(path):
    run_smoke(path)


def test_jupyterlab_and_the_kernel_are_installed():
    """`make lab` opens the notebooks in JupyterLab with the 'Python (robeval)' kernel."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    lab = shutil.which("jupyter-lab", path=str(Path(sys.executable).parent))
    assert lab, "jupyterlab is missing from the environment (the notebooks extra installs it)"
    specs = subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"], capture_output=True, text=True
    )
    assert json.loads(specs.stdout)["kernelspecs"][KERNEL]["spec"]["display_name"] == "Python (robeval)"


@pytest.mark.notebook
@pytest.mark.parametrize("stem", THREAD_CHECK)
def test_verdicts_do_not_depend_on_the_thread_count(stem, tmp_path, monkeypatch):
    """The same smoke notebook in two fresh project copies, with 1 and 2 threads: identical ledgers (verdicts
    and the numbers behind them). The one-thread run is the notebook's smoke run, checked as every other's."""
    import shutil

    path = next(p for p in NOTEBOOKS if p.stem == stem)
    ledgers = []
    for threads in (1, 2):
        root = tmp_path / f"threads{threads}"
        (root / "notebooks").mkdir(parents=True)
        shutil.copy(path, root / "notebooks" / path.name)
        shutil.copy(paths.ROOT / "pyproject.toml", root / "pyproject.toml")
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            monkeypatch.setenv(var, str(threads))
        monkeypatch.setenv("ROBEVAL_ROOT", str(root))
        monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(root / "cache"))  # no model cached by the other run is reused
        run_notebook(root / "notebooks" / path.name, "smoke", output_dir=root / "executed")
        claims_file = root / "build" / "smoke" / "results" / "claims" / f"{stem}.json"
        if threads == 1:  # also this notebook's smoke run (test_notebook_runs_in_smoke_profile leaves it out)
            check_smoke_ledger(path, claims_file)
        ledgers.append(
            {c["id"]: (c["verdict"], c["estimate"], c["ci"]) for c in json.loads(claims_file.read_text())["claims"]}
        )
    assert ledgers[0] == ledgers[1]


# sections that state no result of their own: the environment report of 00, compute-only sections whose results the
# next section shows and states, and the claims index that closes every notebook
SECTIONS_WITHOUT_FINDING = {
    "Hardware",
    "What each profile resolves to",
    "Compute",
    "What the claims are judged on",
    "Closed-form maps (Figs. A.1 and A.2)",
    "Train, certify and measure every variant",
    "Claims",
    "4. Claims",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_section_ends_with_a_generated_finding(path):
    """Each `##` section with results closes with a cell tagged `finding` that calls a `findings` generator."""
    nb = nbformat.read(path, as_version=4)
    sections: list[tuple[str, list]] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            sections.append((cell.source.splitlines()[0][3:].strip(), []))
        elif sections:
            sections[-1][1].append(cell)
    missing = []
    for title, cells in sections:
        if title in SECTIONS_WITHOUT_FINDING:
            continue
        tagged = [c for c in cells if "finding" in c.get("metadata", {}).get("tags", [])]
        if not tagged:
            missing.append(title)
        for c in tagged:
            assert "findings." in c.source, f"{path.name}: a finding cell of {title!r} calls no findings generator"
    assert not missing, f"{path.name}: sections without a generated 'what we found' cell: {missing}"
