"""The ledger as a reader sees it on a notebook page: a short index that fits the text column.

A ledger row has two dozen fields (:class:`robeval.core.ledger.Claim`, and more to come); shown raw, the table
is several page-widths wide and the verdict sits far off-screen. :func:`short_index` keeps six columns — id,
claim, paper, ours, verdict and *why* (:func:`reason`: the margin that decided a value, the correction or the
missing evidence that keeps a row undecided) — lists the central claims first and wraps long text. Every other
field stays in the site's ledger explorer, in ``results/CLAIMS.md`` and in
:func:`robeval.core.notebooks.show_ledger`.

Rows are read by field name, so a ledger that gains columns needs no change here: a
:class:`robeval.core.ledger.Ledger` (its Holm-adjusted ``table()``), that DataFrame, or a list of rows
(dataclass instances such as ``Claim`` or dicts).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import asdict, is_dataclass

from robeval.core.ledger import (
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    Ledger,
)
from robeval.core.publish.report import format_value

COLUMNS = ("id", "claim", "paper", "ours", "verdict", "why")
# relative widths of the columns (percent of the text column); long words wrap anywhere
_WIDTHS = (16, 30, 9, 15, 12, 18)
_RULE_CHARS = 120
OPEN_ROWS = 25  # more other rows than this are folded under a <details> below the central claims
CSS_CLASS = "robeval-index"
_STYLE = (
    "<style>"
    f"table.{CSS_CLASS}{{table-layout:fixed;width:100%;max-width:100%;border-collapse:collapse;font-size:0.85em}}"
    f"table.{CSS_CLASS} th,table.{CSS_CLASS} td{{white-space:normal !important;overflow-wrap:anywhere;"
    "word-break:normal;text-align:left !important;vertical-align:top;padding:0.2em 0.35em;"
    "border-bottom:1px solid #ddd}}"
    f"table.{CSS_CLASS} code{{white-space:normal;overflow-wrap:anywhere}}"
    f"table.{CSS_CLASS} td.verdict{{overflow-wrap:normal}}"
    f"table.{CSS_CLASS} .src,table.{CSS_CLASS} .unit{{color:#666;font-size:0.9em}}"
    f"details.{CSS_CLASS}>summary{{cursor:pointer;margin:0.4em 0}}"
    "</style>"
)


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _text(v) -> str:
    return "" if _missing(v) or not isinstance(v, str) else v


def _rows(rows) -> list[dict]:
    """The rows as dicts (field name -> value), whatever container they came in; ValueError naming the id when two
    rows share one (``robeval compare`` and ``verify`` refuse such a ledger: the second row would hide the first)."""
    import pandas as pd

    if isinstance(rows, Ledger):
        rows = rows.table()
    if isinstance(rows, pd.DataFrame):
        return _distinct_ids(rows.to_dict(orient="records"))
    if isinstance(rows, (list, tuple)):
        out = []
        for r in rows:
            if is_dataclass(r) and not isinstance(r, type):
                out.append(asdict(r))
            elif isinstance(r, dict):
                out.append(dict(r))
            else:
                raise TypeError(f"a ledger row must be a dataclass (Claim) or a dict, got {type(r).__name__}.")
        return _distinct_ids(out)
    raise TypeError(
        f"rows must be a Ledger, its table() DataFrame or a list of rows (Claim or dict), got {type(rows).__name__}."
    )


def _distinct_ids(rows: list[dict]) -> list[dict]:
    """``rows`` unchanged unless two of them have the same ``id`` (rows without one are not compared): ValueError
    naming it and the rows."""
    seen: dict = {}
    for i, row in enumerate(rows):
        ident = row.get("id")
        if _missing(ident):
            continue
        ident = str(ident)  # as the index shows it
        if ident in seen:
            raise ValueError(
                f"rows list the id {ident!r:.80} twice (rows {seen[ident]} and {i}); a ledger lists each claim once, "
                "and the second row would hide the first. Drop or rename the repeated row (or rebuild the ledger)."
            )
        seen[ident] = i
    return rows


def _central(row: dict) -> bool:
    """Whether ``row`` is central: its ``central`` True (a text "no" is not)."""
    v = row.get("central")
    return not _missing(v) and type(v).__name__ in ("bool", "bool_") and bool(v)


def _ci(v) -> str:
    if isinstance(v, (list, tuple)):
        return format_value([float(x) if isinstance(x, (int, float)) else x for x in v])
    return "" if _missing(v) else format_value(v)


def ours(row: dict) -> str:
    """Our estimate in one short text: value, CI, and n with its unit (``"0.12 CI [0.1, 0.2]; n=24 runs"``). An
    inconclusive row whose CI alone looks decisive (it excludes 0, or a contradicted or reproduced verdict was
    overridden) shows the Holm-adjusted p beside it, so the interval is not misread."""
    text = format_value(None if _missing(row.get("estimate")) else row.get("estimate"))
    ci = _ci(row.get("ci"))
    if ci:
        text += f" CI {ci}"
        p_adj, stab = row.get("p_adjusted"), row.get("stability")
        if _text(row.get("verdict")) == INCONCLUSIVE and _text(row.get("unadjusted")):
            if isinstance(p_adj, (int, float)) and not isinstance(p_adj, bool) and p_adj > 0.05:
                text += f" (Holm-adjusted p = {format_value(float(p_adj))})"
            elif isinstance(stab, (int, float)) and not isinstance(stab, bool) and stab < 0.9:
                text += f" (stability {format_value(float(stab))} < 0.9)"
    n = row.get("n_runs")
    if not _missing(n):
        unit = _text(row.get("unit"))
        text += f"; n={int(n)}" + (f" {unit}" if unit and unit != "none (exact)" else "")
    return text


def reason(row: dict) -> str:
    """Why the row has its verdict, in one line: what decided it or what would.

    * a value row (``margin`` set): the equivalence margin its CI was held against (``"within paper ± 0.05"``);
    * a row whose verdict Holm's correction changed: the verdict before it;
    * an inconclusive or not-comparable row: what would decide it (``decides``), e.g. a row whose interval
      excludes 0 but which is about training methods with one model per method;
    * otherwise the row's test (``rule``), shortened to its first clause.
    """
    if not isinstance(row, dict):
        raise TypeError(f"row must be a dict of ledger fields, got {type(row).__name__}.")
    verdict = _text(row.get("verdict"))
    parts = []
    margin = row.get("margin")
    if not _missing(margin) and isinstance(margin, (int, float)) and not isinstance(margin, bool):
        m = format_value(float(margin))
        interval = _ci(row.get("ci"))
        if verdict in (REPRODUCED, CONSISTENCY):
            parts.append(f"{'CI' if interval else 'ours'} within paper ± {m}")
        elif verdict in (CONTRADICTED, ERRATUM):
            parts.append(f"{'CI' if interval else 'ours'} outside paper ± {m}")
        elif interval:
            parts.append(f"CI crosses the edge of paper ± {m}" if verdict == INCONCLUSIVE else f"margin ± {m}")
        else:
            parts.append(f"margin ± {m}")
    unadjusted = _text(row.get("unadjusted"))
    if unadjusted:
        parts.append(f"its own test: {unadjusted}, before the ledger's rules")
    decides = _text(row.get("decides"))
    if decides:
        parts.append(("needs " if verdict in (INCONCLUSIVE, NOT_COMPARABLE) else "decided by ") + decides)
    if not parts:  # the test itself, without its parenthetical details
        rule = re.sub(r"\s*\([^()]*\)", "", _text(row.get("rule"))).split("; ", 1)[0].strip()
        parts.append(rule if len(rule) <= _RULE_CHARS else rule[: _RULE_CHARS - 1].rstrip() + "…")
    return "; ".join(p for p in parts if p)


def _order(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    return [r for r in rows if _central(r)], [r for r in rows if not _central(r)]


class ShortIndex:
    """The short index of ledger rows; Jupyter shows it as HTML (:meth:`to_html`), a terminal as Markdown."""

    def __init__(self, rows, *, anchor=None, links=None, open_rows: int = OPEN_ROWS):
        if anchor is not None and not callable(anchor):
            raise TypeError("anchor must be a function of a row id (the HTML id of its table row), or None.")
        what = "links must map a row id to a list of (label, href) pairs of text, or be None"
        if links is not None and not isinstance(links, dict):
            raise TypeError(f"{what}; got {type(links).__name__}.")
        for ident, pairs in (links or {}).items():
            if not isinstance(pairs, (list, tuple)) or not all(
                isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
            ):
                raise TypeError(f"{what}; links[{ident!r}] is {pairs!r:.60}.")
        if isinstance(open_rows, bool) or not isinstance(open_rows, int) or open_rows < 0:
            raise ValueError(f"open_rows must be an int >= 0, got {open_rows!r}.")
        self.rows = _rows(rows)
        self.anchor = anchor
        self.links = links or {}
        self.open_rows = open_rows

    def cells(self, row: dict) -> list[str]:
        """The six cells of ``row`` as plain text (see :data:`COLUMNS`)."""
        claim = _text(row.get("description"))
        part_of = _text(row.get("part_of"))
        if part_of:
            claim += f" (one reading of {part_of})"
        return [
            str(row.get("id", "")) + (" ★" if _central(row) else ""),
            claim,
            format_value(None if _missing(row.get("paper_value")) else row.get("paper_value")),
            ours(row),
            _text(row.get("verdict")),
            reason(row),
        ]

    def _tr(self, row: dict) -> str:
        _, claim, paper, our, verdict, why = self.cells(row)
        star = _central(row)
        ident = str(row.get("id", ""))
        attrs = f' id="{html.escape(self.anchor(ident), quote=True)}"' if self.anchor else ""
        source = _text(row.get("source"))
        links = self.links.get(ident, [])
        link_html = " · ".join(f'<a href="{html.escape(h, quote=True)}">{html.escape(t)}</a>' for t, h in links)
        vclass = "verdict verdict-" + verdict.replace(" ", "-")
        return (
            f"<tr{attrs}><td><code>{html.escape(ident)}</code>{' ★' if star else ''}"
            + (f"<br>{link_html}" if link_html else "")
            + f"</td><td>{html.escape(claim)}"
            + (f' <span class="src">({html.escape(source)})</span>' if source else "")
            + f"</td><td>{html.escape(paper)}</td><td>{html.escape(our)}</td>"
            f'<td class="{vclass}">{html.escape(verdict)}</td><td>{html.escape(why)}</td></tr>'
        )

    def _table(self, rows: list[dict]) -> str:
        cols = "".join(f'<col style="width:{w}%">' for w in _WIDTHS)
        head = "".join(f"<th>{c}</th>" for c in COLUMNS)
        body = "\n".join(self._tr(r) for r in rows)
        return (
            f'<table class="{CSS_CLASS}"><colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table>"
        )

    def to_html(self) -> str:
        """Central claims first (★), then the other rows, folded under a ``<details>`` when there are more than
        ``open_rows`` of them."""
        central, other = _order(self.rows)
        parts = [_STYLE]
        if not self.rows:
            return _STYLE + f'<p class="{CSS_CLASS}">No ledger rows.</p>'
        parts.append(
            f'<p class="{CSS_CLASS}">{len(self.rows)} ledger rows, {len(central)} central (★, listed first). '
            "<em>why</em>: the margin, correction or missing evidence behind the verdict.</p>"
        )
        if central:
            parts.append(self._table(central))
        if other:
            if central and len(other) > self.open_rows:
                parts.append(
                    f'<details class="{CSS_CLASS}"><summary>the other {len(other)} rows</summary>'
                    + self._table(other)
                    + "</details>"
                )
            else:
                parts.append(self._table(other))
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_markdown(self) -> str:
        """The index as a Markdown table (central claims first), for a terminal or a report. Each cell is one line
        of Markdown text (:func:`robeval.core.publish.markdown.cell`): a ``|`` escaped, and a ``<`` that would open
        raw HTML (a ledger's ``<script>``, ``<img onerror=...>``) written ``&lt;``, so a renderer shows it as text."""
        from robeval.core.publish.markdown import cell

        central, other = _order(self.rows)
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        for r in central + other:
            lines.append("| " + " | ".join(cell(c) for c in self.cells(r)) + " |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_markdown()


def short_index(rows, *, anchor=None, links=None, open_rows: int = OPEN_ROWS) -> ShortIndex:
    """The ledger rows as a short index that fits a notebook page (the last output of every notebook).

    Parameters
    ----------
    rows : Ledger, DataFrame or list of Claim or dict
        A :class:`robeval.core.ledger.Ledger` (its Holm-adjusted ``table()`` is shown), that DataFrame, or
        ledger rows; fields other than id, description, source, paper_value, estimate, ci, n_runs, unit,
        verdict, central, margin, unadjusted, decides, rule and part_of are ignored.
    anchor : callable, optional
        ``anchor(id)`` gives each table row an HTML id (the website: ``robeval.core.site.build.claim_anchor``).
    links : dict, optional
        ``{id: [(label, href), ...]}`` shown under the row's id (the website's section/figure/ledger links).
    open_rows : int
        With central claims, more other rows than this are folded under a ``<details>``.

    Returns
    -------
    ShortIndex
        Displayed as HTML by Jupyter; ``to_markdown()`` for text.
    """
    return ShortIndex(rows, anchor=anchor, links=links, open_rows=open_rows)


# ------------------------------------------------------------------------------- wide tables of long texts
FOLD_CHARS = 90  # a cell longer than this shows its start, the rest under <details>


def folded_cell(value, limit: int = FOLD_CHARS) -> str:
    """One table cell as HTML: its text escaped, folded under ``<details>`` past ``limit`` characters (the first
    ``limit`` shown, the whole text on a click), so that a cell of a few thousand characters keeps its row short."""
    if not isinstance(limit, int) or limit < 10:
        raise ValueError(f"limit must be an int >= 10, got {limit!r}.")
    text = "" if value is None else str(value)
    if len(text) <= limit:
        return html.escape(text)
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return f"<details><summary>{html.escape(cut)} …</summary>{html.escape(text)}</details>"


def folded_table(frame, limit: int = FOLD_CHARS):
    """A DataFrame of long texts (notebook 00's settings of every profile, :func:`robeval.core.profiles.overview`)
    as a styled table that fits a notebook page: cells longer than ``limit`` characters folded
    (:func:`folded_cell`), text left-aligned and wrapping, no index column. Returns a pandas ``Styler``."""
    return (
        frame.style.format(lambda v: folded_cell(v, limit))
        .hide(axis="index")
        .set_properties(**{"text-align": "left", "white-space": "pre-wrap", "vertical-align": "top"})
        .set_table_attributes('class="robeval-folded"')
    )
