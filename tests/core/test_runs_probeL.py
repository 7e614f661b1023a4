"""Probe L on core.runs: a finished cell's file is checked before its rows are returned (L4: its checksum, bad
JSON, a link), a store or unpack destination that is a file and a stores function returning None are named
(L10), a damaged pack never names a temporary folder (L14), and the grid's options are checked (the Minor list:
n_jobs, lock_timeout, progress / allow_missing given as text, store "", a row key overriding a cell parameter)."""

import json
import os
import re

import pytest

from double_grid import CELLS, double
from double_grid import run_double as _grid
from robeval.core import runs
from robeval.core.runs.packs import PACK_FORMAT

GRID_CELLS = ("clashing",)  # the cells of this file (double: tests/double_grid.py)


@pytest.fixture(autouse=True)
def _cells_of_this_file(trust_cells):
    from pathlib import Path

    trust_cells(**{__name__.split(".")[0]: Path(__file__).parents[__name__.count(".")]})


def clashing(cell, config):
    return {"x": 999, "y": 0}


@pytest.fixture
def finished(tmp_path):
    """A finished grid of two cells, and the file of the cell x=1."""
    store = tmp_path / "s"
    assert _grid(store)["y"].tolist() == [2, 4]
    return store, runs.Grid(double, CELLS, store=store).path({"x": 1})


def test_a_cell_file_whose_rows_were_edited_is_refused_naming_it(finished):
    # L4: [12345, 4] came back with no word (pack refused the same file)
    store, path = finished
    payload = json.loads(path.read_text())
    payload["rows"][0]["y"] = 12345
    path.write_text(json.dumps(payload))
    with pytest.raises(
        ValueError,
        match=rf"^{re.escape(str(path))}: its rows do not match the checksum written with them \(rows_sha256\): the "
        r"file was changed after its cell was computed, .*; delete it and run the grid again: that cell is computed "
        r"anew, the finished ones are kept\.$",
    ):
        _grid(store)
    path.unlink()
    assert _grid(store)["y"].tolist() == [2, 4]  # the fix the message gives


def test_a_cell_file_cut_short_is_refused_naming_it(finished):
    # L4: JSONDecodeError: Expecting value: line 1 column 11 (char 10), no file named
    store, path = finished
    path.write_text('{"rows": [')
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))} is not a readable grid cell file \(Expecting value: .*delete it"
    ):
        _grid(store)
    path.write_text('{"rows": 3}')
    with pytest.raises(
        ValueError, match=r"is not a grid cell file \(a JSON object whose 'rows' is a list of objects\)"
    ):
        _grid(store)


def test_a_cell_file_that_is_a_link_is_not_followed(finished, tmp_path):
    # L4: the link was followed (/etc/hostname read), then JSONDecodeError
    store, path = finished
    other = tmp_path / "elsewhere.json"
    other.write_text(path.read_text())
    path.unlink()
    os.symlink(other, path)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))} is a link or a special file, which no store"):
        _grid(store)


def test_a_row_key_that_overrides_a_cell_parameter_is_refused(tmp_path):
    # Minor: both rows came back with x=999, the cells x=1 and x=2 lost
    with pytest.raises(
        runs.IncompleteResult, match=r"the grid function returned a row with x=999 for the cell with x=1"
    ):
        runs.run_grid(clashing, CELLS, store=tmp_path / "s", backend="serial", progress=False)


def test_a_store_that_is_a_file_is_named(tmp_path):
    # L10: NotADirectoryError: [Errno 20] Not a directory: '.../afile/config-...'
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match=rf"^store {re.escape(str(afile))} is a file, not a folder; pass a folder"):
        _grid(afile)
    assert afile.read_text() == "x"


@pytest.mark.parametrize("store", ["", None, 3])
def test_an_empty_or_non_path_store_is_refused(store, tmp_path, monkeypatch):
    # Minor: store="" wrote config-*/ into the working folder
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match=r"^store must be a folder or file path \(str or pathlib\.Path\)"):
        _grid(store)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "value, kind, said",
    [("abc", TypeError, "'abc' (str)"), (True, TypeError, "True (bool)"), (-1, ValueError, "-1"),
     (0, ValueError, "0"), (float("nan"), ValueError, "nan")],
)  # fmt: skip
def test_lock_timeout_must_be_seconds_above_zero(tmp_path, value, kind, said):
    # L10: ValueError: could not convert string to float: 'abc'; Minor: -1 accepted
    with pytest.raises(kind, match=r"^lock_timeout must be a number of seconds > 0 .*, got " + re.escape(said)):
        runs.Grid(double, CELLS, store=tmp_path, lock_timeout=value)
    assert runs.Grid(double, CELLS, store=tmp_path, lock_timeout=float("inf")).lock_timeout == float("inf")


@pytest.mark.parametrize("n_jobs, kind", [(0, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)])
def test_n_jobs_must_be_a_count_joblib_takes(tmp_path, n_jobs, kind):
    with pytest.raises(kind, match=r"^n_jobs must be None \(all cores\), a whole number of processes >= 1, or a neg"):
        runs.run_grid(double, CELLS, store=tmp_path, n_jobs=n_jobs, progress=False)
    assert not (tmp_path / "config.json").exists() and list(tmp_path.iterdir()) == []


def test_yes_no_options_given_as_text_are_refused(finished):
    # Minor: progress="no" showed a bar, allow_missing="no" allowed missing cells
    store, _ = finished
    with pytest.raises(TypeError, match=r"^progress must be True or False, got 'no' \(str\)"):
        runs.run_grid(double, CELLS, store=store, progress="no")
    with pytest.raises(TypeError, match=r"^allow_missing must be True or False, got 'no' \(str\)"):
        runs.Grid(double, CELLS + [{"x": 3}], store=store).collect(allow_missing="no")


def test_unpack_into_a_file_is_named(finished, tmp_path):
    # L10: FileExistsError: [Errno 17] File exists
    store, _ = finished
    pack = tmp_path / "p.tar.xz"
    runs.pack([store], pack)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ValueError, match=rf"^dest {re.escape(str(afile))} is a file, not a folder; pass a folder"):
        runs.unpack(pack, afile)
    assert afile.read_text() == "x"
    assert sorted(runs.unpack(pack, tmp_path / "out")["stores"]) == ["s"]


def test_adopt_pack_with_stores_returning_none_is_named(finished, tmp_path):
    # L10: TypeError: expected str, bytes or os.PathLike object, not NoneType
    store, _ = finished
    pack = tmp_path / "p.tar.xz"
    runs.pack([store], pack)
    with pytest.raises(TypeError, match=r"^the store folder for 's' \(from stores\) must be a folder or file path"):
        runs.adopt_pack(pack, lambda name: None, progress=False)
    with pytest.raises(TypeError, match=r"^stores must be a mapping \{store name in the pack: store folder here\}"):
        runs.adopt_pack(pack, ["s"], progress=False)


def test_adopt_pack_of_a_sub_store_without_config_names_the_pack_not_a_temporary_folder(tmp_path, write_tar_xz):
    # L14: "/tmp/robeval-pack-XXXX/s holds no grid sub-store ...; pass the grid's store folder"
    manifest = {"format": PACK_FORMAT, "stores": {"s": {"config-abc": {"sha256": {"x.json": "0" * 64}}}}}
    pack = write_tar_xz(
        tmp_path / "nocfg.tar.xz", {"MANIFEST.json": json.dumps(manifest).encode(), "s/config-abc/x.json": b"{}"}
    )
    with pytest.raises(
        ValueError,
        match=rf"^the pack {re.escape(str(pack))}: its sub-store s/config-abc has no config\.json \(a pack written by "
        r"`robeval grids --pack` holds config-\*/config\.json for each sub-store\), so it is damaged .*nothing of it "
        r"was adopted",
    ) as err:
        runs.adopt_pack(pack, lambda n: tmp_path / "st" / n, progress=False)
    assert "robeval-pack-" not in str(err.value)
