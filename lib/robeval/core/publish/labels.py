"""What a figure shows at a profile, from its ledger rows (issue 61, item 2): a figure says it *reproduces* a paper
figure only where the rows testing that figure are decided at that profile; otherwise it is a *pipeline check*, a
*scaled replication*, a *stand-in* or an undecided replication. ``results/<profile>/FIGURES.md``
(:func:`robeval.core.publish.report.figures_report`), the site's gallery and the figure's caption on its notebook
page use the same label (:func:`figure_label`).

A figure's rows are the counted rows of its notebook's ledger whose ``source`` cites a figure or table the
manifest entry's ``reproduces`` names (a panel matches its figure: "Fig. 6a" is a row of "Fig. 6")."""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["DECIDED", "LABELS", "figure_label", "figure_rows", "paper_refs", "same_or_panel"]

# "Fig. 6a", "Table 2b", "Sec. 4.2", "App. B", "Appendix A", "Theorem 1", "Figs. 3"
_REF = re.compile(
    r"\b(Figs?\.|Fig|Table|Tab\.|Sec\.|Section|App\.|Appendix|Theorem|Eq\.)\s*([A-Z]?[0-9]+(?:\.[0-9]+)?[a-z]?|[A-Z]\b)"
)
_KIND = {"Figs.": "Fig.", "Fig": "Fig.", "Tab.": "Table", "Section": "Sec.", "Appendix": "App."}

# the verdicts that decide a row (reproduced, contradicted; a check of the paper's own files or closed forms)
DECIDED = ("reproduced", "contradicted", "consistency", "erratum", "verified")
_REPLICATIONS = ("replication", "scaled replication")

# label kind -> (the gallery's bold word, the whole label: {what} the manifest's ``reproduces``, {profile} the profile)
LABELS = {
    "reproduces": ("Reproduces", "reproduces {what}"),
    "replication": ("Replication, undecided", "replication of {what}, undecided at `{profile}`"),
    "reanalysis": ("Reanalysis, undecided", "reanalysis of {what}, undecided at `{profile}`"),
    "scaled replication": ("Scaled replication", "scaled replication of {what}"),
    "pipeline check": ("Pipeline check", "pipeline check of {what}"),
    "stand-in": ("Stand-in", "stand-in for {what}"),
    "no row": ("Drawn after", "drawn after {what} (no ledger row tests it)"),
    "no paper figure": ("Shows", "shows {what}"),
}


def paper_refs(text: str) -> list[str]:
    """The paper references in a ledger ``source`` or a manifest ``reproduces`` string, normalised.

    ``"Fig. 6a / Sec. 4"`` -> ``["Fig. 6a", "Sec. 4"]``; ``"Appendix B.1"`` -> ``["App. B"]`` (an appendix
    is named by its letter); ``"Figs. 3"`` -> ``["Fig. 3"]``.

    Parameters
    ----------
    text : str
        Free text such as ``"Table 2a (bold)"``.

    Returns
    -------
    list of str
        ``"<kind> <number>"`` with kind one of Fig., Table, Sec., App., Theorem, Eq. (in order of appearance).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}; pass the ledger row's 'source'.")
    return [f"{_KIND.get(kind, kind)} {num}" for kind, num in _REF.findall(text)]


def same_or_panel(ref: str, other: str) -> bool:
    """``ref`` names ``other`` or a panel of it: "Fig. 6a" matches "Fig. 6a" and "Fig. 6", not "Fig. 6b"."""
    return ref == other or (ref[-1].isalpha() and ref[:-1] == other and other[-1].isdigit())


def figure_rows(entry: dict, ledger: dict | None) -> list[dict]:
    """The counted rows (no single readings, no environment checks of the data files) of ``ledger`` (a saved
    ledger dict of the figure's notebook, or None) that test a figure or table the manifest ``entry`` names."""
    refs = paper_refs(entry.get("reproduces") or "")
    if not ledger or not refs:
        return []
    out = []
    for c in ledger.get("claims", []):
        if c.get("part_of"):
            continue
        theirs = paper_refs(c.get("source") or "")
        if any(same_or_panel(a, b) or same_or_panel(b, a) for a in theirs for b in refs):
            out.append(c)
    return out


def _kind(entry: dict, ledger: dict | None, rows: list[dict]) -> str:
    if not paper_refs(entry.get("reproduces") or ""):
        return "no paper figure"
    if ledger is not None and ledger.get("decided_by"):
        return "pipeline check"  # the run is sized below deciding its trainings (robeval.core.ledger.Ledger)
    replications = [r for r in rows if r.get("evidence") in _REPLICATIONS]
    if replications and all(r.get("verdict") == "not comparable" for r in replications):
        scaling = (ledger or {}).get("scaling", "").lower()
        return "stand-in" if ("synthetic" in scaling or "stand-in" in scaling) else "pipeline check"
    if replications:
        if any(r.get("evidence") == "scaled replication" for r in replications):
            return "scaled replication"
        return "reproduces" if any(r.get("verdict") in DECIDED for r in replications) else "replication"
    if rows:
        return "reproduces" if any(r.get("verdict") in DECIDED for r in rows) else "reanalysis"
    return "no row"


def figure_label(entry: dict, ledger: dict | None, profile: str) -> dict:
    """What the manifest figure ``entry`` shows at ``profile``, from its rows in ``ledger`` (the saved ledger of
    its notebook at that profile, or None).

    Returns
    -------
    dict
        ``kind`` (a key of :data:`LABELS`), ``title`` (the bold word: "Reproduces", "Pipeline check", ...),
        ``text`` (the whole label: "reproduces MSCR Fig. 5", "pipeline check of MSCR Fig. 6b"), ``rows`` (how
        many rows test it) and ``tally`` ("rows at `paper`: 12 reproduced, 1 inconclusive"; "" without rows).
    """
    rows = figure_rows(entry, ledger)
    kind = _kind(entry, ledger, rows)
    title, template = LABELS[kind]
    what = (entry.get("reproduces") or "").strip()
    counts = Counter(r.get("verdict", "") for r in rows)
    tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return {
        "kind": kind,
        "title": title,
        "text": template.format(what=what, profile=profile),
        "rows": len(rows),
        "tally": f"rows at `{profile}`: {tally}" if rows else "",
    }
