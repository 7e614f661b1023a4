"""Dry runs of the paper profile: measured per-unit costs and the extrapolated cost of the full protocol.

A dry run (``ROBEVAL_DRY_RUN=1`` with the ``paper`` profile, see :mod:`robeval.core.profiles`) executes every
code path of the paper profile with its loops cut short. This module measures the *units* the full protocol is
made of — one SGD step of the paper's network at the paper's batch size, one image through the network, ... —
and multiplies them by the unit counts of the ``[paper]`` settings (a per-experiment cost model, :data:`COST_MODELS`).
The result, ``build/dry_run/<experiment>/units.json``, is an extrapolation from measured units on this machine,
not a measurement of the full run: it leaves out start-up, I/O and everything the cost model does not count.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from robeval.core.profiles import load_table


def time_call(fn: Callable[[], Any], repeats: int = 1) -> float:
    """Wall seconds per call of ``fn()`` (the minimum over ``repeats`` calls: the least disturbed one)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}; pass e.g. lambda: model(x).")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}.")
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def extrapolate(unit_seconds: Mapping[str, float], counts: Mapping[str, float]) -> dict[str, Any]:
    """The cost of ``counts[u]`` units of each kind ``u``, each taking ``unit_seconds[u]`` seconds.

    Returns ``{"parts": {u: {"unit_s", "count", "seconds"}}, "total_s": float, "total_h": float}`` (seconds
    of wall time on the machine that measured the units). Every counted unit must have been measured
    (ValueError naming the missing ones); unit times and counts must be finite and ≥ 0.
    """
    for name, table in (("unit_seconds", unit_seconds), ("counts", counts)):
        if not isinstance(table, Mapping):
            raise TypeError(f"{name} must be a mapping unit -> number, got {type(table).__name__}.")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name}[{key!r}] must be a number, got {value!r}.")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}[{key!r}] must be finite and >= 0, got {value!r}.")
    missing = sorted(set(counts) - set(unit_seconds))
    if missing:
        raise ValueError(
            f"no measured time for the counted unit(s) {missing}; measure them (measured: {sorted(unit_seconds)})."
        )
    parts = {
        u: {"unit_s": float(unit_seconds[u]), "count": float(c), "seconds": float(unit_seconds[u]) * float(c)}
        for u, c in counts.items()
    }
    total = sum(p["seconds"] for p in parts.values())
    return {"parts": parts, "total_s": total, "total_h": total / 3600.0}


def paper_settings(experiment: str) -> dict[str, Any]:
    """``[common]`` updated by ``[paper]`` of ``experiment`` — the full protocol, whatever ``ROBEVAL_DRY_RUN`` says."""
    table = load_table(experiment)
    values = dict(table.get("common", {}))
    values.update(table.get("paper", {}))
    return values


def _steps(n: int, batch_size: int) -> int:
    return -(-int(n) // int(batch_size))


# --------------------------------------------------------------------------------------------- cost models
# Each maps the [paper] settings to unit counts. Units: train_step = one SGD step of the paper network at the
# paper batch size; forward_image = one image through the network in eval mode; the others are named per model.
N_TRAIN, N_TEST = 50000, 10000  # full CIFAR-10


def counts_mscr_cifar10(p: Mapping[str, Any]) -> dict[str, float]:
    """02: ``runs x len(eps_train)`` WRN-28-10 trainings of ``epochs`` x ceil(50000 / batch_size) steps, each tested
    at every eps_test level (18, the CSV's rows) on the 10000 test images. Not counted: the separation (~1 min on
    a GPU by the settings' estimate)."""
    n_models = int(p["runs"]) * len(p["eps_train"])
    n_eps_test = 18
    return {
        "train_step": n_models * int(p["epochs"]) * _steps(p.get("n_train") or N_TRAIN, p["batch_size"]),
        "forward_image": n_models * n_eps_test * (p.get("n_test") or N_TEST),
    }


def counts_msd_powerset(p: Mapping[str, Any]) -> dict[str, float]:
    """03: ``n_runs`` default networks plus one retraining per scheme (all ``n_schemes``) plus the Fig. 2b toy
    trainings (``len(toy_error_fractions) x n_runs`` of ``toy_epochs``), all WRN-40-2 at ``batch_size``; every
    scheme tested on ``n_test`` x 15 corruptions twice (batch-norm adaptation and retraining:
    ``forward_image``); per scheme, its MSD from ``n_feature_images x n_aug_samples`` feature images and the
    batch-norm adaptation's ``n_adapt`` images, each augmented on the CPU and passed through the network once
    (``feature_image``, the loop of :func:`robeval.msd.distance.transform_features`). Once for all schemes
    (:func:`robeval.msd.powerset.prepare_powerset`), corrupted on the CPU (``corruption_image``): the test set
    (``n_test`` per corruption), the corruption features (``n_corruption_samples`` instances of every corruption
    and severity on the ``n_feature_images``) and Fig. 2b's pool (``toy_pool_samples`` of 2 corruptions x 5
    severities on them); the features of the last two also pass through the network (``forward_image``)."""
    steps = _steps(p["n_train"], p["batch_size"])
    trainings = int(p["n_runs"]) + int(p["n_schemes"])
    toy = len(p["toy_error_fractions"]) * int(p["n_runs"])
    n_corr = len(p["corruptions"])
    n_img = int(p["n_feature_images"])
    corr_features = (n_corr * int(p["n_corruption_samples"]) + 2 * int(p["toy_pool_samples"])) * 5 * n_img
    return {
        "train_step": trainings * int(p["epochs"]) * steps + toy * int(p["toy_epochs"]) * steps,
        "forward_image": int(p["n_schemes"]) * 2 * n_corr * int(p["n_test"]) + corr_features,
        "feature_image": int(p["n_schemes"]) * (n_img * int(p["n_aug_samples"]) + int(p["n_adapt"])),
        "corruption_image": n_corr * int(p["n_test"]) + corr_features,
    }


def counts_msd_cifar10_c_bar(p: Mapping[str, Any]) -> dict[str, float]:
    """04: ``n_runs x len(augmentations)`` WRN-40-2 trainings from scratch (``epochs`` x ceil(n_train / batch_size)
    steps) tested on CIFAR-10-C (15) and C-bar (10) of ``n_test`` images; the corruption of those test sets and
    of the severity scan (45 corruptions x ``n_scan_levels`` x ``n_scan`` images, each also classified)."""
    n_models = int(p["n_runs"]) * len(p["augmentations"])
    epochs = int(p["finetune_epochs"]) or int(p["epochs"])
    scan_images = 45 * int(p["n_scan_levels"]) * int(p["n_scan"])
    return {
        "train_step": n_models * epochs * _steps(p["n_train"], p["batch_size"]),
        "forward_image": n_models * 25 * int(p["n_test"]) + scan_images,
        "corruption_image": 25 * int(p["n_test"]) + scan_images,
    }


def counts_acr_rs_training(p: Mapping[str, Any]) -> dict[str, float]:
    """09: ``len(sigmas) x len(variants) x len(seeds)`` ResNet-110 trainings of ``epochs`` x ceil(n_train /
    batch_size) steps of ``batch_size x num_noise`` noisy inputs (``train_step``); the attack variants' ascent steps
    on the noise sphere (``attack_step``: ``attack_steps`` K per training step, from the warm-up epoch T =
    ``discard_epoch`` on, per sigma). Noise samples through the network (``certify_1000``, unit: 1000): CERTIFY of
    every model on ``n_test`` images with ``cert_n0 + cert_n`` samples; p_A of the training images for discarding
    (``discard_draws`` each, once at T) and for reweighting (``reweight_draws`` each, every ``reweight_every``
    epochs from T; counted on all ``n_train`` images, an upper bound after discarding); the easy/hard screening of
    ``grad_pool x grad_draws`` for every model of ``grad_variants``; and the sections beyond the paper at their
    upper bound (every run to ``n_max = seq_n_max``; the measured mean is about half of it at default): fixed N on
    ``seq_fixed_images``, one :func:`~robeval.acr.sequential.certify_radius` per radius of ``seq_radii`` on
    ``seq_images``, one :func:`~robeval.acr.sequential.certify_table` per model on ``seq_table_images``. Not
    counted: the gradient norms themselves (a few thousand single-image backward passes per model, < 0.1% of
    the training steps)."""
    from robeval.acr.training import variant_flags

    sigmas, variants, seeds = list(p["sigmas"]), list(p["variants"]), len(p["seeds"])
    epochs, n_train = int(p["epochs"]), int(p["n_train"])
    per_epoch = _steps(n_train, p["batch_size"])
    n_models = len(sigmas) * len(variants) * seeds
    flags = [variant_flags(v) for v in variants]

    def per_sigma(key, k):
        v = p[key]
        return v[k] if isinstance(v, (list, tuple)) else v

    attack = discard = reweight = 0
    for k in range(len(sigmas)):
        t = int(per_sigma("discard_epoch", k))
        active = max(epochs - t, 0)
        n_reweights = len(range(t, epochs, int(p["reweight_every"])))
        for f in flags:
            attack += f["attack"] * int(per_sigma("attack_steps", k)) * active * per_epoch * seeds
            discard += f["discard"] * (t < epochs) * n_train * int(p["discard_draws"]) * seeds
            reweight += f["reweight"] * n_reweights * n_train * int(p["reweight_draws"]) * seeds
    n0, n_max = int(p["cert_n0"]), int(p.get("seq_n_max", 0))
    grad_models = len(sigmas) * len([v for v in p.get("grad_variants", variants) if v in variants]) * seeds
    samples = (
        n_models * int(p["n_test"]) * (n0 + int(p["cert_n"]))
        + discard
        + reweight
        + grad_models * int(p.get("grad_pool", 0)) * int(p.get("grad_draws", 0))
        + int(p.get("seq_fixed_images", 0)) * (n0 + n_max)
        + int(p.get("seq_images", 0)) * len(p.get("seq_radii", [])) * (n0 + n_max)
        + n_models * int(p.get("seq_table_images", 0)) * (n0 + n_max)
    )
    return {"train_step": n_models * epochs * per_epoch, "attack_step": attack, "certify_1000": samples / 1000.0}


def train_steps_by_augmentation(experiment: str, p: Mapping[str, Any]) -> dict[str, int]:
    """The ``train_step`` count of 03 or 04 split by the augmentation each step's batch gets on the CPU first:
    03: ``"none"`` (the ``n_runs`` default networks), ``"scheme"`` (the ``n_schemes`` retrainings of
    ``retrain_epochs``), ``"toy"`` (Fig. 2b's fine-tunings with impulse noise or motion blur); 04: one entry per
    method of ``augmentations``. The parts sum to the cost model's ``train_step``."""
    steps = _steps(p["n_train"], p["batch_size"])
    if experiment == "msd_powerset":
        return {
            "none": int(p["n_runs"]) * int(p["epochs"]) * steps,
            "scheme": int(p["n_schemes"]) * int(p["retrain_epochs"]) * steps,
            "toy": len(p["toy_error_fractions"]) * int(p["n_runs"]) * int(p["toy_epochs"]) * steps,
        }
    if experiment == "msd_cifar10_c_bar":
        epochs = int(p["finetune_epochs"]) or int(p["epochs"])
        return {str(a): int(p["n_runs"]) * epochs * steps for a in p["augmentations"]}
    raise ValueError(f"no augmented training steps for {experiment!r}; known: msd_powerset, msd_cifar10_c_bar.")


COST_MODELS: dict[str, Callable[[Mapping[str, Any]], dict[str, float]]] = {
    "mscr_cifar10": counts_mscr_cifar10,
    "msd_powerset": counts_msd_powerset,
    "msd_cifar10_c_bar": counts_msd_cifar10_c_bar,
    "acr_rs_training": counts_acr_rs_training,
}


# --------------------------------------------------------------------------------------------- measurements
CPU_WARMUP_BATCH = 8  # inputs of a CPU warm-up step (train_step_seconds)


def train_step_seconds(
    arch: str,
    batch_size: int,
    *,
    steps: int | None = None,
    warmup: int | None = None,
    threads: int = 0,
    device=None,
    mixed_precision: bool = True,
    **model_kwargs,
) -> float:
    """Seconds of one SGD step (forward, cross-entropy, backward, update) of a fresh ``arch`` at ``batch_size``
    float32 inputs (3, 32, 32): ``warmup`` untimed steps (first-call allocations, cuDNN's algorithm search), then
    the least of ``steps`` timed steps, with ``threads`` torch threads (0: the training default). ``device``:
    default CUDA when present, else CPU. On CUDA with ``mixed_precision`` the step is
    :func:`robeval.core.nn.training.train`'s: channels-last activations and the forward pass under bf16 autocast;
    without it, float32 in the default memory format (notebook 09's ``train_rs``). Defaults on CUDA: 3 warm-up
    and 5 timed steps; on the CPU 1 and 1, the warm-up on a batch of at most :data:`CPU_WARMUP_BATCH` inputs (the
    first call's one-off costs do not grow with the batch: WRN-28-10's timed step at batch 128 took 39 s after a
    warm-up at 8 as after one at 128, and 47 s cold; the full-batch warm-up cost a step of 40 s more)."""
    import torch
    import torch.nn.functional as F

    from robeval.core import env
    from robeval.core.nn import models, training

    device = env.torch_device() if device is None else torch.device(device)
    cuda = device.type == "cuda"
    mixed = cuda and mixed_precision
    warmup = (3 if cuda else 1) if warmup is None else warmup
    steps = (5 if cuda else 1) if steps is None else steps
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}.")
    torch.manual_seed(0)
    model = models.build(arch, **model_kwargs).to(device).train()
    if mixed:
        model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.rand(int(batch_size), 3, 32, 32, device=device)
    if mixed:
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (int(batch_size),), device=device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=mixed):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if cuda:
            torch.cuda.synchronize()

    with training.fixed_threads(threads or training.train_threads()):
        if warmup and not cuda:
            x_full, y_full = x, y
            x, y = x[:CPU_WARMUP_BATCH], y[:CPU_WARMUP_BATCH]
            for _ in range(warmup):
                step()
            x, y = x_full, y_full
        else:
            for _ in range(warmup):
                step()
        return time_call(step, repeats=steps)


def attack_step_seconds(
    arch: str, batch_size: int, *, repeats: int | None = None, device=None, threads: int = 0
) -> float:
    """Seconds of one ascent step of notebook 09's attack on the noise sphere
    (:func:`robeval.acr.easy_inputs.noise_sphere_attack` with K = 1: forward, backward to the input, projection)
    on ``batch_size`` float32 noisy inputs of a fresh ``arch`` in eval mode, as ``train_rs`` runs it; the least of
    ``repeats`` timed steps (default 1 on the CPU, 5 on CUDA) after one untimed step."""
    import torch

    from robeval.acr.easy_inputs import noise_sphere_attack
    from robeval.core import env
    from robeval.core.nn import models, training

    device = env.torch_device() if device is None else torch.device(device)
    cuda = device.type == "cuda"
    repeats = (5 if cuda else 1) if repeats is None else repeats
    torch.manual_seed(0)
    model = models.build(arch).to(device).eval()
    x = torch.rand(int(batch_size), 3, 32, 32, device=device)
    y = torch.randint(0, 10, (int(batch_size),), device=device)
    noise = 0.5 * torch.randn_like(x)

    def step():
        noise_sphere_attack(model, x, y, noise, 1, 0.25)
        if cuda:
            torch.cuda.synchronize()

    with training.fixed_threads(threads or training.train_threads()):
        step()
        return time_call(step, repeats=repeats)


def forward_image_seconds(
    arch: str, batch_size: int = 50, *, threads: int = 0, repeats: int | None = None, device=None, **model_kwargs
) -> float:
    """Seconds per image of ``arch`` in eval mode without gradients (float32, as evaluation and certification
    run), the least of ``repeats`` timed batches of ``batch_size`` after one untimed warm-up pass (CPU: on 2
    images, first-call allocations; CUDA: on the full batch, cuDNN picks its algorithms per shape). ``repeats``:
    default 1 on the CPU, 5 on CUDA."""
    import torch

    from robeval.core import env
    from robeval.core.nn import models, training

    device = env.torch_device() if device is None else torch.device(device)
    cuda = device.type == "cuda"
    repeats = (5 if cuda else 1) if repeats is None else repeats
    torch.manual_seed(0)
    model = models.build(arch, **model_kwargs).to(device).eval()
    x = torch.rand(int(batch_size), 3, 32, 32, device=device)

    def fwd(batch=x):
        with torch.no_grad():
            model(batch)
        if cuda:
            torch.cuda.synchronize()

    with training.fixed_threads(threads or training.train_threads()):
        fwd(x if cuda else x[:2])
        return time_call(fwd, repeats=repeats) / int(batch_size)


def _device_name(info: Mapping[str, Any]) -> str:
    """The GPU's name when torch sees one, else the CPU's (the machine that measured the units)."""
    if info.get("gpu"):
        return str(info["gpu"])
    return f"CPU ({info.get('cpu', 'unknown')}, {info.get('cpu_count', '?')} cores)"


def save_units(
    experiment: str, out_dir: str | Path, unit_seconds: Mapping[str, float], *, notes: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Extrapolate the full paper profile of ``experiment`` from the measured ``unit_seconds`` with its cost model,
    print it and write ``<out_dir>/units.json`` (``out_dir``: the dry run's ``build/dry_run/<experiment>``).
    Returns the written record: units_s (s each), unit_what (what each unit is, :func:`describe_units`), counts,
    parts, total_s, total_h, device, notes."""
    from robeval.core import io
    from robeval.core.env import hardware_info

    if experiment not in COST_MODELS:
        raise ValueError(f"no cost model for {experiment!r}; known: {', '.join(sorted(COST_MODELS))}.")
    counts = COST_MODELS[experiment](paper_settings(experiment))
    ext = extrapolate(unit_seconds, counts)
    what = describe_units(experiment)
    record = {
        "experiment": experiment,
        "units_s": {k: float(v) for k, v in unit_seconds.items()},
        "unit_what": {k: what.get(k, "not described") for k in unit_seconds},
        "counts": counts,
        **ext,
        "device": _device_name(hardware_info()),
        "notes": dict(notes or {}),
        "what": "extrapolated from measured units x unit counts of the [paper] settings; not a measured full run",
    }
    out = Path(out_dir) / "units.json"
    io.atomic_write_json(out, record)
    print(f"DRY RUN — measured units on {record['device']}:")
    for u, part in ext["parts"].items():
        print(f"  {u:>16}: {part['unit_s']:.4g} s x {part['count']:.4g} = {part['seconds'] / 3600:.4g} h")
        print(f"  {'':>16}  ({record['unit_what'][u]})")
    print(f"  extrapolated paper profile on this machine: {ext['total_h']:.4g} h ({ext['total_h'] / 24:.3g} days)")
    return record


def corruption_image_seconds(names, n_images: int = 4, severity: int = 3) -> float:
    """Seconds to corrupt one 32 x 32 image, averaged over the corruptions ``names`` (CIFAR-10-C / C-bar) on
    ``n_images`` random uint8 NHWC images at ``severity``."""
    import numpy as np

    from robeval.transforms import corruptions

    names = list(names)
    if not names:
        raise ValueError("names must list at least one corruption, e.g. corruptions.C_CORRUPTIONS.")
    images = np.random.default_rng(0).integers(0, 256, (int(n_images), 32, 32, 3), dtype=np.uint8)
    total = sum(time_call(lambda n=n: corruptions.corrupt(images, n, severity, seed=0)) for n in names)
    return total / (len(names) * int(n_images))


FORWARD_BATCH = 50  # images per timed inference batch of 02 and 09 (their eval batch of 50)
CERTIFY_BATCH = 100  # noise samples per timed batch of certify_1000 on the CPU (on CUDA: the paper's eval_batch_size)


def certify_batch() -> int:
    """Noise samples per timed batch of ``certify_1000``: :data:`CERTIFY_BATCH` on the CPU, the paper's
    ``eval_batch_size`` of notebook 09 on CUDA (what CERTIFY runs there)."""
    from robeval.core.env import torch_device

    if torch_device().type == "cuda":
        return int(paper_settings("acr_rs_training")["eval_batch_size"])
    return CERTIFY_BATCH


def forward_batch(experiment: str) -> int:
    """Images per timed inference batch of ``experiment``: what its code runs on this machine — MSD's
    :func:`robeval.msd.nets.inference_batch` (50 on the CPU, 1000 on a GPU) for 03 and 04, else
    :data:`FORWARD_BATCH`."""
    if experiment.startswith("msd_"):
        from robeval.msd.nets import inference_batch

        return inference_batch()
    return FORWARD_BATCH


def feature_image_seconds(
    arch: str, n_instances: int | None = None, *, n_images: int = 100, device=None, **model_kwargs
) -> float:
    """Seconds per image of MSD's feature loop (:func:`robeval.msd.distance.transform_features`, as notebook 03
    runs it for every scheme): a sampled instance of the full nine-op scheme applied on the CPU to ``n_images``
    random images (the paper's 100), their features through a fresh ``arch`` by :func:`robeval.msd.nets.feature_fn`
    on the inference device (the GPU when there is one) — augmentation, transfer and forward pass together. One
    untimed warm-up instance, then ``n_instances`` timed ones (default 2 on the CPU, 100 on CUDA)."""
    import numpy as np
    import torch

    from robeval.core.nn import models
    from robeval.msd import distance, nets
    from robeval.transforms.augmentations import BASE_OPS

    device = nets.inference_device(device)
    n_instances = int(n_instances or (100 if device.type == "cuda" else 2))
    torch.manual_seed(0)
    fn = nets.feature_fn(models.build(arch, **model_kwargs), device=device)
    images = np.random.default_rng(0).integers(0, 256, (int(n_images), 32, 32, 3), dtype=np.uint8)
    transform = distance.scheme_transform("+".join(BASE_OPS))
    distance.transform_features(fn, images, transform, np.random.default_rng(1), 1)
    t0 = time.perf_counter()
    distance.transform_features(fn, images, transform, np.random.default_rng(2), n_instances)
    return (time.perf_counter() - t0) / (n_instances * int(n_images))


def _unit_setup(experiment: str) -> tuple[str, dict, int]:
    """``(arch, model kwargs, inputs per SGD step)`` of ``experiment``'s [paper] settings."""
    if experiment not in COST_MODELS:
        raise ValueError(f"no cost model for {experiment!r}; known: {', '.join(sorted(COST_MODELS))}.")
    p = paper_settings(experiment)
    arch = p["arch"]
    kwargs = {"dropout": float(p["dropout"])} if arch.startswith("wrn") and "dropout" in p else {}
    batch = int(p["batch_size"]) * (int(p["num_noise"][0]) if experiment == "acr_rs_training" else 1)
    return arch, kwargs, batch


def describe_units(experiment: str) -> dict[str, str]:
    """What each unit of :func:`measure_units` is for ``experiment`` (written beside the times in units.json)."""
    from robeval.core.env import torch_device
    from robeval.core.nn.training import train_threads

    arch, _, batch = _unit_setup(experiment)
    p = paper_settings(experiment)
    cuda = torch_device().type == "cuda"
    threads = f"{train_threads()} torch thread(s) (ROBEVAL_TRAIN_THREADS)"
    precision = "float32" if experiment == "acr_rs_training" else "channels-last, bf16 autocast"
    step = (
        f"on CUDA as the training loop runs it ({precision}); the least of 5 timed steps after 3 warm-up steps"
        if cuda
        else "one timed step after one warm-up step"
    )
    inputs = (
        f"{p['batch_size']} images x {p['num_noise'][0]} noise draws = {batch} inputs"
        if experiment == "acr_rs_training"
        else f"{batch} images"
    )
    out = {
        "train_step": f"s per SGD step (forward, cross-entropy, backward, update) of a fresh {arch} at the paper's "
        f"batch ({inputs}, float32 3 x 32 x 32), {threads}; {step}",
        "forward_image": f"s per image through {arch} in eval mode without gradients (float32), timed on "
        f"{'the least of 5 batches' if cuda else 'one batch'} of {forward_batch(experiment)} after a warm-up pass, "
        f"{threads}",
    }
    if experiment == "msd_powerset":
        out["feature_image"] = (
            f"s per image of the MSD feature loop (transform_features): one instance of the nine-op scheme applied "
            f"on the CPU to 100 images, their features through {arch} "
            f"({'on the GPU' if cuda else 'TorchScript on the CPU'}, batches of {forward_batch(experiment)}), "
            f"{100 if cuda else 2} instances after a warm-up one"
        )
    if experiment == "acr_rs_training":
        out["attack_step"] = (
            f"s per ascent step of the attack on the noise sphere (forward, backward to the input, projection) on "
            f"{batch} float32 noisy inputs through {arch} in eval mode, {threads}"
        )
        out["certify_1000"] = (
            f"s per 1000 noise samples through {arch} (CERTIFY's unit), from timed batches of {certify_batch()}, "
            f"{threads}"
        )
    if experiment == "msd_powerset":
        out["corruption_image"] = (
            f"s to corrupt one 32 x 32 image, mean over the {len(p['corruptions'])} corruptions of the settings at "
            "severity 3 on 4 images each"
        )
    if experiment == "msd_cifar10_c_bar":
        out["corruption_image"] = (
            "s to corrupt one 32 x 32 image, mean over the 15 CIFAR-10-C and 10 CIFAR-10-C-bar corruptions at "
            "severity 3 on 4 images each"
        )
    return out


def measure_units(experiment: str) -> dict[str, float]:
    """Measure, on this machine, the units of ``experiment``'s cost model with the paper's network and batch size
    (the [paper] settings, whatever the dry run's own loops use): ``train_step`` (s per SGD step; 09:
    ``batch_size x num_noise`` noisy inputs), ``forward_image`` (s per image), 03's ``feature_image``
    (:func:`feature_image_seconds`), 03's and 04's ``corruption_image``, and
    09's ``certify_1000`` (s per 1000 noise samples through ResNet-110); :func:`describe_units` says what each is."""
    arch, kwargs, batch = _unit_setup(experiment)
    units = {
        # 09's train_rs trains in float32 on every device; the others' loop uses bf16 autocast on CUDA
        "train_step": train_step_seconds(arch, batch, mixed_precision=experiment != "acr_rs_training", **kwargs),
        "forward_image": forward_image_seconds(arch, forward_batch(experiment), **kwargs),
    }
    if experiment == "msd_powerset":
        units["feature_image"] = feature_image_seconds(arch, **kwargs)
        units["corruption_image"] = corruption_image_seconds(list(paper_settings(experiment)["corruptions"]))
    if experiment == "acr_rs_training":
        units["attack_step"] = attack_step_seconds(arch, batch)
        units["certify_1000"] = 1000 * forward_image_seconds(arch, certify_batch(), **kwargs)
    if experiment == "msd_cifar10_c_bar":
        from robeval.transforms import corruptions

        units["corruption_image"] = corruption_image_seconds(corruptions.C_CORRUPTIONS + corruptions.CBAR_CORRUPTIONS)
    return units


# --------------------------------------------------------------------------------------------- the stand-in
def write_cifar10_release(path: str | Path, x_train, y_train, x_test, y_test) -> str:
    """Write a tarball in the CIFAR-10 python release's format (``cifar-10-batches-py/data_batch_1..5``,
    ``test_batch``, ``batches.meta``: pickled dicts with ``b"data"`` uint8 (N, 3072) and ``b"labels"``) and
    return its sha256. ``x_*``: uint8 (N, 3, 32, 32); ``y_*``: int labels (N,); the training images are split
    into 5 equal batches."""
    import io as _io
    import pickle
    import tarfile

    import numpy as np

    from robeval.core import data

    def member(tf, name, obj):
        blob = pickle.dumps(obj, protocol=2)
        info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
        info.size = len(blob)
        tf.addfile(info, _io.BytesIO(blob))

    for name, x in (("x_train", x_train), ("x_test", x_test)):
        if np.asarray(x).dtype != np.uint8 or np.ndim(x) != 4 or np.shape(x)[1:] != (3, 32, 32):
            raise ValueError(
                f"{name} must be uint8 images of shape (N, 3, 32, 32), got {np.asarray(x).dtype} {np.shape(x)}."
            )
    with tarfile.open(path, "w:gz", compresslevel=1) as tf:
        for i, (xb, yb) in enumerate(zip(np.array_split(x_train, 5), np.array_split(y_train, 5)), 1):
            member(tf, f"data_batch_{i}", {b"data": xb.reshape(len(xb), -1), b"labels": [int(v) for v in yb]})
        member(tf, "test_batch", {b"data": x_test.reshape(len(x_test), -1), b"labels": [int(v) for v in y_test]})
        member(tf, "batches.meta", {b"label_names": [c.encode() for c in data.CIFAR10_CLASSES]})
    return data.sha256_of(path)


def standin_arrays():
    """``(x_train, y_train, x_test, y_test)`` of the dry run's full-CIFAR-10 stand-in: the real 5000/1000 subset
    tiled to the release's 50000/10000 images (so the paper profile's counts meet the shapes they were written
    for), its test images reordered so that the first 10 hold one image of each class (a dry run's short test
    prefix then holds every class). uint8 NCHW images, uint8 labels."""
    import numpy as np

    from robeval.core import data

    x_tr, y_tr, x_te, y_te = data.load_cifar10_subset()
    first = [int(np.flatnonzero(y_te == c)[0]) for c in range(10)]
    order = np.concatenate([first, np.setdiff1d(np.arange(len(y_te)), first)])
    x_te, y_te = x_te[order], y_te[order]
    return np.tile(x_tr, (10, 1, 1, 1)), np.tile(y_tr, 10), np.tile(x_te, (10, 1, 1, 1)), np.tile(y_te, 10)


def install_standin(cache: str | Path) -> str:
    """Write the stand-in (:func:`standin_arrays`) as ``<cache>/cifar10/cifar-10-python.tar.gz`` and return its
    sha256. A dry run reads it with ``ROBEVAL_CACHE_DIR=<cache>``, ``ROBEVAL_DRY_RUN=1`` and the test-only
    checksum override ``ROBEVAL_TEST_CIFAR10_SHA256=<the returned sha256>``; nothing else admits it."""
    target = Path(cache) / "cifar10"
    target.mkdir(parents=True, exist_ok=True)
    return write_cifar10_release(target / "cifar-10-python.tar.gz", *standin_arrays())


# --------------------------------------------------------------------------------------------- GPU estimate
EPOCH_OF = {  # which measured paper-scale epoch (benchmarks/gpu_units.py) stands for each experiment's training
    "mscr_cifar10": "02_wrn28_10",
    "msd_powerset": "03_04_wrn40_2",
    "msd_cifar10_c_bar": "03_04_wrn40_2",
    "acr_rs_training": "09_resnet110_gaussian",
}


def loop_estimate(
    units: Mapping[str, Any], epochs: Mapping[str, Any], unit_seconds: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The paper profile's cost with the training step taken from a measured epoch of the real training loop.

    The unit ``train_step`` times the network alone on a ready batch; an epoch of
    :func:`robeval.core.nn.training.train` (or notebook 09's ``train_rs``) also moves each batch from the host,
    augments it on the CPU and steps the schedule, so on a GPU its steps take longer. This replaces the unit by
    the epoch's seconds per step, counts the units with the current cost model (:data:`COST_MODELS`) and takes
    every other unit's time from ``unit_seconds`` (e.g. an attack step measured in the loop) or else from the record.

    Parameters
    ----------
    units : a ``units.json`` record of :func:`save_units` (``experiment``, ``units_s``, ``device``, ``total_h``).
    epochs : the ``epochs`` result of ``benchmarks/gpu_units.py``: name -> ``{"seconds", "steps", ...}``;
        :data:`EPOCH_OF` names the epoch of each experiment.
    unit_seconds : seconds per unit that replace the record's (optional).

    Returns ``{"experiment", "device", "unit_total_h", "train_step_unit_s", "train_step_loop_s",
    "loop_over_unit", "counts", "unit_s", "parts_h": {part: hours}, "total_h"}``.
    """
    exp = units["experiment"]
    if exp not in EPOCH_OF:
        raise ValueError(f"no measured epoch stands for {exp!r}; known: {', '.join(sorted(EPOCH_OF))}.")
    name = EPOCH_OF[exp]
    if name not in epochs:
        raise ValueError(f"the epochs hold no {name!r} (needed for {exp}); measured: {sorted(epochs)}.")
    epoch = epochs[name]
    if not epoch.get("steps") or epoch["steps"] <= 0 or not epoch.get("seconds") or epoch["seconds"] <= 0:
        raise ValueError(f"epoch {name!r} needs positive 'seconds' and 'steps', got {epoch!r}.")
    loop_step = float(epoch["seconds"]) / float(epoch["steps"])
    counts = COST_MODELS[exp](paper_settings(exp))
    unit_s = {**{k: float(v) for k, v in units["units_s"].items()}, **dict(unit_seconds or {})}
    unit_s["train_step"] = loop_step
    ext = extrapolate(unit_s, counts)
    unit_step = float(units["units_s"]["train_step"])
    return {
        "experiment": exp,
        "device": units.get("device"),
        "unit_total_h": float(units["total_h"]),
        "train_step_unit_s": unit_step,
        "train_step_loop_s": loop_step,
        "loop_over_unit": loop_step / unit_step,
        "counts": counts,
        "unit_s": {u: unit_s[u] for u in counts},
        "parts_h": {u: part["seconds"] / 3600.0 for u, part in ext["parts"].items()},
        "total_h": ext["total_h"],
    }
