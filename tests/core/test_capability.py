"""Issue 61, item 4: one generated table of the central statements against the profiles — decided, open, not at
this scale, stand-in data, to run (with its estimate), paper scale (with its GPU-hours), not defined, no row."""

from robeval.core import paths
from robeval.core.ledger.central import Statement
from robeval.core.publish import capability as cap


def _ledger(notebook, rows, mechanism=""):
    return {
        "notebook": notebook,
        "claims": [{"id": i, "verdict": v, "central": True, "mechanism": mechanism} for i, v in rows],
    }


STATEMENTS = (
    Statement(key="one", paper="mscr", source="abstract", statement="s1", rows={"01_x": ["a*"]}),
    Statement(key="two", paper="mscr", source="abstract", statement="s2", rows={"01_x": ["b"], "02_y": ["c"]}),
    Statement(key="three", paper="acr", source="conclusion", statement="s3", reason="no data"),
)
DEFINED = {
    "default": {"01_x": True, "02_y": True},
    "long": {"01_x": True, "02_y": False},
    "gpu": {"01_x": False, "02_y": False},
    "paper": {"01_x": True, "02_y": True},
}
ESTIMATES = {"default": {}, "long": {"01_x": "~1.5 h, 2 CPU cores"}, "gpu": {}, "paper": {"02_y": "~5 GPU-h"}}


def _table(ledgers):
    return {r["key"]: r["cells"] for r in cap.capability(STATEMENTS, ledgers, DEFINED, ESTIMATES)}


def test_each_cell_says_what_the_profile_gives_by_hand():
    ledgers = {
        "default": [
            _ledger("01_x", [("a1", "reproduced"), ("a2", "reproduced"), ("b", "inconclusive")]),
            _ledger("02_y", [("c", "not comparable")]),
        ],
        "paper": [_ledger("01_x", [("a1", "not comparable"), ("a2", "not comparable"), ("b", "contradicted")],
                          mechanism="synthetic data: a stand-in for the paper's files")],
    }  # fmt: skip
    t = _table(ledgers)
    assert t["one"] == {
        "default": "**reproduced**",
        "long": "01: to run (~1.5 h, 2 CPU cores)",
        "gpu": "—",
        "paper": "stand-in data",
    }
    # "for all" over two notebooks: one part open, the other a pipeline check here; at paper one part fails
    assert t["two"]["default"] == "open; 02: not at this scale"
    assert t["two"]["paper"] == "**contradicted**; 02: paper scale (~5 GPU-h)"
    assert t["two"]["long"] == "01: to run (~1.5 h, 2 CPU cores); 02: —"
    assert t["two"]["gpu"] == "—"
    assert t["three"] == dict.fromkeys(cap.COLUMNS, "no row")


def test_one_failing_row_is_not_hidden_and_a_decided_row_alone_decides_nothing_for_all():
    ledgers = {"default": [_ledger("01_x", [("a1", "reproduced"), ("a2", "inconclusive")])]}
    assert _table(ledgers)["one"]["default"] == "open"
    ledgers = {"default": [_ledger("01_x", [("a1", "erratum"), ("a2", "consistency")])]}
    assert _table(ledgers)["one"]["default"] == "erratum"


def test_the_header_counts_decided_statements_per_profile():
    ledgers = {
        "default": [
            _ledger("01_x", [("a1", "consistency"), ("b", "contradicted")]),
            _ledger("02_y", [("c", "erratum")]),
        ]
    }
    rows = cap.capability(STATEMENTS, ledgers, DEFINED, ESTIMATES)
    block = cap.capability_block(rows)
    assert "| `default` (2 decided) | `long` (0 decided) | `gpu` (0 decided) | `paper` (0 decided) |" in block
    assert "| MSCR | `two` | **contradicted** |" in block and "scaled replications" in block


def test_the_estimate_is_read_from_the_settings_words():
    assert cap._estimate("estimate: ~3.9 h on 2 CPU cores (2026-11-29, ...)") == "~3.9 h"
    assert cap._estimate("estimate: ~12 min on one H100/H200 -- an ESTIMATE") == "~12 min"
    assert cap._estimate("measured 51 s on 2 CPU cores") == ""


def test_results_page_holds_the_table_the_ledgers_give():
    text = (paths.ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    block = text.split(cap.CAPABILITY_START, 1)[1].split(cap.CAPABILITY_END, 1)[0]
    assert block.strip() == cap.capability_block().strip(), "run `robeval report` (docs/results.md drifted)"
    from robeval.core.ledger.central import STATEMENTS as registered

    assert block.count("\n| ") == len(registered) + 1  # the header and one line per statement
