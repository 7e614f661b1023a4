"""Probe L, L2: a saved ledger's ``notebook`` field never chooses the folder `robeval verify` reads: it must be the
ledger file's own name (a plain name) before any path is built from it, so nothing outside the profile's results
is read; experiment_folder refuses a notebook name that is a path."""

import shutil

import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core import manifest
from robeval.core import paths as project
from robeval.core.io import read_json, to_json

NB = "07_realworld_analytical"


@pytest.fixture
def committed(tmp_results, monkeypatch):
    """The committed ledger of notebook 07 and its result files in a temporary results folder; every file read
    for a manifest is recorded."""
    real = project.__getattr__("RESULTS_DIR") / "default"
    monkeypatch.setattr(project, "RESULTS_DIR", tmp_results / "results_dir")
    claims = tmp_results / "results_dir" / "default" / "claims"
    claims.mkdir(parents=True)
    shutil.copy(real / "claims" / f"{NB}.json", claims)
    shutil.copytree(real / "realworld_analytical", tmp_results / "results_dir" / "default" / "realworld_analytical")
    seen = []
    record = manifest.file_record
    monkeypatch.setattr(manifest, "file_record", lambda p: seen.append(str(p)) or record(p))
    return claims / f"{NB}.json", seen


@pytest.mark.parametrize("field", ["/etc", "../../..", "../default/realworld_analytical", "05_realworld_iris"])
def test_check_manifest_refuses_a_notebook_field_that_is_not_the_files_name_before_reading(committed, field):
    # L2: "/etc" made check_manifest read every file under /etc (1068 files), then name "/realworld_analytical/..."
    path, seen = committed
    saved = read_json(path)
    saved["notebook"] = field
    with pytest.raises(
        ValueError,
        match=rf"^{path} holds the ledger of '{field}' \(its 'notebook'\), not of '{NB}': a ledger is saved as "
        r"<notebook>\.json under results/default/claims, and its result files were not read\. Restore it .*"
        r"--only 07\)\.$",
    ):
        manifest.check_manifest(saved, path, "default")
    assert seen == []


def test_verify_with_an_edited_notebook_field_refuses_in_one_line_reading_nothing(committed, capsys):
    path, seen = committed
    saved = read_json(path)
    saved["notebook"] = "/etc"
    path.write_text(to_json(saved))
    assert main(["verify", "--profile", "default", "--only", "07"]) == 2
    one_line_error(capsys, f"{path} holds the ledger of '/etc'", f"not of '{NB}'", "--only 07")
    assert seen == []


def test_the_committed_ledger_still_checks_against_its_own_files(committed):
    path, seen = committed
    manifest.check_manifest(read_json(path), path, "default")
    assert len(seen) == len(read_json(path)["results"]) > 0


@pytest.mark.parametrize("name", ["/etc", "../x", "a/b", "..", "", 7])
def test_experiment_folder_refuses_a_notebook_name_that_is_a_path(name):
    with pytest.raises(ValueError, match=r"must be a plain name \(letters, digits, '_', '-', '\.'\), e\.g\. '07_"):
        manifest.experiment_folder("default", name)
    with pytest.raises(ValueError, match=r"must be a plain name"):
        manifest.results_manifest("default", name)
