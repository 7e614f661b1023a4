"""The corruption preparation of notebooks 03 and 04 in worker processes (issue 44): bit-identical to the serial
output for every n_jobs and chunk size, and the serial output is what the code before the change produced."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from robeval.msd import cbar, nets
from robeval.msd.distance import corruption_features
from robeval.transforms.corruptions import C_CORRUPTIONS, CBAR_CORRUPTIONS

N = 23  # real test images; chunk sizes 7 and 4 do not divide it


@pytest.fixture(scope="module")
def x_test():
    from robeval.core.data import load_cifar10_subset

    _, _, x, y = load_cifar10_subset(layout="NHWC")
    return x[:N], np.asarray(y[:N])


def _digest(arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def test_corrupted_sets_are_identical_for_every_n_jobs(x_test, tmp_path, monkeypatch):
    x, _ = x_test
    names = list(C_CORRUPTIONS) + list(CBAR_CORRUPTIONS)
    levels = cbar.calibration_levels(1.3)  # the calibrated C-bar of notebook 04 (alpha != 1)
    serial = [a for _, a in nets.corrupt_diagonal_many(x, names, 0, levels=levels, n_jobs=1)]
    for n_jobs, chunk in ((2, 7), (2, None), (1, 4)):
        got = list(nets.corrupt_diagonal_many(x, names, 0, levels=levels, n_jobs=n_jobs, chunk=chunk))
        assert [n for n, _ in got] == names
        assert _digest(a for _, a in got) == _digest(serial), (n_jobs, chunk)
    # the cached test set file: the same arrays for 1 and 2 processes, and n_jobs is not part of its name
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))
    kw = {"n_test": N, "full_data": False, "seed": 0, "levels": {"ripple": levels["ripple"]}}
    p1 = nets.corrupted_test_set(["fog", "ripple"], **kw)
    with np.load(p1) as f:
        first = {k: f[k] for k in f.files}
    p1.unlink()
    p2 = nets.corrupted_test_set(["fog", "ripple"], n_jobs=2, **kw)
    assert p2 == p1
    with np.load(p2) as f:
        assert all(np.array_equal(f[k], first[k]) for k in first)


def test_corruption_features_are_identical_for_every_n_jobs(x_test):
    x, _ = x_test
    calls = {}

    def recording(key):
        h = calls.setdefault(key, hashlib.sha256())

        def feature_fn(images):
            h.update(repr(images.shape).encode() + images.tobytes())
            return images.reshape(len(images), -1, 3).mean(1).astype(np.float64)

        return feature_fn

    args = (x[:5], ["impulse_noise", "motion_blur"], (1, 4), 7, nets.keyed_state(0, "toy_pool"))
    ref = corruption_features(recording("serial"), *args, batch_size=12, progress=False)
    for n_jobs, chunk in ((2, 3), (2, None)):
        key = f"{n_jobs}/{chunk}"
        got = corruption_features(recording(key), *args, batch_size=12, progress=False, n_jobs=n_jobs, chunk=chunk)
        assert np.array_equal(got, ref)
        assert calls[key].hexdigest() == calls["serial"].hexdigest()  # the same batches reach the network


def test_calibration_error_is_identical_for_every_n_jobs(x_test):
    import torch

    x, y = x_test
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 10)).eval()
    names = list(CBAR_CORRUPTIONS[:3])
    one = cbar.mean_cbar_error(model, x, y, 1.7, 11, names)
    assert cbar.mean_cbar_error(model, x, y, 1.7, 11, names, n_jobs=2) == one


def test_prepare_powerset_writes_the_same_files_for_every_n_jobs(tmp_path, monkeypatch, request):
    """Notebook 03's preparation end to end (tiny networks): the corrupted test set, the corruption features and
    the Fig. 2b pool are byte-identical with 1 and 2 processes."""
    import torch

    from robeval.msd import powerset

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny batches: more threads only spin on a loaded machine
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    settings = {
        "arch": "cnn_small",
        "width": 4,
        "epochs": 1,
        "batch_size": 32,
        "lr": 0.05,
        "weight_decay": 5e-4,
        "n_train": 64,
        "full_data": False,
        "train_threads": 1,
        "n_runs": 1,
        "seed": 0,
        "n_test": N,
        "corruptions": ["impulse_noise", "glass_blur"],
        "n_feature_images": 3,
        "n_corruption_samples": 3,
        "toy_pool_samples": 5,
        "n_adapt": 16,
        "n_aug_samples": 4,
        "mode": "composite",
        "severity": 3.0,
        "retrain_init": "base",
        "retrain_epochs": 1,
        "toy_epochs": 1,
    }
    files = {}
    for n_jobs in (1, 2):
        config = powerset.prepare_powerset(settings, tmp_path / f"work{n_jobs}", n_jobs=n_jobs, progress=False)
        paths = [config[k] for k in ("test_path", "corr_features_path", "toy_pool_path")]
        for path in paths:
            with np.load(path) as f:
                files[n_jobs, path.rsplit("/", 1)[-1]] = {k: f[k] for k in f.files}
        Path(config["test_path"]).unlink()  # the test set is cached by recipe: make the second run build it
    for (n_jobs, name), arrays in files.items():
        if n_jobs == 2:
            ref = files[1, name]
            assert sorted(arrays) == sorted(ref) and all(np.array_equal(arrays[k], ref[k]) for k in ref), name


# sha256 of the outputs of the serial code on main before the parallel preparation (commit e1fe9b6), under the
# CPU pins: corrupt_diagonal of 23 test images by the 15 CIFAR-10-C corruptions (seed 0) and by the 10 C-bar
# corruptions at alpha 1.3 (seed 5); corruption_features' feature-extractor batches and its result
MAIN = {
    "c_diag": "88e19e55823886274dbe7776b287f9174f4356071d4b13e169a94661b8d12a66",
    "cbar_diag": "b04beb18c8df20ca255c79159a5fe020a8e13bc1924f36ec9e25cffb6dbbd46b",
    "features_calls": "d5e971db33f561cadae3c99bb563c739ca459a482b6f4583625bc59690fbd35e",
    "features": "cf6f11467346c038ec73731317ff395fad17391e1ae1b2a05c4f20beac032a27",
}

SCRIPT = textwrap.dedent(
    """
    import hashlib, json, sys
    from robeval.core.env import pin_cpu_kernels
    pin_cpu_kernels()
    import numpy as np
    from robeval.core.data import load_cifar10_subset
    from robeval.msd import cbar, nets
    from robeval.msd.distance import corruption_features
    from robeval.transforms.corruptions import C_CORRUPTIONS, CBAR_CORRUPTIONS

    x = load_cifar10_subset(layout="NHWC")[2][:23]


    def hashes(n_jobs):
        out = {}
        h = hashlib.sha256()
        for _, a in nets.corrupt_diagonal_many(x, C_CORRUPTIONS, 0, n_jobs=n_jobs):
            h.update(a.tobytes())
        out["c_diag"] = h.hexdigest()
        h = hashlib.sha256()
        for _, a in nets.corrupt_diagonal_many(x, CBAR_CORRUPTIONS, 5, levels=cbar.calibration_levels(1.3), n_jobs=n_jobs):
            h.update(a.tobytes())
        out["cbar_diag"] = h.hexdigest()
        rec = hashlib.sha256()

        def feat(images):
            rec.update(repr(images.shape).encode())
            rec.update(images.tobytes())
            return images.reshape(len(images), -1, 3).mean(1).astype(np.float64)

        f = corruption_features(feat, x[:4], ["impulse_noise", "motion_blur", "frost"], (1, 3, 5), 5,
                                nets.keyed_state(0, "cf"), batch_size=12, progress=False, n_jobs=n_jobs)
        out["features_calls"] = rec.hexdigest()
        out["features"] = hashlib.sha256(np.ascontiguousarray(f).tobytes()).hexdigest()
        return out


    print(json.dumps([hashes(1), hashes(2)]))
    """
)


def test_the_preparation_gives_what_main_gave():
    """In a fresh process under the CPU pins (as `robeval run` and the notebooks' kernel), the serial and the
    parallel paths hash to the values the serial code gave before the change: the committed results stay valid."""
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    serial, two = json.loads(proc.stdout.strip().splitlines()[-1])
    assert serial == MAIN
    assert two == MAIN
