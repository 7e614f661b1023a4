"""Randomized-smoothing training: Gaussian training and the three modifications of Sun et al. (Section 5).

Gaussian training (Cohen et al., 2019) minimises the cross-entropy of the base classifier on
``x + eps``, ``eps ~ N(0, sigma^2 I)``, averaged over ``m`` noise draws per image. Sun et al. show
that focusing on easy inputs (``p_A`` close to 1) is enough to replicate the ACR gains of SOTA RS
training, with three changes (their Algorithm 2):

1. **Discard hard data** (Sec. 5.1): at warm-up epoch ``T``, estimate ``p_A`` of every training image
   from ``N_discard = 100`` noise draws with the current model and drop images with ``p_A < p_0``.
   Training continues on the kept set with the same number of steps per epoch (sampling with
   replacement from the kept set).
2. **Reweight by approximate certified radius** (Sec. 5.2): from epoch ``T`` on, every 10 epochs,
   count correct predictions ``n_A`` among ``m_w = 16`` draws and sample each image with weight
   ``Phi^{-1}(CP_lower(max(n_A, floor(0.75 m_w)), m_w, alpha_w))`` (one-sided Clopper--Pearson at
   ``1 - alpha_w``, ``alpha_w = 0.1``; clipping the count at ``0.75 m_w`` keeps every weight positive).
3. **Adaptive attack on the noise sphere** (Sec. 5.3, App. C.3): from epoch ``T`` on, each Gaussian
   noise draw ``delta_0`` is moved by ``K`` steps of normalised gradient ascent on the loss (L2 step
   ``eta * g / ||g||``, or ``eta * sign(g) / sqrt(d)``), each followed by rescaling to
   ``||delta_0||`` (same Gaussian density, Theorem 2); the first iterate that makes the base
   classifier err is kept, else the last.

The building blocks of the three modifications (:func:`estimate_p_correct`, :func:`discard_hard`,
:func:`radius_weights`, :func:`noise_sphere_attack`, :func:`gaussian_noise_loss`) live in
:mod:`robeval.acr.easy_inputs`; this module runs them in :func:`train_rs`. :func:`gradient_norms` measures the
mean per-sample gradient norm (w.r.t. all parameters) of easy and hard inputs (Table 2 / Fig. 5).
:func:`variant_certification_table`, :func:`variant_ecdfs` and :func:`gradient_norm_table` turn the records of
the :func:`run_variant` grid into notebook 09's tables (:mod:`robeval.acr.training_tables`); all of these are
importable from here.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from numbers import Real

import numpy as np
import torch
import torch.nn as nn

from robeval.acr.checks import check_alpha, check_count, check_num_samples, check_sigma, refuse_text
from robeval.acr.easy_inputs import (
    ChannelsLastInference,
    as_float_images,
    discard_hard,
    estimate_p_correct,
    gaussian_noise_loss,
    noise_sphere_attack,
    radius_weights,
)
from robeval.acr.smoothing import BATCH_SIZE_MEANING, Smooth
from robeval.acr.training_tables import (
    GRADIENT_COLUMNS,
    TIMING_COLUMNS,
    beside_paper,
    gradient_norm_table,
    per_seed_table,
    timing_table,
    variant_certification_table,
    variant_ecdfs,
    within_budget,
)
from robeval.core.env import usable_device
from robeval.core.seeding import keyed
from robeval.core.validation import check_bool

GRID_CELLS = ("run_variant",)  # the functions a grid store may name (core.runs.cell_function)

__all__ = [
    "RSTrainConfig",
    "ChannelsLastInference",
    "estimate_p_correct",
    "discard_hard",
    "radius_weights",
    "noise_sphere_attack",
    "gaussian_noise_loss",
    "train_rs",
    "gradient_norms",
    "variant_flags",
    "VARIANTS",
    "run_variant",
    "GRADIENT_COLUMNS",
    "TIMING_COLUMNS",
    "per_seed_table",
    "variant_certification_table",
    "variant_ecdfs",
    "within_budget",
    "beside_paper",
    "gradient_norm_table",
    "timing_table",
    "rs_config",
    "torch_seed",
    "trained_model",
    "warmup_key",
]


@dataclass(frozen=True)
class RSTrainConfig:
    """Settings of :func:`train_rs` (defaults: the paper's CIFAR-10 protocol at sigma = 0.5, Table 6).

    ``batch_size`` counts clean images per SGD step; each is replicated ``num_noise`` times (the
    reference implementation splits batches of 256 into 4 chunks of 64 images x 4 noise draws).
    """

    sigma: float = 0.5
    epochs: int = 150
    batch_size: int = 64
    num_noise: int = 4
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 1e-4
    milestones: tuple = (50, 100)
    gamma: float = 0.1
    flip_crop: bool = True
    discard: bool = False
    discard_epoch: int = 70
    discard_threshold: float = 0.4
    discard_draws: int = 100
    reweight: bool = False
    reweight_every: int = 10
    reweight_draws: int = 16
    reweight_p_min: float = 0.75
    reweight_alpha: float = 0.1
    attack: bool = False
    attack_steps: int = 6
    attack_step_size: float = 0.25
    attack_norm: str = "l2"
    eval_batch_size: int = 1000
    seed: int = 0

    def __post_init__(self):
        check_sigma(self.sigma)
        for name in ("flip_crop", "discard", "reweight", "attack"):
            check_bool(getattr(self, name), name)  # "False" would switch a modification on
        for name in ("epochs", "discard_epoch", "attack_steps", "seed"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {v!r}.")
        _check_milestones(self.milestones)
        for name, what, ok in (
            ("lr", "a finite number > 0 (the initial learning rate), e.g. 0.1", lambda v: v > 0),
            ("momentum", "a number in [0, 1) (SGD momentum), e.g. 0.9", lambda v: 0 <= v < 1),
            ("weight_decay", "a finite number >= 0, e.g. 1e-4", lambda v: v >= 0),
            (
                "gamma",
                "a finite number > 0 (the factor of the learning rate at each milestone), e.g. 0.1",
                lambda v: v > 0,
            ),
            ("discard_threshold", "a probability in [0, 1], e.g. 0.4", lambda v: 0 <= v <= 1),
            ("reweight_p_min", "a number in [0, 1], e.g. 0.75", lambda v: 0 <= v <= 1),
            ("attack_step_size", "a finite number >= 0 (the step size of the attack), e.g. 0.25", lambda v: v >= 0),
        ):
            _check_real(getattr(self, name), name, what, ok)
        for name in ("num_noise", "discard_draws", "reweight_draws"):
            check_num_samples(getattr(self, name), name)
        for name, meaning in (
            ("batch_size", "clean images per SGD step"),
            ("reweight_every", "epochs between two computations of the sampling weights"),
            ("eval_batch_size", BATCH_SIZE_MEANING),
        ):
            check_count(getattr(self, name), name, meaning)  # not numbers of noise draws
        check_alpha(self.reweight_alpha, "reweight_alpha")
        if self.attack_norm not in ("l2", "linf"):
            raise ValueError(f"attack_norm must be 'l2' or 'linf', got {self.attack_norm!r}.")

    @property
    def start_epoch(self) -> int:
        """The warm-up epoch ``T`` (``discard_epoch``) from which the enabled modifications are active (Sec. 5.4).
        Variants without discarding keep ``T`` as the start of reweighting and of the attack, so every variant
        of a seed shares its first ``T`` epochs of Gaussian training."""
        return int(self.discard_epoch)


def _check_real(value, name: str, what: str, ok) -> None:
    """TypeError naming ``name`` unless ``value`` is a real number (text and booleans included), ValueError unless
    it is finite and ``ok(value)``; ``what`` says what to pass."""
    refuse_text(value, name, what)
    if not isinstance(value, (Real, np.number)):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__} {value!r:.60}.")
    if not (math.isfinite(float(value)) and ok(float(value))):
        raise ValueError(f"{name} must be {what}; got {value!r}.")


def _check_milestones(milestones) -> None:
    """The epochs at which the learning rate is multiplied by ``gamma`` (``train_rs`` passes ``m * steps`` to
    MultiStepLR): a tuple or list of integers >= 1, strictly increasing (possibly empty: a constant rate). A
    milestone at or after ``epochs`` never applies."""
    example = "pass a tuple of epochs such as milestones=(50, 100)"
    if not isinstance(milestones, (tuple, list)):
        raise TypeError(
            f"milestones must be a tuple of epochs, got {type(milestones).__name__} {milestones!r:.60}; {example}."
        )
    for m in milestones:
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(
                f"milestones must hold integers >= 1 (epochs), got {m!r} in {milestones!r:.60}; {example}."
            )
    if any(b <= a for a, b in zip(milestones, milestones[1:])):
        raise ValueError(f"milestones must be strictly increasing, got {milestones!r:.60}; {example}.")


VARIANTS = {
    # name: (discard, reweight, attack) — the rows of Table 5
    "gaussian": (False, False, False),
    "discard": (True, False, False),
    "reweight": (False, True, False),
    "attack": (False, False, True),
    "discard+reweight": (True, True, False),
    "discard+attack": (True, False, True),
    "reweight+attack": (False, True, True),
    "all": (True, True, True),
}


def variant_flags(name: str) -> dict:
    """``{"discard": bool, "reweight": bool, "attack": bool}`` of a Table-5 variant name."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; choose one of {', '.join(VARIANTS)}.")
    return dict(zip(("discard", "reweight", "attack"), VARIANTS[name]))


# --------------------------------------------------------------------------------------------
# Algorithm 2
# --------------------------------------------------------------------------------------------


def torch_seed(seed, *keys) -> int:
    """A 63-bit integer seed for ``torch.Generator.manual_seed`` from the child stream
    :func:`robeval.core.seeding.keyed` ``(seed, *keys)`` (derived seeds, never ``seed + k``)."""
    from robeval.core.seeding import keyed

    s = keyed(seed, *keys).generate_state(2, np.uint32)
    return (int(s[0]) << 31) ^ int(s[1])


def warmup_key(config: RSTrainConfig) -> dict:
    """The settings that determine training up to the warm-up epoch ``T``: every field of ``config`` except the
    three modification switches (before ``T`` every variant is plain Gaussian training) and ``eval_batch_size``
    (a speed setting: per-image noise streams make the estimates independent of it), so the variants of one seed
    share their first ``T`` epochs exactly (:func:`train_rs` ``stop_epoch`` / ``resume``)."""
    from dataclasses import asdict

    return {k: v for k, v in asdict(config).items() if k not in ("discard", "reweight", "attack", "eval_batch_size")}


def _state_to_cache(model, opt, gen, ngen, epoch, kept, weights, history, key) -> dict:
    return {
        "epoch": int(epoch),
        "model": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
        "opt": opt.state_dict(),
        "gen": gen.get_state(),
        "ngen": ngen.get_state().cpu(),
        "kept": torch.as_tensor(np.asarray(kept, dtype=np.int64)),
        "weights": None if weights is None else torch.as_tensor(np.asarray(weights, dtype=np.float64)),
        "loss": [float(v) for v in history["loss"]],
        "n_kept": [int(v) for v in history["n_kept"]],
        "reweight_epochs": [int(v) for v in history["reweight_epochs"]],
        "key": repr(sorted(key.items())),
    }


def train_rs(
    model: nn.Module,
    x,
    y,
    config: RSTrainConfig,
    device=None,
    progress: bool = True,
    *,
    stop_epoch: int | None = None,
    resume: dict | None = None,
):
    """Train ``model`` with Gaussian training plus the enabled modifications (Algorithm 2).

    From the warm-up epoch ``T`` (``config.discard_epoch``) on, the enabled modifications apply (Sec. 5.4): hard
    images are discarded once at ``T``, the sampling weights are recomputed every ``reweight_every`` epochs from
    ``T`` (including ``T``), and the noise draws are attacked. Before ``T`` every variant is the same Gaussian
    training, so one warm-up run can be shared: ``stop_epoch=T`` returns its state in ``history["state"]``, and
    ``resume=state`` continues from it with any variant of the same :func:`warmup_key` — bit-identical to training
    that variant from scratch. Randomness comes from child streams of ``config.seed``
    (:func:`robeval.core.seeding.keyed`); training runs with a fixed number of threads
    (:func:`robeval.core.nn.training.train_threads`), so results do not depend on the machine's core count.

    Parameters
    ----------
    model : torch.nn.Module
        Base classifier taking float images in [0, 1] (robeval models normalise inside).
    x : array (M, C, H, W), uint8 or float in [0, 1]
    y : array_like of int, shape (M,)
    config : RSTrainConfig
    device : optional (default: CUDA when present, else CPU)
    progress : bool
    stop_epoch : int, optional
        Stop before this epoch (at most ``config.start_epoch``) and return the state to resume from.
    resume : dict, optional
        ``history["state"]`` of a run with ``stop_epoch`` and the same :func:`warmup_key`.

    Returns
    -------
    model : torch.nn.Module (eval mode)
    history : dict
        ``kept`` (indices after discarding), ``weights`` (last sampling weights over ``kept``),
        ``loss`` (mean loss per epoch), ``n_kept``, ``reweight_epochs``, ``seconds`` (of this call) and, with
        ``stop_epoch``, ``state``.
    """
    from tqdm.auto import tqdm

    from robeval.core.env import torch_device
    from robeval.core.nn.training import fixed_threads, flip_crop, train_threads

    cfg = config
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = as_float_images(x)
    if len(xt) != len(y):
        raise ValueError(f"x has {len(xt)} images but y has {len(y)} labels.")
    end = cfg.epochs if stop_epoch is None else int(stop_epoch)
    if stop_epoch is not None and not 0 <= end <= min(cfg.start_epoch, cfg.epochs):
        raise ValueError(
            f"stop_epoch={stop_epoch} must lie in [0, {min(cfg.start_epoch, cfg.epochs)}] (the warm-up epoch T = "
            "discard_epoch): only the epochs before T are shared between variants."
        )
    key = warmup_key(cfg)
    if resume is not None and resume.get("key") != repr(sorted(key.items())):
        raise ValueError(
            "resume comes from a warm-up with other settings; warm-up states are shared only between variants "
            "with the same warmup_key(config) (all settings but discard/reweight/attack)."
        )
    dev = torch_device() if device is None else usable_device(device)
    model.to(dev)
    yt = torch.as_tensor(y).to(dev)
    xd = xt.to(dev)  # the training images live on the device: a step sends its indices and flip/crop draws only
    gen = torch.Generator().manual_seed(torch_seed(cfg.seed, "order"))  # sampling and augmentation (CPU)
    ngen = torch.Generator(device=dev).manual_seed(torch_seed(cfg.seed, "noise"))  # noise draws
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)
    steps = (len(xt) + cfg.batch_size - 1) // cfg.batch_size  # fixed number of steps per epoch
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, [int(m) * steps for m in cfg.milestones], gamma=cfg.gamma)
    kept = np.arange(len(y))
    weights = None
    history = {"loss": [], "n_kept": [], "reweight_epochs": []}
    first = 0
    if resume is not None:
        first = int(resume["epoch"])
        if first > cfg.start_epoch:
            raise ValueError(f"resume is at epoch {first}, past the warm-up epoch T={cfg.start_epoch}.")
        model.load_state_dict(resume["model"])
        opt.load_state_dict(resume["opt"])  # with the learning rate reached at the warm-up's end
        sched.last_epoch = first * steps  # the schedule's position: later milestones still apply
        gen.set_state(resume["gen"])
        ngen.set_state(resume["ngen"])
        kept = resume["kept"].numpy().copy()
        weights = None if resume["weights"] is None else resume["weights"].numpy().copy()
        history = {k: list(resume[k]) for k in ("loss", "n_kept", "reweight_epochs")}
    t0 = time.perf_counter()
    bar = tqdm(total=max(end - first, 0) * steps, desc="rs-train", disable=not progress, leave=False)
    with fixed_threads(train_threads()):
        for epoch in range(first, end):
            active = epoch >= cfg.start_epoch
            if cfg.discard and epoch == cfg.discard_epoch:
                # Sec. 5.1: p_A from the model of the previous epoch, drop the hard images once
                p = estimate_p_correct(
                    model,
                    xt[kept],
                    y[kept],
                    cfg.sigma,
                    cfg.discard_draws,
                    cfg.eval_batch_size,
                    seed=keyed(cfg.seed, "discard", epoch),
                    device=dev,
                )
                kept = kept[discard_hard(p, cfg.discard_threshold)]
                if len(kept) == 0:
                    raise ValueError(
                        "discarding removed every training image; lower discard_threshold or start later "
                        "(discard_epoch)."
                    )
            if cfg.reweight and active and (epoch - cfg.start_epoch) % cfg.reweight_every == 0:
                # Sec. 5.2: approximate certified radius from 16 draws, every 10 epochs
                p = estimate_p_correct(
                    model,
                    xt[kept],
                    y[kept],
                    cfg.sigma,
                    cfg.reweight_draws,
                    cfg.eval_batch_size,
                    seed=keyed(cfg.seed, "reweight", epoch),
                    device=dev,
                )
                weights = radius_weights(p, cfg.reweight_draws, cfg.reweight_p_min, cfg.reweight_alpha)
                history["reweight_epochs"].append(epoch)
            # the epoch's visiting order: a permutation before T; afterwards len(x) draws with replacement
            # from the kept set (uniform, or proportional to the radius weights)
            if not active or (not cfg.discard and not cfg.reweight):
                order = torch.randperm(len(xt), generator=gen).numpy()
            elif cfg.reweight and weights is not None:
                w = torch.as_tensor(np.maximum(weights, 1e-12), dtype=torch.float64)
                order = kept[torch.multinomial(w, len(xt), replacement=True, generator=gen).numpy()]
            else:
                order = kept[torch.randint(0, len(kept), (len(xt),), generator=gen).numpy()]
            model.train()
            losses = []
            for s in range(0, len(order), cfg.batch_size):
                idx = torch.as_tensor(order[s : s + cfg.batch_size]).to(dev, non_blocking=True)
                xb, yb = xd[idx], yt[idx]
                if cfg.flip_crop:  # on the device, from the draws of the CPU generator (flip_crop)
                    xb = flip_crop(xb, gen)
                noise = (
                    torch.randn((cfg.num_noise * len(xb),) + tuple(xb.shape[1:]), generator=ngen, device=dev)
                    * cfg.sigma
                )
                if cfg.attack and active and cfg.attack_steps > 0:
                    model.eval()
                    xr = xb.repeat(cfg.num_noise, 1, 1, 1)
                    noise = noise_sphere_attack(
                        model,
                        xr,
                        yb.repeat(cfg.num_noise),
                        noise,
                        cfg.attack_steps,
                        cfg.attack_step_size,
                        cfg.attack_norm,
                    )
                    model.train()
                loss = gaussian_noise_loss(model, xb, yb, noise)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                sched.step()
                losses.append(loss.detach())  # read once per epoch: no device sync per step
                bar.update()
            history["loss"].append(float(np.mean(torch.stack(losses).tolist())) if losses else math.nan)
            history["n_kept"].append(int(len(kept)))
    bar.close()
    history["kept"] = kept
    history["weights"] = weights
    history["seconds"] = time.perf_counter() - t0
    if stop_epoch is not None:
        history["state"] = _state_to_cache(model, opt, gen, ngen, end, kept, weights, history, key)
    return model.eval(), history


# --------------------------------------------------------------------------------------------
# Table 2: gradient norms of easy and hard inputs
# --------------------------------------------------------------------------------------------


def gradient_norms(
    model: nn.Module,
    x,
    y,
    sigma: float,
    num_noise: int = 4,
    attack_steps: int = 0,
    attack_step_size: float = 0.25,
    attack_norm: str = "l2",
    seed: int = 0,
    device=None,
) -> np.ndarray:
    """Per-sample L2 norm of the gradient of the Gaussian-training loss w.r.t. all model parameters.

    For each image, the loss is the mean cross-entropy over ``num_noise`` Gaussian draws (optionally
    moved by the adaptive attack, Fig. 5), with the model in eval mode (batch-norm statistics
    fixed, so samples do not interact).

    Parameters
    ----------
    model : torch.nn.Module
    x : array (M, C, H, W), uint8 or float in [0, 1]
    y : array_like of int, shape (M,)
    sigma : float
    num_noise : int
    attack_steps, attack_step_size, attack_norm : adaptive attack applied to the draws (0 steps: none)
    seed : int or numpy.random.SeedSequence
        Root of the noise draws (the stream ``keyed(seed, "gradient-norms")``).
    device : optional

    Returns
    -------
    numpy.ndarray of float64, shape (M,)
    """
    sigma = check_sigma(sigma)
    num_noise = check_num_samples(num_noise, "num_noise")
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = as_float_images(x)
    dev = usable_device(device) if device is not None else next(model.parameters()).device
    from robeval.core.nn.training import fixed_threads, train_threads

    gen = torch.Generator(device=dev).manual_seed(torch_seed(seed, "gradient-norms"))
    params = [p for p in model.parameters() if p.requires_grad]
    model.eval()
    out = np.empty(len(y))
    with fixed_threads(train_threads()):  # parameter gradients are reductions: fixed threads, fixed sums
        for i in range(len(y)):
            xi = xt[i : i + 1].to(dev)
            yi = torch.as_tensor(y[i : i + 1], device=dev)
            noise = torch.randn((num_noise,) + tuple(xi.shape[1:]), generator=gen, device=dev) * sigma
            if attack_steps:
                noise = noise_sphere_attack(
                    model,
                    xi.repeat(num_noise, 1, 1, 1),
                    yi.repeat(num_noise),
                    noise,
                    attack_steps,
                    attack_step_size,
                    attack_norm,
                )
            loss = gaussian_noise_loss(model, xi, yi, noise)
            grads = torch.autograd.grad(loss, params)
            out[i] = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads)))
    return out


# --------------------------------------------------------------------------------------------
# one experiment cell (train, certify, measure gradients) for robeval.core.runs
# --------------------------------------------------------------------------------------------


def _per_sigma(value, sigma_index: int):
    return value[sigma_index] if isinstance(value, (list, tuple)) else value


def rs_config(cell: dict, config: dict) -> RSTrainConfig:
    """The :class:`RSTrainConfig` of one grid cell (``variant``, ``sigma``, ``seed``) under the resolved settings
    ``config`` (per-sigma hyper-parameters are lists aligned with ``config["sigmas"]``)."""
    flags = variant_flags(cell["variant"])
    sigma = float(cell["sigma"])
    sigmas = [float(s) for s in config["sigmas"]]
    if sigma not in sigmas:
        raise ValueError(f"sigma={sigma} has no hyper-parameters; configured sigmas: {sigmas}.")
    k = sigmas.index(sigma)
    return RSTrainConfig(
        sigma=sigma,
        epochs=int(config["epochs"]),
        batch_size=int(config["batch_size"]),
        num_noise=int(_per_sigma(config["num_noise"], k)),
        lr=float(config["lr"]),
        momentum=float(config["momentum"]),
        weight_decay=float(config["weight_decay"]),
        milestones=tuple(int(m) for m in config["milestones"]),
        gamma=float(config["gamma"]),
        discard=flags["discard"],
        discard_epoch=int(_per_sigma(config["discard_epoch"], k)),
        discard_threshold=float(_per_sigma(config["discard_threshold"], k)),
        discard_draws=int(config["discard_draws"]),
        reweight=flags["reweight"],
        reweight_every=int(config["reweight_every"]),
        reweight_draws=int(config["reweight_draws"]),
        attack=flags["attack"],
        attack_steps=int(_per_sigma(config["attack_steps"], k)),
        attack_step_size=float(_per_sigma(config["attack_step_size"], k)),
        eval_batch_size=int(config["eval_batch_size"]),
        seed=int(cell["seed"]),
    )


def _model_files(rs_cfg: RSTrainConfig, config: dict) -> tuple:
    """Cache files of a cell's warm-up state and trained model, named by everything that determines them
    (training settings, architecture, training subset, code of this module): no network is trained twice."""
    from dataclasses import asdict

    from robeval.core.paths import cache_dir
    from robeval.core.runs import config_identity

    common = {
        "arch": config["arch"],
        "width": config.get("width"),
        "n_train": int(config["n_train"]),
        "full_cifar10": bool(config.get("full_cifar10", False)),
    }
    folder = cache_dir() / "acr_rs_training"
    warm = config_identity({**common, "train": warmup_key(rs_cfg)}, fn=train_rs)
    settings = {k: v for k, v in asdict(rs_cfg).items() if k != "eval_batch_size"}  # speed only
    full = config_identity({**common, "train": settings}, fn=train_rs)
    return folder / "warmup" / f"{warm}.pt", folder / "models" / f"{full}.pt"


def _save(obj, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    torch.save(obj, tmp)
    tmp.replace(path)


def trained_model(rs_cfg: RSTrainConfig, config: dict, x, y, device=None, progress: bool = False):
    """Train (or load from the cache) the model of one variant: the warm-up state of its seed is shared with the
    other variants of that seed (:func:`warmup_key`), the finished model is cached by its full settings.

    Returns
    -------
    model : torch.nn.Module (eval mode)
    info : dict
        ``n_kept``, ``final_loss``, ``train_seconds`` (spent in this call: 0 when loaded), ``warmup_seconds``
        (the warm-up's share of it), ``cached`` (the model came from the cache).
    """
    from robeval.core.nn import models

    warm_path, model_path = _model_files(rs_cfg, config)
    torch.manual_seed(torch_seed(rs_cfg.seed, "init"))
    model = models.from_config(config).to(device or "cpu")
    if model_path.is_file():
        saved = torch.load(model_path, map_location="cpu", weights_only=True)
        model.load_state_dict(saved["model"])
        info = {k: saved[k] for k in ("n_kept", "final_loss")}
        return model.to(device or "cpu").eval(), {**info, "train_seconds": 0.0, "warmup_seconds": 0.0, "cached": True}
    resume, warm_seconds = None, 0.0
    t_warm = min(rs_cfg.start_epoch, rs_cfg.epochs)
    if t_warm > 0:
        if warm_path.is_file():
            resume = torch.load(warm_path, map_location="cpu", weights_only=True)
        else:
            _, h = train_rs(model, x, y, rs_cfg, device=device, progress=progress, stop_epoch=t_warm)
            resume, warm_seconds = h["state"], h["seconds"]
            _save(resume, warm_path)
    model, hist = train_rs(model, x, y, rs_cfg, device=device, progress=progress, resume=resume)
    info = {"n_kept": int(len(hist["kept"])), "final_loss": float(hist["loss"][-1]) if hist["loss"] else math.nan}
    _save({"model": {k: v.detach().cpu() for k, v in model.state_dict().items()}, **info}, model_path)
    return model, {
        **info,
        "train_seconds": warm_seconds + hist["seconds"],
        "warmup_seconds": warm_seconds,
        "cached": False,
    }


def train_subset(seed, n_total: int, n_train: int):
    """The ``n_train`` training images (sorted indices into ``n_total``) every model of ``seed`` trains on, and
    the generator that drew them (:func:`run_variant` goes on drawing the gradient-norm pool from it)."""
    rng = np.random.default_rng(keyed(seed, "train-subset"))
    return np.sort(rng.permutation(n_total)[:n_train]), rng


def certified_test_indices(n_total: int, n: int) -> np.ndarray:
    """``n`` evenly spaced test indices into ``n_total`` (a smaller ``n`` with the same spacing is a prefix)."""
    return np.arange(0, n_total, max(1, n_total // n))[:n]


def run_variant(cell: dict, config: dict) -> list:
    """Train one Table-5 variant, certify it and (for ``config["grad_variants"]``) measure easy/hard gradient
    norms — a ``run_grid`` cell.

    Every variant of a seed trains on the same subset of training images from the same initialisation and
    shares its warm-up epochs (:func:`trained_model`); all are certified on the same test images with the same
    per-image noise streams (``keyed(seed, "certify")``): differences between variants are paired by seed and by
    test image.

    Parameters
    ----------
    cell : dict
        ``variant`` (a key of :data:`VARIANTS`), ``sigma`` and ``seed``.
    config : dict
        Resolved ``acr_rs_training`` settings; per-sigma hyper-parameters are lists aligned with
        ``config["sigmas"]``. ``tsv_dir`` (optional) receives the certification in the published TSV format.
        ``threads``: torch threads (0 or absent: torch's count; else an integer 1 .. 1024).

    Returns
    -------
    list of dict
        One ``record="cert"`` row per certified test image and one ``record="summary"`` row.
    """
    from pathlib import Path

    from robeval.core import data
    from robeval.core.env import torch_device
    from robeval.core.nn.training import check_config_threads, to_float_tensor

    threads = check_config_threads(config, "threads")  # before anything is computed
    rs_cfg = rs_config(cell, config)
    sigma, seed = rs_cfg.sigma, rs_cfg.seed
    if threads is not None:
        torch.set_num_threads(threads)
    xtr, ytr, xte, yte = data.load_cifar10_any(bool(config.get("full_cifar10", False)))
    tr, rng = train_subset(seed, len(ytr), int(config["n_train"]))
    te = certified_test_indices(len(yte), int(config["n_test"]))
    dev = torch_device()
    model, info = trained_model(rs_cfg, config, xtr[tr], ytr[tr], dev, progress=bool(config.get("progress", False)))

    # certification of the test images (Cohen et al. CERTIFY)
    t0 = time.perf_counter()
    sm = Smooth(ChannelsLastInference(model), 10, sigma, device=dev)
    cert = sm.certify_dataset(
        to_float_tensor(xte[te]),
        yte[te],
        n0=int(config["cert_n0"]),
        n=int(config["cert_n"]),
        alpha=float(config["cert_alpha"]),
        batch_size=int(config["eval_batch_size"]),
        seed=keyed(seed, "certify"),
        idx=te,
        progress=bool(config.get("progress", False)),
    )
    cert_seconds = time.perf_counter() - t0
    if config.get("tsv_dir"):
        from robeval.acr.files import write_certification_tsv

        write_certification_tsv(cert, Path(config["tsv_dir"]) / cell["variant"] / f"noise_{sigma}_seed{seed}.tsv")

    summary = {
        "record": "summary",
        "n_train": int(len(tr)),
        "n_kept": int(info["n_kept"]),
        "train_seconds": float(info["train_seconds"]),
        "warmup_seconds": float(info["warmup_seconds"]),
        "cert_seconds": float(cert_seconds),
        "final_loss": float(info["final_loss"]),
    }
    if cell["variant"] in config.get("grad_variants", VARIANTS):
        # Table 2 / Fig. 5: gradient norms on easy and hard training images (p_A estimated from draws)
        t0 = time.perf_counter()
        gsub = np.sort(rng.permutation(len(tr))[: int(config["grad_pool"])])
        p = estimate_p_correct(
            model,
            xtr[tr][gsub],
            ytr[tr][gsub],
            sigma,
            int(config["grad_draws"]),
            int(config["eval_batch_size"]),
            seed=keyed(seed, "easy-hard"),
            device=dev,
        )
        easy = gsub[p >= float(config["easy_threshold"])][: int(config["grad_n"])]
        hard = gsub[p < float(config["hard_threshold"])][: int(config["grad_n"])]
        summary.update(n_easy=int(len(easy)), n_hard=int(len(hard)))
        for tag, steps in (("", 0), ("_attack", rs_cfg.attack_steps)):
            for name, idx in (("easy", easy), ("hard", hard)):
                g = (
                    gradient_norms(
                        model,
                        xtr[tr][idx],
                        ytr[tr][idx],
                        sigma,
                        rs_cfg.num_noise,
                        attack_steps=steps,
                        attack_step_size=rs_cfg.attack_step_size,
                        seed=keyed(seed, "gradients"),
                        device=dev,
                    )
                    if len(idx)
                    else np.array([])
                )
                summary[f"grad_{name}{tag}"] = float(g.mean()) if len(g) else float("nan")
        summary["grad_seconds"] = time.perf_counter() - t0
    rows = [
        dict(record="cert", **{c: (v.item() if hasattr(v, "item") else v) for c, v in r.items()})
        for r in cert.drop(columns=["time"]).assign(time_s=cert["time"]).to_dict(orient="records")
    ]
    return rows + [summary]


# settings that are not part of the grid's shared config: the cells enumerate variants and seeds, the time
# estimate / scaled-down note are descriptions only, n_jobs says how many processes compute the cells (not what they
# compute), the seq_* settings belong to robeval.acr.sequential's grids (so none of them changes this grid's identity)
_NOT_GRID_CONFIG = ("estimate", "scaled_down", "variants", "seeds", "n_jobs")
_SEQUENTIAL_PREFIX = "seq_"


def grid_config(cfg, out_dir) -> dict:
    """The config shared by every cell of notebook 09's :func:`run_variant` grid.

    Parameters
    ----------
    cfg : robeval.core.profiles.Settings
        The resolved ``acr_rs_training`` settings.
    out_dir : path
        The experiment's result folder; certifications are also written as TSV files under
        ``<out_dir>/certify`` (``tsv_dir``).

    Returns
    -------
    dict
        Every setting except ``variants`` and ``seeds`` (they are the cells, see :func:`variant_cells`) and
        the descriptive ``estimate`` / ``scaled_down``, plus ``tsv_dir``.
    """
    from pathlib import Path

    config = {
        k: v for k, v in cfg.as_dict().items() if k not in _NOT_GRID_CONFIG and not k.startswith(_SEQUENTIAL_PREFIX)
    }
    config["tsv_dir"] = str(Path(out_dir) / "certify")
    return config


def variant_cells(cfg) -> list[dict]:
    """The cells of notebook 09's :func:`run_variant` grid: one per (variant, sigma, seed) of the settings
    ``cfg.variants`` x ``cfg.sigmas`` x ``cfg.seeds``, in that nesting order.

    Returns
    -------
    list of dict with keys ``variant``, ``sigma`` and ``seed``.
    """
    return [{"variant": v, "sigma": s, "seed": sd} for v in cfg.variants for s in cfg.sigmas for sd in cfg.seeds]
