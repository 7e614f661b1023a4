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
