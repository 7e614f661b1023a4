"""Probe O on the two benchmark drivers: `cpu_chunks.py next --work DIR` empties ``DIR/Mk.p`` only when it is empty
or carries the marker the driver wrote into it (L1); `gpu_profile.py --out DIR` never writes its summary, a log or
the calibration through a link or over a file it did not write, and writes them atomically (L2); its ``--param``
names and values are checked against each notebook's parameters cell and settings before anything runs (minor)."""

import importlib
import json
import os
import time

import pytest


class Stop(Exception):
    """Raised by the stand-in of gpu_profile.main: the part's folder was prepared, no notebook runs."""


@pytest.fixture(autouse=True)
def no_real_part(monkeypatch):
    """A regressed refusal must fail the test, never start a real notebook or calibration: every gpu_profile.main
    below has a deadline of 40 s, of which 30 are kept for packing, so each notebook is skipped as out of time."""
    gpu_profile = importlib.import_module("gpu_profile")

    def refuse(*args, **kwargs):
        raise AssertionError("the test reached gpu_profile's calibration")

    monkeypatch.setattr(gpu_profile, "calibrate", refuse)


@pytest.fixture
def chunks(one_chunk_driver, monkeypatch):
    """cpu_chunks with its packs folder and plan in tmp_path (conftest's one_chunk_driver), and gpu_profile.main a
    stand-in that stops."""

    def stop(argv):
        raise Stop(argv[argv.index("--out") + 1])

    monkeypatch.setattr(importlib.import_module("gpu_profile"), "main", stop)
    return one_chunk_driver


def test_next_never_empties_a_folder_it_did_not_make(chunks, tmp_path):
    # L1: a user's folder named like the next part (work/M91.1 holding thesis.tex) was shutil.rmtree'd
    work = tmp_path / "w"
    mine = work / "M91.1"
    mine.mkdir(parents=True)
    (mine / "thesis.tex").write_text("my only copy")
    with pytest.raises(ValueError, match=r"M91\.1 is a folder this driver did not make .*has no \.cpu_chunks-part"):
        chunks.run_next(3600.0, chunks.load_plan(), work)
    assert (mine / "thesis.tex").read_text() == "my only copy"
    assert chunks.main(["next", "--deadline-s", "3600", "--work", str(work)]) == 2
    assert (mine / "thesis.tex").read_text() == "my only copy"


def test_next_makes_its_part_folder_with_a_marker_and_empties_only_that(chunks, tmp_path):
    work = tmp_path / "w"
    for _ in range(2):  # made afresh; then, marked as the driver's, emptied and made again
        with pytest.raises(Stop):
            chunks.run_next(3600.0, chunks.load_plan(), work)
        out = work / "M91.1"
        assert sorted(p.name for p in out.iterdir()) == [chunks.PART_MARKER]
        (out / "grids.tar.xz").write_bytes(b"an earlier try's pack")
    empty = work / "M91.1"
    for p in empty.iterdir():
        p.unlink()
    with pytest.raises(Stop):  # an empty folder is the driver's to use
        chunks.run_next(3600.0, chunks.load_plan(), work)
    assert (empty / chunks.PART_MARKER).is_file()
    # a marker that is a link is no marker
    (empty / chunks.PART_MARKER).unlink()
    (tmp_path / "elsewhere").write_text("x")
    (empty / chunks.PART_MARKER).symlink_to(tmp_path / "elsewhere")
    (empty / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="is a folder this driver did not make"):
        chunks.run_next(3600.0, chunks.load_plan(), work)
    assert (empty / "notes.txt").read_text() == "mine"


@pytest.fixture
def gpu_profile(monkeypatch):
    mod = importlib.import_module("gpu_profile")
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")  # nothing of results/gpu is touched
    return mod


@pytest.mark.parametrize("name", ["gpu_profile.json", "03_msd_powerset.log"])
def test_gpu_profile_never_writes_through_a_link_in_out(gpu_profile, tmp_path, name):
    # L2: --out DIR/gpu_profile.json -> victim: the victim's text was replaced with the summary
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious notes")
    (out / name).symlink_to(victim)
    with pytest.raises(ValueError, match=rf"^{out / name} is a link \(writing there would overwrite its target\)"):
        gpu_profile.main(["--only", "03", "--deadline-s", "40", "--out", str(out)])
    assert victim.read_text() == "precious notes" and (out / name).is_symlink()
    assert sorted(p.name for p in out.iterdir()) == [name]  # refused before anything was written


@pytest.mark.parametrize("name", ["gpu_profile.json", "03_msd_powerset.log", "calibration.log"])
def test_gpu_profile_never_writes_over_a_file_it_did_not_write(gpu_profile, tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("mine")
    argv = ["--only", "03", "--deadline-s", "40", "--out", str(out)]
    argv += ["--calibrate-s", "5"] if name.startswith("calibration") else []
    with pytest.raises(ValueError, match=rf"^{out / name} exists and was not written by gpu_profile.py"):
        gpu_profile.main(argv)
    assert (out / name).read_text() == "mine"
    assert gpu_profile.cli(argv) == 2


def test_gpu_profile_logs_are_never_opened_through_a_link(gpu_profile, tmp_path):
    # L2b: run_notebooks opened <out>/<stem>.log with open(..., "w"), truncating a link's target
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "07_realworld_analytical.log").symlink_to(victim)
    with pytest.raises(ValueError, match="is a link"):
        with gpu_profile.open_log(out, "07_realworld_analytical.log"):
            pass
    assert victim.read_text() == "precious"


def test_gpu_profile_rewrites_its_own_files_atomically(gpu_profile, tmp_path):
    out = tmp_path / "out"
    for _ in range(2):  # written; then the earlier run's files are replaced, not refused
        summary = gpu_profile.main(["--only", "03", "--deadline-s", "40", "--out", str(out)])
        assert json.loads((out / "gpu_profile.json").read_text())["notebooks"] == summary["notebooks"]
    assert json.loads((out / gpu_profile.WRITTEN).read_text()) == ["gpu_profile.json"]
    assert not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))
    with gpu_profile.open_log(out, "03_msd_powerset.log") as log:
        log.write("run 1\n")
    with gpu_profile.open_log(out, "03_msd_powerset.log") as log:  # an earlier run's log: made anew
        log.write("run 2\n")
    assert (out / "03_msd_powerset.log").read_text() == "run 2\n"
    # a record that is not a list of names is not the driver's: refused, named
    (out / gpu_profile.WRITTEN).write_text('{"x": 1}')
    with pytest.raises(ValueError, match=r"is not the record this script keeps of its files"):
        gpu_profile.main(["--only", "03", "--deadline-s", "40", "--out", str(out)])


def test_gpu_profile_run_notebooks_logs_through_no_link(gpu_profile, tmp_path, monkeypatch):
    # L2b through run_notebooks itself (subprocess.Popen stubbed: no notebook runs)
    import subprocess

    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "07_realworld_analytical.log").symlink_to(victim)

    class Done:
        def __init__(self, *args, **kwargs):
            self.pid = os.getpid()

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(subprocess, "Popen", Done)
    with pytest.raises(ValueError, match="is a link"):
        gpu_profile.run_notebooks(["07_realworld_analytical"], time.time() + 60, out, profile="long")
    assert victim.read_text() == "precious"


@pytest.mark.parametrize(
    "param, said",
    [
        ("nosuch=1", "03_msd_powerset has no parameter 'nosuch'; its parameters are"),
        ("n_bases=1e400", "'1e400' is not a finite number"),
        ("n_runs=nan", "'nan' is not a finite number"),
        ("parts=[1, 1e400]", "is not a finite number"),
        ("n_bases=-3", "03_msd_powerset: "),
    ],
)
def test_gpu_profile_params_are_checked_before_anything_runs(gpu_profile, tmp_path, capsys, param, said):
    # minor: --param nosuch=1 and n_bases=1e400 were accepted and recorded in the summary
    out = tmp_path / "out"
    argv = ["--only", "03", "--deadline-s", "40", "--out", str(out), "--param", param]
    with pytest.raises(ValueError, match=r"^--param") as exc:
        gpu_profile.main(argv)
    assert said in str(exc.value)
    assert not out.exists()
    assert gpu_profile.cli(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu_profile.py: --param") and err.count("\n") == 1


def test_gpu_profile_params_of_the_committed_plan_pass(gpu_profile):
    chunks = importlib.import_module("cpu_chunks")
    for chunk in chunks.load_plan():
        params = gpu_profile.parse_params([f"{k}={json.dumps(v)}" for k, v in chunk["params"].items()])
        gpu_profile.check_params(gpu_profile.stems_for(chunk["notebook"], "long"), "long", params)
