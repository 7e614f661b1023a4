"""Issue 62's probe: inputs of robeval.core.ledger and robeval.core.notebooks that gave silent wrong answers or
raw Python errors."""

import math

import numpy as np
import pytest

from robeval.core import ledger, stats
from robeval.core.notebooks import check_notebook_file, strip_outputs


@pytest.mark.parametrize(
    "p_values, why",
    [
        ([0.01, np.nan], r"^p_values holds NaN at position 1; a test that could not run has no p-value"),
        ([-0.1, 0.5], r"^p_values must lie in \[0, 1\], got -0\.1 at position 0"),
        ([0.01, 1.5], r"^p_values must lie in \[0, 1\], got 1\.5 at position 1"),
        (0.3, r"^p_values must be a one-dimensional sequence"),
    ],
)
def test_holm_refuses_p_values_that_are_not_p_values(p_values, why):
    """N5: holm([0.01, nan], 0.05) rejected the NaN hypothesis; -0.1 and 1.5 were taken as p-values."""
    with pytest.raises(ValueError, match=why):
        ledger.holm(p_values, 0.05)


def test_holm_refuses_booleans_and_an_alpha_outside_0_1():
    with pytest.raises(TypeError, match=r"^p_values must hold numbers.*booleans"):
        ledger.holm([True, False], 0.05)
    with pytest.raises(TypeError, match=r"^alpha must be a number in \(0, 1\), got True"):
        ledger.holm([0.01], True)
    with pytest.raises(ValueError, match=r"^alpha must lie in \(0, 1\), got 1\.5"):
        ledger.holm([0.01, 0.02], 1.5)
    with pytest.raises(ValueError, match=r"^alpha must be a finite number in \(0, 1\), got nan"):
        ledger.holm([0.01], math.nan)
    # valid input: the same answers as before
    assert ledger.holm([0.01, 0.04, 0.03], 0.05) == [True, False, False]
    assert ledger.holm(np.array([0.01, 0.02, 0.03]), 0.06) == [True, True, True]
    assert ledger.holm((0, 1), 0.05) == [True, False] and ledger.holm([], 0.05) == []


@pytest.mark.parametrize(
    "n, now, err, why",
    [
        (math.nan, 5, ValueError, r"^n must be a finite count of units >= 0 \(or None\), got nan"),
        (True, 5, TypeError, r"^n must be a count of units \(a number >= 0, or None\), got True"),
        (-3, 5, ValueError, r"^n must be a finite count of units >= 0 \(or None\), got -3"),
        (7, -1, ValueError, r"^now must be a finite count of units >= 0"),
        (7, False, TypeError, r"^now must be a count of units"),
    ],
)
def test_phrase_need_refuses_counts_that_are_not_counts(n, now, err, why):
    """N5: phrase_need(nan | True | -3, 5, ...) returned "≈nan runs (now 5)", "≈True runs", "≈-3 runs"."""
    with pytest.raises(err, match=why):
        ledger.phrase_need(n, now, "runs", "x")
    assert ledger.phrase_need(7, 5, "runs", "x") == "≈7 runs (now 5)"
    assert ledger.phrase_need(None, 5, "runs", "x") == "no number of our runs"


def test_is_scaled_refuses_an_unknown_profile():
    """N5: is_scaled("nope", "x") answered True for a profile that does not exist."""
    with pytest.raises(ValueError, match=r"^profile must be one of \('smoke', 'default', 'long', 'gpu', 'paper'\)"):
        ledger.is_scaled("nope", "x")
    assert ledger.is_scaled("default", "nothing") and not ledger.is_scaled("paper", "nothing: the protocol")


def test_p_value_of_a_tuple_says_what_it_takes():
    """O-N2: p_value((0.5, nan)) raised AttributeError: 'tuple' object has no attribute 'se'."""
    with pytest.raises(TypeError, match=r"^p_value takes a robeval\.core\.stats\.Interval .*got tuple"):
        ledger.p_value((0.5, float("nan")))
    iv = stats.Interval(2.0, 0.0, 4.0, 1.0, 5, 0.95, "t-interval over 5 runs")
    assert ledger.p_value(iv) == pytest.approx(0.116117, abs=1e-6)


def test_strip_outputs_of_a_folder_or_a_non_notebook_says_what_it_accepts(tmp_path):
    """O-N2: strip_outputs(Path(".")) raised IsADirectoryError; the CLI's strip words it."""
    accepts = r"robeval strip takes Jupyter notebooks \(\.ipynb files of nbformat 4\)"
    with pytest.raises(
        ValueError, match=rf"is a folder, not a notebook: pass the notebooks in it \(.*\*\.ipynb\); {accepts}"
    ):
        strip_outputs(tmp_path)
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match=rf"x\.json is not a notebook \(not an \.ipynb file\); {accepts}"):
        strip_outputs(tmp_path / "x.json", dry_run=True)
    with pytest.raises(ValueError, match=rf"^no such notebook: .*gone\.ipynb; {accepts}"):
        strip_outputs(tmp_path / "gone.ipynb")
    (tmp_path / "bad.ipynb").write_text("not json")
    with pytest.raises(ValueError, match=r"bad\.ipynb is not a readable notebook \(NotJSONError"):
        check_notebook_file(tmp_path / "bad.ipynb")
    with pytest.raises(TypeError, match="path must be a folder or file path"):
        strip_outputs(3)
    assert (tmp_path / "bad.ipynb").read_text() == "not json"


def test_strip_outputs_still_strips_a_notebook(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1")
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=1)]
    cell.execution_count = 1
    nb.cells.append(cell)
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert strip_outputs(str(path), dry_run=True) is True
    assert strip_outputs(path) is True and strip_outputs(path) is False
    assert nbformat.read(path, as_version=4).cells[0].outputs == []


# ------------------------------------------------------------- a second fresh probe (probe E): rows that lied
def _ledger():
    return ledger.Ledger(paper="mscr", notebook="x", profile="default")


def test_central_must_be_a_bool_and_paper_a_json_value():
    """`central="no"` made a row central (and put it under the report's central rows); `paper=nan` was saved as a
    bare NaN token, which is not JSON."""
    L = _ledger()
    with pytest.raises(TypeError, match=r"a: central must be True or False, got 'no'"):
        L.fact("a", "Fig. 1", "d", holds=True, basis="b", evidence="derivation", central="no")
    for bad, err in (
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (object(), TypeError),
        ({1: 2}, TypeError),
    ):
        with pytest.raises(err, match=r"b: paper must be"):
            L.fact("b", "Fig. 1", "d", holds=True, basis="b", evidence="derivation", paper=bad)
    with pytest.raises(ValueError, match="paper must be a finite number"):
        L.fact("c", "Fig. 1", "d", holds=True, basis="b", evidence="derivation", paper=[1.0, float("nan")])
    for name, kw in (("source", {"source": None}), ("description", {"description": ""}), ("note", {"note": [1]})):
        with pytest.raises(TypeError, match=rf"d: {name} must be"):
            L.fact(
                **{"id": "d", "source": "Fig. 1", "description": "x", **kw},
                holds=True,
                basis="b",
                evidence="derivation",
            )
    # what rows hold stays accepted: text, numbers, None, booleans, nested lists and text-keyed mappings
    for i, paper in enumerate(("holds", 0.25, 3, None, True, [0.1, [2, "x"]], {"acc": 0.9})):
        c = L.fact(
            f"ok{i}", "Fig. 1", "d", holds=True, basis="b", evidence="derivation", paper=paper, central=bool(i % 2)
        )
        assert c.paper_value == paper and c.central is bool(i % 2)


def test_an_interval_must_tell_one_story():
    """A hand-made Interval whose estimate (-5) lay outside its bounds (0.1, 0.3) was recorded "reproduced" for a
    "> 0" claim; a level of 1.5, n = 0.5 or a negative se were taken too. A bootstrap interval's percentiles may
    exclude its estimate and stay accepted."""
    good = dict(estimate=0.2, low=0.1, high=0.3, se=0.05, n=5, level=0.95, method="t-interval over 5 runs")
    cases = [
        ({"estimate": -5.0}, "estimate -5.0 lies outside its bounds"),
        ({"level": 1.5}, r"level must be a fraction in \(0, 1\)"),
        ({"n": 0.5}, "n must be a whole number"),
        ({"n": True}, "n must be a whole number"),
        ({"se": -0.1}, "se must be >= 0 or NaN"),
        ({"low": "0.1"}, "low must be a number"),
    ]
    for change, message in cases:
        iv = stats.Interval(**{**good, **change})
        with pytest.raises((ValueError, TypeError), match=message):
            _ledger().comparison("a", "s", "d", interval=iv, evidence="replication", unit="trials", about="data")
    ok = [
        stats.Interval(**{**good, "se": float("nan")}),
        stats.Interval(**{**good, "estimate": 0.35, "method": "percentile bootstrap"}),
    ]
    for iv in ok:
        assert ledger.vocab.as_interval(iv) is iv
    c = _ledger().comparison(
        "a", "s", "d", interval=stats.Interval(**good), evidence="replication", unit="trials", about="data"
    )
    assert c.estimate == 0.2 and tuple(c.ci) == (0.1, 0.3)


def test_strip_writes_through_a_temporary_and_keeps_the_notebook_whole_when_the_write_fails(tmp_path, monkeypatch):
    """Probe F #1: strip wrote the notebook in place; a failed write (a full disk) left it cut short and unreadable,
    and the error named no file. It now writes a temporary beside it and renames it; the mode and a link are kept."""
    import os

    import nbformat

    from robeval.core import io

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 1")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    nb.cells = [cell]
    path = tmp_path / "a.ipynb"
    nbformat.write(nb, path)
    os.chmod(path, 0o640)
    before = path.read_bytes()

    def full_disk(target, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io, "atomic_write_bytes", full_disk)
    with pytest.raises(OSError) as err:
        strip_outputs(path)
    assert err.value.filename == str(path) and path.read_bytes() == before  # whole, and named
    monkeypatch.undo()
    link = tmp_path / "link.ipynb"
    link.symlink_to(path)
    assert strip_outputs(link) is True
    assert link.is_symlink() and (path.stat().st_mode & 0o777) == 0o640
    assert nbformat.read(path, as_version=4).cells[0].outputs == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ipynb", "link.ipynb"]  # no temporary left


def test_the_papers_effect_must_be_a_finite_number():
    """Probe F #10: effect=NaN or inf was recorded as if no effect had been given (no power), and text got math's
    message; each now names `effect`. A finite effect gives the power of the test (hand-checked against 0.807)."""
    iv = stats.mean_interval([0.1, 0.2, 0.3, 0.25, 0.15])
    kw = dict(interval=iv, direction=">", evidence="replication", unit="trials", about="data")
    for bad, err in ((float("nan"), ValueError), (float("inf"), ValueError), ("0.1", TypeError), (True, TypeError)):
        with pytest.raises(err, match="effect must be"):
            _ledger().comparison("a", "Fig 1", "d", effect=bad, **kw)
    assert _ledger().comparison("a", "Fig 1", "d", effect=0.1, **kw).power == pytest.approx(0.807, abs=1e-3)


def test_strip_refuses_an_nbformat_3_notebook_instead_of_rewriting_it(tmp_path):
    """Probe F #7: a version-3 notebook was converted and written back as version 4, with a random cell id each
    run and its metadata dropped, although strip says it takes nbformat 4."""
    import json

    v3 = {"metadata": {"name": "x"}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": [
        {"cell_type": "code", "collapsed": False, "input": "print(1)", "language": "python", "metadata": {},
         "outputs": [{"output_type": "stream", "stream": "stdout", "text": "1\n"}], "prompt_number": 1}],
        "metadata": {}}]}  # fmt: skip
    path = tmp_path / "v3.ipynb"
    path.write_text(json.dumps(v3))
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"is a notebook of nbformat 3; robeval strip takes .*nbformat 4"):
        strip_outputs(path)
    assert path.read_bytes() == before


def test_ledger_messages_say_what_is_wrong():
    """Probe F #15: an empty `cells` was reported as "got <class 'dict'>", comparable_at="paper" was split into the
    letters a, e, p, r, and Ledger(claims=[1]) failed later with an AttributeError."""
    L = _ledger()
    kw = dict(tolerance=0.1, tolerance_basis="b", evidence="replication", unit="none (exact)", about="data")
    with pytest.raises(ValueError, match=r"w: cells must map .* got \{\}"):
        L.whole_table("w", "s", "d", cells={}, **kw)
    iv = stats.mean_interval([0.1, 0.2, 0.3])
    with pytest.raises(
        TypeError, match=r"comparable_at must be a tuple of profile names, got the text 'paper'; write \('paper',\)"
    ):
        L.comparison(
            "a", "s", "d", interval=iv, evidence="replication", unit="trials", about="data", comparable_at="paper"
        )
    with pytest.raises(TypeError, match="claims must be a list of Claim rows"):
        ledger.Ledger(paper="mscr", notebook="x", profile="default", claims=[1])
