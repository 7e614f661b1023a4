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


def _row_link(ledger_href: str, key: tuple[str, str, str], shown: str) -> str:
    """The link of one ledger row ``key`` ((profile, notebook, id)) to its permalink on the ledger page, showing
    ``shown`` (already HTML) as code: the one form both row-linking passes write."""
    href = html.escape(f"{ledger_href}#{row_fragment(*key)}", quote=True)
    return f'<a class="ledger-row" href="{href}"><code>{shown}</code></a>'


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
        return m["pre"] + _row_link(ledger_href, key, f"{m['notebook']}/{m['id']}")

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


# ---------------------------------------------------------------------------------- glossary terms on first use
_MIN_PHRASE = 3  # shorter names ("N", "RF") are too common to link as words
_COMMON = {"failed"}  # a second name that is an everyday word elsewhere ("fails Holm's correction"): not linked
# text inside these elements is never linked: links, code, headings, the definition terms themselves, scripts
_SKIP_TAGS = {"a", "code", "pre", "kbd", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "script", "style", "title",
              "button", "label", "textarea", "select", "option", "svg", "summary"}  # fmt: skip
# a tag, its quoted attribute values read whole (an alt text may hold ">"); comments and doctypes as one token
_TAG = re.compile(r"<!--.*?-->|<![^>]*>|<(/?)([A-Za-z][A-Za-z0-9]*)(?:[^>\"']|\"[^\"]*\"|'[^']*')*?(/?)>", re.S)
_VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col", "area", "base", "embed", "track"}


def glossary_phrases(markdown: str) -> dict[str, str]:
    """``{phrase: anchor}`` of a glossary written as a Markdown definition list (``term`` on its own line, its
    definition on the next, opened by ``:   ``): each term's names ("ε_train, ε_test (eps_train, eps_test)" gives
    four; "verified / failed" one: "failed" is an everyday word elsewhere), those of at least three characters, each
    with the term's :func:`term_anchor`."""
    lines = markdown.splitlines()
    out = {}
    for i, line in enumerate(lines[:-1]):
        if (
            not line.strip()
            or line.startswith((" ", ":", "#", "*", "|", "<", "`", "-"))
            or not lines[i + 1].startswith(":   ")
        ):
            continue
        term = line.strip()
        for phrase in re.split(r"\s*(?:,|/|\(|\))\s*", term):
            if len(phrase) >= _MIN_PHRASE and phrase not in _COMMON:
                out.setdefault(phrase, term_anchor(term))
    return out


def _phrase_pattern(phrase: str) -> re.Pattern:
    """A phrase as a whole word (never part of a longer word or hyphenated name); names with capitals are matched
    as written, lower-case words in any case."""
    variants = {
        re.escape(phrase),
        re.escape(html.escape(phrase, quote=True)),
        re.escape(phrase.replace("'", "&rsquo;")),
    }
    flags = 0 if any(c.isupper() for c in phrase) else re.IGNORECASE
    return re.compile(r"(?<![\w-])(?:" + "|".join(sorted(variants, key=len, reverse=True)) + r")(?![\w-])", flags)


def link_glossary_terms(page: str, glossary_href: str, phrases: dict[str, str], start: str = 'role="main"'):
    """Link the first use of every glossary phrase on a built page to its term (``glossary_href#<anchor>``): only
    text after ``start`` (the page's main column), never inside a link, code, a heading or a script, one link per
    term (a term's first phrase to appear wins; longer phrases are tried first, so "CIFAR-10-C-bar" is not read as
    "CIFAR-10-C"). Returns the page and how many links it added."""
    at = page.find(start)
    if at < 0 or not phrases:
        return page, 0
    at = page.find(">", at) + 1
    head, body = page[:at], page[at:]
    ordered = sorted(phrases, key=len, reverse=True)
    patterns = {p: _phrase_pattern(p) for p in ordered}
    done: set[str] = set()  # anchors already linked
    out, depth, pos, n = [], 0, 0, 0

    def link_text(text: str) -> str:
        nonlocal n
        for phrase in ordered:
            anchor = phrases[phrase]
            if anchor in done:
                continue
            m = patterns[phrase].search(text)
            if m is None:
                continue
            done.add(anchor)
            n += 1
            link = f'<a class="glossary-term" href="{html.escape(glossary_href, quote=True)}#{anchor}">{m.group()}</a>'
            return link_text(text[: m.start()]) + link + link_text(text[m.end() :])
        return text

    for m in _TAG.finditer(body):
        text = body[pos : m.start()]
        out.append(link_text(text) if depth == 0 and text.strip() else text)
        out.append(m.group())
        if m.group(2) is None:  # a comment or a doctype
            pos = m.end()
            continue
        closing, name, selfclosing = m.group(1) == "/", m.group(2).lower(), m.group(3) == "/"
        if name in _SKIP_TAGS and name not in _VOID and not selfclosing:
            depth = max(0, depth - 1) if closing else depth + 1
        pos = m.end()
    rest = body[pos:]
    out.append(link_text(rest) if depth == 0 and rest.strip() else rest)
    return head + "".join(out), n


# "<code>08/T2_sota_heavier</code>, <code>paper</code>": a row named by its notebook's number and its profile (the
# list of statements no profile decides, robeval.core.publish.undecided)
SHORT_ROW = re.compile(
    r"<code>(?P<nb>\d\d)/(?P<id>[^<]+)</code>(?P<mid>,\s*)<code>(?P<profile>" + "|".join(PROFILES) + r")</code>"
)


def link_short_rows(page: str, ledger_href: str, known: set[tuple[str, str, str]]) -> tuple[str, int]:
    """Link every row printed as ``<code>NN/id</code>, <code>profile</code>`` to its permalink, the notebook found
    by its number among ``known`` ((profile, notebook, id) the site's ledger holds); rows the site does not hold stay
    text. Returns the page and how many links it added."""
    by_short = {(p, nb[:2], i): nb for p, nb, i in known}
    n = 0

    def repl(m):
        nonlocal n
        rid = html.unescape(m["id"])
        notebook = by_short.get((m["profile"], m["nb"], rid))
        if notebook is None:
            return m.group()
        n += 1
        link = _row_link(ledger_href, (m["profile"], notebook, rid), f"{m['nb']}/{m['id']}")
        return f"{link}{m['mid']}<code>{m['profile']}</code>"

    return SHORT_ROW.sub(repl, page), n
