"""Links that keep their profile (issue 61, item 1): HTML passes on the built pages that turn the ledger ids the
prose prints ("(paper ledger: `01_mscr_2d/T2a_acc.iid` — contradicted)") into permalinks of those rows on the
ledger page (:func:`robeval.core.site.pages.row_fragment`), and give every glossary term an anchor."""

from __future__ import annotations

import html
import re

from robeval.core.paths import PROFILES
from robeval.core.site.pages import row_fragment

# "<profile> ledger: <code>notebook/id</code>", the form every finding uses (tests/core/test_readme_and_figures.py)
PRINTED_ROW = re.compile(
    r"(?P<pre>\b(?P<profile>" + "|".join(PROFILES) + r")\s+ledger:\s*)"
    r"<code>(?P<notebook>\d\d_[A-Za-z0-9_]+)/(?P<id>[^<]+)</code>"
)


def link_printed_rows(page: str, ledger_href: str, known: set[tuple[str, str, str]]) -> tuple[str, int]:
    """Wrap every ledger id printed as ``<profile> ledger: <code>nb/id</code>`` in a link to that row's permalink
    (``ledger_href``: the ledger page relative to the page). Only rows of ``known`` ((profile, notebook, id) the
    site's ledger holds) are linked: a link never shows 0 rows. Returns the page and how many links it added."""
    n = 0

    def repl(m):
        nonlocal n
        key = (m["profile"], m["notebook"], html.unescape(m["id"]))
        if key not in known:
            return m.group()
        n += 1
        href = html.escape(f"{ledger_href}#{row_fragment(*key)}", quote=True)
        return f'{m["pre"]}<a class="ledger-row" href="{href}"><code>{m["notebook"]}/{m["id"]}</code></a>'

    return PRINTED_ROW.sub(repl, page), n


def term_anchor(term: str) -> str:
    """The anchor of a glossary term: ``term-`` and its words in lower case joined by '-' ("Holm's correction" ->
    ``term-holm-s-correction``, "verified / failed" -> ``term-verified-failed``)."""
    slug = re.sub(r"[^\w]+", "-", html.unescape(term).strip().lower()).strip("-")
    if not slug:
        raise ValueError(f"a glossary term needs a word, got {term!r}.")
    return "term-" + slug


_DT = re.compile(r"<dt>(?P<term>[^<]+)</dt>")


def glossary_anchors(page: str) -> tuple[str, int]:
    """Give every term of a definition list (``<dt>``, the glossary's) the id :func:`term_anchor`, so that
    ``glossary.html#term-lease`` links a term. Returns the page and how many terms it anchored."""
    n = 0

    def repl(m):
        nonlocal n
        n += 1
        return f'<dt id="{term_anchor(m["term"])}">{m["term"]}</dt>'

    return _DT.sub(repl, page), n
