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


def _gpu_profile():
    """benchmarks/gpu_profile.py, imported by name as tests/core/test_gpu_units.py imports it."""
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if str(root / "benchmarks") not in sys.path:
        sys.path.insert(0, str(root / "benchmarks"))
    return importlib.import_module("gpu_profile")


def test_k4_a_fifo_named_like_a_pack_is_refused_unopened(tmp_path):
    """K4: `gpu_profile.py --check-packs --adopt-dir/--adopt` hung for ever on a FIFO named like a pack."""
    from fifos import fifo
    from robeval.core.runs import weights

    gpu_profile = _gpu_profile()
    (tmp_path / "packs").mkdir()
    with fifo(tmp_path / "packs" / "lease1-weights-01.tar.xz") as path:
        with pytest.raises(ValueError, match=r"--adopt-dir: pack '.*lease1-weights-01\.tar\.xz' is a FIFO"):
            gpu_profile.committed_packs(tmp_path / "packs")
        with pytest.raises(ValueError, match=r"pack '.*' is a FIFO \(named pipe\), not a regular file"):
            weights.is_weights_pack(path)
        assert gpu_profile.cli(["--check-packs", "--adopt", str(path)]) == 2
    assert weights.is_weights_pack(tmp_path / "missing.tar.xz") is False


def test_k27_a_fifo_given_as_a_pack_or_store_folder_is_named_as_one(tmp_path, capsys):
    """K27: a FIFO was "does not exist" (adopt_weights), "no such folder" (`grids --from`), a folder holding no
    store (`adopt --from`) and "no such pack" (unpack)."""
    from cli_errors import one_line_error
    from fifos import fifo
    from robeval.__main__ import main
    from robeval.core.runs import weights

    with fifo(tmp_path / "f.tar.xz") as path:
        with pytest.raises(ValueError, match=r"weights pack '.*f\.tar\.xz' is a FIFO \(named pipe\)"):
            weights.adopt_weights(path, cache=tmp_path / "cache")
        with pytest.raises(ValueError, match=r"pack '.*f\.tar\.xz' is a FIFO \(named pipe\)"):
            runs.unpack(path, tmp_path / "out")
        assert main(["grids", "--profile", "smoke", "--from", str(path)]) == 2
        one_line_error(capsys, f"--from '{path}' is a FIFO (named pipe), not a regular file", "a folder of grid stores")
        assert main(["adopt", "--profile", "smoke", "--from", str(path), "k27_store", "--no-progress"]) == 2
        one_line_error(capsys, f"--from '{path}' is a FIFO (named pipe)", "a folder of grid stores or a pack")
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()


def _weights_pack(path, names):
    """A weights pack holding a small file under each of ``names``, its manifest listing them honestly."""
    import hashlib
    import io
    import json
    import tarfile

    from robeval.core.runs import weights

    blob = b"w" * 8
    files = [{"path": n, "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()} for n in names]
    manifest = json.dumps({"format": 1, "files": files}).encode()
    with tarfile.open(path, "w:xz") as tf:
        for name, data in [(weights.MANIFEST, manifest)] + [(n, blob) for n in names]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize(
    "long_name",
    ["msd_models/" + "a" * 300 + ".pt", "msd_models/" + "/".join(["b" * 150] * 10) + "/x.pt"],
)
def test_k5_a_weights_pack_with_too_long_a_name_writes_nothing(tmp_path, long_name):
    """K5: a member name over the file system's limits raised OSError after the members before it were written."""
    from robeval.core.runs import weights

    pack = _weights_pack(tmp_path / "p.tar.xz", ["msd_models/first.pt", long_name])
    with pytest.raises(ValueError, match="is too long a name"):
        weights.adopt_weights(pack, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists(), "nothing is written for a refused pack"


def test_k5_a_cache_that_is_a_file_is_refused_by_name(tmp_path):
    """K5: a cache root that is a file raised NotADirectoryError."""
    from robeval.core.runs import weights

    pack = _weights_pack(tmp_path / "p.tar.xz", ["msd_models/first.pt"])
    (tmp_path / "cache").write_text("not a folder")
    with pytest.raises(ValueError, match=r"the cache .*cache is not a folder; nothing was written"):
        weights.adopt_weights(pack, cache=tmp_path / "cache")
    assert (tmp_path / "cache").read_text() == "not a folder"


def _nested(depth: int) -> list:
    """A list nested ``depth`` deep."""
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


@pytest.mark.parametrize(
    "cell, needle",
    [([1, 2], "got list [1, 2]"), ({"x": _nested(5000)}, "nested too deeply"), ({"x": print}, "not JSON")],
)
def test_k9_cell_key_names_its_argument(cell, needle):
    """K9: cell_key([1, 2]) raised IndexError, a cell nested 5000 deep RecursionError."""
    with pytest.raises(TypeError, match="cell must be a mapping of parameter names") as err:
        runs.cell_key(cell)
    assert needle in str(err.value)


def test_k9_cell_key_of_a_valid_cell_is_unchanged():
    """K9: the file stem of a valid cell is the one every store holds."""
    assert runs.cell_key({"x": 1, "eps": 0.5}) == "eps=0.5__x=1__" + identity.digest({"x": 1, "eps": 0.5}, 8)


@pytest.mark.parametrize("claims", [[{"x": 1}], "x", {"state": "live"}, 5])
def test_k10_waiting_message_names_claims(claims):
    """K10: waiting_message([{'x': 1}]) raised KeyError 'state', waiting_message('x') a TypeError of indexing."""
    with pytest.raises(TypeError, match=r"claims must be a list of claim_state\(\) dicts \(with state, host"):
        runs.waiting_message(claims)


def test_k10_waiting_message_of_real_claims(tmp_path):
    """K10: claim_state's dicts still make the message."""
    claim = runs.claim_state(tmp_path / "cell.json.lock")
    assert runs.waiting_message([claim]).startswith("waiting for 1 cell(s) claimed by another process")


@pytest.mark.parametrize(
    "config, needle",
    [([1], "got list [1]"), ({"a": print}, "not JSON serialisable"), ({"a": _nested(5000)}, "nested too deeply")],
)
def test_k12_config_identity_names_config(config, needle):
    """K12: config_identity([1]) said "cannot convert dictionary update sequence element", a function in it
    "Object of type function is not JSON serialisable", neither naming config."""
    with pytest.raises(TypeError, match="config must be a mapping of setting names to JSON values") as err:
        runs.config_identity(config)
    assert needle in str(err.value)


def test_k12_format_age_names_seconds():
    """K12: format_age('5') raised "'<' not supported between instances of 'str' and 'int'"."""
    with pytest.raises(TypeError, match=r"seconds must be a number of seconds \(e.g. 42.0\), got str '5'"):
        runs.format_age("5")
    with pytest.raises(ValueError, match="seconds is NaN"):
        runs.format_age(float("nan"))
    assert [runs.format_age(s) for s in (42, 600, 9000.0)] == ["42 s", "10 min", "2.5 h"]


@pytest.mark.parametrize("cells, needle", [([1, 2], "got list [1, 2]"), ({"a": "b"}, "cells['a'] is 'b'")])
def test_k11_table_differences_names_cells(cells, needle):
    """K11: table_differences([1, 2]) raised AttributeError, ({'a': 'b'}) "not enough values to unpack"."""
    from robeval.core.ledger import table_differences

    with pytest.raises(TypeError, match=r"cells must be a dict \{cell name: \(paper value, interval") as err:
        table_differences(cells)
    assert needle in str(err.value)


@pytest.mark.parametrize("value", [None, 5, [["paper"]]])
def test_k12_comparable_span_names_comparable_at(value):
    """K12: comparable_span(None) raised "'NoneType' object is not iterable", naming no argument."""
    from robeval.core.ledger import comparable_span

    with pytest.raises(TypeError, match=r"comparable_at must be a tuple of profile names, e.g. \('default', 'paper'\)"):
        comparable_span(value)
    assert comparable_span(["default", "paper"]) == ("default", "long", "gpu", "paper")


def test_k24_results_dir_create_must_be_true_or_false(tmp_results):
    """K24: results_dir('default', create='no') created the folder (any text is true)."""
    from robeval.core.paths import results_dir

    for value in ("no", 0, None):
        with pytest.raises(TypeError, match="create must be True or False, got"):
            results_dir("default", create=value)
    assert not (tmp_results / "results_dir" / "default").exists()
    assert results_dir("default", create=False) == tmp_results / "results_dir" / "default"


def test_k30_check_vocabulary_of_text_says_what_a_row_is():
    """K30: check_vocabulary('row') said "row '?': kind None is not one of ..." (the argument is not a row)."""
    from robeval.core.ledger import check_vocabulary

    with pytest.raises(TypeError, match=r"row must be a Claim or a dict of one .*got str 'row'"):
        check_vocabulary("row")


def _ledger(folder, notebook, claims, name=None, **fields):
    """Write a ledger of ``notebook`` with ``claims`` (``(id, verdict, estimate)``) as ``folder/<name>.json``."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"id": i, "verdict": v, "estimate": e} for i, v, e in claims]
    (folder / f"{name or notebook}.json").write_text(json.dumps({"notebook": notebook, "claims": rows, **fields}))


@pytest.fixture
def ours(tmp_path, monkeypatch):
    """This checkout's smoke ledgers, of notebooks 01_x and 02_y, in ``tmp_path/smoke/claims``."""
    from robeval.core import paths

    monkeypatch.setattr(paths, "results_dir", lambda profile, create=True: tmp_path / profile)
    folder = tmp_path / "smoke" / "claims"
    _ledger(folder, "01_x", [("c1", "reproduced", 1.0)], profile="smoke")
    _ledger(folder, "02_y", [("d1", "reproduced", 2.0), ("d2", "consistency", 0.5)], profile="smoke")
    return folder


def test_k22_compare_refuses_a_ledger_named_for_another_notebook(tmp_path, ours, capsys):
    """K22: 02_y.json holding the ledger of 01_x was compared as 01_x's rows."""
    from cli_errors import one_line_error
    from robeval.__main__ import main
    from robeval.core.publish.report import compare_ledgers

    _ledger(tmp_path / "other", "01_x", [("c1", "contradicted", 0.0)], name="02_y")
    assert main(["compare", str(tmp_path / "other"), "--profile", "smoke"]) == 2
    one_line_error(capsys, f"{tmp_path / 'other' / '02_y.json'} holds the ledger of 01_x (its 'notebook'), not of 02_y")
    with pytest.raises(ValueError, match="a ledger is saved as <notebook>.json"):
        compare_ledgers(ours, tmp_path / "other")


def test_k23_compare_counts_only_the_notebooks_both_sides_hold(tmp_path, ours, capsys):
    """K23: a folder holding only 01_x's ledger reported every row of 02_y as a changed verdict."""
    from robeval.__main__ import main
    from robeval.core.publish.report import compare_ledgers, rerun_counts

    _ledger(tmp_path / "other", "01_x", [("c1", "reproduced", 1.1)], profile="smoke")
    assert compare_ledgers(ours, tmp_path / "other") == []
    assert [r["notebook"] for r in rerun_counts(ours, tmp_path / "other")] == ["01_x"]
    assert main(["compare", str(tmp_path / "other"), "--profile", "smoke"]) == 0
    out = capsys.readouterr().out
    assert "robeval compare: 1 notebook(s) compared: 01_x" in out
    assert "not compared (a ledger in this checkout only): 02_y" in out and "0 verdict(s) differ" in out
    _ledger(tmp_path / "none", "03_z", [("e1", "reproduced", 1.0)], profile="smoke")
    assert main(["compare", str(tmp_path / "none"), "--profile", "smoke"]) == 2
    assert "no notebook has a ledger in both" in capsys.readouterr().err


@pytest.mark.parametrize(
    "claim, fields, needle",
    [
        (("c1", "reproduced", float("nan")), {}, "claim 'c1' has the estimate nan, which no saved ledger holds"),
        (("c1", "reproduced", 1.0), {"profile": "paper"}, "is a ledger of profile 'paper'"),
    ],
)
def test_k32_compare_refuses_what_no_saved_ledger_holds(tmp_path, ours, capsys, claim, fields, needle):
    """K32: compare accepted another run's ledger with a NaN estimate, n_runs 'three' or another profile."""
    from cli_errors import one_line_error
    from robeval.__main__ import main

    _ledger(tmp_path / "other", "01_x", [claim], **fields)
    assert main(["compare", str(tmp_path / "other"), "--profile", "smoke"]) == 2
    one_line_error(capsys, needle)


def test_k32_compare_refuses_n_runs_that_is_no_count(tmp_path, ours, capsys):
    """K32: n_runs 'three' (or -1, or True) is no count of runs."""
    import json

    from cli_errors import one_line_error
    from robeval.__main__ import main

    (tmp_path / "other").mkdir()
    for n in ("three", -1, True, 2.5):
        row = {"id": "c1", "verdict": "reproduced", "estimate": 1.0, "n_runs": n}
        (tmp_path / "other" / "01_x.json").write_text(json.dumps({"notebook": "01_x", "claims": [row]}))
        assert main(["compare", str(tmp_path / "other"), "--profile", "smoke"]) == 2
        one_line_error(capsys, "claim 'c1' has n_runs", "not a whole number of runs")


def test_k31_a_refused_pack_creates_no_folder(tmp_results, tmp_path, capsys, monkeypatch):
    """K31: `grids --pack newdir/sub/x.tar.xz` refused (no stores) but left newdir/sub created; so did pack()."""
    from cli_errors import one_line_error
    from robeval.__main__ import main

    monkeypatch.chdir(tmp_path)
    assert main(["grids", "--profile", "smoke", "--pack", "newdir/sub/x.tar.xz"]) == 2
    one_line_error(capsys, "no grid stores under", "no pack was written to newdir/sub/x.tar.xz")
    assert not (tmp_path / "newdir").exists()
    with pytest.raises(ValueError, match="holds no grid sub-store"):
        runs.pack([tmp_path / "empty_store"], tmp_path / "new2" / "sub" / "x.tar.xz")
    assert not (tmp_path / "new2").exists()


def test_k29_corrupt_images_that_are_text_are_no_npy_file(tmp_path, capsys):
    """K29: a text file given as --images was "not a readable .npy array (This file contains pickled (object)
    data ... allow_pickle= ...)": the wrong cause, and an invitation to unpickle it."""
    import numpy as np

    from cli_errors import one_line_error
    from robeval.__main__ import main

    (tmp_path / "x.npy").write_text("just some text\n")
    np.save(tmp_path / "y.npy", np.array([0, 1], dtype=np.uint8))
    argv = ["corrupt", "--images", str(tmp_path / "x.npy"), "--labels", str(tmp_path / "y.npy")]
    assert main([*argv, "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = one_line_error(
        capsys, "--images file", "is not a readable .npy array: it does not begin with numpy's .npy header"
    )
    assert "pickle" not in err
