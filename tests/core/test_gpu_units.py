"""benchmarks/gpu_units.py runs on a CPU too (it is taken to a lent GPU as one prepared script, so it must not
fail there for a reason a CPU run shows), and the committed GPU estimate follows from the committed measurements."""

import importlib
import json
import sys

import pytest

from robeval.core import paths


def _load():
    # imported by name from benchmarks/ on sys.path: spawned worker processes find its functions there
    root = paths.find_root()
    if str(root / "benchmarks") not in sys.path:
        sys.path.insert(0, str(root / "benchmarks"))
    return importlib.import_module("gpu_units"), root


def test_certify_and_epochs_sections_on_the_cpu(tmp_path, capsys):
    gpu_units, _ = _load()
    summary = gpu_units.main(
        ["--out", str(tmp_path), "--sections", "certify,epochs", "--certify-n", "200", "--certify-n0", "10",
         "--certify-batch", "100", "--repeats", "1", "--epoch-images", "32", "--epochs-of", "03"]
    )  # fmt: skip
    cert = summary["sections"]["certify"]
    assert cert["status"] == "ok" and cert["result"]["n"] == 200 and cert["result"]["certify_s"] > 0
    epoch = summary["sections"]["epochs"]["result"]["03_04_wrn40_2"]
    assert epoch["steps"] == 1 and epoch["images"] == 32 and epoch["seconds"] > 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["device"] == summary["environment"].get("gpu", "cpu") and last["certify"] == "ok"
    assert json.loads((tmp_path / "gpu_units.json").read_text())["sections"].keys() == {"certify", "epochs"}


def test_a_failing_section_is_recorded_and_the_rest_go_on(tmp_path):
    gpu_units, _ = _load()
    summary = gpu_units.main(
        ["--out", str(tmp_path), "--sections", "units,certify", "--experiments", "no_such_experiment",
         "--certify-n", "100", "--certify-n0", "10", "--certify-batch", "100", "--repeats", "1"]
    )  # fmt: skip
    assert summary["sections"]["units"]["status"].startswith("failed: ValueError: no cost model")
    assert summary["sections"]["certify"]["status"] == "ok"


def test_the_committed_gpu_estimate_follows_from_the_committed_measurements(tmp_path):
    gpu_units, root = _load()
    folder = root / "results" / "paper" / "gpu_units"
    if not (folder / "estimate.json").is_file():
        pytest.skip("no GPU measurements committed")
    for f in folder.glob("*.json"):
        (tmp_path / f.name).write_text(f.read_text())
    got = gpu_units.summarize(tmp_path)
    want = json.loads((folder / "estimate.json").read_text())
    assert got.keys() == want.keys()
    for exp, est in want.items():
        assert got[exp]["total_h"] == pytest.approx(est["total_h"], rel=1e-12)
        assert est["device"] == "NVIDIA H200" and est["train_step_loop_s"] > est["train_step_unit_s"]
    # 03's feature loop: per-process cost on the CPU side, so more processes give fewer machine-hours
    p03 = want["msd_powerset"]
    by = p03["feature_image_h_by_processes"]
    assert by == pytest.approx(got["msd_powerset"]["feature_image_h_by_processes"], rel=1e-12)
    # its one-time corruption on the CPU, counted at 04's unit (measured on the same H200; 03's record predates it)
    assert p03["corruption_image_from"] == "msd_cifar10_c_bar_units.json"
    assert p03["unit_s"]["corruption_image"] == want["msd_cifar10_c_bar"]["unit_s"]["corruption_image"]
    assert p03["parts_h"]["corruption_image"] == pytest.approx(1_900_000 * p03["unit_s"]["corruption_image"] / 3600)
    assert by["16"] < by["4"] < by["1"] and by["1"] > p03["parts_h"]["train_step"]
    total = p03["total_h_by_processes"]
    assert total == pytest.approx(got["msd_powerset"]["total_h_by_processes"], rel=1e-12)
    assert set(total) == set(p03["train_step_h_by_processes"]) & set(by) and total["16"] < total["1"] / 3
    # with the CPU augmentation of the training batches, one process costs more than the units say
    assert (
        total["1"] > p03["total_h"]
        and want["msd_cifar10_c_bar"]["total_h_by_processes"]["1"] > want["msd_cifar10_c_bar"]["total_h"]
    )


def test_msd_inference_section_on_the_cpu():
    """The GPU check of notebooks 03/04's inference, run on the CPU (its device here): everything on 'cpu', the
    device copy agrees exactly with the CPU copy (they are the same TorchScript path), batches of 50."""
    gpu_units, _ = _load()
    out = gpu_units.msd_inference(n_train=8, n_test=8, n_timed=8, n_adapt=8)
    assert out["device"] == out["model_device"] == out["adapted_device"] == "cpu" and out["batch"] == 50
    assert out["label_agreement_with_cpu"] == 1.0 and out["feature_max_abs_diff"] == 0.0
    assert out["adapted_mean_max_abs_diff"] == 0.0 and 0.0 <= out["test_accuracy"] <= 1.0
    assert out["features_s_per_image"] > 0 and out["labels_s_per_image_batch50"] > 0


def test_feature_loop_scaling_on_the_cpu():
    """The concurrent-process measurement of 03's feature loop runs (spawned processes, a barrier) and reports
    per-machine seconds per image."""
    gpu_units, _ = _load()
    out = gpu_units.feature_loop_scaling(workers=(1, 2), n_instances=1)
    assert list(out) == ["1", "2"] and out["2"]["images"] == 200 and out["2"]["workers"] == 2
    assert all(r["s_per_image"] > 0 and r["wall_s"] > 0 for r in out.values())


def test_train_scaling_on_the_cpu():
    """The concurrent-process measurement of 03's training runs and reports per-machine seconds per step."""
    gpu_units, _ = _load()
    out = gpu_units.train_scaling(workers=(1, 2), n_images=4, warmup_images=2)
    assert list(out) == ["1", "2"] and out["2"]["steps"] == 2 and out["1"]["steps"] == 1
    assert all(r["s_per_step"] > 0 for r in out.values())


def test_notebook_params_of_the_dry_runs():
    gpu_units, _ = _load()
    assert gpu_units.notebook_params("n_jobs=4, seed=3,name=abc") == {"n_jobs": 4, "seed": 3, "name": "abc"}
    assert gpu_units.notebook_params("") == {}
    with pytest.raises(ValueError, match="NAME=VALUE"):
        gpu_units.notebook_params("n_jobs")


@pytest.mark.parametrize("augment", ["scheme", "augmix", "autoaugment", "toy"])
def test_train_scaling_with_the_augmentations_on_the_cpu(augment):
    """Each augmentation 03 and 04 train with builds and trains a step in train_scaling's worker. Only the
    augmentation's name crosses into a spawned worker, which builds it (:func:`_augment_kwargs`), so the worker runs
    here, in this process (a spawn costs ~12 s of imports per augmentation); spawning it is
    test_train_scaling_on_the_cpu's."""
    import queue
    import threading

    gpu_units, _ = _load()
    done = queue.Queue()
    gpu_units._train_worker(threading.Barrier(1), done, 4, 2, augment)
    start, stop, steps = done.get_nowait()
    assert steps == 1 and stop >= start and done.empty()


def test_gpu_profile_driver_selects_notebooks_and_respects_its_deadline(tmp_path, monkeypatch, capsys):
    """benchmarks/gpu_profile.py (the lent GPU's runner of the gpu profile): --only names notebooks that define the
    profile, a notebook that would start too late is skipped (not started and killed), and the summary and the
    results tarball are written whatever ran. Its full path runs in tests/notebooks/test_dry_run.py."""
    root = paths.find_root()
    if str(root / "benchmarks") not in sys.path:
        sys.path.insert(0, str(root / "benchmarks"))
    gpu_profile = importlib.import_module("gpu_profile")
    assert gpu_profile.stems_for("") == [
        "02_mscr_cifar10",
        "03_msd_powerset",
        "04_msd_cifar10_c_bar",
        "09_acr_rs_training",
    ]
    assert gpu_profile.stems_for("09,03") == ["09_acr_rs_training", "03_msd_powerset"]  # the order given (issue 44)
    with pytest.raises(ValueError, match="not defined for 01_mscr_2d"):
        gpu_profile.stems_for("01")
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")  # nothing of results/gpu is touched
    summary = gpu_profile.main(["--only", "03,04", "--deadline-s", "40", "--out", str(tmp_path)])
    assert summary["notebooks"] == {
        s: {"status": "skipped: out of time", "seconds": 0.0} for s in ("03_msd_powerset", "04_msd_cifar10_c_bar")
    }
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["notebooks"] == summary["notebooks"]
    assert (tmp_path / "results_gpu.tar.gz").is_file() and json.loads((tmp_path / "gpu_profile.json").read_text())


def test_gpu_profile_stop_ends_the_notebook_and_its_workers():
    """At the deadline the driver stops the notebook's whole process session, workers included (a grid's processes
    would otherwise keep the GPU busy after the notebook was given up)."""
    import os
    import subprocess
    import time

    root = paths.find_root()
    if str(root / "benchmarks") not in sys.path:
        sys.path.insert(0, str(root / "benchmarks"))
    gpu_profile = importlib.import_module("gpu_profile")
    # a parent that ignores SIGTERM and a worker of its session
    script = "trap '' TERM; sleep 300 & echo $!; wait"
    proc = subprocess.Popen(["bash", "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True)
    worker = int(proc.stdout.readline())
    t0 = time.perf_counter()
    gpu_profile.stop(proc, grace_s=0.5)
    assert proc.returncode is not None and time.perf_counter() - t0 < 10

    def running(pid: int) -> bool:  # a killed worker may linger as a zombie until its new parent reaps it
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            return True

    deadline = time.time() + 5
    while running(worker) and time.time() < deadline:
        time.sleep(0.05)
    assert not running(worker)


def test_the_lease_calibration_runs_on_the_cpu_and_chooses(tmp_path, capsys):
    """Issue 44, item 6: the lease's first minute (benchmarks/gpu_calibrate.py) runs on a CPU as it will on the
    GPU: every part measures a positive rate (or says why not) and the choice is one of the two ways to train many
    networks."""
    _load()
    gpu_calibrate = importlib.import_module("gpu_calibrate")
    got = gpu_calibrate.main(
        ["--budget-s", "2", "--out", str(tmp_path), "--procs", "2", "--group", "2", "--arch", "cnn_small",
         "--batch", "8", "--cert-arch", "cnn_small", "--cert-batches", "100,400"]
    )  # fmt: skip
    parts = got["parts"]
    assert parts["train_1proc"]["steps_per_s"] > 0 and parts["train_1proc"]["steps"] >= 8
    assert parts["train_nproc"]["processes"] == 2 and len(parts["train_nproc"]["per_process"]) == 2
    assert parts["train_nproc"]["steps_per_s"] > 0
    assert set(parts["certify"]) - {"wall_s"} == {"100", "400"}
    assert all(v["draws_per_s"] > 0 for k, v in parts["certify"].items() if k != "wall_s")
    fused = parts["train_fused"]
    assert "error" not in fused and fused["available"] and fused["G"] == 2 and fused["network_steps_per_s"] > 0
    assert got["choice"] in ("processes", "fused")
    saved = json.loads((tmp_path / "calibration.json").read_text())
    assert saved["choice"] == got["choice"] and saved["device"] == "cpu"
    with pytest.raises(ValueError, match="budget_s"):
        gpu_calibrate.calibrate(0)


def test_the_driver_keeps_the_lease_order_it_is_given_but_03_before_04():
    """Issue 44, item 6: a lease runs first what decides the most claims (09 before 02), and 04, whose baselines
    are 03's networks, never before 03."""
    _load()
    gpu_profile = importlib.import_module("gpu_profile")
    assert gpu_profile.stems_for("09,02") == ["09_acr_rs_training", "02_mscr_cifar10"]
    assert gpu_profile.stems_for("04,09,03") == ["03_msd_powerset", "04_msd_cifar10_c_bar", "09_acr_rs_training"]
    assert gpu_profile.stems_for("09_acr_rs_training") == ["09_acr_rs_training"]
    assert gpu_profile.stems_for("") == sorted(gpu_profile.stems_for("09,04,03,02"))
    with pytest.raises(ValueError, match="not defined for 05"):
        gpu_profile.stems_for("05")
