"""The built website read as a reader would, without a browser (issue 47, item 8): every internal link resolves
to a page and an anchor on it, every image has alt text, every table of a page scrolls inside its own box (so no
table widens the page at 1400 px or on a phone), and the home page reaches every profile's ledger.
``tests/core/test_site.py`` runs it on the smoke site; the browser test checks the same at 1400 px and 390 px."""

from __future__ import annotations

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
        home = pages.get(root / "index.html")
        for profile in data.get("profiles") or [data.get("profile")]:
            if not any(r.get("profile", data.get("profile")) == profile for r in data["rows"]):
                problems.append(f"ledger.json holds no row of profile {profile}")
            if home is None or f"ledger.html#profile={profile}" not in home.hrefs:
                problems.append(f"index.html does not link the ledger of profile {profile}")
    return problems
