"""Probe L, L1: every generated block `robeval report` rewrites (the README's one line and findings copied to the
site's home page, the profiles table, the citation blocks) is found with ``split_block``: markers out of order,
missing or doubled are refused naming the file and the markers, and no file is rewritten from a guess."""

import re
import shutil

import pytest

from robeval.core import paths
from robeval.core.profiles import PROFILES_END, PROFILES_START
from robeval.core.publish import citation, report


def _swap(path, start, end):
    text = path.read_text(encoding="utf-8")
    i, j = text.index(start), text.index(end)
    path.write_text(text[:i] + end + text[i + len(start) : j] + start + text[j + len(end) :], encoding="utf-8")


def _refusal(path, start, end) -> str:
    return re.escape(f"{path} holds its end marker before its start marker ({start.split(' (', 1)[0]!r} / {end!r})")


@pytest.fixture
def root(tmp_path, monkeypatch):
    for rel in (
        "README.md",
        "docs/index.md",
        "docs/running.md",
        "docs/cite.md",
        "CITATION.cff",
        "CITATION.bib",
        "LICENSE",
        ".zenodo.json",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(paths.ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    # the claims and open-statement blocks are not under test: fixed text, so nothing reads the ledgers
    monkeypatch.setattr(report, "front_block", lambda: "front")
    monkeypatch.setattr("robeval.core.publish.undecided.undecided_block", lambda: "open")
    return tmp_path


def _findings(text: str) -> str:
    return text.split(report.FINDINGS_START, 1)[1].split(report.FINDINGS_END, 1)[0]


def test_readme_findings_markers_reversed_are_refused_and_the_home_page_keeps_its_findings(root):
    # L1: the README's whole tail from the start marker was copied into docs/index.md, rc 0
    readme, index = root / "README.md", root / "docs" / "index.md"
    before = _findings(index.read_text(encoding="utf-8"))
    _swap(readme, report.FINDINGS_START, report.FINDINGS_END)
    with pytest.raises(ValueError, match="^" + _refusal(readme, report.FINDINGS_START, report.FINDINGS_END)):
        report.update_readme("default")
    assert _findings(index.read_text(encoding="utf-8")) == before


def test_home_page_oneline_markers_reversed_are_refused_naming_the_home_page(root):
    # L1: IndexError: list index out of range (report.py:552)
    index = root / "docs" / "index.md"
    _swap(index, report.ONELINE_START, report.ONELINE_END)
    before = index.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="^" + _refusal(index, report.ONELINE_START, report.ONELINE_END)):
        report.update_readme("default")
    assert index.read_text(encoding="utf-8").count(report.ONELINE_END) == 1
    assert _findings(index.read_text(encoding="utf-8")) == _findings(before)


def test_a_doubled_marker_in_the_readme_is_refused(root):
    readme = root / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\n" + report.ONELINE_END + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"holds its start and end markers \('<!-- oneline:start -->' / .* 1 and 2 "):
        report.update_readme("default")


def test_profiles_markers_reversed_are_refused_and_the_readme_is_kept(root):
    # L1: IndexError at report.py:582
    readme = root / "README.md"
    _swap(readme, PROFILES_START, PROFILES_END)
    before = readme.read_bytes()
    with pytest.raises(ValueError, match="^" + _refusal(readme, PROFILES_START, PROFILES_END)):
        report.update_profile_tables()
    assert readme.read_bytes() == before


def test_cite_markers_reversed_are_refused_and_the_page_is_kept(root):
    # L1: IndexError at citation.py:198
    cite = root / "docs" / "cite.md"
    _swap(cite, citation.CITE_START, citation.CITE_END)
    before = cite.read_bytes()
    with pytest.raises(ValueError, match="^" + _refusal(cite, citation.CITE_START, citation.CITE_END)):
        citation.update_citation_files(root)
    assert cite.read_bytes() == before


def test_well_formed_markers_regenerate_as_before(root):
    index = root / "docs" / "index.md"
    readme_findings = _findings((root / "README.md").read_text(encoding="utf-8"))
    report.update_profile_tables()
    assert citation.update_citation_files(root) == []
    index.write_text(index.read_text(encoding="utf-8").replace(_findings(index.read_text()), "\nstale\n"))
    report.update_readme("smoke")  # the copy to the home page is the same for every profile
    assert _findings(index.read_text(encoding="utf-8")) == readme_findings
