"""Probe K's findings on core.runs (grid identity, weights packs), the CLI's compare/verify/grids/adopt/corrupt,
core.ledger's helpers and core.paths.results_dir: each test fails on the code before its fix."""

from __future__ import annotations

import functools
import os
import subprocess
import sys

import pytest

from robeval.core import runs
from robeval.core.runs import identity

EMPTY_DIGEST = "e3b0c44298fc1c14"  # sha256 of nothing: the identity a script's function had before K2

SCRIPT = """
import sys
from robeval.core.runs import code_identity, run_grid
K = {k}
def helper(x):
    return x * K
def cellfn(cell, config):
    return [{{"y": helper(cell["x"])}}]
print(code_identity(cellfn))
print(run_grid(cellfn, [{{"x": 1}}, {{"x": 2}}], store=sys.argv[1], config={{}}, backend="serial",
               progress=False).y.tolist())
"""


def _run_script(tmp_path, k: int) -> list[str]:
    """Run :data:`SCRIPT` with ``K = k`` as ``python script.py`` (its functions are ``__main__``'s); its output."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.format(k=k))
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "store")], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("\n")


def test_k2_a_scripts_cell_function_is_named_by_its_code(tmp_path):
    """K2: editing a constant a script's cell function reaches gives new results, never the old store's."""
    ident10, y10, _ = _run_script(tmp_path, 10)
    ident1000, y1000, _ = _run_script(tmp_path, 1000)
    assert (y10, y1000) == ("[10, 20]", "[1000, 2000]")
    assert EMPTY_DIGEST not in (ident10, ident1000) and ident10 != ident1000
    assert _run_script(tmp_path, 10)[0] == ident10, "the same code keeps its identity (and its store)"


def _make(k):
    def cell(cell, config):
        return [{"y": cell["x"] * k}]

    return cell


def _plain(cell, config, k=1):
    return [{"y": cell["x"] * k}]


@pytest.mark.parametrize(
    "fn, needle",
    [
        (lambda cell, config: [{"y": 1}], "is a lambda"),
        (_make(3), "is a closure: it captures k"),
        (print, "builtins.print is a builtin_function_or_method"),
        (functools.partial(_plain, k=3), "is a partial"),
    ],
)
def test_k2_cell_functions_without_a_code_identity_are_refused(tmp_path, fn, needle):
    """K2: a lambda, a closure, a builtin or a partial is refused before anything runs, with the fix."""
    with pytest.raises(ValueError, match="define it with `def` at the top level of a .py file") as err:
        runs.run_grid(fn, [{"x": 1}], store=tmp_path / "g", progress=False)
    assert needle in str(err.value) and str(err.value).startswith("fn: the cell function")
    assert not (tmp_path / "g").exists(), "nothing is written for a refused grid"


def test_k2_module_functions_keep_their_identity():
    """K2: a function of an importable module is named as before (no source read through inspect)."""
    assert identity.identity_error(_plain) is None
    assert "_plain" in identity.code_reach(_plain)[__name__], "read from its module, not through inspect"


def test_k3_a_path_option_with_a_tilde_is_the_home_folder(tmp_path, monkeypatch, capsys):
    """K3: `robeval corrupt --out=~/x` (the shell leaves it as it is) writes into the home folder, where it prints,
    never into a folder named '~' of the working folder; a '~user' that names no user is refused."""
    import numpy as np

    from robeval.__main__ import main

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    x = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)
    np.save(work / "x.npy", x), np.save(work / "y.npy", np.array([0, 1], dtype=np.uint8))
    argv = ["corrupt", "--images", "x.npy", "--labels", "y.npy", "--names", "fog", "--severities", "1"]
    assert main([*argv, "--out=~/ctest", "--no-progress"]) == 0
    assert (home / "ctest" / "fog.npy").is_file() and not (work / "~").exists()
    assert str(home / "ctest" / "fog.npy") in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out=~no_such_user_k3/x", "--no-progress"])
    assert stop.value.code == 2 and "names no home folder" in capsys.readouterr().err
    assert not (work / "~no_such_user_k3").exists()
