"""Notebook 09's grids in parallel by seed (robeval.acr.by_seed): the same rows as a serial run, nothing trained
twice."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
import torch

from robeval.acr import by_seed, training
from robeval.core import data, profiles

# the smoke profile cut further (2 variants: the plain path and all three modifications, which share the warm-up)
TINY = dict(
    variants=["gaussian", "all"],
    n_train=32,
    batch_size=16,
    n_test=8,
    cert_n=40,
    grad_pool=8,
    grad_n=2,
    seq_table_images=4,
    seq_n_max=100,
)
TIMING = ["time_s", "train_seconds", "warmup_seconds", "cert_seconds", "grad_seconds"]


@pytest.fixture
def cifar():
    try:
        data.load_cifar10_subset()
    except data.DataFileMissing as exc:
        pytest.skip(f"the CIFAR-10 subset is missing (set ROBEVAL_DATA_DIR): {exc}")


def _run(tmp_path, monkeypatch, n_jobs: int) -> tuple[dict, dict]:
    """Notebook 09's compute cells for its two model grids at ``n_jobs``, in a fresh cache and result folder."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1")  # the workers inherit it: one thread everywhere
    cfg = profiles.resolve("acr_rs_training", "smoke", n_jobs=n_jobs, **TINY)
    grids = by_seed.model_grids(cfg, tmp_path / "out", "smoke")
    if cfg.n_jobs > 1:
        got = by_seed.run_by_seed(grids, cfg.n_jobs, progress=False)
        assert got["groups"] == len(cfg.seeds) and got["workers"] == min(cfg.n_jobs, len(cfg.seeds))
        assert all(not g.pending() for g in grids.values())  # the notebook's run_grid calls only collect
    frames = {name: g.run(backend="serial", progress=False) for name, g in grids.items()}
    return frames, grids


def _without_timing(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in TIMING if c in df.columns])


def test_parallel_by_seed_gives_the_serial_rows_and_trains_each_model_once(tmp_path, monkeypatch, cifar):
    import robeval.core.paths as paths

    calls = []
    real = training.train_rs

    @functools.wraps(real)  # the same name and module: the cache files keep their names
    def counted(*args, **kwargs):
        calls.append(kwargs.get("stop_epoch"))
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "train_rs", counted)
    runs_ = {}
    for n_jobs in (1, 2):
        root = tmp_path / f"n_jobs={n_jobs}"
        for name in ("BUILD_DIR", "RESULTS_DIR", "FIGURES_DIR"):
            monkeypatch.setattr(paths, name, root / name.lower())
        runs_[n_jobs] = _run(root, monkeypatch, n_jobs)
    n_seeds, n_variants = 2, len(TINY["variants"])
    # serial (in this process): one warm-up per seed, then each model resumed from it once
    assert sorted(calls, key=str) == [1] * n_seeds + [None] * (n_seeds * n_variants)

    (serial, _), (parallel, grids) = runs_[1], runs_[2]
    for name in ("variants", "table"):
        assert len(parallel[name]) == len(serial[name]) > 0
        pd.testing.assert_frame_equal(_without_timing(parallel[name]), _without_timing(serial[name]), check_exact=True)
    summary = parallel["variants"][parallel["variants"].record == "summary"]
    assert (summary.train_seconds > 0).all()  # every model trained by its own cell
    assert (summary.groupby("seed").warmup_seconds.apply(lambda s: int((s > 0).sum())) == 1).all()  # warm-up once
    same = summary.warmup_seconds > 0
    assert same.tolist() == (serial["variants"][serial["variants"].record == "summary"].warmup_seconds > 0).tolist()

    # the parallel run's cache: one warm-up per seed, one model per cell, none rewritten after its cell finished
    # (a Table 5 cell that trained again, or a second training of a warm-up, would write it later)
    cache = tmp_path / "n_jobs=2" / "cache" / "acr_rs_training"
    assert len(list((cache / "warmup").glob("*.pt"))) == n_seeds
    assert len(list((cache / "models").glob("*.pt"))) == n_seeds * n_variants
    config = grids["variants"].config
    first_cell = {}
    for cell in grids["variants"].cells:
        warm, model = training._model_files(training.rs_config(cell, config), config)
        cell_file = grids["variants"].path(cell).stat().st_mtime_ns
        assert model.stat().st_mtime_ns <= cell_file < grids["table"].path(cell).stat().st_mtime_ns
        first_cell[warm] = min(first_cell.get(warm, np.inf), cell_file)
    assert len(first_cell) == n_seeds and all(w.stat().st_mtime_ns <= t for w, t in first_cell.items())


def test_run_by_seed_skips_finished_groups_and_rejects_bad_n_jobs(tmp_path, monkeypatch):
    """Nothing to do: no worker is started (a rerun of a finished notebook costs no process start)."""
    import robeval.core.paths as paths

    monkeypatch.setattr(paths, "BUILD_DIR", tmp_path / "build")
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    cfg = profiles.resolve("acr_rs_training", "smoke", **TINY)
    grids = by_seed.model_grids(cfg, tmp_path / "out", "smoke")
    groups = by_seed.seed_groups(grids)
    assert list(groups) == [(0.5, 0), (0.5, 1)]
    assert [name for name, _ in groups[(0.5, 0)]] == ["variants", "table"]
    assert [c["variant"] for c in groups[(0.5, 1)][0][1]] == TINY["variants"]
    for grid in grids.values():  # every cell finished (stand-in files)
        for cell in grid.cells:
            grid.path(cell).parent.mkdir(parents=True, exist_ok=True)
            grid.path(cell).write_text("{}")
    assert by_seed.run_by_seed(grids, 4, progress=False) == {
        "groups": 0,
        "workers": 0,
        "seconds": 0.0,
        "group_seconds": {},
    }
    with pytest.raises(ValueError, match="n_jobs must be >= 1"):
        by_seed.run_by_seed(grids, 0)


def test_n_jobs_leaves_the_grid_identities_alone():
    """n_jobs says how many processes compute the cells, not what they compute: the stores of a serial and a
    parallel run are the same, so either resumes the other."""
    a = by_seed.model_grids(profiles.resolve("acr_rs_training", "smoke", n_jobs=1), "out", "smoke")
    b = by_seed.model_grids(profiles.resolve("acr_rs_training", "smoke", n_jobs=7), "out", "smoke")
    assert {k: g.root for k, g in a.items()} == {k: g.root for k, g in b.items()}
    assert profiles.resolve("acr_rs_training", "gpu").n_jobs == len(profiles.resolve("acr_rs_training", "gpu").seeds)


class NoisySensitive(torch.nn.Module):
    """A linear classifier on the pixels: its votes change with the noise (the tiny CNN of these settings votes
    one class whatever the noise, which no noise stream could change)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3 * 32 * 32, 10)

    def forward(self, x):
        return self.fc(x.reshape(len(x), -1))


def test_rows_do_not_depend_on_the_certification_batch(tmp_path, monkeypatch, cifar):
    """eval_batch_size is a speed setting (the gpu profile sizes it for the GPU): a model trained, screened and
    certified with 500 or 7 noisy inputs per forward pass gives the same rows. Trained afresh for each (its own
    cache): the p_A estimates of discarding and reweighting use it too. Every image draws its noise from its own
    stream in fixed blocks (smoothing.NOISE_BLOCK), keyed by its index; a batch that cut or keyed the streams
    differently changes the counts of this noise-sensitive model, and fails here."""
    from robeval.acr import sequential
    from robeval.core.nn import models

    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1")
    monkeypatch.setattr(models, "from_config", lambda config: NoisySensitive())
    cell = {"variant": "all", "sigma": 0.5, "seed": 1}  # discarding, reweighting and the attack
    rows = {}
    for batch in (500, 7):
        monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / f"cache{batch}"))
        cfg = profiles.resolve("acr_rs_training", "smoke", eval_batch_size=batch, grad_variants=["all"], **TINY)
        variant = training.run_variant(cell, training.grid_config(cfg, tmp_path / f"out{batch}"))
        table = sequential.table_cell(cell, sequential.table_config(cfg))
        rows[batch] = (_without_timing(pd.DataFrame(variant)), pd.DataFrame(table))
    cert, summary = rows[500][0].iloc[:-1], rows[500][0].iloc[-1]
    assert ((cert.n_a > 0) & (cert.n_a < cert.N)).any()  # votes that depend on the noise
    assert summary["record"] == "summary" and 0 < summary["n_kept"] < TINY["n_train"]  # discarding kept some
    for a, b in zip(rows[500], rows[7]):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def _cell_or_fail(cell, config):  # module level: spawned workers import it
    if cell["seed"] == int(config["fail_seed"]):
        raise ValueError(f"seed {cell['seed']} breaks")
    return {"value": 10 * cell["seed"]}


def test_a_failed_seed_group_leaves_the_others_finished(tmp_path):
    """One group fails: the other groups' cells are finished and kept, the failure is raised afterwards (as
    IncompleteResult, naming the group), and the failed group's later grid is not started."""
    from robeval.core import runs
    from robeval.core.errors import IncompleteResult

    cells = [{"variant": v, "sigma": 0.5, "seed": s} for v in ("a", "b") for s in (0, 1, 2)]
    grids = {
        "variants": runs.Grid(_cell_or_fail, cells, store=tmp_path / "variants", config={"fail_seed": 1}),
        "table": runs.Grid(_cell_or_fail, cells, store=tmp_path / "table", config={"fail_seed": -1}),
    }
    with pytest.raises(IncompleteResult, match=r"1 of 3 seed groups failed \(first: sigma=0.5, seed=1: ") as err:
        by_seed.run_by_seed(grids, 2, progress=False)
    assert (err.value.done, err.value.total) == (8, 12)
    for grid in grids.values():
        assert sorted({c["seed"] for c in grid.done()}) == [0, 2]
        assert not list(grid.root.glob("*.lock"))  # every claim released
    assert grids["table"].collect(allow_missing=True).value.tolist() == [0, 20, 0, 20]


def test_seed_groups_stopped_by_the_deadline_raise_deadline_reached(tmp_path, monkeypatch):
    """Issue 63: a group's cell that cannot finish before ``$ROBEVAL_GRID_DEADLINE`` (estimated from the cells like
    it in its grid's store, whichever group computed them) is not started; when every group that stopped stopped so,
    the run raises DeadlineReached (the chunk goes on in its next part), not a failure."""
    import json
    import time

    from robeval.core import runs

    cells = [{"variant": v, "sigma": 0.5, "seed": s} for v in ("a", "b") for s in (0, 1, 2)]
    store, config = tmp_path / "variants", {"fail_seed": -1}
    seed0 = [c for c in cells if c["seed"] == 0]
    first = runs.Grid(_cell_or_fail, seed0, store=store, config=config)
    first.run(progress=False)
    for cell, seconds in zip(seed0, (1000.0, 1.0)):  # as if variant a took 1000 s, variant b 1 s
        path = first.path(cell)
        path.write_text(json.dumps({**json.loads(path.read_text()), "seconds": seconds}))
    grids = {"variants": runs.Grid(_cell_or_fail, cells, store=store, config=config)}
    monkeypatch.setenv(runs.DEADLINE_ENV, repr(time.time() + 100.0))
    with pytest.raises(runs.DeadlineReached, match=r"2 of 2 seed groups stopped before the deadline") as err:
        by_seed.run_by_seed(grids, 2, progress=False)
    assert (err.value.done, err.value.total) == (4, 6)
    assert sorted((c["variant"], c["seed"]) for c in grids["variants"].done()) == [
        ("a", 0), ("b", 0), ("b", 1), ("b", 2)
    ]  # fmt: skip
    assert not list(grids["variants"].root.glob("*.lock"))
