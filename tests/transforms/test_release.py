"""Tests of robeval.transforms.release: the `robeval corrupt` command and the reader of the released files."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from robeval.__main__ import main
from robeval.transforms import corruptions as C
from robeval.transforms import release


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    from robeval.core.data import load_cifar10_subset

    _, _, x, y = load_cifar10_subset(layout="NHWC")
    d = tmp_path_factory.mktemp("six")
    np.save(d / "x.npy", x[:6])
    np.save(d / "y.npy", y[:6].astype(np.int64))
    return d, x[:6], y[:6]


def test_corrupt_command_writes_the_release_layout_and_resumes(six, tmp_path, capsys, monkeypatch):
    d, x, y = six
    out = tmp_path / "out"
    argv = ["corrupt", "--images", str(d / "x.npy"), "--labels", str(d / "y.npy"), "--out", str(out)]
    argv += ["--names", "gaussian_noise,contrast", "--severities", "2,5", "--seed", "3", "--no-progress"]
    assert main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "contrast.npy",
        "corruptions.json",
        "gaussian_noise.npy",
        "labels.npy",
    ]
    for name in ("gaussian_noise", "contrast"):
        arr = np.load(out / f"{name}.npy")
        assert arr.shape == (12, 32, 32, 3) and arr.dtype == np.uint8
        # rows 0-5: severity 2, rows 6-11: severity 5, image i keyed by its index
        np.testing.assert_array_equal(arr[6:], C.corrupt(x, name, 5, seed=C.corruption_seed(3, name, 5)))
        np.testing.assert_array_equal(arr[:6], C.corrupt(x, name, 2, seed=C.corruption_seed(3, name, 2)))
    labels = np.load(out / "labels.npy")
    assert labels.dtype == np.uint8 and np.array_equal(labels, np.tile(y, 2))
    imgs, lab = C.load_dataset(out, "gaussian_noise")
    assert imgs.shape == (2, 6, 32, 32, 3) and np.array_equal(lab, y)
    assert "wrote" in capsys.readouterr().out

    # rerun: both files verified and skipped, nothing is corrupted again; a new name is added
    def boom(*a, **k):
        raise AssertionError("verified files must be skipped")

    before = (out / "gaussian_noise.npy").stat().st_mtime_ns
    with monkeypatch.context() as m:
        m.setattr(C, "corrupt", boom)
        assert main(argv) == 0
    assert capsys.readouterr().out.count("skipped") == 2
    assert (out / "gaussian_noise.npy").stat().st_mtime_ns == before
    argv_more = [a if a != "gaussian_noise,contrast" else "gaussian_noise,ripple" for a in argv]
    assert main(argv_more) == 0
    text = capsys.readouterr().out
    assert "skipped (already written and verified)" in text and "wrote" in text and "ripple.npy" in text
    # another seed is not the same data set: the file is regenerated
    assert main([a if a != "3" else "4" for a in argv]) == 0
    assert capsys.readouterr().out.count("wrote") == 2


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--names", "gaussian_nois"], "unknown corruption 'gaussian_nois'"),
        (["--names", "plasma_noise"], "unknown corruption 'plasma_noise'"),  # a candidate without severities
        (["--severities", "0,3"], "1..5"),
        (["--severities", "2,2"], "repeat"),
        (["--severities", "a"], "integers"),
        (["--seed", "-1"], "non-negative"),
    ],
)
def test_corrupt_command_bad_input(six, tmp_path, capsys, extra, message):
    d, _, _ = six
    argv = ["corrupt", "--images", str(d / "x.npy"), "--labels", str(d / "y.npy"), "--out", str(tmp_path / "o")]
    assert main(argv + ["--no-progress"] + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("robeval: ") and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_corrupt_command_bad_files(six, tmp_path, capsys):
    d, x, _ = six
    np.save(tmp_path / "big.npy", np.zeros((2, 64, 64, 3), np.uint8))
    np.save(tmp_path / "two.npy", np.zeros(2, np.int64))
    np.save(tmp_path / "float.npy", x.astype(np.float32))
    (tmp_path / "text.npy").write_text("not an array")
    np.savez(tmp_path / "arch.npz", a=x, b=x)
    cases = [
        (["--images", str(tmp_path), "--labels", str(d / "y.npy")], "is a folder; pass a .npy file"),
        (["--images", "/dev/null", "--labels", str(d / "y.npy")], "'/dev/null' is not a regular file"),
        (["--images", str(tmp_path / "arch.npz"), "--labels", str(d / "y.npy")], "is an .npz archive of several"),
        (["--images", str(tmp_path / "big.npy"), "--labels", str(tmp_path / "two.npy")], "64x64"),
        (["--images", str(tmp_path / "float.npy"), "--labels", str(d / "y.npy")], "uint8"),
        (["--images", str(d / "x.npy"), "--labels", str(tmp_path / "two.npy")], "labels must have shape (6,)"),
        (["--images", str(tmp_path / "text.npy"), "--labels", str(d / "y.npy")], "not a readable .npy"),
        (["--images", str(tmp_path / "missing.npy"), "--labels", str(d / "y.npy")], "does not exist"),
        (["--images", str(d / "x.npy")], "together"),
    ]
    for extra, message in cases:
        assert main(["corrupt", "--out", str(tmp_path / "o"), "--no-progress"] + extra) == 2, extra
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (extra, err)
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").glob("*.npy"))


def test_command_line_exit_code_without_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "robeval", "corrupt", "--subset", "--names", "no_such", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("robeval: unknown corruption 'no_such'") and proc.stderr.count("\n") == 1


def test_parse_names_and_severities():
    assert release.parse_names("C") == list(C.C_CORRUPTIONS)
    assert release.parse_names("c-bar,ripple") == list(C.CBAR_CORRUPTIONS)
    assert release.parse_names("ripple, all") == ["ripple"] + [
        n for n in C.C_CORRUPTIONS + C.CBAR_CORRUPTIONS if n != "ripple"
    ]
    assert release.parse_names("glass_blur,glass_blur_true_swap") == ["glass_blur", "glass_blur_true_swap"]
    assert release.parse_severities("5, 1,3") == (5, 1, 3)
    with pytest.raises(ValueError, match="empty"):
        release.parse_names(" ")


def _fake_release(folder, n=4, name="fog"):
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    x = rng.integers(0, 256, (5 * n, 32, 32, 3), dtype=np.uint8)
    y = np.tile(rng.integers(0, 10, n).astype(np.uint8), 5)
    np.save(folder / f"{name}.npy", x)
    np.save(folder / "labels.npy", y)
    return x, y


def test_load_released(tmp_path):
    x, y = _fake_release(tmp_path / "CIFAR-10-C")
    imgs, labels = release.load_released(tmp_path / "CIFAR-10-C", "fog")
    assert imgs.shape == (5, 4, 32, 32, 3) and imgs.dtype == np.uint8 and np.array_equal(labels, y[:4])
    np.testing.assert_array_equal(imgs[2], x[8:12])  # severity 3
    mm, _ = release.load_released(tmp_path / "CIFAR-10-C", "fog", mmap=True)
    np.testing.assert_array_equal(mm, imgs)
    _fake_release(tmp_path / "C", name="saturate")  # one of the release's four extra corruptions
    assert release.load_released(tmp_path / "C", "saturate")[0].shape == (5, 4, 32, 32, 3)
    with pytest.raises(FileNotFoundError, match="zenodo"):
        release.load_released(tmp_path / "CIFAR-10-C", "snow")
    with pytest.raises(ValueError, match="name must be a released corruption, got .snowy."):
        release.load_released(tmp_path / "CIFAR-10-C", "snowy")
    bad = tmp_path / "bad"
    _fake_release(bad)
    np.save(bad / "fog.npy", np.zeros((19, 32, 32, 3), np.uint8))
    with pytest.raises(ValueError, match=r"5·N, 32, 32, 3"):
        release.load_released(bad, "fog")
    np.save(bad / "fog.npy", np.zeros((20, 32, 32, 3), np.float32))
    with pytest.raises(ValueError, match="uint8"):
        release.load_released(bad, "fog")
    np.save(bad / "fog.npy", np.zeros((20, 32, 32, 3), np.uint8))
    np.save(bad / "labels.npy", np.arange(20))
    with pytest.raises(ValueError, match="same 4 labels"):
        release.load_released(bad, "fog")
    np.save(bad / "labels.npy", np.zeros(10, np.uint8))
    with pytest.raises(ValueError, match=r"labels \(20,\)"):
        release.load_released(bad, "fog")


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_corrupt_manifest_records_inputs_and_outputs(six, tmp_path):
    import hashlib
    import json

    d, x, y = six
    out = tmp_path / "o"
    argv = ["corrupt", "--images", str(d / "x.npy"), "--labels", str(d / "y.npy"), "--out", str(out)]
    assert main(argv + ["--names", "contrast,ripple", "--severities", "1,3", "--no-progress"]) == 0
    manifest = json.loads((out / "corruptions.json").read_text())
    assert manifest["inputs"] == {
        "images_sha256": hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest(),
        "labels_sha256": hashlib.sha256(y.astype(np.uint8).tobytes()).hexdigest(),
        "n_images": 6,
        "severities": [1, 3],
    }
    assert manifest["labels"]["sha256"] == _sha256(out / "labels.npy")
    for name in ("contrast", "ripple"):
        assert manifest["corruptions"][name]["sha256"] == _sha256(out / f"{name}.npy")
    # labels are written once: adding a corruption leaves labels.npy untouched
    before = (out / "labels.npy").stat().st_mtime_ns
    assert main(argv + ["--names", "fog", "--severities", "1,3", "--no-progress"]) == 0
    assert (out / "labels.npy").stat().st_mtime_ns == before
    assert set(json.loads((out / "corruptions.json").read_text())["corruptions"]) == {"contrast", "ripple", "fog"}


def test_corrupt_refuses_other_inputs_unless_overwrite(six, tmp_path, capsys):
    d, x, y = six
    out = tmp_path / "o"
    base = ["corrupt", "--out", str(out), "--no-progress", "--severities", "2"]
    assert main(base + ["--images", str(d / "x.npy"), "--labels", str(d / "y.npy"), "--names", "contrast"]) == 0
    capsys.readouterr()
    kept = _sha256(out / "contrast.npy")
    np.save(tmp_path / "x2.npy", x[::-1].copy())
    np.save(tmp_path / "y2.npy", np.zeros(6, np.int64))
    other = ["--images", str(tmp_path / "x2.npy"), "--labels", str(tmp_path / "y2.npy"), "--names", "ripple"]
    assert main(base + other) == 2
    err = capsys.readouterr().err
    assert "holds corruptions of other inputs (images_sha256, labels_sha256" in err and "--overwrite" in err
    assert err.count("\n") == 1 and _sha256(out / "contrast.npy") == kept and not (out / "ripple.npy").exists()
    # other labels alone, or other severities, are other inputs too
    same_x_other_y = ["--images", str(d / "x.npy"), "--labels", str(tmp_path / "y2.npy"), "--names", "contrast"]
    assert main(base + same_x_other_y) == 2
    assert "labels_sha256" in capsys.readouterr().err
    # --overwrite starts afresh: the stale corruption of the old images is gone
    assert main(base + other + ["--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["corruptions.json", "labels.npy", "ripple.npy"]
    assert np.array_equal(np.load(out / "labels.npy"), np.zeros(6, np.uint8))
    # a folder of unrecorded .npy files (e.g. an older version's) is refused too
    (tmp_path / "legacy").mkdir()
    np.save(tmp_path / "legacy" / "labels.npy", np.zeros(3, np.uint8))
    assert main(["corrupt", "--out", str(tmp_path / "legacy"), "--no-progress"] + other) == 2
    assert "did not record" in capsys.readouterr().err
    # an input inside --out is never replaced (issue 62's probe: --overwrite rewrote the --labels file it read)
    inside = tmp_path / "legacy" / "labels.npy"
    before = inside.read_bytes()
    args = ["--images", str(tmp_path / "x2.npy"), "--labels", str(inside), "--names", "ripple", "--overwrite"]
    assert main(["corrupt", "--out", str(tmp_path / "legacy"), "--no-progress"] + args) == 2
    err = capsys.readouterr().err
    assert "--labels" in err and "lies inside --out" in err and err.count("\n") == 1
    assert inside.read_bytes() == before and sorted(p.name for p in (tmp_path / "legacy").iterdir()) == ["labels.npy"]
    # ... nor when --out is a link to the inputs' folder, or the input a link into --out (a fresh probe's case)
    (tmp_path / "link").symlink_to(tmp_path / "legacy")
    (tmp_path / "labels-link.npy").symlink_to(inside)
    for out_dir, labels in ((tmp_path / "link", inside), (tmp_path / "legacy", tmp_path / "labels-link.npy")):
        args = ["--images", str(tmp_path / "x2.npy"), "--labels", str(labels), "--names", "ripple", "--overwrite"]
        assert main(["corrupt", "--out", str(out_dir), "--no-progress"] + args) == 2
        err = capsys.readouterr().err
        assert "--labels" in err and "lies inside --out" in err and err.count("\n") == 1
        assert inside.read_bytes() == before and not (tmp_path / "legacy" / "ripple.npy").exists()


def test_corrupt_removes_stale_temporaries(six, tmp_path):
    d, _, _ = six
    out = tmp_path / "o"
    out.mkdir()
    # the temporaries core.io's atomic writes leave (.<file>.<8 random characters>.tmp) of files corrupt writes
    stale = [out / ".contrast.npy.k2j3x_0q.tmp", out / ".corruptions.json.a1b2c3d4.tmp"]
    for p in stale:
        p.write_bytes(b"\0" * 1000)
        os.utime(p, (p.stat().st_atime, p.stat().st_mtime - 120))  # left by a killed run two minutes ago
    busy = out / ".brightness.npy.zzzzzzzz.tmp"  # another run's, being written now: left alone
    busy.write_bytes(b"\0" * 10)
    keep = [out / "notes.txt", out / "partial.tmp", out / ".corruptions.json.a1.tmp"]  # not robeval's (issue 62, L1)
    for p in keep:
        p.write_text("mine")
    argv = ["corrupt", "--images", str(d / "x.npy"), "--labels", str(d / "y.npy"), "--out", str(out)]
    assert main(argv + ["--names", "contrast", "--severities", "1", "--no-progress"]) == 0
    assert not any(p.exists() for p in stale) and all(p.read_text() == "mine" for p in keep) and busy.exists()


def test_corrupt_layout(six, tmp_path, capsys):
    d, x, y = six
    np.save(tmp_path / "nchw.npy", x.transpose(0, 3, 1, 2))
    args = ["--labels", str(d / "y.npy"), "--names", "contrast", "--severities", "1", "--no-progress"]
    assert main(["corrupt", "--images", str(d / "x.npy"), "--out", str(tmp_path / "a")] + args) == 0
    capsys.readouterr()
    assert main(["corrupt", "--images", str(tmp_path / "nchw.npy"), "--out", str(tmp_path / "b")] + args) == 0
    assert "NCHW layout (6, 3, 32, 32); transposed to NHWC" in capsys.readouterr().out
    assert np.array_equal(np.load(tmp_path / "a" / "contrast.npy"), np.load(tmp_path / "b" / "contrast.npy"))
    nchw = ["--images", str(tmp_path / "nchw.npy"), "--layout", "NCHW", "--out", str(tmp_path / "c")]
    assert main(["corrupt"] + nchw + args) == 0
    assert np.array_equal(np.load(tmp_path / "a" / "contrast.npy"), np.load(tmp_path / "c" / "contrast.npy"))
    # stated wrongly: said, with the fix
    wrong = ["--images", str(d / "x.npy"), "--layout", "NCHW", "--out", str(tmp_path / "e")]
    assert main(["corrupt"] + wrong + args) == 2
    assert "not NCHW; pass --layout NHWC" in capsys.readouterr().err
    np.save(tmp_path / "amb.npy", np.zeros((2, 3, 32, 3), np.uint8))
    with pytest.raises(ValueError, match="cannot tell the layout"):
        release.to_nhwc(np.load(tmp_path / "amb.npy"))
    with pytest.raises(ValueError, match="layout must be"):
        release.to_nhwc(x, "HWC")
