"""The dry-run switch (ROBEVAL_DRY_RUN), where a dry run writes, and the per-unit cost extrapolation."""

from __future__ import annotations

import json
import math

import pytest

from robeval import dryrun
from robeval.core import paths, profiles

EXPERIMENTS = ("mscr_cifar10", "msd_powerset", "msd_cifar10_c_bar", "acr_rs_training")


def test_extrapolate_hand_computed():
    out = dryrun.extrapolate({"a": 2.0, "b": 0.5, "unused": 9.0}, {"a": 3, "b": 10})
    assert out["parts"]["a"] == {"unit_s": 2.0, "count": 3.0, "seconds": 6.0}
    assert out["parts"]["b"]["seconds"] == 5.0
    assert out["total_s"] == 11.0 and math.isclose(out["total_h"], 11.0 / 3600)
    assert "unused" not in out["parts"]


def test_extrapolate_rejects_bad_input():
    with pytest.raises(ValueError, match=r"no measured time.*\['b'\]"):
        dryrun.extrapolate({"a": 1.0}, {"a": 1, "b": 2})
    with pytest.raises(ValueError, match="finite and >= 0"):
        dryrun.extrapolate({"a": -1.0}, {"a": 1})
    with pytest.raises(TypeError, match="must be a number"):
        dryrun.extrapolate({"a": True}, {"a": 1})
    with pytest.raises(TypeError, match="mapping"):
        dryrun.extrapolate([1.0], {"a": 1})


def test_cost_models_of_the_paper_settings_hand_computed():
    # 02: 20 runs x 8 eps_train = 160 WRN-28-10s; 30 epochs of ceil(50000/32) = 1563 steps; 18 eps_test x 10000
    assert dryrun.counts_mscr_cifar10(dryrun.paper_settings("mscr_cifar10")) == {
        "train_step": 160 * 30 * 1563,
        "forward_image": 160 * 18 * 10000,
    }
    # 03: (3 runs + 512 schemes) x 100 epochs + 10 toy fractions x 3 runs x 100 epochs, of ceil(50000/128) = 391
    p03 = dryrun.counts_msd_powerset(dryrun.paper_settings("msd_powerset"))
    assert p03["train_step"] == 515 * 100 * 391 + 30 * 100 * 391 == 21_309_500
    # once for all schemes: 15 corruptions x 5 severities x 100 instances and Fig. 2b's 2 x 5 x 1000, on 100 images
    corr_features = (15 * 5 * 100 + 2 * 5 * 1000) * 100
    assert corr_features == 1_750_000
    assert p03["forward_image"] == 512 * 2 * 15 * 10000 + corr_features
    assert p03["corruption_image"] == 15 * 10000 + corr_features
    # every scheme's MSD: 100 images x 100000 augmentation samples, plus 10000 adaptation images
    assert p03["feature_image"] == 512 * (100 * 100000 + 10000) == 5_125_120_000
    # the same training steps by the augmentation of their batches: 3 default networks, 512 scheme retrainings, 30
    # toy fine-tunings (03); 10 runs of each of 04's four methods
    by = dryrun.train_steps_by_augmentation("msd_powerset", dryrun.paper_settings("msd_powerset"))
    assert by == {"none": 3 * 100 * 391, "scheme": 512 * 100 * 391, "toy": 30 * 100 * 391}
    assert sum(by.values()) == p03["train_step"]
    by = dryrun.train_steps_by_augmentation("msd_cifar10_c_bar", dryrun.paper_settings("msd_cifar10_c_bar"))
    assert by == dict.fromkeys(["none", "autoaugment", "augmix", "patch_gaussian"], 10 * 100 * 391)
    with pytest.raises(ValueError, match="no augmented training steps"):
        dryrun.train_steps_by_augmentation("mscr_cifar10", {"n_train": 1, "batch_size": 1})
    # 04: 10 runs x 4 methods trained 100 epochs from scratch; 25 corruptions x 10000 + the 45 x 10 x 10000 scan
    assert dryrun.counts_msd_cifar10_c_bar(dryrun.paper_settings("msd_cifar10_c_bar")) == {
        "train_step": 40 * 100 * 391,
        "forward_image": 40 * 25 * 10000 + 4_500_000,
        "corruption_image": 250_000 + 4_500_000,
    }
    # 09: 3 sigmas x 8 variants x 3 seeds = 72 ResNet-110s of 150 x ceil(50000/64) = 117300 steps; the 4 attack
    # variants x 3 seeds add K = 3, 6, 4 ascent steps (per sigma) per step from T = 60, 70, 60 on; noise samples:
    # CERTIFY 10000 images x (100 + 100000) per model, discarding (4 variants x 3 seeds x 3 sigmas, 50000 images x
    # 100 draws once at T), reweighting (4 variants x 3 seeds, 50000 x 16 draws at epochs T, T + 10, ... < 150:
    # 9 + 8 + 9 times), the easy/hard screening 5000 x 100 per model (all 8 variants), and the sections beyond
    # the paper at their upper bound: fixed N on 500 images, 3 radii x 10000 images, 100 table images per model
    p09 = dryrun.counts_acr_rs_training(dryrun.paper_settings("acr_rs_training"))
    assert p09["train_step"] == 72 * 117300 == 8_445_600
    assert p09["attack_step"] == 4 * 3 * (3 * 90 + 6 * 80 + 4 * 90) * 782 == 10_416_240
    samples = (
        72 * 10000 * 100100
        + 36 * 50000 * 100
        + 12 * (9 + 8 + 9) * 50000 * 16
        + 72 * 5000 * 100
        + 500 * 100100
        + 3 * 10000 * 100100
        + 72 * 100 * 100100
    )
    assert p09["certify_1000"] == pytest.approx(samples / 1000, rel=1e-12)
    assert samples == 76_311_370_000


def test_dry_run_switch(monkeypatch):
    monkeypatch.delenv("ROBEVAL_DRY_RUN", raising=False)
    assert not profiles.dry_run()
    paper = profiles.resolve("mscr_cifar10", "paper")
    assert not paper.dry_run and paper.epochs == 30 and paper.runs == 20
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    for exp in EXPERIMENTS:
        dry, full = profiles.resolve(exp, "paper"), dryrun.paper_settings(exp)
        assert dry.dry_run and dry.profile == "paper"
        # the paper's networks and full CIFAR-10 stay; every loop (and the dry loops' batch) is shorter — the
        # measured units use the paper's batch size (test_measure_units_use_the_paper_batch)
        assert dry.arch == full["arch"] and dry.batch_size <= full["batch_size"]
        assert dry.get("full_data", dry.get("full_cifar10")) is True
        assert dry.epochs < full["epochs"]
        assert "DRY RUN" in dry.scaled_down
    assert profiles.resolve("mscr_cifar10", "paper", epochs=2).epochs == 2  # overrides still apply on top
    assert not profiles.resolve("mscr_cifar10", "default").dry_run  # only the paper profile is cut
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "maybe")
    with pytest.raises(ValueError, match="ROBEVAL_DRY_RUN='maybe'"):
        profiles.dry_run()


def test_dry_run_needs_a_table(monkeypatch):
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    with pytest.raises(ValueError, match=r"no \[dry_run\] table"):
        profiles.resolve("mscr_2d", "paper")


def test_describe_says_dry_run(monkeypatch, capsys):
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    profiles.describe(profiles.resolve("acr_rs_training", "paper"))
    assert "DRY RUN" in capsys.readouterr().out.splitlines()[0]


def test_dry_run_writes_under_build_dry_run(tmp_results, monkeypatch):
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    assert paths.results_dir("paper") == tmp_results / "build_dir" / "dry_run"
    assert paths.figures_dir("paper") == tmp_results / "build_dir" / "dry_run" / "figures"
    assert paths.results_dir("default") == tmp_results / "results_dir" / "default"
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "0")
    assert paths.results_dir("paper") == tmp_results / "results_dir" / "paper"


def test_save_units_writes_the_extrapolation(tmp_path, capsys):
    units = {"train_step": 0.5, "forward_image": 0.001}
    rec = dryrun.save_units("mscr_cifar10", tmp_path, units)
    saved = json.loads((tmp_path / "units.json").read_text())
    expected = 0.5 * 160 * 30 * 1563 + 0.001 * 160 * 18 * 10000
    assert math.isclose(saved["total_s"], expected) and math.isclose(rec["total_h"], expected / 3600)
    assert saved["units_s"] == units
    assert set(saved["unit_what"]) == set(units) and "wrn28_10" in saved["unit_what"]["train_step"]
    assert "extrapolated paper profile" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no cost model"):
        dryrun.save_units("mscr_2d", tmp_path, units)


def test_time_call_and_bad_input():
    assert dryrun.time_call(lambda: sum(range(1000)), repeats=2) > 0
    with pytest.raises(TypeError, match="callable"):
        dryrun.time_call(3)
    with pytest.raises(ValueError, match="repeats"):
        dryrun.time_call(lambda: None, repeats=0)


def test_measure_units_use_the_paper_batch(monkeypatch):
    """Whatever the dry run's own loops use, the units are the paper's: its network at its batch size."""
    calls = []
    monkeypatch.setattr(
        dryrun,
        "train_step_seconds",
        lambda arch, b, mixed_precision, **kw: calls.append(("train", arch, b, mixed_precision)) or 1.0,
    )
    monkeypatch.setattr(dryrun, "forward_image_seconds", lambda arch, b, **kw: calls.append(("fwd", arch, b)) or 0.1)
    monkeypatch.setattr(dryrun, "corruption_image_seconds", lambda names: calls.append(("corrupt", len(names))) or 0.2)
    monkeypatch.setattr(dryrun, "attack_step_seconds", lambda arch, b: calls.append(("attack", arch, b)) or 0.5)
    monkeypatch.setattr(dryrun, "feature_image_seconds", lambda arch, **kw: calls.append(("feat", arch)) or 0.3)
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    expected = {
        # the step as each loop runs it on a GPU: bf16 autocast in core.training.train, float32 in 09's train_rs
        "mscr_cifar10": [("train", "wrn28_10", 32, True), ("fwd", "wrn28_10", 50)],
        "msd_powerset": [("train", "wrn40_2", 128, True), ("fwd", "wrn40_2", 50), ("feat", "wrn40_2"), ("corrupt", 15)],
        "msd_cifar10_c_bar": [("train", "wrn40_2", 128, True), ("fwd", "wrn40_2", 50), ("corrupt", 25)],
        "acr_rs_training": [
            ("train", "resnet110", 64 * 4, False),
            ("fwd", "resnet110", 50),
            ("attack", "resnet110", 64 * 4),
            ("fwd", "resnet110", 100),
        ],
    }
    for exp, want in expected.items():
        calls.clear()
        units = dryrun.measure_units(exp)
        assert calls == want, exp
        assert set(dryrun.describe_units(exp)) == set(units)
    assert dryrun.measure_units("acr_rs_training")["certify_1000"] == pytest.approx(100.0)  # 1000 x 0.1 s
    assert "64 images x 4 noise draws = 256 inputs" in dryrun.describe_units("acr_rs_training")["train_step"]
    with pytest.raises(ValueError, match="no cost model"):
        dryrun.measure_units("mscr_2d")


def test_unit_timers_on_a_small_network(monkeypatch):
    assert dryrun.train_step_seconds("cnn_small", 4, warmup=1, width=4) > 0
    assert dryrun.forward_image_seconds("cnn_small", 4, width=4) > 0
    assert dryrun.feature_image_seconds("cnn_small", 1, n_images=4, width=4) > 0
    # the MSD experiments time the batch their code runs on the machine: 50 on a CPU, 1000 on a GPU
    assert dryrun.forward_batch("msd_powerset") == dryrun.forward_batch("mscr_cifar10") == 50
    monkeypatch.setattr("robeval.core.env.torch_device", lambda prefer=None: __import__("torch").device("cuda"))
    assert dryrun.forward_batch("msd_cifar10_c_bar") == 1000 and dryrun.forward_batch("acr_rs_training") == 50
    with pytest.raises(ValueError, match="warmup"):
        dryrun.train_step_seconds("cnn_small", 4, warmup=-1, width=4)


def test_units_name_the_machine_that_measured_them():
    """units.json says which GPU measured the units (a GPU's record once said "cpu": hardware_info has no
    "device" key), or which CPU."""
    assert dryrun._device_name({"gpu": "NVIDIA H200", "cpu": "x86_64", "cpu_count": 16}) == "NVIDIA H200"
    assert dryrun._device_name({"gpu": None, "cpu": "x86_64", "cpu_count": 2}) == "CPU (x86_64, 2 cores)"


def test_loop_estimate_replaces_the_step_unit_by_the_measured_epoch():
    units = {
        "experiment": "acr_rs_training",
        "device": "NVIDIA H200",
        "units_s": {"train_step": 0.04, "certify_1000": 0.025},  # a record from before attack_step was a unit
        "total_h": 1.0,
    }
    epochs = {"09_resnet110_gaussian": {"seconds": 56.0, "steps": 800}}  # 0.07 s per step in the loop
    counts = dryrun.counts_acr_rs_training(dryrun.paper_settings("acr_rs_training"))
    est = dryrun.loop_estimate(units, epochs, {"attack_step": 0.03})
    assert est["train_step_loop_s"] == pytest.approx(0.07) and est["loop_over_unit"] == pytest.approx(1.75)
    assert est["counts"] == counts and est["unit_s"] == pytest.approx(
        {"train_step": 0.07, "attack_step": 0.03, "certify_1000": 0.025}
    )
    want = {u: counts[u] * est["unit_s"][u] / 3600 for u in counts}
    assert est["parts_h"] == pytest.approx(want) and est["total_h"] == pytest.approx(sum(want.values()))
    with pytest.raises(ValueError, match=r"no measured time for the counted unit\(s\) \['attack_step'\]"):
        dryrun.loop_estimate(units, epochs)
    with pytest.raises(ValueError, match="hold no '09_resnet110_gaussian'"):
        dryrun.loop_estimate(units, {})
    with pytest.raises(ValueError, match="positive 'seconds' and 'steps'"):
        dryrun.loop_estimate(units, {"09_resnet110_gaussian": {"seconds": 1.0, "steps": 0}})
    with pytest.raises(ValueError, match="no measured epoch"):
        dryrun.loop_estimate({**units, "experiment": "mscr_2d"}, epochs)


def test_attack_step_timer_on_a_small_network():
    assert dryrun.attack_step_seconds("resnet8", 4) > 0
