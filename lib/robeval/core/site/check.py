"""The built website read as a reader would, without a browser (issue 47, item 8): every internal link resolves
to a page and an anchor on it, every image has alt text, every table of a page scrolls inside its own box (so no
table widens the page at 1400 px or on a phone), and the home page reaches every profile's ledger.
``tests/core/test_site.py`` runs it on the smoke site; the browser test checks the same at 1400 px and 390 px."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

NBCONVERT_DEFAULT_ALT = "No description has been provided for this image"
SCROLL_CLASSES = ("robeval-table-scroll", "ledger-scroll")


class _Page(HTMLParser):
    """A page's element ids, link targets and images (``(src, alt)``), as an HTML parser collects them."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.images = set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "img":
            self.images.append((a.get("src", ""), a.get("alt")))


_TABLE = re.compile(r"<table\b|</table>")


def unscrolled_tables(text: str) -> int:
    """How many outermost tables of a page's HTML are not the first child of a scrolling box (a ``<div>`` of
    class :data:`SCROLL_CLASSES`)."""
    depth, bad = 0, 0
    for m in _TABLE.finditer(text):
        if m.group() == "<table":
            if depth == 0 and not re.search(
                r'<div class="(?:' + "|".join(SCROLL_CLASSES) + r')">\s*$', text[: m.start()][-80:]
            ):
                bad += 1
            depth += 1
        else:
            depth = max(depth - 1, 0)
    return bad


def parse(path: Path) -> tuple[_Page, str]:
    """A page's ids, links and images (src head, alt), and its HTML (embedded images shortened)."""
    page = _Page()
    text = re.sub(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=\s]+", "data:image", Path(path).read_text("utf-8"))
    page.feed(text)
    return page, text


def check_site(site_dir) -> list[str]:
    """Every problem a reader would meet on the built site ``site_dir`` (empty when none): a dead internal link or
    anchor, an image without alt text (or with nbconvert's default), a table outside a scrolling box, a profile of
    ``assets/ledger.json`` whose ledger the home page does not link."""
    root = Path(site_dir).resolve()
    parsed = {p: parse(p) for p in sorted(root.rglob("*.html")) if "mathjax" not in p.parts}
    pages = {p: v[0] for p, v in parsed.items()}
    problems = []
    for path, page in pages.items():
        name = path.relative_to(root).as_posix()
        for href in page.hrefs:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            base = root if parts.path.startswith("/") else path.parent  # the 404 page links from the site's root
            target = (base / unquote(parts.path.lstrip("/"))).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: dead link {href}")
                continue
            frag = unquote(parts.fragment)
            # a fragment holding '=' is the ledger page's filter state, not an anchor
            if frag and "=" not in frag and target in pages and frag not in pages[target].ids:
                problems.append(f"{name}: link {href}: no #{frag} on {target.relative_to(root).as_posix()}")
        for src, alt in page.images:
            if not (alt or "").strip() or alt == NBCONVERT_DEFAULT_ALT:
                problems.append(f"{name}: image {src[:60]} without alt text")
        bad = unscrolled_tables(parsed[path][1])
        if bad:
            problems.append(f"{name}: {bad} tables do not scroll inside themselves")
    ledger = root / "assets" / "ledger.json"
    if ledger.is_file():
        data = json.loads(ledger.read_text(encoding="utf-8"))
        problems += ledger_link_problems(root, {p: v[1] for p, v in parsed.items()}, data)
        home = pages.get(root / "index.html")
        for profile in data.get("profiles") or [data.get("profile")]:
            if not any(r.get("profile", data.get("profile")) == profile for r in data["rows"]):
                problems.append(f"ledger.json holds no row of profile {profile}")
            if home is None or f"ledger.html#profile={profile}" not in home.hrefs:
                problems.append(f"index.html does not link the ledger of profile {profile}")
    return problems


# ------------------------------------------------------------------------------ links into the claims ledger
# issue 61, item 1: a link to the ledger page shows rows, and a row's permalink lands on the row its text names
_LEDGER_FILTERS = {  # ledger.js's FILTERS: the value each filter compares
    "profile": lambda r: r.get("profile") or "",
    "paper": lambda r: r.get("paper") or "",
    "verdict": lambda r: r.get("verdict") or "",
    "evidence": lambda r: r.get("evidence") or "",
    "central": lambda r: "central" if r.get("central") else "not central",
    "rows": lambda r: "single readings" if r.get("part_of") else "counted rows",
}
_SEARCHED = ("id", "notebook", "description", "source", "note", "rule", "why", "paper_name")
_ANCHOR = re.compile(r"<a\b[^>]*?\bhref=\"(?P<href>[^\"]*)\"[^>]*>(?P<text>.*?)</a>", re.S)
_TAG = re.compile(r"<[^>]+>")
_PROFILE_BEFORE = re.compile(r"\b(?P<profile>[a-z]+)\s+ledger:\s*$")
_VERDICT_AFTER = re.compile(r"^\s*(?:—|-)\s*(?P<verdict>[a-z][a-z ]*?)\s*\)")
_VERDICT_CELL = re.compile(r'class="verdict verdict-[^"]*"[^>]*>(?P<verdict>[^<]+)<')


def ledger_state(fragment: str) -> dict:
    """The ledger page's state in a link's fragment (``profile=paper&row=01_mscr_2d/T2a_acc.iid``), decoded."""
    state = {}
    for kv in fragment.split("&"):
        key, eq, value = kv.partition("=")
        if eq and key:
            state[unquote(key)] = unquote(value)
    return state


def shown_rows(rows: list[dict], state: dict, profile: str) -> list[dict]:
    """The rows ``assets/ledger.js`` shows for ``state`` (:func:`ledger_state`) on a site opening on ``profile``: a
    permalink (``row``) its row at its profile, else every filter (``all`` or absent: its default, the site's
    profile and the counted rows) and the search ``q``."""
    want = {"profile": profile, "rows": "counted rows"}
    want.update({k: v for k, v in state.items() if k in _LEDGER_FILTERS})
    if "row" in state:
        return [
            r
            for r in rows
            if state["row"] in (f"{r.get('notebook')}/{r.get('id')}", r.get("id"))
            and want["profile"] in ("all", "", r.get("profile"))
        ]
    out = [r for r in rows if all(v in ("all", "") or _LEDGER_FILTERS[k](r) == v for k, v in want.items())]
    q = state.get("q", "").strip().lower()
    return [r for r in out if q in " ".join(str(r.get(k) or "") for k in _SEARCHED).lower()] if q else out


def _page_profile(path: Path, profile: str) -> str | None:
    """The profile a notebook page shows (``<nb>.html``: the site's, ``<nb>.<profile>.html``: that one)."""
    if path.parent.name != "notebooks":
        return None
    parts = path.name.split(".")
    return parts[1] if len(parts) == 3 else profile


def _enclosing_row(text: str, at: int) -> str:
    start, end = text.rfind("<tr", 0, at), text.find("</tr>", at)
    return text[start:end] if start >= 0 and end > 0 and "</tr>" not in text[start:at] else ""


def ledger_link_problems(root: Path, texts: dict, data: dict) -> list[str]:
    """Every link into the ledger page (``ledger.html#...``) of the site ``root`` (``texts``: each page's HTML;
    ``data``: ``assets/ledger.json``) that shows 0 rows, or whose row's permalink names no profile, or lands on a
    row of another profile or another verdict than the text linking it says: the profile of its notebook page or
    the "<profile> ledger:" before it, the verdict after it ("— contradicted)") or in its table row."""
    problems, ledger_page = [], (root / "ledger.html").resolve()
    for path, text in texts.items():
        name = path.relative_to(root).as_posix()
        for m in _ANCHOR.finditer(text):
            parts = urlsplit(html.unescape(m["href"]))
            if parts.scheme or not parts.path or "=" not in parts.fragment:
                continue
            if (path.parent / unquote(parts.path)).resolve() != ledger_page:
                continue
            state = ledger_state(parts.fragment)
            shown = shown_rows(data["rows"], state, data.get("profile", ""))
            where = f"{name}: ledger link #{parts.fragment}"
            if not shown:
                problems.append(f"{where} shows 0 rows")
                continue
            if "row" not in state:
                continue
            if "profile" not in state:
                problems.append(f"{where} names no profile")
            before = _TAG.sub("", text[max(0, m.start() - 200) : m.start()])
            named = _PROFILE_BEFORE.search(" ".join(before.split()))
            expected = _page_profile(path, data.get("profile", "")) or (named["profile"] if named else None)
            if expected and state.get("profile") != expected:
                problems.append(f"{where}: the text is about profile {expected}, the link opens {state.get('profile')}")
            after = _VERDICT_AFTER.search(" ".join(_TAG.sub("", text[m.end() : m.end() + 300]).split()))
            cell = _VERDICT_CELL.search(_enclosing_row(text, m.start()))
            said = after["verdict"] if after else (cell["verdict"].strip() if cell else None)
            if said and all(r.get("verdict") != said for r in shown):
                got = ", ".join(sorted({r.get("verdict", "") for r in shown}))
                problems.append(f"{where}: the text says {said}, the row is {got}")
    return problems
