"""The library installed from a wheel, outside the checkout (docs/install.md): build the wheel, install it
into a fresh virtual environment that reuses the already-installed dependencies, and run the page's example
from a folder outside the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd, cwd, env, timeout=120):
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return proc


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    # build from a copy of the sources, so the checkout gets no build/ or egg-info
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "lib", src / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ROBEVAL_ROOT", "ROBEVAL_CACHE_DIR")}
    env["PIP_NO_INPUT"] = "1"
    wheels = tmp_path / "wheels"
    proc = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", wheels, src],
        tmp_path,
        env,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = wheels.glob("robeval-*.whl")

    # a fresh venv whose only view of the shared environment is its site-packages (no editable robeval)
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path, env).returncode == 0
    py = venv / "bin" / "python"
    purelib = Path(
        _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path, env).stdout.strip()
    )
    (purelib / "shared_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    proc = _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "-q", wheel], tmp_path, env)
    assert proc.returncode == 0, proc.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run(
        [py, "-c", "import robeval, robeval.core.paths as p; print(robeval.__file__, p.find_root())"], work, env
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.split() == [str(purelib / "robeval" / "__init__.py"), "None"]

    # the install page's example: a corruption of random images
    rng = np.random.default_rng(0)
    np.save(work / "x.npy", rng.integers(0, 256, (8, 32, 32, 3), dtype=np.uint8))
    np.save(work / "y.npy", np.arange(8) % 10)
    robeval = venv / "bin" / "robeval"
    cmd = [robeval, "corrupt", "--images", "x.npy", "--labels", "y.npy", "--out", "c10c"]
    proc = _run(cmd + ["--names", "fog,ripple", "--severities", "1,3", "--no-progress"], work, env)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (work / "c10c").iterdir()) == [
        "corruptions.json",
        "fog.npy",
        "labels.npy",
        "ripple.npy",
    ]
    fog = np.load(work / "c10c" / "fog.npy")
    assert fog.shape == (16, 32, 32, 3) and fog.dtype == np.uint8

    # a checkout-only command: one line, exit 2
    proc = _run([robeval, "report"], work, env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("robeval report: needs the robeval project checkout")
