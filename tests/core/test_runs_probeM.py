"""Probe M on core.runs: a cell file whose recorded cell does not give its name (renamed or swapped, in a store or
a pack) is refused wherever cells are read or adopted (M1)."""

import io
import json
import re
import tarfile

import pytest

from double_grid import CELLS, double
from double_grid import run_double as _grid
from robeval.core import runs


@pytest.fixture
def finished(tmp_path):
    """A finished grid of two cells, and the files of its cells x=1 and x=2."""
    store = tmp_path / "s"
    assert _grid(store)["y"].tolist() == [2, 4]
    grid = runs.Grid(double, CELLS, store=store)
    return store, grid.path({"x": 1}), grid.path({"x": 2})


def test_swapped_cell_files_in_a_store_are_refused_naming_the_file(finished):
    # M1: Grid.collect read the x=2 file for x=1: y = [4, 2] for x = [1, 2], no word
    store, one, two = finished
    tmp = one.with_name("swap.tmp")
    one.rename(tmp)
    two.rename(one)
    tmp.rename(two)
    before = {p.name: p.read_bytes() for p in (one, two)}
    with pytest.raises(
        ValueError,
        match=rf"^{re.escape(str(one))} records the cell {{\"x\": ?2}}, whose file is {re.escape(two.name)}: the file "
        r"was renamed or swapped, so its rows are not its name's cell's; delete it and run the grid again",
    ):
        runs.Grid(double, CELLS, store=store).collect()
    assert {p.name: p.read_bytes() for p in (one, two)} == before
    one.unlink()
    two.unlink()
    assert _grid(store)["y"].tolist() == [2, 4]  # the fix the message gives


def test_a_cell_file_without_its_cell_is_refused(finished):
    store, one, _ = finished
    payload = json.loads(one.read_text())
    del payload["cell"]
    one.write_text(json.dumps(payload))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(one))} records no cell \(a JSON object under 'cell'\)"):
        runs.Grid(double, CELLS, store=store).collect()


def _swapped_pack(store, one, two, path):
    """A pack of ``store`` whose files of ``one`` and ``two`` trade names, the manifest's checksums traded too (a
    forgery that needs no checksum to fail)."""
    good = path.with_name("good.tar.xz")
    runs.pack([store], good)
    swap = {one.name: two.name, two.name: one.name}
    out = io.BytesIO()
    with tarfile.open(good, "r:xz") as src, tarfile.open(fileobj=out, mode="w:xz") as dst:
        for m in src.getmembers():
            data = src.extractfile(m).read() if m.isfile() else None
            if m.name == "MANIFEST.json":
                manifest = json.loads(data)
                for subs in manifest["stores"].values():
                    for sub in subs.values():
                        sums = sub["sha256"]
                        sums[one.name], sums[two.name] = sums[two.name], sums[one.name]
                data = json.dumps(manifest).encode()
            parts = m.name.rsplit("/", 1)
            if len(parts) == 2 and parts[1] in swap:
                m.name = f"{parts[0]}/{swap[parts[1]]}"
            if data is not None:
                m.size = len(data)
            dst.addfile(m, io.BytesIO(data) if data is not None else None)
    path.write_bytes(out.getvalue())
    return path


@pytest.mark.parametrize("recompute_all", [False, True])
def test_a_pack_whose_cell_files_were_swapped_is_not_adopted(finished, tmp_path, recompute_all):
    # M1: `robeval adopt --recompute-all` of such a pack: "adopted, 3 cells, 3 checked", each run's rows under
    # another run's seed
    store, one, two = finished
    pack = _swapped_pack(store, one, two, tmp_path / "swapped.tar.xz")
    dest = tmp_path / "st"
    with pytest.raises(
        RuntimeError,
        match=rf"^s: s/config-[0-9a-f]+/{re.escape(one.name)} records the cell {{\"x\": ?2}}, whose file is "
        rf"{re.escape(two.name)}: a cell file was renamed or swapped, so nothing of this sub-store is adopted",
    ):
        runs.adopt_pack(pack, {"s": dest}, progress=False, recompute_all=recompute_all)
    assert not list(dest.rglob("*.json")) if dest.exists() else True


@pytest.mark.parametrize(
    "cells",
    [
        [{"x": 1}, {"x": 1.0}],
        [{"x": 1}, {"x": True}],
        [{"x": [1, 2]}, {"x": (1.0, 2)}],
        [{"x": {"a": 0}}, {"x": {"a": False}}],
    ],
)
def test_cells_equal_by_value_are_duplicates(tmp_path, cells):
    # M13: [{'x': 1}, {'x': 1.0}] -> 2 rows {'x': [1.0, 1.0], 'y': [2.0, 2.0]}: one run counted twice
    with pytest.raises(ValueError, match=r"^The grid has duplicate cells: .* are equal by value \(1 == 1\.0 == True\)"):
        runs.run_grid(double, cells, store=tmp_path / "s", backend="serial", progress=False)
    assert not (tmp_path / "s").exists()


def test_the_key_of_a_cell_is_unchanged(tmp_path):
    # the value check names no file anew: a stored cell keeps its file
    assert runs.cell_key({"x": 1}) == "x=1__613fe5aa" and runs.cell_key({"x": 1.0}) != runs.cell_key({"x": 1})
    assert _grid(tmp_path / "s")["y"].tolist() == [2, 4]
    assert runs.run_grid(double, [{"x": 1.5}, {"x": 2}], store=tmp_path / "s", progress=False)["y"].tolist() == [3, 4]


def test_path_of_a_cell_not_in_the_grid_is_named(tmp_path):
    # M15: KeyError: 'x=99__b75b2d2f'
    with pytest.raises(ValueError, match=r"^cell \{'x': 99\} is not a cell of this grid; pass one of its cells"):
        runs.Grid(double, CELLS, store=tmp_path / "s").path({"x": 99})
    with pytest.raises(TypeError, match=r"the parameter name 1 is int, not text"):
        runs.cell_key({1: 2})


@pytest.mark.parametrize(
    "damage, said",
    [
        (lambda sub, cell: cell.write_text('{"rows": ['), r"{cell} is not a readable grid cell file \(Expecting value"),
        (lambda sub, cell: (cell.unlink(), cell.symlink_to("/etc/hostname")), r"{cell} is a link or a special file"),
        (lambda sub, cell: (sub / "config.json").write_text("not json"), r"{sub}/config\.json is not readable JSON"),
    ],
    ids=["cut short", "link out", "config not JSON"],
)
def test_pack_checks_every_file_before_reading_it_and_names_it(finished, tmp_path, damage, said):
    # M16: pack() of these: json's bare "Expecting value: line 1 column 1 (char 0)" (the link's target read first)
    store, one, _ = finished
    damage(one.parent, one)
    out = tmp_path / "p.tar.xz"
    with pytest.raises(ValueError, match="^" + said.format(cell=re.escape(str(one)), sub=re.escape(str(one.parent)))):
        runs.pack([store], out)
    assert not out.exists()


def test_pack_refuses_a_renamed_cell_file(finished, tmp_path):
    store, one, two = finished
    two.unlink()
    one.rename(two)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(two))} records the cell {{\"x\": ?1}}, whose file is"):
        runs.pack([store], tmp_path / "p.tar.xz")
