"""Trained weights carried between machines: the networks a later GPU lease (or a later notebook) needs.

A lent GPU machine keeps nothing between leases, and trained weights live in the ignored cache
(:func:`robeval.core.paths.cache_dir`). Without them a later lease retrains what an earlier one trained: slower,
and, since GPU training is not bit-reproducible, inconsistent (notebook 04 would compare against other networks
than the ones 03's finished grid cells were computed on). So a lease packs the weight files it wrote:

* :func:`snapshot` lists the weight files under the carried cache folders before the notebooks run;
* :func:`pack_weights` writes the files that are new or changed since then into ``weights-01.tar.xz``,
  ``weights-02.tar.xz``, ... each under ``limit`` bytes (16 MiB: committable, carried by the device call), each
  with a ``WEIGHTS.json`` naming every file with its size and sha256;
* :func:`adopt_weights` restores a pack into this machine's cache, verifying every checksum before anything is
  written (a truncated or edited pack is refused whole) and writing each file atomically.

The folders carried (:data:`CARRIED`) are those whose networks are read again after the grid cell that trained
them: notebook 09's warm-up states and models (its sequential Table 5 and gradients reload them) and notebook
03's networks (04's baselines, 03's App. B on retrained models). Notebook 02's networks are used only inside the
cell that trains them, whose results the grid packs carry.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from robeval.core.io import check_regular_file
from robeval.core.runs.archive import check_tar_headers

CARRIED = ("acr_rs_training", "msd_models")  # folders of cache_dir() whose weights a later lease reads
LIMIT = 16 * 2**20  # bytes of weights per pack file (before compression)
MANIFEST = "WEIGHTS.json"
SUFFIXES = (".pt",)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            h.update(block)
    return h.hexdigest()


def _root(cache: str | os.PathLike | None) -> Path:
    from robeval.core.paths import cache_dir

    return Path(cache) if cache is not None else cache_dir()


def _check_folders(folders: Iterable[str]) -> list[str]:
    if isinstance(folders, (str, bytes, os.PathLike)):  # one name would be read letter by letter: nothing packed
        raise TypeError(
            f"folders must be a list of cache folders, got the single name {folders!r}; pass [{folders!r}]."
        )
    out = []
    for f in folders:
        if not isinstance(f, str) or not f or PurePosixPath(f).is_absolute() or ".." in PurePosixPath(f).parts:
            raise ValueError(f"a carried folder must be a relative path inside the cache, got {f!r}.")
        out.append(f)
    return out


def _walk(folder: Path):
    """Every entry below ``folder`` (not following links), sorted; a missing folder has none."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        out += [Path(dirpath) / n for n in dirnames + filenames]
    return sorted(out)


def snapshot(folders: Iterable[str] = CARRIED, cache: str | os.PathLike | None = None) -> dict[str, tuple]:
    """``{relative path: (size, mtime_ns)}`` of every weight file (a regular ``.pt`` file, not a link) under
    ``cache/<folder>`` (``cache`` defaults to :func:`robeval.core.paths.cache_dir`): what was there before a run,
    for :func:`pack_weights`."""
    root = _root(cache)
    out = {}
    for folder in _check_folders(folders):
        for p in _walk(root / folder):
            st = p.lstat()
            if stat.S_ISREG(st.st_mode) and p.suffix in SUFFIXES:
                out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def irregular(folders: Iterable[str] = CARRIED, cache: str | os.PathLike | None = None) -> list[str]:
    """The entries under ``cache/<folder>`` a weights pack cannot carry as they are: a carried folder that is a
    link, links (to a file or a folder: the networks they point to would not travel) and special files (a pipe,
    a device) named like weight files, and links to folders. Relative paths, sorted."""
    root = _root(cache)
    out = []
    for folder in _check_folders(folders):
        if (root / folder).is_symlink():
            out.append(folder)
        for p in _walk(root / folder):
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode) and (p.suffix in SUFFIXES or p.is_dir()):
                out.append(p.relative_to(root).as_posix())
            elif not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode) and p.suffix in SUFFIXES:
                out.append(p.relative_to(root).as_posix())
    return out


def pack_weights(
    out_dir: str | os.PathLike,
    before: Mapping[str, tuple] | None = None,
    folders: Iterable[str] = CARRIED,
    *,
    cache: str | os.PathLike | None = None,
    limit: int = LIMIT,
    prefix: str = "weights",
) -> dict:
    """Pack the weight files under ``cache/<folder>`` that are new or changed since ``before`` (a
    :func:`snapshot`; None packs them all) into ``out_dir/<prefix>-NN.tar.xz``, each holding at most ``limit``
    bytes of weights, with a ``WEIGHTS.json`` manifest (path, bytes, sha256 of every file).

    Returns ``{"files": int, "bytes": int, "packs": [file names]}``. A single weight file larger than ``limit``
    is an error naming it (it could not be carried in one pack file).
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive number of bytes, got {limit!r}.")
    if not isinstance(prefix, str) or len(prefix) > 100 or not _NAME_PART.fullmatch(prefix):
        raise ValueError(
            f"prefix must be a plain file name (letters, digits and _.=+-, not starting with '.', at most 100 "
            f"characters), got {prefix!r:.80}; the packs are named <prefix>-01.tar.xz inside out_dir."
        )
    if before is not None and not isinstance(before, Mapping):
        raise TypeError(f"before must be a snapshot() of the cache (a dict) or None, got {type(before).__name__}.")
    root = _root(cache)
    before = dict(before or {})
    folders = _check_folders(folders)
    odd = irregular(folders, root)
    if odd:  # refused, not skipped: a lease's networks would silently stay behind
        raise ValueError(
            f"{root / odd[0]} is a link or a special file ({len(odd)} such under the carried folders), which a weights "
            "pack does not carry: the network it stands for would not come back. Replace it with the regular file it "
            'points to (cp --remove-destination "$(readlink -f PATH)" PATH) or remove it, then pack again.'
        )
    now = snapshot(folders, root)
    new = sorted(p for p, stat in now.items() if before.get(p) != stat)
    groups: list[list[str]] = []
    size = 0
    for rel in new:
        n = now[rel][0]
        if n > limit:
            raise ValueError(
                f"{root / rel} has {n} bytes, more than a weights pack holds ({limit}); raise limit= or carry it "
                "another way."
            )
        if not groups or size + n > limit:
            groups.append([])
            size = 0
        groups[-1].append(rel)
        size += n
    from robeval.core.io import check_output_folder

    out_dir = check_output_folder(Path(out_dir), "out_dir")
    for i in range(1, len(groups) + 1):  # every file to be replaced checked before anything is written
        _check_replaceable_pack(out_dir / f"{prefix}-{i:02d}.tar.xz")
    mask = os.umask(0)  # a pack gets the permissions of a new file of this process (mkstemp's are 0600)
    os.umask(mask)
    names = []
    for i, group in enumerate(groups, 1):
        entries = [{"path": rel, "bytes": now[rel][0], "sha256": _sha256(root / rel)} for rel in group]
        name = f"{prefix}-{i:02d}.tar.xz"
        fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)  # a name of its own
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            os.chmod(tmp, 0o666 & ~mask)
            _write_pack(tmp, root, group, entries)
            tmp.replace(out_dir / name)
        finally:
            tmp.unlink(missing_ok=True)
        names.append(name)
    return {"files": len(new), "bytes": sum(now[r][0] for r in new), "packs": names}


def _check_replaceable_pack(path: Path) -> None:
    """ValueError naming ``path`` unless :func:`pack_weights` may write it: a new name, or a weights pack (an
    earlier one of robeval's, replaced). A link, a special file or any other file (a user's archive of that name)
    is left as it is."""
    if not os.path.lexists(path):
        return
    fix = "it is left as it is; pass another out_dir (or prefix), or move that file"
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path} exists and is a link or not a regular file, not a weights pack; {fix}.")
    if not is_weights_pack(path):
        raise ValueError(f"{path} exists and is not a weights pack robeval wrote (no {MANIFEST} first); {fix}.")


def _write_pack(tmp: Path, root: Path, group: list[str], entries: list[dict]) -> None:
    """The weights pack of the files ``group`` (their ``entries`` in the manifest) into ``tmp``."""
    with tarfile.open(tmp, "w:xz") as tf:
        blob = json.dumps({"format": 1, "files": entries}, indent=1).encode()
        info = tarfile.TarInfo(MANIFEST)
        info.size = len(blob)
        tf.addfile(info, io.BytesIO(blob))
        for rel in group:  # the entry written is the regular file checked above (lstat), never a link
            info = tf.gettarinfo(root / rel, arcname=rel)
            if not info.isfile():
                raise ValueError(f"{root / rel} changed into a link or a special file while packing; pack again.")
            with open(root / rel, "rb") as fh:
                tf.addfile(info, fh)


def is_weights_pack(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a weights pack of :func:`pack_weights` (its first member is ``WEIGHTS.json``); False for
    a missing path. A FIFO, socket, device or folder (reading a FIFO would block for ever) raises the ValueError of
    :func:`robeval.core.io.check_regular_file`, naming it, before it is opened."""
    if not os.path.exists(path):
        return False
    check_regular_file(path, "pack", "give the path of a pack file (.tar.xz) written by a lease or a chunk")
    try:
        check_tar_headers(path, f"pack {path}")
        with tarfile.open(path, "r:*") as tf:
            first = tf.next()
            return first is not None and first.name == MANIFEST
    except (tarfile.TarError, EOFError, OSError, ValueError):
        return False


_NAME_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=+-]*")
MANIFEST_MAX = 2**20  # bytes of a WEIGHTS.json: thousands of entries
PART_MAX = 200  # characters of one part of a member's name: a file name (255 bytes) with its temporary's affixes
NAME_MAX = 1024  # characters of a member's whole name: well inside a path's limit (4096 bytes) below the cache


def member_error(name: str) -> str | None:
    """Why ``name`` cannot be a member of a weights pack, or None: ``<carried folder>/.../<file>.pt``, each part a
    plain name (letters, digits, ``_.=+-``, never ``.``/``..``, never empty), the cache layout of :data:`CARRIED`."""
    if not isinstance(name, str):
        return f"{name!r} is not a path"
    parts = name.split("/")
    if len(parts) < 2 or parts[0] not in CARRIED:
        return f"{name!r} is not inside a carried cache folder {CARRIED}"
    if not all(_NAME_PART.fullmatch(p) and p.strip(".") for p in parts):
        return f"{name!r} is not a plain relative path (an empty, '.', '..' or unusual part)"
    if len(name) > NAME_MAX or max(len(p) for p in parts) > PART_MAX:
        return (
            f"{name[:60]!r}... is too long a name ({len(name)} characters, a part of {max(len(p) for p in parts)}; "
            f"at most {NAME_MAX}, and {PART_MAX} a part)"
        )
    if PurePosixPath(name).suffix not in SUFFIXES:
        return f"{name!r} is not a weight file ({', '.join(SUFFIXES)})"
    return None


def _read_capped(fh, size: int) -> bytes:
    """Exactly ``size`` bytes of ``fh``, read in blocks; fewer (a cut-off member) raise EOFError."""
    chunks, left = [], size
    while left:
        block = fh.read(min(left, 2**20))
        if not block:
            raise EOFError(f"{size - left} of {size} bytes")
        chunks.append(block)
        left -= len(block)
    return b"".join(chunks)


def _dest_error(root: Path, rel: str) -> str | None:
    """Why the file ``root/rel`` cannot be written as a weight file: a folder or link where the file goes, or a file
    or link where one of its folders goes (below the cache root)."""
    dest = root / rel
    for p in [*reversed(PurePosixPath(rel).parents[:-1]), None]:
        here = dest if p is None else root / p
        if not os.path.lexists(here):
            continue
        st = here.lstat()
        if p is None and not stat.S_ISREG(st.st_mode):
            return f"{here} is a folder, a link or a special file where the weight file {rel} goes"
        if p is not None and not stat.S_ISDIR(st.st_mode):
            return f"{here} is a file or a link where a folder of {rel} goes"
    return None


def adopt_weights(pack: str | os.PathLike, cache: str | os.PathLike | None = None, *, max_bytes: int = LIMIT) -> dict:
    """Restore the weight files of a :func:`pack_weights` pack into ``cache`` (default
    :func:`robeval.core.paths.cache_dir`). The manifest (read first, at most :data:`MANIFEST_MAX` bytes) is checked
    before any weight is read: every name a path of the cache layout (:func:`member_error`), listed once, none a
    folder of another, at most ``max_bytes`` bytes in all (the limit packs are written under); every member is then
    checked against it by its header before it is read (its name listed, its size the listed one) and read in blocks
    up to that size, then its sha256 checked. A truncated, edited, oversized or foreign pack, or a cache where a
    folder or link stands where a file goes (or the reverse), raises a ValueError naming the pack, and nothing is
    written. Files already present with the same content are left as they are; others are replaced atomically (the
    carried networks are the ones the packed grid cells used).

    Returns ``{"restored": int, "unchanged": int}``.
    """
    pack = Path(pack)
    root = _root(cache)
    what = f"weights pack {pack}"
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}.")
    if not pack.exists():
        raise ValueError(f"{what} does not exist; give the path of a weights-NN.tar.xz written by a lease.")
    check_regular_file(pack, "weights pack", "give the path of a weights-NN.tar.xz written by a lease")
    check_tar_headers(pack, what)  # an extension header tarfile would read whole: refused unread
    try:
        with tarfile.open(pack, "r:*") as tf:
            first = tf.next()
            if first is None or first.name != MANIFEST or not first.isfile():
                raise ValueError(
                    f"{what} has no {MANIFEST} first: not a pack of robeval.core.runs.weights.pack_weights."
                )
            if first.size > MANIFEST_MAX:
                raise ValueError(f"{what}: its {MANIFEST} has {first.size} bytes (at most {MANIFEST_MAX}); refused.")
            try:
                manifest = json.loads(_read_capped(tf.extractfile(first), first.size))
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deep
                raise ValueError(f"{what}: its {MANIFEST} is not valid JSON ({exc}); the pack is damaged.") from None
            entries = manifest.get("files") if isinstance(manifest, dict) else None
            if not isinstance(entries, list) or not all(
                isinstance(e, dict) and isinstance(e.get("path"), str) for e in entries
            ):
                raise ValueError(f"{what}: {MANIFEST} lists no files; the pack is damaged.")
            sizes = {}
            for e in entries:
                why = member_error(e["path"])
                if why is None and e["path"] in sizes:
                    why = f"{e['path']!r} is listed twice"
                n = e.get("bytes")
                if why is None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                    why = f"{e['path']!r} has no size in bytes ({n!r})"
                if why is None and not isinstance(e.get("sha256"), str):
                    why = f"{e['path']!r} has no sha256"
                if why is not None:
                    raise ValueError(f"{what}: {MANIFEST}: {why}; refusing the pack.")
                sizes[e["path"]] = n
            folders = {str(q) for rel in sizes for q in PurePosixPath(rel).parents}
            clash = sorted(folders & set(sizes))
            if clash:
                raise ValueError(f"{what}: {clash[0]!r} is listed both as a file and as a folder; refusing the pack.")
            if sum(sizes.values()) > max_bytes:
                raise ValueError(
                    f"{what}: {MANIFEST} lists {sum(sizes.values())} bytes of weights, more than {max_bytes} (the "
                    "limit packs are written under); refused unread. Pass max_bytes= if the pack was written with a "
                    "larger limit."
                )
            blobs = {}
            while (m := tf.next()) is not None:
                if m.name not in sizes or m.name in blobs:
                    why = "twice" if m.name in blobs else f"which {MANIFEST} does not list"
                    raise ValueError(f"{what}: it holds {m.name!r}, {why}; refusing the pack.")
                if not m.isfile():
                    raise ValueError(f"{what}: member {m.name!r} is not a regular file; refusing the pack.")
                if m.size != sizes[m.name]:
                    raise ValueError(
                        f"{what}: member {m.name!r} has {m.size} bytes, {MANIFEST} lists {sizes[m.name]}; refused "
                        "unread: the pack is damaged or forged."
                    )
                blobs[m.name] = _read_capped(tf.extractfile(m), m.size)
    except (tarfile.TarError, EOFError, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{what} cannot be read whole ({type(exc).__name__}: {exc}); it is truncated or damaged: copy it again "
            "from the lease's output."
        ) from None
    if set(sizes) != set(blobs):
        raise ValueError(f"{what}: its files {sorted(blobs)} are not the ones {MANIFEST} lists {sorted(sizes)}.")
    for e in entries:
        if hashlib.sha256(blobs[e["path"]]).hexdigest() != e["sha256"]:
            raise ValueError(f"{what}: {e['path']} does not match its checksum in {MANIFEST}; the pack is damaged.")
    if os.path.lexists(root) and not root.is_dir():
        raise ValueError(
            f"{what}: the cache {root} is not a folder; nothing was written. Move it aside and adopt again."
        )
    for e in entries:  # the cache's layout, before anything is written
        why = _dest_error(root, e["path"])
        if why is not None:
            raise ValueError(f"{what}: {why}; nothing was written. Move it aside and adopt again.")
    got = {"restored": 0, "unchanged": 0}
    for e in entries:
        dest = root / e["path"]
        if dest.is_file() and _sha256(dest) == e["sha256"]:
            got["unchanged"] += 1
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blobs[e["path"]])
        tmp.replace(dest)
        got["restored"] += 1
    return got
