"""The ledger's short index (robeval.core.publish.view): six columns, central claims first, reasons inline, and rows
read by field name (a ledger that gains columns needs no change)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd
import pytest

from robeval.core.ledger import Ledger
from robeval.core.publish import view as ledger_view


def _row(**kw):
    base = {
        "id": "r",
        "description": "a claim",
        "source": "Fig. 1",
        "paper_value": 0.5,
        "estimate": 0.51,
        "ci": [0.49, 0.53],
        "n_runs": 24,
        "unit": "training runs",
        "verdict": "reproduced",
        "central": False,
        "margin": None,
        "decides": "",
        "unadjusted": "",
        "rule": "95% CI of the difference (paired t-interval over 24 runs) excludes 0, claimed > 0",
        "part_of": "",
    }
    return {**base, **kw}


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (_row(margin=0.05), "CI within paper ± 0.05"),
        (_row(margin=0.05, verdict="contradicted"), "CI outside paper ± 0.05"),
        (_row(margin=5e-7, ci=None, verdict="consistency"), "ours within paper ± 5e-07"),
        (_row(margin=0.8, ci=None, verdict="erratum"), "ours outside paper ± 0.8"),
        (
            _row(margin=0.05, verdict="inconclusive", decides="≈527 runs (now 24)"),
            "CI crosses the edge of paper ± 0.05; needs ≈527 runs (now 24)",
        ),
        # an interval that excludes 0, undecided because the claim is about training methods: the reason is inline
        (
            _row(verdict="inconclusive", ci=[0.02, 0.04], decides="≥ 3 independent trainings per method"),
            "needs ≥ 3 independent trainings per method",
        ),
        (_row(verdict="inconclusive", unadjusted="reproduced"), "its own test: reproduced, before the ledger's rules"),
        (_row(), "95% CI of the difference excludes 0, claimed > 0"),
        (_row(margin=float("nan"), decides=float("nan"), rule="exact: counted"), "exact: counted"),
    ],
)
def test_reason_says_what_decided_the_row(row, expected):
    assert ledger_view.reason(row) == expected


def test_reason_rejects_a_non_dict():
    with pytest.raises(TypeError, match="dict of ledger fields"):
        ledger_view.reason(["r"])


def test_central_claims_first_and_extra_columns_ignored():
    rows = [
        _row(id="a", central=False),
        _row(id="b", central=True, family="x", stability="y", about="z"),  # columns the ledger is gaining
        _row(id="c", central=False, part_of="b"),
    ]
    index = ledger_view.short_index(rows)
    md = index.to_markdown().splitlines()
    assert md[0] == "| id | claim | paper | ours | verdict | why |"
    assert [line.split(" | ")[0] for line in md[2:]] == ["| b ★", "| a", "| c"]
    assert "a claim (one reading of b)" in md[4]
    assert "0.51 CI [0.49, 0.53]; n=24 training runs" in md[2]
    html = index.to_html()
    assert html.index(">b</code>") < html.index(">a</code>") < html.index(">c</code>")
    assert "family" not in html and "stability" not in html
    assert repr(index) == index.to_markdown()


def test_index_fits_the_column_by_construction():
    html = ledger_view.short_index([_row(id="x" * 80, description="word " * 200)]).to_html()
    assert "table-layout:fixed" in html and "width:100%" in html and "overflow-wrap:anywhere" in html
    assert "white-space:normal !important" in html
    widths = [int(w) for w in re.findall(r'<col style="width:(\d+)%">', html)]
    assert len(widths) == len(ledger_view.COLUMNS) and sum(widths) == 100


def test_many_other_rows_fold_under_details():
    rows = [_row(id="c0", central=True)] + [_row(id=f"o{i}") for i in range(5)]
    folded = ledger_view.short_index(rows, open_rows=3).to_html()
    assert "<details" in folded and "the other 5 rows" in folded
    assert "<details" not in ledger_view.short_index(rows, open_rows=5).to_html()
    # with no central claim nothing is folded
    assert "<details" not in ledger_view.short_index(rows[1:], open_rows=0).to_html()


def test_anchors_and_links_for_the_site():
    html = ledger_view.short_index(
        [_row(id="T 1")], anchor=lambda i: "claim-" + i.replace(" ", "_"), links={"T 1": [("figure", "#fig-a&b")]}
    ).to_html()
    assert '<tr id="claim-T_1">' in html and '<a href="#fig-a&amp;b">figure</a>' in html


@dataclass
class _Row:
    id: str
    description: str
    verdict: str
    central: bool


def test_accepts_a_ledger_its_table_and_dataclass_rows():
    ledger = Ledger(paper="mscr", notebook="01_x", profile="smoke")
    ledger.fact("F1", "Sec. 1", "a fact", holds=True, basis="counted", central=True, evidence="derivation")
    from_ledger = ledger_view.short_index(ledger).to_markdown()
    assert "| F1 ★ | a fact |" in from_ledger and "consistency" in from_ledger
    assert ledger_view.short_index(ledger.table()).to_markdown() == from_ledger
    assert ledger_view.short_index(ledger.claims).to_markdown() == from_ledger
    dc = ledger_view.short_index([_Row("d", "desc", "inconclusive", False)]).to_markdown()
    assert "| d | desc | — | — | inconclusive |" in dc
    assert "No ledger rows" in ledger_view.short_index(pd.DataFrame()).to_html()


def test_bad_arguments_say_what_to_pass():
    with pytest.raises(TypeError, match="Ledger, its table"):
        ledger_view.short_index("rows")
    with pytest.raises(TypeError, match="dataclass"):
        ledger_view.short_index([1])
    with pytest.raises(TypeError, match="anchor"):
        ledger_view.short_index([], anchor="claim-")
    with pytest.raises(ValueError, match="open_rows"):
        ledger_view.short_index([], open_rows=-1)


def test_the_notebooks_show_the_short_index():
    import nbformat

    from robeval.core.catalog import notebook_paths

    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        last = [c.source for c in nb.cells if c.cell_type == "code"][-1]
        assert "ledger.save()" in last and last.rstrip().splitlines()[-1].startswith("short_index("), path.name


def test_an_interval_that_looks_decisive_shows_why_it_is_not():
    """Issue 47, item 4: an inconclusive row whose own test decided (its CI excludes 0) shows the Holm-adjusted p
    or the stability that overrode it beside the interval; a row that decided or never did shows the CI alone."""
    from robeval.core.publish.view import ours

    row = {"estimate": 5.2, "ci": [3.18, 7.26], "n_runs": 3, "unit": "training runs", "verdict": "inconclusive",
           "unadjusted": "reproduced", "p_adjusted": 0.123, "stability": None}  # fmt: skip
    assert ours(row) == "5.2 CI [3.18, 7.26] (Holm-adjusted p = 0.123); n=3 training runs"
    fragile = {**row, "p_adjusted": 0.001, "stability": 0.8}
    assert ours(fragile) == "5.2 CI [3.18, 7.26] (stability 0.8 < 0.9); n=3 training runs"
    assert ours({**row, "verdict": "reproduced", "unadjusted": ""}) == "5.2 CI [3.18, 7.26]; n=3 training runs"
    assert ours({**row, "unadjusted": ""}) == "5.2 CI [3.18, 7.26]; n=3 training runs"


def test_folded_cells_keep_long_texts_a_click_away():
    """Issue 61, item 5: notebook 00's settings table (cells of up to 2,000 characters) folds its long texts, so
    it is no longer tens of thousands of pixels wide."""
    import pandas as pd

    from robeval.core.publish.view import folded_cell, folded_table

    assert folded_cell("short <b>") == "short &lt;b&gt;"
    assert folded_cell("one two three four five", limit=12) == (
        "<details><summary>one two …</summary>one two three four five</details>"
    )
    assert folded_cell(None) == ""
    with pytest.raises(ValueError, match="limit"):
        folded_cell("x", limit=3)
    page = folded_table(pd.DataFrame({"setting": ["n", "estimate"], "paper": [3, "x " * 100]})).to_html()
    assert page.count("<details>") == 1 and 'class="robeval-folded"' in page and ">3<" in page
