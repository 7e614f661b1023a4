"""The generated pages and page parts of the reader's website (:mod:`robeval.core.site.build` assembles them): the
figure gallery grouped by paper in figure order, the claims ledger page with its profile filter, the head of a
notebook page (its verdicts and the switch between the profiles it was executed under), the home page's links
to every profile's ledger and notebooks, the "Rerun it" note, the build stamp, and the HTML passes run on the
built pages (code folded, wide tables scrolling inside themselves)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import quote

from robeval.core.publish.labels import paper_refs
from robeval.core.publish.markdown import code, inline

PRIMARY = "default"  # the profile the site opens on when it shows several
__all__ = ["PRIMARY", "paper_refs"]  # paper_refs: robeval.core.publish.labels's, for the site's modules


def _attr(s: str) -> str:
    return html.escape(s, quote=True)


def claim_anchor(claim_id: str) -> str:
    """The HTML id of a ledger row on its notebook page (whitespace, which ids may not hold, becomes '_')."""
    if not isinstance(claim_id, str) or not claim_id:
        raise ValueError(f"claim id must be a non-empty str, got {claim_id!r}.")
    return "claim-" + re.sub(r"\s", "_", claim_id)


def row_fragment(profile: str, notebook: str, claim_id: str) -> str:
    """The ledger page's permalink of one row (its URL fragment, ``ledger.html#<this>``): the row's profile and
    ``<notebook>/<id>`` (the id alone when ``notebook`` is empty). ``assets/ledger.js`` shows exactly that row of
    that profile, whatever the other filters, on load and on every hash change (Back, Forward)."""
    for name, value in (("profile", profile), ("claim id", claim_id)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty str, got {value!r}.")
    row = f"{notebook}/{claim_id}" if notebook else claim_id
    return f"profile={quote(profile, safe='')}&row={quote(row, safe='/')}"


def figure_label_text(entry: dict) -> str:
    """What a manifest figure shows: its ``label``'s text when the site labelled it from its rows
    (:func:`robeval.core.publish.labels.figure_label`: "pipeline check of MSCR Fig. 6b"), else "reproduces" and the
    manifest's ``reproduces``."""
    label = entry.get("label") or {}
    return label.get("text") or f"reproduces {(entry.get('reproduces') or '').strip()}"


def figure_alt(entry: dict) -> str:
    """The alt text of a figure on the website: what it shows (:func:`figure_label_text`: the paper figure it
    reproduces, or that it is a pipeline check, scaled replication or stand-in of it) and its caption (the titles
    it was drawn with, the manifest's ``caption``, :func:`robeval.core.publish.plotting.figure_caption`); entries
    saved before captions were recorded give what they show and their name."""
    reproduces = (entry.get("reproduces") or "").strip()
    caption = (entry.get("caption") or "").strip()
    if entry.get("label"):
        head = f"Figure: {figure_label_text(entry)}"
    else:
        head = f"Figure reproducing {reproduces}" if reproduces else f"Figure {entry['figure']}"
    return f"{head}: {caption}" if caption else f"{head} ({entry['figure']})"


def png_size(path) -> tuple[int, int]:
    """(width, height) in pixels of a PNG file, read from its header."""
    head = Path(path).read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file (no PNG signature and IHDR header).")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def page_name(notebook: str, profile: str, primary: str) -> str:
    """The source name of a notebook's page under ``profile``: ``<nb>.ipynb`` for the site's primary profile,
    ``<nb>.<profile>.ipynb`` for another (every notebook page one folder deep, so relative links are alike)."""
    return f"{notebook}.ipynb" if profile == primary else f"{notebook}.{profile}.ipynb"


# ------------------------------------------------------------------------------------------------ the gallery
_PAPER_OF_PREFIX = {"mscr": "mscr", "msd": "msd", "realworld": "realworld", "acr": "acr"}
_KIND_RANK = {"Fig.": 0, "Table": 1, "Sec.": 2, "App.": 3, "Theorem": 4, "Eq.": 5}


def figure_paper(entry: dict) -> str:
    """The paper (ledger key: mscr, msd, realworld, acr) a manifest figure belongs to, from its name's prefix;
    "core" for the others (the claims chart)."""
    return _PAPER_OF_PREFIX.get(entry["figure"].split("_", 1)[0], "core")


def figure_order(entry: dict) -> tuple:
    """Sort key of a manifest figure in its paper's order: the first paper reference it reproduces, figures
    before tables before sections and appendices, by number then panel (``Fig. 6a`` < ``Fig. 6b`` <
    ``Fig. 10`` < ``Fig. A``), then the figure's name."""
    refs = paper_refs(entry.get("reproduces") or "")
    if not refs:
        return (9, 0, 0, "", entry["figure"])
    kind, num = refs[0].split(" ", 1)
    m = re.match(r"([A-Z]?)(\d*)(?:\.(\d+))?([a-z]?)", num)
    letter, major, minor, panel = m.groups() if m else ("", "", "", "")
    return (_KIND_RANK.get(kind, 8), int(bool(letter)), int(major or 0) * 100 + int(minor or 0), panel, entry["figure"])


def gallery(manifest: list[dict], links: dict, figures: Path | None = None, profile: str = PRIMARY) -> str:
    """The gallery page: one section per paper, its figures in the paper's order (:func:`figure_order`). Each
    image states its size (from the PNG in ``figures``), so that the browser reserves its box before a lazily
    loaded image arrives and a link to ``#fig-<name>`` still lands on that figure."""
    from robeval.core.ledger import PAPERS

    lines = [
        "# Figure gallery",
        "",
        f"Every figure of the figure manifest of profile `{profile}` (`robeval.core.publish.plotting.savefig` writes it), "
        "grouped by paper in the paper's figure order: what it shows at this profile, judged from the ledger rows "
        "that test it (it *reproduces* a paper figure only where those rows are decided here; otherwise it is a "
        "pipeline check, a scaled replication, a stand-in or an undecided replication of it), the notebook cell "
        "that draws it, the library function that computed its data and the one that draws it. Click a figure "
        "for the full-size PNG. Another profile's figures are on its notebook pages.",
        "",
    ]
    groups: dict[str, list[dict]] = {}
    for e in sorted(manifest, key=figure_order):
        groups.setdefault(figure_paper(e), []).append(e)
    order = [p for p in PAPERS if p in groups] + [p for p in groups if p not in PAPERS]
    for paper in order:
        title = "The claims ledger" if paper == "core" else PAPERS.get(paper, paper)
        lines += [f"## {title}", ""]
        for e in groups[paper]:
            lines += _gallery_entry(e, links, figures, figure_alt(e))
    return "\n".join(lines)


def _gallery_entry(e: dict, links: dict, figures: Path | None, alt: str) -> list[str]:
    name, label = e["figure"], e.get("label") or {}  # what its rows make it (robeval.core.publish.labels)
    nb = e.get("notebook") or ""
    anchor = links.get(nb, {}).get("figures", {}).get(name)
    png = Path(figures) / f"{name}.png" if figures is not None else None
    size = ' width="{}" height="{}"'.format(*png_size(png)) if png is not None and png.is_file() else ""
    if nb in links:
        # links to the sources: mkdocs rewrites them to the built pages (and checks them)
        where = f"[{nb}](notebooks/{nb}.ipynb{'#' + anchor if anchor else ''})"
    else:
        where = f"{nb} ([claims ledger](ledger.md))"
    return [
        f'<div class="robeval-figure" id="fig-{_attr(name)}" markdown="1">',
        "",
        f"### {name}",
        "",
        f'<a href="figures/{name}.png" title="the full-size figure"><img src="figures/{name}.png" alt="{_attr(alt)}"'
        f'{size} loading="lazy"></a>',
        "",
        f"**What it shows**: {inline(figure_label_text(e))}"
        + (f" ({label['tally']})" if label.get("tally") else "")
        + f" · **notebook** {where} · "
        f"**data computed by** {code(e.get('data_from', ''))} · **drawn by** {code(e.get('plotted_by', ''))}",
        "",
        "</div>",
        "",
    ]


# ------------------------------------------------------------------------------------------- the ledger page
_LEDGER_PAGE = """# Claims ledger

Every statement of the four papers that the notebooks test, one row each, at every profile this site shows
({profiles}: choose one with **profile**; the page opens on `{profile}`). Filter by paper, verdict, evidence class
and central claims, or search the text; **cell** opens the row on the notebook page of its profile, under the cell
that recorded it, **section** the notebook section holding its evidence, and **figure** the figure that shows it.
The rows come from `results/<profile>/claims/*.json` (as [`assets/ledger.json`](assets/ledger.json) and
[`assets/ledger.csv`](assets/ledger.csv), one row per line with its profile, for a spreadsheet). A filter can be
linked: <a href="ledger.html#{example}"><code>ledger.html#{example}</code></a> ({example_rows} rows).

<div id="ledger-app" data-src="assets/ledger.json">
<noscript>The interactive table needs JavaScript; the same rows are in results/CLAIMS.md (default profile) and
results/paper/CLAIMS.md (paper profile).</noscript>
</div>
"""


def ledger_page(records: list[dict], profile: str, profiles: list[str]) -> str:
    """The claims ledger page of a site opening on ``profile`` and showing ``profiles``."""
    example, rows = example_filter([r for r in records if r.get("profile", profile) == profile])
    names = ", ".join(f'<a href="ledger.html#profile={p}"><code>{p}</code></a>' for p in profiles)
    return _LEDGER_PAGE.format(profile=profile, profiles=names, example=example, example_rows=rows)


def example_filter(records: list[dict]) -> tuple[str, int]:
    """A filter of the ledger page worth linking as its example: the paper and decided verdict with the most rows
    (contradicted and erratum first), and how many rows it shows; never one that shows none."""
    from collections import Counter

    counts = Counter((r.get("paper"), r.get("verdict")) for r in records if not r.get("part_of"))  # counted rows
    for verdicts in (("contradicted", "erratum"), ("reproduced", "consistency"), tuple({v for _, v in counts})):
        found = [(n, k) for k, n in counts.items() if k[1] in verdicts and n > 0]
        if found:
            n, (paper, verdict) = max(found, key=lambda t: (t[0], str(t[1])))
            return f"paper={paper}&verdict={verdict.replace(' ', '%20')}", n
    return "", 0


def ledger_csv(records: list[dict], path: Path) -> None:
    """The ledger rows of the site as CSV (one row per claim, the columns of ``assets/ledger.json``)."""
    import pandas as pd

    frame = pd.DataFrame(records)
    for col in frame.columns:  # lists and dicts (links, intervals) as JSON text: one cell each
        if frame[col].map(lambda v: isinstance(v, (list, dict))).any():
            frame[col] = frame[col].map(lambda v: json.dumps(v) if isinstance(v, (list, dict)) else v)
    frame.to_csv(path, index=False)


# ------------------------------------------------------------------------------------ home page and page heads
HOME_PROFILES_START = "<!-- site:profiles -->"


def home_profiles(profiles: dict[str, list[str]], primary: str) -> str:
    """The home page's paragraph linking every profile's ledger and notebook pages (``profiles``: each profile
    the site shows, with its notebooks)."""
    items = []
    for p, notebooks in profiles.items():
        first = page_name(notebooks[0], p, primary).replace(".ipynb", ".html") if notebooks else ""
        nbs = ", ".join(nb[:2] for nb in notebooks)
        items.append(
            f'<li>profile <code>{p}</code>: <a href="ledger.html#profile={p}">its claims ledger</a> and '
            f'<a href="notebooks/{first}">its notebook pages</a> (notebooks {nbs})</li>'
        )
    return (
        f'{HOME_PROFILES_START}\n<div class="robeval-profiles" markdown="0"><p><strong>On this site, every executed '
        'profile</strong> (the table\'s rows; the <a href="glossary.html">glossary</a> defines the profiles):</p>\n<ul>\n'
        + "\n".join(items)
        + "\n</ul></div>\n"
    )


def page_head(notebook: str, profile: str, claims: list[dict], shown: list[str], primary: str) -> str:
    """The Markdown cell that opens a notebook page: the profile switch (``shown``: the profiles whose page of
    this notebook the site holds) and the verdict summary of its counted rows, central claims listed."""
    from collections import Counter

    switch = " · ".join(
        f"**{p}** (this page)"
        if p == profile
        else f"[{p}]({page_name(notebook, p, primary).replace('.ipynb', '.html')})"
        for p in shown
    )
    counted = [c for c in claims if not c.get("part_of")]
    central = [c for c in counted if c.get("central")]

    def tally(rows):
        n = Counter(c.get("verdict", "") for c in rows)
        return ", ".join(f"{k} {v}" for k, v in sorted(n.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"

    lines = [
        '<div class="robeval-page-head" markdown="0">',
        f"<p><strong>Profile</strong>: {_md_links(switch)}. The code cells are folded (<em>Show code</em>).</p>",
        f"<p><strong>Verdicts at profile <code>{profile}</code></strong>: {len(central)} central claims "
        f"({tally(central)}); all {len(counted)} counted rows: {tally(counted)}. "
        f'<a href="#claims-ledger">Every row on this page</a> · '
        f'<a href="../ledger.html#profile={profile}&amp;q={notebook}">in the claims ledger</a>.</p>',
        "<p><strong>Cite</strong> the paper this notebook reproduces and the compendium: "
        '<a href="../cite.html">How to cite</a> (<a href="../CITATION.cff">CITATION.cff</a>, '
        '<a href="../CITATION.bib">BibTeX</a>).</p>',
    ]
    if central:
        lines.append("<ul>")
        for c in central:
            text = c.get("description", "")
            text = text if len(text) <= 150 else text[:149].rstrip() + "…"
            verdict = c.get("verdict", "")
            lines.append(
                f'<li><a href="#{_attr(claim_anchor(c["id"]))}"><code>{html.escape(c["id"])}'
                f'</code></a> <span class="verdict verdict-{verdict.replace(" ", "-")}">{html.escape(verdict)}'
                f"</span>: {html.escape(text)}</li>"
            )
        lines.append("</ul>")
    lines.append("</div>")
    return "\n".join(lines)


def _md_links(text: str) -> str:
    """``[a](b)`` and ``**x**`` of a short Markdown line as HTML (the page head is raw HTML)."""
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


# --------------------------------------------------------------------------------------- the "Rerun it" note
_RERUN_NOTE = """
> **This website shows stored results.** Its pages show the **stored** results of profile `{profile}`{others}:
> `make site` ran every notebook without its compute cells (`robeval run --replot`), so nothing was recomputed. The
> commands below recompute them; `make site` (with `PROFILE=...` for another profile to open on) builds this website
> into `build/site`.
>
> **Binder**: `binder/` holds the environment. Binder needs the repository's public GitHub address, which does not
> exist until the compendium is published; to be filled in then: the Binder link of that repository, opened on
> `notebooks/` with the *Python (robeval)* kernel (the `smoke` profile fits Binder's limits).
>
> **Publishing**: the GitHub Pages workflow `.github/workflows/site.yml` builds and publishes this site on every push
> to `main`; by hand, `make site && make site-deploy` pushes `build/site` to the `gh-pages` branch.
"""


def rerun_note(running_md: str, profile: str, others: tuple[str, ...] = ()) -> str:
    """``docs/running.md`` as the site's one "Rerun it" page: the note on what the site shows (its stored results
    of ``profile`` and of ``others``, Binder, publishing) right below the page's title."""
    head, sep, rest = running_md.partition("\n")
    if not head.startswith("# "):
        raise ValueError("docs/running.md must open with its '# ' title line.")
    extra = (" and of " + ", ".join(f"`{p}`" for p in others)) if others else ""
    return head + sep + _RERUN_NOTE.format(profile=profile, others=extra) + rest


def build_stamp(profile: str) -> str:
    """What every page says it was built from: the profile, the checkout's commit (``git rev-parse``; "a checkout
    without git history" when there is none) and the build's date (UTC)."""
    import datetime
    import subprocess

    from robeval.core import paths as project

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=project.ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"Built from commit {commit or '(a checkout without git history)'} on {when}, profile {profile}."


# ------------------------------------------------------------------------------------ passes on built pages
_CODE_CELL = re.compile(r'<div class="jp-Cell jp-CodeCell[^"]*"[^>]*>\s*<div class="jp-Cell-inputWrapper"[^>]*>')
_DIV = re.compile(r"<div\b|</div>")


def _closing_div(text: str, start: int) -> int:
    """Index just after the ``</div>`` closing the ``<div`` that opens at ``start``."""
    depth = 0
    for m in _DIV.finditer(text, start):
        depth += 1 if m.group() == "<div" else -1
        if depth == 0:
            return m.end()
    raise ValueError("unbalanced <div> in a notebook page")


def fold_code(page: str) -> tuple[str, int]:
    """Fold the input of every code cell of a built notebook page into ``<details class="robeval-code">`` (closed;
    *Show code* opens it), so the page reads as its prose, outputs and figures. Returns the page and how many."""
    out, pos, n = [], 0, 0
    for m in _CODE_CELL.finditer(page):
        begin = page.index('<div class="jp-Cell-inputWrapper"', m.start())
        if begin < pos:
            continue
        end = _closing_div(page, begin)
        out += [page[pos:begin], '<details class="robeval-code"><summary>Show code</summary>', page[begin:end]]
        out.append("</details>")
        pos, n = end, n + 1
    return "".join(out) + page[pos:], n


_TABLE = re.compile(r"<table\b|</table>")


def scroll_tables(page: str) -> tuple[str, int]:
    """Wrap every outermost ``<table>`` of a built page in ``<div class="robeval-table-scroll">`` (it scrolls
    sideways inside itself, site.css), so a wide table never widens the page. Returns the page and how many."""
    out, pos, depth, n = [], 0, 0, 0
    for m in _TABLE.finditer(page):
        if m.group() == "<table":
            if depth == 0:
                out += [page[pos : m.start()], '<div class="robeval-table-scroll">']
                pos, n = m.start(), n + 1
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                out += [page[pos : m.end()], "</div>"]
                pos = m.end()
    return "".join(out) + page[pos:], n
