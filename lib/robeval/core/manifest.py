"""The manifest of the result files a ledger rests on: each file's sha256, size and row count.

A notebook's ledger (``results/<profile>/claims/<NN_name>.json``) rests on the result files of its experiment folder
(``results/<profile>/<name>/``, every file below it). :meth:`robeval.core.ledger.Ledger.save` writes their manifest
into the ledger itself, under the key ``"results"``, so the two are written together in one atomic write.
``robeval verify`` checks the manifest first (:func:`check_manifest`) and names a file that was truncated, extended,
edited, added or removed since; only then does it rebuild the verdicts from the files. A verdict rebuilt from a
results file cut in half can agree with the saved one, and would then hide the change.

Manifest format: ``{"<name>/<path below it>": {"sha256": hex, "bytes": int, "rows": int | {array: int} | None}}``
with paths relative to ``results/<profile>`` (POSIX separators). ``rows`` is the number of data rows of a CSV file,
the length of an ``.npy`` array, the length of each array of an ``.npz`` file, and None for other files.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

__all__ = ["MANIFEST_KEY", "experiment_folder", "file_record", "results_manifest", "check_manifest"]

MANIFEST_KEY = "results"
RECORD_KEYS = ("sha256", "bytes", "rows")  # what file_record writes for a result file


def _is_plain_name(notebook) -> bool:
    """Whether ``notebook`` is a name a ledger can carry (letters, digits, '_', '-', '.', no '..'), as
    :class:`robeval.core.ledger.Ledger` requires: never a path."""
    return isinstance(notebook, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", notebook) is not None and ".." not in notebook


def experiment_folder(profile: str, notebook: str) -> Path:
    """``results_dir(profile) / <name>`` for the notebook ``NN_<name>`` (the folder its :func:`setup` creates).
    ValueError unless ``notebook`` is a plain name (letters, digits, '_', '-', '.'), so the folder lies inside
    the profile's results."""
    from robeval.core.paths import results_dir

    if not _is_plain_name(notebook):
        raise ValueError(
            f"notebook {notebook!r:.80} must be a plain name (letters, digits, '_', '-', '.'), e.g. "
            "'07_realworld_analytical': it names a folder inside the profile's results."
        )
    return results_dir(profile) / re.sub(r"^\d+_", "", notebook)


def _rows(path: Path):
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            with open(path, "rb") as fh:
                import pandas as pd

                return int(len(pd.read_csv(fh)))
        if suffix == ".npy":
            import numpy as np

            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            return int(arr.shape[0]) if arr.ndim else 1
        if suffix == ".npz":
            import numpy as np

            with np.load(path, allow_pickle=False) as z:
                return {k: (int(z[k].shape[0]) if z[k].ndim else 1) for k in z.files}
    except Exception:  # an unreadable file: its checksum still records it exactly
        return None
    return None


def file_record(path: str | Path) -> dict:
    """``{"sha256", "bytes", "rows"}`` of one result file (see the module's docstring for ``rows``). A FIFO,
    socket, device or folder raises :class:`robeval.core.io.NotRegularFileError` (a ValueError) naming it, before
    it is opened (a FIFO would block for ever)."""
    from robeval.core.io import check_regular_file

    path = check_regular_file(path, "result file", "a manifest records regular files only; pass the file itself")
    data = path.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "rows": _rows(path)}


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and not p.name.endswith(".tmp")
    )


def results_manifest(profile: str, notebook: str) -> dict:
    """The manifest of every result file of ``notebook``'s experiment folder under ``profile`` (empty when it has
    none, e.g. notebook 00)."""
    folder = experiment_folder(profile, notebook)
    base = folder.parent
    return {p.relative_to(base).as_posix(): file_record(p) for p in _files(folder)}


def _describe_rows(rows) -> str:
    if isinstance(rows, dict):
        return ", ".join(f"{k}: {v}" for k, v in rows.items()) or "no arrays"
    return f"{rows} rows" if rows is not None else "?"


def check_manifest(ledger: dict, ledger_path, profile: str) -> None:
    """ValueError naming the first result file of ``ledger`` (a saved ledger's dict, read from ``ledger_path``) that
    differs from its manifest: missing, added, or with other bytes (with its row count now and as recorded), or
    whose recorded size or row count is not the file's (an edited ledger: the manifest is compared whole).
    A ledger without a manifest is refused too: it cannot show that its results are the ones it was built from."""
    if not isinstance(ledger, dict):
        raise TypeError(f"ledger must be a saved ledger (the dict of its JSON file), got {type(ledger).__name__}.")
    stem = Path(ledger_path).stem  # the notebook the file is of; the ledger's own field is checked against it
    notebook = ledger.get("notebook", stem)
    recorded = ledger.get(MANIFEST_KEY)
    redo = (
        f"Restore the file as committed (git checkout -- results/{profile}) or, if the change is meant, recompute the "
        f"notebook and its ledger (robeval run --profile {profile} --only {stem[:2]})."
    )
    if not isinstance(recorded, dict):
        raise ValueError(
            f"{ledger_path} has no manifest of its result files ('{MANIFEST_KEY}'), so a result file changed since it "
            "was saved could not be told. Rebuild the ledger with `robeval run --replot --profile "
            f"{profile} --only {stem[:2]}`, or record the manifest of the files as they are now with "
            f"`robeval verify --profile {profile} --only {stem[:2]} --write-manifest` (only if you know "
            "they are the ones the ledger was built from)."
        )
    bad = [rel for rel, rec in recorded.items() if not isinstance(rec, dict) or not isinstance(rec.get("sha256"), str)]
    if bad:
        raise ValueError(
            f"{ledger_path}: its manifest entry for {bad[0]!r} has no sha256 (the ledger was edited by hand); restore "
            f"the ledger (git checkout) or rebuild it (robeval run --replot --profile {profile} --only "
            f"{stem[:2]})."
        )
    odd = [(rel, sorted(set(rec) - set(RECORD_KEYS))) for rel, rec in recorded.items() if set(rec) - set(RECORD_KEYS)]
    if odd:
        raise ValueError(
            f"{ledger_path}: its manifest entry for {odd[0][0]!r} holds {', '.join(map(repr, odd[0][1]))}, which "
            f"robeval does not write (only {', '.join(RECORD_KEYS)}): the ledger was edited by hand; restore it (git "
            f"checkout -- {ledger_path}) or rebuild it (robeval run --replot --profile {profile} --only "
            f"{stem[:2]})."
        )
    if notebook != stem or not _is_plain_name(stem):  # before any path is built from it: nothing else is read
        raise ValueError(
            f"{ledger_path} holds the ledger of {notebook!r:.80} (its 'notebook'), not of {stem!r}: a ledger is saved "
            f"as <notebook>.json under results/{profile}/claims, and its result files were not read. Restore it (git "
            f"checkout -- {ledger_path}) or rebuild it (robeval run --replot --profile {profile} --only {stem[:2]})."
        )
    base = experiment_folder(profile, stem).parent
    current = results_manifest(profile, stem)
    for rel, rec in recorded.items():
        path = base / rel
        if rel not in current:
            raise ValueError(
                f"{path}: a result file the ledger {ledger_path} rests on is missing ({_describe_rows(rec.get('rows'))} "
                f"recorded). {redo}"
            )
        now = current[rel]
        if now["sha256"] != rec.get("sha256"):
            rows = ""
            if now["rows"] != rec.get("rows"):
                rows = f" it now has {_describe_rows(now['rows'])}, {_describe_rows(rec.get('rows'))} recorded;"
            elif now["bytes"] != rec.get("bytes"):
                rows = f" it now has {now['bytes']} bytes, {rec.get('bytes')} recorded;"
            else:
                rows = " same size and row count, other bytes (edited values);"
            raise ValueError(
                f"{path} changed since the ledger {ledger_path} was saved (sha256 differs):{rows} the verdicts would "
                f"be rebuilt from other data. {redo}"
            )
        for field in ("bytes", "rows"):  # the file is as saved; a size or row count that differs is an edited ledger
            if now[field] != rec.get(field) or isinstance(rec.get(field), bool):
                raise ValueError(
                    f"{ledger_path}: its manifest records {field} {rec.get(field)!r:.60} for {rel!r}, but that file, "
                    f"unchanged since (same sha256), has {field} {now[field]!r} (the ledger was edited by hand); "
                    f"restore the ledger (git checkout) or rebuild it (robeval run --replot --profile {profile} "
                    f"--only {stem[:2]})."
                )
    extra = [rel for rel in current if rel not in recorded]
    if extra:
        raise ValueError(
            f"{base / extra[0]} is not among the result files the manifest of the ledger {ledger_path} lists "
            f"({len(extra)} such file(s)): either the ledger's manifest lost its entry (an edited ledger: restore the "
            f"ledger first, git checkout -- {ledger_path}) or the file was added since (then remove it); if the file "
            f"is meant, recompute the notebook and its ledger (robeval run --profile {profile} --only "
            f"{stem[:2]})."
        )
