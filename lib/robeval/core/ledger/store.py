"""The claims ledger on disk: coverage of the paper's claims index, the atomic write with the manifest of the
result files it rests on, a table for display, and reading saved ledgers back (checked against the vocabulary).
The writing half is a mixin of :class:`robeval.core.ledger.Ledger`."""

from __future__ import annotations

from dataclasses import asdict

from robeval.core.io import NotRegularFileError, atomic_write_json, read_json
from robeval.core.ledger.vocab import Claim, check_vocabulary
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
        for e in index:
            if not isinstance(e, dict) or not {"source", "statement"} <= set(e):
                raise ValueError(f"claims index entries need 'source' and 'statement', got {e!r}.")
            if not e.get("claims") and not e.get("reason"):
                raise ValueError(f"index entry {e['source']!r} names no claims and gives no reason why none tests it.")
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
    """Every saved ledger of ``profile`` (dicts with paper, notebook, profile, claims, index), by notebook."""
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
        out.append(check_saved_ledger(data, path))
    return out


def check_saved_ledger(d, path) -> dict:
    """A saved ledger (the dict of one JSON file) checked against the ledger's vocabulary: ValueError naming the
    file and the row for an unknown verdict, evidence class, kind, unit, ``about`` or noise basis, or a verdict
    its evidence class cannot carry (a hand-edited or misspelled ledger is refused, never miscounted)."""
    if not isinstance(d, dict) or not isinstance(d.get("claims"), list):
        raise ValueError(f"{path}: not a claims ledger (a JSON object with a 'claims' list); rebuild it with "
                         "`robeval run --replot`.")  # fmt: skip
    for i, row in enumerate(d["claims"]):
        if not isinstance(row, dict):
            raise ValueError(f"{path}: claim {i} is not an object; rebuild the ledger with `robeval run --replot`.")
        try:
            check_vocabulary(row)
        except ValueError as e:
            raise ValueError(f"{path}: {e} Fix the row or rebuild the ledger with `robeval run --replot`.") from None
    d.setdefault("index", [])
    return d
