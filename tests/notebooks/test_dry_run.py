"""The paper profile's dry run (ROBEVAL_DRY_RUN=1) of notebooks 02, 03, 04 and 09 on a full-CIFAR-10 stand-in.

These are CI's check of the paper profile's code paths (WRN-28-10, WRN-40-2, ResNet-110, full CIFAR-10 loading,
the schedules, result files and ledger rows): ``make test`` runs them, ~1-2.5 min each on 2 idle cores.
``ROBEVAL_DRY_RUN_TESTS=0`` leaves the four notebook runs out (e.g. for a quick local run); without the data
mirror (the CIFAR-10 subset the stand-in is built from) they skip, saying so.

Full CIFAR-10 is not available offline, so the loader gets a stand-in in the release's exact format
(``cifar-10-batches-py/data_batch_1..5``, ``test_batch``, ``batches.meta``: pickled dicts with ``b"data"``
uint8 (N, 3072) and ``b"labels"``), built from the real 5000/1000 subset tiled to the release's 50000/10000
images — tiled rather than kept small so that the paper profile's counts (``n_train = 50000``, ``n_test = 10000``,
index-based subsets of the full set) meet the shapes they were written for. The subset's test images are
reordered so that the first 10 hold one image of each class: a dry run's short test prefix then holds every class
(notebook 02's MSCR divides by the clean accuracy, which a one-step network gets above 0 only on images of the
class it predicts). It is admitted only through the test-only checksum override ``ROBEVAL_TEST_CIFAR10_SHA256``
together with ``ROBEVAL_DRY_RUN=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tarfile
import time
from unittest.mock import ANY

import numpy as np
import pandas
import pytest

from robeval import dryrun
from robeval.core import data, io, paths, runs
from robeval.core.catalog import notebook_paths
from robeval.core.notebooks import run_notebook

DRY = {
    "02_mscr_cifar10": "mscr_cifar10",
    "03_msd_powerset": "msd_powerset",
    "04_msd_cifar10_c_bar": "msd_cifar10_c_bar",
    "09_acr_rs_training": "acr_rs_training",
}
BUDGET_S = 150  # per notebook on 2 idle cores (asserted only with ROBEVAL_STRICT_TIME=1)
OPT_OUT = "ROBEVAL_DRY_RUN_TESTS"  # "0": leave the four notebook dry runs out of the test run


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    """A cache folder holding ``cifar10/cifar-10-python.tar.gz``: the stand-in of :func:`robeval.dryrun.standin_arrays`."""
    try:
        arrays = dryrun.standin_arrays()
    except data.DataFileMissing as exc:
        pytest.skip(f"the CIFAR-10 subset the stand-in is built from is missing (set ROBEVAL_DATA_DIR): {exc}")
    cache = tmp_path_factory.mktemp("cache")
    (cache / "cifar10").mkdir()
    sha = dryrun.write_cifar10_release(cache / "cifar10" / "cifar-10-python.tar.gz", *arrays)
    return {"cache": cache, "sha256": sha, "arrays": arrays}


def test_standin_test_prefix_holds_every_class(standin):
    y_test = standin["arrays"][3]
    assert sorted(y_test[:10].tolist()) == list(range(10))
    subset = data.load_cifar10_subset()[3]
    assert (np.bincount(y_test, minlength=10) == 10 * np.bincount(subset, minlength=10)).all()  # only reordered


def test_release_is_parsed_once_per_process(standin, monkeypatch):
    """The verified tarball is parsed once per process (a grid's cells load it many times); every caller gets its
    own copy, and a changed file is parsed again."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(standin["cache"]))
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("ROBEVAL_TEST_CIFAR10_SHA256", standin["sha256"])
    calls = []
    real = data._read_cifar10_release
    monkeypatch.setattr(data, "_read_cifar10_release", lambda p: calls.append(p) or real(p))
    monkeypatch.setattr(data, "_PARSED", {})
    with pytest.warns(UserWarning, match="stand-in"):
        first = data.load_cifar10()
        first[0][0, 0, 0, 0] ^= 255  # the caller's copy
        second = data.load_cifar10(layout="NHWC")
    assert len(calls) == 1
    np.testing.assert_array_equal(second[0], standin["arrays"][0].transpose(0, 2, 3, 1))
    tar = standin["cache"] / "cifar10" / "cifar-10-python.tar.gz"
    st = tar.stat()
    os.utime(tar, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    with pytest.warns(UserWarning, match="stand-in"):
        third = data.load_cifar10()
    assert len(calls) == 2
    np.testing.assert_array_equal(third[2], standin["arrays"][2])


@pytest.fixture(scope="module")
def fresh_dry_run_dir():
    """build/dry_run emptied once: a dry run's grids resume from stored cells, so stale ones would skip code."""
    shutil.rmtree(paths.BUILD_DIR / "dry_run", ignore_errors=True)
    return paths.BUILD_DIR / "dry_run"


def test_standin_is_rejected_without_the_override(standin, monkeypatch):
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(standin["cache"]))
    monkeypatch.delenv("ROBEVAL_TEST_CIFAR10_SHA256", raising=False)
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    with pytest.raises(data.DataChecksumError, match=f"expected sha256 {data.CIFAR10_SHA256}"):
        data.load_cifar10()
    # the override alone (no dry run) is refused, so no real run reads a stand-in
    monkeypatch.setenv("ROBEVAL_TEST_CIFAR10_SHA256", standin["sha256"])
    monkeypatch.delenv("ROBEVAL_DRY_RUN")
    with pytest.raises(ValueError, match="only for a dry run"):
        data.load_cifar10()
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("ROBEVAL_TEST_CIFAR10_SHA256", "0" * 63)
    with pytest.raises(ValueError, match="64 hex digits"):
        data.load_cifar10()


def test_standin_is_read_by_the_release_loader_with_the_override(standin, monkeypatch):
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(standin["cache"]))
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("ROBEVAL_TEST_CIFAR10_SHA256", standin["sha256"])
    with pytest.warns(UserWarning, match="TEST STAND-IN|test stand-in"):
        x_tr, y_tr, x_te, y_te = data.load_cifar10_any(full=True)
    assert x_tr.shape == (50000, 3, 32, 32) and x_te.shape == (10000, 3, 32, 32)
    assert x_tr.dtype == np.uint8 and y_tr.dtype == np.uint8
    for got, want in zip((x_tr, y_tr, x_te, y_te), standin["arrays"]):
        np.testing.assert_array_equal(got, want)


@pytest.mark.notebook
@pytest.mark.skipif(
    os.environ.get(OPT_OUT, "1") == "0",
    reason=f"{OPT_OUT}=0: the four paper-profile dry runs (~1-2.5 min each on 2 idle cores) are left out",
)
@pytest.mark.parametrize("stem", list(DRY))
def test_paper_profile_dry_run(stem, standin, fresh_dry_run_dir, monkeypatch):
    """The notebook's paper profile end to end with every loop cut short: it finishes, writes its result files
    and a ledger that is no evidence (every row 'not comparable', the dry run's mechanism as the reason) under
    build/dry_run (never results/paper), and units.json with positive per-unit times and what each unit is."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(standin["cache"]))  # also keeps dry-run models out of data/cache
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("ROBEVAL_TEST_CIFAR10_SHA256", standin["sha256"])
    # one torch thread per process: on a CI box shared with other jobs (the suite's other worker) two-thread torch
    # spins (03 took 273 s with 2 threads at load 6.6, 190 s with 1 at load 11); units.json names the thread count
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1")
    path = next(p for p in notebook_paths() if p.stem == stem)
    experiment = DRY[stem]
    paper_results = paths.RESULTS_DIR / "paper"
    before = sorted(paper_results.rglob("*")) if paper_results.exists() else []
    t0 = time.perf_counter()
    out = run_notebook(path, "paper")
    elapsed = time.perf_counter() - t0
    print(f"{stem}: dry run in {elapsed:.0f} s (load average {os.getloadavg()[0]:.1f})")
    text = out.read_text()
    assert "DRY RUN" in text and "extrapolated paper profile on this machine" in text
    dry = fresh_dry_run_dir
    assert out.parent == dry / "notebooks"
    result_files = [p for p in (dry / experiment).iterdir() if p.suffix in (".csv", ".json", ".npz")]
    assert len(result_files) >= 3, result_files
    ledger = json.loads((dry / "claims" / f"{stem}.json").read_text())
    assert ledger["claims"] and {c["profile"] for c in ledger["claims"]} == {"paper"}
    assert ledger["survives"] is False and "dry run" in ledger["mechanism"]
    assert {c["verdict"] for c in ledger["claims"]} == {"not comparable"}  # a dry run is no evidence
    units = json.loads((dry / experiment / "units.json").read_text())
    assert units["units_s"] and all(v > 0 for v in units["units_s"].values())
    assert set(units["unit_what"]) == set(units["units_s"]) and "1 torch thread(s)" in units["unit_what"]["train_step"]
    assert units["total_s"] > 0 and set(units["counts"]) <= set(units["units_s"])
    assert (sorted(paper_results.rglob("*")) if paper_results.exists() else []) == before
    if os.environ.get("ROBEVAL_STRICT_TIME") == "1":
        assert elapsed < BUDGET_S


# notebook -> (its experiment, the gpu profile's network, a result file of the gpu profile's own code path, runner)
GPU_DRY = {
    # the MSD notebooks' new path (issue 37): schemes retrained from scratch, drawn from the batch-norm grid
    # ("sample:K"), a CIFAR ResNet as feature extractor and base network; 04 shares these networks and code.
    # Run as `robeval run --profile gpu` runs it (papermill)
    "03_msd_powerset": ("msd_powerset", "resnet20", "powerset_retrain.csv", "papermill"),
    # run as on the lent GPU machine, which has no papermill: benchmarks/gpu_profile.py (code cells in order in a
    # process of their own, a deadline, the grids packed and the results tarred for the way back)
    "09_acr_rs_training": ("acr_rs_training", "resnet8", "certifications_sequential.csv", "gpu_profile.py"),
}


def _needs_gpu_dry_run() -> None:
    """Skip a gpu-profile dry run when it is opted out or the CIFAR-10 subset it trains on is missing."""
    if os.environ.get(OPT_OUT) == "0":
        pytest.skip(f"{OPT_OUT}=0")
    try:
        data.load_cifar10_subset()
    except data.DataFileMissing as exc:
        pytest.skip(f"the CIFAR-10 subset is missing (set ROBEVAL_DATA_DIR): {exc}")


@pytest.mark.notebook
@pytest.mark.parametrize("stem", [s for s in GPU_DRY if GPU_DRY[s][3] == "papermill"])
def test_gpu_profile_code_path_runs_on_cpu_as_a_dry_run(stem, monkeypatch, tmp_path):
    """A notebook's ``gpu`` profile (a CIFAR ResNet on the 5000-image subset; 09: certify_table up to n_max; 03:
    retrained schemes sampled from the batch-norm grid) with every loop cut short by ``[dry_run]``: the code path
    CI can check without a GPU. It writes under build/dry_run/gpu (never results/gpu) and its ledger is no
    evidence. 02 and 04 differ from their paper-profile dry runs only in settings (02: the ResNet, whose training
    accuracy the rows read, tests/mscr; 04: the networks 03 trains here). 09's path, run by the lease driver, is
    checked the same way on the one-lease run of :func:`test_a_gpu_profile_split_across_two_leases_trains_nothing_twice`
    (:func:`_check_driver_run`)."""
    _needs_gpu_dry_run()
    experiment, arch, result, runner = GPU_DRY[stem]
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1")
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))  # dry-run networks stay out of the cache
    dry = paths.BUILD_DIR / "dry_run" / "gpu"
    for stale in (dry / experiment, dry / "grids"):  # nothing of an earlier run is reused
        shutil.rmtree(stale, ignore_errors=True)
    gpu_results = paths.RESULTS_DIR / "gpu"
    before = sorted(gpu_results.rglob("*")) if gpu_results.exists() else []
    if runner == "papermill":
        out = run_notebook(next(p for p in notebook_paths() if p.stem == stem), "gpu")
        assert out.parent == dry / "notebooks"
        text = out.read_text()
    else:
        summary = _gpu_profile().main(["--only", stem[:2], "--deadline-s", "400", "--out", str(tmp_path / "out")])
        text = _check_driver_run(stem, summary, tmp_path / "out")
    assert arch in text  # the gpu profile's network, not the default's small CNN
    ledger = _check_gpu_dry_ledger(stem)
    if stem == "03_msd_powerset":  # "sample:2": two of the batch-norm grid's schemes, trained from scratch
        retrained = io.load_frame(dry / experiment / result)["scheme"].unique()
        grid = set(io.load_frame(dry / experiment / "powerset_bn.csv")["scheme"])
        assert len(retrained) == 2 and set(retrained) <= grid
        assert {"AppB_mmd_worse_retrain", "S4.2_retrain_n_above"} <= {c["id"] for c in ledger["claims"]}
    assert (sorted(gpu_results.rglob("*")) if gpu_results.exists() else []) == before


def _check_gpu_dry_ledger(stem) -> dict:
    """The gpu-profile dry run's ledger of ``stem`` is no evidence, and its result file is written; returns it."""
    experiment, _, result, _ = GPU_DRY[stem]
    dry = paths.BUILD_DIR / "dry_run" / "gpu"
    ledger = json.loads((dry / "claims" / f"{stem}.json").read_text())
    assert {c["profile"] for c in ledger["claims"]} == {"gpu"} and ledger["survives"] is False
    assert {c["verdict"] for c in ledger["claims"]} == {"not comparable"}
    assert (dry / experiment / result).is_file()
    return ledger


def _check_driver_run(stem, summary, out):
    """A lease of benchmarks/gpu_profile.py (a dry run) finished ``stem``, tarred its results and packed its grids;
    returns the notebook's log text."""
    experiment, _, result, _ = GPU_DRY[stem]
    assert summary["dry_run"] and summary["notebooks"] == {stem: {"status": "ok", "seconds": ANY}}
    with tarfile.open(out / "results_gpu.tar.gz") as tf:
        names = tf.getnames()
    assert f"results/claims/{stem}.json" in names and f"results/{experiment}/{result}" in names
    back = summary["brought_back"]
    if back["stores"]:  # the grids' finished cells, packed for the next lease (robeval adopt --from)
        manifest = runs.unpack(out / "grids.tar.xz", out.parent / "unpacked")
        assert sorted(manifest["stores"]) == back["stores"] and back["cells"] > 0
    return (out / f"{stem}.log").read_text()


def _gpu_profile():
    import importlib

    folder = str(paths.find_root() / "benchmarks")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("gpu_profile")


def test_committed_packs_are_adopted_in_lease_order_and_an_empty_folder_is_an_error(tmp_path):
    """``--adopt-dir results/gpu/packs``: every lease's grid pack, then its weights packs, lease 10 after lease 9;
    the calibration and logs beside them are not packs; a folder without packs (a lease that would retrain
    everything) is refused with the fix."""
    driver = _gpu_profile()
    names = [
        "lease10.tar.xz",
        "lease9-weights-02.tar.xz",
        "lease9.tar.xz",
        "lease9-weights-01.tar.xz",
        "lease9-calibration.json",
        "lease9-summary.json",
        "lease1-09_acr_rs_training.log",
        "grids.tar.xz",
    ]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    got = [p.name for p in driver.committed_packs(tmp_path)]
    assert got == ["lease9.tar.xz", "lease9-weights-01.tar.xz", "lease9-weights-02.tar.xz", "lease10.tar.xz"]
    assert driver.committed_packs(None) == []
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no leaseN.tar.xz"):
        driver.committed_packs(empty)
    with pytest.raises(ValueError, match="no such folder"):
        driver.committed_packs(tmp_path / "missing")
    # and the committed packs of this repository, if any, are found in that order
    committed = paths.RESULTS_DIR / "gpu" / "packs"
    if committed.is_dir() and list(committed.glob("lease*.tar.xz")):
        found = driver.committed_packs(committed)
        assert found and re.fullmatch(r"lease\d+\.tar\.xz", found[0].name)


def test_a_pack_of_other_code_is_refused_before_it_is_adopted(tmp_path):
    """A lease must not spend its minutes recomputing a pack's cells (GPU training does not reproduce them) only
    to refuse them: a grid pack whose sub-store this checkout names otherwise is refused up front, naming the
    store and the fix; one whose identities hold passes. Built from a pack of this checkout's own cells, one of
    them re-packed with a config changed by one epoch (another identity on any Python)."""
    driver = _gpu_profile()
    store = tmp_path / "src" / "toy"
    from robeval.msd import powerset

    sub = store / f"config-{runs.config_identity({'epochs': 3}, powerset.toy_cell)}"
    sub.mkdir(parents=True)
    io.atomic_write_json(sub / "config.json", {"fn": "robeval.msd.powerset.toy_cell", "config": {"epochs": 3}})
    good = tmp_path / "good.tar.xz"
    runs.pack([store], good)
    driver.check_identities(good)  # the identities hold: nothing raised
    moved = tmp_path / "moved" / "toy"
    shutil.copytree(store, moved)
    cfg = next(moved.glob("config-*/config.json"))
    io.atomic_write_json(cfg, {"fn": "robeval.msd.powerset.toy_cell", "config": {"epochs": 4}})
    bad = tmp_path / "bad.tar.xz"
    runs.pack([moved], bad)
    with pytest.raises(ValueError, match=r"toy/config-[0-9a-f]+ has another identity here .*commit that wrote"):
        driver.check_identities(bad)


@pytest.mark.parametrize("profile", ["gpu", "long"])
def test_the_committed_lease_and_chunk_packs_hold_at_this_checkouts_code(profile):
    """Every grid pack committed from a GPU lease (results/gpu/packs) or a CPU chunk of the long profile
    (results/long/packs, issue 63) is adopted at this checkout's code, on any Python and in any checkout
    (identities are portable: robeval.core.runs.identity). An edit of code a packed cell function reaches would
    orphan the pack's cells (torch training is not reproduced bit for bit on another CPU kind); this fails first,
    naming the store (``code_reach`` lists that code)."""
    driver = _gpu_profile()
    committed = paths.RESULTS_DIR / profile / "packs"
    packs = sorted(committed.glob("*.tar.xz")) if committed.is_dir() else []
    if not packs:
        pytest.skip(f"no pack is committed (results/{profile}/packs holds none)")
    checked = driver.check_packs(driver.committed_packs(committed))
    assert checked and set(checked.values()) == {"holds"}, checked


@pytest.mark.notebook
def test_a_gpu_profile_split_across_two_leases_trains_nothing_twice(monkeypatch, tmp_path):
    """Issue 44, item 1: notebook 09's gpu path (CPU dry run) in one lease, and in two leases on two fresh
    machines, the first stopped at its deadline (simulated at a cell boundary: ``ROBEVAL_STOP_AFTER_CELLS``, the
    process killed as the driver kills it) just after its training grid. The second adopts the first's grid pack
    and weights packs: it trains no network (no weight file written) and its certifications equal the one-lease
    run's."""
    _needs_gpu_dry_run()
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "1")
    dry = paths.BUILD_DIR / "dry_run" / "gpu"
    experiment = dry / "acr_rs_training"
    driver = _gpu_profile()

    def lease(name, adopt=(), stop_after=None, adopt_dir=None):
        for stale in (experiment, dry / "grids"):  # a fresh machine: no grids, no results, an empty cache
            shutil.rmtree(stale, ignore_errors=True)
        monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / name / "cache"))
        if stop_after is None:
            monkeypatch.delenv(runs.STOP_AFTER_CELLS_ENV, raising=False)
        else:
            monkeypatch.setenv(runs.STOP_AFTER_CELLS_ENV, str(stop_after))
        argv = ["--only", "09", "--deadline-s", "400", "--out", str(tmp_path / name / "out")]
        for pack in adopt:
            argv += ["--adopt", str(pack)]
        if adopt_dir is not None:
            argv += ["--adopt-dir", str(adopt_dir)]
        summary = driver.main(argv)
        frames = {}
        for f in ("certifications.csv", "certifications_sequential.csv"):
            if (experiment / f).is_file():
                frame = io.load_frame(experiment / f)
                timing = [c for c in frame.columns if "second" in c or c in ("time_s", "cached")]
                frames[f] = frame.drop(columns=timing)
        return summary, frames

    gpu_results = paths.RESULTS_DIR / "gpu"
    before = sorted(gpu_results.rglob("*")) if gpu_results.exists() else []
    one, want = lease("one")
    # the one-lease run is the gpu profile's code path of 09 on CPU (test_gpu_profile_code_path_runs_on_cpu_...)
    assert "resnet8" in _check_driver_run("09_acr_rs_training", one, tmp_path / "one" / "out")
    _check_gpu_dry_ledger("09_acr_rs_training")
    assert (sorted(gpu_results.rglob("*")) if gpu_results.exists() else []) == before  # never results/gpu
    trained = one["brought_back"]["weights"]
    assert trained["files"] > 0 and trained["packs"]
    stores = runs.unpack(tmp_path / "one" / "out" / "grids.tar.xz", tmp_path / "u")["stores"]
    n_train_cells = sum(s["cells"] for s in stores["acr_rs_training"].values())
    assert n_train_cells > 0

    first, _ = lease("first", stop_after=n_train_cells + 1)  # the training grid and one Table 5 cell, then killed
    assert first["notebooks"]["09_acr_rs_training"]["status"].startswith("failed")
    assert set(first["brought_back"]["stores"]) == {"acr_rs_training", "acr_sequential_table5"}
    assert first["brought_back"]["weights"]["files"] == trained["files"]  # every network it trained, packed
    out1 = tmp_path / "first" / "out"
    committed = tmp_path / "packs"  # committed as the lease plan says (docs/running.md), adopted with --adopt-dir
    committed.mkdir()
    shutil.copy(out1 / "grids.tar.xz", committed / "lease1.tar.xz")
    for pack in first["brought_back"]["weights"]["packs"]:
        shutil.copy(out1 / pack, committed / f"lease1-{pack}")
    (committed / "lease1-calibration.json").write_text("{}")  # beside the packs, not a pack
    assert [p.name for p in driver.committed_packs(committed)][0] == "lease1.tar.xz"
    second, got = lease("second", adopt_dir=committed)
    assert second["notebooks"]["09_acr_rs_training"]["status"] == "ok"
    assert second["brought_back"]["weights"]["files"] == 0  # nothing trained twice
    restored = [r for p, r in second["adopted"].items() if "weights" in p]
    assert sum(r["restored"] for r in restored) == trained["files"]
    assert set(got) == set(want) == {"certifications.csv", "certifications_sequential.csv"}
    for f in want:
        pandas.testing.assert_frame_equal(got[f], want[f])
