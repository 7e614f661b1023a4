import hashlib
import shutil

import numpy as np
import pytest

from robeval.acr.files import (
    CERTIFICATION_COLUMNS,
    load_certification,
    load_published_ecdf,
    parse_duration,
    read_certification,
)
from robeval.core import data
from robeval.core.data import (
    BEYOND_MIRROR,
    CIFAR10_SUBSET_DIGEST,
    SUBSET_TRAIN_INDICES,
    DataChecksumError,
    DataFileMissing,
    _array_digest,
    fetch,
    load_cifar10_subset,
    load_frost_images,
    load_ionosphere,
    load_iris_binary,
    load_mscr_2d,
    mirror_dir,
    registry,
    status,
)
from robeval.mscr.published import load_mscr_reference_2d, load_mscr_reference_cifar


def test_registry_matches_mirror_checksums():
    reg = registry()
    assert len(reg) == 76
    df = status()
    mirrored = ~df.file.isin(BEYOND_MIRROR)
    assert df[mirrored].verified.all(), df[mirrored & ~df.verified]
    # a file beyond the mirror is registered like the others (sha256, a pinned source) and, offline, missing
    assert BEYOND_MIRROR <= set(reg) and all("/dda53c62" in reg[f].url for f in BEYOND_MIRROR)
    assert not df[~mirrored].found_at.notna().any() or df[~mirrored].verified.all()


def test_mscr_2d_facts():
    X, y = load_mscr_2d("B")
    assert X.shape == (4674, 2) and X.dtype == np.float64 and y.dtype == np.int64
    assert X.min() >= 0 and X.max() <= 1 and set(np.unique(y)) == {0, 1}
    with pytest.raises(ValueError, match="valid choices are: A, B, C"):
        load_mscr_2d("D")


def test_cifar10_subset_facts():
    xtr, ytr, xte, yte = load_cifar10_subset()
    assert xtr.shape == (5000, 3, 32, 32) and xte.shape == (1000, 3, 32, 32)
    assert xtr.dtype == np.uint8 and ytr.dtype == np.uint8
    assert np.bincount(ytr, minlength=10).tolist() == [508, 515, 478, 484, 527, 469, 497, 512, 518, 492]
    assert _array_digest({"x_train": xtr, "y_train": ytr, "x_test": xte, "y_test": yte}) == CIFAR10_SUBSET_DIGEST
    # subset indices: first 1000 of each of the 5 training batches
    assert SUBSET_TRAIN_INDICES[:2].tolist() == [0, 1] and SUBSET_TRAIN_INDICES[1000] == 10000
    assert len(set(SUBSET_TRAIN_INDICES.tolist())) == 5000


def test_tabular_facts():
    X, y = load_ionosphere()
    assert X.shape == (351, 34) and y.sum() == 225
    assert np.all(X[:, 1] == 0)  # the degenerate second feature
    Xi, yi = load_iris_binary()
    assert Xi.shape == (100, 4) and yi.sum() == 50
    with pytest.raises(ValueError, match="two distinct labels"):
        load_iris_binary((1, 1))


def test_certification_loader_both_suffixes_and_columns():
    df = load_certification("cifar10", "gaussian", 0.25)
    assert len(df) == 10000 and list(df.columns[:6]) == list(CERTIFICATION_COLUMNS)
    assert (df.predict[df.radius == 0] == -1).mean() > 0.5 or (df.predict == -1).any()
    noext = load_certification("imagenet", "gaussian", 0.25)  # upstream file has no .tsv suffix
    assert noext.idx.iloc[1] - noext.idx.iloc[0] == 100
    assert noext.time_s.iloc[0] == pytest.approx(151.238689)
    with pytest.raises(ValueError, match="No published certification"):
        load_certification("imagenet", "macer", 0.25)
    with pytest.raises(ValueError, match="valid choices"):
        load_certification("cifar10", "gaussian", 0.3)


def test_parse_duration_formats():
    got = parse_duration(["0:00:03.761169", "1 day, 2:03:04.5", "12.25", "0:01:00"])
    assert got.tolist() == pytest.approx([3.761169, 86400 + 7384.5, 12.25, 60.0])


def test_certification_missing_columns(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("idx\tlabel\tradius\n0\t1\t0.5\n")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['predict', 'correct', 'time'\]"):
        read_certification(bad)


def test_published_ecdf_and_frost():
    e = load_published_ecdf("gaussian", 0.25)
    assert list(e.columns) == ["x", "y"] and e.x.between(0.5, 1.0).all()
    frost = load_frost_images()
    assert len(frost) == 6 and all(f.dtype == np.uint8 and f.shape[2] == 3 for f in frost)


def test_mscr_reference_tables():
    ref = load_mscr_reference_2d("B", "Linf")
    assert ref["acc"].shape == (9, 9) and ref["eps_min_position"] == 3
    assert ref["eps_train"][3] == pytest.approx(0.004012795, abs=1e-9)
    assert ref["acc"].iloc[0, 0] == pytest.approx(99.5308)
    # MSCR row is (acc(eps_min) - acc_clean)/acc_clean in percent
    acc = ref["acc"]
    assert ref["mscr"].iloc[0] == pytest.approx(100 * (acc.iloc[3, 0] - acc.iloc[0, 0]) / acc.iloc[0, 0], abs=1e-6)
    assert ref["acc_margin95"].iloc[0, 0] == pytest.approx(1.96 * ref["acc_std"].iloc[0, 0] / np.sqrt(1200), rel=1e-3)
    cif = load_mscr_reference_cifar()
    assert cif["acc"].shape == (18, 8) and cif["mscr"].iloc[0] == pytest.approx(-35.362)
    assert cif["notes"], "the unsorted eps_test header must be flagged"


def _mirror_copy(tmp_path, rel):
    src = mirror_dir() / rel
    dst = tmp_path / "mirror" / rel
    dst.parent.mkdir(parents=True)
    shutil.copy(src, dst)
    return dst


def test_corrupt_file_is_refused_before_parsing(tmp_path, monkeypatch):
    dst = _mirror_copy(tmp_path, "mscr_2d/B_sep.npz")
    with open(dst, "r+b") as fh:
        fh.seek(100)
        fh.write(b"\x00garbage")
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "mirror"))
    with pytest.raises(DataChecksumError, match="mscr_2d/B_sep.npz") as exc:
        load_mscr_2d("B")
    assert "Delete it and rerun" in str(exc.value)


def test_missing_file_names_places_and_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_OFFLINE", "1")
    with pytest.raises(DataFileMissing) as exc:
        load_ionosphere()
    msg = str(exc.value)
    assert "uci/ionosphere.data" in msg and str(tmp_path / "empty") in msg and "ROBEVAL_DATA_DIR" in msg
    assert "archive.ics.uci.edu" in msg


@pytest.mark.parametrize("value", ["on", "maybe", "2", "offline"])
def test_offline_junk_is_refused_not_read_as_online(tmp_path, monkeypatch, value):
    """Probe J, F20: ROBEVAL_OFFLINE=on (or any junk) silently meant online, so a missing file was downloaded. As
    ROBEVAL_DRY_RUN does, a value other than 1/true/yes or 0/false/no (or unset) is refused, naming the variable."""
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_OFFLINE", value)
    with pytest.raises(ValueError, match=rf"ROBEVAL_OFFLINE='{value}' is not understood; set it to 1"):
        load_ionosphere()
    assert not any((tmp_path / "cache").rglob("ionosphere*"))  # nothing was fetched


@pytest.mark.parametrize("value", ["1", "TRUE ", "yes"])
def test_offline_spellings_still_mean_offline(tmp_path, monkeypatch, value):
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_OFFLINE", value)
    with pytest.raises(DataFileMissing, match="Downloads are disabled"):
        load_ionosphere()


def test_cache_is_used_when_no_mirror(tmp_path, monkeypatch):
    dst = _mirror_copy(tmp_path, "uci/ionosphere.data")
    monkeypatch.delenv("ROBEVAL_DATA_DIR")
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "mirror"))
    assert fetch("uci/ionosphere.data") == dst
    assert hashlib.sha256(dst.read_bytes()).hexdigest() == registry()["uci/ionosphere.data"].sha256


def test_unregistered_file():
    with pytest.raises(ValueError, match="not a registered data file"):
        fetch("nope/file.csv")


def test_subset_is_derived_from_the_release_by_indices(tmp_path, monkeypatch):
    """Without a mirror, the subset is cut from full CIFAR-10 by index and checked by content hash."""
    sub = load_cifar10_subset()  # from the mirror
    # a fake "full release" whose images at the subset indices are the real subset images
    x_full = np.zeros((50000, 3, 32, 32), np.uint8)
    y_full = np.zeros(50000, np.uint8)
    x_full[SUBSET_TRAIN_INDICES], y_full[SUBSET_TRAIN_INDICES] = sub[0], sub[1]
    xt_full = np.zeros((10000, 3, 32, 32), np.uint8)
    yt_full = np.zeros(10000, np.uint8)
    xt_full[:1000], yt_full[:1000] = sub[2], sub[3]
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(data, "load_cifar10", lambda: (x_full, y_full, xt_full, yt_full))
    derived = load_cifar10_subset()
    for a, b in zip(derived, sub):
        np.testing.assert_array_equal(a, b)
    # an altered release is caught by the content hash
    x_full[SUBSET_TRAIN_INDICES[0], 0, 0, 0] ^= 1
    assert (tmp_path / "cache" / "cifar10_subset" / "cifar10_subset_derived.npz").is_file()
    np.testing.assert_array_equal(load_cifar10_subset()[0], sub[0])  # reused from the cache
    (tmp_path / "cache" / "cifar10_subset" / "cifar10_subset_derived.npz").unlink()
    with pytest.raises(DataChecksumError, match="content hash"):
        load_cifar10_subset()


# --------------------------------------------------------------------------------- the CIFAR-10 release
class _Planted:
    """Unpickling this object would create the file ``MARK`` (a stand-in for arbitrary code)."""

    MARK = None

    def __reduce__(self):
        return (open, (str(self.MARK), "w"))


def _release_tarball(path, batches: dict) -> str:
    """A tarball in the release's layout (cifar-10-batches-py/<name>, protocol-2 pickles); returns its sha256."""
    import io
    import pickle
    import tarfile

    with tarfile.open(path, "w:gz") as tf:
        for name, obj in batches.items():
            raw = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tf.addfile(info, io.BytesIO(raw))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fake_batches(n: int, planted=None) -> dict:
    rng = np.random.default_rng(0)
    out = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        out[name] = {
            b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
            b"labels": [int(v) for v in rng.integers(0, 10, n)],
            b"filenames": [b"x.png"] * n,
        }
    if planted is not None:
        out["test_batch"][b"extra"] = planted
    return out


def test_planted_tarball_is_rejected_before_anything_is_unpickled(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "mirror"))
    _Planted.MARK = tmp_path / "pwned"
    target = tmp_path / "cache" / "cifar10" / "cifar-10-python.tar.gz"
    target.parent.mkdir(parents=True)
    _release_tarball(target, _fake_batches(2, planted=_Planted()))
    with pytest.raises(DataChecksumError, match="sha256"):
        data.load_cifar10()
    assert not _Planted.MARK.exists(), "the planted pickle ran"


def test_release_reader_with_a_verified_tarball(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "cache" / "cifar10" / "cifar-10-python.tar.gz"
    target.parent.mkdir(parents=True)
    batches = _fake_batches(4)
    monkeypatch.setattr(data, "CIFAR10_SHA256", _release_tarball(target, batches))
    x_tr, y_tr, x_te, y_te = data.load_cifar10()
    assert x_tr.shape == (20, 3, 32, 32) and x_te.shape == (4, 3, 32, 32) and y_tr.dtype == np.uint8
    np.testing.assert_array_equal(x_te.reshape(4, -1), batches["test_batch"][b"data"])
    np.testing.assert_array_equal(data.load_cifar10(layout="NHWC")[2], x_te.transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match="layout"):
        data.load_cifar10(layout="NWHC")


def test_release_unpickler_builds_arrays_and_nothing_else(tmp_path, monkeypatch):
    """Even a tarball whose checksum is trusted cannot run code: only numpy's array constructors load."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    _Planted.MARK = tmp_path / "pwned"
    target = tmp_path / "cache" / "cifar10" / "cifar-10-python.tar.gz"
    target.parent.mkdir(parents=True)
    monkeypatch.setattr(data, "CIFAR10_SHA256", _release_tarball(target, _fake_batches(2, planted=_Planted())))
    with pytest.raises(DataChecksumError, match="never does"):
        data.load_cifar10()
    assert not _Planted.MARK.exists()


def test_offline_subset_message_names_the_mirror_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_OFFLINE", "1")
    with pytest.raises(DataFileMissing, match="ROBEVAL_DATA_DIR") as info:
        load_cifar10_subset()
    assert "rebuilt from the CIFAR-10 release" in str(info.value)


def test_derived_file_checksum_message_says_how_to_rebuild(tmp_path, monkeypatch):
    bad = tmp_path / "mirror" / "cifar10_subset" / "cifar10_subset.npz"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not the subset")
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "mirror"))
    with pytest.raises(DataChecksumError, match="load_cifar10_subset") as info:
        fetch("cifar10_subset/cifar10_subset.npz")
    assert "derived:" not in str(info.value)


def test_status_says_what_is_wrong_and_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    bad = tmp_path / "mirror" / "uci" / "ionosphere.data"
    bad.parent.mkdir(parents=True)
    bad.write_text("1,2,g\n")
    st = status().set_index("file")
    assert not st.loc["uci/ionosphere.data", "verified"]
    assert "checksum mismatch" in st.loc["uci/ionosphere.data", "problem"]
    assert "ROBEVAL_DATA_DIR" in st.loc["mscr_2d/B_sep.npz", "problem"]
    # a folder, or a broken link, where a file belongs is said to be one (a fresh probe of issue 62: "missing")
    (tmp_path / "mirror" / "mscr_2d").mkdir()
    (tmp_path / "mirror" / "mscr_2d" / "A_sep.npz").mkdir()
    (tmp_path / "mirror" / "mscr_2d" / "B_sep.npz").symlink_to(tmp_path / "nowhere")
    st = status().set_index("file")
    assert st.loc["mscr_2d/A_sep.npz", "problem"].startswith(
        f"not a regular file: {tmp_path / 'mirror' / 'mscr_2d' / 'A_sep.npz'} is a folder"
    )
    assert "is a broken link; remove it" in st.loc["mscr_2d/B_sep.npz", "problem"]
    # ROBEVAL_DATA_DIR naming a file is said to be one
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(tmp_path / "afile"))
    st = status().set_index("file")
    assert st.loc["uci/ionosphere.data", "problem"].startswith(
        f"missing: ROBEVAL_DATA_DIR={tmp_path / 'afile'} is not a folder"
    )


def test_notebook_00_requires_the_mirrored_files_and_a_file_beyond_the_mirror_only_where_present():
    """Issue 60, item 8: the authors' separation file is registered but beyond the offline mirror; notebook 00's
    row holds without it, and fails on a missing mirrored file or on a present file that does not verify."""
    import pandas as pd

    from robeval.core.ledger import Ledger
    from robeval.core.ledger.data_claims import record_data_claims

    beyond = next(iter(BEYOND_MIRROR))
    facts = pd.DataFrame(columns=["fact", "expected", "found"])

    def row(files):
        led = Ledger(paper="core", notebook="00_data_and_environment", profile="default")
        record_data_claims(led, pd.DataFrame(files, columns=["file", "found_at", "verified"]), facts)
        return led.get("data.files_verified").verdict

    mirrored = ("uci/iris.data", "/m/uci/iris.data", True)
    assert row([mirrored, (beyond, None, False)]) == "verified"
    assert row([mirrored, (beyond, "/c/x.csv", True)]) == "verified"
    assert row([mirrored, (beyond, "/c/x.csv", False)]) == "failed"  # present but altered
    assert row([("uci/iris.data", None, False), (beyond, "/c/x.csv", True)]) == "failed"
