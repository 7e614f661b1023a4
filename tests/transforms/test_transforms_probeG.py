"""Probe G of robeval.transforms: #1 (a key of corruptions.json must not make a file outside --out, or a user's own
file, robeval's to delete) and #8 (a FIFO in a generated folder is refused, never opened)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from fifos import fifo
from robeval.__main__ import main
from robeval.transforms import corruptions as C

IMAGES = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)
LABELS = np.array([0, 1])


def _generate(out, **kw):
    return C.generate_dataset(IMAGES, LABELS, ["gaussian_noise"], out, severities=(1,), progress=False, **kw)


def _manifest(out, key):
    out.mkdir(parents=True, exist_ok=True)
    (out / C.MANIFEST).write_text(json.dumps({"corruptions": {key: {}}}))


@pytest.mark.parametrize("where", ["absolute", "relative"])
def test_overwrite_never_deletes_a_file_a_manifest_key_names_outside_out(tmp_path, where):
    """Probe G #1: a key "/any/path/x" or "../mine/thesis" was joined to --out and its .npy deleted."""
    victim = tmp_path / "mine" / "thesis.npy"
    victim.parent.mkdir()
    victim.write_text("precious")
    out = tmp_path / "out"
    key = str(victim.with_suffix("")) if where == "absolute" else "../mine/thesis"
    _manifest(out, key)
    start = "^" + re.escape(f"{out / C.MANIFEST} records the corruption {key!r}, which is not the plain name")
    with pytest.raises(ValueError, match=start):
        _generate(out, overwrite=True)
    assert victim.read_text() == "precious"
    assert (out / C.MANIFEST).is_file()  # nothing deleted, nothing written


def test_corrupt_overwrite_refuses_a_manifest_key_outside_out(tmp_path, capsys):
    """Probe G #1 through the command line: exit 2, one line, the file outside --out kept."""
    victim = tmp_path / "victim.npy"
    victim.write_text("precious")
    np.save(tmp_path / "im.npy", IMAGES)
    np.save(tmp_path / "lab.npy", LABELS)
    out = tmp_path / "out"
    _manifest(out, str(victim.with_suffix("")))
    argv = ["corrupt", "--images", str(tmp_path / "im.npy"), "--labels", str(tmp_path / "lab.npy"), "--out", str(out)]
    assert main([*argv, "--names", "gaussian_noise", "--severities", "1", "--overwrite", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert re.match("^robeval: " + re.escape(f"{out / C.MANIFEST} records the corruption"), err), err
    assert err.count("\n") == 1
    assert victim.read_text() == "precious"


def test_overwrite_keeps_a_users_file_a_manifest_key_names_in_out(tmp_path):
    """Probe G #1: a key "notes" made out/notes.npy, which robeval never wrote, one of its files to delete."""
    out = tmp_path / "out"
    _manifest(out, "notes")
    (out / "notes.npy").write_text("mine")
    paths = _generate(out, overwrite=True)
    assert (out / "notes.npy").read_text() == "mine"
    assert paths["gaussian_noise"].is_file()


def test_load_dataset_refuses_a_fifo_in_place_of_a_file(tmp_path):
    """Probe G #8: load_dataset blocked for ever on a FIFO named <corruption>.npy."""
    out = tmp_path / "out"
    _generate(out)
    (out / "gaussian_noise.npy").unlink()
    with fifo(out / "gaussian_noise.npy"):
        start = "^" + re.escape(f"{out / 'gaussian_noise.npy'} is a FIFO (named pipe), not a regular file")
        with pytest.raises(ValueError, match=start + ".*run generate_dataset again"):
            C.load_dataset(out, "gaussian_noise")
    (out / "gaussian_noise.npy").unlink()
    _generate(out)
    (out / "labels.npy").unlink()
    with fifo(out / "labels.npy"):
        with pytest.raises(ValueError, match="^" + re.escape(f"{out / 'labels.npy'} is a FIFO (named pipe)")):
            C.load_dataset(out, "gaussian_noise")


def test_a_manifest_that_is_a_fifo_is_refused_not_read(tmp_path, capsys):
    """Probe G #8: `robeval corrupt` into a folder whose corruptions.json is a FIFO blocked for ever, saying nothing;
    generate_dataset and load_dataset read it too."""
    np.save(tmp_path / "im.npy", IMAGES)
    np.save(tmp_path / "lab.npy", LABELS)
    out = tmp_path / "out"
    _generate(out)
    (out / C.MANIFEST).unlink()
    start = "^" + re.escape(f"{out / C.MANIFEST} is a FIFO (named pipe), not a regular file")
    argv = ["corrupt", "--images", str(tmp_path / "im.npy"), "--labels", str(tmp_path / "lab.npy"), "--out", str(out)]
    with fifo(out / C.MANIFEST):
        assert main([*argv, "--names", "gaussian_noise", "--severities", "1", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert re.match(start.replace("^", "^robeval: ") + ".*remove it", err) and err.count("\n") == 1, err
        with pytest.raises(ValueError, match=start):
            _generate(out)
        with pytest.raises(ValueError, match=start):
            C.load_dataset(out, "gaussian_noise")
        assert (out / C.MANIFEST).is_fifo()  # refused, not replaced


def _half_written(out, ready, done):  # a process of its own: a run between its labels.npy and its manifest
    from robeval.core.io import folder_lock

    with folder_lock(out):
        np.save(out / "labels.npy", np.tile(LABELS.astype(np.uint8), 1))
        ready.set()
        done.wait(3.0)  # the other run starts meanwhile
        C._update_manifest(out, inputs=C.folder_inputs(IMAGES, LABELS, (1,)))


def test_a_run_into_a_folder_another_run_is_setting_up_waits_for_it(tmp_path):
    """Seen in a loaded test run: two runs into one folder, one checked the folder after the other had written
    labels.npy but before its manifest recorded the inputs, and refused the folder as files of unrecorded inputs.
    The check and the first records are now one step under the folder's lock."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    ready, done = ctx.Event(), ctx.Event()
    other = ctx.Process(target=_half_written, args=(tmp_path, ready, done))
    other.start()
    try:
        assert ready.wait(60)
        import threading

        threading.Timer(1.0, done.set).start()  # the other run finishes its manifest a second later
        paths = C.generate_dataset(IMAGES, LABELS, ["contrast"], tmp_path, seed=0, severities=(1,), progress=False)
    finally:
        done.set()
        other.join(60)
    assert other.exitcode == 0
    assert C.load_dataset(tmp_path, "contrast")[0].shape == (1, 2, 32, 32, 3)
    assert set(paths) == {"contrast", "labels"}
