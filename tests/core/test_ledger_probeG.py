"""Issue 62, probe G #4 #5 #10: a ledger's free text in the generated Markdown (a newline or a ``|`` that cut the
tables of CLAIMS.md, a block marker that made every ``robeval report`` append a copy of docs/results.md's block,
raw HTML on the site's page) and numbers beyond float range in the ledger's number checks."""

import re

import pytest

from robeval.core.ledger import Ledger
from robeval.core.publish.report import README_END, README_START, readme_block, report

X = dict(evidence="replication")  # an exact replication row (no interval)
# a description that tries every way out of its table row, list item or block
HOSTILE = (
    "best column\n| forged | Table 9 | **reproduced** | replication | all good |\r\n"
    "<img src=x onerror=alert(1)> <!-- claims:end --> <!-- claims:start (x) --> </table>\tend"
)


def _ledger_with_hostile_text() -> None:
    led = Ledger(paper="mscr", notebook="99_probeg", profile="smoke")
    led.value(
        "hostile",
        "Table 2a | (bold)",
        HOSTILE,
        paper=1.0,
        margin=0.5,
        estimate=1.0,
        comparable_at=("smoke",),
        central=True,
        note="a note\nwith | a second line",
        **X,
    )
    led.value("plain", "Table 1", "a plain row", paper=2.0, margin=0.5, estimate=2.0, comparable_at=("smoke",), **X)
    led.cover([{"source": "Tables 1-2", "statement": "all", "claims": ["*"]}])
    led.save()


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table row, split at the pipes no backslash escapes (GitHub's rule)."""
    assert line.startswith("|") and line.endswith("|"), line
    return re.split(r"(?<!\\)\|", line)[1:-1]


def _table(text: str, heading: str) -> list[str]:
    """The lines of the table that follows ``heading`` (the header and separator included), up to a blank line."""
    lines = text.split("\n")
    start = lines.index(heading) + 2  # the heading, a blank line, then the table
    end = lines.index("", start)
    return lines[start:end]


def test_a_newline_or_a_pipe_in_a_rows_text_stays_inside_its_table_cell(tmp_results):
    """#4: a description "line1\\n| forged | row |" cut the central row of CLAIMS.md in two (a forged row of its
    own), and a ``|`` in a central row's source added a column (the Central rows table printed it unescaped)."""
    _ledger_with_hostile_text()
    text = report("smoke")
    central = _table(text, "### Central rows")
    assert len(central) == 3  # header, separator, the one central row
    assert [len(_cells(line)) for line in central] == [5, 5, 5]
    assert _cells(central[2])[1] == r" Table 2a \| (bold) "
    every = _table(text, "### All rows")
    assert len(every) == 4 and [len(_cells(line)) for line in every] == [8] * 4
    assert not any(line.startswith("| forged") for line in text.split("\n"))
    row = next(line for line in every if line.startswith("| hostile |"))
    # the texts as written, on one line: breaks folded into spaces, pipes escaped, no raw HTML
    assert r"best column \| forged \| Table 9 \| **reproduced** \| replication \| all good \| &lt;img" in row
    assert r"(a note with \| a second line)" in row
    assert "<img" not in text and "<!--" not in text and "</table" not in text


def test_a_block_marker_in_a_description_cannot_end_the_results_block(tmp_results, tmp_path):
    """#5: a description holding ``<!-- claims:end -->`` made each report append another copy of the block to
    docs/results.md; raw HTML of a description reached the site's page."""
    _ledger_with_hostile_text()
    block = readme_block("smoke")
    assert README_END not in block and README_START not in block and "<!--" not in block
    assert "<img" not in block and "&lt;img src=x onerror=alert(1)>" in block
    item = [line for line in block.split("\n") if "best column" in line]
    assert len(item) == 1 and item[0].startswith("* ")  # one list item, one line
    assert "(Table 2a | (bold); paper 1" in item[0]
    from robeval.core.publish.markdown import replace_block

    page = tmp_path / "results.md"
    original = f"# Results\n\nhand-written text\n\n{README_START}\nold\n{README_END}\n\nmore text\n"
    page.write_text(original, encoding="utf-8")
    assert replace_block(page, README_START, README_END, block) is True
    first = page.read_text(encoding="utf-8")
    assert replace_block(page, README_START, README_END, block) is False  # a second report changes nothing
    second = page.read_text(encoding="utf-8")
    assert first == second
    assert second.count(README_START) == 1 and second.count(README_END) == 1
    assert second == f"# Results\n\nhand-written text\n\n{README_START}\n{block}\n{README_END}\n\nmore text\n"


def test_a_file_with_duplicated_or_unbalanced_markers_is_refused_not_extended(tmp_path):
    """#5: a docs/results.md left with two end markers (by the old report) was extended on every run; it is now
    refused, naming the file and the fix, and left as it is."""
    from robeval.core.publish.markdown import replace_block

    page = tmp_path / "results.md"
    marks = r"\('<!-- claims:start' / '<!-- claims:end -->'\)"
    cases = [
        (
            f"{README_START}\nblock <!-- claims:end --> tail\n{README_END}\n",
            rf"its start and end markers {marks} 1 and 2 times",
        ),
        (f"a\n{README_START}\nblock\n", rf"its start and end markers {marks} 1 and 0 times"),
        (f"{README_END}\nblock\n{README_START}\n", rf"its end marker before its start marker {marks}"),
        (f"{README_START}\n{README_START}\nx\n{README_END}\n", rf"its start and end markers {marks} 2 and 1 times"),
    ]
    for text, why in cases:
        page.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=rf"^{re.escape(str(page))} holds {why}; .*Restore the file"):
            replace_block(page, README_START, README_END, "new")
        assert page.read_text(encoding="utf-8") == text
    page.write_text("no block here\n", encoding="utf-8")  # a file without the block: nothing to do
    assert replace_block(page, README_START, README_END, "new") is False
    assert page.read_text(encoding="utf-8") == "no block here\n"


def test_inline_and_cell_leave_the_committed_kinds_of_text_alone():
    """The texts the committed ledgers hold ("p < 0.05", "|x2 − 1/2|", "> 1000") render as before: only line
    breaks, control characters and a "<" that opens HTML are rewritten."""
    from robeval.core.publish.markdown import cell, inline

    for text in ("eps_train < eps_min / 5", "|x2 − 1/2| ≤ 0.1", "> 1000", "a <= b", "≈21 runs (now 10)"):
        assert inline(text) == text
    assert cell("|x2 − 1/2|") == r"\|x2 − 1/2\|"
    assert inline("a\r\n\tb\x1b[31m") == "a b [31m"
    assert inline("<b>x</b> <?php <!doctype") == "&lt;b>x&lt;/b> &lt;?php &lt;!doctype"


H = 2**1100  # 332 digits: beyond float range
KW = dict(evidence="derivation", unit="none (exact)", about="data")


@pytest.mark.parametrize(
    "method, args, why",
    [
        ("value", dict(paper=H, margin=1.0, estimate=0.0), r"^paper must be a finite number, got an int of 332 digits"),
        ("value", dict(paper=0.0, margin=1.0, estimate=H), r"^estimate must be a finite number, got an int of 332 digits"),
        ("value", dict(paper=0.0, margin=H, estimate=0.0), r"^margin must be a finite number, got an int of 332 digits"),
        ("value", dict(paper=0.0, margin=1.0, estimate=-(10**5000)), r"^estimate must be a finite number, got an int of about 5000 digits"),
        ("fact", dict(holds=True, basis="b", estimate=H), r"^row 'a': the estimate must be a finite number, got an int of 332 digits"),
        ("fact", dict(holds=True, basis="b", paper=[1, H]), r"^a: paper must be a finite number, got an int of 332 digits"),
        ("consistency", dict(check="c", discrepancy=H, noise=1.0, noise_basis="print rounding (one run printed twice)"),
         r"^discrepancy must be a finite number, got an int of 332 digits"),
    ],
)  # fmt: skip
def test_an_int_beyond_float_range_is_named(method, args, why):
    """#10: Ledger.value / fact with an int beyond float range raised a bare OverflowError naming nothing."""
    led = Ledger(paper="mscr", notebook="x", profile="default")
    with pytest.raises(ValueError, match=why):
        getattr(led, method)("a", "s", "d", **args, **KW)
    assert led.claims == []
    # numbers within float range are recorded as before
    led.value("b", "s", "d", paper=10**300, margin=1.0, estimate=10**300, **KW)
    led.value("c", "s", "d", paper=1e308, margin=1.0, estimate=-1e308, **KW)
    assert [c.verdict for c in led.claims] == ["consistency", "erratum"]
