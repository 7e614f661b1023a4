"""The command line's user errors (one line, exit 2, never a traceback), Ctrl-C, `run -p`, the papermill
unknown-parameter check of the notebooks, the CPU pins of the compendium's own runs, and show_ledger."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core import catalog, env, notebooks
from robeval.core import paths as project
from robeval.core.notebooks import runner
from robeval.core.runs import store as runs_store


@pytest.fixture(autouse=True)
def _cells_of_this_file(trust_cells):
    """The grids of this file run its own functions (``square``, ``_cell``): trusted as robeval's cell functions."""
    from pathlib import Path

    trust_cells(**{__name__.split(".")[0]: Path(__file__).parents[__name__.count(".")]})


def test_only_empty_is_an_error(capsys):
    with pytest.raises(ValueError, match="selects no notebook"):
        catalog.notebook_paths("")
    with pytest.raises(ValueError, match="selects no notebook"):
        catalog.notebook_paths(" , ")
    with pytest.raises(TypeError, match="comma-separated str"):
        catalog.notebook_paths(3)
    assert main(["run", "--only", ""]) == 2
    one_line_error(capsys, "--only '' selects no notebook")
    assert main(["verify", "--only", ","]) == 2
    one_line_error(capsys, "selects no notebook")
    # a failed verify leaves no redirection of ledgers or figures behind in this process
    assert "ROBEVAL_LEDGER_DIR" not in os.environ and "ROBEVAL_FIGURES_DIR" not in os.environ


def test_site_only_empty_is_an_error_as_for_run_and_verify(tmp_results, monkeypatch, capsys):
    """Probe J F19: `robeval site --only ""` built every notebook (``""`` read as "all"), where run and verify refuse
    it. Nothing is built: the notebooks are never executed."""
    from robeval.core.site import build

    ran = []
    monkeypatch.setattr(notebooks, "run_notebook", lambda *a, **k: ran.append(a))
    for only in ("", ",", " , "):
        assert main(["site", "--only", only, "--site-dir", str(tmp_results / "site")]) == 2
        one_line_error(capsys, f"--only {only!r} selects no notebook")
        with pytest.raises(ValueError, match="selects no notebook"):
            build.build_site("default", only=only, site_dir=tmp_results / "site")
    assert ran == []


def test_compare_without_ledgers(tmp_path, capsys):
    assert main(["compare", str(tmp_path)]) == 2
    one_line_error(capsys, f"no ledgers found in {tmp_path}")
    assert main(["compare", str(tmp_path / "missing")]) == 2
    one_line_error(capsys, "is not a folder")


def test_compare_creates_no_folder(tmp_results, tmp_path, capsys):
    """`compare` only reads: a profile that never ran is named as having no ledgers, and no results/<profile>
    folder appears (it created one)."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "01_x.json").write_text('{"notebook": "01_x", "claims": []}')
    assert main(["compare", "--profile", "long", str(other)]) == 2
    one_line_error(capsys, "this checkout (profile 'long')", "is not a folder")
    assert not (tmp_results / "results_dir").exists()


def test_adopt_without_a_store(tmp_path, capsys):
    assert main(["adopt", "--profile", "smoke", "--from", str(tmp_path), "no_such_grid", "--no-progress"]) == 2
    one_line_error(capsys, "holds no grid sub-store", "pass the grid's store folder")
    assert main(["adopt", "--profile", "smoke", "bad/name"]) == 2
    one_line_error(capsys, "may only contain letters")
    # a store named twice was adopted once, as if named once; refused before any store folder is made
    assert main(["adopt", "--profile", "smoke", "--from", str(tmp_path), "g", "g", "--no-progress"]) == 2
    one_line_error(capsys, "grid store g named twice; name each store once.")
    # --against (two codes compared here) only with --on-this-machine, and only a robeval checkout
    (tmp_path / "g" / "config-0").mkdir(parents=True)
    (tmp_path / "g" / "config-0" / "config.json").write_text("{}")
    base = ["adopt", "--profile", "smoke", "--from", str(tmp_path), "g", "--no-progress", "--against", str(tmp_path)]
    assert main(base) == 2
    one_line_error(capsys, "against compares two codes", "pass it with on_this_machine (--on-this-machine)")
    assert main([*base, "--on-this-machine"]) == 2
    one_line_error(capsys, f"against: {tmp_path} is not a robeval checkout", "git worktree add /tmp/before COMMIT")
    # with a pack they were ignored (probe P, P5): refused, the pack unread
    (tmp_path / "p.tar.xz").write_bytes(b"not read")
    pack = ["adopt", "--profile", "smoke", "--from", str(tmp_path / "p.tar.xz"), "g", "--no-progress"]
    for extra, named in (
        (["--on-this-machine"], "--on-this-machine"),
        (["--against", "/x"], "--against"),
        (["--jobs", "3"], "--jobs"),
    ):
        assert main([*pack, *extra]) == 2
        one_line_error(capsys, f"{named} apply to stores: adopt the pack first")


def test_grids_lists_a_profiles_stores(tmp_results, capsys):
    from robeval.core import runs

    assert main(["grids", "--profile", "smoke"]) == 0
    assert "no grid stores under" in capsys.readouterr().out
    runs.run_grid(_cell, {"x": [1, 2]}, store=runs.grid_store("smoke", "toy"), progress=False)
    assert main(["grids", "--profile", "smoke"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["grid", "sub-store", "code", "cells"]
    assert out[1].split()[0] == "toy" and out[1].split()[2:4] == ["current", "2"]
    assert out[2].startswith("total: 2 finished cells")
    assert main(["grids", "--profile", "smoke", "nope"]) == 2
    one_line_error(capsys, "no grid store nope", "lists them")
    elsewhere = runs.grid_store("smoke", "toy").parent
    assert main(["grids", "--from", str(elsewhere), "toy"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[2:4] == ["current", "2"]
    # probe J F6: a store named twice was listed twice and counted twice ("total: 4 finished cells")
    for argv in (["grids", "--profile", "smoke", "toy", "toy"], ["grids", "--from", str(elsewhere), "toy", "toy"]):
        assert main(argv) == 2
        err = one_line_error(capsys, "grid store toy named twice; name each store once.")
        assert capsys.readouterr().out == "" and "total" not in err  # refused before anything is listed
    assert main(["grids", "--from", str(elsewhere / "missing")]) == 2
    one_line_error(capsys, "no such folder")


def test_grids_creates_no_folder_where_nothing_has_run(tmp_results, capsys, monkeypatch):
    """Probe J, F20: `ROBEVAL_ROOT=/nonexistent robeval grids --profile smoke` created
    /nonexistent/build/smoke/results (through results_dir), though `grids` "runs nothing". The listing asks for
    the path with create=False; writers (grid_store, results_dir) still create their folder."""
    for profile, dry in (("smoke", "0"), ("default", "0"), ("paper", "1")):
        monkeypatch.setenv("ROBEVAL_DRY_RUN", dry)
        assert main(["grids", "--profile", profile]) == 0
        assert "no grid stores under" in capsys.readouterr().out
        assert main(["grids", "--profile", profile, "toy"]) == 2
        one_line_error(capsys, "no grid store toy")
        assert main(["grids", "--profile", profile, "bad/name"]) == 2
        one_line_error(capsys, "may only contain letters")
    assert not any(tmp_results.iterdir()), sorted(tmp_results.rglob("*"))
    assert not project.results_dir("smoke", create=False).exists()
    assert project.results_dir("smoke").is_dir()  # a writer's call creates it, as before
    assert runs_store.grid_store("default", "toy").parent.parent.is_dir()  # results/default, as before


def test_grids_pack_and_adopt_from_the_pack(tmp_results, tmp_path, capsys):
    """`robeval grids --pack FILE` writes the stores' cells into one file; `robeval adopt --from FILE` checks and
    takes them into this checkout's stores (here after the stores are gone, as on a new machine)."""
    import shutil

    from robeval.core import runs

    store = runs.grid_store("smoke", "toy")
    runs.run_grid(_cell, {"x": [1, 2, 3]}, store=store, progress=False)
    pack = tmp_path / "toy.tar.xz"
    assert main(["grids", "--profile", "smoke", "--pack", str(pack), "toy"]) == 0
    assert f"packed 3 cells of 1 store(s) into {pack}" in capsys.readouterr().out
    shutil.rmtree(store)
    assert main(["adopt", "--profile", "smoke", "--from", str(pack), "toy", "--no-progress"]) == 0
    assert ": adopted, 3 cells, 0 checked" in capsys.readouterr().out  # the same code: its checksums suffice
    assert [r["cells"] for r in runs.store_status(store)] == [3]
    # the same pack again: its cells are there already, and the line says so (was "empty, 0 cells")
    assert main(["adopt", "--profile", "smoke", "--from", str(pack), "toy", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert ": unchanged, already held, 3 cells" in out and "empty" not in out and "0 cells" not in out
    # the store adopted into itself: its current sub-store holds them
    assert main(["adopt", "--profile", "smoke", "toy", "--no-progress"]) == 0
    assert ": current, already held, 3 cells" in capsys.readouterr().out
    assert main(["adopt", "--profile", "smoke", "--from", str(pack), "other", "--no-progress"]) == 2
    one_line_error(capsys, "holds no store other", "it holds toy")
    # --rebind: a pack whose identities hold is kept as it is; a file that is not a pack is one line
    assert main(["adopt", "--profile", "smoke", "toy", "--no-progress", "--rebind", str(pack)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(" holds")
    assert main(["adopt", "--profile", "smoke", "toy", "--no-progress", "--rebind", str(tmp_path / "no.tar.xz")]) == 2
    one_line_error(capsys, "no such pack")
    # an existing pack is never replaced by mistake (issue 62: a committed pack was), only with --overwrite
    before = pack.read_bytes()
    runs.run_grid(_cell, {"x": [4]}, store=runs.grid_store("smoke", "toy2"), progress=False)
    assert main(["grids", "--profile", "smoke", "--pack", str(pack), "toy2"]) == 2
    one_line_error(capsys, f"--pack {pack} exists and is left as it is", "--overwrite")
    assert pack.read_bytes() == before
    assert main(["grids", "--profile", "smoke", "--overwrite", "toy2"]) == 2
    one_line_error(capsys, "--overwrite replaces the file of --pack")
    assert main(["grids", "--profile", "smoke", "--pack", str(pack), "--overwrite", "toy2"]) == 0
    assert f"packed 1 cells of 1 store(s) into {pack}" in capsys.readouterr().out
    with pytest.raises(ValueError, match="is already a grid pack; it is left as it is"):
        runs.pack([runs.grid_store("smoke", "toy2")], pack)
    assert main(["grids", "--profile", "smoke", "--from", str(pack)]) == 2
    one_line_error(capsys, "is a file; `robeval grids` lists a folder", "robeval adopt --profile PROFILE --from PACK")
    with pytest.raises(SystemExit) as refused:  # an empty name is not "no --pack": argparse refuses it
        main(["grids", "--profile", "smoke", "--pack", ""])
    assert refused.value.code == 2 and "argument --pack: an empty path ('')" in capsys.readouterr().err
    (tmp_path / "none").mkdir()
    assert (
        main(["grids", "--profile", "smoke", "--from", str(tmp_path / "none"), "--pack", str(tmp_path / "n.tar.xz")])
        == 2
    )
    one_line_error(capsys, "no grid stores under", "no pack was written to")


GRID_CELLS = ("_cell",)  # the grid cells of this file (robeval.core.runs.check_grid_cell)


def _cell(cell, config):
    return {"y": cell["x"] + 1}


@pytest.mark.parametrize(
    "cmd", [["run"], ["report"], ["verify"], ["compare", "x"], ["strip"], ["adopt", "g"], ["grids"]]
)
def test_checkout_commands_outside_a_checkout(cmd, monkeypatch, capsys):
    monkeypatch.setattr(project, "find_root", lambda: None)
    assert main(cmd) == 2
    one_line_error(capsys, f"robeval {cmd[0]}: needs the robeval project checkout", "ROBEVAL_ROOT")


def test_missing_extra_is_named(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "papermill", None)  # makes `import papermill` fail
    with pytest.raises(ImportError, match=r'pip install "robeval\[notebooks\]"'):
        notebooks.require_papermill()
    assert main(["run", "--only", "00"]) == 2
    one_line_error(capsys, 'pip install "robeval[notebooks]"')
    monkeypatch.setitem(sys.modules, "nbstripout", None)
    assert main(["strip", "--check"]) == 2
    one_line_error(capsys, "needs nbstripout", 'pip install "robeval[lint]"')


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    from robeval.transforms import release

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(release, "corrupt_command", interrupted)
    assert main(["corrupt", "--out", "unused"]) == 130
    one_line_error(capsys, "robeval corrupt: interrupted (Ctrl-C)")


def test_ctrl_c_in_corrupt_leaves_no_temporary_files(tmp_path):
    """A real SIGINT in the middle of `robeval corrupt`: status 130, one line, no temporary file left."""
    from robeval.core.data import load_cifar10_subset

    _, _, x, y = load_cifar10_subset(layout="NHWC")
    # 400 images: seconds of corrupting left when the signal comes
    np.save(tmp_path / "x.npy", x[:400])
    np.save(tmp_path / "y.npy", y[:400])
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "robeval", "corrupt", "--images", str(tmp_path / "x.npy")]
    cmd += ["--labels", str(tmp_path / "y.npy"), "--out", str(out), "--no-progress"]
    # a shell without job control starts background jobs with SIGINT ignored, and the child would inherit that
    # (a CI launched with `&` then sees exit 0): give it the default disposition, as a terminal's Ctrl-C meets
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not (out / "corruptions.json").exists() and time.monotonic() < deadline:  # labels are written
        time.sleep(0.05)
    time.sleep(0.5)
    assert proc.poll() is None, "robeval corrupt ended before the signal: give it more work"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().startswith("robeval corrupt: interrupted") and err.count("\n") == 1 and "Traceback" not in err
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))


def test_parse_parameter_value():
    p = notebooks.parse_parameter_value
    assert p("100") == 100 and isinstance(p("100"), int)
    assert p("0.5") == 0.5 and p("1e-3") == 0.001
    assert p("True") is True and p("false") is False and p("None") is None
    assert p("iid") == "iid" and p("[1, 2]") == [1, 2] and p("'A'") == "A"
    with pytest.raises(TypeError, match="must be a str"):
        p(3)


def test_run_parameters_are_checked_before_anything_runs(capsys, monkeypatch):
    def no_run(*a, **k):
        raise AssertionError("nothing may run when a parameter is wrong")

    monkeypatch.setattr(runner, "run_notebook", no_run)
    assert main(["run", "--only", "07", "-p", "n_sample", "100"]) == 2
    one_line_error(capsys, "07_realworld_analytical has no parameter 'n_sample'", "n_samples", "seed")
    assert main(["run", "--only", "07", "-p", "n_samples", "-3"]) == 2
    one_line_error(capsys, "07_realworld_analytical: realworld_analytical:", "n_samples")
    assert main(["run", "--only", "07", "-p", "seed", "1", "-p", "seed", "2"]) == 2
    one_line_error(capsys, "seed given twice")
    assert main(["run", "--only", "07", "-p", "profile", "smoke"]) == 2
    one_line_error(capsys, "--profile")
    # a valid parameter reaches the notebook run, with its parsed value
    seen = []
    monkeypatch.setattr(runner, "run_notebook", lambda path, profile, params, **k: seen.append(params))
    monkeypatch.setattr("robeval.core.publish.report.report", lambda profile: "")
    monkeypatch.setattr("robeval.core.publish.report.figures_report", lambda profile: None)
    assert main(["run", "--profile", "smoke", "--only", "07", "-p", "n_samples", "2000"]) == 0
    assert seen == [{"n_samples": 2000}]


def test_check_injected_parameters():
    params = 'profile = "default"\nseed = None\nn_samples = None  # draws'
    ok = ["", params, '# Parameters\nprofile = "smoke"\nseed = 3\n', "cfg = setup(...)"]
    notebooks.check_injected_parameters(ok)
    notebooks.check_injected_parameters(["", params, "x = 1"])  # not run by papermill: nothing injected
    bad = ["", params, '# Parameters\nprofile = "smoke"\nn_sample = 100\nbogus = 1\n', "cfg = setup(...)"]
    with pytest.raises(ValueError, match=r"unknown notebook parameter\(s\) 'n_sample', 'bogus'") as info:
        notebooks.check_injected_parameters(bad)
    assert "parameters are n_samples, profile, seed" in str(info.value)
    # names passed to setup count as declared even without a parameters cell before the injected one
    notebooks.check_injected_parameters(["# Parameters\nseed = 1\n"], declared={"seed": None})
    with pytest.raises(TypeError, match="list of cell sources"):
        notebooks.check_injected_parameters("x = 1")


@pytest.mark.notebook
def test_papermill_rejects_an_unknown_parameter(tmp_path):
    """Papermill itself, on notebook 00: an unknown parameter fails the run, naming it and the known ones."""
    import papermill as pm

    path = project.NOTEBOOKS_DIR / "00_data_and_environment.ipynb"
    with pytest.raises(pm.PapermillExecutionError) as info:
        pm.execute_notebook(
            str(path),
            str(tmp_path / "out.ipynb"),
            parameters={"profile": "smoke", "bogus": 1},
            kernel_name=notebooks.KERNEL,
            cwd=str(path.parent),
            progress_bar=False,
        )
    message = str(info.value)
    assert "unknown notebook parameter(s) 'bogus'" in message
    assert "parameters are profile, require_all_files" in message


def test_import_sets_no_environment():
    env_vars = ", ".join(repr(k) for k in env.PINNED_CPU_ENV)
    code = f"import os, robeval, robeval.core; print([os.environ.get(k) for k in ({env_vars},)])"
    clean = {k: v for k, v in os.environ.items() if k not in env.PINNED_CPU_ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean, check=True)
    assert out.stdout.strip() == str([None] * len(env.PINNED_CPU_ENV))
    code = "import robeval, os; print(os.environ.get('ATEN_CPU_CAPABILITY'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean, check=True)
    assert out.stdout.strip() == "None"


def test_pin_cpu_kernels_sets_defaults_and_keeps_user_values():
    target = {"OPENBLAS_CORETYPE": "Zen"}
    assert env.pin_cpu_kernels(target) == []
    assert target["OPENBLAS_CORETYPE"] == "Zen" and target["ATEN_CPU_CAPABILITY"] == "avx2"
    assert target["NPY_DISABLE_CPU_FEATURES"] == env.PINNED_CPU_ENV["NPY_DISABLE_CPU_FEATURES"]
    with pytest.raises(TypeError, match="mutable mapping"):
        env.pin_cpu_kernels(["x"])
    # the long profile's chunks: numpy pinned, torch at the machine's own ISA (issue 63)
    chunk = {}
    env.pin_cpu_kernels(chunk, torch=False)
    assert set(chunk) == set(env.PINNED_CPU_ENV) - set(env.TORCH_PINS) and chunk["MKL_CBWR"] == "AVX2"
    # in a fresh process before numpy: nothing late, and numpy then dispatches no AVX-512 loops
    clean = {k: v for k, v in os.environ.items() if k not in env.PINNED_CPU_ENV}
    code = (
        "from robeval.core.env import pin_cpu_kernels; late = pin_cpu_kernels(); import numpy as np; "
        "from numpy._core._multiarray_umath import __cpu_features__ as f; print(late, f.get('X86_V4', False))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean, check=True)
    assert out.stdout.strip() == "[] False"
    # after numpy: said, and returned
    code = "import numpy; from robeval.core.env import pin_cpu_kernels; print(pin_cpu_kernels(warn=False))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean, check=True)
    assert out.stdout.strip() == "['NPY_DISABLE_CPU_FEATURES', 'OPENBLAS_CORETYPE']"


def test_kernel_environment_is_pinned_and_restored(monkeypatch):
    for k in env.PINNED_CPU_ENV:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")
    with runner._kernel_environment():
        assert os.environ["ATEN_CPU_CAPABILITY"] == "avx2" and os.environ["MKL_CBWR"] == "COMPATIBLE"
    assert "ATEN_CPU_CAPABILITY" not in os.environ and os.environ["MKL_CBWR"] == "COMPATIBLE"


def test_show_ledger_wraps_text():
    table = pd.DataFrame(
        {
            "id": ["a", "b"],
            "description": ["x " * 200, "short"],
            "estimate": [0.123456, np.nan],
            "central": [True, False],
        }
    )
    html = notebooks.show_ledger(table, max_width_em=30).to_html()
    assert "white-space: pre-wrap" in html and "max-width: 30em" in html and "table-layout: fixed" in html
    assert "0.1235" in html and html.count("<tr>") == 3  # header + 2 rows
    central = notebooks.show_ledger(table, central_only=True).to_html()
    assert central.count("<tr>") == 2 and "short" not in central
    with pytest.raises(TypeError, match="Ledger or its table"):
        notebooks.show_ledger([1, 2])
    with pytest.raises(ValueError, match="max_width_em"):
        notebooks.show_ledger(table, max_width_em=2)


def test_makefile_kernel_and_git_filter():
    """`make venv` installs the notebooks' kernel with the same CPU pins as robeval.core.env, and the
    nbstripout git filter that strips notebooks as `robeval strip` does."""
    root = project.find_root()
    makefile = (root / "Makefile").read_text()
    for key, value in env.PINNED_CPU_ENV.items():
        assert re.search(rf'--env {key} ("{value}"|{value}\s)', makefile), key
    assert "$(KERNEL_ENV)" in makefile and "git-filter" in makefile
    assert "nbstripout --keep-id --extra-keys cell.metadata.execution" in makefile
    attributes = (root / ".gitattributes").read_text().splitlines()
    assert "*.ipynb filter=nbstripout" in attributes


def test_grids_tells_live_dead_and_foreign_claims_apart(tmp_results, capsys):
    """Issue 36: a dead claim of another host was shown as "running"; now it is "foreign", with its age and the
    command that clears it."""
    import json
    import os
    import socket

    from robeval.core import runs

    store = runs.grid_store("smoke", "toy")
    runs.run_grid(_cell, {"x": [1]}, store=store, progress=False)
    grid = runs.Grid(_cell, {"x": [1, 2, 3, 4]}, store=store)
    owners = {2: {"host": socket.gethostname(), "pid": os.getpid()}, 3: {"host": "gone-box", "pid": 7}}
    owners[4] = {"host": socket.gethostname(), "pid": 2**22 + 12345}
    for x, owner in owners.items():
        runs_store.lock_path(grid.path({"x": x})).write_text(json.dumps(owner))
    assert main(["grids", "--profile", "smoke"]) == 0
    out = capsys.readouterr().out.splitlines()
    head, row = out[0].split(), out[1].split()
    assert head[4:7] == ["running", "abandoned", "foreign"] and row[4:7] == ["1", "1", "1"]
    line = next(x for x in out if x.startswith("foreign claim:"))
    assert "held by host 'gone-box' pid 7" in line and f"rm '{runs_store.lock_path(grid.path({'x': 3}))}'" in line


def test_adopt_refuses_an_edited_pack_and_says_which_cell(tmp_results, tmp_path, capsys):
    import io
    import json
    import tarfile

    from robeval.core import runs

    store = runs.grid_store("smoke", "toy")
    runs.run_grid(_cell, {"x": [1, 2, 3]}, store=store, progress=False)
    pack = tmp_path / "toy.tar.xz"
    assert main(["grids", "--profile", "smoke", "--pack", str(pack), "toy"]) == 0
    edited = tmp_path / "edited.tar.xz"
    with tarfile.open(pack) as src, tarfile.open(edited, "w:xz") as out:
        for m in src.getmembers():
            data = src.extractfile(m).read()
            if m.name.endswith(".json") and "/x=2" in m.name:
                payload = json.loads(data)
                payload["rows"][0]["y"] = 0.05
                data = json.dumps(payload).encode()
            m.size = len(data)
            out.addfile(m, io.BytesIO(data))
    import shutil

    shutil.rmtree(store)
    capsys.readouterr()
    assert main(["adopt", "--profile", "smoke", "--from", str(edited), "toy", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("robeval: toy: 1 file(s) of config-") and "x=2" in err and "fail their checksum" in err
    assert not store.exists()
    assert main(["adopt", "--profile", "smoke", "--from", str(pack), "toy", "--no-progress"]) == 0
    assert "adopted, 3 cells, 0 checked, 3 checksums verified" in capsys.readouterr().out


def test_replot_without_stored_results_says_what_to_run_first(tmp_results, capsys):
    """Issue 36: `robeval run --replot` with no stored results failed deep inside a notebook cell."""
    pytest.importorskip("papermill")
    assert main(["run", "--profile", "smoke", "--only", "01", "--replot"]) == 2
    err = capsys.readouterr().err
    assert "--replot rebuilds figures and claims from stored results, but 01_mscr_2d has none" in err
    assert err.rstrip().endswith("robeval run --profile smoke --only 01") and len(err.splitlines()) == 1


# ------------------------------------------------------------- issue 48: verify checks the data it rests on
def test_site_dir_that_is_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert main(["site", "--site-dir", str(tmp_path / "afile")]) == 2
    one_line_error(capsys, str(tmp_path / "afile"), "is a file, not a folder", "--site-dir")


def test_grids_pack_below_a_file_or_in_a_read_only_folder_is_one_line(tmp_path, monkeypatch, capsys):
    from robeval.core import io

    (tmp_path / "afile").write_text("x")
    assert main(["grids", "--profile", "smoke", "--pack", str(tmp_path / "afile" / "x.tar.xz")]) == 2
    one_line_error(capsys, str(tmp_path / "afile"), "is a file, not a folder")
    # a read-only folder: root ignores permission bits, so the writability check itself is patched
    ro = tmp_path / "ro"
    ro.mkdir()
    monkeypatch.setattr(io, "_writable", lambda folder: folder != ro)
    assert main(["grids", "--profile", "smoke", "--pack", str(ro / "x.tar.xz")]) == 2
    one_line_error(capsys, str(ro), "not writable", "pass a folder you can write")
    assert not any(ro.iterdir())


def test_unexpected_os_errors_are_one_line(monkeypatch, capsys):
    import robeval.__main__ as cli

    def boom(args):
        raise PermissionError(13, "Permission denied", "/some/file")

    monkeypatch.setattr(cli, "_main", boom)
    assert main(["report"]) == 2
    one_line_error(capsys, "/some/file", "Permission denied")


def test_data_and_loaders_work_from_a_read_only_checkout(tmp_path, monkeypatch, capsys):
    """Issue 48: ``robeval data`` in a checkout the user cannot write failed with PermissionError creating
    data/cache. Now the cache falls back to the user cache folder. Root ignores permission bits, so the failure
    is simulated where it happens: creating data/cache raises PermissionError."""
    import pathlib

    from robeval.core import data

    monkeypatch.delenv("ROBEVAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "usercache"))
    checkout_cache = project.find_root() / "data" / "cache"
    real_mkdir = pathlib.Path.mkdir

    def mkdir(self, *a, **k):
        if self == checkout_cache or checkout_cache in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    real_access = os.access
    monkeypatch.setattr(
        project.os, "access", lambda p, mode: pathlib.Path(p) != checkout_cache and real_access(p, mode)
    )
    got = project.cache_dir()
    assert got != checkout_cache and str(got).startswith(str(tmp_path / "usercache")), got
    rc = main(["data"])
    out = capsys.readouterr()
    assert rc in (0, 1) and "Traceback" not in out.err and "file" in out.out
    if os.environ.get("ROBEVAL_DATA_DIR"):  # a registered file in the mirror loads as before
        rel = next(iter(data.registry()))
        if (pathlib.Path(os.environ["ROBEVAL_DATA_DIR"]) / rel).is_file():
            assert data.fetch(rel).is_file()


def test_cache_dir_falls_back_when_data_cache_cannot_be_created(tmp_path, monkeypatch):
    import pathlib

    monkeypatch.delenv("ROBEVAL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "usercache"))
    checkout_cache = project.find_root() / "data" / "cache"
    real_mkdir = pathlib.Path.mkdir

    def mkdir(self, *a, **k):
        if self == checkout_cache:
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *a, **k)

    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    if checkout_cache.is_dir():  # an existing but read-only data/cache: the writability check says no
        monkeypatch.setattr(project.os, "access", lambda p, mode: pathlib.Path(p) != checkout_cache)
    assert str(project.cache_dir()).startswith(str(tmp_path / "usercache"))


# ------------------------------------------------------------------- issue 62: nothing deleted, nothing run from a pack
def test_site_never_empties_a_folder_robeval_did_not_write(tmp_results, capsys, monkeypatch):
    from robeval.core.site import build as site

    mine = tmp_results / "mine"
    (mine / "photos").mkdir(parents=True)
    (mine / "my_thesis.txt").write_text("years of work")
    (mine / "photos" / "a.jpg").write_bytes(b"\xff\xd8")
    assert main(["site", "--profile", "smoke", "--site-dir", str(mine)]) == 2
    one_line_error(capsys, str(mine), "did not write", "pass a new or empty folder")
    assert sorted(p.name for p in mine.iterdir()) == ["my_thesis.txt", "photos"]  # nothing deleted, nothing added
    assert (mine / "my_thesis.txt").read_text() == "years of work" and (mine / "photos" / "a.jpg").exists()
    with pytest.raises(ValueError, match="work_dir .* did not write"):
        site.build_site("smoke", only="07", site_dir=tmp_results / "new", work_dir=mine)
    assert sorted(p.name for p in mine.iterdir()) == ["my_thesis.txt", "photos"]
    # a symlink named like the marker is not robeval's marker
    (mine / site.SITE_MARKER).symlink_to(mine / "my_thesis.txt")
    with pytest.raises(ValueError, match="did not write"):
        site.build_site("smoke", only="07", site_dir=mine)
    # a relative folder resolves against the working directory; a build refused after the folder checks (no smoke
    # ledgers here) leaves no marker, so a folder the user fills later stays theirs (issue 62's probe: it was marked)
    monkeypatch.chdir(tmp_results)
    with pytest.raises(FileNotFoundError, match="make reproduce PROFILE=smoke"):
        site.build_site("smoke", only="07", site_dir="mysite", work_dir="mywork")
    assert list((tmp_results / "mysite").iterdir()) == [] and list((tmp_results / "mywork").iterdir()) == []
    (tmp_results / "mysite" / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="did not write"):
        site.build_site("smoke", only="07", site_dir="mysite", work_dir="mywork")
    (tmp_results / "mysite" / "notes.txt").unlink()
    # a folder marked by an earlier build (mark_owned_folder, as a build does once its checks pass) may be reused
    from robeval.core.io import mark_owned_folder

    mark_owned_folder(tmp_results / "mysite", site.SITE_MARKER)
    (tmp_results / "mysite" / "index.html").write_text("an earlier build")
    with pytest.raises(FileNotFoundError):  # accepted: it carries the marker of an earlier build
        site.build_site("smoke", only="07", site_dir="mysite", work_dir="mywork")
    with pytest.raises(ValueError, match="overlap"):
        site.build_site("smoke", only="07", site_dir="mysite", work_dir="mysite/work")


def test_owned_folder_is_absolute_and_refuses_a_foreign_one(tmp_path, monkeypatch):
    from robeval.core.io import check_owned_folder

    monkeypatch.chdir(tmp_path)
    out = check_owned_folder("a/b", "--x", ".mark")
    assert out == tmp_path / "a" / "b" and out.is_absolute() and (out / ".mark").is_file()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "keep").write_text("k")
    with pytest.raises(ValueError, match=r"--x .*c holds files robeval did not write"):
        check_owned_folder("c", "--x", ".mark")
    assert check_owned_folder("c", "--x", ".mark", ours=True) == tmp_path / "c"  # robeval's default build folder


def test_adopt_of_a_pack_naming_other_code_is_one_line(tmp_results, tmp_path, capsys):
    from robeval.core import runs

    store = runs.grid_store("smoke", "toy")
    runs.run_grid(_cell, [{"x": 1}], store=store, progress=False)
    cfg = next(store.glob("config-*/config.json"))
    cfg.write_text(cfg.read_text().replace(f"{_cell.__module__}._cell", "builtins.print"))
    pack = tmp_path / "p.tar.xz"
    assert main(["grids", "--profile", "smoke", "--pack", str(pack), "toy"]) == 0
    assert "unknown fn" in capsys.readouterr().out  # listed, not imported
    assert main(["adopt", "--profile", "smoke", "--from", str(pack), "toy", "--no-progress"]) == 2
    one_line_error(capsys, str(pack), "'builtins.print'", "rerun its grid")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_ctrl_c_during_verify_is_one_line_without_the_kernels_traceback(child_processes):
    """Issue 62, item 5: a Ctrl-C while verify's kernel executes a cell printed the kernel's 20-line traceback of
    a reply it could no longer send before robeval's own line; the kernel now logs to a file beside the executed
    notebook (runner.kernel_log)."""
    cmd = [sys.executable, "-m", "robeval", "verify", "--profile", "default", "--only", "07"]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not child_processes(proc.pid, b"ipykernel") and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(4)  # the kernel is executing notebook 07's cells (about 15 s of them)
    assert proc.poll() is None, "verify ended before the signal"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert err == "robeval verify: interrupted (Ctrl-C); finished files are kept, a rerun resumes.\n", err


def test_strip_on_a_non_notebook_says_what_it_accepts(tmp_path, capsys):
    """Issue 62, item 5: `robeval strip ledger.json` was a jsonschema traceback."""
    ledger = tmp_path / "07.json"
    ledger.write_text('{"notebook": "07", "claims": []}')
    assert main(["strip", str(ledger)]) == 2
    one_line_error(capsys, str(ledger), "not an .ipynb file", "takes Jupyter notebooks")
    for name, text, why in [
        ("ledger.ipynb", ledger.read_text(), "ValidationError"),
        ("text.ipynb", "not json", "NotJSONError"),
    ]:
        (tmp_path / name).write_text(text)
        assert main(["strip", str(tmp_path / name)]) == 2
        one_line_error(capsys, str(tmp_path / name), why, "takes Jupyter notebooks")
        assert (tmp_path / name).read_text() == text  # untouched


def test_strip_on_a_fifo_or_a_folder_says_what_it_is(tmp_path, capsys):
    """Probe J F17: `robeval strip` on a FIFO or a folder said "no such notebook" although the path exists."""
    from fifos import fifo

    accepts = "takes Jupyter notebooks (.ipynb files of nbformat 4)"
    for folder in (tmp_path / "d.ipynb", tmp_path / "plain"):
        folder.mkdir()
        assert main(["strip", str(folder)]) == 2
        one_line_error(capsys, f"{folder} is a folder, not a notebook: pass the notebooks in it ({folder}/*.ipynb)")
    with fifo(tmp_path / "f.ipynb") as path:
        assert main(["strip", str(path)]) == 2
        one_line_error(capsys, f"{path} is a FIFO (named pipe), not a regular file", accepts)
    assert main(["strip", str(tmp_path / "gone.ipynb")]) == 2
    one_line_error(capsys, f"no such notebook: {tmp_path / 'gone.ipynb'}")


def test_adopt_recomputes_under_the_pins_its_profile_computed_with():
    """A cell recomputed by `robeval adopt` must run under the CPU-kernel pins its profile's cells were computed
    with, or numpy's AVX-512 loops give other last bits (issue 62: 3 of 45 of notebook 04's long-profile scan cells
    differed by ~1e-5 without them): the long profile pins numpy, OpenBLAS and MKL but not torch's ISA; the others
    pin all five. A user's own value wins."""
    import os
    import subprocess
    import sys

    from robeval.core.env import PINNED_CPU_ENV, TORCH_PINS, profile_pins

    assert set(profile_pins("long")) == set(PINNED_CPU_ENV) - set(TORCH_PINS) and TORCH_PINS
    assert profile_pins("paper") == profile_pins("default") == PINNED_CPU_ENV
    probe = (
        "import os, sys, robeval.__main__ as m\n"
        "assert m.main(['adopt', '--profile', sys.argv[1], 'no_such_grid', '--no-progress']) == 2\n"
        "from robeval.core.env import PINNED_CPU_ENV\n"
        "print('|'.join(f'{k}={os.environ.get(k)}' for k in sorted(PINNED_CPU_ENV)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in PINNED_CPU_ENV}
    env["MKL_CBWR"] = "COMPATIBLE"  # a user's own value
    for profile in ("long", "paper"):
        out = subprocess.run(
            [sys.executable, "-c", probe, profile], env=env, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        got = dict(kv.split("=", 1) for kv in out[-1].split("|"))
        want = {**{k: "None" for k in PINNED_CPU_ENV}, **profile_pins(profile), "MKL_CBWR": "COMPATIBLE"}
        assert got == want, profile


@pytest.mark.parametrize(
    "argv, option",
    [
        (["compare", ""], "argument other"),
        (["strip", ""], "argument paths"),
        (["grids", "--from", ""], "argument --from"),
        (["adopt", "x", "--from", " "], "argument --from"),
        (["adopt", "x", "--rebind", ""], "argument --rebind"),
        (["site", "--site-dir", ""], "argument --site-dir"),
        (["corrupt", "--out", ""], "argument --out"),
        (["corrupt", "--out", "o", "--images", "", "--labels", "y.npy"], "argument --images"),
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_working_folder(argv, option, capsys):
    """A fresh probe of issue 62: `compare ''` read the working folder (and told the user to remove .zenodo.json from
    it), `grids --from ''` ignored the option, `strip ''` said "no such notebook: ."."""
    from robeval.__main__ import main

    with pytest.raises(SystemExit) as refused:
        main(argv)
    err = capsys.readouterr().err
    last = err.rstrip("\n").splitlines()[-1]
    assert refused.value.code == 2 and last.startswith(f"robeval {argv[0]}: error: {option}: an empty path"), err


def test_adopt_check_is_refused_as_the_option_the_user_typed(capsys):
    """The same probe: `adopt x --check 0` named the library's n_check, not the command's --check."""
    from robeval.__main__ import main

    for value, shown in (("0", "got 0"), ("-3", "got -3"), ("two", "got 'two'")):
        with pytest.raises(SystemExit) as refused:
            main(["adopt", "x", "--check", value])
        last = capsys.readouterr().err.rstrip("\n").splitlines()[-1]
        assert (
            refused.value.code == 2
            and last == f"robeval adopt: error: argument --check: must be an integer >= 1, {shown}"
        )


def test_adopt_from_a_missing_folder_says_it_does_not_exist(capsys, tmp_path):
    from robeval.__main__ import main

    assert main(["adopt", "x", "--profile", "smoke", "--from", str(tmp_path / "nosuch")]) == 2
    one_line_error(capsys, f"--from {tmp_path / 'nosuch'} does not exist")


def test_a_report_over_a_folder_names_the_file_not_robevals_temporary(capsys, monkeypatch, tmp_path):
    """Probe E #19: with a folder where CLAIMS.md belongs, `robeval report` named its temporary
    (.CLAIMS.md.xxxxxxxx.tmp); the line names the file the user would look for."""
    from robeval.__main__ import main

    def report(profile):  # what report does last: an atomic write of CLAIMS.md
        from robeval.core.io import atomic_write_text

        (tmp_path / "CLAIMS.md").mkdir()
        atomic_write_text(tmp_path / "CLAIMS.md", "x")

    monkeypatch.setattr("robeval.core.publish.report.report", report)
    assert main(["report", "--profile", "smoke"]) == 2
    err = one_line_error(capsys, f"robeval: {tmp_path / 'CLAIMS.md'}: Is a directory")
    assert ".tmp" not in err


def test_grids_from_a_hand_made_store_names_the_damaged_file(tmp_path, capsys):
    """Probe F #3, #9: JSON nested 100,000 deep gave a RecursionError traceback; negative seconds or a negative count
    of adopted cells were summed into negative (or, at 1e308 each, infinite) core-hours. Each is a damaged file,
    named in one line."""
    from robeval.__main__ import main

    def store(name, files):
        sub = tmp_path / name / "g" / "config-0123"
        sub.mkdir(parents=True)
        (sub / "config.json").write_text('{"fn": "robeval.mscr.protocol.run_cell_2d", "config": {}}')
        for fname, text in files.items():
            (sub / fname).write_text(text)
        return sub

    deep = "[" * 100000 + "]" * 100000
    cases = {
        "nested": ({"a.json": deep}, "a.json"),
        "negative": ({"a.json": '{"cell": {"a": 1}, "rows": [], "seconds": -5e6}'}, "a.json"),
        "huge": ({"a.json": '{"cell": {"a": 1}, "rows": [], "seconds": 1e308}'}, "a.json"),
        "adopted": (
            {"a.json": '{"cell": {"a": 1}, "rows": [], "seconds": 1}', "adopted.json": '[{"cells": -100}]'},
            "adopted.json",
        ),
    }
    for name, (files, bad) in cases.items():
        sub = store(name, files)
        assert main(["grids", "--from", str(tmp_path / name)]) == 2, name
        one_line_error(capsys, str(sub / bad))
    cfg = store("config", {})
    (cfg / "config.json").write_text('{"fn": "x.y", "config": ' + deep + "}")
    assert main(["grids", "--from", str(tmp_path / "config")]) == 2
    one_line_error(capsys, str(cfg / "config.json"), "not readable JSON")
