"""Probe M on `robeval report` (M6): it reads saved ledgers through the checks compare and verify make (ids unique
and plain, the ledger's notebook its file's name, its paper and profile, each row's paper/notebook/profile,
``central`` a bool, finite estimates, a well-formed ``index``) and refuses a damaged one in one line, never
counting it."""

import json
import re
import shutil
from pathlib import Path

import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core.ledger import load_ledgers

COMMITTED = Path(__file__).parents[2] / "results" / "default" / "claims" / "07_realworld_analytical.json"


@pytest.fixture
def ledger(tmp_results):
    """The committed default ledger of 07 in a temporary results folder: (its path, its JSON)."""
    from robeval.core.paths import results_dir

    path = results_dir("default") / "claims" / COMMITTED.name
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(COMMITTED, path)
    return path, json.loads(COMMITTED.read_text())


def _dup(d):
    d["claims"].append(dict(d["claims"][0]))


def _other_paper(d):
    for c in d["claims"]:
        c["paper"] = "mscr"


def _set(key, value):
    def edit(d):
        d[key] = value

    return edit


def _row(key, value):
    def edit(d):
        d["claims"][0][key] = value

    return edit


def _index(value):
    def edit(d):
        d["index"] = value

    return edit


CASES = {
    # M6's table: each was counted as is (or a KeyError/AttributeError traceback)
    "duplicate row": (_dup, r"the id '.*' is listed twice"),
    "rows of another paper": (_other_paper, r"claim '.*' has the paper 'mscr', not its ledger's 'realworld'"),
    "another notebook": (_set("notebook", "01_mscr_2d"), r"it holds the ledger of 01_mscr_2d \(its 'notebook'\), not"),
    "paper profile": (
        _set("profile", "paper"),
        r"its 'profile' is 'paper', not 'default' \(the profile of its folder\)",
    ),
    "unknown paper": (_set("paper", "x"), r"its 'paper' is 'x', not one of mscr, msd"),
    "id with a path": (_row("id", "../../x"), r"claim 0 has the id '\.\./\.\./x', not a plain name"),
    "estimate nan": (_row("estimate", float("nan")), r"claim '.*' has the estimate nan, which no saved ledger holds"),
    "central text": (_row("central", "false"), r"claim '.*' has central 'false', not true or false"),
    "index text": (_index("x"), r"its index is str 'x', not a list of entries"),
    "index entry without statement": (_index([{"source": "s", "claims": ["*"]}]), r"index entry 0 has no 'source'"),
    "index claims text": (
        _index([{"source": "s", "statement": "t", "claims": "A1"}]),
        r"index entry 0 \('s'\) has 'claims' 'A1', not a",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_ledger_is_refused_naming_it_not_counted(ledger, case, capsys):
    path, d = ledger
    edit, why = CASES[case]
    edit(d)
    path.write_text(json.dumps(d))
    before = path.read_bytes()
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: {why}.*; the ledger is damaged\. Restore it"):
        load_ledgers("default")
    assert main(["report", "--profile", "default"]) == 2
    one_line_error(capsys, str(path), "the ledger is damaged")
    assert path.read_bytes() == before


def test_the_committed_ledgers_pass(ledger):
    assert [d["notebook"] for d in load_ledgers("default")] == ["07_realworld_analytical"]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda d: d["claims"].insert(0, ["a row"]), "claim 0 is not an object"),
        (lambda d: d["claims"][0].pop("id"), "claim 0 has no 'id'"),
        (_row("id", "../../x"), "claim 0 has the id '../../x', not a plain name (letters, digits, '_', '-', '.')"),
        (_dup, "the id '{id}' is listed twice"),
    ],
)
def test_report_verify_and_compare_refuse_a_faulty_id_in_the_same_words(edit, why):
    # check_saved_ledger (report) and rows_by_id (verify, compare) share claim_id_error
    from robeval.core.ledger import check_saved_ledger
    from robeval.core.publish.report import rows_by_id

    d = json.loads(COMMITTED.read_text())
    why = f"{COMMITTED.name}: " + why.format(id=d["claims"][0]["id"]) + "; the ledger is damaged"
    edit(d)
    with pytest.raises(ValueError, match=re.escape(why)):
        check_saved_ledger(json.loads(json.dumps(d)), COMMITTED.name)
    with pytest.raises(ValueError, match=re.escape(why)):
        rows_by_id(d, COMMITTED.name)
