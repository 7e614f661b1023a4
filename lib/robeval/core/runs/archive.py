"""The raw headers of a tar archive, read before :mod:`tarfile` reads them: a pack from elsewhere must not make
robeval hold a huge extension header in memory.

``tarfile`` reads a member's PAX extended header (``x``, ``g``) or GNU long name or link (``L``, ``K``) whole, in
one read, before it returns the member whose size the pack readers then check: a 58 KB xz pack declaring a 400 MB
PAX record took 1.2 GB of memory before it was refused (probe P, P11). :func:`check_tar_headers` streams the
decompressed archive once, 512-byte header by header, skipping every member's data in bounded reads, and refuses an
extension header above :data:`HEADER_MAX` bytes before anything is held.
"""

from __future__ import annotations

import os
from pathlib import Path

HEADER_MAX = 2**20  # bytes of one extension header (a long name or a PAX record is a few hundred bytes)
_BLOCK = 512
_EXTENSIONS = {
    b"x": "a PAX extended header",
    b"g": "a PAX global header",
    b"L": "a GNU long name",
    b"K": "a GNU long link",
}
_SKIP = 2**20  # bytes read at once while skipping a member's data


def _open(path: Path):
    """The decompressed bytes of ``path`` (xz, gzip, bzip2 or a plain tar, told by the first bytes), as a file."""
    import bz2
    import gzip
    import lzma

    with open(path, "rb") as raw:
        magic = raw.read(6)
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(path, "rb")
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    return open(path, "rb")


def _size(field: bytes) -> int | None:
    """The member size a header's 12-byte size field holds (octal text, or GNU's base-256 with the top bit set);
    None when it holds neither (tarfile then refuses the archive on its own)."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip()
    try:
        return int(text or b"0", 8)
    except ValueError:
        return None


def check_tar_headers(path: str | os.PathLike, what: str) -> None:
    """ValueError naming ``what`` (e.g. ``"grid pack P.tar.xz"``) when the tar archive at ``path`` holds an
    extension header (PAX record, GNU long name or link) above :data:`HEADER_MAX` bytes (the members' own sizes are
    the pack readers' to check). Reads the archive once, holding at most 1 MiB at a time; an archive
    it cannot parse (cut short, not a tar, a damaged stream) is left to :mod:`tarfile`, which refuses it, and so is
    a decompression error."""
    import lzma
    import zlib

    try:
        with _open(Path(path)) as f:
            while True:
                header = f.read(_BLOCK)
                if len(header) < _BLOCK or header == b"\0" * _BLOCK:
                    return
                size = _size(header[124:136])
                if size is None:
                    return
                kind = header[156:157]
                if kind in _EXTENSIONS and size > HEADER_MAX:
                    raise ValueError(
                        f"{what} holds {_EXTENSIONS[kind]} of {size:,} bytes (at most {HEADER_MAX:,}); no pack robeval "
                        "writes has one, so it is refused unread."
                    )
                left = -(-size // _BLOCK) * _BLOCK
                while left > 0:
                    chunk = f.read(min(left, _SKIP))
                    if not chunk:
                        return
                    left -= len(chunk)
    except (OSError, EOFError, lzma.LZMAError, zlib.error):
        return
