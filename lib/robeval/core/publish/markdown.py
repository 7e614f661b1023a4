"""Ledger text made safe for the generated Markdown, and the generated blocks put between their markers.

A ledger's texts (a row's ``description``, ``source``, ``note``, ``decides``, ...) are free text: a notebook's or a
hand-edited ledger's. The reports print them inside table rows (``results/CLAIMS.md``), list items and blocks
between HTML-comment markers (the README, ``docs/index.md`` and ``docs/results.md``, which the website renders).
:func:`inline` makes such a text one line that can neither end the row or item it sits in, nor open raw HTML,
nor hold a block marker; :func:`cell` also escapes the table's column separator. Text without line breaks,
control characters or ``<`` before a tag's first character (``<a``, ``</``, ``<!``, ``<?``) is left unchanged,
so a ``<`` in "p < 0.05" stays as written.

:func:`replace_block` rewrites one generated block of a file: it finds the block by its start and end markers
exactly once, and refuses a file whose markers are duplicated or unbalanced (naming the file and the fix) rather
than guessing which copy is the block.
"""

from __future__ import annotations

import re
from pathlib import Path

from robeval.core.io import atomic_write_text

# line breaks and other control characters (C0, DEL, C1, the Unicode line and paragraph separators): one space
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
# a "<" that would open raw HTML in Markdown (a tag, a closing tag, a comment or marker, a declaration, a
# processing instruction): written as the entity, which renders as "<"
_HTML_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def inline(text) -> str:
    """``text`` (str()) as one line of Markdown text: line breaks and control characters folded into one space each
    run, and a ``<`` that would open raw HTML (``<img``, ``</p``, ``<!--``, ``<?``) written ``&lt;``. A generated
    block can so never hold a marker (every marker starts with ``<!--``) nor the page's HTML."""
    return _HTML_OPEN.sub("&lt;", _BREAKS.sub(" ", str(text)))


def cell(text) -> str:
    """``text`` as the content of one Markdown table cell: :func:`inline`, with each ``|`` escaped as ``\\|``. (In
    GitHub's tables, where CLAIMS.md is read, a ``|`` after a backslash never separates cells, whatever precedes
    that backslash: a text already escaped, escaped again, still renders its pipes.)"""
    return inline(text).replace("|", "\\|")


def code(text, *, table: bool = False) -> str:
    """``text`` (str()) as one inline Markdown code span: line breaks and control characters folded into one space
    each run, fenced by one backtick more than its longest run of backticks (padded with a space where it starts or
    ends with one), so no text ends the span early and what follows it is never read as Markdown or raw HTML.
    ``table``: each ``|`` escaped as ``\\|`` too (a code span in a table cell)."""
    body = _BREAKS.sub(" ", str(text))
    if table:
        body = body.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def replace_block(path, start: str, end: str, block: str) -> bool:
    """Rewrite the text between the markers ``start`` and ``end`` of the file ``path`` with ``block`` (the file as
    ``...start\\nblock\\nend...``, written atomically); True if the file changed.

    A file with neither marker holds no such block: False, nothing written. A file that holds either marker other
    than once, or the end before the start, is refused (ValueError naming the file and the fix), never extended:
    which copy is the block would be a guess."""
    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    head, tail = split_block(text, start, end, path)
    if head is None:
        return False
    new = head + start + "\n" + block + "\n" + end + tail
    if new != text:
        atomic_write_text(path, new)
    return new != text


def split_block(text: str, start: str, end: str, where) -> tuple[str | None, str | None]:
    """``(head, tail)``: the text before ``start`` and after ``end``, each marker found exactly once, the start
    first; ``(None, None)`` when the text holds neither marker. ValueError naming ``where`` (the file) otherwise."""
    n_start, n_end = text.count(start), text.count(end)
    if n_start == 0 and n_end == 0:
        return None, None
    if n_start == 1 and n_end == 1 and text.index(start) < text.index(end):
        head, rest = text.split(start, 1)
        return head, rest.split(end, 1)[1]
    marks = f"{start.split(' (', 1)[0]!r} / {end!r}"
    found = (
        f"its end marker before its start marker ({marks})"
        if n_start == 1 and n_end == 1
        else f"its start and end markers ({marks}) {n_start} and {n_end} times"
    )
    raise ValueError(
        f"{where} holds {found}; a generated block sits between one start and one end marker, and which copy is "
        f"the block would be a guess. Restore the file (git checkout -- {where}), or keep one start and one end "
        "marker around the block by hand (delete the extra copies), then run `robeval report` again."
    )
