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
# `make test` runs two pytest-xdist workers on 2 cores (`--dist loadfile`: a test file per worker, so a module's
# fixtures are built once, except the files of SPLIT; files that run notebooks write their results under roots of
# their own). One BLAS/OMP
# thread per worker by default, and threads that sleep rather than spin while they wait: a test that trains at
# 2 threads beside the other worker would otherwise spin on cores the other needs (09's thread-count test took
# 4.5x as long). Neither changes a number. A plain `pytest` keeps the machine's defaults.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") != "1":
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


# the files that execute notebooks take most of the suite's time: they go first, so that with two workers the short
# files fill in around them instead of one worker running a long file at the end
HEAVY_FIRST = ("tests/notebooks/test_dry_run.py", "tests/notebooks/test_notebooks.py", "tests/core/test_site.py")
# files of independent tests (each in tmp_path or a subprocess, no module fixture) of 10-60 s each: they go last and
# test by test, so that both workers stay busy to the end (a file of them on one worker left the other idle)
SPLIT = ("tests/core/test_benchmarks.py", "tests/core/test_gpu_units.py", "tests/realworld/test_adversarial.py")


def pytest_collection_modifyitems(config, items):
    """Run :data:`HEAVY_FIRST` first and :data:`SPLIT` last (a stable sort: each file's tests stay together and in
    order)."""

    def rank(item) -> int:
        rel = Path(str(item.fspath)).resolve().relative_to(ROOT).as_posix()
        if rel in HEAVY_FIRST:
            return HEAVY_FIRST.index(rel)
        return len(HEAVY_FIRST) + (rel in SPLIT)

    items.sort(key=rank)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, except that each test of :data:`SPLIT` is a unit of its own (pytest-xdist's
    ``loadgroup`` cannot do this under pytest 9: it renames ``Item._nodeid``, which pytest 9 no longer reads)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SplitLoadFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path in SPLIT else path

    return SplitLoadFile(config, log)


@pytest.fixture
def tmp_results(tmp_path, monkeypatch):
    """Redirect results/figures of every profile into a temporary project root."""
    import robeval.core.paths as paths

    for name in ("BUILD_DIR", "RESULTS_DIR", "FIGURES_DIR"):
        monkeypatch.setattr(paths, name, tmp_path / name.lower())
    return tmp_path


@pytest.fixture
def trust_cells(monkeypatch):
    """Let stores name cell functions of the given test modules (``{top-level module name: its folder}``), beside
    robeval's: a pack carries data, never code (:data:`robeval.core.runs.trust.CELL_ROOTS`), so a test whose grid
    runs a function of its own file says so."""
    from robeval.core.runs import trust as runs_trust

    def trust(**roots):
        for name, folder in roots.items():
            monkeypatch.setitem(runs_trust.CELL_ROOTS, name, Path(folder).resolve())

    return trust


@pytest.fixture(autouse=True)
def _double_grid_trusted(trust_cells):
    """tests/double_grid.py's cell function may run in any test's grid (its module is one of this suite's)."""
    trust_cells(double_grid=Path(__file__).parent)


@pytest.fixture
def write_tar_xz():
    """A writer of xz tarballs from ``{member name: bytes}`` (stand-in packs, truncated or forged ones)."""
    import io
    import tarfile

    def write(path, members: dict) -> Path:
        with tarfile.open(path, "w:xz") as tf:
            for name, blob in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(blob)
                tf.addfile(info, io.BytesIO(blob))
        return Path(path)

    return write
