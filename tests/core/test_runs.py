import json

import pytest

from robeval.core import runs
from robeval.core.runs import identity, packs, store, trust


@pytest.fixture(autouse=True)
def _cells_of_this_file(trust_cells):
    """The grids of this file run its own functions (``square``, ``_cell``): trusted as robeval's cell functions."""
    from pathlib import Path

    trust_cells(**{__name__.split(".")[0]: Path(__file__).parents[__name__.count(".")]})


GRID_CELLS = ("square", "many_rows", "slow_cell", "slow_logged_cell")  # the cells of this file


@pytest.fixture
def cache_in_tmp(tmp_path, monkeypatch):
    """The data cache at ``tmp_path``: a toy grid's log file there is a ``<cache>/...`` path, as the files a
    store from elsewhere (a pack, ``--from``) may name are."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))
    return tmp_path


def square(cell, config):
    # appends to a call log so tests can count real computations
    with open(config["log"], "a") as fh:
        fh.write(json.dumps(cell) + "\n")
    if cell.get("fail"):
        raise RuntimeError("boom")
    return {"value": cell["x"] ** 2 * config.get("scale", 1), "seed": cell["seed"]}


def many_rows(cell, config):
    return [{"k": i, "v": cell["x"] + i} for i in range(3)]


def calls(log):
    return [json.loads(line) for line in open(log)] if log.exists() else []


def test_grid_runs_and_resumes(tmp_path):
    log = tmp_path / "log.txt"
    cells = {"x": [1, 2, 3], "seed": [0, 1]}
    df = runs.run_grid(square, cells, store=tmp_path / "g", config={"log": str(log)}, progress=False)
    assert len(df) == 6 and sorted(df.value.unique()) == [1, 4, 9]
    assert len(calls(log)) == 6
    df2 = runs.run_grid(square, cells, store=tmp_path / "g", config={"log": str(log)}, progress=False)
    assert len(calls(log)) == 6, "finished cells must never be recomputed"
    assert df2.sort_values(["x", "seed"]).value.tolist() == df.sort_values(["x", "seed"]).value.tolist()


def test_interrupted_grid_loses_only_the_failing_cell(tmp_path):
    log = tmp_path / "log.txt"
    cells = [{"x": 1, "seed": 0}, {"x": 2, "seed": 0, "fail": True}, {"x": 3, "seed": 0}]
    grid = runs.Grid(square, cells, store=tmp_path / "g", config={"log": str(log)})
    with pytest.raises(RuntimeError, match="boom"):
        grid.run(progress=False)
    assert len(grid.done()) == 1 and len(grid.pending()) == 2
    with pytest.raises(RuntimeError, match="2 of 3 cells have no result"):
        grid.collect()
    partial = grid.collect(allow_missing=True)
    assert partial.value.tolist() == [1]
    # "repair" the failing cell's input: a fresh grid over the same store computes only what is missing
    fixed = [{"x": 1, "seed": 0}, {"x": 3, "seed": 0}]
    runs.run_grid(square, fixed, store=tmp_path / "g", config={"log": str(log)}, progress=False)
    xs = [c["x"] for c in calls(log)]
    assert xs == [1, 2, 3], "the finished cell x=1 was recomputed"
    assert not list((tmp_path / "g").rglob("*.tmp")), "no half-written files may remain"


def test_config_change_uses_a_new_store(tmp_path):
    log = tmp_path / "log.txt"
    a = runs.run_grid(
        square, {"x": [2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log), "scale": 1}, progress=False
    )
    b = runs.run_grid(
        square, {"x": [2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log), "scale": 10}, progress=False
    )
    assert a.value.item() == 4 and b.value.item() == 40 and len(calls(log)) == 2


def test_list_results_and_joblib_backend(tmp_path):
    df = runs.run_grid(many_rows, {"x": [0, 10]}, store=tmp_path / "g", backend="joblib", n_jobs=2, progress=False)
    assert len(df) == 6 and sorted(df.v.tolist()) == [0, 1, 2, 10, 11, 12]


def test_bad_grids(tmp_path):
    with pytest.raises(ValueError, match="duplicate cells"):
        runs.Grid(square, [{"x": 1}, {"x": 1}], store=tmp_path)
    with pytest.raises(ValueError, match="empty"):
        runs.Grid(square, [{}], store=tmp_path)
    with pytest.raises(ValueError, match="Unknown backend"):
        runs.Grid(many_rows, [{"x": 1}], store=tmp_path).run(backend="mpi", progress=False)
    with pytest.raises(ValueError, match="Grid name"):
        runs.grid_store("smoke", "../escape")


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        df = runs.run_grid(
            many_rows, {"x": [1, 2]}, store=tmp_path / "g", scheduler=cluster.scheduler_address, progress=False
        )
    assert sorted(df.v.tolist()) == [1, 2, 2, 3, 3, 4]


def slow_cell(cell, config):
    import time as _t

    with open(config["log"], "a") as fh:
        fh.write(json.dumps(cell) + "\n")
    _t.sleep(0.3)
    return {"v": cell["x"]}


def test_sigkill_mid_grid_resumes_without_recomputing(tmp_path):
    """Kill a running grid process with SIGKILL, rerun: finished cells are kept, no partial file remains."""
    import signal
    import subprocess
    import sys
    import time

    log = tmp_path / "log.txt"
    store = tmp_path / "g"
    here = str(__import__("pathlib").Path(__file__).parent)
    script = (
        f"import sys; sys.path.insert(0, {here!r})\n"
        "from test_runs import slow_cell\n"
        "from robeval.core import runs\n"
        f"runs.run_grid(slow_cell, {{'x': list(range(12))}}, store={str(store)!r}, config={{'log': {str(log)!r}}}, "
        "progress=False)\n"
    )
    grid = runs.Grid(slow_cell, {"x": list(range(12))}, store=store, config={"log": str(log)})
    with open(tmp_path / "grid.out", "w") as out:
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 300  # a generous start: under a full CI load a new interpreter can wait for the cores
        while len(grid.done()) < 3 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finished = {c["x"] for c in grid.done()}
    assert 3 <= len(finished) < 12, (proc.returncode, (tmp_path / "grid.out").read_text()[-2000:])
    for path in store.rglob("*.json"):  # every visible result file is complete (temp files are hidden)
        json.loads(path.read_text())
    started_before = len(calls(log))
    df = grid.run(progress=False)
    recomputed = [c["x"] for c in calls(log)[started_before:]]
    assert sorted(df.v.tolist()) == list(range(12))
    assert not finished & set(recomputed), "a finished cell was recomputed after the kill"


def test_grid_identity_survives_moving_the_cache(tmp_path, monkeypatch):
    # configs that name cached files by absolute path (e.g. notebook 03's test sets) must keep their
    # finished cells when the cache (or the checkout) moves; a different file is still a different grid
    from robeval.core.runs import config_identity

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "a"))
    ida = config_identity({"data_path": str(tmp_path / "a" / "msd" / "data.npz"), "epochs": 3})
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "b"))
    idb = config_identity({"data_path": str(tmp_path / "b" / "msd" / "data.npz"), "epochs": 3})
    assert ida == idb
    assert config_identity({"data_path": str(tmp_path / "b" / "msd" / "other.npz"), "epochs": 3}) != idb
    assert config_identity({"data_path": str(tmp_path / "b" / "msd" / "data.npz"), "epochs": 4}) != idb
    # a path outside both anchors stays absolute
    assert config_identity({"data_path": "/elsewhere/data.npz"}) != config_identity({"data_path": "/other/data.npz"})


# ------------------------------------------------------------------------- identity = config + code
def test_identity_canonicalises_config_key_order(tmp_path):
    a = runs.Grid(many_rows, {"x": [1]}, store=tmp_path, config={"a": 1, "b": {"c": 2, "d": 3}})
    b = runs.Grid(many_rows, {"x": [1]}, store=tmp_path, config={"b": {"d": 3, "c": 2}, "a": 1})
    assert a.root == b.root


def test_identity_changes_with_the_cell_function_and_its_code(tmp_path, monkeypatch):
    import importlib
    import sys

    mod = tmp_path / "cellmod_for_identity.py"
    mod.write_text("def cell(c, cfg):\n    return {'v': c['x'] + 1}\n\ndef other(c, cfg):\n    return {'v': 0}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("cellmod_for_identity")
    g1 = runs.Grid(m.cell, {"x": [1]}, store=tmp_path / "g")
    assert runs.Grid(m.other, {"x": [1]}, store=tmp_path / "g").root != g1.root, "another function, another store"
    # a comment or docstring does not change the computation ...
    mod.write_text(
        '"""doc"""\n# note\ndef cell(c, cfg):\n    """Add one."""\n    return {\'v\': c[\'x\'] + 1}\n\n'
        "def other(c, cfg):\n    return {'v': 0}\n"
    )
    identity.clear_caches()
    assert runs.Grid(m.cell, {"x": [1]}, store=tmp_path / "g").root == g1.root
    # ... an edit of the code does
    mod.write_text("def cell(c, cfg):\n    return {'v': c['x'] + 2}\n\ndef other(c, cfg):\n    return {'v': 0}\n")
    identity.clear_caches()
    assert runs.Grid(m.cell, {"x": [1]}, store=tmp_path / "g").root != g1.root
    del sys.modules["cellmod_for_identity"]


def test_code_identity_follows_robeval_imports():
    """A cell function's identity covers the robeval code it reaches in other modules (here protocol's noise
    helpers), and only its own: two cell functions of one module have two identities."""
    from robeval.mscr import protocol

    deps = identity._robeval_imports(
        __import__("ast").parse(identity._module_source("robeval.mscr.protocol")), "robeval.mscr.protocol"
    )
    assert "robeval.mscr.noise" in deps
    assert "robeval.mscr.noise" in identity.code_reach(protocol.run_cell_2d)
    assert runs.code_identity(protocol.run_cell_2d) != runs.code_identity(protocol.k_effect_cells)


# ----------------------------------------------------------------------------------- concurrency
def slow_logged_cell(cell, config):
    import time as _time

    with open(config["log"], "a") as fh:
        fh.write(json.dumps(cell) + "\n")
    _time.sleep(0.3)
    return {"v": cell["x"] * 10}


def test_two_processes_on_one_grid_compute_each_cell_once(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "log.txt"
    here = str(__import__("pathlib").Path(__file__).parent)
    script = (
        f"import sys; sys.path.insert(0, {here!r})\n"
        "from test_runs import slow_logged_cell\n"
        "from robeval.core import runs\n"
        f"df = runs.run_grid(slow_logged_cell, {{'x': list(range(8))}}, store={str(tmp_path / 'g')!r}, "
        f"config={{'log': {str(log)!r}}}, progress=False)\n"
        "print(sorted(df.v.tolist()))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0] == outs[1] == str([10 * x for x in range(8)]), "both processes see every result"
    xs = [c["x"] for c in calls(log)]
    assert sorted(xs) == list(range(8)), f"cells computed more than once: {sorted(xs)}"
    assert not list((tmp_path / "g").rglob("*.lock")), "locks are released"


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    import socket

    log = tmp_path / "log.txt"
    grid = runs.Grid(square, {"x": [1, 2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log)})
    grid.root.mkdir(parents=True)
    dead = {"host": socket.gethostname(), "pid": 2**22 + 12345, "time": 0}
    store.lock_path(grid.path({"x": 1, "seed": 0})).write_text(json.dumps(dead))
    df = grid.run(progress=False, poll_s=0.01)
    assert sorted(df.value) == [1, 4] and len(calls(log)) == 2


def test_claims_a_killed_batch_left_on_finished_cells_are_removed(tmp_path):
    # a parallel batch keeps its claims until the batch ends, so SIGKILL leaves locks beside finished
    # results; a rerun removes those of dead owners and leaves a live owner's alone
    import os
    import socket

    log = tmp_path / "log.txt"
    cfg = {"log": str(log)}
    runs.run_grid(square, {"x": [1, 2], "seed": [0]}, store=tmp_path / "g", config=cfg, progress=False)
    grid = runs.Grid(square, {"x": [1, 2, 3], "seed": [0]}, store=tmp_path / "g", config=cfg)
    dead = store.lock_path(grid.path({"x": 1, "seed": 0}))
    live = store.lock_path(grid.path({"x": 2, "seed": 0}))
    dead.write_text(json.dumps({"host": socket.gethostname(), "pid": 2**22 + 12345, "time": 0}))
    live.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "time": 0}))
    df = grid.run(progress=False)
    assert sorted(df.value) == [1, 4, 9] and [c["x"] for c in calls(log)] == [1, 2, 3]
    assert not dead.exists() and live.exists()
    assert sorted(p.name for p in grid.root.glob("*.lock")) == [live.name]


def test_live_lock_makes_the_grid_wait_and_time_out_claims(tmp_path):
    import os

    log = tmp_path / "log.txt"
    grid = runs.Grid(square, {"x": [1], "seed": [0]}, store=tmp_path / "g", config={"log": str(log)}, lock_timeout=0.5)
    grid.root.mkdir(parents=True)
    import socket

    lock = store.lock_path(grid.path({"x": 1, "seed": 0}))
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "time": 0}))
    df = grid.run(progress=False, poll_s=0.1)  # our own pid is alive: the claim expires after 0.5 s
    assert df.value.tolist() == [1] and len(calls(log)) == 1


def test_leftover_tmp_files_are_cleaned_and_files_respect_the_umask(tmp_path):
    import os
    import stat
    import time as _time

    grid = runs.Grid(many_rows, {"x": [1]}, store=tmp_path / "g")
    grid.root.mkdir(parents=True)
    old = grid.root / ".x=1__abc.json.12345.tmp"
    old.write_text("{half")
    os.utime(old, (_time.time() - 3600, _time.time() - 3600))
    grid.run(progress=False)
    assert not old.exists()
    mode = stat.S_IMODE(grid.path({"x": 1}).stat().st_mode)
    mask = os.umask(0)
    os.umask(mask)
    assert mode == 0o666 & ~mask


def test_cells_that_are_not_a_grid_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="maps each parameter to a list"):
        runs.Grid(square, {"seed": 3}, store=tmp_path)
    with pytest.raises(ValueError, match="no cells"):
        runs.Grid(square, [], store=tmp_path)
    with pytest.raises(TypeError, match="must be a dict of parameters"):
        runs.Grid(square, [1, 2], store=tmp_path)
    with pytest.raises(TypeError, match="function"):
        runs.Grid("square", [{"x": 1}], store=tmp_path)


def test_dask_results_come_back_through_the_futures(tmp_path):
    """On a Dask cluster the client writes the result files (workers need no shared disk); results equal the
    serial run's."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        df = runs.run_grid(
            many_rows, {"x": [0, 10, 20]}, store=tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False
        )
    serial = runs.run_grid(many_rows, {"x": [0, 10, 20]}, store=tmp_path / "serial", progress=False)
    assert sorted(df.v.tolist()) == sorted(serial.v.tolist()) == [0, 1, 2, 10, 11, 12, 20, 21, 22]
    assert len(list((tmp_path / "dask").rglob("x=*.json"))) == 3


# ----------------------------------------------------------------------------------- adopting a store
def _edit(mod, body, m):
    import importlib

    mod.write_text(body)
    identity.clear_caches()
    return importlib.reload(m)


def _cell_module(name, body, tmp_path, monkeypatch, trust_cells):
    """A module ``name`` of grid cells written with ``body`` into ``tmp_path``, trusted as a cell root and
    imported: (the module, its file)."""
    import importlib

    trust_cells(**{name: tmp_path})
    mod = tmp_path / f"{name}.py"
    mod.write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name), mod


def test_adopt_keeps_cells_across_a_refactor_and_refuses_a_change_of_results(tmp_path, monkeypatch, trust_cells):
    import sys

    v1 = "import json\nGRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    open(cfg['log'], 'a').write('x')\n    return {'v': c['x'] * 1.5, 'k': c['k']}\n"
    m, mod = _cell_module("cellmod_for_adopt", v1, tmp_path, monkeypatch, trust_cells)
    log = tmp_path / "log.txt"
    cells = {"x": list(range(40)), "k": [1, 2, 3]}
    config = {"log": str(log)}
    store = tmp_path / "g"
    old = runs.run_grid(m.cell, cells, store=store, config=config, progress=False)
    assert log.read_text() == "x" * 120
    # a refactor: other code, the same results -> a new identity, whose store adopts the 120 cells
    m = _edit(mod, v1.replace("c['x'] * 1.5", "float(c['x']) * 1.5"), m)
    new_root = runs.Grid(m.cell, cells, store=store, config=config).root
    assert not new_root.is_dir()
    (before,) = runs.store_status(store)  # what a rerun would find: 120 cells of other code
    assert before["current"] is False and before["cells"] == 120 and before["adopted"] == 0
    log.write_text("")
    (report,) = runs.adopt(store, n_check=10, progress=False)
    assert report["status"] == "adopted" and report["cells"] == 120 and report["to"] == new_root.name
    # one cell per value of k (3) and of x (40 <= 50 values): the sample covers every level
    assert report["checked"] == 40 and len(log.read_text()) == 40
    log.write_text("")
    df = runs.run_grid(m.cell, cells, store=store, config=config, progress=False)
    assert log.read_text() == "", "adopted cells are not recomputed"
    key = ["x", "k"]
    assert df.sort_values(key).reset_index(drop=True).equals(old.sort_values(key).reset_index(drop=True))
    status = {r["sub"]: r for r in runs.store_status(store)}
    assert status[new_root.name]["current"] is True and status[new_root.name]["adopted"] == 120
    assert status[new_root.name]["compute_s"] == status[report["from"]]["compute_s"]  # the cells' own timings
    entry = json.loads((new_root / "adopted.json").read_text())[0]
    assert entry["identical"] and entry["cells"] == 120 and entry["from_code"] != entry["to_code"]
    # adopting again finds nothing to do: the cells are held already ('unchanged', was 'empty'); the current store
    # reports itself
    again = {r["status"]: r for r in runs.adopt(store, progress=False)}
    assert set(again) == {"current", "unchanged"} and again["unchanged"]["cells"] == 0
    assert again["unchanged"]["held"] == again["current"]["held"] == 120
    # a change of results: refused, nothing adopted
    m = _edit(mod, v1.replace("c['x'] * 1.5", "c['x'] * 1.5 + 1e-12"), m)
    changed = runs.Grid(m.cell, cells, store=store, config=config).root
    with pytest.raises(RuntimeError, match="differ under this checkout's code"):
        runs.adopt(store, progress=False)
    assert not changed.is_dir()
    del sys.modules["cellmod_for_adopt"]


def test_adopt_names_a_cache_file_the_config_names_that_is_missing_here(tmp_path, monkeypatch, trust_cells):
    """A store whose config names a cache file (a corrupted test set the notebook's preparation writes) and a
    machine without it (a fresh checkout): the recomputation's FileNotFoundError becomes a refusal naming the file and
    how to make it, not "a damaged or forged store"; once the file is there again the same adopt goes through."""
    import sys

    v1 = "GRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    return {'v': c['x'] * float(open(cfg['data']).read())}\n"
    m, mod = _cell_module("cellmod_for_missing_cache", v1, tmp_path, monkeypatch, trust_cells)
    data = tmp_path / "cache" / "testset.txt"
    data.parent.mkdir()
    data.write_text("2.5")
    cells, config, store = {"x": [0, 1, 2]}, {"data": str(data)}, tmp_path / "g"
    runs.run_grid(m.cell, cells, store=store, config=config, progress=False)
    m = _edit(mod, v1.replace("c['x'] *", "float(c['x']) *"), m)
    new_root = runs.Grid(m.cell, cells, store=store, config=config).root
    data.unlink()
    with pytest.raises(RuntimeError, match=r"needs .*testset\.txt, which is not on this machine.*Make them here") as e:
        runs.adopt(store, n_check=1, progress=False)
    assert "damaged or forged" not in str(e.value)
    assert not new_root.is_dir()
    data.write_text("2.5")
    (report,) = runs.adopt(store, n_check=1, progress=False)
    assert report["status"] == "adopted" and report["cells"] == 3
    del sys.modules["cellmod_for_missing_cache"]


def test_rebind_pack_carries_an_adopted_check_into_the_pack_and_nothing_else(
    tmp_path, monkeypatch, trust_cells, cache_in_tmp
):
    """Issue 62: a committed pack of cells computed under older code is written again under this code's identity
    only where ``adopt`` recomputed a sample identically; its cell files keep their bytes (rows, seconds), the
    rebound pack is then taken on its checksums alone (nothing recomputed), and a pack no check covers, or an
    edited one, is refused with nothing written."""
    import sys
    import tarfile

    v1 = "GRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    open(cfg['log'], 'a').write('x')\n    return {'v': c['x'] * 1.5}\n"
    m, mod = _cell_module("cellmod_for_rebind", v1, tmp_path, monkeypatch, trust_cells)
    log = tmp_path / "log.txt"
    cells, config, store = {"x": list(range(60))}, {"log": str(log)}, tmp_path / "s" / "toy"  # > 50: sampled
    runs.run_grid(m.cell, cells, store=store, config=config, progress=False)
    old_sub = runs.Grid(m.cell, cells, store=store, config=config).root.name
    packed = tmp_path / "P.tar.xz"
    runs.pack([store], packed)
    before = packed.read_bytes()
    # an input check that leaves every result unchanged: another identity
    m = _edit(
        mod, v1.replace("    open(", "    if c['x'] < 0:\n        raise ValueError('x must be >= 0')\n    open(", 1), m
    )
    new_sub = runs.Grid(m.cell, cells, store=store, config=config).root.name
    assert new_sub != old_sub
    with pytest.raises(
        ValueError, match=r"toy/config-[0-9a-f]+ was computed under other code and no check to code .*adopt"
    ):
        runs.rebind_pack(packed, {"toy": store})
    assert packed.read_bytes() == before  # nothing written
    log.write_text("")
    (report,) = runs.adopt(store, n_check=3, progress=False)
    assert report["status"] == "adopted" and report["checked"] == len(log.read_text()) == 3
    moves = runs.rebind_pack(packed, {"toy": store}, tmp_path / "R.tar.xz")
    assert moves == {"toy": {old_sub: new_sub}}
    with tarfile.open(tmp_path / "R.tar.xz") as tf:
        names = {m.name for m in tf.getmembers()}
        rebound = {n.rsplit("/", 1)[1]: tf.extractfile(n).read() for n in names if n != "MANIFEST.json"}
    assert all(n.startswith(f"toy/{new_sub}/") for n in names - {"MANIFEST.json"})
    assert "adopted.json" in rebound
    for p in (store / old_sub).glob("x=*.json"):  # every cell byte for byte
        assert rebound[p.name] == p.read_bytes()
    # taken on its checksums alone in a fresh store: nothing recomputed
    log.write_text("")
    got = runs.adopt_pack(tmp_path / "R.tar.xz", {"toy": tmp_path / "fresh" / "toy"}, progress=False)
    assert [(r["status"], r["checked"], r["cells"]) for r in got["toy"]] == [("adopted", 0, 60)]
    assert log.read_text() == ""
    held = (tmp_path / "R.tar.xz").read_bytes()
    assert runs.rebind_pack(tmp_path / "R.tar.xz", {"toy": store}) == {"toy": {new_sub: new_sub}}  # holds: kept
    assert (tmp_path / "R.tar.xz").read_bytes() == held  # not written again (its manifest's date stays)
    # an edited pack is refused
    forged = tmp_path / "F.tar.xz"
    with tarfile.open(packed) as src, tarfile.open(forged, "w:xz") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if "/x=0__" in member.name:
                data += b" "  # still valid JSON, other bytes
            member.size = len(data)
            dst.addfile(member, __import__("io").BytesIO(data))
    with pytest.raises(ValueError, match="fails the pack's checksum"):
        runs.rebind_pack(forged, {"toy": store})
    with pytest.raises(ValueError, match="no adopted store folder is given for toy"):
        runs.rebind_pack(packed, {})
    # a second harmless edit: the store is adopted again (one check, from whichever older sub-store comes first;
    # the other is then 'unchanged'), and both the original pack and the rebound one follow it to the third code
    m = _edit(
        mod, (tmp_path / "cellmod_for_rebind.py").read_text().replace("'x must be >= 0'", "'x must be 0 or more'"), m
    )
    third = runs.Grid(m.cell, cells, store=store, config=config).root.name
    reports = runs.adopt(store, n_check=3, progress=False)
    assert sorted(r["status"] for r in reports if r["to"] == third and r["from"] != third) == ["adopted", "unchanged"]
    assert runs.rebind_pack(packed, {"toy": store}, tmp_path / "P3.tar.xz") == {"toy": {old_sub: third}}
    assert runs.rebind_pack(tmp_path / "R.tar.xz", {"toy": store}) == {"toy": {new_sub: third}}
    del sys.modules["cellmod_for_rebind"]


def test_adopt_on_this_machine_checks_only_cells_of_this_machine_kind_and_carries_the_others(
    tmp_path, monkeypatch, trust_cells
):
    """Cells that train a network are recomputed bit for bit only on the machine kind that computed them. A store
    whose cells come from two kinds: a plain adopt here fails on the other kind's cells; ``on_this_machine``
    recomputes only this kind's (every field value they have), carries the others on their checksums and says so;
    a store with none of this kind, or a change of results, is refused."""
    import sys

    from robeval.core.env import cpu_kind

    v1 = "GRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    open(cfg['log'], 'a').write('x')\n    return {'v': c['x'] * 1.5}\n"
    m, mod = _cell_module("cellmod_for_machine", v1, tmp_path, monkeypatch, trust_cells)
    log = tmp_path / "log.txt"
    cells, config, store = {"x": list(range(8)), "seed": [1, 2]}, {"log": str(log)}, tmp_path / "g"
    runs.run_grid(m.cell, cells, store=store, config=config, progress=False)
    old = runs.Grid(m.cell, cells, store=store, config=config).root
    other = {"cpu": "Other CPU", "isa": "avx2", "pins": {"ATEN_CPU_CAPABILITY": None, "ONEDNN_MAX_CPU_ISA": None}}
    for p in sorted(old.glob("seed=*.json")):  # seed 2's cells: computed on another machine kind, other bits
        payload = json.loads(p.read_text())
        if payload["cell"]["seed"] == 2:
            payload["rows"][0]["v"] += 1e-9
            payload["machine"] = other
            payload["rows_sha256"] = runs.rows_digest(payload["rows"])
            p.write_text(json.dumps(payload))
    assert runs.machine_kind(cpu_kind()) == {
        "cpu": cpu_kind()["cpu"],
        "isa": cpu_kind()["isa"],
        "pins": cpu_kind()["pins"],
    }
    assert runs.machine_kind(other) == other and runs.machine_kind({"isa": "avx2"}) is None
    m = _edit(mod, v1.replace("c['x'] * 1.5", "float(c['x']) * 1.5"), m)  # a refactor: the same results
    new = runs.Grid(m.cell, cells, store=store, config=config).root
    with pytest.raises(RuntimeError, match="differ under this checkout's code"):
        runs.adopt(store, n_check=1, progress=False)  # its sample includes the other machine's cells
    assert not new.is_dir()
    with pytest.raises(ValueError, match="pass one of them"):
        runs.adopt(store, on_this_machine=True, recompute_all=True, progress=False)
    with pytest.raises(TypeError, match="on_this_machine"):
        runs.adopt(store, on_this_machine="yes", progress=False)
    log.write_text("")
    (report,) = runs.adopt(store, n_check=1, on_this_machine=True, progress=False)
    # one cell per x value (8) among this machine's 8 cells: every one of them, none of the other machine's
    assert report["status"] == "adopted" and report["cells"] == 16 and report["checked"] == 8 == len(log.read_text())
    (entry,) = json.loads((new / "adopted.json").read_text())
    assert entry["checked_on"] == runs.machine_kind(cpu_kind()) and entry["carried"] == 8
    assert all("seed=1" in name for name in entry["checked"])
    assert {p.name: p.read_bytes() for p in new.glob("seed=*.json")} == {
        p.name: p.read_bytes() for p in old.glob("seed=*.json")
    }
    # a change of results is refused on this machine's cells too
    m = _edit(mod, v1.replace("c['x'] * 1.5", "c['x'] * 1.5 + 1e-12"), m)
    with pytest.raises(RuntimeError, match="differ under this checkout's code"):
        runs.adopt(store, n_check=1, on_this_machine=True, progress=False)
    # a store with no cell of this machine kind: refused, naming the kinds it has
    lone = tmp_path / "lone"
    (lone / old.name).mkdir(parents=True)
    for p in old.glob("*.json"):
        payload = json.loads(p.read_text())
        if p.name != "config.json":
            payload["machine"] = other
        (lone / old.name / p.name).write_text(json.dumps(payload))
    with pytest.raises(RuntimeError, match="none of its 16 cells was computed on this kind of machine.*Other CPU"):
        runs.adopt(lone, on_this_machine=True, progress=False)
    del sys.modules["cellmod_for_machine"]


def test_adopt_against_the_code_that_computed_a_store_no_machine_of_this_kind_computed(
    tmp_path, monkeypatch, trust_cells
):
    """A store every cell of which another kind of machine computed (other bits): on_this_machine alone refuses
    it. Against a checkout of the code that computed it, the sample is recomputed here with both codes (in a child
    process for the other), and the cells are carried on their checksums when the two agree bit for bit. Refused:
    against without on_this_machine, a folder without robeval, this checkout itself, a checkout whose code gives
    the store another identity, and a change of results between the two codes."""
    import shutil
    import sys
    from pathlib import Path

    import robeval
    from robeval.core.env import cpu_kind

    v1 = "GRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    open(cfg['log'], 'a').write('x')\n    return {'v': c['x'] * 1.5}\n"
    m, mod = _cell_module("cellmod_for_against", v1, tmp_path, monkeypatch, trust_cells)
    log = tmp_path / "log.txt"
    # a path in this checkout (stored as <root>/...): the child names it as this process does
    cells, config = (
        {"x": list(range(6))},
        {"log": str(log), "readme": str(Path(robeval.__file__).parents[2] / "README.md")},
    )
    runs.run_grid(m.cell, cells, store=tmp_path / "made", config=config, progress=False)
    assert (
        "<root>/README.md"
        in (runs.Grid(m.cell, cells, store=tmp_path / "made", config=config).root / "config.json").read_text()
    )
    old = runs.Grid(m.cell, cells, store=tmp_path / "made", config=config).root
    other = {"cpu": "Other CPU", "isa": "avx2", "pins": {"ATEN_CPU_CAPABILITY": None, "ONEDNN_MAX_CPU_ISA": None}}
    for p in sorted(old.glob("x=*.json")):  # every cell from another machine kind, with other bits
        payload = json.loads(p.read_text())
        payload["rows"][0]["v"] += 1e-9
        payload["machine"] = other
        payload["rows_sha256"] = runs.rows_digest(payload["rows"])
        p.write_text(json.dumps(payload))
    log.write_text("")
    before = tmp_path / "before"  # a checkout of the code that computed the store: robeval and the module's v1
    (before / "lib").mkdir(parents=True)
    (before / "lib" / "robeval").symlink_to(Path(robeval.__file__).parent)
    (before / "lib" / "cellmod_for_against.py").write_text(v1)

    def fresh(name):  # a copy of the store as the other machine wrote it
        shutil.copytree(old, tmp_path / name / old.name)
        return tmp_path / name

    m = _edit(mod, v1.replace("c['x'] * 1.5", "float(c['x']) * 1.5"), m)  # a refactor: the same results
    store = fresh("g")
    new = runs.Grid(m.cell, cells, store=store, config=config).root
    with pytest.raises(RuntimeError, match="none of its 6 cells was computed on this kind of machine.*--against"):
        runs.adopt(store, on_this_machine=True, progress=False)
    with pytest.raises(ValueError, match="pass it with on_this_machine"):
        runs.adopt(store, against=before, progress=False)
    with pytest.raises(ValueError, match="is not a robeval checkout"):
        runs.adopt(store, on_this_machine=True, against=tmp_path / "made", progress=False)
    with pytest.raises(ValueError, match="this checkout's own code"):
        runs.adopt(store, on_this_machine=True, against=Path(robeval.__file__).parents[1], progress=False)
    with pytest.raises(TypeError, match="against must be a folder"):
        runs.adopt(store, on_this_machine=True, against=3, progress=False)
    assert not new.is_dir() and log.read_text() == ""  # nothing adopted, nothing computed
    (report,) = runs.adopt(store, n_check=2, on_this_machine=True, against=before, n_jobs=2, progress=False)
    # one cell per x value, recomputed by each code here (in worker processes, which import the same code): twice
    assert (report["status"], report["cells"], report["checked"]) == ("adopted", 6, 6) and log.read_text() == "x" * 12
    (entry,) = json.loads((new / "adopted.json").read_text())
    assert entry["checked_on"] == runs.machine_kind(cpu_kind()) and entry["carried"] == 6
    assert entry["against"] == str((before / "lib").resolve()) and entry["to_code"] == identity.code_identity(m.cell)
    # the stored numbers (another machine's, 1e-9 apart here) are shown beside the check, not judged
    assert entry["stored_differ_by"] == report["stored_differ_by"] == pytest.approx(1e-9, rel=1e-3)
    assert {p.name: p.read_bytes() for p in new.glob("x=*.json")} == {  # carried byte for byte
        p.name: p.read_bytes() for p in old.glob("x=*.json")
    }
    # from a folder holding a json.py, the checkout named relative to it with '..': the child imports nothing from
    # the working folder and finds the checkout
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "json.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').write('ran')\n")
    monkeypatch.chdir(cwd)
    (again,) = runs.adopt(fresh("g0"), n_check=2, on_this_machine=True, against="../before", progress=False)
    assert again["status"] == "adopted" and not (tmp_path / "ran").exists()
    # a stored row that differs in more than its numbers (a key): no machine kind explains it
    store = fresh("g1")
    for p in sorted((store / old.name).glob("x=*.json")):
        payload = json.loads(p.read_text())
        payload["rows"][0]["w"] = payload["rows"][0].pop("v")
        payload["rows_sha256"] = runs.rows_digest(payload["rows"])
        p.write_text(json.dumps(payload))
    with pytest.raises(RuntimeError, match="differ from the rows both codes compute here in more than their numbers"):
        runs.adopt(store, on_this_machine=True, against=before, progress=False)
    # a path the child's PYTHONPATH would split is refused before anything runs
    colon = tmp_path / "a:b"
    (colon / "lib").mkdir(parents=True)
    (colon / "lib" / "robeval").symlink_to(Path(robeval.__file__).parent)
    with pytest.raises(ValueError, match="which would split it on the child's PYTHONPATH"):
        runs.adopt(store, on_this_machine=True, against=colon, progress=False)
    # a checkout of other code than the store's: another identity, nothing compared
    (before / "lib" / "cellmod_for_against.py").write_text(v1.replace("write('x')", "write('y')"))
    store = fresh("g2")
    with pytest.raises(ValueError, match=r"gives this store the identity config-[0-9a-f]+, not " + old.name):
        runs.adopt(store, on_this_machine=True, against=before, progress=False)
    # the code that computed the store, and a change of results in this checkout's: refused, nothing adopted
    (before / "lib" / "cellmod_for_against.py").write_text(v1)
    m = _edit(mod, v1.replace("c['x'] * 1.5", "c['x'] * 1.5 + 1e-12"), m)
    store = fresh("g3")
    with pytest.raises(RuntimeError, match="6 of 6 cells of .* differ between this checkout's code and the code of"):
        runs.adopt(store, on_this_machine=True, against=before, progress=False)  # in this process: its module reloaded
    assert sorted(p.name for p in store.iterdir()) == [old.name]
    del sys.modules["cellmod_for_against"]


def test_adopt_from_another_checkouts_store_and_bad_input(tmp_path, cache_in_tmp):
    log = tmp_path / "log.txt"
    cells = {"x": [1, 2, 3], "seed": [0, 1]}
    config = {"log": str(log)}
    runs.run_grid(square, cells, store=tmp_path / "elsewhere", config=config, progress=False)
    (r,) = runs.adopt(tmp_path / "here", source=tmp_path / "elsewhere", n_check=2, progress=False)
    assert r["status"] == "adopted" and r["cells"] == 6
    n_calls = len(calls(log))
    runs.run_grid(square, cells, store=tmp_path / "here", config=config, progress=False)
    assert len(calls(log)) == n_calls
    with pytest.raises(ValueError, match="no grid sub-store"):
        runs.adopt(tmp_path / "nothing")
    with pytest.raises(ValueError, match="n_check"):
        runs.adopt(tmp_path / "here", n_check=0)


def test_adopt_again_says_the_cells_are_held_already_and_a_bare_sub_store_is_empty(tmp_path, cache_in_tmp):
    # was: 'empty' (0 cells) for a source whose every cell the store held already
    cells = {"x": [1, 2, 3], "seed": [0, 1]}
    config = {"log": str(tmp_path / "log.txt")}
    runs.run_grid(square, cells, store=tmp_path / "elsewhere", config=config, progress=False)
    (first,) = runs.adopt(tmp_path / "here", source=tmp_path / "elsewhere", n_check=2, progress=False)
    assert (first["status"], first["cells"], first["held"]) == ("adopted", 6, 0)
    (again,) = runs.adopt(tmp_path / "here", source=tmp_path / "elsewhere", n_check=2, progress=False)
    assert (again["status"], again["cells"], again["held"], again["checked"]) == ("unchanged", 0, 6, 0)
    (sub,) = (tmp_path / "elsewhere").glob("config-*")
    bare = tmp_path / "bare" / "config-0"
    bare.mkdir(parents=True)
    (bare / "config.json").write_bytes((sub / "config.json").read_bytes())
    (r,) = runs.adopt(tmp_path / "here", source=tmp_path / "bare", progress=False)
    assert (r["status"], r["cells"], r["held"]) == ("empty", 0, 0)


def test_a_pack_carries_finished_cells_and_is_adopted_only_after_a_check(tmp_path, cache_in_tmp):
    """A pack holds the finished cells (no claims, no temporary files) with a manifest; adopting from it
    recomputes a sample and then serves every cell without recomputing; a pack whose cell was altered is refused."""
    import tarfile

    log = tmp_path / "log.txt"
    cells = {"x": [1, 2, 3, 4], "seed": [0, 1]}
    config = {"log": str(log)}
    store = tmp_path / "a" / "toy"
    runs.run_grid(square, cells, store=store, config=config, progress=False)
    sub = next(store.glob("config-*"))
    (sub / "x=9__seed=0__deadbeef.lock").write_text("{}")  # a claim: left out of the pack
    manifest = runs.pack([store], tmp_path / "toy.tar.xz")
    assert manifest["format"] == runs.PACK_FORMAT
    assert manifest["stores"]["toy"][sub.name]["cells"] == 8 and manifest["stores"]["toy"][sub.name]["fn"].endswith(
        "test_runs.square"
    )
    with tarfile.open(tmp_path / "toy.tar.xz") as tf:
        names = tf.getnames()
    assert names[0] == "MANIFEST.json" and len(names) == 1 + 1 + 8 and not any(n.endswith(".lock") for n in names)
    # the pack travels; elsewhere it is unpacked and adopted after recomputing a sample
    got = runs.unpack(tmp_path / "toy.tar.xz", tmp_path / "unpacked")
    assert got == manifest
    log.write_text("")
    (r,) = runs.adopt(tmp_path / "b" / "toy", source=tmp_path / "unpacked" / "toy", n_check=3, progress=False)
    assert r["status"] == "adopted" and r["cells"] == 8 and 3 <= r["checked"] == len(calls(log)) < 8
    log.write_text("")
    df = runs.run_grid(square, cells, store=tmp_path / "b" / "toy", config=config, progress=False)
    assert calls(log) == [] and sorted(df.value) == sorted(x * x for x in cells["x"] for _ in cells["seed"])
    # an altered number in the pack: its checksum fails (issue 36), nothing is adopted
    cell_file = next(p for p in (tmp_path / "unpacked" / "toy" / sub.name).glob("seed=*.json"))
    payload = json.loads(cell_file.read_text())
    payload["rows"][0]["value"] += 1
    cell_file.write_text(json.dumps(payload))
    with pytest.raises(RuntimeError, match="do not match the checksum written with them"):
        runs.adopt(tmp_path / "c" / "toy", source=tmp_path / "unpacked" / "toy", n_check=8, progress=False)
    # a cell without a checksum (written before them): the recomputed sample differs, nothing is adopted
    del payload["rows_sha256"]
    cell_file.write_text(json.dumps(payload))
    with pytest.raises(RuntimeError, match="differ under this checkout's code"):
        runs.adopt(tmp_path / "c" / "toy", source=tmp_path / "unpacked" / "toy", n_check=8, progress=False)
    assert not (tmp_path / "c").exists()


def test_adopt_refuses_a_store_from_elsewhere_naming_paths_outside_the_checkout(tmp_path, monkeypatch):
    """Issue 62: a store from elsewhere whose config names a file outside the data cache and the results folder of
    the store it is adopted into (an absolute path elsewhere, a relative one, another profile's results of the
    checkout, a ``..`` part, a symbolic link out) or whose cell names a path is refused before a cell is
    recomputed, so adopting it cannot read or write there; a config its cell function cannot take is refused in
    one line; the same store left as robeval wrote it is adopted."""
    from robeval.core.paths import find_root

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "out").symlink_to(tmp_path)
    here = tmp_path / "results" / "long" / "grids" / "toy"
    cells = {"x": [1, 2], "seed": [0]}
    runs.run_grid(
        square, cells, store=tmp_path / "elsewhere", config={"log": str(tmp_path / "cache" / "log.txt")}, progress=False
    )
    cfg_file = next((tmp_path / "elsewhere").glob("config-*/config.json"))
    written = cfg_file.read_text()
    assert json.loads(written)["config"]["log"] == "<cache>/log.txt"
    for forged, why in (
        (str(victim), "a path outside this checkout's data cache and the results folder"),
        ("<cache>/../victim.txt", "climbs out of its folder"),
        ("victim.txt", "a relative path"),
        ("<cache>/out/victim.txt", "a path outside"),
        (f"{find_root()}/results/paper/x.tsv", "a path outside"),
    ):
        cfg_file.write_text(written.replace('"log": "<cache>/log.txt"', f'"log_file": "{forged}"'))
        with pytest.raises(RuntimeError, match=f"comes from elsewhere and its config names .*{why}"):
            runs.adopt(here, source=tmp_path / "elsewhere", n_check=2, progress=False)
        assert victim.read_text() == "mine" and not here.exists()
    cfg_file.write_text(written.replace('"log"', '"nolog"'))
    with pytest.raises(RuntimeError, match=r"recomputing .* failed \(KeyError: 'log'\)"):
        runs.adopt(here, source=tmp_path / "elsewhere", n_check=2, progress=False)
    cfg_file.write_text(written)
    cell_file = next(p for p in cfg_file.parent.glob("*.json") if "x=1_" in p.name)
    payload = json.loads(cell_file.read_text())
    payload["cell"]["note"] = "../../victim.txt"
    cell_file.unlink()  # the forged cell under its own name (a file under another cell's name is refused: probe M1)
    cell_file = cell_file.with_name(runs.cell_key(payload["cell"]) + ".json")
    cell_file.write_text(json.dumps(payload))
    with pytest.raises(RuntimeError, match="a cell names '../../victim.txt' \\(note\\), a path"):
        runs.adopt(here, source=tmp_path / "elsewhere", n_check=2, progress=False)
    cell_file.unlink()
    (r,) = runs.adopt(here, source=tmp_path / "elsewhere", n_check=2, progress=False)
    assert r["status"] == "adopted" and r["cells"] == 1 and victim.read_text() == "mine"


def test_a_store_from_elsewhere_holding_a_link_a_fifo_or_a_huge_file_is_refused_unread(tmp_path, monkeypatch, capsys):
    """Issue 62's third probe: a cell file of a store folder given with --from that links to /dev/zero was read
    without end (a MemoryError traceback), and a FIFO named like a cell blocked `grids --from` and `adopt --from`
    for ever; each is now refused in one line before it is opened, for the listing and for adopt."""
    import os

    from robeval.__main__ import main
    from robeval.core.runs import store as store_mod

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "elsewhere" / "toy"
    runs.run_grid(
        square, {"x": [1, 2], "seed": [0]}, store=src, config={"log": str(tmp_path / "cache" / "l")}, progress=False
    )
    sub = next(src.glob("config-*"))
    cases = [
        ("zz.json", lambda p: p.symlink_to("/dev/zero"), "is a link or a special file"),
        ("zz.json", lambda p: os.mkfifo(p), "is a link or a special file"),
        ("adopted.json", lambda p: os.mkfifo(p), "is a link or a special file"),
        ("zz.json", lambda p: p.write_text("[" + " " * 2000 + "]"), "has 2,002 bytes"),
    ]
    monkeypatch.setattr(store_mod, "STORE_FILE_MAX", 1000)
    for name, make, why in cases:
        make(sub / name)
        with pytest.raises(ValueError, match=f"{name} {why}.*nothing of it is read"):
            runs.adopt(tmp_path / "mine" / "toy", source=src, n_check=1, progress=False)
        with pytest.raises(ValueError, match=f"{name} {why}"):
            runs.store_status(src)
        assert main(["grids", "--profile", "smoke", "--from", str(src.parent), "toy"]) == 2
        err = capsys.readouterr().err
        assert why in err and len(err.strip().splitlines()) == 1, err
        (sub / name).unlink()
    assert not (tmp_path / "mine").exists()
    (r,) = runs.adopt(tmp_path / "mine" / "toy", source=src, n_check=1, progress=False)
    assert r["status"] == "adopted" and r["cells"] == 2


def test_pack_and_unpack_refuse_bad_input(tmp_path):
    import io
    import tarfile

    with pytest.raises(ValueError, match="must end in .tar.xz"):
        runs.pack([tmp_path], tmp_path / "p.zip")
    with pytest.raises(ValueError, match="holds no grid sub-store"):
        runs.pack([tmp_path / "empty"], tmp_path / "p.tar.xz")
    with pytest.raises(ValueError, match="no such pack"):
        runs.unpack(tmp_path / "missing.tar.xz", tmp_path / "out")
    (tmp_path / "junk.tar.xz").write_bytes(b"not xz")
    with pytest.raises(ValueError, match="is not a grid pack"):
        runs.unpack(tmp_path / "junk.tar.xz", tmp_path / "out")
    evil = tmp_path / "evil.tar.xz"
    with tarfile.open(evil, "w:xz") as tf:
        for name in ("MANIFEST.json", "../outside.json"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tf.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(ValueError, match=r"holds '\.\./outside\.json'.*refusing to extract anything"):
        runs.unpack(evil, tmp_path / "out")
    assert not (tmp_path / "outside.json").exists() and not (tmp_path / "out").exists()


def test_store_status_counts_cells_claims_and_measured_time(tmp_path):
    import os
    import socket

    log = tmp_path / "log.txt"
    cfg = {"log": str(log)}
    assert runs.store_status(tmp_path / "none") == []
    runs.run_grid(square, {"x": [1, 2, 3], "seed": [0]}, store=tmp_path / "g", config=cfg, progress=False)
    grid = runs.Grid(square, {"x": [1, 2, 3, 4, 5], "seed": [0]}, store=tmp_path / "g", config=cfg)
    host = socket.gethostname()
    store.lock_path(grid.path({"x": 4, "seed": 0})).write_text(json.dumps({"host": host, "pid": os.getpid()}))
    store.lock_path(grid.path({"x": 5, "seed": 0})).write_text(json.dumps({"host": host, "pid": 2**22 + 12345}))
    # a killed batch leaves its claims on cells it finished too: not abandoned work, whether stale or live
    store.lock_path(grid.path({"x": 1, "seed": 0})).write_text(json.dumps({"host": host, "pid": 2**22 + 12345}))
    store.lock_path(grid.path({"x": 2, "seed": 0})).write_text(json.dumps({"host": host, "pid": os.getpid()}))
    (r,) = runs.store_status(tmp_path / "g")
    seconds = sum(json.loads(grid.path({"x": x, "seed": 0}).read_text())["seconds"] for x in (1, 2, 3))
    assert r["sub"] == grid.root.name and r["fn"].endswith("test_runs.square") and r["current"] is True
    assert (r["cells"], r["running"], r["abandoned"], r["adopted"]) == (3, 1, 1, 0)
    assert r["compute_s"] == pytest.approx(seconds, abs=0.05) and r["first"] <= r["last"]


# ------------------------------------------------------------------------------------------ issue 36: claims
def test_a_claim_records_its_holder_and_a_provably_gone_holder_is_broken_at_once(tmp_path):
    import os
    import socket
    import time as _time

    log = tmp_path / "log.txt"
    grid = runs.Grid(square, {"x": [1], "seed": [0]}, store=tmp_path / "g", config={"log": str(log)})
    grid.root.mkdir(parents=True)
    path = grid.path({"x": 1, "seed": 0})
    assert store.claim(path, 60.0)
    mine = json.loads(store.lock_path(path).read_text())
    assert mine["host"] == socket.gethostname() and mine["pid"] == os.getpid() and mine["start"] is not None
    assert runs.claim_state(store.lock_path(path))["state"] == "live"
    # the same pid, but another process (the pid was reused after the holder died): gone
    store.lock_path(path).write_text(json.dumps({**mine, "start": "1", "time": _time.time()}))
    assert runs.claim_state(store.lock_path(path))["state"] == "dead"
    t0 = _time.monotonic()
    assert grid.run(progress=False, poll_s=5).value.tolist() == [1]  # taken over at once, no 6 h wait
    assert _time.monotonic() - t0 < 4


def test_a_run_waiting_on_another_hosts_claim_says_so_with_the_command_that_clears_it(tmp_path, capsys):
    import time as _time

    log = tmp_path / "log.txt"
    grid = runs.Grid(
        square, {"x": [1, 2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log)}, lock_timeout=1.0
    )
    grid.root.mkdir(parents=True)
    lock = store.lock_path(grid.path({"x": 1, "seed": 0}))
    # a run that died in a killed container on another host, with a fresh timestamp
    lock.write_text(json.dumps({"host": "container-7f3a", "pid": 12, "start": "99", "time": _time.time()}))
    state = runs.claim_state(lock, 3600)
    assert state["state"] == "foreign" and state["host"] == "container-7f3a" and state["age"] < 5
    df = grid.run(progress=False, poll_s=0.1)  # computes x=2, waits for x=1, takes it over once expired
    assert sorted(df.value) == [1, 4]
    err = capsys.readouterr().err
    assert "waiting for 1 cell(s) claimed by another process" in err
    assert "by host 'container-7f3a' (pid 12, claimed 0 s ago)" in err and "taken over when 1 s old" in err
    assert f"clear its claims: rm '{lock}'" in err


def test_store_status_tells_live_dead_and_foreign_claims_apart(tmp_path):
    import os
    import socket

    cfg = {"log": str(tmp_path / "log.txt")}
    grid = runs.Grid(square, {"x": [1, 2, 3, 4], "seed": [0]}, store=tmp_path / "g", config=cfg)
    grid.root.mkdir(parents=True)
    store.write_store_config(grid.root, square, cfg)
    host = socket.gethostname()
    claims = {
        1: {"host": host, "pid": os.getpid()},  # live
        2: {"host": host, "pid": 2**22 + 12345},  # dead
        3: {"host": "other-host", "pid": 1},  # foreign
        4: {"host": "other-host", "pid": 2},  # foreign
    }
    for x, owner in claims.items():
        store.lock_path(grid.path({"x": x, "seed": 0})).write_text(json.dumps(owner))
    (r,) = runs.store_status(tmp_path / "g")
    assert (r["running"], r["abandoned"], r["foreign"]) == (1, 1, 2)
    assert {c["host"] for c in r["foreign_claims"]} == {"other-host"}


# ------------------------------------------------------------------------------------------ issue 36: packs
def _repack(src, out, edit=None, manifest_edit=None, extra=()):
    """Copy of the pack ``src`` at ``out`` with members changed by ``edit(name, bytes) -> bytes``."""
    import io
    import tarfile

    with tarfile.open(src, "r:xz") as tf:
        members = [(m.name, tf.extractfile(m).read()) for m in tf.getmembers()]
    with tarfile.open(out, "w:xz") as tf:
        for name, data in [*members, *extra]:
            if name == "MANIFEST.json" and manifest_edit is not None:
                data = json.dumps(manifest_edit(json.loads(data))).encode()
            elif edit is not None:
                data = edit(name, data)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return out


def _toy_pack(tmp_path, cells=None):
    cells = cells or {"x": [1, 2, 3], "seed": [0, 1, 2, 3, 4, 5]}
    config = {"log": str(tmp_path / "log.txt")}
    store = tmp_path / "a" / "toy"
    runs.run_grid(square, cells, store=store, config=config, progress=False)
    runs.pack([store], tmp_path / "toy.tar.xz")
    return tmp_path / "toy.tar.xz", next(store.glob("config-*")).name


def test_adopt_refuses_a_pack_with_one_edited_cell_whatever_the_sample(tmp_path, cache_in_tmp):
    pack, sub = _toy_pack(tmp_path)  # 18 cells
    manifest = runs.unpack(pack, tmp_path / "peek")
    sums = manifest["stores"]["toy"][sub]["sha256"]
    assert len(sums) == 19 and all(len(v) == 64 for v in sums.values())  # every cell and config.json
    victim = sorted(n for n in sums if n.startswith("seed=5"))[0]

    def edit(name, data, keep_digest=True):
        if not name.endswith(victim):
            return data
        payload = json.loads(data)
        for row in payload["rows"]:
            row["value"] = 0.05
        if not keep_digest:
            del payload["rows_sha256"]  # hiding the edit from the cell's own checksum: the pack's still fails
        return json.dumps(payload).encode()

    for keep in (True, False):
        bad = _repack(pack, tmp_path / f"edited{keep}.tar.xz", edit=lambda n, d, keep=keep: edit(n, d, keep))
        # n_check=1: the sample would miss the edited cell (was: "adopted, 18 cells, 12 checked")
        with pytest.raises(RuntimeError, match=rf"toy: .*fail their checksum \(e\.g\. {victim}"):
            runs.adopt_pack(bad, {"toy": tmp_path / f"b{keep}" / "toy"}, n_check=1, progress=False)
        assert not (tmp_path / f"b{keep}").exists()
    (r,) = runs.adopt_pack(pack, {"toy": tmp_path / "c" / "toy"}, n_check=1, progress=False)["toy"]
    assert (r["status"], r["cells"], r["verified"]) == ("adopted", 18, 18)


def test_a_pack_of_the_current_code_is_adopted_on_its_checksums_without_recomputing(
    tmp_path, monkeypatch, cache_in_tmp
):
    """Cells carried between leases of a GPU machine (issues 37, 39): the pack's sub-store has the current identity
    (same config, same code), so its checksums suffice and nothing is recomputed (a GPU's training would not
    reproduce bit for bit); an edited cell is still refused."""
    pack, sub = _toy_pack(tmp_path)

    def no_recompute(*a, **k):
        raise AssertionError("recomputed a cell of the current code")

    monkeypatch.setattr(packs, "compute_cell", no_recompute)
    # a function name -> folder adopts every store the pack holds (benchmarks/gpu_profile.py --adopt)
    got = runs.adopt_pack(pack, lambda name: tmp_path / "lease2" / name, n_check=12, progress=False)
    assert list(got) == ["toy"]
    (r,) = got["toy"]
    assert (r["status"], r["cells"], r["checked"], r["verified"], r["to"]) == ("adopted", 18, 0, 18, sub)
    log = json.loads((tmp_path / "lease2" / "toy" / sub / "adopted.json").read_text())
    assert log[-1]["same_code"] is True and log[-1]["checked"] == []

    def edit(name, data):
        if "seed=5" not in name or name.endswith("config.json"):
            return data
        payload = json.loads(data)
        payload["rows"][0]["value"] = -1.0
        return json.dumps(payload).encode()

    with pytest.raises(RuntimeError, match="fail their checksum"):
        runs.adopt_pack(_repack(pack, tmp_path / "edited.tar.xz", edit=edit), {"toy": tmp_path / "x" / "toy"})


def test_pack_members_are_checked_by_our_code_on_a_python_without_extraction_filters(tmp_path, monkeypatch):
    import tarfile

    pack, sub = _toy_pack(tmp_path, {"x": [1], "seed": [0]})
    # a Python without extraction filters (3.10 before 3.10.12): the path that once fell back to plain extractall
    monkeypatch.delattr(tarfile, "data_filter", raising=False)

    def no_filters(self, path=".", members=None, *, numeric_owner=False, **kw):
        if kw:
            raise TypeError("extractall() got an unexpected keyword argument 'filter'")
        raise AssertionError("unpack must not rely on tarfile's extraction")

    monkeypatch.setattr(tarfile.TarFile, "extractall", no_filters)
    payload = json.dumps({"cell": {}, "rows": []}).encode()
    for evil in (
        "../config-ab/x=1.json",
        "./config-ab/x=1.json",
        "toy/config-ab/../../x.json",
        ".hidden/config-a/x.json",
    ):
        bad = _repack(pack, tmp_path / "evil.tar.xz", extra=[(evil, payload)])
        with pytest.raises(ValueError, match="not part of a grid pack; refusing to extract anything"):
            runs.unpack(bad, tmp_path / "out" / "dest")
        assert not (tmp_path / "out").exists() and not (tmp_path / "config-ab").exists()
    twice = _repack(pack, tmp_path / "twice.tar.xz", extra=[(f"toy/{sub}/config.json", b"{}")])
    with pytest.raises(ValueError, match="twice"):
        runs.unpack(twice, tmp_path / "out")
    got = runs.unpack(pack, tmp_path / "ok")
    assert (tmp_path / "ok" / "toy" / sub / "config.json").is_file() and got["stores"]["toy"][sub]["cells"] == 1
    with pytest.raises(ValueError, match="must start with"):
        runs.grid_store("smoke", "..")


def test_packs_without_checksums_need_a_known_digest_or_a_full_recomputation(tmp_path, monkeypatch, cache_in_tmp):
    import hashlib

    pack, sub = _toy_pack(tmp_path, {"x": [1, 2], "seed": [0, 1, 2]})

    def strip(payload):  # a pack as written before checksums: no sha256 in the manifest, none in the cells
        for subs in payload["stores"].values():
            for meta in subs.values():
                meta.pop("sha256")
        return payload

    def old_cell(name, data):
        if name.endswith("config.json"):
            return data
        payload = json.loads(data)
        payload.pop("rows_sha256", None)
        return json.dumps(payload).encode()

    legacy = _repack(pack, tmp_path / "legacy.tar.xz", edit=old_cell, manifest_edit=strip)
    with pytest.raises(ValueError, match="records no checksums.*--recompute-all"):
        runs.adopt_pack(legacy, {"toy": tmp_path / "b" / "toy"}, progress=False)
    (r,) = runs.adopt_pack(legacy, {"toy": tmp_path / "b" / "toy"}, recompute_all=True, progress=False)["toy"]
    assert (r["cells"], r["checked"], r["verified"]) == (6, 6, 0)
    # a committed legacy pack, byte for byte: adopted after the usual sample
    digest = hashlib.sha256(legacy.read_bytes()).hexdigest()
    monkeypatch.setitem(runs.LEGACY_PACKS, digest, "a test pack")
    (r,) = runs.adopt_pack(legacy, {"toy": tmp_path / "c" / "toy"}, n_check=1, progress=False)["toy"]
    assert r["cells"] == 6 and r["checked"] < 6


def test_the_committed_checkpoint_pack_is_a_known_legacy_pack():
    import hashlib
    from pathlib import Path

    committed = Path(__file__).resolve().parents[2] / "results" / "paper" / "checkpoints" / "mscr_2d_paper_grids.tar.xz"
    if not committed.is_file():
        pytest.skip("no committed checkpoint pack in this checkout")
    assert hashlib.sha256(committed.read_bytes()).hexdigest() in runs.LEGACY_PACKS


def test_a_failing_cell_says_how_many_cells_are_kept_and_how_to_resume(tmp_path):
    from robeval.core.errors import IncompleteResult

    cells = [{"x": 1, "seed": 0}, {"x": 2, "seed": 0}, {"x": 3, "seed": 0, "fail": True}]
    grid = runs.Grid(square, cells, store=tmp_path / "g", config={"log": str(tmp_path / "log.txt")})
    with pytest.raises(IncompleteResult, match=r"RuntimeError: boom\). 2 of 3 cells are finished and kept in") as err:
        grid.run(progress=False)
    assert (err.value.done, err.value.total) == (2, 3) and "run the grid again" in str(err.value)
    assert isinstance(err.value.__cause__, RuntimeError) and len(grid.done()) == 2


# ---------------------------------------------- issue 48: truncated and malformed packs, refused before extraction
def _small_pack(tmp_path):
    log = tmp_path / "log.txt"
    store = tmp_path / "a" / "toy"
    runs.run_grid(square, {"x": [1, 2, 3, 4], "seed": [0, 1]}, store=store, config={"log": str(log)}, progress=False)
    runs.pack([store], tmp_path / "toy.tar.xz")
    return tmp_path / "toy.tar.xz", next(store.glob("config-*"))


def test_a_pack_cut_short_is_refused_before_anything_is_extracted(tmp_path, capsys):
    """``robeval adopt --from <a pack cut in half>`` was an EOFError traceback (the realistic partial copy)."""
    from robeval.__main__ import main

    pack, _ = _small_pack(tmp_path)
    blob = pack.read_bytes()
    for cut in (len(blob) // 2, len(blob) - 40, 60):
        half = tmp_path / f"half{cut}.tar.xz"
        half.write_bytes(blob[:cut])
        with pytest.raises(ValueError, match=f"{half.name}.*(truncated or corrupted|is not a grid pack)"):
            runs.unpack(half, tmp_path / "out")
        assert not (tmp_path / "out").exists()
        with pytest.raises(ValueError, match="truncated or corrupted|is not a grid pack"):
            runs.adopt_pack(half, {"toy": tmp_path / "b" / "toy"}, progress=False)
        assert main(["adopt", "--profile", "smoke", "--from", str(half), "toy"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and half.name in err, err
    assert not (tmp_path / "b").exists()


def test_gpu_profile_adopt_of_a_truncated_pack_is_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    pack, _ = _small_pack(tmp_path)
    half = tmp_path / "half.tar.xz"
    half.write_bytes(pack.read_bytes()[: pack.stat().st_size // 2])
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "gpu_profile.py"), "--only", "03", "--out", str(tmp_path / "o"),
         "--adopt", str(half)],
        capture_output=True, text=True, timeout=120, env={**__import__("os").environ, "ROBEVAL_DRY_RUN": "1"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1 and "half.tar.xz" in proc.stderr


def test_a_pack_with_a_broken_manifest_or_store_config_is_refused(tmp_path, write_tar_xz):
    """A non-JSON MANIFEST.json ("Expecting property name...", no file named) and a config.json without ``fn``
    (a KeyError, read before any checksum was verified) are refused with the file named."""
    import hashlib

    pack, sub = _small_pack(tmp_path)
    bad = tmp_path / "bad.tar.xz"
    write_tar_xz(bad, {"MANIFEST.json": b"{'format': 1}"})
    with pytest.raises(ValueError, match="bad.tar.xz: its MANIFEST.json is not valid JSON"):
        runs.unpack(bad, tmp_path / "out")
    got = runs.unpack(pack, tmp_path / "unpacked")
    files = {p.name: p.read_bytes() for p in (tmp_path / "unpacked" / "toy" / sub.name).iterdir()}
    cfg = json.loads(files["config.json"])
    del cfg["fn"]
    files["config.json"] = json.dumps(cfg).encode()
    members = {f"toy/{sub.name}/{n}": b for n, b in files.items()}
    # the manifest's checksum of config.json still the original one: refused on the checksum, before reading it
    write_tar_xz(bad, {"MANIFEST.json": json.dumps(got).encode(), **members})
    with pytest.raises(RuntimeError, match="config.json fails its checksum"):
        runs.adopt_pack(bad, {"toy": tmp_path / "b" / "toy"}, progress=False)
    # a manifest made to match the altered file: the config itself is refused, naming it
    got["stores"]["toy"][sub.name]["sha256"]["config.json"] = hashlib.sha256(files["config.json"]).hexdigest()
    write_tar_xz(bad, {"MANIFEST.json": json.dumps(got).encode(), **members})
    with pytest.raises(ValueError, match=r"config.json is not a grid store's config \(it needs 'fn'"):
        runs.adopt_pack(bad, {"toy": tmp_path / "b" / "toy"}, progress=False)
    assert not (tmp_path / "b").exists()


def test_a_pack_too_large_or_holding_unlisted_files_is_refused_before_its_data_is_read(
    tmp_path, write_tar_xz, monkeypatch
):
    """Issue 62's probe: a 46 KB pack held one 300 MB file in a sub-store its manifest did not list, and unpack read
    it into memory and wrote it. Each header is checked before any data is read: a file over PACK_MEMBER_MAX, files
    over PACK_TOTAL_MAX in all, and a file the manifest does not list are refused with nothing extracted."""
    from robeval.core.runs import packs

    pack, sub = _small_pack(tmp_path)
    got = runs.unpack(pack, tmp_path / "unpacked")
    files = {f"toy/{sub.name}/{p.name}": p.read_bytes() for p in (tmp_path / "unpacked" / "toy" / sub.name).iterdir()}
    manifest = json.dumps(got).encode()
    monkeypatch.setattr(packs, "PACK_MEMBER_MAX", 100)  # every file of the small pack is larger
    with pytest.raises(ValueError, match=r"holds '[^']+' of [\d,]+ bytes .* at most 100 bytes each"):
        runs.unpack(pack, tmp_path / "out1")
    monkeypatch.setattr(packs, "PACK_MEMBER_MAX", 64 * 2**20)
    monkeypatch.setattr(packs, "PACK_TOTAL_MAX", len(manifest) + 10)
    with pytest.raises(ValueError, match="in all. Refusing to extract anything"):
        runs.unpack(pack, tmp_path / "out2")
    monkeypatch.setattr(packs, "PACK_TOTAL_MAX", 2**30)
    bad = tmp_path / "extra.tar.xz"
    write_tar_xz(bad, {"MANIFEST.json": manifest, **files, f"s/{sub.name}/a.json": b"0" * 1000})
    with pytest.raises(ValueError, match=rf"holds 's/{sub.name}/a.json', which its MANIFEST.json does not list"):
        runs.unpack(bad, tmp_path / "out3")
    # a manifest naming a path where a store or sub-store name goes (rebind_pack and adopt join those names to
    # folders: the second probe had rebind_pack move an outside folder into its temporary folder), and a member
    # of a sub-store the manifest does not name, even beside a sub-store without checksums
    victim = tmp_path / "victim" / sub.name
    victim.mkdir(parents=True)
    (victim / "mine.json").write_text("{}")
    forged = json.loads(manifest)
    forged["stores"]["toy"][str(victim)] = {"sha256": None}
    write_tar_xz(bad, {"MANIFEST.json": json.dumps(forged).encode(), **files})
    with pytest.raises(ValueError, match="MANIFEST.json names .*victim.*which is not a grid store and sub-store name"):
        runs.unpack(bad, tmp_path / "out5")
    with pytest.raises(ValueError, match="not a grid store and sub-store name"):
        runs.rebind_pack(bad, {"toy": tmp_path / "nowhere"}, tmp_path / "rebound.tar.xz")
    assert (victim / "mine.json").read_text() == "{}"
    mixed = json.loads(manifest)
    mixed["stores"]["toy"]["config-ab"] = {"sha256": None}
    write_tar_xz(bad, {"MANIFEST.json": json.dumps(mixed).encode(), **files, "zz/config-ee/evil.json": b"{}"})
    with pytest.raises(ValueError, match="holds 'zz/config-ee/evil.json', which its MANIFEST.json does not list"):
        runs.unpack(bad, tmp_path / "out6")
    # a member dated where no file is (the second probe: os.utime raised OverflowError after members were written)
    import io as _io
    import tarfile

    with tarfile.open(bad, "w:xz", format=tarfile.PAX_FORMAT) as tf:
        for arcname, blob in {"MANIFEST.json": manifest, **files}.items():
            info = tarfile.TarInfo(arcname)
            info.size, info.mtime = len(blob), (-1e30 if arcname.endswith("config.json") else 1_700_000_000)
            tf.addfile(info, _io.BytesIO(blob))
    with pytest.raises(ValueError, match="with the modification time -1e"):
        runs.unpack(bad, tmp_path / "out7")
    assert not any(
        (tmp_path / f"out{i}").exists() and any((tmp_path / f"out{i}").iterdir()) for i in (1, 2, 3, 5, 6, 7)
    )
    assert runs.unpack(pack, tmp_path / "out4") == got  # the pack as written passes


def test_unpacks_into_one_folder_at_once_use_temporary_files_of_their_own(tmp_path, monkeypatch):
    """Probe J F4: every unpack wrote a member through the same temporary name ``.<file>.unpack.tmp``, so of four
    unpacks into one folder at once two failed with FileNotFoundError (the other had renamed the shared file away).
    Here a second unpack runs in the middle of the first one's first replace, as a concurrent one would."""
    import os

    pack, _ = _small_pack(tmp_path)
    dest = tmp_path / "dest"
    real_replace, nested = os.replace, []
    mask = os.umask(0)
    os.umask(mask)

    def replace(src, dst):
        if not nested:
            nested.append(None)
            nested[0] = runs.unpack(pack, dest)  # the other writer, between this one's write and its rename
        return real_replace(src, dst)

    monkeypatch.setattr(packs.os, "replace", replace)
    got = runs.unpack(pack, dest)
    assert nested == [got]
    expected = runs.unpack(pack, tmp_path / "alone")
    files = sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "alone") for p in (tmp_path / "alone").rglob("*") if p.is_file())
    assert not any(p.name.startswith(".") for p in dest.rglob("*"))  # no temporary file left behind
    for rel in files:
        mine, alone = dest / rel, tmp_path / "alone" / rel
        assert mine.read_bytes() == alone.read_bytes() and mine.stat().st_mtime == alone.stat().st_mtime
        assert mine.stat().st_mode & 0o777 == 0o666 & ~mask  # the user's usual permissions, not mkstemp's 0600
    assert got == expected


def test_damaged_stores_are_named_in_one_line_and_pack_writes_only_what_unpack_takes(tmp_path, capsys):
    """Issue 62's probe: `robeval grids --from` and `adopt --from` raised AttributeError / OverflowError on a cell
    file holding a JSON list, an adopted.json of the wrong shape, a lock naming pid 2**70; messages about a damaged
    config.json or a non-numeric `seconds` named no file; `grids --pack` wrote packs its own unpack refuses (a store
    named `my store`, a symlinked cell) and replaced any file at its path."""
    import os
    import shutil
    import socket

    from robeval.__main__ import main

    store = tmp_path / "g" / "toy"
    grid = runs.Grid(square, {"x": [1, 2], "seed": [0]}, store=store, config={"log": str(tmp_path / "log")})
    grid.run(progress=False)
    sub = grid.root
    cell = grid.path({"x": 1, "seed": 0})
    # a lock whose pid no process can have: a dead claim, listed, not a traceback
    (sub / "x=9.lock").write_text(json.dumps({"host": socket.gethostname(), "pid": 2**70}))
    (r,) = runs.store_status(store)
    assert r["abandoned"] == 1 and r["cells"] == 2
    good, good_cfg = cell.read_text(), (sub / "config.json").read_text()
    for damage, needle in [
        (lambda: cell.write_text("[1, 2]"), "is not a grid cell file"),
        (
            lambda: cell.write_text(json.dumps({**json.loads(good), "seconds": "abc"})),
            "'seconds' is 'abc', not a number",
        ),
        (lambda: (sub / "adopted.json").write_text('{"cells": 3}'), "is not an adoption log"),
        (lambda: (sub / "adopted.json").write_text('[{"cells": "many"}]'), "is not an adoption log"),
        (lambda: (sub / "config.json").write_text("[1]"), "config.json is not a grid store's config"),
    ]:
        damage()
        with pytest.raises(ValueError, match=needle):
            runs.store_status(store)
        assert main(["grids", "--from", str(store.parent), "toy"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("robeval: ") and err.count("\n") == 1 and needle.split("'")[0] in err
        cell.write_text(good)
        (sub / "config.json").write_text(good_cfg)
        (sub / "adopted.json").unlink(missing_ok=True)
    cell.write_text("[1, 2]")  # adopt names the file instead of an AttributeError
    with pytest.raises(RuntimeError, match=r"x=1.*not a grid cell file"):
        runs.adopt(tmp_path / "here", source=store, progress=False)
    cell.write_text(good)
    # pack: only names and regular files unpack takes back; never over a file that is not a pack
    odd = tmp_path / "my store"
    shutil.copytree(store, odd)
    with pytest.raises(ValueError, match="not a name a grid pack may hold.*nothing was packed"):
        runs.pack([odd], tmp_path / "odd.tar.xz")
    linked = tmp_path / "linked" / "toy"
    shutil.copytree(store, linked)
    target = next(linked.glob(f"config-*/{cell.name}"))
    target.unlink()
    os.symlink(cell, target)
    # refused before it is opened, as every store file (probe M16: its target was read first)
    with pytest.raises(ValueError, match="is a link or a special file, which no store robeval wrote holds"):
        runs.pack([linked], tmp_path / "linked.tar.xz")
    mine = tmp_path / "thesis.tar.xz"
    mine.write_text("my thesis")
    with pytest.raises(ValueError, match="exists and is not a grid pack; it is left as it is"):
        runs.pack([store], mine)
    assert mine.read_text() == "my thesis"
    runs.pack([store], tmp_path / "p.tar.xz")
    with pytest.raises(ValueError, match="is already a grid pack; it is left as it is"):
        runs.pack([store], tmp_path / "p.tar.xz")  # a pack is replaced only on purpose
    runs.pack([store], tmp_path / "p.tar.xz", overwrite=True)
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        runs.pack([store], tmp_path / "p.tar.xz", overwrite="yes")
    with pytest.raises(TypeError, match="stores must be a list of grid store folders"):
        runs.pack(str(store), tmp_path / "q.tar.xz")
    assert not list(tmp_path.glob("*.tmp")) and not (tmp_path / "odd.tar.xz").exists()


def test_pack_refuses_a_path_below_a_file_or_in_a_read_only_folder(tmp_path, monkeypatch):
    from robeval.core import io

    _, sub = _small_pack(tmp_path)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match="afile is a file, not a folder"):
        runs.pack([sub.parent], tmp_path / "afile" / "x.tar.xz")
    ro = tmp_path / "ro"
    ro.mkdir()
    monkeypatch.setattr(io, "_writable", lambda folder: folder != ro)  # root ignores permission bits
    with pytest.raises(ValueError, match="ro: the folder is not writable"):
        runs.pack([sub.parent], ro / "x.tar.xz")


def test_a_cell_file_records_the_cpu_kind_and_kernel_pins_it_ran_with(tmp_path, monkeypatch):
    """Issue 63: torch's training bits depend on the CPU kind and the ISA it dispatches to, so every cell says
    what it ran on (robeval.core.env.cpu_kind), beside its rows."""
    from robeval.core import env

    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    grid = runs.Grid(square, {"x": [3], "seed": [0]}, store=tmp_path / "s", config={"log": str(tmp_path / "log")})
    grid.run(backend="serial", progress=False)
    machine = json.loads(grid.path({"x": 3, "seed": 0}).read_text())["machine"]
    kind = env.cpu_kind()
    assert machine["cpu"] == kind["cpu"] and machine["isa"] in ("avx512", "avx2", "other")
    assert machine["pins"] == {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": None}


# ---------------------------------------------------------------- issue 62: a pack carries data, never code
_EVIL = "import pathlib\npathlib.Path({mark!r}).write_text('ran')\n\ndef f(cell, config):\n    return {{'v': 1}}\n"


def _forged_pack(tmp_path, fn_name: str):
    """A pack of real cells whose store config names ``fn_name``, its checksums consistent (pack() computed them)."""
    store = tmp_path / "forge" / "toy"
    runs.run_grid(square, {"x": [1, 2], "seed": [0]}, store=store, config={"log": str(tmp_path / "l")}, progress=False)
    cfg = next(store.glob("config-*/config.json"))
    meta = json.loads(cfg.read_text())
    cfg.write_text(json.dumps({**meta, "fn": fn_name}))
    out = tmp_path / f"forged-{len(list(tmp_path.glob('forged-*')))}.tar.xz"
    runs.pack([store], out)
    return out


def test_cell_function_looks_only_among_robevals_functions_and_imports_nothing_else(tmp_path, monkeypatch):
    import sys

    mark = tmp_path / "imported.txt"
    (tmp_path / "evilmod.py").write_text(_EVIL.format(mark=str(mark)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "this", raising=False)
    for name in ("builtins.print", "os.system", "this.s", "evilmod.f", "subprocess.run", "print", "robeval", ""):
        with pytest.raises(ValueError, match=r"cell function .*rerun its grid"):
            trust.cell_function(name)
    assert not mark.exists() and "this" not in sys.modules and "evilmod" not in sys.modules  # nothing imported
    # under robeval but not a top-level function of the module named: a re-export, a module, a constant, a class
    for name in (
        "robeval.core.runs.config_identity",  # defined in robeval.core.runs.identity
        "robeval.core.io.os",
        "robeval.core.runs.trust.CELL_ROOTS",
        "robeval.core.runs.trust.Path",
        "robeval.nothing_here.f",
        "robeval.core.io.no_such_function",
    ):
        with pytest.raises(ValueError, match="cell function"):
            trust.cell_function(name)
    # a function of robeval that is not one of its module's grid cells: refused uncalled (issue 62's probe made
    # adopt call robeval.__main__._strip on a path named by a store's cell, which stripped a notebook)
    for name in (
        "robeval.core.runs.identity.config_identity",
        "robeval.__main__._strip",
        "robeval.core.io.atomic_write_text",
    ):
        with pytest.raises(ValueError, match=r"not one of the grid cell functions of .*GRID_CELLS.*not called"):
            trust.cell_function(name)
    from robeval.msd import cbar

    assert trust.cell_function("robeval.msd.cbar.scan_cell") is cbar.scan_cell
    assert trust.cell_function(f"{square.__module__}.square") is square  # this file, trusted by its fixture


def test_a_pack_naming_other_code_is_refused_unimported_and_uncalled(tmp_path, capsys, monkeypatch):
    import sys

    mark = tmp_path / "imported.txt"
    (tmp_path / "evilmod.py").write_text(_EVIL.format(mark=str(mark)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "this", raising=False)
    for fn_name in ("builtins.print", "this.s", "evilmod.f"):
        pack = _forged_pack(tmp_path, fn_name)
        capsys.readouterr()
        with pytest.raises(ValueError, match=rf"the pack {pack}: toy/config-[0-9a-f]+: .*{fn_name}.*rerun its grid"):
            runs.adopt_pack(pack, {"toy": tmp_path / "here" / "toy"}, progress=False)
        assert capsys.readouterr().out == ""  # print was never called with the pack's cells
        assert not (tmp_path / "here").exists()  # nothing adopted
        # `robeval grids --from` lists it as of an unknown function, without importing it
        runs.unpack(pack, tmp_path / "unpacked" / fn_name)
        (r,) = runs.store_status(tmp_path / "unpacked" / fn_name / "toy")
        assert r["current"] is None and r["fn"] == fn_name
        # the GPU/CPU chunk drivers' identity check refuses it the same way
        sys.path.insert(0, str(paths_root() / "benchmarks"))
        try:
            import importlib

            driver = importlib.import_module("gpu_profile")
        finally:
            sys.path.remove(str(paths_root() / "benchmarks"))
        with pytest.raises(ValueError, match=rf"{pack}: its store toy/config-[0-9a-f]+: .*{fn_name}"):
            driver.check_identities(pack)
    assert not mark.exists() and "this" not in sys.modules and "evilmod" not in sys.modules


def paths_root():
    from robeval.core import paths

    return paths.find_root()


def test_two_packs_written_to_one_file_at_once_use_their_own_temporary_files(tmp_path, monkeypatch):
    """Issue 62, item 5: two concurrent `robeval grids --pack` to one file shared the temporary name
    ``.<pack>.tmp``: one's os.replace moved the other's half-written file, the other then failed. Each now writes
    its own temporary file; the pack is whole, whichever wins."""
    import os
    import tarfile
    import threading

    for name in ("a", "b"):
        runs.run_grid(
            square,
            {"x": [1, 2], "seed": [0]},
            store=tmp_path / name / "toy",
            config={"log": str(tmp_path / "l")},
            progress=False,
        )
    out = tmp_path / "grids.tar.xz"
    barrier, opened, real_open = threading.Barrier(2, timeout=30), [], tarfile.open

    def both_at_once(name, mode="r", *args, **kwargs):
        if mode.startswith("w"):
            opened.append(os.path.basename(name))
            barrier.wait()  # both writers hold their temporary file before either finishes
        return real_open(name, mode, *args, **kwargs)

    monkeypatch.setattr(tarfile, "open", both_at_once)
    errors = []

    def write(store):
        try:
            runs.pack([store], out)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(tmp_path / n / "toy",)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    monkeypatch.undo()
    assert errors == [] and len(set(opened)) == 2, (errors, opened)
    assert all(n.startswith(".grids.tar.xz.") and n.endswith(".tmp") for n in opened)
    assert runs.unpack(out, tmp_path / "back")["stores"]["toy"]  # a whole pack
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)  # the user's usual permissions, not mkstemp's


# ---------------------------------------------- issue 63: a grid with a deadline starts only cells that can finish
def test_expected_seconds_is_the_median_of_the_cells_alike_else_of_all():
    from robeval.core.runs.grid import expected_seconds

    done = [({"m": "a", "run": 0}, 10.0), ({"m": "a", "run": 1}, 30.0), ({"m": "a", "run": 2}, 20.0)]
    done += [({"m": "b", "run": 0}, 1.0)]
    assert expected_seconds({"m": "a", "run": 7}, done) == 20.0  # alike: equal strings, any numbers
    assert expected_seconds({"m": "b", "run": 7}, done) == 1.0
    assert expected_seconds({"m": "c", "run": 0}, done) == 15.0  # nothing alike: every finished cell, (10+20)/2
    assert expected_seconds({"m": "a"}, []) is None


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_grid_with_a_deadline_starts_the_cells_that_fit_and_leaves_the_rest(tmp_path, monkeypatch, n_jobs):
    log = tmp_path / "log.txt"
    config = {"log": str(log)}
    first = [{"kind": "slow", "x": 1, "seed": 0}, {"kind": "fast", "x": 1, "seed": 0}]
    grid = runs.Grid(square, first, store=tmp_path / "g", config=config)
    grid.run(progress=False)
    for cell, seconds in zip(first, (1000.0, 0.01)):  # as if the slow kind took 1000 s
        payload = json.loads(grid.path(cell).read_text())
        grid.path(cell).write_text(json.dumps({**payload, "seconds": seconds}))
    # the slow cell comes first in order; 100 s are left: it is passed over and the fast one started
    cells = [{"kind": "slow", "x": 2, "seed": 0}, {"kind": "fast", "x": 2, "seed": 0}, *first]
    grid = runs.Grid(square, cells, store=tmp_path / "g", config=config)
    monkeypatch.setenv(runs.DEADLINE_ENV, repr(__import__("time").time() + 100.0))
    with pytest.raises(runs.DeadlineReached, match=r"1 of 4 cells left for a later run.*3 finished cells are kept"):
        grid.run(progress=False, n_jobs=n_jobs)
    assert [c["kind"] for c in calls(log)] == ["slow", "fast", "fast"]
    assert not grid.path(cells[0]).is_file() and not list(grid.root.glob("*.lock"))  # its claim released
    monkeypatch.setenv(runs.DEADLINE_ENV, repr(__import__("time").time() + 2000.0))  # time enough: it runs
    assert len(grid.run(progress=False, n_jobs=n_jobs)) == 4
    assert [c["kind"] for c in calls(log)] == ["slow", "fast", "fast", "slow"]


def test_a_grid_deadline_that_is_not_a_time_is_refused(tmp_path, monkeypatch):
    grid = runs.Grid(square, [{"x": 1, "seed": 0}], store=tmp_path / "g", config={"log": str(tmp_path / "l")})
    for bad in ("tomorrow", "nan", "inf"):
        monkeypatch.setenv(runs.DEADLINE_ENV, bad)
        with pytest.raises(ValueError, match=r"\$ROBEVAL_GRID_DEADLINE must be a time in seconds.*unset it"):
            grid.run(progress=False)
    monkeypatch.setenv(runs.DEADLINE_ENV, " ")
    assert len(grid.run(progress=False)) == 1  # blank: no deadline


def test_a_lock_that_is_a_fifo_or_a_link_is_never_opened(tmp_path):
    """Probe F #2: `robeval grids --from` blocked for ever on a FIFO claim (`*.lock`) in a store from elsewhere and read
    a link to /dev/zero until memory ran out. A claim that is not a small regular file is garbage, never opened."""
    import os

    from robeval.core.runs.store import claim_state

    fifo, link = tmp_path / "a.lock", tmp_path / "b.lock"
    os.mkfifo(fifo)
    link.symlink_to("/dev/zero")
    for lock in (fifo, link):
        os.utime(lock, (0, 0), follow_symlinks=False)  # an old claim
        state = claim_state(lock)
        assert state["state"] == "dead" and state["pid"] is None, state
