"""Probe O on robeval.transforms, redone: ``robeval corrupt`` / generate_dataset refuse a FIFO (or a folder) where an
output file goes (labels.npy, <corruption>.npy) by name, checked with os.stat, never opened and never replaced with a
regular file (L4: labels.npy, a FIFO, was silently swapped for a file)."""

import contextlib
import os
import signal
import stat

import numpy as np
import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.transforms import corruptions as C

IMAGES = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)
LABELS = np.array([0, 1])


@contextlib.contextmanager
def deadline(seconds=60):
    """Fail, not hang, if the code under test opens a FIFO and blocks."""

    def stop(signum, frame):
        raise TimeoutError(f"blocked for {seconds} s: a FIFO was opened")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def inputs(tmp_path):
    np.save(tmp_path / "x.npy", IMAGES)
    np.save(tmp_path / "y.npy", LABELS)
    return ["--images", str(tmp_path / "x.npy"), "--labels", str(tmp_path / "y.npy")]


def _corrupt(out, inputs, *extra):
    argv = ["corrupt", "--out", str(out), *inputs, "--names", "gaussian_noise", "--severities", "1", "--no-progress"]
    return main([*argv, *extra])


@pytest.mark.parametrize("file", ["labels.npy", "gaussian_noise.npy"])
@pytest.mark.parametrize("extra", [(), ("--overwrite",)])
def test_corrupt_refuses_a_fifo_where_an_output_goes(tmp_path, inputs, capsys, file, extra):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / file)
    with deadline():
        assert _corrupt(out, inputs, *extra) == 2
    one_line_error(
        capsys, f"{out / file} is a FIFO", "is a FIFO (named pipe), not a regular file", "write to another folder"
    )
    assert stat.S_ISFIFO(os.lstat(out / file).st_mode)  # never replaced with a regular file
    assert sorted(p.name for p in out.iterdir()) == [file]
    with deadline(), pytest.raises(ValueError, match="is a FIFO"):
        C.generate_dataset(IMAGES, LABELS, ["gaussian_noise"], out, severities=(1,), progress=False)
    assert stat.S_ISFIFO(os.lstat(out / file).st_mode)


def test_corrupt_refuses_a_folder_where_labels_go(tmp_path, inputs, capsys):
    out = tmp_path / "out"
    (out / "labels.npy").mkdir(parents=True)
    assert _corrupt(out, inputs) == 2
    one_line_error(capsys, f"{out / 'labels.npy'} is", "is a folder, not a regular file")
    assert (out / "labels.npy").is_dir()


def test_corrupt_still_writes_a_folder_of_regular_files(tmp_path, inputs):
    out = tmp_path / "out"
    assert _corrupt(out, inputs) == 0
    assert _corrupt(out, inputs) == 0  # resumes: every file verified
    assert sorted(p.name for p in out.iterdir()) == ["corruptions.json", "gaussian_noise.npy", "labels.npy"]
