"""Issue 61, item 7: the four papers citable (venue, year, arXiv id), BibTeX for them and for the compendium, one
source (CITATION.cff) for every citation the README, the site and the archive metadata show."""

import json
import re
import shutil

import pytest

from robeval.core import paths
from robeval.core.publish import citation

ROOT_FILES = ("CITATION.cff", "CITATION.bib", ".zenodo.json", "README.md", "LICENSE")
DOCS = ("index.md", "cite.md")


def _copy_checkout(tmp_path):
    for name in ROOT_FILES:
        shutil.copy(paths.ROOT / name, tmp_path / name)
    (tmp_path / "docs").mkdir()
    for name in DOCS:
        shutil.copy(paths.ROOT / "docs" / name, tmp_path / "docs" / name)
    return tmp_path


def test_every_citation_shown_is_the_one_citation_cff_gives(tmp_path):
    """The committed CITATION.bib, .zenodo.json references and the README/home/cite blocks are what the
    generator writes from the committed CITATION.cff: regenerating a copy of them changes nothing."""
    root = _copy_checkout(tmp_path)
    assert citation.update_citation_files(root) == []
    for name in ("README.md", "docs/index.md", "docs/cite.md"):
        text = (paths.ROOT / name).read_text(encoding="utf-8")
        assert citation.CITE_START in text and citation.CITE_END in text, name
        block = text.split(citation.CITE_START, 1)[1].split(citation.CITE_END, 1)[0]
        assert block.strip() == citation.reference_list().strip(), name
    cite = (paths.ROOT / "docs" / "cite.md").read_text(encoding="utf-8")
    assert (paths.ROOT / "CITATION.bib").read_text(encoding="utf-8") in cite


def test_an_edit_of_citation_cff_reaches_every_view(tmp_path):
    """The other direction: a changed title in CITATION.cff changes CITATION.bib, .zenodo.json, the README, the
    home page and the cite page, and a second run is a no-op."""
    root = _copy_checkout(tmp_path)
    cff = root / "CITATION.cff"
    cff.write_text(cff.read_text(encoding="utf-8").replace("Average Certified Radius is a Poor Metric", "ACR X"))
    changed = {p.relative_to(root).as_posix() for p in citation.update_citation_files(root)}
    assert changed == {"CITATION.bib", ".zenodo.json", "README.md", "docs/index.md", "docs/cite.md"}
    assert "title = {ACR X for Randomized Smoothing}" in (root / "CITATION.bib").read_text(encoding="utf-8")
    assert "*ACR X for Randomized Smoothing*" in (root / "README.md").read_text(encoding="utf-8")
    assert citation.update_citation_files(root) == []


def _entries(bib: str) -> list[tuple[str, str, dict]]:
    """``(kind, key, fields)`` of a BibTeX text written one field per line (as :func:`citation.bibtex` does)."""
    out = []
    for kind, key, body in re.findall(r"@(\w+)\{([^,]+),\n(.*?)\n\}", bib, flags=re.S):
        fields = dict(re.findall(r"^  (\w+) = \{(.*)\},?$", body, flags=re.M))
        assert body.count("{") == body.count("}"), key  # balanced braces
        out.append((kind, key, fields))
    return out


def test_the_bibtex_names_venue_year_and_arxiv_id_of_each_paper():
    bib = (paths.ROOT / "CITATION.bib").read_text(encoding="utf-8")
    entries = _entries(bib)
    assert bib.count("@") == len(entries) == 5
    kinds = [(k, key) for k, key, _ in entries]
    assert kinds == [
        ("software", "robeval"),
        ("inproceedings", "siedel2022utilizing"),
        ("inproceedings", "mintun2021interaction"),
        ("misc", "scher2022testing"),
        ("inproceedings", "sun2025average"),
    ]
    by_key = {key: f for _, key, f in entries}
    # the facts looked up (hand-checked against arXiv, CEUR-WS and the ICML 2025 programme)
    assert {k: (f.get("eprint"), f["year"]) for k, f in by_key.items() if k != "robeval"} == {
        "siedel2022utilizing": ("2206.13405", "2022"),
        "mintun2021interaction": ("2102.11273", "2021"),
        "scher2022testing": ("2204.10046", "2022"),
        "sun2025average": ("2410.06895", "2025"),
    }
    assert by_key["siedel2022utilizing"]["series"] == "CEUR Workshop Proceedings"
    assert by_key["siedel2022utilizing"]["volume"] == "3215"
    assert by_key["siedel2022utilizing"]["url"] == "https://ceur-ws.org/Vol-3215/20.pdf"
    assert "NeurIPS 2021" in by_key["mintun2021interaction"]["booktitle"]
    assert "ICML 2025" in by_key["sun2025average"]["booktitle"] and by_key["sun2025average"]["volume"] == "267"
    assert by_key["scher2022testing"]["howpublished"] == "arXiv preprint arXiv:2204.10046"
    for kind, key, fields in entries:
        assert {"author", "title", "year"} <= set(fields), key
        assert kind != "inproceedings" or fields.get("booktitle"), key
    assert by_key["robeval"]["version"] == "0.1.0" and by_key["robeval"]["year"] == "2026"


def test_every_notebook_is_cited_under_one_paper():
    from robeval.core.catalog import notebook_paths

    numbers = [p.stem[:2] for p in notebook_paths() if p.stem[:2] != "00"]  # 00: data and environment
    listed = [n for books in citation.NOTEBOOKS.values() for n in books]
    assert sorted(listed) == sorted(numbers) and len(set(listed)) == len(listed)
    cff = citation.load_citation()
    assert [citation.arxiv_id(r) for r in cff["references"]] == list(citation.NOTEBOOKS)


def test_no_placeholder_is_left_but_the_repository_address_said_once():
    texts = {
        p.name: p.read_text(encoding="utf-8")
        for p in [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").glob("*.md"))]
    }
    texts |= {n: (paths.ROOT / n).read_text(encoding="utf-8") for n in ("CITATION.cff", "CITATION.bib", ".zenodo.json")}
    for name, text in texts.items():
        assert "to be confirmed" not in text.lower(), name
        assert "OWNER/REPO" not in text and "<owner>" not in text, name
    assert sum(t.count("to be filled in") for t in texts.values()) == 1
    assert "to be filled in" in texts["README.md"]


def test_notebook_pages_and_home_link_the_citation():
    from robeval.core.site.pages import page_head

    head = page_head("01_mscr_2d", "default", [], ["default"], "default")
    assert '<a href="../cite.html">How to cite</a>' in head and '<a href="../CITATION.cff">' in head
    home = (paths.ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert 'href="CITATION.cff"' in home and "](cite.md)" in home
    from robeval.core.site.build import CITATION_FILES

    assert all((paths.ROOT / name).is_file() for name in CITATION_FILES)


def test_a_broken_citation_file_gets_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="restore CITATION.cff"):
        citation.load_citation(tmp_path / "CITATION.cff")
    bad = tmp_path / "CITATION.cff"
    bad.write_text("cff-version: 1.2.0\nreferences: []\n")
    with pytest.raises(ValueError, match="not a CITATION.cff with references"):
        citation.load_citation(bad)
    bad.write_text("references:\n  - title: T\n    authors: [{family-names: A, given-names: B}]\n    year: 2020\n")
    with pytest.raises(ValueError, match="lacks identifiers"):
        citation.load_citation(bad)
    with pytest.raises(ValueError, match="no arXiv identifier"):
        citation.arxiv_id({"title": "T", "identifiers": [{"type": "url", "value": "https://x"}]})
    json.dumps(citation.zenodo_references())  # plain strings
