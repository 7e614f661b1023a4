"""The reader's website (``make site``, ``robeval site``): the executed notebooks, the claims ledger and the
figures as one static site, built from the STORED results of a profile without recomputing anything.

Steps (:func:`build_site`):

1. every notebook runs in replot mode (:func:`robeval.core.notebooks.run_notebook` with ``replot=True``: the
   cells tagged ``compute`` are dropped), writing its rebuilt ledger and figures into a scratch folder so that
   the committed results are never touched (as ``robeval verify`` does);
2. the executed copies lose papermill's injected-parameters cell (:func:`hide_injected_parameters`) and the
   sections that only the dropped compute cells filled (:func:`tidy_sections`: dry-run sections go, others say
   why no code follows), then get anchors (:func:`annotate_notebook`): one per section heading, one per saved
   figure, and after the cell that saves the ledger the short index of its rows, each with the anchor
   ``claim-<id>``; every image gets alt text from the caption of the figure it shows (:func:`label_images`);
3. the ledger rows become ``assets/ledger.json`` for the interactive ledger page (``assets/ledger.js``), the
   figure manifest becomes the gallery, and mkdocs with mkdocs-jupyter renders everything (with the guides and
   the API reference of ``mkdocs.yml``) into ``build/site``.

Tool choice: mkdocs-jupyter, because the guides and API reference already use mkdocs + mkdocstrings and it
renders executed notebooks offline (no CDN or network is needed to build). The site needs no network to be read
either: MathJax is copied in from the jupyter-server-mathjax package (:func:`_install_mathjax`).
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import shutil
from pathlib import Path

from robeval.core import paths as project
from robeval.core.catalog import COMPUTE_TAG
from robeval.core.paths import check_profile
from robeval.core.publish.labels import same_or_panel
from robeval.core.publish.markdown import code, inline
from robeval.core.publish.report import format_value
from robeval.core.publish.view import CSS_CLASS as INDEX_CLASS
from robeval.core.publish.view import reason, short_index
from robeval.core.site.pages import (
    PRIMARY,
    build_stamp,
    claim_anchor,
    figure_alt,
    figure_label_text,
    gallery,
    ledger_csv,
    page_name,
    paper_refs,
    rerun_note,
    row_fragment,
)

__all__ = ["build_site"]

EVIDENCE_CLASSES = ("replication", "scaled replication", "reanalysis", "derivation", "environment")
LEDGER_JSON = "assets/ledger.json"
CITATION_FILES = ("CITATION.cff", "CITATION.bib")  # copied to the site root beside cite.html
LEDGER_CSV = "assets/ledger.csv"
SITE_MARKER = ".robeval-site"  # in a site folder robeval built: a later build may empty it (hidden: mkdocs keeps it)
WORK_MARKER = ".robeval-site-src"  # the same in a scratch folder of a build
# TeX in Markdown cells is typeset by MathJax 2, served from the site itself: the files come from the
# jupyter-server-mathjax package (in the `docs` extra), so the notebook pages render their math offline too.
# Without that package the pages load MathJax from this CDN instead (offline they then show the raw TeX).
MATHJAX_URL = "https://cdn.jsdelivr.net/npm/mathjax@2.7.9/MathJax.js?config=TeX-AMS_HTML"
MATHJAX_DIR = "assets/mathjax"
# The package ships the STIX web fonts only, not MathJax's TeX fonts: typeset with STIX-Web (as Jupyter's own
# pages do), and point the @font-face rules that would fetch absent files (the hidden MathML for screen
# readers, HTML-CSS's font probe at about:blank, which Chromium blocks) at local() names, so a page makes no
# failed request.
_MATHJAX_LOCAL_CONFIG = """MathJax.Hub.Config({
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               styles: {"@font-face": {src: "local('MathJax_Blank')"}}},
  NativeMML: {styles: {
    "@font-face /*1*/": {src: "local('MathJax_Caligraphic')"}, "@font-face /*2*/": {src: "local('MathJax_Caligraphic')"},
    "@font-face /*3*/": {src: "local('MathJax_AMS')"}, "@font-face /*4*/": {src: "local('MathJax_Script')"},
    "@font-face /*5*/": {src: "local('MathJax_Fraktur')"}, "@font-face /*6*/": {src: "local('MathJax_Fraktur')"}
  }}
});
MathJax.Ajax.loadComplete("[MathJax]/config/local/robeval.js");
"""
_CLAIMS_HEADING = "claims-ledger"


def figure_for_claim(claim: dict, manifest: list[dict]) -> str | None:
    """The name of the manifest figure of the claim's notebook that reproduces a figure or table the claim's
    ``source`` cites (Fig./Table references only), or None when the manifest ties none."""
    refs = [r for r in paper_refs(claim.get("source") or "") if r.split()[0] in ("Fig.", "Table")]
    for ref in refs:
        for entry in manifest:
            if entry.get("notebook") != claim.get("notebook"):
                continue
            if any(same_or_panel(ref, other) for other in paper_refs(entry.get("reproduces", ""))):
                return entry["figure"]
    return None


def _headings(nb) -> list[tuple[int, str]]:
    """(cell index, heading text) of every Markdown heading of ``nb``."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("#"):
                out.append((i, line.lstrip("#").strip()))
    return out


def section_for_claim(claim: dict, headings: list[tuple[int, str]]) -> int | None:
    """Index of the first heading cell (below the title) citing one of the claim's references, else None."""
    refs = paper_refs(claim.get("source") or "")
    for ref in refs:
        for i, text in headings[1:]:
            if any(same_or_panel(ref, other) or same_or_panel(other, ref) for other in paper_refs(text)):
                return i
    return None


def _attr(s: str) -> str:
    return html.escape(s, quote=True)


_STRING = re.compile(r"""(?P<f>[fF]?)(?P<q>["'])(?P<s>[^"'\n]*)(?P=q)""")


def figure_cell(nb, name: str) -> int | None:
    """Index of the first code cell that saves figure ``name``: it names it in quotes, or builds it with an
    f-string whose literal parts match (``f"mscr_fig3_dataset_{cfg.dataset}"`` saves ``mscr_fig3_dataset_B``)."""
    hit = _figure_position(nb, name)
    return hit[0] if hit is not None else None


def _figure_position(nb, name: str) -> tuple[int, int] | None:
    """(cell index, offset in its source) of the string that names figure ``name`` (:func:`figure_cell`)."""
    for exact in (True, False):
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for m in _STRING.finditer(cell.source):
                if exact and not m["f"] and m["s"] == name:
                    return i, m.start()
                if not exact and m["f"] and "{" in m["s"]:
                    parts = re.split(r"\{[^{}]*\}", m["s"])
                    if any(parts) and re.fullmatch("[^/]+?".join(map(re.escape, parts)), name):
                        return i, m.start()
    return None


NBCONVERT_DEFAULT_ALT = "No description has been provided for this image"  # nbconvert's alt for an image without


def _png_of(output) -> str | None:
    data = output.get("data") or {}
    png = data.get("image/png")
    if png is None or any(k in data for k in ("text/html", "image/svg+xml")):
        return None
    return ("".join(png) if isinstance(png, list) else png).replace("\n", "")


def label_images(nb, alts: dict[int, list[str]], hrefs: dict[int, list[str]] | None = None) -> int:
    """Give every PNG output of an executed notebook (in place) alt text: the k-th image of cell ``i`` gets
    ``alts[i][k]`` (the figures that cell saves, in the order it saves them), any other image the text of the
    section heading above it. The output becomes an HTML ``<img>`` with that ``alt`` (nbconvert writes its
    :data:`NBCONVERT_DEFAULT_ALT` on every image output it renders itself). The k-th image of cell ``i`` links to
    ``hrefs[i][k]`` where given (the full-size PNG: a click enlarges it). Returns how many images it labelled."""
    heading, done = "", 0
    for i, cell in enumerate(nb.cells):
        head = _heading(cell)
        if head is not None:
            heading = re.sub(r"<[^>]+>", "", head.lstrip("#")).strip()
        if cell.cell_type != "code":
            continue
        k = 0
        for output in cell.get("outputs", []):
            png = _png_of(output)
            if png is None:
                continue
            named = alts.get(i, [])
            alt = named[k] if k < len(named) else f"Figure drawn in the section “{heading or 'notebook'}”"
            links = (hrefs or {}).get(i, [])
            href = links[k] if k < len(links) else None
            k += 1
            meta = (output.get("metadata") or {}).get("image/png") or {}
            size = "".join(f' {key}="{int(meta[key])}"' for key in ("width", "height") if meta.get(key))
            data = {key: v for key, v in output["data"].items() if key != "image/png"}
            img = f'<img class="robeval-output-figure" src="data:image/png;base64,{png}" alt="{_attr(alt)}"{size}>'
            data["text/html"] = (
                f'<a class="robeval-figure-link" href="{_attr(href)}" title="the full-size figure">{img}</a>'
                if href
                else img
            )
            output["data"] = data
            done += 1
    return done


INJECTED_TAG = "injected-parameters"  # papermill's tag on the cell it adds with the run's parameters


def hide_injected_parameters(nb) -> int:
    """Remove papermill's injected-parameters cells from an executed notebook (in place); returns how many.
    The site shows the notebook's own ``parameters`` cell; the profile is stated on every page already."""
    keep = [c for c in nb.cells if INJECTED_TAG not in (c.get("metadata", {}).get("tags") or [])]
    removed = len(nb.cells) - len(keep)
    nb.cells = keep
    return removed


def _heading(cell) -> str | None:
    if cell.cell_type != "markdown":
        return None
    return next((line.strip() for line in cell.source.splitlines() if line.startswith("#")), None)


def compute_only_sections(source_nb) -> dict[str, str]:
    """The sections of a notebook (by heading line) whose code cells are all tagged ``compute``, so that the site
    (which runs without them) would show them empty: ``"dry run"`` when each of those cells runs only in a dry
    run (``if cfg.dry_run:``), else ``"compute"``."""
    out = {}
    heads = [i for i, c in enumerate(source_nb.cells) if _heading(c)]
    for k, h in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(source_nb.cells)
        code = [c for c in source_nb.cells[h + 1 : end] if c.cell_type == "code"]
        if code and all(COMPUTE_TAG in (c.get("metadata", {}).get("tags") or []) for c in code):
            dry = all(c.source.lstrip().startswith("if cfg.dry_run") for c in code)
            out[_heading(source_nb.cells[h])] = "dry run" if dry else "compute"
    return out


_COMPUTE_NOTE = (
    "\n\n*On this site the code of this section is not shown: it computes (cells tagged `compute`), and the site "
    "shows the stored results, in the sections below. Run the notebook (`make reproduce`) to see it.*"
)


def tidy_sections(nb, emptied: dict[str, str]) -> list[str]:
    """Drop or explain the sections ``emptied`` (:func:`compute_only_sections` of the source notebook) in an
    executed replot copy (in place): a dry-run section (its cells run only under ``ROBEVAL_DRY_RUN=1``) is
    removed with its prose; a computing section keeps its prose with a note saying why no code follows.
    Returns the headings of the removed sections."""
    removed, cells, skipping = [], [], False
    for cell in nb.cells:
        head = _heading(cell)
        if head is not None:
            skipping = emptied.get(head) == "dry run"
            if skipping:
                removed.append(head)
                continue
            if emptied.get(head) == "compute":
                cell.source = cell.source.rstrip() + _COMPUTE_NOTE
        if not skipping:
            cells.append(cell)
    nb.cells = cells
    return removed


def annotate_notebook(
    nb,
    claims: list[dict],
    manifest: list[dict],
    gallery: bool = True,
    profile: str = PRIMARY,
    notebook: str = "",
    figure_dir: str = "",
) -> dict:
    """Add anchors to an executed notebook (in place) and return what each claim and figure links to.

    * each heading cell gets ``<a id="cell-<i>">`` (``i``: its index before annotation);
    * the cell that saves a manifest figure (its source names the figure in quotes) is preceded by a Markdown
      cell with ``<a id="fig-<name>">``, what it reproduces and the functions that computed and drew it, and its
      images get alt text (:func:`label_images`: the figure's :func:`figure_alt`);
    * the cell that saves the ledger (``ledger.save()``) is followed by a Markdown cell with the anchor
      ``claims-ledger`` and the short index of its rows (:func:`robeval.core.publish.view.short_index`), each row
      with the anchor :func:`claim_anchor`; the index that cell displayed itself is dropped.

    The figure of a manifest entry is found by :func:`figure_cell`. ``gallery=False`` (a page of a profile other
    than the one the gallery shows) leaves out the figures' links to the gallery. Each row's "ledger" link is its
    permalink at ``profile`` (:func:`robeval.core.site.pages.row_fragment`; ``notebook``: the page's notebook, else
    the row's own ``notebook`` field). ``figure_dir`` (e.g. ``"../figures/"``): where the site holds the figures'
    PNGs, which each image then links to (full size on click).

    Returns
    -------
    dict
        ``{"claims": {id: {"section": "cell-<i>" | None, "figure": name | None}}, "figures": {name: anchor}}``.
    """
    import nbformat

    headings = _headings(nb)
    heading_cells = sorted({i for i, _ in headings})
    links = {"claims": {}, "figures": {}}
    for c in claims:
        sec = section_for_claim(c, headings)
        links["claims"][c["id"]] = {
            "section": f"cell-{sec}" if sec is not None else None,
            "figure": figure_for_claim(c, manifest),
        }
    before: dict[int, list] = {}
    after: dict[int, list] = {}
    saved: dict[int, list[tuple[int, str, str]]] = {}  # cell -> (offset, alt text, name) of the figures it saves
    for entry in manifest:
        where = _figure_position(nb, entry["figure"])
        if where is not None:
            saved.setdefault(where[0], []).append((where[1], figure_alt(entry), entry["figure"]))
    label_images(
        nb,
        {i: [alt for _, alt, _ in sorted(v)] for i, v in saved.items()},
        {i: [f"{figure_dir}{name}.png" for _, _, name in sorted(v)] for i, v in saved.items()} if figure_dir else None,
    )
    for entry in manifest:
        name = entry["figure"]
        hit = figure_cell(nb, name)
        if hit is None:
            continue
        links["figures"][name] = f"fig-{name}"
        before.setdefault(hit, []).append(
            nbformat.v4.new_markdown_cell(
                f'<a id="fig-{_attr(name)}"></a>\n\n**Figure `{name}`** — {inline(figure_label_text(entry))}; '
                f"data computed by {code(entry.get('data_from', ''))}, drawn by {code(entry.get('plotted_by', ''))}"
                + (f" ([gallery](../gallery.html#fig-{name}))." if gallery else ".")
            )
        )
    save_cell = next(
        (i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and "ledger.save()" in cell.source), None
    )
    if save_cell is not None and claims:
        # the site's index (with anchors and links) replaces the one the notebook displayed
        nb.cells[save_cell].outputs = [o for o in nb.cells[save_cell].get("outputs", []) if not _is_index(o)]
        after[save_cell] = [nbformat.v4.new_markdown_cell(_claims_table(claims, links["claims"], profile, notebook))]
    for i in heading_cells:
        nb.cells[i].source = f'<a id="cell-{i}"></a>\n\n' + nb.cells[i].source
    cells = []
    for i, cell in enumerate(nb.cells):
        cells += before.get(i, []) + [cell] + after.get(i, [])
    nb.cells = cells
    return links


def _is_index(output) -> bool:
    """Whether a cell output is the notebook's own short index of the ledger (robeval.core.publish.view)."""
    html_text = (output.get("data") or {}).get("text/html", "")
    html_text = "".join(html_text) if isinstance(html_text, list) else html_text
    return f'class="{INDEX_CLASS}"' in html_text


def _claims_table(claims: list[dict], links: dict, profile: str = PRIMARY, notebook: str = "") -> str:
    """The Markdown cell (raw HTML) listing the ledger rows recorded by the cell above it: the short index of
    :func:`robeval.core.publish.view.short_index`, each row with its anchor and its section, figure and ledger
    links (the ledger link: the row's permalink at ``profile``)."""
    row_links = {}
    for c in claims:
        link = links.get(c["id"], {})
        extra = []
        if link.get("section"):
            extra.append(("section", f"#{link['section']}"))
        if link.get("figure"):
            extra.append(("figure", f"#fig-{link['figure']}"))
        extra.append(("ledger", f"../ledger.html#{row_fragment(profile, notebook or c.get('notebook', ''), c['id'])}"))
        row_links[c["id"]] = extra
    index = short_index(claims, anchor=claim_anchor, links=row_links).to_html()
    return (
        f'<a id="{_CLAIMS_HEADING}"></a>\n\n**Ledger rows recorded by the cell above** (★ central; every column '
        f"of every row: the [claims ledger](../ledger.html))\n\n" + index
    )


def ledger_records(
    ledgers: list[dict], links: dict, manifest: list[dict], profile: str = PRIMARY, primary: str = PRIMARY
) -> list[dict]:
    """One flat record per ledger row for ``assets/ledger.json``, with the pages it links to.

    ``ledgers``: dicts as :func:`robeval.core.ledger.load_ledgers` returns, of ``profile``; ``links``: per
    notebook, the result of :func:`annotate_notebook`. The new row fields ``evidence`` and ``unit`` are read when
    present. Rows of a profile other than the site's ``primary`` link their notebook pages of that profile
    (:func:`robeval.core.site.pages.page_name`) and show their figures there (the gallery holds the primary's).
    """
    from robeval.core.ledger import PAPERS

    figures = {e["figure"]: e for e in manifest}
    out = []
    for led in ledgers:
        nb = led["notebook"]
        nb_links = links.get(nb, {"claims": {}, "figures": {}})
        for c in led["claims"]:
            link = nb_links["claims"].get(c["id"], {})
            fig = link.get("figure") or figure_for_claim(c, manifest)
            fig = fig if fig and fig in figures else None
            page = "notebooks/" + page_name(nb, profile, primary).replace(".ipynb", ".html")
            if fig and profile != primary:
                fig_link = f"{page}#fig-{fig}" if fig in nb_links["figures"] else None
            else:
                fig_link = f"gallery.html#fig-{fig}" if fig else None
            out.append(
                {
                    "profile": profile,
                    "id": c["id"],
                    "notebook": nb,
                    "paper": c.get("paper", led.get("paper")),
                    "paper_name": PAPERS.get(c.get("paper", led.get("paper")), c.get("paper")),
                    "source": c.get("source") or "",
                    "description": c.get("description", ""),
                    "verdict": c.get("verdict", ""),
                    "central": bool(c.get("central")),
                    # one reading of an ambiguous statement: shown on demand, never counted (as in the README)
                    "part_of": c.get("part_of") or "",
                    "evidence": c.get("evidence"),
                    "unit": c.get("unit"),
                    "paper_value": format_value(c.get("paper_value")),
                    "estimate": format_value(c.get("estimate")),
                    "ci": format_value(c.get("ci")) if c.get("ci") is not None else "",
                    "n_runs": c.get("n_runs"),
                    "rule": c.get("rule") or "",
                    "margin": format_value(c.get("margin")) if c.get("margin") is not None else "",
                    "decides": c.get("decides") or "",
                    "why": reason(c),
                    "note": c.get("note") or "",
                    "cell": f"{page}#{claim_anchor(c['id'])}",
                    "section": f"{page}#{link['section']}" if link.get("section") else None,
                    "figure": fig_link,
                    "figure_name": fig if fig_link else None,
                }
            )
    return out


def _execute(profile: str, chosen: list[Path], work: Path) -> dict[str, Path]:
    """Run ``chosen`` notebooks in replot mode; ledgers and figures go to ``work`` (committed files untouched)."""
    from robeval.core.io import mark_owned_folder
    from robeval.core.notebooks import OUTPUT_MARKER, run_notebook, scratch_outputs

    (work / "executed").mkdir(parents=True, exist_ok=True)
    mark_owned_folder(work / "executed", OUTPUT_MARKER)  # in the checked work folder: robeval's own

    # the kernel must display figures inline (a headless MPLBACKEND=Agg, as in the tests, would hide them)
    with scratch_outputs(work, MPLBACKEND="module://matplotlib_inline.backend_inline"):
        return {p.stem: run_notebook(p, profile, output_dir=work / "executed", replot=True) for p in chosen}


def _install_mathjax(src: Path) -> str:
    """Copy MathJax into the site's sources (``assets/mathjax``) and return the URL the notebook pages (one
    folder deep) load it from; the CDN URL when the jupyter-server-mathjax package is not installed."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        return MATHJAX_URL
    static = Path(jupyter_server_mathjax.__file__).parent / "static"
    if not (static / "MathJax.js").is_file():
        return MATHJAX_URL
    target = src / MATHJAX_DIR
    shutil.copytree(static, target)
    (target / "config" / "local").mkdir(parents=True, exist_ok=True)
    (target / "config" / "local" / "robeval.js").write_text(_MATHJAX_LOCAL_CONFIG, encoding="utf-8")
    return f"../{MATHJAX_DIR}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,local/robeval"


MAX_TOP_NAV = 8  # top-level items of the site's navigation bar (issue 47, item 6: one row at 1400 px)


def site_nav(guides: list, notebooks, primary: str = PRIMARY) -> list:
    """The site's navigation: ``mkdocs.yml``'s (reader pages first, developer pages in one section) with the
    claims ledger, the notebooks and the figure gallery after its "Results" section (after "Home" when it has
    none). ``notebooks``: the notebook names, or ``{profile: names}`` for a site of several profiles (then the
    "Notebooks" menu holds one section per profile, ``primary`` first). "Rerun it" stays the one page
    ``running.md``: the site's note on its stored results opens it (:func:`rerun_note`). ValueError when the
    result has more than :data:`MAX_TOP_NAV` top-level items."""
    if isinstance(notebooks, dict) and len(notebooks) == 1:
        primary, notebooks = next(iter(notebooks.items()))
    if isinstance(notebooks, dict):
        pages = [
            {f"Profile {p}": [f"notebooks/{page_name(nb, p, primary)}" for nb in names]}
            for p, names in notebooks.items()
        ]
    else:
        pages = [f"notebooks/{nb}.ipynb" for nb in notebooks]
    site_pages = [
        {"Claims ledger": "ledger.md"},
        {"Notebooks": pages},
        {"Figure gallery": "gallery.md"},
    ]
    names = [next(iter(item)) if isinstance(item, dict) else item for item in guides]
    at = names.index("Results") + 1 if "Results" in names else (names.index("Home") + 1 if "Home" in names else 0)
    nav = list(guides[:at]) + site_pages + list(guides[at:])
    if len(nav) > MAX_TOP_NAV:
        raise ValueError(
            f"The site's navigation has {len(nav)} top-level items ({', '.join(map(str, names))} and the site's "
            f"three); at most {MAX_TOP_NAV} fit one row: group pages into sections in mkdocs.yml's nav."
        )
    return nav


def _mkdocs_config(
    src: Path, site_dir: Path, notebooks, mathjax_url: str = MATHJAX_URL, stamp: str = "", primary: str = PRIMARY
) -> Path:
    """The site's mkdocs config: the project's ``mkdocs.yml`` plus the notebook, ledger and gallery pages
    (:func:`site_nav`) and the mkdocs-jupyter plugin."""
    import yaml

    cfg = yaml.safe_load((project.ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    cfg["docs_dir"] = str(src)
    cfg["site_dir"] = str(site_dir)
    cfg["use_directory_urls"] = False  # pages are plain .html files: links work from a file browser too
    cfg["nav"] = site_nav(cfg.get("nav", []), notebooks, primary)
    plugins = []
    for p in cfg.get("plugins", []):
        if isinstance(p, dict) and "mkdocstrings" in p:
            p["mkdocstrings"]["handlers"]["python"]["paths"] = [str(project.ROOT / "lib")]
        plugins.append(p)
    plugins.append(
        {
            "mkdocs-jupyter": {
                "execute": False,
                "include_source": True,
                "ignore_h1_titles": False,
                "cache": False,  # its default cache folder is relative to the working directory
                "custom_mathjax_url": mathjax_url,
            }
        }
    )
    # highlight.js would come from a CDN; notebook code is highlighted by nbconvert already
    theme = cfg.get("theme") or {"name": "mkdocs"}
    cfg["theme"] = {**({"name": theme} if isinstance(theme, str) else theme), "highlightjs": False}
    cfg["plugins"] = plugins
    extensions = list(cfg.get("markdown_extensions") or [])
    if "md_in_html" not in extensions:
        extensions.append("md_in_html")  # Markdown inside the gallery's <div markdown="1"> blocks
    cfg["markdown_extensions"] = extensions
    cfg["extra_css"] = ["assets/site.css"]
    cfg["extra_javascript"] = ["assets/ledger.js"]
    # any warning fails the build, as `make docs` (a docstring griffe misreads, a broken page link); the links of
    # the guides to repository files outside docs/ are left unchecked by mkdocs.yml's `validation`
    cfg["strict"] = True
    if stamp:  # the theme prints it at the foot of every page
        cfg["copyright"] = stamp
    out = src.parent / "mkdocs.yml"
    out.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


def executed_profiles(exclude=("smoke",)) -> list[str]:
    """The profiles with stored ledgers in the committed results (``results/<profile>/claims``), in
    :data:`robeval.core.paths.PROFILES` order; ``smoke`` (build output of CI) left out."""
    from robeval.core.paths import PROFILES, RESULTS_DIR

    return [p for p in PROFILES if p not in exclude and any((RESULTS_DIR / p / "claims").glob("*.json"))]


def build_site(
    profile: str = "default", only=None, site_dir=None, work_dir=None, execute: bool = True, also=None
) -> Path:
    """Build the static website of ``profile`` (and of the profiles ``also``) from stored results; returns the
    site folder.

    Parameters
    ----------
    profile : str
        smoke, default, long, gpu or paper: the profile the site opens on (its notebook pages, gallery and ledger filter).
    only : str or list of str, optional
        Notebooks to include (numbers or names, as ``robeval run --only``); default all with a stored ledger.
    site_dir, work_dir : path, optional
        Output (default ``build/site``) and scratch folder (default ``build/site-src/<profile>``).
    execute : bool
        False reuses the executed copies already in ``work_dir/executed`` (a restyle of the site only).
    also : list of str, optional
        Further profiles shown beside ``profile``: their notebook pages (``notebooks/<nb>.<profile>.html``, of the
        chosen notebooks they hold a ledger for) and their ledger rows under the ledger page's profile filter.
        Default: every other executed profile (:func:`executed_profiles`); ``()`` for one profile only.

    Raises
    ------
    FileNotFoundError
        A chosen notebook has no stored ledger in the profile (run it first: ``make reproduce``).
    """
    from robeval.core.catalog import notebook_paths
    from robeval.core.ledger import load_ledgers
    from robeval.core.paths import results_dir

    check_profile(profile)
    if not isinstance(execute, bool):
        raise TypeError(f"execute must be True or False, got {type(execute).__name__}.")
    from robeval.core.io import check_owned_folder, folder_lock, mark_owned_folder

    also = [p for p in executed_profiles() if p != profile] if also is None else [check_profile(p) for p in also]
    # both folders are emptied and refilled: only robeval's own (the defaults under build/, or one carrying the
    # marker of an earlier build) or an empty one; relative paths resolve against the working directory
    site_dir = check_owned_folder(
        site_dir if site_dir is not None else project.BUILD_DIR / "site",
        "site_dir (--site-dir)",
        SITE_MARKER,
        ours=project.BUILD_DIR if site_dir is None else False,
        mark=False,
    )
    work = check_owned_folder(
        work_dir if work_dir is not None else project.BUILD_DIR / "site-src" / profile,
        "work_dir",
        WORK_MARKER,
        ours=project.BUILD_DIR if work_dir is None else False,
        mark=False,
    )
    if site_dir == work or work in site_dir.parents or site_dir in work.parents:
        raise ValueError(
            f"site_dir {site_dir} and work_dir {work} overlap (one would empty the other); pass separate folders."
        )
    stored = {led["notebook"]: led for led in load_ledgers(profile)}
    # only None means every notebook: '' or ',' selects none and is refused (as `robeval run --only ''` is)
    chosen = notebook_paths(only) if only is not None else [p for p in notebook_paths() if p.stem in stored]
    missing = [p.stem for p in chosen if p.stem not in stored]
    if missing or not chosen:
        raise FileNotFoundError(
            f"No stored ledger of profile {profile!r} for {missing or 'any notebook'} in "
            f"{results_dir(profile) / 'claims'}; run them first (`make reproduce PROFILE={profile}`)."
        )
    with contextlib.ExitStack() as held:  # one build at a time per folder: two would fill each other's pages
        for folder, option in ((site_dir, "--site-dir"), (work, "work folder")):
            busy = (
                f"another `robeval site` is building with {folder} ({option}); wait for it to finish, or build "
                "into another --site-dir (each profile has its own work folder, build/site-src/<profile>)."
            )
            held.enter_context(folder_lock(folder, wait=False, busy=busy))
        mark_owned_folder(site_dir, SITE_MARKER)  # every check passed: both folders are robeval's from here on
        mark_owned_folder(work, WORK_MARKER)
        _fill_site(profile, chosen, also, site_dir, work, execute)
    return site_dir


def _fill_site(profile: str, chosen: list, also: list, site_dir: Path, work: Path, execute: bool) -> None:
    """The build of :func:`build_site` once its folders are checked and held: the site's sources in
    ``work/docs``, then mkdocs into ``site_dir``."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from robeval.core.ledger import load_ledgers
    from robeval.core.site.pages import home_profiles, ledger_page

    src = work / "docs"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(project.ROOT / "docs", src)
    for name in CITATION_FILES:  # the How to cite page links them (issue 61, item 7)
        shutil.copy(project.ROOT / name, src / name)
    for sub in ("notebooks", "assets", "figures"):
        (src / sub).mkdir()
    shown: dict[str, list[str]] = {profile: [p.stem for p in chosen]}
    for other in also:
        held = {led["notebook"] for led in load_ledgers(other)}
        if any(p.stem in held for p in chosen):
            shown[other] = [p.stem for p in chosen if p.stem in held]
    records, manifest, links = [], [], {}
    for p, names in shown.items():
        part = _profile_pages(p, [c for c in chosen if c.stem in names], work, src, execute, profile, shown)
        records += part["records"]
        if p == profile:
            manifest, links = part["manifest"], part["links"]
    (src / LEDGER_JSON).write_text(
        json.dumps({"profile": profile, "profiles": list(shown), "rows": records}, indent=0), encoding="utf-8"
    )
    assets = Path(__file__).with_name("assets")
    for f in ("ledger.js", "site.css"):
        shutil.copy(assets / f, src / "assets" / f)
    ledger_csv(records, src / LEDGER_CSV)
    (src / "ledger.md").write_text(ledger_page(records, profile, list(shown)), encoding="utf-8")
    (src / "gallery.md").write_text(gallery(manifest, links, src / "figures", profile), encoding="utf-8")
    running = src / "running.md"
    running.write_text(rerun_note(running.read_text(encoding="utf-8"), profile, tuple(shown)[1:]), encoding="utf-8")
    home = src / "index.md"
    text = home.read_text(encoding="utf-8")
    mark = "<!-- claims:end -->"
    at = text.index(mark) + len(mark) if mark in text else len(text)
    home.write_text(text[:at] + "\n\n" + home_profiles(shown, profile) + text[at:], encoding="utf-8")
    config = _mkdocs_config(
        src, site_dir, shown, mathjax_url=_install_mathjax(src), stamp=build_stamp(profile), primary=profile
    )
    build(load_config(str(config)))
    _letter_first_ids(site_dir)
    _reader_passes(site_dir, {(r["profile"], r["notebook"], r["id"]) for r in records})


def _profile_pages(profile, chosen, work, src, execute, primary, shown) -> dict:
    """The notebook pages of ``profile`` (replotted into ``work``, or ``work/<profile>`` for a profile other than
    the site's ``primary``), written into the site's sources ``src``: annotated, opened by their page head; the
    primary profile's figures go to ``src/figures`` for the gallery. Returns its ledger records, manifest and
    links."""
    import nbformat

    from robeval.core.ledger import load_ledgers
    from robeval.core.paths import figures_dir
    from robeval.core.publish.labels import figure_label
    from robeval.core.publish.plotting import load_manifest, manifest_dir
    from robeval.core.site.pages import page_head

    here = work if profile == primary else work / profile
    stored = {led["notebook"]: led for led in load_ledgers(profile)}
    names = [p.stem for p in chosen]
    manifest = [e for e in load_manifest(profile) if e.get("notebook") in names or e.get("notebook") not in stored]
    executed = _execute(profile, chosen, here) if execute else {n: here / "executed" / f"{n}.ipynb" for n in names}

    def png(name: str) -> Path | None:
        """The figure's PNG: this build's replot, else the stored one, else the copy committed beside the
        manifest (a profile whose figures are build output, e.g. paper, in a fresh clone)."""
        for folder in (here / "figures", figures_dir(profile), manifest_dir(profile)):
            if (folder / f"{name}.png").is_file():
                return folder / f"{name}.png"
        return None

    manifest = [e for e in manifest if png(e["figure"]) is not None]
    manifest = [_with_fresh_caption(e, here / "figures" / "manifest") for e in manifest]
    # what each figure shows at this profile, from its rows (issue 61, item 2): gallery, captions and alt texts
    manifest = [{**e, "label": figure_label(e, stored.get(e.get("notebook")), profile)} for e in manifest]
    links = {}
    for path in chosen:
        nb_name = path.stem
        nb = nbformat.read(executed[nb_name], as_version=4)
        hide_injected_parameters(nb)
        tidy_sections(nb, compute_only_sections(nbformat.read(path, as_version=4)))
        rebuilt = here / "claims" / f"{nb_name}.json"
        recorded = json.loads(rebuilt.read_text())["claims"] if rebuilt.is_file() else stored[nb_name]["claims"]
        nb_manifest = [e for e in manifest if e.get("notebook") == nb_name]
        links[nb_name] = annotate_notebook(
            nb,
            recorded,
            nb_manifest,
            gallery=profile == primary,
            profile=profile,
            notebook=nb_name,
            figure_dir="../figures/" if profile == primary else f"../figures/{profile}/",
        )
        title = next((i for i, c in enumerate(nb.cells) if _heading(c)), -1)
        holders = [p for p, held in shown.items() if nb_name in held]
        head = page_head(nb_name, profile, recorded, holders, primary)
        if title >= 0:  # the verdicts right under the title: the title cell's introduction moves below them
            lines = nb.cells[title].source.splitlines(keepends=True)
            k = next(i for i, line in enumerate(lines) if line.startswith("#"))
            intro = "".join(lines[k + 1 :]).strip()
            if intro:
                nb.cells[title].source = "".join(lines[: k + 1]).rstrip()
                nb.cells.insert(title + 1, nbformat.v4.new_markdown_cell(intro))
        nb.cells.insert(title + 1, nbformat.v4.new_markdown_cell(head))
        nbformat.write(nb, src / "notebooks" / page_name(nb_name, profile, primary))
    # the replotted figure when this build drew it, else the stored one: the gallery's (primary profile) and what
    # every notebook page's images link to (another profile's under figures/<profile>/)
    into = src / "figures" if profile == primary else src / "figures" / profile
    into.mkdir(parents=True, exist_ok=True)
    for e in manifest:
        shutil.copy(png(e["figure"]), into)
    records = ledger_records([stored[n] for n in names], links, manifest, profile=profile, primary=primary)
    return {"records": records, "manifest": manifest, "links": links}


def _reader_passes(site_dir: Path, known: set = frozenset()) -> None:
    """The built pages made readable (issue 47, item 6): every notebook page's code folded
    (:func:`robeval.core.site.pages.fold_code`), every page's tables scrolling inside themselves
    (:func:`robeval.core.site.pages.scroll_tables`); issue 61: the ledger ids the prose prints linked to their
    rows' permalinks (``known``: the site's (profile, notebook, id), :func:`robeval.core.site.links.link_printed_rows`),
    the glossary's terms anchored (:func:`robeval.core.site.links.glossary_anchors`) and linked on their first use on
    every other reader page (:func:`robeval.core.site.links.link_glossary_terms`)."""
    import os

    from robeval.core.site.links import (
        glossary_anchors,
        glossary_phrases,
        link_glossary_terms,
        link_printed_rows,
        link_short_rows,
    )
    from robeval.core.site.pages import fold_code, scroll_tables

    site_dir = Path(site_dir)
    glossary = project.ROOT / "docs" / "glossary.md"
    phrases = glossary_phrases(glossary.read_text(encoding="utf-8")) if glossary.is_file() else {}
    for page in site_dir.rglob("*.html"):
        if "mathjax" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        fixed = fold_code(text)[0] if page.parent.name == "notebooks" else text
        fixed = scroll_tables(fixed)[0]
        ledger = os.path.relpath(site_dir / "ledger.html", page.parent).replace(os.sep, "/")
        fixed = link_printed_rows(fixed, ledger, known)[0]
        fixed = link_short_rows(fixed, ledger, known)[0]
        if page.name == "glossary.html":
            fixed = glossary_anchors(fixed)[0]
        elif page.name not in ("ledger.html", "404.html") and "api" not in page.relative_to(site_dir).parts:
            # each glossary term linked on its first use on the page (issue 61, item 1)
            href = os.path.relpath(site_dir / "glossary.html", page.parent).replace(os.sep, "/")
            fixed = link_glossary_terms(fixed, href, phrases)[0]
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def _with_fresh_caption(entry: dict, fresh_dir: Path) -> dict:
    """A stored manifest entry with the caption of this build's replot (``fresh_dir/<figure>.json``) when the
    stored one has none (entries saved before captions were recorded)."""
    fresh = Path(fresh_dir) / f"{entry['figure']}.json"
    if entry.get("caption") or not fresh.is_file():
        return entry
    return {**entry, "caption": json.loads(fresh.read_text(encoding="utf-8")).get("caption", "")}


_DIGIT_ID = re.compile(r'(\sid="|\shref="[^"#:]*#)(\d)')


def _letter_first_ids(site_dir: Path) -> None:
    """Prefix ``h-`` to the ids that start with a digit, to the page-relative links to them and to the search
    index's locations: headings such as "07 · ..." or "1. Data" get such slugs, and the theme's scrollspy passes
    them to ``querySelector``, where ``#07-...`` is not a valid selector (the page's script stops with an
    error)."""
    site_dir = Path(site_dir)
    for page in site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        fixed = _DIGIT_ID.sub(r"\1h-\2", text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")
    index = site_dir / "search" / "search_index.json"
    if index.is_file():
        data = json.loads(index.read_text(encoding="utf-8"))
        for doc in data.get("docs", []):
            doc["location"] = re.sub(r"#(\d)", r"#h-\1", doc.get("location", ""))
        index.write_text(json.dumps(data), encoding="utf-8")
