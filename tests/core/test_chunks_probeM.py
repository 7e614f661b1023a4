"""Probe M on the chunk driver (benchmarks/cpu_chunks.py): `status` never opens a FIFO or a device link named like a
summary or pack, and names a damaged summary, calibration or plan in one line (M7); `next --deadline-s` nan, inf
or negative is refused before anything starts (M14), as gpu_profile's own deadlines are."""

import importlib
import json
import os
import stat

import pytest

from fifos import fifo


@pytest.fixture(autouse=True)
def no_real_part(monkeypatch):
    """A refusal these tests expect that regressed must fail the test, never start a real notebook: on the code
    before these fixes, `next --deadline-s nan` ran a part of the real plan (a long-profile notebook, for an hour)."""
    gpu_profile = importlib.import_module("gpu_profile")

    def refuse(*args, **kwargs):
        raise AssertionError("the test reached gpu_profile's notebook runner: a chunk part would have started")

    monkeypatch.setattr(gpu_profile, "run_notebooks", refuse)
    monkeypatch.setattr(gpu_profile, "calibrate", refuse)


@pytest.fixture
def chunks(one_chunk_driver, tmp_path, monkeypatch):
    """cpu_chunks with its packs folder, plan (conftest's one_chunk_driver) and calibration in tmp_path."""
    monkeypatch.setattr(one_chunk_driver, "CALIBRATION", tmp_path / "calibration.json")
    return one_chunk_driver


def _one_line(capsys, start):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith(start), err
    return err


@pytest.mark.parametrize("name", ["M91.9-summary.json", "M99.1.tar.xz"])
def test_status_never_opens_a_fifo_named_like_a_summary_or_pack(chunks, tmp_path, capsys, name):
    # M7: rc=124 (blocked until killed)
    with fifo(tmp_path / "packs" / name) as f:
        assert chunks.main(["status"]) == 2
    err = _one_line(capsys, f"cpu_chunks.py: {'the chunk pack' if name.endswith('xz') else 'a part'}")
    assert "is a FIFO (named pipe), not a regular file" in err and stat.S_ISFIFO(os.lstat(f).st_mode)


def test_status_never_reads_a_device_link_named_like_a_summary(chunks, tmp_path, capsys):
    # M7: M1.9-summary.json -> /dev/zero read into memory until killed
    (tmp_path / "packs" / "M91.9-summary.json").symlink_to("/dev/zero")
    assert chunks.main(["status"]) == 2
    err = _one_line(capsys, "cpu_chunks.py: a part's summary ")
    assert "is a device (through a link), not a regular file" in err


@pytest.mark.parametrize(
    "summary, said",
    [
        ({"wall_s": "abc"}, "its wall_s is 'abc', not seconds"),
        ({"notebooks": [1]}, "its notebooks is [1], not"),
        ({"central": {"rows": "2"}}, "its central is"),
        ({"brought_back": "x"}, "its brought_back is 'x'"),
    ],
)
def test_status_names_a_damaged_summary(chunks, tmp_path, capsys, summary, said):
    # M7: TypeError: unsupported operand type(s) for +: 'float' and 'str' (wall_s text)
    path = tmp_path / "packs" / "M91.1-summary.json"
    path.write_text(json.dumps(summary))
    assert chunks.main(["status"]) == 2
    _one_line(capsys, f"cpu_chunks.py: {path}: {said}")


@pytest.mark.parametrize("calibration", ["[1]", '{"step_s": {"resnet20": "fast"}}', '{"step_s": 5}'])
def test_status_names_a_damaged_calibration(chunks, tmp_path, capsys, calibration):
    # M7: AttributeError: 'list' object has no attribute 'get'; TypeError for step_s text
    (tmp_path / "calibration.json").write_text(calibration)
    assert chunks.main(["status"]) == 2
    _one_line(capsys, f"cpu_chunks.py: {tmp_path / 'calibration.json'}: the calibration is a JSON object whose step_s")


@pytest.mark.parametrize(
    "damage, said",
    [
        (lambda plan: "not = toml = at all", "the plan is not readable TOML"),
        (
            lambda plan: plan.replace("params = { n_runs = 5 }", 'params = "n_runs"'),
            "chunk M91 has params 'n_runs', not a table",
        ),
        (lambda plan: plan + '\n[units]\nu = "x"\n', "unit u must be a table"),
    ],
)
def test_status_and_next_name_a_damaged_plan(chunks, tmp_path, capsys, damage, said):
    # M7: tomllib.TOMLDecodeError traceback (load_plan outside main's try); a chunk's params text -> AttributeError
    plan = tmp_path / "plan.toml"  # the fixture's plan of one chunk, M91
    plan.write_text(damage(plan.read_text()))
    for argv in (["status"], ["next", "--deadline-s", "3600", "--work", str(tmp_path / "w")]):
        assert chunks.main(argv) == 2
        _one_line(capsys, f"cpu_chunks.py: {tmp_path / 'plan.toml'}: {said}")
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("deadline", ["nan", "inf", "-5", "0"])
def test_next_refuses_a_deadline_that_is_no_time(chunks, tmp_path, capsys, deadline):
    # M14: --deadline-s nan passed both checks and started the chunk (gpu_profile --deadline-s nan)
    assert chunks.main(["next", "--deadline-s", deadline, "--work", str(tmp_path / "w")]) == 2
    _one_line(capsys, "cpu_chunks.py: --deadline-s must be a finite number of seconds > 0")
    with pytest.raises(ValueError, match=r"^--deadline-s must be a finite number of seconds > 0"):
        chunks.run_next(float(deadline), chunks.load_plan(), tmp_path / "w")
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("option", ["--deadline-s", "--reserve-s", "--calibrate-s"])
def test_gpu_profile_refuses_seconds_that_are_nan(option, tmp_path, capsys):
    gpu_profile = importlib.import_module("gpu_profile")
    with pytest.raises(SystemExit) as exit_:
        gpu_profile.main(["--only", "07", option, "nan", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    assert f"{option} must be a finite number of seconds >= 0" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_next_never_empties_a_link_named_like_a_part(chunks, tmp_path):
    # minor: `next --work DIR` ran shutil.rmtree(DIR/Mk.p) with no check of what it is
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    work = tmp_path / "w"
    work.mkdir()
    (work / "M91.1").symlink_to(mine)
    with pytest.raises(ValueError, match=r"M91\.1 is a link or a file, not the part's work folder"):
        chunks.run_next(3600.0, chunks.load_plan(), work)
    assert (mine / "notes.txt").read_text() == "mine"


def test_check_packs_with_no_grid_pack_says_so(tmp_path, capsys):
    # minor: `--check-packs` with only weights packs printed {} and exited 2 with no message
    from robeval.core.runs import weights

    gpu_profile = importlib.import_module("gpu_profile")
    (tmp_path / "cache" / "msd_models").mkdir(parents=True)
    (tmp_path / "cache" / "msd_models" / "a.pt").write_bytes(b"W" * 10)
    weights.pack_weights(tmp_path / "out", None, cache=tmp_path / "cache")
    assert gpu_profile.cli(["--check-packs", "--adopt", str(tmp_path / "out" / "weights-01.tar.xz")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu_profile.py: no grid pack to check among 1 pack(s)") and err.count("\n") == 1
