"""benchmarks/gpu_units.py runs on a CPU too (it is taken to a lent GPU as one prepared script, so it must not
fail there for a reason a CPU run shows), and the committed GPU estimate follows from the committed measurements."""

import importlib.util
import json

import pytest

from robeval.core import paths


def _load():
    root = paths.find_root()
    spec = importlib.util.spec_from_file_location("gpu_units", root / "benchmarks" / "gpu_units.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, root


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
