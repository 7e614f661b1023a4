"""The claims ledger on disk: coverage of the paper's claims index, the atomic write with the manifest of the
result files it rests on, a table for display, and reading saved ledgers back (checked against the vocabulary).
The writing half is a mixin of :class:`robeval.core.ledger.Ledger`."""

from __future__ import annotations

import re
from dataclasses import asdict

from robeval.core.io import NotRegularFileError, atomic_write_json, read_json
from robeval.core.ledger.vocab import PAPERS, Claim, check_vocabulary
from robeval.core.manifest import MANIFEST_KEY, results_manifest
from robeval.core.paths import results_dir

# a saved ledger's largest size: the largest committed one holds well under 1 MB; a larger file is no ledger
LEDGER_MAX_BYTES = 64 * 2**20


def read_ledger_json(path):
    """The JSON value of the saved ledger file ``path`` (``results/<profile>/claims/<notebook>.json``, or one of
    the folder ``robeval compare`` reads from another run). A FIFO, socket, device or folder (or a link to one),
    or a file over :data:`LEDGER_MAX_BYTES`, is refused before it is opened (reading a FIFO blocks for ever,
    ``/dev/zero`` fills the memory): :class:`robeval.core.io.NotRegularFileError` ``"ledger '<path>' is a FIFO
    ..."``, a ValueError."""
    return read_json(
        path,
        what="ledger",
        fix="a ledger is a regular <notebook>.json file: remove it from the folder, or restore it (git checkout) "
        "or rebuild it (robeval run --replot)",
        max_bytes=LEDGER_MAX_BYTES,
    )


class StoreMixin:
    """:meth:`cover`, :meth:`check_coverage`, :attr:`path`, :meth:`save` and :meth:`table` of a
    :class:`robeval.core.ledger.Ledger`."""

    def cover(self, index) -> None:
        """Record the part of the paper's claims index that this notebook covers: entries
        ``{"source", "statement", "claims": [id patterns], "reason": why none tests it}``. On :meth:`save`,
        every pattern must match a recorded claim and every recorded claim must be matched by an entry."""
        if not isinstance(index, (list, tuple)):
            raise TypeError(
                f"index must be a list of claims index entries (dicts), got {type(index).__name__} {index!r:.60}."
            )
        for e in index:
            if not isinstance(e, dict) or not {"source", "statement"} <= set(e):
                raise ValueError(f"claims index entries need 'source' and 'statement', got {e!r}.")
            if not e.get("claims") and not e.get("reason"):
                raise ValueError(f"index entry {e['source']!r} names no claims and gives no reason why none tests it.")
        why = index_error([dict(e) for e in index])
        if why is not None:  # text where a list of claim patterns or a reason belongs
            raise ValueError(f"claims index: {why}.")
        self.index = [dict(e) for e in index]

    def check_coverage(self) -> None:
        """ValueError if the index and the recorded claims do not match (see :meth:`cover`)."""
        from fnmatch import fnmatchcase

        if not self.index:
            return
        ids = [c.id for c in self.claims]
        dead = [p for e in self.index for p in e.get("claims", []) if not any(fnmatchcase(i, p) for i in ids)]
        # a reading's part is covered by its readings row
        own = [c.id for c in self.claims if not c.part_of]
        stray = [i for i in own if not any(fnmatchcase(i, p) for e in self.index for p in e.get("claims", []))]
        if dead or stray:
            raise ValueError(
                f"{self.notebook}: claims index and ledger disagree: patterns matching no claim {dead}; "
                f"claims in no index entry {stray}."
            )

    @property
    def path(self):
        import os
        from pathlib import Path

        # robeval.core.notebooks.verify rebuilds ledgers into a scratch folder
        folder = os.environ.get("ROBEVAL_LEDGER_DIR")
        return (Path(folder) if folder else results_dir(self.profile) / "claims") / f"{self.notebook}.json"

    def save(self):
        """Apply the family rules (:meth:`finalise`), check coverage and write the ledger (and its index)
        atomically; returns the path."""
        self.finalise()
        self.check_coverage()
        self.check_ambiguities()
        self.check_central()
        return atomic_write_json(
            self.path,
            {
                "paper": self.paper,
                "notebook": self.notebook,
                "profile": self.profile,
                "scaling": self.scaling,
                "mechanism": self.mechanism,
                "survives": self.survives,
                "decided_by": self.decided_by,
                "claims": [asdict(c) for c in self.claims],
                "index": self.index,
                # the result files this ledger rests on, written with it: robeval verify checks them first
                MANIFEST_KEY: results_manifest(self.profile, self.notebook),
            },
        )

    def table(self):
        """The claims as a DataFrame for display (text columns unabbreviated), after :meth:`finalise`."""
        import pandas as pd

        self.finalise()
        pd.set_option("display.max_colwidth", None)
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(Claim.__dataclass_fields__)).drop(
            columns=["profile", "notebook", "paper"]
        )


def load_claims(profile: str):
    """Every saved claim of ``profile`` as a DataFrame (empty if none)."""
    import pandas as pd

    rows = [c for ledger in load_ledgers(profile) for c in ledger["claims"]]
    return pd.DataFrame(rows, columns=list(Claim.__dataclass_fields__))


def load_ledgers(profile: str) -> list[dict]:
    """Every saved ledger of ``profile`` (dicts with paper, notebook, profile, claims, index), by notebook, each
    checked by :func:`check_saved_ledger` (a ledger of another profile in the folder is refused)."""
    folder = results_dir(profile) / "claims"
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = read_ledger_json(path)
        except NotRegularFileError:
            raise
        except ValueError as exc:  # empty or cut short: name the file, not only the parser's position
            raise ValueError(
                f"{path}: not readable JSON ({exc}); rebuild the ledger with `robeval run --replot` (or restore it "
                "from git)."
            ) from None
        out.append(check_saved_ledger(data, path, profile=profile))
    return out


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,200}")  # an id or notebook name as robeval writes them


def check_saved_ledger(d, path, *, profile: str | None = None) -> dict:
    """A saved ledger (the dict of one JSON file) checked as ``robeval compare`` and ``verify`` check it, so that a
    report counts only what they accept: ValueError naming the file and the row for a ``notebook`` that is not the
    file's name, a ``paper`` or ``profile`` of no ledger robeval writes (``profile``: the one its folder is of), a
    row of another paper, notebook or profile than its ledger, a row whose id is no plain name or is listed twice,
    an unknown verdict, evidence class, kind, unit, ``about`` or noise basis, a verdict its evidence class cannot
    carry, ``central`` that is not true or false, an estimate that is NaN or infinite, or an ``index`` that is not
    a list of entries ``{"source": text, "statement": text, "claims": [text], "reason": text}`` (a hand-edited or
    misspelled ledger is refused, never miscounted)."""
    from pathlib import Path

    fix = "the ledger is damaged. Restore it (git checkout) or rebuild it with `robeval run --replot`."
    if not isinstance(d, dict) or not isinstance(d.get("claims"), list):
        raise ValueError(f"{path}: not a claims ledger (a JSON object with a 'claims' list); rebuild it with "
                         "`robeval run --replot`.")  # fmt: skip
    why = _ledger_level_error(d, Path(path).stem, profile)
    if why is not None:
        raise ValueError(f"{path}: {why}; {fix}")
    seen = set()
    for i, row in enumerate(d["claims"]):
        why = _row_error(row, i, d, seen)
        if why is not None:
            raise ValueError(f"{path}: {why}; {fix}")
        seen.add(row["id"])
        try:
            check_vocabulary(row)
        except ValueError as e:
            raise ValueError(f"{path}: {e} Fix the row or rebuild the ledger with `robeval run --replot`.") from None
    d.setdefault("index", [])
    why = index_error(d["index"])
    if why is not None:
        raise ValueError(f"{path}: {why}; {fix}")
    return d


def _ledger_level_error(d: dict, stem: str, profile: str | None) -> str | None:
    """Why a saved ledger's own fields are not those of the ledger robeval writes as ``<stem>.json`` of
    ``profile``, or None."""
    from robeval.core.paths import PROFILES

    notebook, paper, prof = d.get("notebook"), d.get("paper"), d.get("profile")
    if not isinstance(notebook, str) or not _PLAIN_NAME.fullmatch(notebook):
        return f"its 'notebook' is {notebook!r:.60}, not a plain notebook name"
    if notebook != stem:
        return (
            f"it holds the ledger of {notebook} (its 'notebook'), not of {stem}: a ledger is saved as <notebook>.json"
        )
    if paper not in PAPERS:
        return f"its 'paper' is {paper!r:.60}, not one of {', '.join(PAPERS)}"
    if prof not in PROFILES or (profile is not None and prof != profile):
        want = repr(profile) if profile is not None else f"one of {', '.join(PROFILES)}"
        return f"its 'profile' is {prof!r:.60}, not {want} (the profile of its folder)"
    return None


def claim_id_error(row, i: int, seen) -> str | None:
    """Why the row ``i`` of a saved ledger's claims holds no id robeval writes there, or None: it is no JSON object,
    has no ``id``, one that is no plain name, or one of ``seen`` (the ids before it: listed twice, a second row would
    hide the first). The check :func:`check_saved_ledger` and ``robeval.core.publish.report.rows_by_id`` share."""
    if not isinstance(row, dict):
        return f"claim {i} is not an object"
    if "id" not in row:
        return f"claim {i} has no 'id'"
    rid = row["id"]
    if not isinstance(rid, str) or not _PLAIN_NAME.fullmatch(rid):
        return f"claim {i} has the id {rid!r:.80}, not a plain name (letters, digits, '_', '-', '.')"
    if rid in seen:
        return f"the id {rid!r} is listed twice"
    return None


def _row_error(row, i: int, d: dict, seen: set) -> str | None:
    """Why the row ``i`` of the saved ledger ``d`` is not one robeval writes there (``seen``: the ids before it)."""
    import math

    why = claim_id_error(row, i, seen)
    if why is not None:
        return why
    rid = row["id"]
    for key in ("paper", "notebook", "profile"):
        if key in row and row[key] != d.get(key):
            return f"claim {rid!r} has the {key} {row[key]!r:.60}, not its ledger's {d.get(key)!r}"
    if "central" in row and not isinstance(row["central"], bool):
        return f"claim {rid!r} has central {row['central']!r:.40}, not true or false"
    est = row.get("estimate")
    if isinstance(est, float) and not math.isfinite(est):
        return f"claim {rid!r} has the estimate {est!r}, which no saved ledger holds"
    return None


def index_error(index) -> str | None:
    """Why ``index`` is not a claims index (:meth:`StoreMixin.cover`): a list of entries ``{"source": text,
    "statement": text, "claims": [id patterns], "reason": text}``, each naming claims or giving a reason; None when
    it is one."""
    if not isinstance(index, list):
        return f"its index is {type(index).__name__} {str(index)[:60]!r}, not a list of entries"
    for i, e in enumerate(index):
        what = f"index entry {i}"
        if not isinstance(e, dict):
            return f"{what} is {type(e).__name__} {str(e)[:60]!r}, not an object"
        if not isinstance(e.get("source"), str) or not isinstance(e.get("statement"), str):
            return f"{what} has no 'source' and 'statement' (text)"
        claims, reason = e.get("claims", []), e.get("reason", "")
        if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
            return f"{what} ({e['source']!r:.60}) has 'claims' {claims!r:.60}, not a list of id patterns (text)"
        if not isinstance(reason, str):
            return f"{what} ({e['source']!r:.60}) has 'reason' {reason!r:.60}, not text"
        if not claims and not reason:
            return f"{what} ({e['source']!r:.60}) names no claims and gives no reason why none tests it"
    return None
