"""The papers' central statements (issue 60, item 1): each judged from its rows by the quantifier the paper states
it with, counted once in the README, CLAIMS.md and the site; every central row belongs to one statement."""

import json
from fnmatch import fnmatchcase

import pytest

from robeval.core import paths
from robeval.core.ledger import central
from robeval.core.ledger.central import statement_verdict

R, C, I, N, K, E = "reproduced", "contradicted", "inconclusive", "not comparable", "consistency", "erratum"


@pytest.mark.parametrize(
    "verdicts, quantifier, expected",
    [
        ([R, R], "all", R),
        ([R, C], "all", C),  # "for all": one contradicted level contradicts the statement, whatever the mean says
        ([R, I], "all", I),
        ([R, N], "all", I),  # a part not comparable at this profile: not established here
        ([N, N], "all", N),
        ([R, K], "all", K),  # every part holds, one only as a consistency: never more than its rows
        ([K, E], "all", E),
        ([R, I], "any", R),  # "can", "for some": one row suffices
        ([C, I], "any", I),
        ([C, C], "any", C),
        ([E, C], "any", C),
        ([K, I], "any", K),
        ([], "all", "not run"),
    ],
)
def test_a_statement_is_judged_by_its_quantifier(verdicts, quantifier, expected):
    assert statement_verdict(verdicts, quantifier) == expected


def test_a_for_all_statement_judged_on_its_mean_would_be_caught():
    """The audit's case: 01/F5b pooled the 1-NN advantage over eps_train <= 0.007 (reproduced) while a level's
    own row was contradicted; "for all" takes the weakest row."""
    pooled_mean, per_level = R, [R, R, C]
    assert statement_verdict([pooled_mean], "all") == R
    assert statement_verdict(per_level, "all") == C


def test_bad_quantifiers_and_verdicts_are_refused():
    with pytest.raises(ValueError, match="quantifier"):
        statement_verdict([R], "most")
    with pytest.raises(ValueError, match="unknown verdict"):
        statement_verdict(["fine"], "all")


def _ledgers(profile):
    folder = paths.ROOT / "results" / profile / "claims"
    return [json.loads(f.read_text(encoding="utf-8")) for f in sorted(folder.glob("*.json"))]


@pytest.mark.parametrize("profile", ["default", "paper"])
def test_every_central_row_belongs_to_exactly_one_statement(profile):
    """Counting statements must not drop a central row, nor count one twice."""
    for d in _ledgers(profile):
        for c in d["claims"]:
            if not c.get("central") or c.get("part_of"):
                continue
            owners = [
                st.key
                for st in central.STATEMENTS
                if any(fnmatchcase(c["id"], p) for p in st.rows.get(d["notebook"], ()))
            ]
            assert len(owners) == 1, (profile, d["notebook"], c["id"], owners)


def test_rows_named_as_no_statement_of_the_paper_are_not_central():
    for d in _ledgers("default") + _ledgers("paper"):
        never = central.NOT_CENTRAL.get(d["notebook"], {})
        assert not [c["id"] for c in d["claims"] if c["id"] in never and c.get("central")]
    for st in central.STATEMENTS:  # and no statement names one of them
        for nb, pats in st.rows.items():
            assert not [r for r in central.NOT_CENTRAL.get(nb, {}) if any(fnmatchcase(r, p) for p in pats)], st.key


def test_judge_reads_a_statement_from_its_rows_and_names_its_notebooks_that_did_not_run():
    st = next(s for s in central.STATEMENTS if len(s.rows) == 1 and s.rows)
    ((nb, pats),) = st.rows.items()
    ledger = {"notebook": nb, "paper": st.paper, "claims": []}
    row = {"id": pats[0].replace("*", "x"), "verdict": C, "part_of": ""}
    reading = {"id": pats[0].replace("*", "y"), "verdict": R, "part_of": row["id"]}  # a single reading: left out
    ledger["claims"] = [row, reading]
    (got,) = [j for j in central.judge([ledger]) if j["key"] == st.key]
    assert got["rows"] == [{"notebook": nb, "id": row["id"], "verdict": C}] and got["not_run"] == []
    assert got["verdict"] == statement_verdict([C], st.quantifier)
    assert central.judge([]) == []


def test_a_statement_the_papers_words_allow_both_ways_is_decided_only_where_both_readings_agree():
    assert statement_verdict([R, I], "any|all") == I  # "can" holds, "for both" is open: not decided
    assert statement_verdict([R, R], "any|all") == R
    assert statement_verdict([C, C], "all|any") == C
    assert statement_verdict([R, C], "any|all") == I  # one reading reproduced, the other contradicted
    with pytest.raises(ValueError, match="quantifier"):
        statement_verdict([R], "all|all")


def _confirm_only(source: str) -> list[str]:
    """Functions of ``source`` that can only confirm a consistency: a literal ``holds=True``/``False``, or a
    ``consistency(...)`` call beside an ``unavailable(..., kind="consistency")`` in one function (the other branch
    of the same check recorded as 'could not be checked' instead of an erratum)."""
    import ast

    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
        cons = [c for c in calls if c.func.attr == "consistency"]
        literal = any(k.arg == "holds" and isinstance(k.value, ast.Constant) for c in cons for k in c.keywords)
        unavailable = any(
            c.func.attr == "unavailable"
            and any(
                k.arg == "kind" and isinstance(k.value, ast.Constant) and k.value.value == "consistency"
                for k in c.keywords
            )
            for c in calls
        )
        if literal or (cons and unavailable):
            found.append(fn.name)
    return found


def test_no_paper_package_holds_a_confirm_only_check():
    """Issue 60, item 3: a consistency a check can only confirm (a rising sheet -> consistency, a falling one ->
    'unavailable') is the one-way rule the ledger refuses; every paper package is scanned for its two shapes."""
    confirm_only = """
def steady(ledger, steps):
    if all(s > 0 for s in steps):
        return ledger.consistency("x", "S", "rises", holds=True, check="every step rises")
    return ledger.unavailable("x", "S", "rises", kind="consistency", why="no noise")
"""
    both_ways = """
def steady(ledger, steps):
    return ledger.consistency("x", "S", "rises", holds=all(s > 0 for s in steps), check="every step rises")
"""
    assert _confirm_only(confirm_only) == ["steady"] and _confirm_only(both_ways) == []
    lib = paths.ROOT / "lib" / "robeval"
    files = [f for pkg in ("mscr", "msd", "realworld", "acr") for f in sorted((lib / pkg).glob("*.py"))]
    assert len(files) > 40
    found = {f.name: _confirm_only(f.read_text()) for f in files}
    assert {k: v for k, v in found.items() if v} == {}
