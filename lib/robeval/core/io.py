"""Atomic result files: a reader never sees a half-written file, a killed run never leaves one."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _file_mode()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _FILE_MODE)  # mkstemp creates 0600; result files get the user's usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def _default(obj: Any):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset, tuple)):
        return sorted(obj) if isinstance(obj, (set, frozenset)) else list(obj)
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serialisable")


def to_json(obj: Any, indent: int | None = 1, sort_keys: bool = False) -> str:
    """JSON text of ``obj``; numpy scalars/arrays, sets and paths are converted. NaN is written as NaN."""
    return json.dumps(obj, default=_default, indent=indent, sort_keys=sort_keys)


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    return atomic_write_text(path, to_json(obj))


def read_json(path: str | os.PathLike, *, what: str = "", fix: str = "", max_bytes: int | None = None) -> Any:
    """The JSON value of the file ``path``, checked by :func:`check_regular_file` before it is opened: a FIFO,
    socket, device or folder (or a link to one), or a file over ``max_bytes`` (any size when None), raises
    :class:`NotRegularFileError` (a ValueError) naming it as ``what`` with ``fix``, instead of blocking for ever
    or filling the memory. A key repeated within one object raises ValueError naming the file and the key: JSON
    keeps the last value, another reader the first, so the file says two things (a ledger row with two verdicts)."""
    fix = fix or "replace it with the JSON file it should be"
    check_regular_file(path, what, fix, max_bytes=max_bytes)

    def unique_keys(pairs: list) -> dict:
        out: dict = {}
        for key, value in pairs:
            if key not in out:
                out[key] = value
                continue
            name = f"{what} {str(path)!r}" if what else str(path)
            raise ValueError(
                f"{name} holds the key {key!r:.80} twice in one JSON object (a reader taking the first and one taking "
                f"the last would disagree); {fix}."
            )
        return out

    with open(path, encoding="utf-8") as fh:
        return json.load(fh, object_pairs_hook=unique_keys)


class NotRegularFileError(ValueError):
    """:func:`check_regular_file`'s refusal: a path that is no regular file, or a file over its size cap. A
    ValueError, raised before the file is opened (a caller that words a parse error may let it pass as it is)."""


def check_regular_file(path: str | os.PathLike, what: str, fix: str, *, max_bytes: int | None = None) -> Path:
    """``path`` as a :class:`~pathlib.Path` when it is a regular file (a link to one is followed) of at most
    ``max_bytes`` bytes (any size when None), checked before a user-given file is opened to read.
    :class:`NotRegularFileError` (a ValueError)
    ``"<what> '<path>' is a FIFO (named pipe), not a regular file: ...; <fix>."`` (``what`` empty: the path
    alone) for a FIFO, socket, device or folder, or a link to one (reading a FIFO blocks for ever, ``/dev/zero``
    never ends), and for a larger file; a missing path raises FileNotFoundError."""
    import stat

    path = Path(path)
    st = os.stat(path)
    name = f"{what} {str(path)!r}" if what else str(path)
    if stat.S_ISREG(st.st_mode):
        if max_bytes is None or st.st_size <= max_bytes:
            return path
        why = f"has {st.st_size:,} bytes, more than such a file holds ({max_bytes:,} at most)"
    else:
        kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
        kind = next((k for test, k in kinds if test(st.st_mode)), "a device")
        link = " (through a link)" if path.is_symlink() else ""
        why = f"is {kind}{link}, not a regular file" + (
            "" if kind == "a folder" else ": reading it would block or never end"
        )
    raise NotRegularFileError(f"{name} {why}; {fix}.")


def check_write_target(path: str | os.PathLike, what: str = "", fix: str = "remove it, or write elsewhere") -> Path:
    """``path`` as a :class:`~pathlib.Path` when a file may be written there (:func:`atomic_write_bytes` replaces
    what is there): nothing yet, or a regular file (or a link to one). :class:`NotRegularFileError` (a ValueError,
    one line) naming it as ``what`` (``what`` empty: the path alone) with ``fix`` when it is a FIFO, socket, device
    or folder, or a link to one, checked with ``os.stat`` before anything is opened or created: a user's pipe or
    device (``/dev/null``) is never swapped for a regular file, and a FIFO is never opened (that would block)."""
    import stat

    path = Path(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a dangling link is replaced like a file)
        return path
    if stat.S_ISREG(st.st_mode):
        return path
    kinds = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
    kind = next((k for test, k in kinds if test(st.st_mode)), "a device")
    link = " (through a link)" if path.is_symlink() else ""
    name = f"{what} {str(path)!r}" if what else str(path)
    raise NotRegularFileError(
        f"{name} is {kind}{link}, not a regular file: a file is to be written there, and robeval never replaces "
        f"{kind} with one; {fix}."
    )


def _size_text(nbytes: float) -> str:
    """``nbytes`` in the largest binary unit that keeps it >= 1 (``2.8 TiB``, ``228 bytes``)."""
    for unit, power in (("EiB", 60), ("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 2.0**power:
            return f"{nbytes / 2.0**power:.3g} {unit}"
    return f"{int(nbytes)} bytes"


def check_npy_size(path: str | os.PathLike, what: str) -> None:
    """ValueError when the ``.npy`` file at ``path`` (a regular file: check it first, :func:`check_regular_file`)
    has a header whose shape and dtype need more bytes than the file holds after it: a truncated or damaged file
    (or a crafted one), on which ``np.load`` would try to allocate what the header claims (terabytes) before it
    finds the data missing. ``what`` names the file in the message (``"--labels file 'x.npy'"``); the message reads
    ``"<what> holds 228 bytes but its header claims 2.79 TiB ((10**9, 32, 32, 3) values of uint8): a truncated or
    damaged file"``. Files that are no ``.npy`` of format 1.0 / 2.0 (an ``.npz``, a bad magic) and object arrays are
    left to ``np.load`` (which reports them)."""
    fmt = np.lib.format
    size = os.stat(path).st_size
    try:
        with open(path, "rb") as f:
            version = fmt.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                return
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(f)
            offset = f.tell()
    except (OSError, ValueError, EOFError):
        return  # not a .npy header numpy reads: np.load says so
    if dtype.hasobject:
        return
    needed = float(np.prod([float(v) for v in shape])) * dtype.itemsize
    if needed > size - offset:
        raise ValueError(
            f"{what} holds {size:,} bytes but its header claims {_size_text(needed)} ({shape} values of {dtype}): a "
            "truncated or damaged file; download or write it again (numpy.save)."
        )


def save_frame(df, path: str | os.PathLike) -> Path:
    """Write a DataFrame as CSV atomically (index not written)."""
    return atomic_write_text(path, df.to_csv(index=False))


def load_frame(path: str | os.PathLike):
    """A CSV results file as a DataFrame, with ``df.attrs["source"]`` = its path, so checks of its columns
    (:func:`robeval.core.frames.check_frame`) name the file. A missing file raises FileNotFoundError saying how
    results files are made; a FIFO, socket, device or folder raises :class:`NotRegularFileError` (a ValueError)
    naming it, before it is opened."""
    import pandas as pd

    try:
        if isinstance(path, (str, os.PathLike)):  # a FIFO would block for ever, a folder fail in pandas' words
            check_regular_file(path, "results file", "pass the CSV file the notebook wrote")
        df = pd.read_csv(path)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path}: no such results file. Results files are written by the notebooks' compute cells: run the "
            "notebook first (robeval run --profile PROFILE --only NN, without --replot)."
        ) from None
    df.attrs["source"] = str(path)
    return df


def save_npz(path: str | os.PathLike, **arrays) -> Path:
    import io as _io

    buf = _io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return atomic_write_bytes(path, buf.getvalue())


def save_npy(path: str | os.PathLike, array: np.ndarray) -> Path:
    import io as _io

    buf = _io.BytesIO()
    np.save(buf, np.asarray(array))
    return atomic_write_bytes(path, buf.getvalue())


def _writable(folder: Path) -> bool:
    """Whether this process may create files in the existing folder ``folder`` (monkeypatched in tests: root may
    write anywhere whatever the permission bits)."""
    return os.access(folder, os.W_OK | os.X_OK)


def check_output_folder(path: str | os.PathLike, option: str, *, create: bool = True) -> Path:
    """``path`` as a folder that exists (created here) and can be written; ValueError naming ``option`` (e.g.
    ``--site-dir``) and the fix when it is a file, lies below a file, or cannot be created or written. With
    ``create=False`` nothing is created: a missing folder passes when the nearest folder above it that exists can
    be written (a command that may yet refuse checks its output first and creates it only to write)."""
    path = Path(path)
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            where = "is a file" if p == path else f"lies below {p}, which is a file"
            raise ValueError(f"{option} {path} {where}, not a folder; pass a folder (it is created if missing).")
    if not create:
        nearest = next((p for p in (path, *path.parents) if p.exists()), Path("."))
        if not _writable(nearest):
            what = "the folder" if nearest == path else f"{nearest}, the folder it would be created in,"
            raise ValueError(f"{option} {path}: {what} is not writable by this user; pass a folder you can write.")
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"{option} {path}: the folder cannot be created ({exc.strerror or exc}); pass a folder you can write."
        ) from None
    if not _writable(path):
        raise ValueError(f"{option} {path}: the folder is not writable by this user; pass a folder you can write.")
    return path


def check_output_file(path: str | os.PathLike, option: str, *, create: bool = True) -> Path:
    """``path`` as a file that can be written (its folder created here unless ``create`` is False:
    :func:`check_output_folder`); ValueError naming ``option`` when it is a folder, or its folder is a file or
    cannot be created or written."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; pass a file name inside it, e.g. {path / 'out'}.")
    check_output_folder(path.parent, f"{option} {path}: its folder", create=create)
    return path


def check_owned_folder(
    path: str | os.PathLike,
    option: str,
    marker: str,
    *,
    ours: bool | str | os.PathLike = False,
    mark: bool = True,
) -> Path:
    """``path``, resolved against the working directory, as an output folder robeval may empty and refill: one
    that is missing (created here), empty, or carries the file ``marker`` that robeval wrote into it on an earlier
    build; the marker is (re)written here (with ``mark``; else by :func:`mark_owned_folder` once the caller's own
    checks passed, so a refused build leaves no marker in a folder a user may later fill), so the next build may
    reuse the folder. ``ours`` names the folder that is robeval's own (the checkout's ``build/``; True: ``path``'s
    parent): a default folder inside it is taken as robeval's without the marker, but only while no link lies
    between the two (``path`` itself included): a link, e.g. ``build/site`` made to point into a served folder,
    leads out of robeval's folder, and the folder it reaches is judged by the rule above. ValueError naming
    ``option``, the folder and the fix for any other folder: robeval never deletes what it did not write."""
    path = check_output_folder(Path(os.path.abspath(Path(path).expanduser())), option)
    link = None
    if ours is not False:
        link = link_between(path, path.parent if ours is True else ours)
    if not ((ours is not False and link is None) or owned_folder(path, marker)):
        through = f" (through the link {link}, to {os.path.realpath(link)})" if link is not None else ""
        raise ValueError(
            f"{option} {path}{through} holds files robeval did not write (it is not empty and has no {marker} from "
            "an earlier robeval build), and building there would delete them; pass a new or empty folder"
            f"{', or remove the link' if link is not None else ''}."
        )
    if mark:
        mark_owned_folder(path, marker)
    return path


def link_between(path: str | os.PathLike, own: str | os.PathLike) -> Path | None:
    """The link that leads ``path`` out of the folder ``own`` (both made absolute, not resolved): the outermost link
    between them, ``path`` itself included; ``path`` when it does not lie inside ``own`` at all; None when it lies
    inside ``own`` through real folders only (what robeval may treat as its own when ``own`` is)."""
    path = Path(os.path.abspath(Path(path).expanduser()))
    own = Path(os.path.abspath(Path(own).expanduser()))
    if own != path and own not in path.parents:
        return path
    link = None
    step = path
    while step != own:
        if step.is_symlink():
            link = step
        step = step.parent
    return link


def owned_folder(path: str | os.PathLike, marker: str) -> bool:
    """Whether the existing folder ``path`` may be emptied and refilled: it is empty, or it carries ``marker`` as a
    regular file (not a link), written by :func:`mark_owned_folder` into a folder made earlier."""
    path = Path(path)
    marked = (path / marker).is_file() and not (path / marker).is_symlink()
    return marked or not any(path.iterdir())


def mark_owned_folder(
    path: str | os.PathLike,
    marker: str,
    text: str = "written by robeval: this folder's contents are replaced on every build\n",
) -> None:
    """Write ``marker`` (holding ``text``, for whoever opens it) into the folder ``path`` (checked by
    :func:`check_owned_folder`, :func:`owned_folder`): robeval's own from now on."""
    atomic_write_text(Path(path) / marker, text)


@contextlib.contextmanager
def folder_lock(path: str | os.PathLike, *, wait: bool = True, busy: str = ""):
    """Hold an exclusive lock on the folder ``path`` (``flock`` on the folder itself: no file is added, and the
    lock goes with the process that holds it, however it ends) for a read-modify-write of files two processes may
    share. ``wait=False`` raises ValueError ``busy`` (what is going on, and what to do) when another process holds
    it, instead of waiting."""
    import fcntl

    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise ValueError(busy or f"{path} is in use by another process; wait for it to finish.") from None
        yield Path(path)
    finally:
        os.close(fd)  # releases the lock
