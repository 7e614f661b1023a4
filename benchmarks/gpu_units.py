"""The paper profile's GPU units, measured on the machine it runs on (issue #21, item 4).

Notebooks 02, 03, 04 and 09 need a GPU at the paper's scale. This script measures, on the GPU it finds (CPU
otherwise), what their cost models count, and a few units at the paper's own scale:

1. ``units``: :func:`robeval.dryrun.measure_units` of each experiment (one SGD step of the paper network at
   the paper batch, one image through it, 1000 certification samples, one corrupted image) and the
   extrapolated cost of the paper profile from them (:func:`robeval.dryrun.save_units`; on CUDA the step is
   the training loop's: channels-last, bf16 autocast);
2. ``certify``: one CERTIFY of notebook 09's paper protocol (ResNet-110, n0 = 100, N = 100,000, alpha = 0.001,
   the paper's eval batch) on one image, against the bare forward passes of the same number of inputs; and the
   throughput ratio of CERTIFY's counting loop to the bare forward pass, batch by batch (``bench_smoothing``);
3. ``epochs``: one training epoch on 50,000 images (the full-CIFAR-10 stand-in of the dry run) with the paper
   settings: WRN-28-10 at batch 32 with MSCR's uniform noise (02), WRN-40-2 at batch 128 (03/04), ResNet-110 with
   Gaussian noise, 64 images x 4 draws (09, ``train_rs``), and on request (``--epochs-of 09attack``) an epoch of
   09's attack variant with the attack active from the first step;
4. ``msd_inference``: notebooks 03/04's inference on the GPU (:func:`msd_inference`): that the network, its
   features and its batch-norm adaptation run there, agreement with the CPU, seconds per image at the GPU batch;
5. ``feature_scaling``: 03's MSD feature loop (CPU augmentation, GPU features) in 1, 4, 8 and 16 concurrent
   processes (:func:`feature_loop_scaling`): how far the grid's worker processes carry its CPU part;
6. ``train_scaling``: 03's WRN-40-2 training in 1, 4 and 16 concurrent processes on the one GPU
   (:func:`train_scaling`), the other half of what the grid's worker processes share;
7. ``aug_train_scaling``: the same with the augmentations 03 and 04 train with, applied on the CPU per batch
   (03's powerset scheme and Fig. 2b toy corruptions, 04's AugMix with its JSD step and AutoAugment);
8. ``dry_runs``: the dry runs of notebooks 02, 03, 04 and 09 (``ROBEVAL_DRY_RUN=1``, paper profile) executed on
   this machine, their code cells in order, each in its own process with a time limit — CUDA code paths that no
   CPU test reaches.

Every section has a share of ``--budget-s``; a section that fails or runs out of time is recorded as such and the
rest go on. Results: ``<out>/gpu_units.json``, ``<out>/<experiment>/units.json`` and ``<out>/dry_run.tar.gz``
(the dry runs' result files and executed cell outputs). The last line printed is the JSON summary.

Run: ``python benchmarks/gpu_units.py --out DIR`` (needs ``ROBEVAL_DATA_DIR`` with the CIFAR-10 subset).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

DRY = {
    "09_acr_rs_training": "acr_rs_training",
    "03_msd_powerset": "msd_powerset",
    "04_msd_cifar10_c_bar": "msd_cifar10_c_bar",
    "02_mscr_cifar10": "mscr_cifar10",
}


def _sync():
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def environment() -> dict:
    import torch

    from robeval.core.env import hardware_info

    info = {"torch": torch.__version__, "cuda": torch.cuda.is_available(), "hardware": hardware_info()}
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        info.update(gpu=p.name, gpu_memory_gib=round(p.total_memory / 2**30, 1), sms=p.multi_processor_count)
    return info


def units(out: Path, experiments) -> dict:
    from robeval import dryrun

    res = {}
    for exp in experiments:
        t0 = time.perf_counter()
        rec = dryrun.save_units(exp, out / exp, dryrun.measure_units(exp))
        res[exp] = {
            "units_s": rec["units_s"],
            "total_h": rec["total_h"],
            "device": rec["device"],
            "seconds": time.perf_counter() - t0,
        }
    return res


def certify(n: int, n0: int, batch: int, repeats: int) -> dict:
    """One CERTIFY of ResNet-110 on one image (n0, n, alpha = 0.001) vs the bare forward passes of as many inputs."""
    import numpy as np
    import torch

    from robeval.acr.smoothing import Smooth, image_generators
    from robeval.core.env import torch_device
    from robeval.core.nn import models

    dev = torch_device()
    torch.manual_seed(0)
    model = models.build("resnet110").to(dev).eval()
    x = torch.rand(1, 3, 32, 32, device=dev)
    smooth = Smooth(model, 10, 0.25, device=dev)
    full = x.expand(batch, -1, -1, -1).contiguous()

    def bare(total):
        with torch.no_grad():
            for start in range(0, total, batch):
                b = full[: min(batch, total - start)]
                model(b + 0.25 * torch.randn_like(b)).argmax(1)
        _sync()

    bare(batch)  # warm-up: cuDNN picks its algorithms per shape
    smooth.certify(x, n0=min(n0, 10), n=batch, alpha=0.001, batch_size=batch, seed=0)
    _sync()
    t0 = time.perf_counter()
    res = smooth.certify(x, n0=n0, n=n, alpha=0.001, batch_size=batch, seed=0)
    _sync()
    t_cert = time.perf_counter() - t0
    t0 = time.perf_counter()
    bare(n0 + n)
    t_bare = time.perf_counter() - t0
    # batch by batch, interleaved (bench_smoothing's protocol): CERTIFY's counting loop vs the bare forward pass
    gen = image_generators(0, np.arange(1), 0, dev)
    pre = full.clone()
    b_times, c_times = [], []
    for _ in range(repeats):
        _sync()
        t0 = time.perf_counter()
        with torch.no_grad():
            model(pre).argmax(1)
        _sync()
        b_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        smooth.sample_counts(x, batch, batch, gen)
        _sync()
        c_times.append(time.perf_counter() - t0)
    return {
        "arch": "resnet110",
        "n0": n0,
        "n": n,
        "batch": batch,
        "certify_s": t_cert,
        "bare_forward_s": t_bare,
        "ratio_bare_over_certify": t_bare / t_cert,
        "per_batch_bare_median_s": float(np.median(b_times)),
        "per_batch_certify_median_s": float(np.median(c_times)),
        "per_batch_ratio": float(np.median(b_times) / np.median(c_times)),
        "radius": float(np.asarray(res.radius).ravel()[0]),
    }


def epochs(n_images: int, which, warmup_images: int = 0) -> dict:
    """One training epoch of each paper network on ``n_images`` images of the stand-in, paper settings; with
    ``warmup_images``, each is preceded by an untimed epoch on that many images (cuDNN's algorithm search and
    first allocations then fall outside the timed epoch, which matters for short ones)."""
    import torch

    from robeval import dryrun
    from robeval.acr.training import rs_config, train_rs
    from robeval.core.nn import models, training
    from robeval.mscr.cifar import box_noise_transform

    x, y = dryrun.standin_arrays()[:2]
    x, y = x[:n_images], y[:n_images]
    res = {}

    def timed(name, fn, steps):
        if warmup_images:
            fn(x[:warmup_images], y[:warmup_images])
        _sync()
        t0 = time.perf_counter()
        fn(x, y)
        _sync()
        dt = time.perf_counter() - t0
        res[name] = {"seconds": dt, "images": int(n_images), "steps": int(steps), "s_per_step": dt / steps}
        res[name]["warmup_images"] = int(warmup_images)
        print(f"epoch {name}: {dt:.1f} s ({steps} steps)", flush=True)

    def core_epoch(experiment, name, **kw):
        """An epoch of robeval.core.nn.training.train with ``experiment``'s paper network, batch and learning rate."""
        p = dryrun.paper_settings(experiment)
        torch.manual_seed(0)
        m = models.from_config(p)
        bs = int(p["batch_size"])
        train = lambda xs, ys: training.train(
            m, xs, ys, epochs=1, batch_size=bs, lr=float(p["lr"]), progress=False, **kw
        )
        timed(name, train, -(-n_images // bs))

    if "02" in which:
        p02 = dryrun.paper_settings("mscr_cifar10")
        noise = box_noise_transform(0.01)
        core_epoch("mscr_cifar10", "02_wrn28_10", schedule="step", milestones=p02["milestones"], batch_transform=noise)
    if "03" in which:
        core_epoch("msd_powerset", "03_04_wrn40_2", nesterov=True)
    if "09" in which:
        p = dryrun.paper_settings("acr_rs_training")
        rs = rs_config({"variant": "gaussian", "sigma": float(p["sigmas"][0]), "seed": 0}, {**p, "epochs": 1})
        torch.manual_seed(0)
        m = models.from_config(p)
        timed(
            "09_resnet110_gaussian",
            lambda xs, ys: train_rs(m, xs, ys, rs, progress=False),
            -(-n_images // rs.batch_size),
        )
        res["09_resnet110_gaussian"]["inputs_per_step"] = rs.batch_size * rs.num_noise
    if "09attack" in which:
        # the attack on the noise sphere from the first epoch (T = 0): against a Gaussian epoch, this gives the
        # cost of the cost model's unit attack_step in the loop
        p = dryrun.paper_settings("acr_rs_training")
        sig = float(p["sigmas"][0])
        cell = {"variant": "attack", "sigma": sig, "seed": 0}
        rs = rs_config(cell, {**p, "epochs": 1, "discard_epoch": [0] * len(p["sigmas"])})
        torch.manual_seed(0)
        m = models.from_config(p)
        steps = -(-n_images // rs.batch_size)
        timed("09_resnet110_attack", lambda xs, ys: train_rs(m, xs, ys, rs, progress=False), steps)
        res["09_resnet110_attack"].update(attack_steps=rs.attack_steps, inputs_per_step=rs.batch_size * rs.num_noise)
    return res


def msd_inference(n_train: int = 5000, n_test: int = 1000, n_timed: int = 10000, n_adapt: int = 1000) -> dict:
    """Notebooks 03 and 04's inference on this machine's inference device (:func:`robeval.msd.nets.inference_device`):
    where the network, its features and its batch-norm adaptation run; how a WRN-40-2 trained one epoch on
    ``n_train`` stand-in images agrees between that device and the CPU's TorchScript copy on ``n_test`` images
    (labels, features, statistics adapted on ``n_adapt`` images); and seconds per image of features and labels at the device's batch
    (:func:`robeval.msd.nets.inference_batch`) against batches of 50, on ``n_timed`` images."""
    import numpy as np
    import torch

    from robeval import dryrun
    from robeval.core.nn import models, training
    from robeval.msd import nets

    dev = nets.inference_device()
    x, y, x_te = dryrun.standin_arrays()[:3]
    torch.manual_seed(0)
    net = models.build("wrn40_2")
    t0 = time.perf_counter()
    training.train(net, x[:n_train], y[:n_train], epochs=1, batch_size=128, lr=0.1, progress=False)
    train_s = time.perf_counter() - t0
    net = net.cpu().eval()
    xt = np.ascontiguousarray(x_te[:n_test])
    fast = nets.inference_model(net)
    cpu = nets.inference_model(net, "cpu")
    on_dev = nets.predict_fast(fast, xt)
    on_cpu = nets.predict_fast(cpu, xt)
    nhwc = xt.transpose(0, 2, 3, 1)
    f_dev = nets.feature_fn(net)(nhwc)
    f_cpu = nets.feature_fn(net, device="cpu")(nhwc)
    batches = list(nets.augmented_batches(x[:n_adapt], None, 0))
    bn_dev = nets.adapt_batchnorm(net, batches)
    bn_cpu = nets.adapt_batchnorm(net, batches, device="cpu")
    rm = lambda m: torch.cat([b.running_mean.float().cpu() for b in m.modules() if isinstance(b, torch.nn.BatchNorm2d)])

    def per_image(fn, arr):
        fn(arr[:1000])  # warm-up at the timed shapes
        _sync()
        t0 = time.perf_counter()
        fn(arr)
        _sync()
        return (time.perf_counter() - t0) / len(arr)

    big = np.ascontiguousarray(np.concatenate([x] * (-(-n_timed // len(x))))[:n_timed])
    big_nhwc = big.transpose(0, 2, 3, 1)
    out = {
        "device": str(dev),
        "batch": nets.inference_batch(),
        "model_device": str(nets.model_device(fast)),
        "adapted_device": str(nets.model_device(bn_dev)),
        "train_epoch_s": train_s,
        "label_agreement_with_cpu": float(np.mean(on_dev == on_cpu)),
        "test_accuracy": float(np.mean(on_dev == np.asarray(dryrun.standin_arrays()[3][:n_test]))),
        "feature_max_abs_diff": float(np.max(np.abs(f_dev - f_cpu))),
        "feature_max_abs": float(np.max(np.abs(f_cpu))),
        "adapted_mean_max_abs_diff": float(torch.max(torch.abs(rm(bn_dev) - rm(bn_cpu)))),
        "features_s_per_image": per_image(nets.feature_fn(net), big_nhwc),
        "features_s_per_image_batch50": per_image(nets.feature_fn(net, batch_size=50), big_nhwc),
        "labels_s_per_image": per_image(lambda a: nets.predict_fast(fast, a), big),
        "labels_s_per_image_batch50": per_image(lambda a: nets.predict_fast(fast, a, batch_size=50), big),
    }
    print(json.dumps(out), flush=True)
    return out


def _feature_worker(barrier, queue, n_instances: int) -> None:
    """One process of :func:`feature_loop_scaling`: a WRN-40-2 feature extractor on the inference device, one
    warm-up instance, then (after every process is ready) ``n_instances`` timed instances of the nine-op scheme
    on 100 images; puts (start, stop, images) on ``queue``."""
    import numpy as np
    import torch

    from robeval.core.nn import models
    from robeval.msd import distance, nets
    from robeval.transforms.augmentations import BASE_OPS

    torch.set_num_threads(1)  # the augmentation is single-threaded numpy; the forward pass runs on the device
    torch.manual_seed(0)
    fn = nets.feature_fn(models.build("wrn40_2"))
    images = np.random.default_rng(0).integers(0, 256, (100, 32, 32, 3), dtype=np.uint8)
    transform = distance.scheme_transform("+".join(BASE_OPS))
    distance.transform_features(fn, images, transform, np.random.default_rng(1), 1)
    barrier.wait()
    t0 = time.time()
    distance.transform_features(fn, images, transform, np.random.default_rng(2), n_instances)
    _sync()
    queue.put((t0, time.time(), n_instances * len(images)))


def _concurrent(worker, w: int, args: tuple, timeout: float) -> tuple[float, int]:
    """Run ``worker(barrier, queue, *args)`` in ``w`` spawned processes that start their timed part together;
    each puts (start, stop, units done) on the queue. Returns (wall seconds from the first start to the last
    stop, units done by all)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(w), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(barrier, queue, *args)) for _ in range(w)]
    for p in procs:
        p.start()
    res = [queue.get(timeout=timeout) for _ in procs]
    for p in procs:
        p.join()
    return max(r[1] for r in res) - min(r[0] for r in res), sum(r[2] for r in res)


def feature_loop_scaling(workers=(1, 4, 8, 16), n_instances: int = 100) -> dict:
    """Notebook 03's MSD feature loop in ``w`` concurrent processes sharing the machine's inference device (as
    the grid's ``n_jobs`` workers would): seconds per image of the whole machine, ``w`` processes together, for
    each ``w`` in ``workers``; each process runs :func:`_feature_worker`. The loop's augmentation runs on the CPU,
    so this says how far more processes carry it."""
    out = {}
    for w in workers:
        wall, images = _concurrent(_feature_worker, int(w), (n_instances,), timeout=600)
        out[str(w)] = {"workers": int(w), "images": images, "wall_s": wall, "s_per_image": wall / images}
        print(f"feature loop, {w} process(es): {wall / images * 1e6:.1f} us per image", flush=True)
    return out


def _augment_kwargs(augment: str) -> dict:
    """``training.train`` arguments of an augmentation as 03/04 train with it: ``"none"``, 04's methods
    (``"augmix"`` with its JSD step, ``"autoaugment"``, ``"patch_gaussian"``; :func:`robeval.msd.nets.augmentation_kwargs`),
    ``"scheme"`` (the nine-op powerset scheme of 03's retrainings) or ``"toy"`` (03's Fig. 2b fine-tuning: impulse
    noise or motion blur per image, half and half)."""
    from robeval.msd import nets
    from robeval.msd.distance import mixture_transform
    from robeval.transforms import augmentations as aug

    if augment == "toy":
        fn = mixture_transform(("impulse_noise", "motion_blur"), (0.5, 0.5))
        return {"batch_transform": aug.as_batch_transform(fn)}
    if augment == "scheme":
        return nets.augmentation_kwargs("+".join(aug.BASE_OPS), 0)
    return nets.augmentation_kwargs(augment, 0)


def _train_worker(barrier, queue, n_images: int, warmup_images: int, augment: str = "none") -> None:
    """One process of :func:`train_scaling`: a fresh WRN-40-2 trained with 03's paper settings (batch 128, lr,
    Nesterov) for one untimed epoch on ``warmup_images`` stand-in images, then (after every process is ready) one
    timed epoch on ``n_images``; puts (start, stop, steps) on ``queue``."""
    import torch

    from robeval import dryrun
    from robeval.core.nn import models, training

    p = dryrun.paper_settings("msd_powerset")
    x, y = dryrun.standin_arrays()[:2]
    torch.manual_seed(0)
    m = models.from_config(p)
    bs = int(p["batch_size"])

    kw = _augment_kwargs(augment)

    def epoch(n):
        training.train(
            m, x[:n], y[:n], epochs=1, batch_size=bs, lr=float(p["lr"]), nesterov=True, progress=False, threads=1, **kw
        )

    epoch(warmup_images)
    _sync()
    barrier.wait()
    t0 = time.time()
    epoch(n_images)
    _sync()
    queue.put((t0, time.time(), -(-n_images // bs)))


def train_scaling(workers=(1, 4, 16), n_images: int = 10000, warmup_images: int = 1000, augment: str = "none") -> dict:
    """03's WRN-40-2 training in ``w`` concurrent processes on the one GPU (as the grid's ``n_jobs`` workers would
    retrain schemes), with ``augment`` (:func:`_augment_kwargs`) on the CPU: seconds per SGD step of the whole
    machine, ``w`` processes together, for each ``w``."""
    out = {}
    for w in workers:
        wall, steps = _concurrent(_train_worker, int(w), (n_images, warmup_images, augment), timeout=900)
        out[str(w)] = {"workers": int(w), "steps": steps, "wall_s": wall, "s_per_step": wall / steps}
        print(f"training ({augment}), {w} process(es): {wall / steps * 1e3:.2f} ms per step", flush=True)
    return out


PARAMS_ENV = "ROBEVAL_GPU_UNITS_PARAMS"  # JSON object of notebook parameters for the dry runs (--params)


def notebook_params(text: str) -> dict:
    """``"n_jobs=4,seed=3"`` -> ``{"n_jobs": 4, "seed": 3}`` (values read as JSON, else kept as strings)."""
    out = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ValueError(f"--params takes NAME=VALUE pairs separated by commas, got {item!r}.")
        try:
            out[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[name.strip()] = value
    return out


DEADLINE_RC = 75  # a notebook whose grid stopped before the deadline (EX_TEMPFAIL: the next part goes on)


def _exec_notebook(stem: str, profile: str = "paper") -> int:
    """Run notebook ``stem``'s code cells in order in this process (``profile``, plus the parameters in
    ``$ROBEVAL_GPU_UNITS_PARAMS``), as papermill would (also benchmarks/gpu_profile.py's runner). Returns 0, or
    :data:`DEADLINE_RC` when a grid stopped before ``$ROBEVAL_GRID_DEADLINE`` (:class:`robeval.core.runs.DeadlineReached`)."""
    import matplotlib

    matplotlib.use("Agg")
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())

    def display(*objs):
        for o in objs:
            print(o if not hasattr(o, "to_string") else o.to_string(max_rows=20))

    from robeval.core.runs import DeadlineReached

    ns = {"__name__": "__main__", "display": display}
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        src = "".join(cell["source"])
        t0 = time.perf_counter()
        try:
            exec(compile(src, f"{stem}[{i}]", "exec"), ns)
        except DeadlineReached as exc:  # a grid left its last cells to the next part rather than start them
            print(f"--- {stem} cell {i}: stopped before the deadline: {exc}", flush=True)
            return DEADLINE_RC
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            ns["profile"] = profile
            ns.update(json.loads(os.environ.get(PARAMS_ENV) or "{}"))
        print(f"--- {stem} cell {i}: {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


def dry_runs(stems, cache: Path, sha: str, deadline: float, logs: Path, params: dict | None = None) -> dict:
    env = {
        **os.environ,
        PARAMS_ENV: json.dumps(params or {}),
        "ROBEVAL_DRY_RUN": "1",
        "ROBEVAL_CACHE_DIR": str(cache),
        "ROBEVAL_TEST_CIFAR10_SHA256": sha,
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
    }
    res = {}
    for stem in stems:
        left = deadline - time.time()
        if left < 20:
            res[stem] = {"status": "skipped: out of time"}
            continue
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, __file__, "--exec-notebook", stem],
                env=env,
                timeout=left,
                capture_output=True,
                text=True,
            )
            status = "ok" if proc.returncode == 0 else f"failed (rc {proc.returncode})"
            text = proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:
            status = "timed out"
            text = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        dt = time.perf_counter() - t0
        (logs / f"{stem}.log").write_text(text)
        tail = text.strip().splitlines()[-15:]
        res[stem] = {"status": status, "seconds": dt}
        print(f"== dry run {stem}: {status} in {dt:.0f} s", flush=True)
        if status != "ok":
            print("\n".join(tail), flush=True)
    return res


def summarize(folder: Path) -> dict:
    """``<folder>/estimate.json`` from the measured files there: per experiment the paper profile's cost from its
    units (``<experiment>_units.json``) and with the training step of the measured epoch (``run1_gpu_units.json``)
    and, for 09, the attack's ascent step measured in the loop (``attack_epochs.json``), counted by the current
    cost model (:func:`robeval.dryrun.loop_estimate`); for 03 and 04 also the hours of their training
    (with the CPU augmentation of its batches) and of 03's CPU-bound feature loop with w concurrent processes
    (``run4_feature_scaling.json``, ``run5_train_scaling.json``, ``run7_aug_train_scaling.json``), and their
    totals; prints a Markdown table of it. A unit that 03's record lacks (``corruption_image``, counted since) is
    04's, measured on the same machine (``corruption_image_from``)."""
    from robeval import dryrun
    from robeval.core.io import atomic_write_json

    run = json.loads((folder / "run1_gpu_units.json").read_text())
    epochs = run["sections"]["epochs"]["result"]
    # 09's attack step in the loop: (attack epoch - Gaussian epoch) per step / K, both after a warm-up epoch
    att = json.loads((folder / "attack_epochs.json").read_text())["runs"]
    gauss = [
        r["s_per_step"] for r in att if r["epoch"] == "09_resnet110_gaussian" and r["train_rs"].startswith("after")
    ]
    (attack,) = [r for r in att if r["epoch"] == "09_resnet110_attack"]
    attack_step = (attack["s_per_step"] - sum(gauss) / len(gauss)) / attack["attack_steps"]
    out = {}
    for exp in dryrun.EPOCH_OF:
        units = json.loads((folder / f"{exp}_units.json").read_text())
        extra = {"attack_step": attack_step} if exp == "acr_rs_training" else {}
        borrowed = None
        if exp == "msd_powerset" and "corruption_image" not in units["units_s"]:
            # measured before 03's cost model counted its corruptions: 04's unit, the same function timed on the
            # same machine (its mean runs over the 15 CIFAR-10-C and the 10 C-bar corruptions)
            borrowed = "msd_cifar10_c_bar_units.json"
            extra["corruption_image"] = json.loads((folder / borrowed).read_text())["units_s"]["corruption_image"]
        out[exp] = dryrun.loop_estimate(units, epochs, extra)
        if borrowed:
            out[exp]["corruption_image_from"] = borrowed
    # 03 and 04 with w concurrent processes sharing the GPU (their grids' n_jobs workers), as measured: the
    # training steps by the augmentation of their batches on the CPU (run5: none, run7: 03's scheme and toy, 04's
    # methods; 04's patch_gaussian, a cheap tensor operation, at the rate of none: not measured), and 03's feature
    # loop (run4); the totals for the process counts where every part was measured (one process included: the
    # units' total above leaves the CPU augmentation of the training batches out)
    rate = {}
    if (folder / "run5_train_scaling.json").is_file():
        rate["none"] = json.loads((folder / "run5_train_scaling.json").read_text())["sections"]["train_scaling"][
            "result"
        ]
    if (folder / "run7_aug_train_scaling.json").is_file():
        rate.update(
            json.loads((folder / "run7_aug_train_scaling.json").read_text())["sections"]["aug_train_scaling"]["result"]
        )
    feat = None
    if (folder / "run4_feature_scaling.json").is_file():
        feat = json.loads((folder / "run4_feature_scaling.json").read_text())["sections"]["feature_scaling"]["result"]
    for exp in ("msd_powerset", "msd_cifar10_c_bar"):
        est = out[exp]
        steps = dryrun.train_steps_by_augmentation(exp, dryrun.paper_settings(exp))
        of = {a: ("none" if a == "patch_gaussian" else a) for a in steps}
        if not all(a in rate for a in of.values()):
            continue
        ws = set.intersection(*(set(rate[a]) for a in of.values()))
        if exp == "msd_powerset":
            if feat is None:
                continue
            ws &= set(feat)
            est["feature_image_h_by_processes"] = {
                w: est["counts"]["feature_image"] * r["s_per_image"] / 3600.0 for w, r in feat.items()
            }
        order = sorted(ws, key=int)
        train = {w: sum(n * rate[of[a]][w]["s_per_step"] for a, n in steps.items()) / 3600.0 for w in order}
        est["train_step_h_by_processes"] = train
        rest = est["total_h"] - est["parts_h"]["train_step"] - est["parts_h"].get("feature_image", 0.0)
        feats = est.get("feature_image_h_by_processes", {})
        est["total_h_by_processes"] = {w: rest + train[w] + feats.get(w, 0.0) for w in order}
    atomic_write_json(folder / "estimate.json", out)
    print("| experiment | GPU | train step: unit / loop (s) | from units (h) | with the loop's steps (h) | parts (h) |")
    print("|---|---|---|---|---|---|")
    for exp, e in out.items():
        parts = ", ".join(f"{u} {h:.0f}" for u, h in e["parts_h"].items())
        if "total_h_by_processes" in e:
            parts += "; total with w processes: " + ", ".join(
                f"{w}: {h:.0f}" for w, h in e["total_h_by_processes"].items()
            )
        print(
            f"| {exp} | {e['device']} | {e['train_step_unit_s']:.4f} / {e['train_step_loop_s']:.4f} "
            f"({e['loop_over_unit']:.2f}x) | {e['unit_total_h']:.0f} | {e['total_h']:.0f} | {parts} |"
        )
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "gpu_units")
    ap.add_argument("--budget-s", type=float, default=480.0, help="wall seconds for everything")
    ap.add_argument(
        "--sections",
        default="units,certify,epochs,msd_inference,feature_scaling,train_scaling,aug_train_scaling,dry_runs",
    )
    ap.add_argument("--feature-workers", default="1,4,8,16", help="process counts of the feature_scaling section")
    ap.add_argument("--train-workers", default="1,4,16", help="process counts of the train_scaling section")
    ap.add_argument(
        "--train-augment", default="scheme,augmix,autoaugment,toy", help="aug_train_scaling's augmentations"
    )
    ap.add_argument("--train-images", type=int, default=10000, help="images per timed epoch of the scaling sections")
    ap.add_argument("--experiments", default="acr_rs_training,msd_powerset,msd_cifar10_c_bar,mscr_cifar10")
    ap.add_argument("--certify-n", type=int, default=100_000)
    ap.add_argument("--certify-n0", type=int, default=100)
    ap.add_argument("--certify-batch", type=int, default=0, help="0: the paper's eval_batch_size (1000)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--epoch-images", type=int, default=50_000)
    ap.add_argument("--warmup-images", type=int, default=0, help="an untimed epoch on this many images first")
    ap.add_argument("--epochs-of", default="09,03,02", help="which networks get an epoch: 02, 03 (= 04), 09, 09attack")
    ap.add_argument("--notebooks", default=",".join(DRY))
    ap.add_argument("--params", default="", help="notebook parameters of the dry runs, e.g. n_jobs=4")
    ap.add_argument("--exec-notebook", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--exec-profile", default="paper", help=argparse.SUPPRESS)
    ap.add_argument("--summarize", type=Path, default=None, help="write estimate.json from the measured files there")
    args = ap.parse_args(argv)
    if args.exec_notebook:
        raise SystemExit(_exec_notebook(args.exec_notebook, args.exec_profile))
    if args.summarize:
        return summarize(args.summarize)

    start = time.time()
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    summary = {"environment": environment(), "sections": {}}
    print(json.dumps(summary["environment"]), flush=True)
    sections = [s for s in args.sections.split(",") if s]
    # shares of the budget at which a section is no longer started
    latest = {"units": 0.35, "certify": 0.45, "epochs": 0.6, "msd_inference": 0.7, "feature_scaling": 0.75}
    latest.update(train_scaling=0.8, aug_train_scaling=0.85, dry_runs=0.95)

    def save():
        (out / "gpu_units.json").write_text(json.dumps(summary, indent=2, default=str))

    def section(name, fn):
        if name not in sections:
            return
        if time.time() - start > latest[name] * args.budget_s:
            summary["sections"][name] = {"status": "skipped: out of time"}
            save()
            return
        t0 = time.perf_counter()
        try:
            summary["sections"][name] = {"status": "ok", "result": fn(), "seconds": time.perf_counter() - t0}
        except Exception as exc:  # record and go on: one failure must not cost the other measurements
            traceback.print_exc()
            summary["sections"][name] = {"status": f"failed: {type(exc).__name__}: {exc}"}
        print(f"== {name}: {summary['sections'][name]['status']} ({time.perf_counter() - t0:.1f} s)", flush=True)
        save()

    from robeval import dryrun

    section("units", lambda: units(out, [e for e in args.experiments.split(",") if e]))
    batch = args.certify_batch or int(dryrun.paper_settings("acr_rs_training")["eval_batch_size"])
    section("certify", lambda: certify(args.certify_n, args.certify_n0, batch, args.repeats))
    section("epochs", lambda: epochs(args.epoch_images, args.epochs_of.split(","), args.warmup_images))
    section("msd_inference", msd_inference)
    workers = [int(w) for w in args.feature_workers.split(",") if w]
    section("feature_scaling", lambda: feature_loop_scaling(workers))
    train_workers = [int(w) for w in args.train_workers.split(",") if w]
    section("train_scaling", lambda: train_scaling(train_workers, args.train_images))
    section(
        "aug_train_scaling",
        lambda: {
            a: train_scaling(train_workers, args.train_images, min(1000, args.train_images), augment=a)
            for a in args.train_augment.split(",")
            if a
        },
    )
    if "dry_runs" in sections:
        scratch = Path(tempfile.mkdtemp(prefix="robeval-gpu-"))  # not under --out: only results come back
        cache = scratch / "cache"
        t0 = time.perf_counter()
        sha = dryrun.install_standin(cache)
        print(f"stand-in written in {time.perf_counter() - t0:.1f} s", flush=True)
        stems = [s for s in args.notebooks.split(",") if s]
        deadline = start + latest["dry_runs"] * args.budget_s
        params = notebook_params(args.params)
        section("dry_runs", lambda: dry_runs(stems, cache, sha, deadline, scratch, params))
        build = ROOT / "build" / "dry_run"
        with tarfile.open(out / "dry_run.tar.gz", "w:gz") as tf:
            if build.is_dir():
                for p in sorted(build.rglob("*")):
                    if p.is_file() and p.suffix in (".json", ".csv", ".ipynb", ".txt") and p.stat().st_size < 2**21:
                        tf.add(p, arcname=str(p.relative_to(build)))
            for log in sorted(scratch.glob("*.log")):
                tf.add(log, arcname=f"logs/{log.name}")
    summary["wall_s"] = time.time() - start
    save()
    line = {
        "device": summary["environment"].get("gpu", "cpu"),
        "wall_s": round(summary["wall_s"], 1),
        **{k: v.get("status") for k, v in summary["sections"].items()},
    }
    cert = summary["sections"].get("certify", {}).get("result")
    if cert:
        line["certify_ratio"] = round(cert["ratio_bare_over_certify"], 4)
        line["certify_per_batch_ratio"] = round(cert["per_batch_ratio"], 4)
    print(json.dumps(line))
    return summary


if __name__ == "__main__":
    main()
