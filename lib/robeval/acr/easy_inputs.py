"""Building blocks of Sun et al.'s three easy-input modifications of Gaussian training (Section 5, their
Algorithm 2), used by :func:`robeval.acr.training.train_rs`.

* :func:`estimate_p_correct` — ``p_A`` of every training image from ``N`` noise draws with the current model;
* :func:`discard_hard` — discard hard data (Sec. 5.1): keep the images with ``p_A >= p_0``;
* :func:`radius_weights` — reweight by approximate certified radius (Sec. 5.2): the sampling weight
  ``Phi^{-1}(CP_lower(max(n_A, floor(0.75 m_w)), m_w, alpha_w))``;
* :func:`noise_sphere_attack` — the adaptive attack on the noise sphere (Sec. 5.3, App. C.3, Theorem 2);
* :func:`gaussian_noise_loss` — the cross-entropy of the base classifier on ``x + eps`` (Gaussian training);
* :class:`ChannelsLastInference` — a channels-last wrapper for fast inference.

All are importable from :mod:`robeval.acr.training` too.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy.stats import norm as _norm

from robeval.acr.checks import check_num_samples
from robeval.acr.smoothing import Smooth, clopper_pearson_lower, image_generators
from robeval.core.env import usable_device

# --------------------------------------------------------------------------------------------
# building blocks
# --------------------------------------------------------------------------------------------


def as_float_images(x) -> torch.Tensor:
    from robeval.core.nn.training import to_float_tensor

    return to_float_tensor(x)


class ChannelsLastInference(nn.Module):
    """An eval-mode copy of ``model`` that runs in channels-last memory format: CNN inference on the CPU runs
    2-3x faster in small batches (same predictions up to floating-point rounding). For inference only
    (certification, the p_A estimates of discarding and reweighting); training keeps the model as it is."""

    def __init__(self, model: nn.Module):
        super().__init__()
        import copy

        self.model = copy.deepcopy(model).eval().to(memory_format=torch.channels_last)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x.contiguous(memory_format=torch.channels_last) if x.dim() == 4 else x)


def estimate_p_correct(
    model: nn.Module, x, y, sigma: float, num_draws: int, batch_size: int = 1000, seed: int = 0, device=None
) -> np.ndarray:
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
    seed : int or numpy.random.SeedSequence
        Image ``i`` draws from its own stream keyed by ``(seed, i)`` (batching does not matter).
    device : optional

    Returns
    -------
    numpy.ndarray of float64, shape (M,), values in {0, 1/num_draws, ..., 1}.
    """
    num_draws = check_num_samples(num_draws, "num_draws")
    y = np.asarray(y).astype(np.int64).reshape(-1)
    xt = as_float_images(x)
    if len(xt) != len(y):
        raise ValueError(f"x has {len(xt)} images but y has {len(y)} labels.")
    dev = usable_device(device) if device is not None else next(model.parameters()).device
    if len(y) == 0:
        return np.empty(0)
    net = ChannelsLastInference(model)
    sm = Smooth(net, _num_outputs(net, xt[:1].to(dev)), sigma, device=dev)
    out = np.empty(len(y))
    step = max(1, batch_size // num_draws) * 8
    with torch.no_grad():
        for s in range(0, len(y), step):
            gens = image_generators(seed, np.arange(s, min(s + step, len(y))), 0, dev)
            counts = sm.sample_counts(xt[s : s + step].to(dev), num_draws, batch_size, gens)
            out[s : s + step] = counts[np.arange(len(counts)), y[s : s + step]] / num_draws
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


def noise_sphere_attack(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    noise: torch.Tensor,
    steps: int,
    step_size: float,
    norm: str = "l2",
) -> torch.Tensor:
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
            new = (wrong & ~found).view(-1, *([1] * (x.dim() - 1)))
            best = torch.where(new, delta.detach(), best)  # not best[new] = ...: a boolean index syncs a GPU
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


def gaussian_noise_loss(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, noise: torch.Tensor, reduction: str = "mean"
) -> torch.Tensor:
    """Cross-entropy of the base classifier on ``x + noise`` (Gaussian training's objective).

    ``x`` (B, ...) is repeated to match ``noise`` (m B, ...), draw-major.
    """
    m = noise.shape[0] // x.shape[0]
    xr = x.repeat(m, *([1] * (x.dim() - 1)))
    return F.cross_entropy(model(xr + noise), y.repeat(m), reduction=reduction)
