import json

import pytest

from robeval import runs


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
    a = runs.run_grid(square, {"x": [2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log), "scale": 1},
                      progress=False)
    b = runs.run_grid(square, {"x": [2], "seed": [0]}, store=tmp_path / "g", config={"log": str(log), "scale": 10},
                      progress=False)
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
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        df = runs.run_grid(many_rows, {"x": [1, 2]}, store=tmp_path / "g", scheduler=cluster.scheduler_address,
                           progress=False)
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
    script = (
        "import sys; sys.path.insert(0, %r)\n"
        "from test_foundation_runs import slow_cell\n"
        "from robeval import runs\n"
        "runs.run_grid(slow_cell, {'x': list(range(12))}, store=%r, config={'log': %r}, progress=False)\n"
    ) % (str(__import__("pathlib").Path(__file__).parent), str(store), str(log))
    proc = subprocess.Popen([sys.executable, "-c", script])
    grid = runs.Grid(slow_cell, {"x": list(range(12))}, store=store, config={"log": str(log)})
    deadline = time.time() + 60
    while len(grid.done()) < 3 and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {c["x"] for c in grid.done()}
    assert 3 <= len(finished) < 12
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
    from robeval.runs import config_identity

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "a"))
    ida = config_identity({"data_path": str(tmp_path / "a" / "msd" / "data.npz"), "epochs": 3})
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "b"))
    idb = config_identity({"data_path": str(tmp_path / "b" / "msd" / "data.npz"), "epochs": 3})
    assert ida == idb
    assert config_identity({"data_path": str(tmp_path / "b" / "msd" / "other.npz"), "epochs": 3}) != idb
    assert config_identity({"data_path": str(tmp_path / "b" / "msd" / "data.npz"), "epochs": 4}) != idb
    # a path outside both anchors stays absolute
    assert config_identity({"data_path": "/elsewhere/data.npz"}) != config_identity({"data_path": "/other/data.npz"})
