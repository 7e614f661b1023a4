"""Probe O on `robeval corrupt` / generate_dataset's output folder: ``--overwrite`` deletes only the files the
folder's corruptions.json records robeval writing, never a file with robeval's names that no manifest records
(L3: a downloaded release's fog.npy was deleted); a corruptions.json whose ``inputs`` (or ``labels``,
``corruptions``) is not an object is named as damaged or foreign in one line, not a traceback (T1)."""

import json

import numpy as np
import pytest

from cli_errors import one_line_error
from robeval.__main__ import _parser, main
from robeval.transforms import corruptions as C

IMAGES = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)
LABELS = np.array([0, 1])


@pytest.fixture
def inputs(tmp_path):
    np.save(tmp_path / "x.npy", IMAGES)
    np.save(tmp_path / "y.npy", LABELS)
    return ["--images", str(tmp_path / "x.npy"), "--labels", str(tmp_path / "y.npy")]


def _corrupt(out, inputs, *extra):
    argv = ["corrupt", "--out", str(out), *inputs, "--names", "gaussian_noise", "--severities", "1", "--no-progress"]
    return main([*argv, *extra])


def test_overwrite_never_deletes_files_no_manifest_records(tmp_path, inputs, capsys):
    # L3: release/ with fog.npy and labels.npy (no corruptions.json): --overwrite deleted fog.npy, replaced labels.npy
    release = tmp_path / "release"
    release.mkdir()
    np.save(release / "fog.npy", np.zeros((1, 32, 32, 3), np.uint8))
    np.save(release / "labels.npy", np.arange(3, dtype=np.uint8))
    before = {p.name: p.read_bytes() for p in release.iterdir()}
    for extra in ((), ("--overwrite",)):
        assert _corrupt(release, inputs, *extra) == 2
        one_line_error(capsys, str(release), "labels.npy, fog.npy", "robeval did not record writing", "another folder")
        assert {p.name: p.read_bytes() for p in release.iterdir()} == before
    with pytest.raises(ValueError, match="not even with --overwrite"):
        C.generate_dataset(IMAGES, LABELS, ["gaussian_noise"], release, severities=(1,), progress=False, overwrite=True)
    assert {p.name: p.read_bytes() for p in release.iterdir()} == before


def test_overwrite_refuses_a_file_its_manifest_does_not_record(tmp_path, inputs, capsys):
    out = tmp_path / "out"
    assert _corrupt(out, inputs) == 0
    np.save(out / "fog.npy", np.zeros((1, 32, 32, 3), np.uint8))  # the user's, not in corruptions.json
    fog = (out / "fog.npy").read_bytes()
    np.save(tmp_path / "x.npy", IMAGES[::-1].copy())  # other inputs: the folder would be emptied
    assert _corrupt(out, inputs, "--overwrite") == 2
    one_line_error(capsys, "fog.npy", "robeval did not record writing")
    assert (out / "fog.npy").read_bytes() == fog and (out / "gaussian_noise.npy").is_file()
    (out / "fog.npy").unlink()  # what robeval recorded is deleted and written afresh
    assert _corrupt(out, inputs, "--overwrite") == 0
    assert sorted(p.name for p in out.iterdir()) == ["corruptions.json", "gaussian_noise.npy", "labels.npy"]


def test_overwrite_help_says_what_it_deletes():
    sub = next(a for a in _parser()._actions if a.dest == "cmd")
    text = next(a.help for a in sub.choices["corrupt"]._actions if a.dest == "overwrite")
    assert "corruptions.json records" in text and "refused by name" in text


@pytest.mark.parametrize(
    "manifest, said",
    [
        ('{"inputs": "x"}', "its 'inputs' is str 'x', not a JSON object"),
        ('{"inputs": [1, 2]}', "its 'inputs' is list [1, 2], not a JSON object"),
        ('{"labels": 3}', "its 'labels' is int 3"),
        ('{"corruptions": ["fog"]}', "its 'corruptions' is list"),
        ("[1]", "it is not a JSON object"),
        ("not json", "it is not a JSON object"),
    ],
)
def test_a_damaged_or_foreign_manifest_is_one_line(tmp_path, inputs, capsys, manifest, said):
    # T1: AttributeError: 'str' object has no attribute 'get' (a traceback, rc 1)
    out = tmp_path / "out"
    out.mkdir()
    (out / C.MANIFEST).write_text(manifest)
    for extra in ((), ("--overwrite",)):
        assert _corrupt(out, inputs, *extra) == 2
        one_line_error(capsys, f"{out / C.MANIFEST} is damaged or not robeval's", said, "nothing is deleted")
        assert sorted(p.name for p in out.iterdir()) == [C.MANIFEST]
        assert (out / C.MANIFEST).read_text() == manifest


def test_a_manifest_robeval_wrote_still_resumes(tmp_path, inputs):
    out = tmp_path / "out"
    assert _corrupt(out, inputs) == 0
    data = json.loads((out / C.MANIFEST).read_text())
    assert isinstance(data["inputs"], dict) and isinstance(data["labels"], dict)
    assert _corrupt(out, inputs) == 0  # the same inputs: nothing refused


def test_check_folder_is_public_and_refuses_unrecorded_files_even_with_overwrite(tmp_path):
    # robeval.transforms.release calls it across the module boundary (it was the private _check_folder)
    inputs = C.folder_inputs(IMAGES, LABELS, (1,))
    C.check_folder(tmp_path, inputs, False)  # an empty folder: nothing to refuse
    np.save(tmp_path / "fog.npy", np.zeros((1, 32, 32, 3), np.uint8))
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="fog.npy, which robeval did not record writing"):
            C.check_folder(tmp_path, inputs, overwrite)
    assert (tmp_path / "fog.npy").is_file()
