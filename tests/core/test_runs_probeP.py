"""Probe P, P11 (2026-12-02): a pack whose tar stream declares a huge extension header (a PAX record, a GNU long
name) was read whole by tarfile before any size check (a 58 KB pack took 1.2 GB). The pack readers now refuse it
from its raw header, holding at most about a MiB."""

import io
import lzma
import tarfile
import tracemalloc

import pytest

from robeval.core.runs import archive, unpack, weights


def _bomb(path, size, kind):
    """An xz tar whose one member MANIFEST.json carries a PAX comment (``kind`` "pax") or a GNU long name of
    ``size`` bytes."""
    with lzma.open(path, "wb", preset=1) as xz:
        tf = tarfile.open(fileobj=xz, mode="w", format=tarfile.PAX_FORMAT if kind == "pax" else tarfile.GNU_FORMAT)
        info = tarfile.TarInfo("MANIFEST.json")
        if kind == "pax":
            info.pax_headers = {"comment": "a" * size}
        else:
            info.name = "toy/config-0/" + "a" * size + ".json"
        data = b'{"format": "x"}'
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
        tf.close()
    return path


@pytest.mark.parametrize(("kind", "words"), [("pax", "a PAX extended header"), ("gnu", "a GNU long name")])
def test_a_huge_extension_header_is_refused_unread(tmp_path, kind, words):
    size = 3 * archive.HEADER_MAX
    bomb = _bomb(tmp_path / "bomb.tar.xz", size, kind)
    assert bomb.stat().st_size < 20_000  # a few KB on disk
    tracemalloc.start()
    try:
        with pytest.raises(
            ValueError, match=rf"holds {words} of [0-9,]+ bytes \(at most 1,048,576\); .* refused unread"
        ):
            unpack(bomb, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < size  # tarfile alone held the whole header (3 MiB and more)
    with pytest.raises(ValueError, match=rf"weights pack .* holds {words}"):
        weights.adopt_weights(bomb, cache=tmp_path / "cache")
    assert weights.is_weights_pack(bomb) is False
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_headers_at_the_limit_and_other_archives_are_left_to_the_readers(tmp_path):
    # a long name just under the limit passes the raw check (the pack reader then refuses the member's name)
    archive.check_tar_headers(_bomb(tmp_path / "ok.tar.xz", archive.HEADER_MAX - 100, "gnu"), "pack ok")
    # a file that is no tar, and a tar cut short, are tarfile's to refuse
    (tmp_path / "junk").write_bytes(b"not a tar at all" * 100)
    archive.check_tar_headers(tmp_path / "junk", "junk")
    whole = _bomb(tmp_path / "cut.tar.xz", 10, "pax").read_bytes()
    (tmp_path / "cut.tar.xz").write_bytes(whole[: len(whole) // 2])
    archive.check_tar_headers(tmp_path / "cut.tar.xz", "cut")
    with pytest.raises(ValueError, match="is not a grid pack"):
        unpack(tmp_path / "cut.tar.xz", tmp_path / "out")
