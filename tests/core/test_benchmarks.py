"""The benchmark scripts run and print their JSON summary (tiny sizes; timings are never asserted)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from robeval.core.paths import ROOT

CASES = {
    "bench_adaptive_mc.py": (
        ["--quick"],
        ["results", "total_row_ratio", "total_row_ratio_cs", "total_time_ratio", "max_gap_in_se_target"],
    ),
    "bench_realworld.py": (["--quick", "--rounds", "1"], ["ratios", "min_ratio", "results"]),
    "bench_smoothing.py": (["--repeats", "1", "--batch-size", "40"], ["ratio", "ratio_to_floor"]),
    "bench_msd.py": (["--images", "8", "--samples", "3", "--repeats", "1"], ["rates", "ratios_to_floor"]),
    "bench_corruptions.py": (
        ["--n", "20", "--only", "gaussian_noise", "fog", "ripple"],
        ["img_per_s", "prep_speedup", "prep_speedup_cold", "prep_cpu_ratio"],
    ),
    "bench_sequential.py": (
        ["--profile", "smoke", "--sets", "2", "--images", "3", "--n", "400", "--n0", "20"],
        ["results", "table_ratio_union", "table_ratio_betting", "table_ratio_per_radius"],
    ),
    "bench_fused.py": (
        ["--arch", "resnet8", "--G", "2", "--batch-size", "8", "--steps", "1"],
        ["ratio", "separate_ms_per_network_step", "fused_ms_per_network_step"],
    ),
    "bench_mscr.py": (
        ["--repeats", "1", "--n-jobs", "1", "--skip-brute", "--levels", "2"],
        ["ratio_protocol_to_floor", "separation_2r_x255"],
    ),
}


def _numbers(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _numbers(v)
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield obj


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(CASES))
def test_benchmark_prints_json(script):
    args, keys = CASES[script]
    path = ROOT / "benchmarks" / script
    proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    out = json.loads(last)
    for k in keys:
        assert k in out, f"{script}: key {k!r} missing from {sorted(out)}"
    nums = list(_numbers({k: out[k] for k in keys}))
    assert nums and all(math.isfinite(v) and v >= 0 for v in nums)
    if script == "bench_mscr.py":
        # the CIFAR-10 subset's minimal L_inf class separation, in grey levels (a fact of the data)
        assert out["separation_2r_x255"] == pytest.approx(71.0, abs=1e-6)
    if script == "bench_realworld.py":
        for r in out["results"]:
            assert 0 < r["serial_bound"] <= 1 and r["ratio_min"] <= r["ratio"] <= r["ratio_max"]


@pytest.mark.slow
def test_bench_train_step_runs_both_pin_settings_and_reruns_bit_identically():
    """Issue 63, item 3: the training-step benchmark measures the project's loops against a bare torch loop (the
    floor) with torch's ISA pins on and off, each in fresh processes, and the project's seeded loops rerun
    bit-identically within a process and across the processes of a setting (timings are never asserted)."""
    path = ROOT / "benchmarks" / "bench_train_step.py"
    proc = subprocess.run([sys.executable, str(path), "--quick"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("project_to_floor", "pinned_to_unpinned", "channels_last_to_nchw", "seconds"):
        nums = list(_numbers(out[key]))
        assert nums and all(math.isfinite(v) and v >= 0 for v in nums), key
    assert set(out["seconds"]) == {"pinned", "unpinned"}
    if out["cpu"]["avx512f"]:
        assert out["cpu"]["cpu_capability"]["pinned"] == "AVX2"
    for key, bits in out["bits"].items():
        assert all(bits["identical_in_process"].values()), key
