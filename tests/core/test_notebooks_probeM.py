"""Probe M on the notebook runner: replot_copy and run_notebook(output_dir=) never replace a file robeval did not
write, nor write through a link (M3); the notebook readers refuse a FIFO, a folder or a huge file before opening it,
as check_notebook_file does (M8); paths given as text are read (M15)."""

import os
import re

import nbformat
import pytest

from fifos import fifo
from robeval.core import notebooks as NB
from robeval.core.catalog import NOTEBOOK_MAX_BYTES, has_compute_cells


@pytest.fixture
def source(tmp_path):
    """A small notebook with a compute cell, named like the compendium's."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "robeval", "display_name": "robeval", "language": "python"}
    params = nbformat.v4.new_code_cell("profile = 'smoke'")
    params.metadata["tags"] = ["parameters"]
    compute = nbformat.v4.new_code_cell("x = 1")
    compute.metadata["tags"] = ["compute"]
    nb.cells = [params, compute, nbformat.v4.new_code_cell("y = 2")]
    path = tmp_path / "src" / "07_tiny.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    return path


def test_replot_copy_never_replaces_a_users_file(source, tmp_path):
    # M3: mywork/07_...ipynb (the user's notes) was replaced by the copy
    mine = tmp_path / "mywork"
    mine.mkdir()
    (mine / source.name).write_text("MY OWN NOTES, not a robeval file\n")
    with pytest.raises(
        ValueError,
        match=rf"^out_dir {re.escape(str(mine))} holds {re.escape(source.name)}, a file robeval did not write there "
        r"\(the folder has no \.robeval-notebooks from an earlier run\), and the run would replace it; pass another "
        r"folder, or move the file\.$",
    ):
        NB.replot_copy(source, mine)
    assert (mine / source.name).read_bytes() == b"MY OWN NOTES, not a robeval file\n"
    assert sorted(p.name for p in mine.iterdir()) == [source.name]


def test_replot_copy_never_writes_through_a_link(source, tmp_path):
    # M3: linked/07_...ipynb -> precious.txt: precious.txt was overwritten with the notebook
    precious = tmp_path / "precious.txt"
    precious.write_text("PRECIOUS\n")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / source.name).symlink_to(precious)
    NB.replot_copy(source, tmp_path / "fresh")  # marks nothing but its own folder
    with pytest.raises(
        ValueError, match=rf"^out_dir {re.escape(str(linked))} holds {re.escape(source.name)} as a link"
    ):
        NB.replot_copy(source, linked)
    assert precious.read_bytes() == b"PRECIOUS\n" and (linked / source.name).is_symlink()


def test_replot_copy_replaces_its_own_copy(source, tmp_path):
    out = NB.replot_copy(source, tmp_path / "out")
    assert (tmp_path / "out" / NB.OUTPUT_MARKER).is_file()
    nb = nbformat.read(out, as_version=4)
    assert [c.source for c in nb.cells] == ["profile = 'smoke'", "y = 2"]
    out.write_text("an earlier copy")
    assert NB.replot_copy(str(source), str(tmp_path / "out")) == out  # a folder robeval wrote into: replaced
    assert nbformat.read(out, as_version=4).cells[-1].source == "y = 2"


def test_run_notebook_never_replaces_a_users_notebook_or_log(source, tmp_path):
    # M3: tiny.ipynb and tiny.kernel.log of the user were replaced by the run's
    mine = tmp_path / "results_of_mine"
    mine.mkdir()
    (mine / source.name).write_text("MY TINY NOTES\n")
    (mine / "07_tiny.kernel.log").write_text("MY LOG\n")
    with pytest.raises(ValueError, match=rf"^output_dir {re.escape(str(mine))} holds 07_tiny\.ipynb, a file robeval"):
        NB.run_notebook(source, "smoke", output_dir=mine)
    (mine / source.name).unlink()
    with pytest.raises(ValueError, match=rf"^output_dir {re.escape(str(mine))} holds 07_tiny\.kernel\.log, a file"):
        NB.run_notebook(source, "smoke", output_dir=mine)
    assert (mine / "07_tiny.kernel.log").read_bytes() == b"MY LOG\n"
    assert sorted(p.name for p in mine.iterdir()) == ["07_tiny.kernel.log"]


@pytest.mark.parametrize(
    "call",
    [
        lambda f, out: NB.replot_copy(f, out),
        lambda f, out: NB.check_parameters([f], "default", {}),
        lambda f, out: NB.check_stored_results([f], "default"),
        lambda f, out: has_compute_cells(f),
    ],
    ids=["replot_copy", "check_parameters", "check_stored_results", "has_compute_cells"],
)
def test_notebook_readers_never_open_a_fifo(tmp_path, call):
    # M8: each blocked for ever on a FIFO named like a notebook (check_notebook_file refused it)
    with fifo(tmp_path / "07_realworld_analytical.ipynb") as f:
        with pytest.raises(
            ValueError, match=r"^the notebook '.*07_realworld_analytical\.ipynb' is a FIFO \(named pipe\)"
        ):
            call(f, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_notebook_readers_refuse_a_huge_file_unread(tmp_path):
    big = tmp_path / "07_big.ipynb"
    with open(big, "wb") as fh:
        fh.truncate(NOTEBOOK_MAX_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ValueError, match=r"^the notebook '.*07_big\.ipynb' has 268,435,457 bytes, more than"):
        has_compute_cells(big)


def test_notebook_readers_name_a_bad_argument(tmp_path, source):
    # M15: AttributeError: 'str' object has no attribute 'stem' (check_stored_results, check_parameters)
    assert NB.check_stored_results([str(source)], "default") is None
    with pytest.raises(TypeError, match=r"^paths must be a list of notebook files, got str"):
        NB.check_stored_results(str(source), "default")
    with pytest.raises(TypeError, match=r"^paths must name a notebook file \(a str or Path\), got NoneType"):
        NB.check_parameters([None], "default", {})
    with pytest.raises(ValueError, match=r"^no such notebook: .*nope\.ipynb \(from path\)"):
        NB.replot_copy(tmp_path / "nope.ipynb", tmp_path / "out")
    (tmp_path / "x.ipynb").write_text("x")
    with pytest.raises(ValueError, match=r"^.*x\.ipynb is not a readable notebook \(NotJSONError"):
        NB.replot_copy(tmp_path / "x.ipynb", tmp_path / "out")
    afile = tmp_path / "afile"
    afile.write_text("mine")
    with pytest.raises(ValueError, match=r"^out_dir .*afile"):
        NB.replot_copy(source, afile)
    with pytest.raises(TypeError, match=r"^out_dir must be a folder \(a str or Path\), got str ''"):
        NB.replot_copy(source, "")
    assert afile.read_text() == "mine" and os.listdir(tmp_path / "src") == [source.name]
