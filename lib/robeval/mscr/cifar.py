"""The MSCR protocol on CIFAR-10 (Siedel et al. 2022, Sec. 3.2 and Table 2b) as a resumable run grid.

One *cell* is one run seed and one training noise level ``eps_train``: it trains one network on images with
uniform L_inf noise of radius ``eps_train`` (k = 1 fresh noisy copy per image and epoch, plus flips and 4-px
crops) and tests it on the clean test set and on one noisy copy per test image for every ``eps_test``.

Runs are paired by seed: for run seed ``s`` every eps_train column starts from the same initial weights
(:func:`robeval.mscr.protocol.derived_seed` ``(s, "init")``), sees the training images in the same order and is
tested on the same test noise per eps_test, so differences between columns are taken per run.

Trained networks are cached by everything that determines them (:func:`model_file`): adding test levels or
re-running a grid whose result files were deleted never trains a network twice.

Opt-in fused training (``config["fused_group"] = G > 0``, default 0 = off): :func:`train_cifar_models_fused` trains
the networks of many cells G at a time as one module (:mod:`robeval.core.nn.fused`: grouped convolutions, each network
with its own initial weights, data order, flips, crops and noise, exactly as it would be trained alone up to
floating-point rounding) and stores them in the model cache, where :func:`run_cell_cifar` finds them. Fused networks
are cached under their own names (the key gains ``trainer = "fused"``), never mixed with separately trained ones.
"""

from __future__ import annotations

import functools
import math
import os
from numbers import Real

import numpy as np

from robeval.core.validation import check_eps
from robeval.mscr.protocol import check_predictions, derived_seed, make_cells, resolve_eps_levels, run_seeds

GRID_CELLS = ("run_cell_cifar",)  # the functions a grid store may name (core.runs.cell_function)

#: config keys of :func:`run_cell_cifar` that determine the trained network (the others only its evaluation)
TRAINING_KEYS = (
    "arch",
    "width",
    "widen",
    "dropout",
    "hidden",
    "epochs",
    "batch_size",
    "lr",
    "momentum",
    "weight_decay",
    "schedule",
    "milestones",
    "n_train",
    "full_data",
    "train_threads",
)


def uniform_linf_box(x, eps: float, gen, lo: float = 0.0, hi: float = 1.0):
    """Uniform noise in the L_inf ball intersected with the pixel box [lo, hi]^d (torch, per coordinate).

    The authors' CIFAR code samples ``Uniform(max(x - eps, 0), min(x + eps, 1))`` coordinate-wise, i.e.
    uniformly on the intersection of the eps-cube and the image box (no mass piles up at 0 or 1 as it
    would with clipping). ``x``: float tensor of any shape with values in [lo, hi]; ``eps``: the radius, a
    real number >= 0 in the units of ``x``; ``gen``: the ``torch.Generator`` the draws come from (on ``x``'s
    device). Returns a tensor of ``x``'s shape, dtype and device.

    Every argument is checked (one reduction over ``x``); the training loop's per-batch transform,
    :func:`box_noise_transform`, checks ``eps`` once and its batches are images in [0, 1] by construction.
    """
    import torch

    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        kind = f"a {x.dtype} tensor" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(
            f"x must be a floating-point torch tensor with values in [lo, hi], got {kind}; "
            "convert it, e.g. torch.as_tensor(images, dtype=torch.float32) / 255 for uint8 images."
        )
    if x.device.type == "meta":
        raise ValueError(
            "x is on torch's 'meta' device, which holds no values to add noise to; pass a tensor on 'cpu' or a GPU."
        )
    eps = check_eps(eps)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch.Generator (e.g. torch.Generator().manual_seed(0)), got {gen!r}.")
    largest = float(torch.finfo(x.dtype).max)
    for name, value in (("lo", lo), ("hi", hi)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
            raise TypeError(f"{name} must be a finite real number (a bound of the pixel box), got {value!r}.")
        try:
            as_float = float(value)
        except OverflowError:  # an int beyond float64 (np.isfinite cannot take it)
            raise ValueError(
                f"{name} is an integer of {len(str(abs(value)))} digits, beyond float64's range and any pixel box; "
                f"pass a finite bound such as {name}={0.0 if name == 'lo' else 1.0}."
            ) from None
        if not math.isfinite(as_float):
            raise TypeError(f"{name} must be a finite real number (a bound of the pixel box), got {value!r}.")
        if abs(as_float) > largest:
            raise ValueError(
                f"{name} = {as_float:g} is outside {x.dtype}'s range (|{name}| <= {largest:.4g}) for x's dtype; pass "
                f"a bound x's dtype can hold (e.g. {name}={0.0 if name == 'lo' else 1.0} for images) or x in float64."
            )
    if not lo < hi:
        raise ValueError(f"lo must be < hi (the pixel box [lo, hi]), got lo={lo!r}, hi={hi!r}.")
    if x.numel():
        low, high = float(x.min()), float(x.max())
        if not (lo <= low and high <= hi):  # NaN fails both
            raise ValueError(
                f"x must hold finite values in [lo, hi] = [{lo:g}, {hi:g}], got values in [{low:g}, {high:g}]; "
                "scale images to [0, 1] (uint8 / 255) or pass the box they lie in as lo, hi."
            )
    return _box_noise(x, eps, gen, float(lo), float(hi))


def _box_noise(x, eps: float, gen, lo: float, hi: float):
    """:func:`uniform_linf_box` without its checks: the draw itself."""
    import torch

    low = torch.clamp(x - eps, min=lo)
    high = torch.clamp(x + eps, max=hi)
    u = torch.rand(x.shape, generator=gen, dtype=x.dtype, device=x.device)
    if min(2 * eps, hi - lo) > torch.finfo(x.dtype).max:  # high - low may overflow: interpolate without it
        return torch.minimum(torch.maximum(low * (1 - u) + high * u, low), high)
    return low + (high - low) * u


def image_mlp(hidden=(512, 256), num_classes: int = 10):
    """A CPU-cheap image classifier: channel normalisation, flatten, ReLU MLP (``robeval.core.nn.models.MLP``).

    Input is float images in [0, 1] (N, 3, 32, 32) like every ``robeval.core.nn.models`` image model.
    """
    from robeval.core.nn import models

    class ImageMLP(models.FeatureClassifier):
        def __init__(self):
            super().__init__()
            self.norm = models.Normalize()
            self.mlp = models.MLP(3 * 32 * 32, hidden=tuple(hidden), num_classes=num_classes)
            self.head = self.mlp.head

        def features(self, x):
            return self.mlp.features(self.norm(x).flatten(1))

    return ImageMLP()


@functools.lru_cache(maxsize=2)
def _load_cifar(full: bool):
    from robeval.core.data import load_cifar10_any

    return load_cifar10_any(full)


def _build(config: dict):
    from robeval.core.nn import models

    arch = config.get("arch", "cnn_small")
    if arch == "image_mlp":
        return image_mlp(tuple(config.get("hidden") or (512, 256)))
    config = {**config, "arch": arch}
    width = config.get("width")
    if isinstance(width, (int, np.integer)) and not isinstance(width, (bool, np.bool_)) and width == 0:
        del config["width"]  # the settings' width 0: the model's default (from_config refuses a width of 0)
    return models.from_config(config)


def model_file(cell: dict, config: dict):
    """The cache file of the network of ``cell`` under ``config``: named by the training settings
    (:data:`TRAINING_KEYS`), the run seed, eps_train, the training thread count (CPU results depend on it) and
    the code of this module (:func:`robeval.core.runs.config_identity`), under
    ``robeval.core.paths.cache_dir() / "mscr_cifar10_models"``."""
    from robeval.core.paths import cache_dir
    from robeval.core.runs import config_identity

    key = {k: config.get(k) for k in TRAINING_KEYS}
    key.update(seed=int(cell["seed"]), eps_train=float(cell["eps_train"]), train_threads=_threads(config))
    if _fused_group(config):  # fused training rounds differently: its networks get their own files
        key["trainer"] = "fused"
    return cache_dir() / "mscr_cifar10_models" / f"{config_identity(key, fn=train_cifar_model)}.pt"


def _threads(config: dict) -> int:
    """Training threads: ``config["train_threads"]`` or :func:`robeval.core.nn.training.train_threads`. CPU training
    results depend on the thread count, so a grid fixes it."""
    from robeval.core.nn.training import train_threads

    return int(config.get("train_threads") or train_threads())


def _fused_group(config: dict) -> int:
    """``config["fused_group"]``: networks trained together by :func:`train_cifar_models_fused` (0 or absent: off)."""
    G = config.get("fused_group") or 0
    if isinstance(G, (bool, np.bool_)) or not isinstance(G, (int, np.integer)) or G < 0:
        raise ValueError(f"fused_group must be an integer >= 0 (0: train each network alone), got {G!r}.")
    return int(G)


def _sgd_settings(config: dict) -> dict:
    """The training keywords of one network, shared by separate and fused training (the same schedule either way):
    epochs, batch size, SGD settings and the step schedule from ``config``, with flips and crops."""
    return {
        "epochs": int(config["epochs"]),
        "batch_size": int(config["batch_size"]),
        "lr": float(config["lr"]),
        "momentum": float(config.get("momentum", 0.9)),
        "weight_decay": float(config.get("weight_decay", 5e-4)),
        "schedule": config.get("schedule", "step"),
        "milestones": config.get("milestones"),
        "flip_crop_aug": True,
    }


def train_cifar_model(cell: dict, config: dict):
    """The trained network of one cell (loaded from :func:`model_file` when cached). Returns ``(net, cached)``.

    With ``config["fused_group"] > 0`` a network missing from the cache is trained by
    :func:`train_cifar_models_fused` (a group of one); train the grid's networks in groups with it first."""
    import torch

    from robeval.core.nn import training

    seed = int(cell["seed"])
    eps_train = check_eps(cell["eps_train"])
    x_tr, y_tr, _, _ = _load_cifar(bool(config.get("full_data", False)))
    n_tr = int(config.get("n_train") or len(x_tr))
    torch.manual_seed(derived_seed(seed, "init"))
    net = _build(config)
    path = model_file(cell, config)
    if not path.is_file() and _fused_group(config):
        train_cifar_models_fused([cell], config)
    if path.is_file():
        net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        return net.eval(), True
    transform = box_noise_transform(eps_train)
    training.train(
        net,
        x_tr[:n_tr],
        y_tr[:n_tr],
        **_sgd_settings(config),
        batch_transform=transform,
        seed=derived_seed(seed, "train"),
        threads=_threads(config),
        progress=False,
        desc=f"eps_train={eps_train:g}",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    torch.save({k: v.detach().cpu() for k, v in net.state_dict().items()}, tmp)
    tmp.replace(path)
    return net.eval(), False


def box_noise_transform(eps_train):
    """The training batch transform of noise level ``eps_train`` (a real number >= 0, checked once): a function
    ``(xb, gen) -> xb + uniform L_inf noise in the pixel box [0, 1]`` (:func:`uniform_linf_box`'s draw, without
    its per-batch checks: the training loop's batches are float images in [0, 1]), or None for ``eps_train = 0``."""
    eps_train = check_eps(eps_train, "eps_train")
    if eps_train <= 0:
        return None
    return lambda xb, gen: _box_noise(xb, eps_train, gen, 0.0, 1.0)


def train_cifar_models_fused(cells, config: dict, *, device=None, progress: bool = False) -> dict:
    """Train the networks of ``cells`` missing from the model cache ``config["fused_group"]`` at a time as one fused
    module (:func:`robeval.core.nn.fused.train_fused`) and store each in :func:`model_file`.

    Network of cell ``{"seed": s, "eps_train": e}``: initial weights after ``torch.manual_seed(derived_seed(s,
    "init"))``, data order and augmentation from ``derived_seed(s, "train")``, flips, 4-px crops and uniform L_inf
    noise of radius ``e`` (:func:`uniform_linf_box`, none for e = 0), the SGD settings of ``config``: the network
    :func:`train_cifar_model` trains alone, up to floating-point rounding (``tests/core/test_fused.py``). With
    dropout (``wrn28_10``) the masks come from torch's global generator, so they differ from those of a network
    trained alone (the same distribution).

    Parameters
    ----------
    cells : list of dict, the grid's cells (e.g. :func:`cells_cifar`); cached networks are skipped.
    config : dict, as :func:`run_cell_cifar`, with ``fused_group`` = G >= 1 networks per group (the last group
        may be smaller).
    device : torch device (default: CUDA when present, else CPU).

    Returns
    -------
    dict
        ``{"trained": networks trained, "cached": networks found in the cache, "groups": fused groups run,
        "seconds": wall seconds}``.
    """
    import time

    import torch

    from robeval.core.nn import fused

    G = _fused_group(config)
    if G < 1:
        raise ValueError("train_cifar_models_fused needs config['fused_group'] >= 1 (networks trained together).")
    if config.get("arch") == "image_mlp":
        raise ValueError(
            "fused training needs a robeval.core.nn.models architecture (cnn_small, resnet*, wrn*), not image_mlp."
        )
    t0 = time.perf_counter()
    cells = [dict(c) for c in cells]
    missing = [c for c in cells if not model_file(c, config).is_file()]
    x_tr, y_tr, _, _ = _load_cifar(bool(config.get("full_data", False)))
    n_tr = int(config.get("n_train") or len(x_tr))
    groups = [missing[i : i + G] for i in range(0, len(missing), G)]
    for group in groups:
        nets, transforms = [], []
        for cell in group:
            torch.manual_seed(derived_seed(int(cell["seed"]), "init"))
            nets.append(_build(config))
            transforms.append(box_noise_transform(cell["eps_train"]))
        net = fused.stack(nets)
        fused.train_fused(
            net,
            x_tr[:n_tr],
            y_tr[:n_tr],
            seeds=[derived_seed(int(cell["seed"]), "train") for cell in group],
            **_sgd_settings(config),
            batch_transforms=transforms,
            device=device,
            threads=_threads(config),
            progress=progress,
            desc=f"fused x{len(group)}",
        )
        for cell, trained in zip(group, fused.unstack(net)):
            path = model_file(cell, config)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            torch.save({k: v.detach().cpu().contiguous() for k, v in trained.state_dict().items()}, tmp)
            tmp.replace(path)
    return {
        "trained": len(missing),
        "cached": len(cells) - len(missing),
        "groups": len(groups),
        "seconds": round(time.perf_counter() - t0, 3),
    }


def run_cell_cifar(cell: dict, config: dict) -> list[dict]:
    """One run of the CIFAR-10 protocol for one eps_train (k = 1, L_inf noise inside the pixel box).

    cell : ``{"seed": int, "eps_train": float}``
    config : ``arch``, ``epochs``, ``batch_size``, ``lr``, ``momentum``, ``weight_decay``, ``schedule``,
        ``milestones``, ``n_train``, ``n_test`` (prefixes of the shipped subset / full set; 0 = all),
        ``full_data``, ``eps_test`` (list), ``train_threads`` (training; fixed, results depend on it),
        ``torch_threads`` (evaluation; 0 or absent: torch's count; else an integer 1 .. 1024), ``eval_batch_size`` (default 50), ``width`` (cnn_small), ``dropout`` and ``widen`` (WRN),
        ``fused_group`` (opt-in: networks trained together, :func:`train_cifar_models_fused`; 0 or absent = off).

    Returns one row per eps_test: ``eps_test``, ``acc`` (fraction), ``n_eval``, and ``train_acc``: the network's
    accuracy (fraction) on its own clean training images (the first ``n_train``, without noise or crops), the same
    in every row — whether it fits its training data (:data:`robeval.mscr.claims_cifar.FITTED_TRAIN_ACC`).
    """
    import torch

    from robeval.core.nn import training

    threads = training.check_config_threads(config, "torch_threads")  # before anything is computed
    seed = int(cell["seed"])
    if threads is not None:
        torch.set_num_threads(threads)
    net, _ = train_cifar_model(cell, config)
    x_tr, y_tr, x_te, y_te = _load_cifar(bool(config.get("full_data", False)))
    n_te = int(config.get("n_test") or len(x_te))
    x_te, y_te = x_te[:n_te], y_te[:n_te]
    batch = int(config.get("eval_batch_size") or 50)
    n_tr = int(config.get("n_train") or len(x_tr))
    train_pred = check_predictions(training.predict(net, training.to_float_tensor(x_tr[:n_tr]), batch_size=batch), n_tr)
    train_acc = float(np.mean(train_pred == y_tr[:n_tr]))
    x_clean = training.to_float_tensor(x_te)
    levels = [float(e) for e in config["eps_test"]]
    preds = {}
    if 0.0 in levels:
        preds[0.0] = check_predictions(training.predict(net, x_clean, batch_size=batch), n_te)
    noisy = [e for e in dict.fromkeys(levels) if e != 0]
    # levels per forward call: a test set shorter than a batch (a dry run's 10 images) shares its batches with the
    # next levels' (at batch 10 a CPU takes ~2x the time per image of batch 50); with n_test >= the batch size it is
    # one level per call, so every batch holds the same images as level by level
    per_call = max(1, batch // n_te)
    for i in range(0, len(noisy), per_call):
        chunk = noisy[i : i + per_call]
        x = torch.cat(
            [uniform_linf_box(x_clean, e, torch.Generator().manual_seed(derived_seed(seed, "test", e))) for e in chunk]
        )
        pred = check_predictions(training.predict(net, x, batch_size=batch), n_te * len(chunk))
        for j, e in enumerate(chunk):
            preds[e] = pred[j * n_te : (j + 1) * n_te]
    return [
        {"eps_test": e, "acc": float(np.mean(preds[e] == y_te)), "n_eval": int(n_te), "train_acc": train_acc}
        for e in levels
    ]


# --- settings -> grid: the cells and config of notebook 02, from the resolved settings --------------------------


def levels_cifar(cfg, eps_test, eps_min_paper: float, eps_min_measured: float) -> tuple[float, list, list]:
    """Table 2b's noise levels from the ``mscr_cifar10`` settings: ``(eps_min, eps_test, eps_train)``.

    ``eps_test``: the authors' (corrected) test levels; with ``cfg.eps_min_source == "paper"`` eps_min is the
    paper's (``eps_min_paper``, the CSV's column) and the test levels stay as they are; with ``"measured"`` it is
    ``eps_min_measured`` (our data's r), added to the sorted test levels. ``eps_train``: ``cfg.eps_train`` with
    its -1 placeholder replaced by eps_min.
    """
    if cfg.eps_min_source not in ("paper", "measured"):
        raise ValueError(f"eps_min_source must be 'paper' or 'measured', got {cfg.eps_min_source!r}")
    eps_test = list(eps_test)
    eps_min = float(eps_min_paper) if cfg.eps_min_source == "paper" else float(eps_min_measured)
    if cfg.eps_min_source != "paper":
        eps_test = sorted(set(eps_test) | {eps_min})
    return eps_min, eps_test, resolve_eps_levels(cfg.eps_train, eps_min)


def config_cifar(cfg, eps_test) -> dict:
    """Config of :func:`run_cell_cifar` from the ``mscr_cifar10`` settings ``cfg`` (model, optimiser, schedule,
    data sizes, threads) and the test levels ``eps_test``."""
    return dict(
        arch=cfg.arch,
        width=cfg.width,
        dropout=cfg.dropout,
        epochs=cfg.epochs,
        batch_size=cfg.batch_size,
        lr=cfg.lr,
        momentum=cfg.momentum,
        weight_decay=cfg.weight_decay,
        schedule=cfg.schedule,
        milestones=cfg.milestones,
        n_train=cfg.n_train,
        n_test=cfg.n_test,
        full_data=cfg.full_data,
        eps_test=list(eps_test),
        torch_threads=cfg.torch_threads,
        train_threads=cfg.train_threads,
        eval_batch_size=cfg.eval_batch_size,
        # opt-in fused training and a WRN's widening factor (the dry run's); absent when off, so the default
        # configs (and their stores) are unchanged
        **({"fused_group": int(cfg.fused_group)} if cfg.get("fused_group") else {}),
        **({"widen": int(cfg.widen)} if cfg.get("widen") else {}),
    )


def cells_cifar(cfg, eps_train) -> list[dict]:
    """Table 2b's grid cells from the ``mscr_cifar10`` settings: ``cfg.runs`` run seeds
    (:func:`robeval.mscr.protocol.run_seeds` of ``cfg.seed``) x every level in ``eps_train``."""
    return make_cells(run_seeds(cfg.seed, cfg.runs), eps_train)
