"""Fixtures shared by tests/core's test files."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from robeval.core import nn

# the benchmark drivers import each other by name (cpu_chunks runs `import gpu_profile`): benchmarks/ on the path
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

ONE_CHUNK_PLAN = """
[[chunk]]
name = "M91"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 5 }
what = "x"
rows = "y"
hours = 1.0
"""


@pytest.fixture
def net():
    """An untrained, seeded ``cnn_small`` in eval mode, 4 images (float32, NCHW 3x32x32 in [0, 1)) and its predictions."""
    torch.manual_seed(0)
    m = nn.build("cnn_small").eval()
    x = np.random.default_rng(0).random((4, 3, 32, 32)).astype(np.float32)
    return m, x, nn.predict(m, x)


@pytest.fixture
def one_chunk_driver(tmp_path, monkeypatch):
    """benchmarks/cpu_chunks.py with its plan (:data:`ONE_CHUNK_PLAN`: chunk M91, notebook 04) and packs folder in
    ``tmp_path`` (``plan.toml``, ``packs/``), never the checkout's."""
    mod = importlib.import_module("cpu_chunks")
    packs = tmp_path / "packs"
    packs.mkdir()
    plan = tmp_path / "plan.toml"
    plan.write_text(ONE_CHUNK_PLAN)
    monkeypatch.setattr(mod, "packs_dir", lambda: packs)
    monkeypatch.setattr(mod, "PLAN", plan)
    monkeypatch.setattr(mod.load_plan, "__defaults__", (plan,))
    monkeypatch.setattr(mod.load_units, "__defaults__", (plan,))
    return mod


def _child_processes(pid: int, marker: bytes) -> list[int]:
    """The processes the process ``pid`` started whose command line holds ``marker`` (read from /proc)."""
    out = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            ppid = next(int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("PPid:"))
            cmdline = (status.parent / "cmdline").read_bytes()
        except (OSError, StopIteration, ValueError):
            continue
        if ppid == pid and marker in cmdline:
            out.append(int(status.parent.name))
    return out


@pytest.fixture
def child_processes():
    """``children(pid, marker)``: the processes ``pid`` started whose command line holds the bytes ``marker`` (e.g.
    ``b"ipykernel"``, ``b"popen_loky"``), read from /proc (tests that use it skip where there is no /proc)."""
    return _child_processes
