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
