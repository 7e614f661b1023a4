"""Probe M on weights packs (M4): pack_weights never replaces a file that is not a weights pack (a user's archive of
that name, a link), checks prefix, and gives each pack a temporary name of its own."""

import os
import re

import pytest

from robeval.core.runs import weights as W


@pytest.fixture
def cache(tmp_path):
    (tmp_path / "cache" / "msd_models").mkdir(parents=True)
    (tmp_path / "cache" / "msd_models" / "a.pt").write_bytes(b"W" * 100)
    return tmp_path / "cache"


def test_a_users_archive_named_like_a_pack_is_never_replaced(tmp_path, cache):
    # M4: out/weights-01.tar.xz, the user's archive, became an xz file
    out = tmp_path / "out"
    out.mkdir()
    (out / "weights-01.tar.xz").write_bytes(b"MY OWN ARCHIVE (not robeval's)\n")
    with pytest.raises(
        ValueError,
        match=rf"^{re.escape(str(out / 'weights-01.tar.xz'))} exists and is not a weights pack robeval wrote \(no "
        r"WEIGHTS\.json first\); it is left as it is; pass another out_dir \(or prefix\), or move that file\.$",
    ):
        W.pack_weights(out, None, cache=cache)
    assert (out / "weights-01.tar.xz").read_bytes() == b"MY OWN ARCHIVE (not robeval's)\n"
    assert sorted(os.listdir(out)) == ["weights-01.tar.xz"]  # no temporary file left either


def test_a_link_named_like_a_pack_is_never_written_through(tmp_path, cache):
    out = tmp_path / "out"
    out.mkdir()
    precious = tmp_path / "precious.tar.xz"
    W.pack_weights(tmp_path / "elsewhere", None, cache=cache)
    os.replace(tmp_path / "elsewhere" / "weights-01.tar.xz", precious)  # even a real pack behind the link
    before = precious.read_bytes()
    (out / "weights-01.tar.xz").symlink_to(precious)
    with pytest.raises(ValueError, match=r"weights-01\.tar\.xz exists and is a link or not a regular file"):
        W.pack_weights(out, None, cache=cache)
    assert precious.read_bytes() == before and (out / "weights-01.tar.xz").is_symlink()


def test_an_earlier_weights_pack_is_replaced_with_the_usual_permissions(tmp_path, cache):
    out = tmp_path / "out"
    assert W.pack_weights(out, None, cache=cache)["packs"] == ["weights-01.tar.xz"]
    (cache / "msd_models" / "a.pt").write_bytes(b"V" * 50)
    assert W.pack_weights(out, None, cache=cache)["bytes"] == 50  # an earlier pack of robeval's: replaced
    assert W.is_weights_pack(out / "weights-01.tar.xz") and sorted(os.listdir(out)) == ["weights-01.tar.xz"]
    mask = os.umask(0)
    os.umask(mask)
    assert (out / "weights-01.tar.xz").stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("prefix", ["../escaped", "", ".hidden", "a/b", 5, "x" * 101])
def test_prefix_must_be_a_plain_name(tmp_path, cache, prefix):
    # M4: prefix '../escaped' -> FileNotFoundError naming '.../escaped-01.tar.xz.PID.tmp'; '' and 5 accepted
    with pytest.raises(ValueError, match=r"^prefix must be a plain file name .*the packs are named <prefix>-01"):
        W.pack_weights(tmp_path / "o", None, cache=cache, prefix=prefix)
    assert not (tmp_path / "o").exists() and not (tmp_path / "escaped-01.tar.xz").exists()


def test_before_must_be_a_snapshot(tmp_path, cache):
    # minor: before='x' -> "dictionary update sequence element #0 ..."
    with pytest.raises(TypeError, match=r"^before must be a snapshot\(\) of the cache \(a dict\) or None, got str"):
        W.pack_weights(tmp_path / "o", "x", cache=cache)
