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

:func:`gradient_norms` measures the mean per-sample gradient norm (w.r.t. all parameters) of easy
and hard inputs (Table 2 / Fig. 5). :func:`variant_certification_table`, :func:`variant_ecdfs` and
:func:`gradient_norm_table` turn the records of the :func:`run_variant` grid into notebook 09's tables.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy.stats import norm as _norm

from robeval.validation import check_frame
from robeval.smoothing import Smooth, check_alpha, check_num_samples, check_sigma, clopper_pearson_lower

__all__ = [
    "RSTrainConfig",
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
    "variant_certification_table",
    "variant_ecdfs",
    "gradient_norm_table",
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
        for name in ("epochs", "discard_epoch", "attack_steps"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {v!r}.")
        for name in ("batch_size", "num_noise", "discard_draws", "reweight_every", "reweight_draws", "eval_batch_size"):
            check_num_samples(getattr(self, name), name)
        if not 0.0 <= self.discard_threshold <= 1.0:
            raise ValueError(f"discard_threshold must be a probability in [0, 1], got {self.discard_threshold!r}.")
        if not 0.0 <= self.reweight_p_min <= 1.0:
            raise ValueError(f"reweight_p_min must be in [0, 1], got {self.reweight_p_min!r}.")
        check_alpha(self.reweight_alpha)
        if self.attack_norm not in ("l2", "linf"):
            raise ValueError(f"attack_norm must be 'l2' or 'linf', got {self.attack_norm!r}.")
        if self.attack_step_size < 0:
            raise ValueError("attack_step_size must be >= 0.")

    @property
    def start_epoch(self) -> int:
        """Epoch from which the kept set, the reweighting and the attack are active (``T``, or 0)."""
        return int(self.discard_epoch) if self.discard else 0


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
# building blocks
# --------------------------------------------------------------------------------------------


def _as_float_images(x) -> torch.Tensor:
    from robeval.training import to_float_tensor

    return to_float_tensor(x)


def estimate_p_correct(model: nn.Module, x, y, sigma: float, num_draws: int, batch_size: int = 1000,
                       seed: int = 0, device=None) -> np.ndarray:
    """Fraction of ``num_draws`` Gaussian draws on which the base classifier predicts the label.

    This is the training-time estimate of ``p_A`` used for discarding (100 draws) and for the
    reweighting counts (16 draws).

    Parameters
    ----------
    model : torch.nn.Module
    x : array (M, C, H, W), uint8 or float in [0, 1]
    y : array_like of int, shape (M,)
    sigma : float
    num_draws : int
    batch_size : int
        Noisy inputs per forward pass.
    seed : int
    device : optional

    Returns
    -------
    numpy.ndarray of float64, shape (M,), values in {0, 1/num_draws, ..., 1}.
    """
    num_draws = check_num_samples(num_draws, "num_draws")
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = _as_float_images(x)
    if len(xt) != len(y):
        raise ValueError(f"x has {len(xt)} images but y has {len(y)} labels.")
    dev = torch.device(device) if device is not None else next(model.parameters()).device
    if len(y) == 0:
        return np.empty(0)
    sm = Smooth(model, _num_outputs(model, xt[:1].to(dev)), sigma, device=dev)
    model.eval()
    gen = torch.Generator(device=dev).manual_seed(int(seed))
    out = np.empty(len(y))
    step = max(1, batch_size // num_draws) * 8
    with torch.no_grad():
        for s in range(0, len(y), step):
            counts = sm.sample_counts(xt[s:s + step].to(dev), num_draws, batch_size, gen)
            out[s:s + step] = counts[np.arange(len(counts)), y[s:s + step]] / num_draws
    return out


def _num_outputs(model, x1) -> int:
    with torch.no_grad():
        was = model.training
        model.eval()
        k = int(model(x1).shape[1])
        model.train(was)
    return k


def discard_hard(p_correct, threshold: float) -> np.ndarray:
    """Indices of the images kept by Sec. 5.1: ``p_correct >= threshold``.

    Parameters
    ----------
    p_correct : array_like of float, shape (M,)
    threshold : float in [0, 1]

    Returns
    -------
    numpy.ndarray of int64 (sorted indices)
    """
    p = np.asarray(p_correct, dtype=np.float64).reshape(-1)
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}.")
    return np.flatnonzero(p >= threshold)


def radius_weights(p_correct, num_draws: int, p_min: float = 0.75, alpha: float = 0.1) -> np.ndarray:
    """Sampling weights of Sec. 5.2: the normalised approximate certified radius.

    ``w = Phi^{-1}(CP_lower(n_A, m, alpha))`` with ``n_A = floor(clip(p, p_min, 1) * m)``, ``m = num_draws``.
    With ``m = 16``, ``p_min = 0.75``, ``alpha = 0.1`` the smallest weight is
    ``Phi^{-1}(CP_lower(12, 16, 0.1)) ~ 0.13 > 0`` (``p_min`` is the least ``p`` with a positive
    radius under this setting), the largest ``Phi^{-1}(0.1 ** (1/16)) ~ 1.11``.

    Parameters
    ----------
    p_correct : array_like of float in [0, 1], shape (M,)
        Fractions of correct noisy predictions among ``num_draws``.
    num_draws : int
    p_min : float
    alpha : float
        One-sided level of the Clopper--Pearson bound.

    Returns
    -------
    numpy.ndarray of float64, shape (M,), all > 0 for the default settings.
    """
    m = check_num_samples(num_draws, "num_draws")
    p = np.asarray(p_correct, dtype=np.float64).reshape(-1)
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("p_correct must lie in [0, 1].")
    n_a = np.floor(np.clip(p, p_min, 1.0) * m + 1e-9)
    lower = clopper_pearson_lower(n_a, m, alpha)
    return _norm.ppf(lower)


def noise_sphere_attack(model: nn.Module, x: torch.Tensor, y: torch.Tensor, noise: torch.Tensor, steps: int,
                        step_size: float, norm: str = "l2") -> torch.Tensor:
    """Adaptive attack on the sphere of the Gaussian noise (Sec. 5.3, App. C.3).

    Parameters
    ----------
    model : torch.nn.Module
        The base classifier (put in eval mode by the caller; its gradients are not touched).
    x : torch.Tensor, shape (B, C, H, W), float in [0, 1]
    y : torch.Tensor of int64, shape (B,)
    noise : torch.Tensor, shape (B, C, H, W)
        Gaussian draws ``delta_0``; their per-sample L2 norms are preserved.
    steps : int
        ``K`` ascent steps.
    step_size : float
        ``eta``.
    norm : {"l2", "linf"}
        L2: ``delta += eta g / ||g||``; Linf: ``delta += eta sign(g) / sqrt(d)``.

    Returns
    -------
    torch.Tensor, shape of ``noise``: for each sample the first iterate that is misclassified, else
    the last iterate (all with ``||delta|| = ||delta_0||``).
    """
    if steps == 0:
        return noise
    b = x.shape[0]
    d = x[0].numel()
    r0 = noise.reshape(b, -1).norm(dim=1).view(-1, *([1] * (x.dim() - 1)))
    delta = noise.detach().clone()
    best = torch.zeros_like(delta)
    found = torch.zeros(b, dtype=torch.bool, device=x.device)
    params = [p for p in model.parameters() if p.requires_grad]
    for p in params:
        p.requires_grad_(False)
    try:
        for _ in range(int(steps)):
            delta.requires_grad_(True)
            logits = model(x + delta)
            wrong = logits.argmax(1) != y
            new = wrong & ~found
            best[new] = delta.detach()[new]
            found |= wrong
            loss = F.cross_entropy(logits, y, reduction="sum")
            (g,) = torch.autograd.grad(loss, [delta])
            with torch.no_grad():
                if norm == "l2":
                    g = g / (g.reshape(b, -1).norm(dim=1).view_as(r0) + 1e-12)
                    delta = delta + step_size * g
                else:
                    delta = delta + step_size * g.sign() / math.sqrt(d)
                # back to the sphere of the original draw: same Gaussian density (Theorem 2)
                delta = delta / (delta.reshape(b, -1).norm(dim=1).view_as(r0) + 1e-12) * r0
    finally:
        for p in params:
            p.requires_grad_(True)
    return torch.where(found.view(-1, *([1] * (x.dim() - 1))), best, delta.detach())


def gaussian_noise_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, noise: torch.Tensor,
                        reduction: str = "mean") -> torch.Tensor:
    """Cross-entropy of the base classifier on ``x + noise`` (Gaussian training's objective).

    ``x`` (B, ...) is repeated to match ``noise`` (m B, ...), draw-major.
    """
    m = noise.shape[0] // x.shape[0]
    xr = x.repeat(m, *([1] * (x.dim() - 1)))
    return F.cross_entropy(model(xr + noise), y.repeat(m), reduction=reduction)


# --------------------------------------------------------------------------------------------
# Algorithm 2
# --------------------------------------------------------------------------------------------


def train_rs(model: nn.Module, x, y, config: RSTrainConfig, device=None, progress: bool = True):
    """Train ``model`` with Gaussian training plus the enabled modifications (Algorithm 2).

    Parameters
    ----------
    model : torch.nn.Module
        Base classifier taking float images in [0, 1] (robeval models normalise inside).
    x : array (M, C, H, W), uint8 or float in [0, 1]
    y : array_like of int, shape (M,)
    config : RSTrainConfig
    device : optional (default: CUDA when present, else CPU)
    progress : bool

    Returns
    -------
    model : torch.nn.Module (eval mode)
    history : dict
        ``kept`` (indices after discarding), ``weights`` (last sampling weights over ``kept``),
        ``loss`` (mean loss per epoch), ``n_kept``, ``seconds``.
    """
    from tqdm.auto import tqdm

    from robeval.env import torch_device
    from robeval.training import flip_crop

    cfg = config
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = _as_float_images(x)
    if len(xt) != len(y):
        raise ValueError(f"x has {len(xt)} images but y has {len(y)} labels.")
    dev = torch_device() if device is None else torch.device(device)
    model.to(dev)
    yt = torch.as_tensor(y)
    gen = torch.Generator().manual_seed(int(cfg.seed))            # sampling and augmentation (CPU)
    ngen = torch.Generator(device=dev).manual_seed(int(cfg.seed) + 1)  # noise draws
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)
    steps = (len(xt) + cfg.batch_size - 1) // cfg.batch_size      # fixed number of steps per epoch
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, [int(m) * steps for m in cfg.milestones], gamma=cfg.gamma)
    kept = np.arange(len(y))
    weights = None
    history = {"loss": [], "n_kept": [], "reweight_epochs": []}
    t0 = time.perf_counter()
    bar = tqdm(total=cfg.epochs * steps, desc="rs-train", disable=not progress, leave=False)
    for epoch in range(cfg.epochs):
        active = epoch >= cfg.start_epoch
        if cfg.discard and epoch == cfg.discard_epoch:
            # Sec. 5.1: p_A from the model of the previous epoch, drop the hard images once
            p = estimate_p_correct(model, xt[kept], y[kept], cfg.sigma, cfg.discard_draws, cfg.eval_batch_size,
                                   seed=cfg.seed + 1000 + epoch, device=dev)
            kept = kept[discard_hard(p, cfg.discard_threshold)]
            if len(kept) == 0:
                raise ValueError("discarding removed every training image; lower discard_threshold or "
                                 "start later (discard_epoch).")
        if cfg.reweight and active and (epoch - cfg.start_epoch) % cfg.reweight_every == 0:
            # Sec. 5.2: approximate certified radius from 16 draws, every 10 epochs
            p = estimate_p_correct(model, xt[kept], y[kept], cfg.sigma, cfg.reweight_draws, cfg.eval_batch_size,
                                   seed=cfg.seed + 2000 + epoch, device=dev)
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
            idx = torch.as_tensor(order[s:s + cfg.batch_size])
            xb, yb = xt[idx], yt[idx]
            if cfg.flip_crop:
                xb = flip_crop(xb, gen)
            xb, yb = xb.to(dev), yb.to(dev)
            noise = torch.randn((cfg.num_noise * len(xb),) + tuple(xb.shape[1:]), generator=ngen, device=dev) * cfg.sigma
            if cfg.attack and active and cfg.attack_steps > 0:
                model.eval()
                xr = xb.repeat(cfg.num_noise, 1, 1, 1)
                noise = noise_sphere_attack(model, xr, yb.repeat(cfg.num_noise), noise, cfg.attack_steps,
                                            cfg.attack_step_size, cfg.attack_norm)
                model.train()
            loss = gaussian_noise_loss(model, xb, yb, noise)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            bar.update()
        history["loss"].append(float(np.mean(losses)))
        history["n_kept"].append(int(len(kept)))
    bar.close()
    history["kept"] = kept
    history["weights"] = weights
    history["seconds"] = time.perf_counter() - t0
    return model.eval(), history


# --------------------------------------------------------------------------------------------
# Table 2: gradient norms of easy and hard inputs
# --------------------------------------------------------------------------------------------


def gradient_norms(model: nn.Module, x, y, sigma: float, num_noise: int = 4, attack_steps: int = 0,
                   attack_step_size: float = 0.25, attack_norm: str = "l2", seed: int = 0, device=None) -> np.ndarray:
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
    seed : int
    device : optional

    Returns
    -------
    numpy.ndarray of float64, shape (M,)
    """
    sigma = check_sigma(sigma)
    num_noise = check_num_samples(num_noise, "num_noise")
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = _as_float_images(x)
    dev = torch.device(device) if device is not None else next(model.parameters()).device
    gen = torch.Generator(device=dev).manual_seed(int(seed))
    params = [p for p in model.parameters() if p.requires_grad]
    model.eval()
    out = np.empty(len(y))
    for i in range(len(y)):
        xi = xt[i:i + 1].to(dev)
        yi = torch.as_tensor(y[i:i + 1], device=dev)
        noise = torch.randn((num_noise,) + tuple(xi.shape[1:]), generator=gen, device=dev) * sigma
        if attack_steps:
            noise = noise_sphere_attack(model, xi.repeat(num_noise, 1, 1, 1), yi.repeat(num_noise), noise,
                                        attack_steps, attack_step_size, attack_norm)
        loss = gaussian_noise_loss(model, xi, yi, noise)
        grads = torch.autograd.grad(loss, params)
        out[i] = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads)))
    return out


# --------------------------------------------------------------------------------------------
# one experiment cell (train, certify, measure gradients) for robeval.runs
# --------------------------------------------------------------------------------------------


def _per_sigma(value, sigma_index: int):
    return value[sigma_index] if isinstance(value, (list, tuple)) else value


def run_variant(cell: dict, config: dict) -> list:
    """Train one Table-5 variant, certify it and measure easy/hard gradient norms (a ``run_grid`` cell).

    Parameters
    ----------
    cell : dict
        ``variant`` (a key of :data:`VARIANTS`), ``sigma`` and ``seed``.
    config : dict
        Resolved ``rs_training`` settings (see ``settings/rs_training.toml``); per-sigma hyper-parameters
        are lists aligned with ``config["sigmas"]``. ``tsv_dir`` (optional) receives the certification
        in the published TSV format.

    Returns
    -------
    list of dict
        One ``record="cert"`` row per certified test image and one ``record="summary"`` row.
    """
    from pathlib import Path

    from robeval import data, models
    from robeval.env import torch_device
    from robeval.training import to_float_tensor

    flags = variant_flags(cell["variant"])
    sigma = float(cell["sigma"])
    sigmas = [float(s) for s in config["sigmas"]]
    if sigma not in sigmas:
        raise ValueError(f"sigma={sigma} has no hyper-parameters; configured sigmas: {sigmas}.")
    k = sigmas.index(sigma)
    seed = int(cell["seed"])
    if config.get("threads"):
        torch.set_num_threads(int(config["threads"]))
    xtr, ytr, xte, yte = data.load_cifar10_any(bool(config.get("full_cifar10", False)))
    rng = np.random.default_rng(seed)
    tr = np.sort(rng.permutation(len(ytr))[: int(config["n_train"])])
    te = np.arange(0, len(yte), max(1, len(yte) // int(config["n_test"])))[: int(config["n_test"])]
    cfg = RSTrainConfig(
        sigma=sigma, epochs=int(config["epochs"]), batch_size=int(config["batch_size"]),
        num_noise=int(_per_sigma(config["num_noise"], k)), lr=float(config["lr"]),
        momentum=float(config["momentum"]), weight_decay=float(config["weight_decay"]),
        milestones=tuple(int(m) for m in config["milestones"]), gamma=float(config["gamma"]),
        discard=flags["discard"], discard_epoch=int(_per_sigma(config["discard_epoch"], k)),
        discard_threshold=float(_per_sigma(config["discard_threshold"], k)),
        discard_draws=int(config["discard_draws"]),
        reweight=flags["reweight"], reweight_every=int(config["reweight_every"]),
        reweight_draws=int(config["reweight_draws"]),
        attack=flags["attack"], attack_steps=int(_per_sigma(config["attack_steps"], k)),
        attack_step_size=float(_per_sigma(config["attack_step_size"], k)),
        eval_batch_size=int(config["eval_batch_size"]), seed=seed)
    dev = torch_device()
    torch.manual_seed(seed)
    model = models.from_config(config)
    model, hist = train_rs(model, xtr[tr], ytr[tr], cfg, device=dev, progress=bool(config.get("progress", False)))

    # certification of the test images (Cohen et al. CERTIFY)
    sm = Smooth(model, 10, sigma, device=dev)
    cert = sm.certify_dataset(to_float_tensor(xte[te]), yte[te], n0=int(config["cert_n0"]), n=int(config["cert_n"]),
                              alpha=float(config["cert_alpha"]), batch_size=int(config["eval_batch_size"]),
                              seed=seed + 7, idx=te, progress=bool(config.get("progress", False)))
    if config.get("tsv_dir"):
        from robeval.smoothing import write_certification_tsv

        write_certification_tsv(cert, Path(config["tsv_dir"]) / cell["variant"] / f"noise_{sigma}_seed{seed}.tsv")

    # Table 2: gradient norms on easy and hard training images (p_A estimated from draws)
    gsub = np.sort(rng.permutation(len(tr))[: int(config["grad_pool"])])
    p = estimate_p_correct(model, xtr[tr][gsub], ytr[tr][gsub], sigma, int(config["grad_draws"]),
                           int(config["eval_batch_size"]), seed=seed + 11, device=dev)
    easy = gsub[p >= float(config["easy_threshold"])][: int(config["grad_n"])]
    hard = gsub[p < float(config["hard_threshold"])][: int(config["grad_n"])]
    summary = {"record": "summary", "n_train": int(len(tr)), "n_kept": int(len(hist["kept"])),
               "train_seconds": float(hist["seconds"]), "final_loss": float(hist["loss"][-1]) if hist["loss"] else float("nan"),
               "n_easy": int(len(easy)), "n_hard": int(len(hard))}
    for tag, steps in (("", 0), ("_attack", int(_per_sigma(config["attack_steps"], k)))):
        for name, idx in (("easy", easy), ("hard", hard)):
            g = gradient_norms(model, xtr[tr][idx], ytr[tr][idx], sigma, cfg.num_noise, attack_steps=steps,
                               attack_step_size=cfg.attack_step_size, seed=seed + 13, device=dev) if len(idx) else np.array([])
            summary[f"grad_{name}{tag}"] = float(g.mean()) if len(g) else float("nan")
    rows = [dict(record="cert", **{c: (v.item() if hasattr(v, "item") else v) for c, v in r.items()})
            for r in cert.drop(columns=["time"]).assign(time_s=cert["time"]).to_dict(orient="records")]
    return rows + [summary]


# --------------------------------------------------------------------------------------------
# result tables of the variant grid (notebook 09)
# --------------------------------------------------------------------------------------------

GRADIENT_COLUMNS = ("n_kept", "n_easy", "n_hard", "grad_easy", "grad_hard", "grad_easy_attack", "grad_hard_attack",
                    "train_seconds")


def _check_columns(df, needed, name: str, hint: str) -> None:
    check_frame(df, needed, name, non_empty=True, hint=hint)


def variant_certification_table(cert, radii):
    """Table 5 (scaled): ACR and certified accuracy (percent) per variant, averaged over seeds.

    Parameters
    ----------
    cert : pandas.DataFrame
        The ``record == "cert"`` rows of the :func:`run_variant` grid: one row per certified test image with
        ``sigma``, ``variant``, ``seed`` and the certification columns (``label predict radius correct``).
    radii : array_like of float, shape (R,)

    Returns
    -------
    pandas.DataFrame
        Index ``(sigma, variant)`` (order of appearance), columns ``ACR`` and one per radius (percent): the
        mean over seeds of :func:`robeval.smoothing_metrics.certification_table`.
    """
    from robeval import smoothing_metrics as sm

    _check_columns(cert, ("sigma", "variant", "seed"), "cert", "pass the 'cert' records of run_variant.")
    frames = {key: g for key, g in cert.groupby(["sigma", "variant", "seed"], sort=False)}
    tab = sm.certification_table(frames, radii)
    tab.index.names = ["sigma", "variant", "seed"]
    return tab.groupby(level=["sigma", "variant"], sort=False).mean()


def variant_ecdfs(cert, n: int, alpha: float):
    """ECDF of ``p_A`` of every (sigma, variant) from its certification rows (all seeds pooled).

    The certification budget is this profile's own ``(n, alpha)``, and the read-out is the strict
    ``p_hat_A >= x`` (``count_offset=0``): these files are not the published ones.

    Returns
    -------
    pandas.DataFrame with columns ``x``, ``y``, ``sigma``, ``variant`` (501 rows per curve).
    """
    from robeval import smoothing_metrics as sm

    _check_columns(cert, ("sigma", "variant"), "cert", "pass the 'cert' records of run_variant.")
    frames = {key: g for key, g in cert.groupby(["sigma", "variant"], sort=False)}
    return sm.ecdf_curves(frames, int(n), float(alpha), count_offset=0, key_names=("sigma", "variant"))


def gradient_norm_table(summary):
    """Table 2 / Fig. 5 (scaled): mean gradient norms of easy and hard inputs per (sigma, variant).

    Parameters
    ----------
    summary : pandas.DataFrame
        The ``record == "summary"`` rows of the :func:`run_variant` grid (one per variant, sigma and seed).

    Returns
    -------
    pandas.DataFrame
        Index ``(sigma, variant)``; the seed means of :data:`GRADIENT_COLUMNS`, plus ``ratio``
        (``grad_easy / grad_hard``) and ``ratio_attack`` (the same under the adaptive attack).
    """
    _check_columns(summary, ("sigma", "variant", *GRADIENT_COLUMNS), "summary",
                   "pass the 'summary' records of run_variant.")
    t2 = summary.groupby(["sigma", "variant"], sort=False)[list(GRADIENT_COLUMNS)].mean()
    t2["ratio"] = t2.grad_easy / t2.grad_hard
    t2["ratio_attack"] = t2.grad_easy_attack / t2.grad_hard_attack
    return t2
