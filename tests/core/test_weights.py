"""Weights carried between leases (issue 44, item 1): packed in files under the limit, restored verified."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest

from robeval.core.runs import weights


def _write(root, rel, n, seed=0):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(np.random.default_rng(seed).bytes(n))
    return p


def test_pack_carries_only_new_files_in_packs_under_the_limit(tmp_path):
    cache = tmp_path / "cache"
    _write(cache, "acr_rs_training/models/old.pt", 100)
    before = weights.snapshot(cache=cache)
    assert list(before) == ["acr_rs_training/models/old.pt"]
    for i in range(5):  # 5 files of 400 bytes, 1000 bytes a pack: 2 + 2 + 1
        _write(cache, f"msd_models/n{i}.pt", 400, seed=i + 1)
    _write(cache, "mscr_cifar10_models/not_carried.pt", 50)
    _write(cache, "msd_models/notes.txt", 10)  # not a weight file
    got = weights.pack_weights(tmp_path / "out", before, cache=cache, limit=1000)
    assert got == {"files": 5, "bytes": 2000, "packs": ["weights-01.tar.xz", "weights-02.tar.xz", "weights-03.tar.xz"]}
    with tarfile.open(tmp_path / "out" / "weights-01.tar.xz") as tf:
        assert tf.getnames() == ["WEIGHTS.json", "msd_models/n0.pt", "msd_models/n1.pt"]
    assert weights.is_weights_pack(tmp_path / "out" / "weights-03.tar.xz")
    # nothing new since a snapshot: nothing packed
    assert weights.pack_weights(tmp_path / "none", weights.snapshot(cache=cache), cache=cache)["files"] == 0
    with pytest.raises(ValueError, match="more than a weights pack holds"):
        weights.pack_weights(tmp_path / "big", None, cache=cache, limit=300)
    # one folder name, not a list: refused (it was read letter by letter and packed nothing)
    for call in (weights.snapshot, weights.pack_weights):
        args = (tmp_path / "one",) if call is weights.pack_weights else ()
        with pytest.raises(TypeError, match=r"folders must be a list of cache folders.*\['msd_models'\]"):
            call(*args, folders="msd_models", cache=cache)
    assert weights.pack_weights(tmp_path / "one", None, folders=["msd_models"], cache=cache, limit=1000)["files"] == 5


def test_adopt_restores_byte_identical_files_and_is_idempotent(tmp_path):
    src, dst = tmp_path / "a", tmp_path / "b"
    files = [_write(src, f"acr_rs_training/warmup/w{i}.pt", 300, seed=i) for i in range(3)]
    got = weights.pack_weights(tmp_path / "out", {}, cache=src, limit=10_000)
    pack = tmp_path / "out" / got["packs"][0]
    assert weights.adopt_weights(pack, cache=dst) == {"restored": 3, "unchanged": 0}
    for f in files:
        assert (dst / f.relative_to(src)).read_bytes() == f.read_bytes()
    assert weights.adopt_weights(pack, cache=dst) == {"restored": 0, "unchanged": 3}
    (dst / "acr_rs_training/warmup/w0.pt").write_bytes(b"retrained elsewhere")
    assert weights.adopt_weights(pack, cache=dst) == {"restored": 1, "unchanged": 2}  # the packed network wins


def test_a_truncated_or_edited_pack_is_refused_whole(tmp_path):
    src = tmp_path / "a"
    for i in range(3):
        _write(src, f"msd_models/m{i}.pt", 20_000, seed=i)
    pack = tmp_path / "out" / weights.pack_weights(tmp_path / "out", {}, cache=src)["packs"][0]
    data = pack.read_bytes()
    cut = tmp_path / "cut.tar.xz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated or damaged"):
        weights.adopt_weights(cut, cache=tmp_path / "c1")
    assert not (tmp_path / "c1").exists() or not any((tmp_path / "c1").rglob("*.pt"))
    # a member that does not match its checksum
    bad = tmp_path / "bad.tar.xz"
    with tarfile.open(pack) as tf, tarfile.open(bad, "w:xz") as out:
        for m in tf.getmembers():
            blob = tf.extractfile(m).read()
            if m.name.endswith("m1.pt"):
                blob = blob[:-1] + bytes([blob[-1] ^ 1])
            out.addfile(m, __import__("io").BytesIO(blob))
    with pytest.raises(ValueError, match="does not match its checksum"):
        weights.adopt_weights(bad, cache=tmp_path / "c2")
    assert not any((tmp_path / "c2").rglob("*.pt")) if (tmp_path / "c2").exists() else True
    with pytest.raises(ValueError, match="does not exist"):
        weights.adopt_weights(tmp_path / "nope.tar.xz", cache=tmp_path / "c3")
    assert weights.is_weights_pack(cut)  # recognised by its manifest, then refused by adopt_weights above


# ------------------------------------------------------------------ issue 62: links, cache layout, sizes
def _forge(path, members, manifest=None, mode="w:xz"):
    """A weights pack of ``members`` (``{name: bytes}``) whose manifest lists them honestly unless given."""
    import hashlib
    import io
    import json

    files = [{"path": n, "bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()} for n, b in members.items()]
    blob = json.dumps(manifest if manifest is not None else {"format": 1, "files": files}).encode()
    with tarfile.open(path, mode) as tf:
        info = tarfile.TarInfo(weights.MANIFEST)
        info.size = len(blob)
        tf.addfile(info, io.BytesIO(blob))
        for n, b in members.items():
            info = tarfile.TarInfo(n)
            info.size = len(b)
            tf.addfile(info, io.BytesIO(b))
    return path


def test_packing_refuses_links_and_special_files(tmp_path):
    import os

    cache = tmp_path / "cache"
    real = _write(tmp_path / "elsewhere", "net.pt", 100)
    _write(cache, "msd_models/ok.pt", 100)
    (cache / "msd_models" / "linked.pt").symlink_to(real)  # was packed as a link: adopting then refused the pack
    with pytest.raises(ValueError, match=r"msd_models/linked\.pt is a link or a special file .*readlink"):
        weights.pack_weights(tmp_path / "out", {}, cache=cache)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    assert list(weights.snapshot(cache=cache)) == ["msd_models/ok.pt"]  # a link is not a weight file
    (cache / "msd_models" / "linked.pt").unlink()
    os.mkfifo(cache / "msd_models" / "pipe.pt")  # would block a reader forever
    (tmp_path / "elsewhere" / "sub").mkdir()
    (cache / "acr_rs_training").mkdir()
    (cache / "acr_rs_training" / "warmup").symlink_to(tmp_path / "elsewhere" / "sub")
    assert weights.irregular(cache=cache) == ["acr_rs_training/warmup", "msd_models/pipe.pt"]
    with pytest.raises(ValueError, match="2 such under the carried folders"):
        weights.pack_weights(tmp_path / "out", {}, cache=cache)
    (cache / "msd_models" / "pipe.pt").unlink()
    (cache / "acr_rs_training" / "warmup").unlink()
    got = weights.pack_weights(tmp_path / "out", {}, cache=cache)
    with tarfile.open(tmp_path / "out" / got["packs"][0]) as tf:
        assert [(m.name, m.isfile()) for m in tf.getmembers()] == [("WEIGHTS.json", True), ("msd_models/ok.pt", True)]


@pytest.mark.parametrize(
    "name, why",
    [
        ("msd_models", "not inside a carried cache folder"),  # a member named like a cache folder
        ("acr_rs_training/models", "not a weight file"),
        ("other/x.pt", "not inside a carried cache folder"),
        ("msd_models/../../x.pt", "not a plain relative path"),
        ("msd_models//x.pt", "not a plain relative path"),
        ("msd_models/./x.pt", "not a plain relative path"),
        ("msd_models/notes.txt", "not a weight file"),
    ],
)
def test_adopt_refuses_members_outside_the_cache_layout(tmp_path, name, why):
    pack = _forge(tmp_path / "p.tar.xz", {name: b"x" * 10})
    with pytest.raises(ValueError, match=why):
        weights.adopt_weights(pack, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_adopt_never_replaces_a_folder_with_a_file(tmp_path):
    cache = tmp_path / "cache"
    keep = _write(cache, "msd_models/x.pt/inside.pt", 10)  # a folder named like a weight file
    pack = _forge(tmp_path / "p.tar.xz", {"msd_models/x.pt": b"x" * 10, "msd_models/y.pt": b"y"})
    with pytest.raises(ValueError, match=r"x\.pt is a folder, a link or a special file .*nothing was written"):
        weights.adopt_weights(pack, cache=cache)
    assert keep.read_bytes() and not (cache / "msd_models" / "y.pt").exists()
    # a file where a folder of a member goes, and a member that is another's folder
    pack = _forge(tmp_path / "q.tar.xz", {"msd_models/x.pt/inside.pt/deeper.pt": b"z"})
    with pytest.raises(ValueError, match="a file or a link where a folder"):
        weights.adopt_weights(pack, cache=cache)
    pack = _forge(tmp_path / "r.tar.xz", {"msd_models/a.pt": b"a", "msd_models/a.pt/b.pt": b"b"})
    with pytest.raises(ValueError, match="both as a file and as a folder"):
        weights.adopt_weights(pack, cache=tmp_path / "fresh")
    # a link in the cache where a folder of a member goes is not followed
    (tmp_path / "outside").mkdir()
    (cache / "acr_rs_training").mkdir()
    (cache / "acr_rs_training" / "models").symlink_to(tmp_path / "outside")
    pack = _forge(tmp_path / "s.tar.xz", {"acr_rs_training/models/m.pt": b"m"})
    with pytest.raises(ValueError, match="a file or a link where a folder"):
        weights.adopt_weights(pack, cache=cache)
    assert not any((tmp_path / "outside").iterdir())


def test_a_small_pack_of_a_gibibyte_of_zeros_is_refused_unread(tmp_path):
    import gzip
    import hashlib
    import io
    import tracemalloc

    class Zeros(io.RawIOBase):
        def __init__(self, n):
            self.n = n

        def readable(self):
            return True

        def readinto(self, b):
            k = min(len(b), self.n)
            b[:k] = bytes(k)
            self.n -= k
            return k

    def bomb(path, listed_bytes):
        entry = {"path": "msd_models/z.pt", "bytes": listed_bytes, "sha256": hashlib.sha256(b"").hexdigest()}
        blob = __import__("json").dumps({"format": 1, "files": [entry]}).encode()
        with gzip.open(path, "wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tf:
            info = tarfile.TarInfo(weights.MANIFEST)
            info.size = len(blob)
            tf.addfile(info, io.BytesIO(blob))
            info = tarfile.TarInfo("msd_models/z.pt")
            info.size = 2**30
            tf.addfile(info, Zeros(2**30))
        return path

    small = bomb(tmp_path / "lies.tar.gz", 100)  # the manifest says 100 bytes, the member holds 1 GiB
    honest = bomb(tmp_path / "honest.tar.gz", 2**30)  # the manifest says 1 GiB: over the limit, unread
    assert small.stat().st_size < 8 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"has 1073741824 bytes, WEIGHTS\.json lists 100; refused unread"):
            weights.adopt_weights(small, cache=tmp_path / "cache")
        with pytest.raises(ValueError, match=r"lists 1073741824 bytes of weights, more than 16777216"):
            weights.adopt_weights(honest, cache=tmp_path / "cache")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20, peak  # neither was read into memory
    assert not (tmp_path / "cache").exists()
    with pytest.raises(ValueError, match="max_bytes must be a positive"):
        weights.adopt_weights(small, cache=tmp_path / "cache", max_bytes=0)


def test_a_manifest_nested_past_pythons_limit_is_one_clear_refusal(tmp_path):
    """Issue 62's second probe: a manifest of 200,000 nested lists raised RecursionError (the CLI printed Python's
    wording without the pack); a grid pack or a weights pack so made is refused as damaged, naming it."""
    import io

    from robeval.core import runs

    deep = b"[" * 200_000 + b"]" * 200_000
    for name, first in (("deep-weights-01.tar.xz", "WEIGHTS.json"), ("deep_grid.tar.xz", "MANIFEST.json")):
        with tarfile.open(tmp_path / name, "w:xz") as tf:
            info = tarfile.TarInfo(first)
            info.size = len(deep)
            tf.addfile(info, io.BytesIO(deep))
    with pytest.raises(ValueError, match=r"deep-weights-01.tar.xz: its WEIGHTS.json is not valid JSON .*damaged"):
        weights.adopt_weights(tmp_path / "deep-weights-01.tar.xz", tmp_path / "cache")
    with pytest.raises(ValueError, match=r"deep_grid.tar.xz: its MANIFEST.json is not valid JSON"):
        runs.unpack(tmp_path / "deep_grid.tar.xz", tmp_path / "out")
    with pytest.raises(ValueError, match="exists and is not a grid pack"):
        runs.pack([tmp_path], tmp_path / "deep_grid.tar.xz")
