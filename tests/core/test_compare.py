"""`robeval compare`: the verdicts that differ between two runs' ledgers (the rerun check of the README)."""

import json

from robeval.__main__ import main
from robeval.core.publish.report import compare_ledgers


def _write(folder, claims):
    folder.mkdir(parents=True)
    (folder / "01_x.json").write_text(
        json.dumps({"notebook": "01_x", "claims": [{"id": i, "verdict": v, "estimate": e} for i, v, e in claims]})
    )


def test_compare_lists_changed_missing_and_added_claims(tmp_path):
    _write(tmp_path / "a", [("c1", "reproduced", 1.0), ("c2", "inconclusive", 0.1), ("c3", "contradicted", 2.0)])
    _write(tmp_path / "b", [("c1", "reproduced", 1.01), ("c2", "reproduced", 0.3), ("c4", "consistency", None)])
    diffs = compare_ledgers(tmp_path / "a", tmp_path / "b")
    assert [(d["id"], d["ours"], d["other"]) for d in diffs] == [
        ("c2", "inconclusive", "reproduced"),
        ("c3", "contradicted", None),
        ("c4", None, "consistency"),
    ]
    assert diffs[0]["ours_estimate"] == 0.1 and diffs[0]["other_estimate"] == 0.3
    assert compare_ledgers(tmp_path / "a", tmp_path / "a") == []


def test_compare_command_exit_codes(tmp_path, capsys, monkeypatch):
    from robeval.core import paths

    _write(tmp_path / "smoke" / "claims", [("c1", "reproduced", 1.0)])
    _write(tmp_path / "other", [("c1", "contradicted", 0.0)])
    monkeypatch.setattr(paths, "results_dir", lambda profile, create=True: tmp_path / profile)
    assert main(["compare", str(tmp_path / "smoke" / "claims"), "--profile", "smoke"]) == 0
    assert "0 verdict(s) differ" in capsys.readouterr().out
    assert main(["compare", str(tmp_path / "other"), "--profile", "smoke"]) == 1
    assert "01_x: c1: ours 'reproduced' (1.0), other 'contradicted' (0.0)" in capsys.readouterr().out
    assert main(["compare", str(tmp_path / "missing"), "--profile", "smoke"]) == 2
    assert "not a folder of ledgers" in capsys.readouterr().err


def test_compare_can_be_restricted_to_some_notebooks(tmp_path):
    _write(tmp_path / "a", [("c1", "reproduced", 1.0)])
    _write(tmp_path / "b", [("c1", "contradicted", 0.0)])
    assert len(compare_ledgers(tmp_path / "a", tmp_path / "b")) == 1
    assert compare_ledgers(tmp_path / "a", tmp_path / "b", notebooks=["02_y"]) == []


def test_compare_names_a_malformed_ledger_instead_of_a_traceback(tmp_path, capsys, monkeypatch):
    """Issue 36: a damaged ledger made `robeval compare` die with a KeyError / JSONDecodeError traceback."""
    from robeval.core import paths

    _write(tmp_path / "smoke" / "claims", [("c1", "reproduced", 1.0)])
    monkeypatch.setattr(paths, "results_dir", lambda profile, create=True: tmp_path / profile)
    cases = [
        ("{not json", "not readable JSON"),
        (json.dumps({"claims": []}), "'notebook' and a list of 'claims'"),
        (json.dumps({"notebook": "02_y", "claims": [{"verdict": "reproduced"}]}), "claim 0 has no 'id'"),
    ]
    for text, match in cases:
        other = tmp_path / f"other{len(match)}"
        other.mkdir()
        (other / "02_y.json").write_text(text)
        assert main(["compare", str(other), "--profile", "smoke"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"robeval: {other / '02_y.json'}") and match in err and len(err.splitlines()) == 1


def test_rerun_counts_count_as_the_reliability_page_does(tmp_path):
    """Decided rows of the base run (parts of a readings row left out), how many a rerun changed, how many to the
    opposite verdict, and how many it newly decided — the columns of docs/reliability.md's rerun table."""
    from robeval.core.publish.report import rerun_counts

    def write(folder, verdicts):  # {id: verdict}; "r.part" is a reading of r, counted through r only
        folder.mkdir(parents=True)
        claims = [
            {"id": i, "verdict": v, "estimate": None, "part_of": "r" if i == "r.part" else ""}
            | ({"n_runs": 5} if i in ("a", "b") else {"n_runs": None} if i == "e" else {})
            for i, v in verdicts.items()
        ]
        (folder / "05_x.json").write_text(json.dumps({"notebook": "05_x", "claims": claims}))

    base = {"a": "reproduced", "b": "reproduced", "c": "consistency", "d": "inconclusive", "e": "contradicted",
            "r.part": "reproduced", "r": "inconclusive"}  # fmt: skip
    write(tmp_path / "base", base)
    write(
        tmp_path / "rerun", {**base, "b": "inconclusive", "c": "erratum", "d": "reproduced", "r.part": "contradicted"}
    )
    (got,) = rerun_counts(tmp_path / "base", tmp_path / "rerun")
    assert (got["decided"], got["changed"], got["opposite"], got["newly_decided"]) == (4, 2, 1, 1)
    assert got["changed_ids"] == ["b", "c"] and got["new_ids"] == ["d"]
    # a and b rest on runs (n_runs), c (a consistency row) and e (n_runs None) do not: b is the one of them changed
    assert (got["from_runs"], got["changed_from_runs"]) == (2, 1)
    assert (got["intervals"], got["inside"]) == (0, 0)  # no row has a numeric estimate here


def test_rerun_counts_count_the_rerun_estimates_inside_the_base_intervals(tmp_path):
    """A rerun's estimate inside the base row's interval, for rows with a numeric estimate and interval (decided or
    not); text estimates, missing or unbounded intervals and rows absent from the rerun are not counted."""
    from robeval.core.publish.report import rerun_counts

    base = [
        {"id": "a", "verdict": "inconclusive", "estimate": 1.0, "ci": [0.0, 2.0]},
        {"id": "b", "verdict": "reproduced", "estimate": 1.0, "ci": [0.5, 1.5], "n_runs": 3},
        {"id": "c", "verdict": "inconclusive", "estimate": "3 of 8", "ci": None},
        {"id": "d", "verdict": "inconclusive", "estimate": 1.0, "ci": [0.0, float("inf")]},
        {"id": "e", "verdict": "inconclusive", "estimate": 1.0, "ci": [0.0, 2.0]},
    ]
    rerun = [
        {"id": "a", "verdict": "inconclusive", "estimate": 2.0, "ci": [1.0, 3.0]},  # on the bound: inside
        {"id": "b", "verdict": "reproduced", "estimate": 1.6, "ci": [1.1, 2.1]},  # outside
        {"id": "c", "verdict": "inconclusive", "estimate": 1.0, "ci": [0.0, 2.0]},
        {"id": "d", "verdict": "inconclusive", "estimate": 1.0, "ci": [0.0, 2.0]},
    ]
    for folder, claims in (("base", base), ("rerun", rerun)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "02_x.json").write_text(json.dumps({"notebook": "02_x", "claims": claims}))
    (got,) = rerun_counts(tmp_path / "base", tmp_path / "rerun")
    assert (got["intervals"], got["inside"], got["from_runs"], got["changed_from_runs"]) == (2, 1, 1, 0)
    (same,) = rerun_counts(tmp_path / "base", tmp_path / "base")
    assert (same["changed"], same["opposite"], same["newly_decided"]) == (0, 0, 0)


def test_compare_refuses_duplicated_ids_rows_without_verdict_and_deep_json(tmp_path, capsys, monkeypatch):
    """Issue 62, item 5: a row id listed twice hid a changed verdict (the second row won), a row without a verdict
    was a KeyError traceback and deeply nested JSON a RecursionError; each is now one line naming the file."""
    import pytest

    from robeval.core import paths

    _write(tmp_path / "smoke" / "claims", [("c1", "reproduced", 1.0)])
    monkeypatch.setattr(paths, "results_dir", lambda profile, create=True: tmp_path / profile)
    twice = {
        "notebook": "01_x",
        "claims": [{"id": "c1", "verdict": "contradicted"}, {"id": "c1", "verdict": "reproduced"}],
    }
    cases = [
        (json.dumps(twice), "the id 'c1' is listed twice"),
        (json.dumps({"notebook": "01_x", "claims": [{"id": "c1"}]}), "claim 'c1' has no 'verdict'"),
        (json.dumps({"notebook": "01_x", "claims": [{"id": "c1", "verdict": ["x"]}]}), "has the verdict"),
        ('{"notebook": "01_x", "claims": [' + "[" * 100_000 + "]" * 100_000 + "]}", "nested too deeply"),
        # probe F #8: an id or a notebook name could forge a "0 verdict(s) differ" line or send terminal escapes, and
        # any text passed for a verdict
        (json.dumps({"notebook": "01_x", "claims": [{"id": "c1\nrobeval compare: 0", "verdict": "reproduced"}]}),
         "not a plain name"),
        (json.dumps({"notebook": "01_x", "claims": [{"id": "c1", "verdict": "banana"}]}), "not one of reproduced"),
        (json.dumps({"notebook": "01_x\x1b[2K", "claims": []}), "is not a ledger"),
    ]  # fmt: skip
    for k, (text, match) in enumerate(cases):
        other = tmp_path / f"other{k}"
        other.mkdir()
        (other / "01_x.json").write_text(text)
        assert main(["compare", str(other), "--profile", "smoke"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"robeval: {other / '01_x.json'}") and match in err and len(err.splitlines()) == 1, err
        with pytest.raises(ValueError, match=match):
            compare_ledgers(tmp_path / "smoke" / "claims", other)
    # two files of one folder holding the same notebook's ledger
    _write(tmp_path / "two", [("c1", "reproduced", 1.0)])
    (tmp_path / "two" / "copy.json").write_text((tmp_path / "two" / "01_x.json").read_text())
    with pytest.raises(ValueError, match="are both ledgers of 01_x"):
        compare_ledgers(tmp_path / "smoke" / "claims", tmp_path / "two")
