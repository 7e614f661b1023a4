"""Probe L's Minor list on the command line and its helpers: a corruption named twice, an absurd --cores, a grid
store that is a link, `robeval strip` of a read-only or hard-linked notebook and strip_outputs(dry_run='no'), and
`-p NAME inf` read as papermill reads it."""

import math
import os

import nbformat
import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core.notebooks import parse_parameter_value, strip_outputs
from robeval.transforms.release import parse_names


def test_a_corruption_named_twice_is_refused(tmp_path, capsys):
    # Minor: --names contrast,contrast was accepted (one file)
    with pytest.raises(ValueError, match=r"^--names lists 'contrast' twice; name each corruption \(or group\) once\.$"):
        parse_names("contrast,contrast")
    with pytest.raises(ValueError, match=r"^--names lists 'c' twice"):
        parse_names("C,c")
    assert parse_names("C,contrast").count("contrast") == 1  # a name inside a group named too: once, as before
    assert main(["corrupt", "--out", str(tmp_path / "o"), "--names", "contrast,contrast"]) == 2
    one_line_error(capsys, "--names lists 'contrast' twice")
    assert not (tmp_path / "o").exists()


def test_plan_refuses_more_cores_than_a_machine_has(capsys):
    # Minor: `robeval plan --cores 1000000` planned for a million cores
    assert main(["plan", "--budget-min", "45", "--cores", "1000000"]) == 2
    one_line_error(capsys, "cores must be at most 1024 (the CPU cores of one machine), got 1000000")


def test_grids_refuses_a_store_that_is_a_link(tmp_path, capsys):
    # Minor: `robeval grids --from DIR` listed a store that is a link to /etc as an empty store
    (tmp_path / "grids").mkdir()
    os.symlink("/etc", tmp_path / "grids" / "etcstore")
    assert main(["grids", "--from", str(tmp_path / "grids")]) == 2
    one_line_error(capsys, f"{tmp_path / 'grids' / 'etcstore'} is a link (to /etc), not a grid store folder")


def _notebook_with_outputs(path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3)
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)]
    nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def test_strip_refuses_a_read_only_or_hard_linked_notebook(tmp_path, capsys):
    # Minor: a 0444 notebook was replaced (mode kept); of a hard-linked one, the other name kept its outputs
    ro = _notebook_with_outputs(tmp_path / "ro.ipynb")
    ro.chmod(0o444)
    before = ro.read_bytes()
    assert main(["strip", str(ro)]) == 2
    one_line_error(capsys, f"{ro} is read-only (mode 0444): stripping would replace it; make it writable")
    assert ro.read_bytes() == before
    assert main(["strip", "--check", str(ro)]) == 1  # a check writes nothing: it may read a read-only file
    capsys.readouterr()
    linked = _notebook_with_outputs(tmp_path / "a.ipynb")
    os.link(linked, tmp_path / "b.ipynb")
    with pytest.raises(ValueError, match=r"has 2 hard links: stripping writes a new file under this name, and the"):
        strip_outputs(linked)
    assert (tmp_path / "b.ipynb").read_bytes() == linked.read_bytes()


def test_strip_outputs_takes_dry_run_as_true_or_false(tmp_path):
    # Minor: dry_run="no" counted as True (nothing stripped)
    path = _notebook_with_outputs(tmp_path / "n.ipynb")
    with pytest.raises(TypeError, match=r"^dry_run must be True or False, got 'no' \(str\)"):
        strip_outputs(path, dry_run="no")
    assert strip_outputs(path) is True and strip_outputs(path) is False


@pytest.mark.parametrize(
    "text, want", [("inf", math.inf), ("-inf", -math.inf), ("1e999", math.inf), ("Infinity", math.inf)]
)
def test_parse_parameter_value_reads_inf_as_a_float(text, want):
    # Minor: 'inf' stayed the text 'inf' while '1e999' became float inf
    assert parse_parameter_value(text) == want
    assert math.isnan(parse_parameter_value("nan")) and parse_parameter_value("iid") == "iid"
