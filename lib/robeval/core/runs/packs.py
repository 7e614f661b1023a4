"""Moving finished grid cells between stores, machines and code versions: adopting a store across a code change
that leaves its cells unchanged (:func:`adopt`, :func:`adopt_pack`), packing finished cells into one small file for another machine (:func:`pack`, :func:`unpack`), and carrying a
pack across a code change its cells were adopted over (:func:`rebind_pack`)."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from robeval.core.env import cpu_kind
from robeval.core.io import (
    NotRegularFileError,
    atomic_write_json,
    check_output_file,
    check_output_folder,
    check_regular_file,
    read_json,
    to_json,
)
from robeval.core.runs.archive import check_tar_headers
from robeval.core.runs.identity import code_identity, config_identity
from robeval.core.runs.parallel import imap, resolve_jobs
from robeval.core.runs.status import adoption_log
from robeval.core.runs.store import (
    STORE_FILE_MAX,
    STORE_NAME,
    cell_digest_error,
    cell_name_error,
    check_store_file,
    compute_cell,
    file_digest,
    read_cell_file,
    write_store_config,
)
from robeval.core.runs.trust import cell_function, foreign_path_error, store_config
from robeval.core.validation import check_bool, check_path


# ------------------------------------------------------------------------------------ adopting a store
def _same(a: Any, b: Any) -> bool:
    """Exact equality of two JSON values, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _spread(a: Any, b: Any) -> float:
    """The largest absolute difference between the numbers of two JSON values of the same shape (0.0 for equal
    ones); inf where they differ in anything but numbers (a key, a length, a text)."""
    if type(a) in (int, float) and type(b) in (int, float):  # JSON's numbers (a bool is no number here)
        if a == b or (a != a and b != b):
            return 0.0
        return abs(float(a) - float(b)) if a == a and b == b else float("inf")
    if isinstance(a, dict) and isinstance(b, dict):
        return max((_spread(a[k], b[k]) for k in a), default=0.0) if a.keys() == b.keys() else float("inf")
    if isinstance(a, list) and isinstance(b, list):
        return max((_spread(x, y) for x, y in zip(a, b)), default=0.0) if len(a) == len(b) else float("inf")
    return 0.0 if type(a) is type(b) and a == b else float("inf")


def _recompute(fn: Callable, cell: dict, config: dict) -> Any:
    """The rows of ``cell`` recomputed, as JSON reads them back (a worker's task in :func:`adopt`)."""
    return json.loads(to_json(compute_cell(fn, cell, config)["rows"]))


def machine_kind(machine: Any) -> dict | None:
    """What decides a cell's bits, of the ``machine`` a cell file records (:func:`robeval.core.env.cpu_kind`): the
    CPU model, its vector ISA and the kernel pins; None for a record without them (a cell written before
    records)."""
    if not isinstance(machine, Mapping) or not isinstance(machine.get("cpu"), str):
        return None
    pins = machine.get("pins")
    return {"cpu": machine["cpu"], "isa": machine.get("isa"), "pins": dict(pins) if isinstance(pins, Mapping) else None}


def _check_sample(cells: list[dict], n_check: int, seed: int) -> list[int]:
    """Positions of the cells to recompute: one per value of every cell field with at most 50 distinct values
    (each noise level, model, k ...), then random ones up to ``n_check``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    chosen: set[int] = set()
    for field in sorted({k for c in cells for k in c}):
        values = {}
        for i, c in enumerate(cells):
            values.setdefault(to_json(c.get(field)), []).append(i)
        if len(values) <= 50:
            for _, idx in sorted(values.items()):
                if not chosen.intersection(idx):
                    chosen.add(int(rng.choice(idx)))
    rest = [i for i in range(len(cells)) if i not in chosen]
    extra = max(0, min(n_check - len(chosen), len(rest)))
    chosen |= {int(i) for i in rng.choice(rest, size=extra, replace=False)} if extra else set()
    return sorted(chosen)


def adopt(
    store: str | os.PathLike,
    *,
    source: str | os.PathLike | None = None,
    n_check: int = 12,
    seed: int = 0,
    progress: bool = True,
    checksums: Mapping[str, Mapping[str, str]] | None = None,
    recompute_all: bool = False,
    on_this_machine: bool = False,
    n_jobs: int = 1,
    against: str | os.PathLike | None = None,
) -> list[dict]:
    """Keep finished cells across a code change that does not change their results, after checking that.

    A grid's identity covers its cell function's code, so any edit of that code or of a ``robeval`` module it
    imports starts a fresh sub-store, even when the edit leaves every result unchanged (a new helper in the
    same module, a refactor). For every sub-store ``config-*`` of ``source`` (default: ``store`` itself)
    whose identity under this checkout's code differs, ``adopt`` recomputes a sample of its cells with this
    checkout's code — one cell per value of every field with at most 50 values (each noise level, model, k),
    then random cells up to ``n_check`` — and compares the results exactly (every row, every float). Only if
    all are identical are the finished cells hard-linked (or copied) into ``store``'s sub-store of the current
    identity, with the check recorded in its ``adopted.json``. Cells already there are kept; a rerun, e.g.
    after the old code's run added cells, adopts the new ones after a fresh check.

    The sample shows that the code change kept the results; checksums show that no cell was changed since it was
    written. A sub-store whose identity is the current one (the same config and code, e.g. a pack from an earlier
    lease of a GPU machine, whose results a recomputation would not reproduce bit for bit) is taken on the pack's
    checksums alone, with nothing recomputed (``checked`` 0). Before anything is recomputed, every cell file of the sub-store is verified: the checksum of its rows
    written with it (``rows_sha256``, :func:`rows_digest`; cells written before checksums have none) and, with
    ``checksums`` (``{sub-store: {file name: sha256 of the file}}``, from a pack's manifest: :func:`adopt_pack`),
    the file's own checksum; a file the checksums do not list fails too. ``recompute_all`` recomputes every cell
    instead of a sample (for cells without any checksum).

    A cell that trains a network is recomputed bit for bit only on the kind of machine that computed it (torch's
    training bits depend on the CPU: :func:`robeval.core.env.cpu_kind`, recorded in every cell). For a store
    whose cells come from several machine kinds, ``on_this_machine`` draws the sample (per field as above) only
    from the cells recorded with this machine's CPU model, vector ISA and kernel pins: the check then shows the
    code change keeping the results on this machine, and the cells of other machines are carried on their
    checksums, the log saying so (``checked_on``, ``carried``). A sub-store with no cell of this machine kind is
    refused, naming the kinds it has, unless ``against`` names a checkout of the code that computed it: the sample
    is then recomputed here with that code too (:func:`robeval.core.runs.baseline.baseline_rows`, which checks that
    it gives the store its identity) and the two codes' rows must agree bit for bit, showing the change neutral on
    this machine; every cell is carried on its checksum, the log naming that code (``against``) and the largest
    difference between the stored numbers and this machine's (``stored_differ_by``: another CPU's rounding, or an
    edit the checksums did not show; shown, not judged), and a stored row that differs in more than numbers
    refuses the sub-store. ``n_jobs`` recomputes the sample in that many worker processes
    (:func:`robeval.core.runs.parallel.imap`; the results do not depend on it).

    Returns one dict per sub-store: ``from``, ``to`` (directory names), ``cells`` (adopted now), ``held`` (its
    cells that ``to`` held already, left as they are), ``checked`` (cells recomputed), ``verified`` (cell files
    whose checksum matched), ``status``: "adopted" (cells adopted now), "current" (the sub-store is ``to`` itself:
    nothing to adopt), "unchanged" (``to`` held every one of its cells already, e.g. a pack adopted before) or
    "empty" (it holds no cell). Raises RuntimeError, and adopts nothing from that sub-store, when a cell fails its
    checksum (it was changed after it was written) or a recomputed cell differs (the code change changed the
    results): its cells must be recomputed.
    """
    import shutil

    from tqdm.auto import tqdm

    store = Path(store)
    source = Path(source) if source is not None else store
    if not isinstance(n_check, int) or isinstance(n_check, bool) or n_check < 1:
        raise ValueError(f"n_check must be an integer >= 1 (cells to recompute), got {n_check!r}.")
    check_bool(on_this_machine, "on_this_machine")
    check_bool(recompute_all, "recompute_all")
    check_bool(progress, "progress")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TypeError(f"seed must be a whole number >= 0 (of the sample's draw), got {seed!r:.40}.")
    if checksums is not None and not (
        isinstance(checksums, Mapping) and all(isinstance(v, Mapping) for v in checksums.values())
    ):
        raise TypeError(
            "checksums must be {sub-store: {file name: sha256}} (a pack's manifest, as adopt_pack passes it) or None, "
            f"got {type(checksums).__name__} {checksums!r:.60}."
        )
    n_jobs = resolve_jobs(n_jobs)
    if on_this_machine and recompute_all:
        raise ValueError("on_this_machine draws a sample and recompute_all recomputes every cell: pass one of them.")
    if against is not None:
        from robeval.core.runs.baseline import baseline_rows, checkout_lib

        if not on_this_machine:
            raise ValueError(
                "against compares two codes on this machine for stores no machine of this kind computed: pass it "
                "with on_this_machine (--on-this-machine)."
            )
        against = checkout_lib(against)
    subs = sorted(p for p in source.glob("config-*") if (p / "config.json").is_file()) if source.is_dir() else []
    if not subs:
        raise ValueError(f"{source} holds no grid sub-store (config-*/config.json); pass the grid's store folder.")
    foreign = checksums is not None or source.resolve() != store.resolve()
    report = []
    for sub in subs:
        if checksums is not None:  # a pack's config.json is verified before anything of it is read
            listed = checksums.get(sub.name) or {}
            if listed.get("config.json") != file_digest(sub / "config.json"):
                why = "lists no checksum for it" if "config.json" not in listed else "recorded other bytes for it"
                raise RuntimeError(
                    f"{sub.name}/config.json fails its checksum (the pack's manifest {why}), so nothing of this "
                    "sub-store is adopted. Take the pack as it was written (e.g. `git checkout -- PACK`) or rerun the "
                    "grid to recompute its cells."
                )
        meta = store_config(sub / "config.json")
        try:
            fn = cell_function(meta["fn"])
        except ValueError as exc:
            raise ValueError(f"{sub.parent.name}/{sub.name}: {exc}") from None
        config = meta["config"]
        target = store / f"config-{config_identity(config, fn)}"
        files = sorted(p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json"))
        todo = [p for p in files if not (target / p.name).is_file()]
        held = len(files) - len(todo)
        if not todo:  # the sub-store is the current one itself, or every cell of it is there already
            status = "current" if target.resolve() == sub.resolve() else "unchanged" if files else "empty"
            report.append(
                {
                    "from": sub.name,
                    "to": target.name,
                    "cells": 0,
                    "held": held,
                    "checked": 0,
                    "verified": 0,
                    "status": status,
                }
            )
            continue
        for p in [*files, *([sub / "adopted.json"] if (sub / "adopted.json").exists() else [])]:
            check_store_file(p)  # a link or a FIFO is never opened
        payloads, broken, verified = [], {}, 0
        for p in files:
            try:
                payloads.append(read_json(p))
            except ValueError:
                payloads.append(None)
                broken.setdefault(p.name, f"{p.name}: not valid JSON")
                continue
            if not isinstance(payloads[-1], dict):
                broken.setdefault(p.name, f"{p.name}: not a grid cell file (a JSON object with 'cell' and 'rows')")
                continue
            err = cell_digest_error(p, payloads[-1])
            if err is not None:
                broken.setdefault(p.name, err)
            verified += payloads[-1].get("rows_sha256") is not None if isinstance(payloads[-1], Mapping) else 0
        if checksums is not None:
            listed = checksums.get(sub.name) or {}
            for p in [
                sub / "config.json",
                *([sub / "adopted.json"] if (sub / "adopted.json").is_file() else []),
                *files,
            ]:
                if p.name not in listed:
                    broken.setdefault(p.name, f"{p.name}: the pack's manifest lists no checksum for it")
                elif file_digest(p) != listed[p.name]:
                    broken.setdefault(
                        p.name, f"{p.name}: its bytes differ from the checksum the pack recorded when it was written"
                    )
            verified = len(files)
        if broken:
            raise RuntimeError(
                f"{len(broken)} file(s) of {sub.name} fail their checksum (e.g. {next(iter(broken.values()))}): they were changed "
                "after they were written, so nothing of this sub-store is adopted. Take the cells from an intact copy "
                "(the pack as it was written, e.g. `git checkout -- PACK`) or rerun the grid to recompute them."
            )
        bad_cells = [err for p, pl in zip(files, payloads) if (err := cell_name_error(p, pl)) is not None]
        if bad_cells:  # a renamed or swapped cell file: its rows would be read as its name's cell's
            raise RuntimeError(
                f"{sub.parent.name}/{sub.name}/{bad_cells[0]}: a cell file was renamed or swapped, so nothing of this "
                "sub-store is adopted. Take the cells from an intact copy (the pack as it was written) or rerun the "
                "grid to recompute them."
            )
        if foreign:
            why = foreign_path_error(config, [pl["cell"] for pl in payloads], store)
            if why is not None:
                raise RuntimeError(
                    f"{sub.parent.name}/{sub.name} comes from elsewhere and {why}: a store robeval wrote names only "
                    "its data cache and its profile's results (<cache>/..., <root>/results/<profile>/...), so this one "
                    "was altered, or is adopted into another profile, and nothing of it is computed or adopted. Take "
                    "the pack as it was written, adopt it into its own profile, or rerun the grid here."
                )
        # a pack's sub-store of the current identity (same config, same code) whose every file matches the pack's
        # checksums needs no recomputation: nothing changed that could change a result. This is also the only way
        # to carry cells between leases of a GPU, whose training is not bit-reproducible by a recomputation
        same_code = sub.name == target.name and checksums is not None
        here, mine = None, list(range(len(files)))
        if on_this_machine and not same_code:
            here = machine_kind(cpu_kind())
            mine = [i for i, pl in enumerate(payloads) if machine_kind(pl.get("machine")) == here]
            if not mine and against is None:
                kinds = sorted({json.dumps(machine_kind(pl.get("machine")), sort_keys=True) for pl in payloads})
                raise RuntimeError(
                    f"{sub.parent.name}/{sub.name}: none of its {len(files)} cells was computed on this kind of machine "
                    f"({json.dumps(here, sort_keys=True)}); its cells come from {', '.join(kinds)}. Adopt it on one "
                    "of those machines, without on_this_machine (--on-this-machine), or against a checkout of the "
                    "code that computed it (--against CHECKOUT: both codes recomputed here)."
                )
        witness = here is not None and not mine
        if witness:  # no cell of this kind: the sample from all, compared with the other code's rows here
            mine = list(range(len(files)))
        if recompute_all:
            picks = list(range(len(files)))
        elif same_code:
            picks = []
        else:
            picks = sorted(mine[j] for j in _check_sample([payloads[i]["cell"] for i in mine], n_check, seed))
        bad = []
        want = [payloads[i]["rows"] for i in picks]
        if witness:
            cells = [payloads[i]["cell"] for i in picks]
            want = baseline_rows(against, meta["fn"], config, cells, sub=sub.name, n_jobs=n_jobs)
        jobs = [(fn, payloads[i]["cell"], config) for i in picks]
        results = imap(_recompute, jobs, n_jobs=n_jobs)
        for i, expected in tqdm(zip(picks, want), total=len(picks), desc=f"check {sub.name}", disable=not progress):
            try:
                new = next(results)
            except FileNotFoundError as exc:  # a file the config names (a cache the notebook's preparation writes)
                raise RuntimeError(
                    f"recomputing {files[i].name} of {sub.parent.name}/{sub.name} needs {exc.filename or exc}, which "
                    "is not on this machine, so nothing of this sub-store is adopted: the store's config names files "
                    "its notebook's preparation writes into the data cache (corrupted test sets, features), which a "
                    "fresh checkout has none of. Make them here (the notebook's cells before its grid, at this "
                    "profile and this code), then adopt again."
                ) from exc
            except Exception as exc:  # a store whose config or cells its cell function cannot take
                raise RuntimeError(
                    f"recomputing {files[i].name} of {sub.parent.name}/{sub.name} failed ({type(exc).__name__}: "
                    f"{exc}), so nothing of this sub-store is adopted: its config or cells are not what this "
                    "checkout's cell function takes (a damaged or forged store, or one of other code); rerun the grid."
                ) from exc
            if not _same(new, expected):
                bad.append(files[i].name)
        spread = max((_spread(payloads[i]["rows"], w) for i, w in zip(picks, want)), default=0.0) if witness else 0.0
        if witness and spread == float("inf") and not bad:  # another machine's rounding moves numbers, nothing else
            raise RuntimeError(
                f"stored cells of {sub} differ from the rows both codes compute here in more than their numbers (a key, "
                "a length, a text): no machine kind explains that, so nothing is adopted; rerun the grid to recompute "
                "them."
            )
        if bad and witness:
            raise RuntimeError(
                f"{len(bad)} of {len(picks)} cells of {sub} recomputed here differ between this checkout's code and "
                f"the code of {against} (e.g. {bad[0]}): the code change changes the results on this machine, so its "
                "cells cannot be adopted; rerun the grid to recompute them."
            )
        if bad:
            raise RuntimeError(
                f"{len(bad)} of {len(picks)} recomputed cells of {sub} differ under this checkout's code "
                f"(e.g. {bad[0]}): the code change changed the results, so its cells cannot be adopted; "
                "rerun the grid to recompute them."
            )
        target.mkdir(parents=True, exist_ok=True)
        write_store_config(target, fn, config)
        for p in todo:
            try:
                os.link(p, target / p.name)
            except FileExistsError:
                pass
            except OSError:  # another filesystem, or no hard links
                fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".adopt.tmp", dir=target)
                os.close(fd)
                try:
                    shutil.copy2(p, name)
                    os.replace(name, target / p.name)
                finally:
                    Path(name).unlink(missing_ok=True)
        log_path = target / "adopted.json"
        log = adoption_log(log_path)
        log.append(
            {
                "from": str(sub),
                "from_code": meta.get("code"),
                "to_code": code_identity(fn),
                "cells": len(todo),
                "checked": [files[i].name for i in picks],
                "verified": verified,
                "identical": True,
                "same_code": same_code,
                **({"checked_on": here, "carried": len(files) - len(mine)} if here is not None and not witness else {}),
                **(
                    {"checked_on": here, "carried": len(files), "against": str(against), "stored_differ_by": spread}
                    if witness
                    else {}
                ),
                "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            }
        )
        atomic_write_json(log_path, log)
        report.append(
            {
                "from": sub.name,
                "to": target.name,
                "cells": len(todo),
                "held": held,
                "checked": len(picks),
                "verified": verified,
                "status": "adopted",
                **({"against": str(against), "stored_differ_by": spread} if witness else {}),
            }
        )
    return report


# Packs committed before packs carried checksums (format "robeval grid pack 1" without per-file sha256): the sha256
# of the whole pack file as committed. Such a pack is adopted as it was (a sample recomputed) only while it is
# byte-identical to the committed file: the whole-file digest covers every cell of it. Any other pack without
# checksums needs recompute_all (every cell recomputed).
LEGACY_PACKS = {
    "46f22dd86ce8d08a086140f5b6f6ba385a8f1f408bd85773e293ffccf90e0e40": (
        "results/paper/checkpoints/mscr_2d_paper_grids.tar.xz, notebook 01's paper grids (2026-11-26)"
    ),
}


def adopt_pack(
    archive: str | os.PathLike,
    stores: Mapping[str, str | os.PathLike] | Callable[[str], str | os.PathLike],
    *,
    n_check: int = 12,
    seed: int = 0,
    progress: bool = True,
    recompute_all: bool = False,
) -> dict[str, list[dict]]:
    """:func:`adopt` the stores ``stores`` (``{store name in the pack: store folder here}``) from the pack ``archive``;
    a function ``name -> store folder`` instead adopts every store the pack holds (e.g. ``lambda n:
    grid_store("gpu", n)``, a lease's whole pack).

    Packs are verified, not sampled: a pack written by :func:`pack` records the sha256 of every file in its
    manifest, and every cell carries the checksum of its rows written with it; :func:`adopt` refuses a sub-store
    with any file that fails either (and recomputes its sample as before). A pack without checksums (written
    before them) is adopted only when it is one of :data:`LEGACY_PACKS`, byte for byte, or with ``recompute_all``
    (every cell recomputed). Returns ``{name: adopt's report}``; raises RuntimeError prefixed with the store name
    (earlier stores stay adopted), ValueError for a pack that is not one or lacks a store.
    """

    archive = Path(archive)
    if not callable(stores) and not isinstance(stores, Mapping):
        raise TypeError(
            "stores must be a mapping {store name in the pack: store folder here} or a function name -> store folder, "
            f"got {type(stores).__name__} {stores!r:.60}."
        )
    with tempfile.TemporaryDirectory(prefix="robeval-pack-") as tmp:
        manifest = unpack(archive, tmp)
        if callable(stores):
            stores = {name: stores(name) for name in manifest["stores"]}
        for name, folder in stores.items():  # a function returning None: named, not os.fspath's words
            folder = check_path(folder, f"the store folder for {name!r} (from stores)")
            if folder.exists() and not folder.is_dir():
                raise ValueError(f"the store folder for {name!r} (from stores) {folder} is a file, not a folder.")
        missing = [n for n in stores if n not in manifest["stores"]]
        if missing:
            raise ValueError(
                f"the pack {archive} holds no store {', '.join(missing)}; it holds {', '.join(manifest['stores'])}."
            )
        for name in stores:  # every store checked before any is adopted; a temporary folder is never named
            subs = manifest["stores"][name]
            lacking = [sub for sub in subs if not (Path(tmp) / name / sub / "config.json").is_file()]
            if not subs or lacking:
                what = (
                    f"its sub-store {name}/{lacking[0]} has no config.json" if lacking else f"its store {name} is empty"
                )
                raise ValueError(
                    f"the pack {archive}: {what} (a pack written by `robeval grids --pack` holds config-*/config.json "
                    "for each sub-store), so it is damaged or was not written by robeval; nothing of it was adopted. "
                    "Take the pack as it was written (e.g. `git checkout -- PACK`) or pack the stores again (`robeval "
                    "grids --pack`)."
                )
        subs = [m for name in stores for m in manifest["stores"][name].values()]
        with_sums = all(isinstance(m.get("sha256"), dict) for m in subs)
        if not with_sums and not recompute_all and file_digest(archive) not in LEGACY_PACKS:
            raise ValueError(
                f"the pack {archive} records no checksums (written before packs had them) and is not a known "
                "committed pack, so a changed cell could not be told; adopt it with --recompute-all (every cell "
                "recomputed and compared), or repack the stores with this code (`robeval grids --pack`)."
            )
        out = {}
        for name, store in stores.items():
            sums = {sub: m["sha256"] for sub, m in manifest["stores"][name].items()} if with_sums else None
            try:
                out[name] = adopt(
                    store,
                    source=Path(tmp) / name,
                    n_check=n_check,
                    seed=seed,
                    progress=progress,
                    checksums=sums,
                    recompute_all=recompute_all,
                )
            except RuntimeError as exc:
                raise RuntimeError(f"{name}: {exc}") from None
            except ValueError as exc:  # a pack naming a cell function this checkout does not hold, unimported
                raise ValueError(f"the pack {archive}: {exc}") from None
    return out


def rebind_pack(
    archive: str | os.PathLike,
    stores: Mapping[str, str | os.PathLike] | Callable[[str], str | os.PathLike],
    out: str | os.PathLike | None = None,
) -> dict[str, dict[str, str]]:
    """Write a pack again with each sub-store computed under older code moved to the identity this checkout's code
    gives it, where :func:`adopt` has already checked that code change on these very cells. Nothing is recomputed.

    A pack names its sub-stores by the identity of the code that computed them, and the drivers adopt only packs
    whose identities hold here (:func:`adopt` would otherwise recompute a sample on every fresh machine). When the
    code a packed cell reaches changes without changing its results (an input check, a clearer message), ``robeval
    adopt`` recomputes a sample of the store's cells with the new code and, all identical, links them into the
    sub-store of the new identity with the check recorded in its ``adopted.json``. ``rebind_pack`` then carries
    that check into the pack: a sub-store of the pack whose identity no longer holds is accepted only if the
    adopted sub-store (``stores``: ``{store name: store folder here}`` or a function of the name, e.g. ``lambda n:
    grid_store("long", n)``) holds every one of its cell files with the same bytes and its ``adopted.json`` records
    an identical check to this code (from the pack's code, or from another code the same cell files were kept under:
    the check certifies the files, which are the pack's byte for byte). The sub-store is renamed, its ``config.json`` and
    ``adopted.json`` taken from the adopted store; its cell files (rows, seconds, machine) are kept byte for byte,
    so the pack measures what it measured. Sub-stores whose identity holds are kept as they are, and a pack all of
    whose sub-stores hold is not written again (its bytes, and its manifest's date, stay).

    Every file of the pack is verified against the pack's checksums first. ``out`` defaults to ``archive``
    (replaced atomically). Returns ``{store: {sub-store in the pack: sub-store written}}``; raises ValueError
    naming the sub-store and the fix when no recorded check covers it, and writes nothing then.
    """
    import shutil

    archive = Path(archive)
    if not callable(stores) and not isinstance(stores, Mapping):
        raise TypeError(f"stores must be a mapping {{store name: store folder}} or a function, got {stores!r:.60}.")
    out = Path(out) if out is not None else archive
    with tempfile.TemporaryDirectory(prefix="robeval-rebind-") as tmp:
        manifest = unpack(archive, tmp)
        moves: dict[str, dict[str, str]] = {}
        for name, subs in manifest["stores"].items():
            moves[name] = {}
            for sub, listed in subs.items():
                folder = Path(tmp) / name / sub
                sums = listed.get("sha256") if isinstance(listed, dict) else None
                sums = sums if isinstance(sums, dict) else {}
                bad = [p.name for p in sorted(folder.glob("*.json")) if sums.get(p.name) != file_digest(p)]
                if bad:
                    raise ValueError(
                        f"{archive}: {name}/{sub}/{bad[0]} fails the pack's checksum; rebind only a pack as it was "
                        "written (e.g. `git checkout -- PACK`)."
                    )
                meta = store_config(folder / "config.json")
                fn = cell_function(meta["fn"])
                current = f"config-{config_identity(meta['config'], fn)}"
                moves[name][sub] = current
                if current == sub:
                    continue
                if not callable(stores) and name not in stores:
                    raise ValueError(
                        f"{archive}: {name}/{sub} was computed under other code and no adopted store folder is given for "
                        f"{name}; pass stores={{{name!r}: its folder}} (or a function of the name)."
                    )
                target = Path(stores(name) if callable(stores) else stores[name]) / current
                log = adoption_log(target / "adopted.json")
                checks = [
                    e
                    for e in log
                    if isinstance(e, dict) and e.get("to_code") == code_identity(fn) and e.get("identical") is True
                ]
                cells = [p for p in sorted(folder.glob("*.json")) if p.name not in ("config.json", "adopted.json")]
                missing = [p.name for p in cells if not (target / p.name).is_file()]
                differ = [
                    p.name for p in cells if p.name not in missing and file_digest(target / p.name) != sums[p.name]
                ]
                if not checks or missing or differ or (Path(tmp) / name / current).exists():
                    why = (
                        f"no check to code {code_identity(fn)} is recorded in {target}/adopted.json"
                        if not checks
                        else f"{(missing or differ or [current])[0]} is not the same file in {target}"
                    )
                    raise ValueError(
                        f"{archive}: {name}/{sub} was computed under other code and {why}. Adopt the store first "
                        f"(`robeval adopt --profile PROFILE {name}`, which recomputes a sample of its cells with this "
                        "code), then rebind; nothing was written."
                    )
                folder.rename(Path(tmp) / name / current)
                for f in ("config.json", "adopted.json"):
                    shutil.copy2(target / f, Path(tmp) / name / current / f)
        holds = all(old == new for subs in moves.values() for old, new in subs.items())
        if not (holds and out.resolve() == archive.resolve()):  # a pack that holds is left byte for byte
            pack([Path(tmp) / name for name in manifest["stores"]], out, overwrite=True)
    return moves


# ------------------------------------------------------------------------------------ packing stores
def _new_file_mode() -> int:
    """The permission bits a new file of this process gets (0666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


PACK_FORMAT = "robeval grid pack 1"
PACK_MEMBER_MAX = STORE_FILE_MAX  # bytes of one file of a grid pack (a cell file is kilobytes; the largest ~150 KB)
PACK_TOTAL_MAX = 2**30  # bytes of all of a pack's files (notebook 01's paper grids, 35,700 cells: ~190 MB)
_PACK_SUB = re.compile(r"config-[0-9a-f]+")
_PACK_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9=._-]*\.json")


def _is_pack(path: Path) -> bool:
    """Whether ``path`` is a grid pack (an xz tar whose first member is a MANIFEST.json of :data:`PACK_FORMAT`):
    the only file :func:`pack` replaces."""
    import lzma
    import tarfile

    try:
        check_tar_headers(path, f"pack {path}")
        with tarfile.open(path, "r:xz") as tf:
            first = tf.next()
            if first is None or first.name != "MANIFEST.json" or not first.isfile() or first.size > PACK_MEMBER_MAX:
                return False
            manifest = json.loads(tf.extractfile(first).read())
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, ValueError, UnicodeDecodeError, RecursionError):
        return False  # unreadable (or nested past Python's limit): not a pack
    return isinstance(manifest, dict) and manifest.get("format") == PACK_FORMAT


def _pack_member_ok(name: str) -> bool:
    """Whether ``name`` is a member a pack may hold: ``MANIFEST.json`` or ``<store>/config-<id>/<file>.json``, with
    a store name :func:`grid_store` accepts (never ``.`` or ``..``): checked by this code, whatever the Python
    version's tarfile does."""
    if name == "MANIFEST.json":
        return True
    parts = name.split("/")
    return (
        len(parts) == 3
        and bool(STORE_NAME.fullmatch(parts[0]))
        and bool(_PACK_SUB.fullmatch(parts[1]))
        and bool(_PACK_FILE.fullmatch(parts[2]))
    )


def is_current_substore(sub: str | os.PathLike) -> bool:
    """Whether the sub-store ``sub`` (a ``config-*`` folder of a grid store) is the one this checkout's code writes
    for its config: ``config-<config_identity(config, fn)>`` with ``fn`` its cell function as this checkout has it.
    False for one an earlier code computed (which :func:`adopt` leaves beside the new one after a code change).
    ValueError for a folder without a readable store config or naming no registered cell function."""
    sub = check_path(sub, "sub")
    if not os.path.lexists(sub / "config.json"):
        raise ValueError(f"{sub} is not a grid sub-store (it has no config.json); pass a config-* folder of a store.")
    meta = store_config(sub / "config.json")
    try:
        fn = cell_function(meta["fn"])
    except ValueError as exc:
        raise ValueError(f"{sub.parent.name}/{sub.name}: {exc}") from None
    return sub.name == f"config-{config_identity(meta['config'], fn)}"


def pack(
    stores: Iterable[str | os.PathLike],
    out: str | os.PathLike,
    *,
    overwrite: bool = False,
    current_only: bool = False,
) -> dict:
    """Write the finished cells of grid stores into one xz-compressed tar file (atomically).

    A grid store lives in an ignored folder of the checkout, so it is lost with the machine it was computed on.
    A pack is the store's finished cells as one small file (about 75 bytes a cell for notebook 01's grids) that
    can travel and be kept, e.g. committed as a checkpoint of a computation that spans several machines or
    working sessions. Nothing reads a pack by itself: ``robeval adopt --from PACK`` checks every file against
    its checksum, recomputes a sample of its cells with the current code and takes them only if every checksum
    matches and every recomputed number is identical (:func:`adopt`).

    Lock files and half-written temporary files are left out.

    Parameters
    ----------
    stores : iterable of path
        Grid store folders (:func:`grid_store`), each holding ``config-*`` sub-stores; the folder's name is the
        store's name in the pack.
    out : path
        The pack's path, ending in ``.tar.xz``: a new file, or with ``overwrite`` an earlier grid pack (a file that
        is not a pack is never replaced).
    overwrite : bool
        Replace a grid pack already at ``out`` (default: refuse, so a committed pack is not replaced by mistake).
    current_only : bool
        Pack only the sub-stores of this checkout's code identity (their folder is
        ``config-<config_identity(config, fn)>`` under the current code), leaving out those an earlier code computed,
        e.g. the ones :func:`adopt` has taken into a new sub-store after a code change, so that a chunk's pack holds
        each cell once. The manifest names the sub-stores left out under ``left_out`` (``{store: [sub-store]}``); a
        store with none of the current identity is left out whole, and if no store has one nothing is written.

    Returns
    -------
    dict
        The manifest written into the pack as ``MANIFEST.json``: ``format``, ``created`` (ISO 8601 UTC), and per
        store name, per sub-store, ``fn``, ``code`` (identity of the code that computed it), ``cells`` and
        ``sha256`` (``{file name: sha256 of the file}`` for every file packed, which :func:`adopt_pack`
        verifies). A cell whose rows no longer match the checksum written with them is refused (ValueError), so a
        pack never certifies a changed cell.
    """
    import io as _io
    import tarfile

    out = Path(out)
    if not out.name.endswith(".tar.xz"):
        raise ValueError(f"the pack's name must end in .tar.xz, got {out.name!r}.")
    # a file where its folder should be, a read-only folder: said first; the folder is created only to write
    check_output_file(out, "the pack", create=False)
    check_bool(overwrite, "overwrite")
    check_bool(current_only, "current_only")
    if out.exists():  # a FIFO or a device there would block _is_pack for ever, or never end
        try:
            check_regular_file(out, "", "it is left as it is. Name a new file (or delete that one first)")
        except NotRegularFileError as exc:
            raise ValueError(
                f"{out} exists and is not a grid pack: it {str(exc).removeprefix(str(out)).strip()}"
            ) from None
    if out.exists() and not _is_pack(out):
        raise ValueError(
            f"{out} exists and is not a grid pack; it is left as it is. Name a new file (or delete that one first)."
        )
    if out.exists() and not overwrite:
        raise ValueError(
            f"{out} is already a grid pack; it is left as it is. Name a new file, or replace it on purpose "
            "(`robeval grids --pack FILE --overwrite`, or overwrite=True)."
        )
    if isinstance(stores, (str, bytes, os.PathLike)):
        raise TypeError(
            f"stores must be a list of grid store folders, got the single path {stores!r}; pass [{stores!r}]."
        )
    stores = [Path(s) for s in stores]
    if not stores:
        raise ValueError("no grid store to pack; name at least one store folder.")
    names = [s.name for s in stores]
    if len(set(names)) != len(names):
        raise ValueError(f"two stores share a name ({names}); a pack holds each store name once.")
    manifest: dict[str, Any] = {
        "format": PACK_FORMAT,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "stores": {},
    }
    members: list[tuple[str, Path]] = []
    for store in stores:
        subs = sorted(p for p in store.glob("config-*") if (p / "config.json").is_file()) if store.is_dir() else []
        if not subs:
            raise ValueError(f"{store} holds no grid sub-store (config-*/config.json); pass a grid's store folder.")
        if current_only:
            old = [p for p in subs if not is_current_substore(p)]
            if old:
                manifest.setdefault("left_out", {})[store.name] = [p.name for p in old]
            subs = [p for p in subs if p not in old]
            if not subs:
                continue
        manifest["stores"][store.name] = {}
        for sub in subs:
            meta = store_config(sub / "config.json")  # each file checked before it is opened, named if damaged
            cells = sorted(p for p in sub.glob("*.json") if p.name not in ("config.json", "adopted.json"))
            for p in cells:  # a link, a FIFO, bad JSON, rows changed since written, a renamed cell: refused
                read_cell_file(p)
            if os.path.lexists(sub / "adopted.json"):
                check_store_file(sub / "adopted.json")
            extra = [sub / n for n in ("config.json", "adopted.json") if (sub / n).is_file()]
            manifest["stores"][store.name][sub.name] = {
                "fn": meta.get("fn"),
                "code": meta.get("code"),
                "cells": len(cells),
                "sha256": {p.name: file_digest(p) for p in extra + cells},
            }
            members += [(f"{store.name}/{sub.name}/{p.name}", p) for p in extra + cells]
    if not manifest["stores"]:
        raise ValueError(
            f"none of the stores {names} holds a sub-store of this checkout's code identity (current_only): nothing "
            "was packed. Run the grids with this checkout (or adopt their cells into it) and pack again."
        )
    for arcname, path in members:  # a pack holds only what unpack takes back: checked names, regular files
        if not _pack_member_ok(arcname) or path.is_symlink() or not path.is_file():
            why = "a link or not a regular file" if _pack_member_ok(arcname) else "not a name a grid pack may hold"
            raise ValueError(
                f"{path} is {why} (a store is named like robeval's grid stores, letters, digits, '_', '-' and '.', "
                "and holds config-*/ folders of regular .json files); nothing was packed."
            )
    # a temporary name of its own (two packs written to one file at once must not share one), in the pack's folder
    check_output_folder(out.parent, f"the pack {out}: its folder")
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        os.chmod(tmp, _new_file_mode())  # mkstemp creates 0600; a pack gets the user's usual permissions
        with tarfile.open(tmp, "w:xz", preset=9) as tf:
            blob = to_json(manifest).encode()
            info = tarfile.TarInfo("MANIFEST.json")
            info.size, info.mtime = len(blob), int(time.time())
            tf.addfile(info, _io.BytesIO(blob))
            for arcname, path in members:
                tf.add(path, arcname=arcname, recursive=False)
        os.replace(tmp, out)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if not isinstance(exc, OSError):
            raise
        raise ValueError(
            f"the pack {out} could not be written ({exc.strerror or exc}); pass a path in a folder you can write, "
            "with room for it."
        ) from None
    return manifest


def unpack(archive: str | os.PathLike, dest: str | os.PathLike) -> dict:
    """Extract a pack written by :func:`pack` into the folder ``dest`` (one folder per store) and return its
    manifest. Every member is checked first by this code (:func:`_pack_member_ok`), whatever the Python version:
    only ``MANIFEST.json`` and ``<store>/config-<id>/<file>.json`` regular files, each once, are accepted (ValueError
    naming anything else, and nothing is extracted), each header checked before any data is read: a file over
    :data:`PACK_MEMBER_MAX` bytes, files over :data:`PACK_TOTAL_MAX` in all, or (in a pack with checksums) a file its
    manifest does not list are refused the same way. The members are then written by this code too, each to the path
    its checked name gives below ``dest`` through a temporary file of its own and ``os.replace`` (two unpacks into one
    folder at once each write whole files); tarfile's extraction (and its filters, which Python 3.10 may lack) is not
    used. Checksums are verified by :func:`adopt_pack`."""
    import tarfile

    archive = Path(archive)
    if not archive.exists():
        raise ValueError(f"{archive}: no such pack; make one with `robeval grids --pack FILE.tar.xz`.")
    check_regular_file(archive, "pack", "make one with `robeval grids --pack FILE.tar.xz`")
    dest = check_output_folder(check_path(dest, "dest"), "dest", create=False)  # a file named as dest: said first
    import lzma
    import zlib

    broken = (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error)
    check_tar_headers(archive, f"{archive}")  # an extension header tarfile would read whole: refused unread
    try:
        tf = tarfile.open(archive, "r:xz")
    except broken as exc:
        raise ValueError(
            f"{archive} is not a grid pack (an xz-compressed tar from `robeval grids --pack`): {exc or type(exc).__name__}"
        ) from None
    with tf:
        # every member is read (and so the whole archive decompressed) before anything is written: a pack cut
        # short (a partial copy) or corrupted is refused here, with nothing extracted
        try:
            members, seen, total = [], set(), 0
            while (m := tf.next()) is not None:  # each header checked as it comes, before its data is read
                if not m.isfile() or not _pack_member_ok(m.name) or m.name in seen:
                    why = "twice" if m.name in seen else "which is not part of a grid pack"
                    raise ValueError(f"{archive} holds {m.name!r}, {why}; refusing to extract anything.")
                if not (isinstance(m.mtime, (int, float)) and 0 <= m.mtime < 2**33):  # NaN, 1e400, negative
                    raise ValueError(
                        f"{archive} holds {m.name!r} with the modification time {m.mtime!r}, which no file written by "
                        "`robeval grids --pack` has; refusing to extract anything."
                    )
                total += m.size
                if m.size > PACK_MEMBER_MAX or total > PACK_TOTAL_MAX:
                    raise ValueError(
                        f"{archive} holds {m.name!r} of {m.size:,} bytes ({total:,} so far); a grid pack's files are "
                        f"at most {PACK_MEMBER_MAX:,} bytes each and {PACK_TOTAL_MAX:,} in all. Refusing to extract "
                        "anything: this is not a pack of grid cells."
                    )
                seen.add(m.name)
                members.append(m)
            if "MANIFEST.json" not in seen:
                raise ValueError(f"{archive} has no MANIFEST.json; it was not written by `robeval grids --pack`.")
            raw = tf.extractfile(next(m for m in members if m.name == "MANIFEST.json")).read()
            try:
                manifest = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # RecursionError: nested too deep
                raise ValueError(
                    f"{archive}: its MANIFEST.json is not valid JSON ({exc}); the pack was not written by `robeval "
                    "grids --pack` or was altered. Repack the stores with `robeval grids --pack`."
                ) from None
            if not isinstance(manifest, dict) or manifest.get("format") != PACK_FORMAT:
                found = manifest.get("format") if isinstance(manifest, dict) else None
                raise ValueError(f"{archive}: unknown pack format {found!r} (this code reads {PACK_FORMAT!r}).")
            stores = manifest.get("stores")
            if not isinstance(stores, dict) or not all(
                isinstance(subs, dict) and all(isinstance(m, dict) for m in subs.values()) for subs in stores.values()
            ):
                raise ValueError(
                    f"{archive}: its MANIFEST.json lists no stores; it was not written by `robeval grids --pack`."
                )
            # the manifest names only stores and sub-stores a pack may hold (never a path: its names are joined to
            # folders by adopt and rebind_pack), and lists every file of a sub-store it gives checksums for
            odd = [
                f"{st}/{sub}"
                for st, subs in stores.items()
                for sub in subs
                if not (isinstance(st, str) and STORE_NAME.fullmatch(st) and _PACK_SUB.fullmatch(sub))
            ]
            if odd:
                raise ValueError(
                    f"{archive}: its MANIFEST.json names {odd[0]!r}, which is not a grid store and sub-store name; "
                    "refusing to extract anything. Take the pack as it was written (e.g. `git checkout -- PACK`)."
                )
            for name in sorted(seen - {"MANIFEST.json"}):
                st, sub, f = name.split("/")
                meta = stores.get(st, {}).get(sub)
                sums = meta.get("sha256") if meta is not None else None
                if meta is None or (isinstance(sums, dict) and f not in sums):
                    raise ValueError(
                        f"{archive} holds {name!r}, which its MANIFEST.json does not list; refusing to extract "
                        "anything. Take the pack as it was written (e.g. `git checkout -- PACK`)."
                    )
            data = {m.name: tf.extractfile(m).read() for m in members if m.name != "MANIFEST.json"}
            while tf.fileobj.read(1 << 20):  # to the end of the xz stream: a cut-off index or footer fails here
                pass
        except broken as exc:
            raise ValueError(
                f"{archive} is truncated or corrupted ({type(exc).__name__}: {exc or 'unexpected end of data'}); "
                "nothing was extracted. Copy the pack again in full (compare its size or sha256 with the original)."
            ) from None
        folders = [m.name for m in members if m.name != "MANIFEST.json" and dest.joinpath(*m.name.split("/")).is_dir()]
        if folders:  # checked before anything is written
            raise ValueError(
                f"dest {dest} holds a folder where the pack's file {folders[0]} goes; nothing was extracted. Unpack "
                "into a new folder."
            )
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        for m in members:
            if m.name == "MANIFEST.json":
                continue
            target = dest.joinpath(*m.name.split("/"))
            if root not in target.resolve().parents:  # cannot happen for a checked name; kept as a last guard
                raise ValueError(f"{archive}: member {m.name!r} would be written outside {dest}; refusing.")
            target.parent.mkdir(parents=True, exist_ok=True)
            # a temporary name of its own (two unpacks into one folder at once must not share one), beside the target
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".unpack.tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data[m.name])
                os.chmod(name, _new_file_mode())  # mkstemp creates 0600; a cell file gets the user's usual permissions
                os.utime(name, (m.mtime, m.mtime))
                os.replace(name, target)
            finally:
                Path(name).unlink(missing_ok=True)
    return manifest
