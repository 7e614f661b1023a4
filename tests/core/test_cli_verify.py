"""`robeval verify`: every saved ledger rebuilt from its result files and compared field by field — an edited
result file, manifest, row or field, and the other profile's ledger that rule 7 reads, are each named in one line."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core import notebooks
from robeval.core import paths as project
from robeval.core.notebooks import runner


def _rebuild_as_saved(ledger, edit=None):
    """A stand-in for verify's rebuild of a notebook: writes the saved ledger as it is now (its manifest left out, as
    a rebuild has none; later edits of the saved file do not reach it), changed by ``edit(ledger dict)``, where the
    rebuild's ledger goes."""
    import copy

    from robeval.core.io import atomic_write_json, read_json

    now = read_json(ledger)

    def run(path, profile, **kwargs):
        d = copy.deepcopy(now)
        d.pop("results", None)
        if edit is not None:
            edit(d)
        atomic_write_json(Path(os.environ["ROBEVAL_LEDGER_DIR"]) / ledger.name, d)

    return run


def _copy_committed(tmp_results, profile="default", notebook="07_realworld_analytical"):
    """The committed ledger of ``notebook`` and its result files, copied into a temporary results folder."""
    import shutil

    from robeval.core.manifest import experiment_folder

    real = project.__getattr__("RESULTS_DIR") / profile
    claims = tmp_results / "results_dir" / profile / "claims"
    claims.mkdir(parents=True)
    shutil.copy(real / "claims" / f"{notebook}.json", claims)
    name = experiment_folder(profile, notebook).name
    shutil.copytree(real / name, tmp_results / "results_dir" / profile / name)
    return claims / f"{notebook}.json", tmp_results / "results_dir" / profile / name


def test_every_committed_ledger_carries_the_manifest_of_its_result_files():
    """Each committed ledger records every result file of its experiment folder, as the files are now."""
    from robeval.core.io import read_json
    from robeval.core.manifest import MANIFEST_KEY, check_manifest

    root = project.__getattr__("RESULTS_DIR")
    ledgers = sorted(root.glob("*/claims/*.json"))
    assert len(ledgers) >= 16
    for path in ledgers:
        saved = read_json(path)
        assert isinstance(saved.get(MANIFEST_KEY), dict), path
        check_manifest(saved, path, path.parent.parent.name)
    rec = read_json(root / "default" / "claims" / "07_realworld_analytical.json")[MANIFEST_KEY]
    assert rec["realworld_analytical/mc_vs_closed_form.csv"]["rows"] == 998


@pytest.mark.parametrize(
    "change, said",
    [
        ("truncate", r"it now has 499 rows, 998 rows recorded"),
        ("duplicate", r"it now has 1996 rows, 998 rows recorded"),
        ("edit", r"same size and row count, other bytes"),
        ("remove", r"is missing \(998 rows recorded\)"),
        ("add", r"extra\.csv is not among the result files"),
    ],
)
def test_verify_refuses_a_result_file_changed_since_its_ledger(tmp_results, monkeypatch, capsys, change, said):
    """Issue 48: a committed result cut to half, appended twice or edited used to rebuild the same verdicts
    ("0 verdict(s) differ", exit 0). Now verify checks the manifest first, names the file and rebuilds nothing."""
    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, folder = _copy_committed(tmp_results)
    csv = folder / "mc_vs_closed_form.csv"
    lines = csv.read_text().splitlines(keepends=True)
    if change == "truncate":
        csv.write_text("".join(lines[: 1 + 499]))
    elif change == "duplicate":
        csv.write_text("".join(lines + lines[1:]))
    elif change == "edit":
        text = csv.read_text()
        i = next(i for i, ch in enumerate(text) if ch in "123456789" and i > len(lines[0]))
        csv.write_text(text[:i] + ("2" if text[i] != "2" else "3") + text[i + 1 :])
    elif change == "remove":
        csv.unlink()
    else:
        (folder / "extra.csv").write_text("a\n1\n")
    ran = []
    monkeypatch.setattr(runner, "run_notebook", lambda *a, **k: ran.append(a))
    with pytest.raises(ValueError, match=said):
        notebooks.verify("default", only="07")
    assert ran == []  # refused before anything was rebuilt
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    name = "extra.csv" if change == "add" else "mc_vs_closed_form.csv"
    one_line_error(capsys, name, "robeval run --profile default --only 07")


@pytest.mark.parametrize("field, value", [("rows", 51), ("bytes", 1)])
def test_verify_refuses_an_edited_row_count_or_size_in_the_manifest(tmp_results, monkeypatch, capsys, field, value):
    """Probe J F3: the manifest's ``rows`` and ``bytes`` were read only for the message, so a ledger whose manifest
    was edited (50 rows recorded made 51) passed verify while its file was unchanged."""
    from robeval.core.io import read_json, to_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, folder = _copy_committed(tmp_results)
    saved = read_json(ledger)
    rel = "realworld_analytical/equal_distance_edge.csv"
    was = saved["results"][rel][field]
    saved["results"][rel][field] = value
    ledger.write_text(to_json(saved))
    ran = []
    monkeypatch.setattr(runner, "run_notebook", lambda *a, **k: ran.append(a))
    with pytest.raises(ValueError, match=rf"records {field} {value} for '{rel}', but that file, unchanged since "):
        notebooks.verify("default", only="07")
    assert ran == [] and was != value
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    one_line_error(capsys, f"has {field} {was} (the ledger was edited by hand)", "git checkout")


def test_verify_compares_numbers_below_1e_12_too(tmp_results, monkeypatch):
    """Probe J F3: numbers were equal within abs_tol=1e-12, so an estimate of 2.2e-16 edited to -9e-13 and the row's
    noise 1e-12 edited to 2e-12 (or 0) passed verify. Now numbers compare to 1e-9 relative only."""
    import copy

    from robeval.core.io import read_json, to_json
    from robeval.core.publish.report import ledger_differences

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger))
    assert notebooks.verify("default", only="07") == []  # the same values: nothing differs
    saved = read_json(ledger)
    row = saved["claims"][0]
    assert (row["id"], row["estimate"], row["noise"]) == ("A1-eq8", 2.22045e-16, 1e-12)
    for field, value in (("estimate", -9e-13), ("noise", 2e-12), ("noise", 0.0)):
        edited = copy.deepcopy(saved)
        edited["claims"][0][field] = value
        ledger.write_text(to_json(edited))
        got = [(d["id"], d["field"], d["saved"], d["rebuilt"]) for d in notebooks.verify("default", only="07")]
        assert got == [("A1-eq8", field, value, row[field])]
    same = {"claims": [{**row, "estimate": row["estimate"] * (1 + 1e-12)}]}  # last bits of a float: still equal
    assert ledger_differences({"claims": [row]}, same, "07") == []


def test_verify_refuses_a_ledger_without_manifest_and_write_manifest_records_it(tmp_results, monkeypatch, capsys):
    from robeval.core.io import read_json, to_json
    from robeval.core.manifest import MANIFEST_KEY

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, folder = _copy_committed(tmp_results)
    saved = read_json(ledger)
    recorded = saved.pop(MANIFEST_KEY)
    ledger.write_text(to_json(saved))
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger))  # the rebuild agrees
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    one_line_error(capsys, "has no manifest of its result files", "--write-manifest")
    assert notebooks.verify("default", only="07", write_manifest=True) == []
    assert read_json(ledger)[MANIFEST_KEY] == recorded  # the same files, the same manifest
    notebooks.verify("default", only="07")  # and now it passes the check


# ------------------------------------------------------------------- issue 48: CLI paths, one line each
@pytest.mark.parametrize(
    "field, value",
    [
        ("estimate", 0.5),
        ("ci", [0.0, 1.0]),
        ("paper_value", "12"),
        ("rule", "edited"),
        ("central", True),
        ("n_runs", 36),
    ],
)
def test_verify_names_the_first_edited_field_of_a_saved_row(tmp_results, monkeypatch, capsys, field, value):
    """Issue 62, item 4: an edited estimate, ci, paper_value, rule or central of a saved row passed verify with
    "0 differ" (only verdicts were compared); CLAIMS.md and the site then showed the edited numbers."""
    from robeval.core.io import atomic_write_json, read_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger))
    assert notebooks.verify("default", only="07") == []  # an unedited ledger rebuilds the same, field by field
    saved = read_json(ledger)
    row = saved["claims"][3]
    rebuilt_value = row[field]
    row[field] = value
    atomic_write_json(ledger, saved)
    (d,) = notebooks.verify("default", only="07")
    assert (d["id"], d["field"], d["saved"], d["rebuilt"]) == (row["id"], field, value, rebuilt_value)
    assert main(["verify", "--profile", "default", "--only", "07"]) == 1
    out = capsys.readouterr().out
    assert f"07_realworld_analytical: {row['id']}: {field}: saved {value!r}, rebuilt {rebuilt_value!r}" in out
    assert "1 row(s) differ" in out


def test_verify_takes_a_count_rebuilt_as_a_float_as_the_same_number_and_prints_a_change_as_counts(
    tmp_results, monkeypatch, capsys
):
    # was: n_runs saved 24 and rebuilt 24.0 shown as two numbers ("24 -> 24.0"); a change "saved 24, rebuilt 25.0"
    from robeval.core.io import read_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    i, n = next((i, r["n_runs"]) for i, r in enumerate(read_json(ledger)["claims"]) if r.get("n_runs"))
    assert isinstance(n, int)

    def as_float(by):
        def edit(d):
            d["claims"][i]["n_runs"] = float(n + by)

        return edit

    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger, as_float(0)))
    assert notebooks.verify("default", only="07") == []
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger, as_float(1)))
    (d,) = notebooks.verify("default", only="07")
    assert (d["field"], d["saved"], d["rebuilt"]) == ("n_runs", n, n + 1) and type(d["rebuilt"]) is int
    assert main(["verify", "--profile", "default", "--only", "07"]) == 1
    out = capsys.readouterr().out
    assert f": n_runs: saved {n}, rebuilt {n + 1}\n" in out and f"{n + 1}.0" not in out


def test_verify_names_the_other_profiles_ledger_rule_7_read(tmp_results, monkeypatch, capsys):
    """A verdict that changes with another profile's ledger (rule 7: a larger rerun overrules) is reported with
    that ledger named; a saved row id listed twice is refused, naming it."""
    from robeval.core.io import atomic_write_json, read_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    row = read_json(ledger)["claims"][0]
    paper = tmp_results / "results_dir" / "paper" / "claims" / ledger.name
    atomic_write_json(paper, {"notebook": ledger.stem, "claims": [{**row, "n_runs": 36, "verdict": "inconclusive"}]})

    def overruled(d):
        d["claims"][0]["verdict"] = "inconclusive"

    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger, overruled))
    (d,) = notebooks.verify("default", only="07")
    assert (d["id"], d["field"], d["saved"], d["rebuilt"]) == (row["id"], "verdict", row["verdict"], "inconclusive")
    assert d["reruns"] == [f"{paper} (paper: n_runs 36, verdict 'inconclusive')"]
    assert main(["verify", "--profile", "default", "--only", "07"]) == 1
    assert f"rule 7 read {paper} (paper: n_runs 36" in capsys.readouterr().out
    saved = read_json(ledger)
    saved["claims"].append(saved["claims"][1])
    atomic_write_json(ledger, saved)
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger))
    with pytest.raises(ValueError, match=re.escape(f"{ledger}: the id '{saved['claims'][1]['id']}' is listed twice")):
        notebooks.verify("default", only="07")


# ------------------------------------------------------------------- probe K: K25, K33
def test_verify_says_a_manifest_entry_removed_from_the_ledger_may_be_the_edit(tmp_results, monkeypatch, capsys):
    """Probe K K25: deleting a file's entry from the ledger's manifest was reported with "remove it" (the result
    file, which is genuine) as the only fix; restoring the ledger comes first."""
    from robeval.core.io import read_json, to_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, folder = _copy_committed(tmp_results)
    saved = read_json(ledger)
    del saved["results"]["realworld_analytical/map_linear.npz"]
    ledger.write_text(to_json(saved))
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    one_line_error(
        capsys, "map_linear.npz is not among the result files the manifest of the ledger", f"git checkout -- {ledger}"
    )
    assert (folder / "map_linear.npz").is_file()


def test_verify_names_a_key_robeval_does_not_write_in_a_manifest_entry(tmp_results, monkeypatch, capsys):
    """Probe K K33: an extra key in a manifest entry passed verify."""
    from robeval.core.io import read_json, to_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    saved = read_json(ledger)
    saved["results"]["realworld_analytical/map_linear.npz"]["note"] = "checked by hand"
    ledger.write_text(to_json(saved))
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    one_line_error(capsys, "its manifest entry for 'realworld_analytical/map_linear.npz' holds 'note'", "git checkout")


def test_verify_names_reordered_rows(tmp_results, monkeypatch):
    """Probe K K33: swapping two rows of a saved ledger passed verify (rows were compared by id only)."""
    from robeval.core.io import read_json, to_json

    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    ledger, _ = _copy_committed(tmp_results)
    saved = read_json(ledger)
    first, second = saved["claims"][1]["id"], saved["claims"][2]["id"]
    saved["claims"][1], saved["claims"][2] = saved["claims"][2], saved["claims"][1]
    ledger.write_text(to_json(saved))
    monkeypatch.setattr(runner, "run_notebook", _rebuild_as_saved(ledger, edit=lambda d: _swap(d, 1, 2)))
    got = [(d["id"], d["field"], d["saved"], d["rebuilt"]) for d in notebooks.verify("default", only="07")]
    assert got == [("(ledger)", "row order", f"{second} at row 2", f"{first} at row 2")]


def _swap(ledger: dict, i: int, j: int) -> None:
    """Swap rows ``i`` and ``j`` of ``ledger`` back (the rebuild keeps the notebook's order)."""
    ledger["claims"][i], ledger["claims"][j] = ledger["claims"][j], ledger["claims"][i]


def test_ledger_differences_show_a_whole_float_as_the_other_sides_integer():
    from robeval.core.publish.report import ledger_differences

    def led(**row):
        return {"notebook": "x", "claims": [{"id": "a", "verdict": "reproduced", **row}]}

    assert ledger_differences(led(n_runs=24, ci=[1, 2]), led(n_runs=24.0, ci=[1.0, 2.0]), "x") == []
    (d,) = ledger_differences(led(ci=[1, 2]), led(ci=[1.0, 3.0]), "x")
    assert (d["saved"], d["rebuilt"]) == ([1, 2], [1, 3]) and all(type(v) is int for v in d["rebuilt"])
    (d,) = ledger_differences(led(n_runs=24.0, estimate=0.5), led(n_runs=24, estimate=0.25), "x")
    assert (d["field"], d["saved"], d["rebuilt"]) == ("estimate", 0.5, 0.25)  # floats that are no count stay
    (d,) = ledger_differences(led(n_runs=24), led(n_runs=24.5), "x")
    assert repr(d["rebuilt"]) == "24.5"
