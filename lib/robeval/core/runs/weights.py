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
import tarfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

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
    out = []
    for f in folders:
        if not isinstance(f, str) or not f or PurePosixPath(f).is_absolute() or ".." in PurePosixPath(f).parts:
            raise ValueError(f"a carried folder must be a relative path inside the cache, got {f!r}.")
        out.append(f)
    return out


def snapshot(folders: Iterable[str] = CARRIED, cache: str | os.PathLike | None = None) -> dict[str, tuple]:
    """``{relative path: (size, mtime_ns)}`` of every weight file under ``cache/<folder>`` (``cache`` defaults to
    :func:`robeval.core.paths.cache_dir`): what was there before a run, for :func:`pack_weights`."""
    root = _root(cache)
    out = {}
    for folder in _check_folders(folders):
        for p in sorted((root / folder).rglob("*")):
            if p.is_file() and p.suffix in SUFFIXES:
                st = p.stat()
                out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
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
    root = _root(cache)
    before = dict(before or {})
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
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for i, group in enumerate(groups, 1):
        entries = [{"path": rel, "bytes": now[rel][0], "sha256": _sha256(root / rel)} for rel in group]
        name = f"{prefix}-{i:02d}.tar.xz"
        tmp = out_dir / f".{name}.{os.getpid()}.tmp"
        with tarfile.open(tmp, "w:xz") as tf:
            blob = json.dumps({"format": 1, "files": entries}, indent=1).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(blob)
            tf.addfile(info, io.BytesIO(blob))
            for rel in group:
                tf.add(root / rel, arcname=rel, recursive=False)
        tmp.replace(out_dir / name)
        names.append(name)
    return {"files": len(new), "bytes": sum(now[r][0] for r in new), "packs": names}


def is_weights_pack(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a weights pack of :func:`pack_weights` (its first member is ``WEIGHTS.json``)."""
    try:
        with tarfile.open(path, "r:*") as tf:
            first = tf.next()
            return first is not None and first.name == MANIFEST
    except (tarfile.TarError, EOFError, OSError):
        return False


def adopt_weights(pack: str | os.PathLike, cache: str | os.PathLike | None = None) -> dict:
    """Restore the weight files of a :func:`pack_weights` pack into ``cache`` (default
    :func:`robeval.core.paths.cache_dir`). Every member is read and checked against the manifest (size, sha256,
    a path inside a carried folder) before any file is written; a truncated, edited or foreign pack raises a
    ValueError naming the pack and nothing is written. Files already present with the same content are left as
    they are; others are replaced atomically (the carried networks are the ones the packed grid cells used).

    Returns ``{"restored": int, "unchanged": int}``.
    """
    pack = Path(pack)
    root = _root(cache)
    what = f"weights pack {pack}"
    if not pack.is_file():
        raise ValueError(f"{what} does not exist; give the path of a weights-NN.tar.xz written by a lease.")
    try:
        with tarfile.open(pack, "r:*") as tf:
            members = tf.getmembers()
            if not members or members[0].name != MANIFEST:
                raise ValueError(
                    f"{what} has no {MANIFEST} first: not a pack of robeval.core.runs.weights.pack_weights."
                )
            manifest = json.loads(tf.extractfile(members[0]).read())
            blobs = {}
            for m in members[1:]:
                if not m.isfile():
                    raise ValueError(f"{what}: member {m.name!r} is not a regular file; refusing the pack.")
                blobs[m.name] = tf.extractfile(m).read()
    except (tarfile.TarError, EOFError, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{what} cannot be read whole ({type(exc).__name__}: {exc}); it is truncated or damaged: copy it again "
            "from the lease's output."
        ) from None
    entries = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(f"{what}: {MANIFEST} lists no files; the pack is damaged.")
    listed = {e.get("path") for e in entries}
    if listed != set(blobs):
        raise ValueError(f"{what}: its files {sorted(blobs)} are not the ones {MANIFEST} lists {sorted(listed)}.")
    for e in entries:
        rel = PurePosixPath(str(e["path"]))
        if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] not in CARRIED:
            raise ValueError(f"{what}: {e['path']!r} is not a path inside a carried cache folder {CARRIED}.")
        data = blobs[e["path"]]
        if len(data) != e.get("bytes") or hashlib.sha256(data).hexdigest() != e.get("sha256"):
            raise ValueError(f"{what}: {e['path']} does not match its checksum in {MANIFEST}; the pack is damaged.")
    got = {"restored": 0, "unchanged": 0}
    for e in entries:
        dest = root / e["path"]
        if dest.is_file() and _sha256(dest) == e["sha256"]:
            got["unchanged"] += 1
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blobs[e["path"]])
        tmp.replace(dest)
        got["restored"] += 1
    return got
