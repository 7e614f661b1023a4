"""Sequential certification at fixed radii in notebook 09 (beyond the paper).

The paper recommends certified accuracy at chosen radii over ACR (Sec. 7). Deciding "certified at radius r" needs
far fewer noise draws than estimating ``p_A`` to a fixed ``N`` when ``p_A`` is far from ``Phi(r / sigma)``:
:meth:`robeval.acr.smoothing.Smooth.certify_radius` stops as soon as a Clopper-Pearson bound decides, valid at
level ``alpha`` under optional stopping. Here the Gaussian-trained model of notebook 09 (first seed, first sigma)
is certified both ways:

* ``fixed``: Cohen et al.'s CERTIFY with ``N = seq_n_max`` on the first ``seq_fixed_images`` test images;
* ``sequential``: ``certify_radius`` at every radius of ``seq_radii`` with ``n_max = seq_n_max`` on
  ``seq_images`` test images (the fixed ones first), with the same per-image noise streams.

:func:`sequential_table` compares the certified accuracy of both on the common images, the sequential one on all
its images, and the forward passes each spent per image.

:func:`certify_table` certifies a whole table of radii in one sequential run per image (:func:`table_test`: one
anytime-valid lower confidence sequence for ``p_A``, union bound or betting, alpha spent once across the radii);
``benchmarks/bench_sequential.py`` compares it with fixed-N CERTIFY and one ``certify_radius`` run per radius.

Table 5 at a budget that keeps the paper's mechanism: at the default profile's fixed ``N = cert_n = 100`` the
certified radius is capped at 0.75 (sigma = 0.5), which cuts off the ``p_A -> 1`` mechanism the ablation is about.
:func:`table_cell` certifies every trained variant with :func:`certify_table` up to ``n_max = seq_n_max`` draws
per image (every tabulated radius the budget can reach: :func:`reachable_radius`), and keeps each image's
certified radius ``sigma * Phi^{-1}(p_lower)`` of the running lower confidence bound at stopping — a valid
certified radius (family-wise over the image's radii at ``alpha``), so its mean is an ACR under a sequential
budget (:func:`table_certifications`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy.stats import norm as _norm

from robeval.acr.checks import check_alpha, check_num_samples
from robeval.acr.smoothing import (
    ABSTAIN,
    clopper_pearson_lower,
    clopper_pearson_upper,
    image_generators,
    sequential_schedule,
)
from robeval.core.frames import check_frame
from robeval.core.seeding import keyed

GRID_CELLS = (
    "sequential_cell",
    "table_cell",
)  # the functions a grid store may name (core.runs.cell_function)

__all__ = [
    "sequential_cells",
    "sequential_config",
    "sequential_cell",
    "sequential_table",
    "TableResult",
    "table_test",
    "certify_table",
    "reach_thresholds",
    "reachable_radius",
    "trained_smooth",
    "table_cells",
    "table_config",
    "table_cell",
    "table_certifications",
    "table_costs",
]


def sequential_cells(cfg) -> list[dict]:
    """Cells of the comparison grid: one fixed-N CERTIFY cell and one ``certify_radius`` cell per radius."""
    if cfg.seq_fixed_images > cfg.seq_images:
        raise ValueError(
            f"seq_fixed_images ({cfg.seq_fixed_images}) must not exceed seq_images ({cfg.seq_images}): the fixed-N "
            "images are the first of the sequential ones."
        )
    return [{"method": "fixed", "radius": -1.0}] + [{"method": "sequential", "radius": float(r)} for r in cfg.seq_radii]


def sequential_config(cfg) -> dict:
    """The grid config of :func:`sequential_cell`: the resolved settings without the descriptive texts and
    ``n_jobs``."""
    return {k: v for k, v in cfg.as_dict().items() if k not in ("estimate", "scaled_down", "n_jobs")}


def trained_smooth(config: dict, variant: str, sigma: float, seed: int):
    """A trained model of notebook 09's grid as a :class:`Smooth`, with the test data.

    Parameters
    ----------
    config : dict
        Resolved ``acr_rs_training`` settings (a :class:`robeval.core.profiles.Settings` or its ``as_dict()``).
    variant, sigma, seed : the grid cell (the model is loaded from the cache of
        :func:`robeval.acr.training.trained_model`, or trained).

    Returns
    -------
    smooth : Smooth (on the default torch device); x_test : uint8 array (M, 32, 32, 3); y_test : int array (M,).
    """
    from robeval.acr.smoothing import Smooth
    from robeval.acr.training import ChannelsLastInference, rs_config, train_subset, trained_model
    from robeval.core import data
    from robeval.core.env import torch_device

    rs_cfg = rs_config({"variant": variant, "sigma": float(sigma), "seed": int(seed)}, config)
    xtr, ytr, xte, yte = data.load_cifar10_any(bool(config.get("full_cifar10", False)))
    tr, _ = train_subset(int(seed), len(ytr), int(config["n_train"]))  # the model of notebook 09's grid
    dev = torch_device()
    model, _ = trained_model(rs_cfg, config, xtr[tr], ytr[tr], dev)
    return Smooth(ChannelsLastInference(model), 10, float(sigma), device=dev), xte, yte


def gaussian_smooth(config: dict):
    """Notebook 09's Gaussian-trained model (first seed, first sigma): :func:`trained_smooth` and that seed,
    which also roots the noise streams of :func:`sequential_cell`."""
    seed, sigma = int(config["seeds"][0]), float(config["sigmas"][0])
    return (*trained_smooth(config, "gaussian", sigma, seed), seed)


def sequential_cell(cell: dict, config: dict) -> list[dict]:
    """Certify the Gaussian model of notebook 09 by fixed-N CERTIFY or by ``certify_radius`` — a ``run_grid`` cell.

    Parameters
    ----------
    cell : dict
        ``method`` (``"fixed"`` or ``"sequential"``) and ``radius`` (the L2 radius for ``"sequential"``).
    config : dict
        Resolved ``acr_rs_training`` settings (``seq_*`` keys, ``cert_n0``, ``cert_alpha``, ``eval_batch_size``,
        and the training settings of the Gaussian variant, whose cached model is reused).

    Returns
    -------
    list of dict
        One row per test image: ``method``, ``radius`` (``-1`` for fixed), ``idx``, ``label``, ``predict``,
        ``certified_radius`` (fixed) or ``certified`` (sequential), ``forward_passes`` (selection + estimation).
    """
    from robeval.acr.training import certified_test_indices
    from robeval.core.nn.training import to_float_tensor

    sm, xte, yte, seed = gaussian_smooth(config)
    n0, n_max, alpha = int(config["cert_n0"]), int(config["seq_n_max"]), float(config["cert_alpha"])
    te = certified_test_indices(len(yte), int(config["seq_images"]))
    stream = keyed(seed, "sequential-certify")
    if cell["method"] == "fixed":
        te = te[: int(config["seq_fixed_images"])]
        cert = sm.certify_dataset(
            to_float_tensor(xte[te]),
            yte[te],
            n0=n0,
            n=n_max,
            alpha=alpha,
            batch_size=int(config["eval_batch_size"]),
            seed=stream,
            idx=te,
        )
        return [
            {
                "method": "fixed",
                "radius": -1.0,
                "idx": int(r.idx),
                "label": int(r.label),
                "predict": int(r.predict),
                "certified_radius": float(r.radius) if r.correct else 0.0,
                "correct": int(r.correct),
                "forward_passes": n0 + n_max,
            }
            for r in cert.itertuples()
        ]
    res = sm.certify_radius(
        to_float_tensor(xte[te]),
        float(cell["radius"]),
        n0,
        n_max,
        alpha,
        batch_size=int(config["eval_batch_size"]),
        seed=stream,
        idx=te,
    )
    return [
        {
            "method": "sequential",
            "radius": float(cell["radius"]),
            "idx": int(i),
            "label": int(y),
            "predict": int(p),
            "certified": int(bool(c) and p == y),
            "forward_passes": n0 + int(n),
        }
        for i, y, p, c, n in zip(te, yte[te], res.prediction, res.certified, res.n_used)
    ]


def sequential_table(rows: pd.DataFrame, radii, level: float = 0.95) -> pd.DataFrame:
    """Certified accuracy at each radius by fixed-N CERTIFY and by sequential certification.

    Parameters
    ----------
    rows : DataFrame
        The rows of :func:`sequential_cell` for all cells.
    radii : sequence of float
        The radii of the sequential cells.

    Returns
    -------
    DataFrame indexed by ``radius`` with ``fixed`` and ``sequential_same`` (certified accuracy on the fixed
    images), ``agreement`` (share of those images with the same decision), ``sequential_all`` with its Wilson
    interval ``lo``/``hi`` over ``n_sequential`` images, and the mean forward passes per image of each method with
    their ratio ``forward_ratio`` (fixed / sequential).
    """
    from robeval.core.stats import proportion_interval

    check_frame(rows, ["method", "radius", "idx", "forward_passes"], "sequential rows")
    fixed = rows[rows.method == "fixed"].set_index("idx")
    out = []
    for r in radii:
        seq = rows[(rows.method == "sequential") & np.isclose(rows.radius, float(r))].set_index("idx")
        if seq.empty or fixed.empty:
            raise ValueError(f"no rows for radius {r} (or no fixed-N rows); run every cell of sequential_cells.")
        common = fixed.index.intersection(seq.index)
        fixed_ok = fixed.loc[common, "certified_radius"] >= float(r)
        fixed_ok &= fixed.loc[common, "correct"].astype(bool)
        seq_ok = seq.loc[common, "certified"].astype(bool)
        ci = proportion_interval(int(seq["certified"].sum()), len(seq), level)
        out.append(
            {
                "radius": float(r),
                "n_fixed": len(common),
                "fixed": float(fixed_ok.mean()),
                "sequential_same": float(seq_ok.mean()),
                "agreement": float((fixed_ok == seq_ok).mean()),
                "n_sequential": len(seq),
                "sequential_all": ci.estimate,
                "lo": ci.low,
                "hi": ci.high,
                "passes_fixed": float(fixed["forward_passes"].mean()),
                "passes_sequential": float(seq["forward_passes"].mean()),
            }
        )
    df = pd.DataFrame(out).set_index("radius")
    df["forward_ratio"] = df.passes_fixed / df.passes_sequential
    return df


# -- one sequential run for a whole certified-accuracy table ---------------------------------------------------------
TABLE_METHODS = ("union", "betting")
_BET_CAP = 0.9  # bets stay below 0.9 / (largest threshold): every factor of the capital stays > 0.1


@dataclass
class TableResult:
    """Per-image output of :func:`certify_table` (arrays of length ``B``; ``J`` radii).

    ``certified[i, j]`` says whether ``g`` is certified to predict ``prediction[i]`` within L2 ``radii[j]``;
    ``prediction`` is the guessed top class (``ABSTAIN`` where no radius is certified); ``radius`` the largest
    certified radius of interest (0.0 where abstaining); ``radius_bound`` the Cohen radius
    ``sigma * Phi^{-1}(p_a_lower)`` of the running lower bound (``union`` only; NaN for ``betting`` and where the
    bound is below 1/2); ``n_used`` the estimation draws spent (selection draws not included); ``n_a`` the hits
    of the guessed class among them.
    """

    prediction: np.ndarray
    certified: np.ndarray
    radius: np.ndarray
    radius_bound: np.ndarray
    n_used: np.ndarray
    n_a: np.ndarray
    p_a_lower: np.ndarray
    radii: np.ndarray
    thresholds: np.ndarray
    method: str


def _check_radii(radii) -> np.ndarray:
    try:
        r = np.asarray(radii, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"radii must be a sequence of numbers (L2 radii), got {radii!r}.") from None
    if r.size == 0 or not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError(f"radii must be a non-empty list of finite L2 radii >= 0, got {radii!r}.")
    if np.any(np.diff(r) <= 0):
        raise ValueError(f"radii must be strictly increasing (e.g. [0, 0.25, 0.5]), got {list(r)}.")
    return r


def reach_thresholds(thresholds, n_max: int, level: float) -> np.ndarray:
    """Smallest hit share ``q_j`` whose Clopper-Pearson lower bound at ``n_max`` draws (one-sided ``level``)
    reaches ``thresholds[j]``: if the upper bound on ``p_A`` falls below ``q_j``, even ``n_max`` draws are
    unlikely to certify radius ``j`` (the futility boundary of :func:`table_test`). Float64 array in (0, 1]."""
    k = np.arange(n_max + 1)
    lo = np.asarray(clopper_pearson_lower(k, n_max, level), dtype=np.float64)
    first = np.searchsorted(lo, np.asarray(thresholds, dtype=np.float64), side="left")  # lo is increasing in k
    return np.where(first > n_max, 1.0, np.minimum(first, n_max) / n_max)


def table_test(
    hits,
    b: int,
    thresholds,
    n_max: int,
    alpha: float,
    *,
    method: str = "union",
    n_start: int = 100,
    block: int = 100,
    p_start=None,
    futility: bool = True,
):
    """Decide ``p_A >= thresholds[j]`` for every ``j`` in one sequential run per image; any source of draws.

    Both rules hold the family-wise error over all thresholds at ``alpha``: with the true ``p_A`` of an image,
    ``P(some j with p_A < thresholds[j] is certified) <= alpha``, under optional stopping.

    * ``"union"``: cumulative draws ``n_start, 2 n_start, ..., n_max`` (``K`` looks). At each look the one-sided
      Clopper-Pearson lower bound at level ``alpha / K`` is one lower confidence sequence for ``p_A`` (union bound
      over the looks; Horvath et al. 2022, Voracek 2024); ``j`` is certified once the running maximum of the
      bound reaches ``thresholds[j]``. Alpha is spent once for all thresholds: every false certification needs
      the one bound above ``p_A``.
    * ``"betting"``: a betting confidence sequence (Waudby-Smith & Ramdas 2024, as used by Voracek 2024). The
      capital ``K_t(m) = prod_i (1 + lambda_i (X_i - m))`` with bets ``lambda_i`` in ``[0, 0.9 / max(thresholds)]``
      fixed before block ``i`` is drawn and shared by all ``m``; ``j`` is certified once ``K_t(thresholds[j]) >=
      1 / alpha``. For ``m >= p_A`` it is a nonnegative supermartingale (Ville's inequality), and it decreases in
      ``m``, so any false certification implies ``sup_t K_t(p_A) >= 1 / alpha``: probability ``<= alpha`` for all
      thresholds together. Looks every ``block`` draws; the bet is the Kelly bet ``(p - m) / (m (1 - m))`` against
      the lowest uncertified threshold ``m`` at the running hit share ``p`` (shrunk to ``p_start``).

    An image stops when its largest threshold is certified, when ``n_max`` is reached, or (``futility``) when the
    upper bound (Clopper-Pearson at ``alpha / K``, resp. the mirrored betting capital) shows ``p_A`` below the
    smallest hit share that ``n_max`` draws would certify for the lowest uncertified threshold
    (:func:`reach_thresholds`; without ``futility``: below the threshold itself). Stopping never certifies, so it
    costs power, never validity.

    Parameters
    ----------
    hits : callable ``(active, step) -> array of int``
        Hits of the guessed class in ``step`` fresh draws for each image in ``active`` (int64 indices into the
        ``b`` images); an image's draws must not depend on which images are active.
    b : int
        Number of images.
    thresholds : array (J,)
        Strictly increasing, in [0.5, 1): ``Phi(r_j / sigma)``.
    n_max : int
        Largest number of draws per image.
    alpha : float
        Family-wise failure probability.
    method : {"union", "betting"}
        The sequential rule.
    n_start : int
        First look of ``"union"``.
    block : int
        Draws between looks of ``"betting"``.
    p_start : array (b,) of float, optional
        A prior guess of each ``p_A`` from data independent of the draws (e.g. the selection counts), used only
        to size the first bets.
    futility : bool
        Stop early when ``n_max`` draws would not reach the next threshold.

    Returns
    -------
    certified : bool array (b, J)
        Whether each threshold is certified.
    n_used : int64 array (b,)
        Draws spent per image.
    n_a : int64 array (b,)
        Hits per image.
    p_lower : float64 array (b,)
        Running lower confidence bound (``"union"``; NaN for ``"betting"``).
    """
    if method not in TABLE_METHODS:
        raise ValueError(f"method must be one of {TABLE_METHODS}, got {method!r}.")
    alpha = check_alpha(alpha)
    n_max = check_num_samples(n_max, "n_max")
    th = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if th.size == 0 or np.any(th < 0.5) or np.any(th >= 1) or np.any(np.diff(th) <= 0):
        raise ValueError(f"thresholds must be strictly increasing values in [0.5, 1), got {list(th)}.")
    j_all = len(th)
    certified = np.zeros((b, j_all), dtype=bool)
    n_used = np.zeros(b, dtype=np.int64)
    n_a = np.zeros(b, dtype=np.int64)
    stopped = np.zeros(b, dtype=bool)
    if method == "union":
        looks = sequential_schedule(n_start, n_max)
        level = alpha / len(looks)
        reach = reach_thresholds(th, n_max, level) if futility else th
        p_lower = np.zeros(b)
        for n_k in looks:
            active = np.flatnonzero(~stopped)
            if not len(active):
                break
            n_a[active] += np.asarray(hits(active, int(n_k - n_used[active[0]])), dtype=np.int64)
            n_used[active] = n_k
            lo = np.asarray(clopper_pearson_lower(n_a[active], n_k, level), dtype=np.float64).reshape(-1)
            hi = np.asarray(clopper_pearson_upper(n_a[active], n_k, level), dtype=np.float64).reshape(-1)
            p_lower[active] = np.maximum(p_lower[active], lo)
            certified[active] = p_lower[active, None] >= th[None, :]
            nxt = certified[active].sum(axis=1)  # index of the lowest uncertified threshold
            top = nxt == j_all
            r_next = reach[np.minimum(nxt, j_all - 1)]
            stopped[active] = top | (hi < r_next) | (r_next >= 1.0)
        return certified, n_used, n_a, p_lower
    block = check_num_samples(block, "block")
    cap = _BET_CAP / th[-1]
    prior = np.full(b, 0.5) if p_start is None else np.clip(np.asarray(p_start, dtype=np.float64).reshape(-1), 0, 1)
    reach = reach_thresholds(th, n_max, alpha) if futility else th
    log_lo = np.zeros((b, j_all))  # log capital against p_A <= th[j] (certifies j)
    log_hi = np.zeros((b, j_all))  # log capital against p_A >= reach[j] (futility only)
    log_goal = math.log(1.0 / alpha)
    w0 = 10.0  # weight of the prior guess, in draws
    while True:
        active = np.flatnonzero(~stopped)
        if not len(active):
            break
        step = np.minimum(block, n_max - n_used[active])
        if np.any(step != step[0]):
            raise AssertionError("images of one look must take equal steps")  # all start together
        step = int(step[0])
        nxt = np.minimum(certified[active].sum(axis=1), j_all - 1)
        p_hat = (n_a[active] + w0 * prior[active]) / (n_used[active] + w0)
        m = th[nxt]
        lam = np.clip((p_hat - m) / (m * (1 - m)), 0.0, cap)
        mr = np.minimum(reach[nxt], 1.0 - 1e-12)
        mu = np.clip((mr - p_hat) / (mr * (1 - mr)), 0.0, 0.9)
        k = np.asarray(hits(active, step), dtype=np.float64)
        n_a[active] += k.astype(np.int64)
        n_used[active] += step
        ml = th[None, :]
        log_lo[active] += k[:, None] * np.log1p(lam[:, None] * (1 - ml)) + (step - k)[:, None] * np.log1p(
            -lam[:, None] * ml
        )
        mh = np.minimum(reach, 1.0 - 1e-12)[None, :]
        log_hi[active] += k[:, None] * np.log1p(-mu[:, None] * (1 - mh)) + (step - k)[:, None] * np.log1p(
            mu[:, None] * mh
        )
        certified[active] |= log_lo[active] >= log_goal
        nxt = certified[active].sum(axis=1)
        top = nxt == j_all
        nxt = np.minimum(nxt, j_all - 1)
        futile = (log_hi[active, nxt] >= log_goal) | (reach[nxt] >= 1.0)  # >= 1: n_max draws cannot certify
        stopped[active] = top | futile | (n_used[active] >= n_max)
    return certified, n_used, n_a, np.full(b, np.nan)


def certify_table(
    smooth,
    x,
    radii,
    n0: int,
    n_max: int,
    alpha: float,
    batch_size: int = 1000,
    *,
    seed,
    idx=None,
    method: str = "union",
    n_start: int = 100,
    block: int = 100,
    futility: bool = True,
) -> TableResult:
    """Certify every radius of ``radii`` for each input in one sequential run (instead of one run per radius).

    As CERTIFY, ``c_A`` is guessed from ``n0`` selection draws; estimation draws then come from the image's own
    stream (keyed by ``(seed, idx[i])``, the stream of :meth:`Smooth.certify_radius`) until :func:`table_test`
    stops. The family-wise probability of certifying any radius ``r_j`` with ``p_A < Phi(r_j / sigma)`` is at most
    ``alpha`` (one confidence sequence for ``p_A``, alpha spent once across radii). Results do not depend on
    ``batch_size`` or on which images are certified together.

    Parameters
    ----------
    smooth : robeval.acr.smoothing.Smooth
    x : array (B, *input_shape), float — inputs in the base classifier's units.
    radii : sequence of float — strictly increasing L2 radii >= 0 (input units).
    n0 : int — selection draws. n_max : int — largest number of estimation draws per input.
    alpha : float — family-wise failure probability. batch_size : int — inputs per forward pass (speed only).
    seed, idx : the noise streams, as in :meth:`Smooth.certify`.
    method, n_start, block, futility : see :func:`table_test` (``"union"`` or ``"betting"``).

    Returns
    -------
    TableResult
    """
    from robeval.acr.smoothing import Smooth

    if not isinstance(smooth, Smooth):
        raise TypeError(f"smooth must be a robeval.acr.smoothing.Smooth, got {type(smooth).__name__}.")
    r = _check_radii(radii)
    n0 = check_num_samples(n0, "n0")
    n_max, alpha, batch_size, x, idx = smooth._prepare(x, n_max, alpha, batch_size, seed, idx)
    th = _norm.cdf(r / smooth.sigma)
    counts0 = smooth.sample_counts(x, n0, batch_size, image_generators(seed, idx, 0, smooth.device))
    c_hat = counts0.argmax(axis=1)
    gens = image_generators(seed, idx, 3, smooth.device)

    def hits(active, step):
        counts = smooth.sample_counts(x[torch.as_tensor(active)], step, batch_size, [gens[i] for i in active])
        return counts[np.arange(len(active)), c_hat[active]]

    p_start = counts0[np.arange(len(c_hat)), c_hat] / n0
    certified, n_used, n_a, p_lower = table_test(
        hits, len(x), th, n_max, alpha, method=method, n_start=n_start, block=block, p_start=p_start, futility=futility
    )
    any_cert = certified.any(axis=1)
    largest = np.where(any_cert, r[np.maximum(certified.sum(axis=1) - 1, 0)], 0.0)
    with np.errstate(invalid="ignore"):
        bound = np.where(p_lower >= 0.5, smooth.sigma * _norm.ppf(np.minimum(p_lower, 1.0)), np.nan)
    return TableResult(
        prediction=np.where(any_cert, c_hat, ABSTAIN).astype(np.int64),
        certified=certified,
        radius=largest,
        radius_bound=bound,
        n_used=n_used,
        n_a=n_a,
        p_a_lower=p_lower,
        radii=r,
        thresholds=th,
        method=method,
    )


# -- Table 5 at a budget that keeps the mechanism: one certify_table run per trained model ---------------------------
def reachable_radius(n_max: int, alpha: float, sigma: float, n_start: int = 100) -> float:
    """The largest radius :func:`certify_table` (``"union"``) can certify with ``n_max`` draws: ``sigma *
    Phi^{-1}`` of the Clopper-Pearson lower bound of ``n_max`` hits in ``n_max`` draws at level ``alpha / K``
    (``K`` looks of :func:`robeval.acr.smoothing.sequential_schedule`). Slightly below fixed-N CERTIFY's
    ``sigma * Phi^{-1}(alpha^(1/N))``: alpha is split over the looks (e.g. 1.56 against 1.60 at N = 10,000,
    alpha = 0.001, sigma = 0.5)."""
    alpha = check_alpha(alpha)
    k = len(sequential_schedule(n_start, n_max))
    lo = float(np.asarray(clopper_pearson_lower(int(n_max), int(n_max), alpha / k)).reshape(-1)[0])
    return float(sigma) * float(_norm.ppf(lo))


def table_cells(cfg) -> list[dict]:
    """The cells of the sequential Table-5 grid: every trained model of notebook 09 (one per (variant, sigma,
    seed), as :func:`robeval.acr.training.variant_cells`)."""
    from robeval.acr.training import variant_cells

    return variant_cells(cfg)


def table_config(cfg) -> dict:
    """The grid config of :func:`table_cell`: the resolved settings without the descriptive texts, the cells'
    keys and the settings of the other sequential grid."""
    drop = ("estimate", "scaled_down", "mechanism", "variants", "seeds", "seq_radii", "seq_images", "seq_fixed_images")
    drop += ("n_jobs",)  # how many processes compute the cells, not what they compute
    return {k: v for k, v in cfg.as_dict().items() if k not in drop}


def table_cell(cell: dict, config: dict) -> list[dict]:
    """Certify one trained model of notebook 09 at every reachable tabulated radius with :func:`certify_table` — a
    ``run_grid`` cell.

    The first ``seq_table_images`` test images (:func:`robeval.acr.training.certified_test_indices`), radii
    :data:`robeval.acr.published.CIFAR10_RADII` up to :func:`reachable_radius`, ``n_max = seq_n_max``, ``n0 =
    cert_n0``, ``alpha = cert_alpha``. The noise streams are keyed by the seed and the test index only, so every
    variant of a seed sees the same draws (paired comparisons).

    Parameters
    ----------
    cell : dict — ``variant``, ``sigma``, ``seed``.
    config : dict — :func:`table_config`.

    Returns
    -------
    list of dict
        One row per test image: ``variant``, ``sigma``, ``seed``, ``idx``, ``label``, ``predict`` (``-1``:
        abstain), ``correct`` (0/1), ``radius`` (``sigma * Phi^{-1}(p_lower)`` at stopping, the certified radius;
        0 where abstaining), ``largest`` (the largest certified tabulated radius), ``n_used`` (estimation draws)
        and ``forward_passes`` (selection + estimation).
    """
    from robeval.acr.published import CIFAR10_RADII
    from robeval.acr.training import certified_test_indices
    from robeval.core.nn.training import to_float_tensor

    variant, sigma, seed = str(cell["variant"]), float(cell["sigma"]), int(cell["seed"])
    sm, xte, yte = trained_smooth(config, variant, sigma, seed)
    n0, n_max, alpha = int(config["cert_n0"]), int(config["seq_n_max"]), float(config["cert_alpha"])
    r_top = reachable_radius(n_max, alpha, sigma)
    radii = [float(r) for r in CIFAR10_RADII if r <= r_top]
    te = certified_test_indices(len(yte), int(config["seq_table_images"]))
    res = certify_table(
        sm,
        to_float_tensor(xte[te]),
        radii,
        n0,
        n_max,
        alpha,
        batch_size=int(config["eval_batch_size"]),
        seed=keyed(seed, "table-certify"),
        idx=te,
    )
    certified = res.certified[:, 0]  # radius 0: p_lower >= 1/2, CERTIFY's condition not to abstain
    radius = np.where(certified, np.nan_to_num(res.radius_bound, nan=0.0), 0.0)
    return [
        {
            "variant": variant,
            "sigma": sigma,
            "seed": seed,
            "idx": int(i),
            "label": int(y),
            "predict": int(p),
            "correct": int(bool(c) and p == y),
            "radius": float(r),
            "largest": float(big),
            "n_used": int(n),
            "forward_passes": n0 + int(n),
        }
        for i, y, p, c, r, big, n in zip(te, yte[te], res.prediction, certified, radius, res.radius, res.n_used)
    ]


def table_certifications(rows: pd.DataFrame, radii) -> pd.DataFrame:
    """Table 5 from the sequential certification: ACR and certified accuracy (percent) per (sigma, variant), means
    over seeds, with the forward passes per image.

    Parameters
    ----------
    rows : DataFrame — the rows of :func:`table_cell` for all cells.
    radii : sequence of float — the table's radii (e.g. :data:`robeval.acr.published.CIFAR10_RADII`).

    Returns
    -------
    DataFrame indexed by ``(sigma, variant)``: ``ACR``, one column per radius (percent), ``passes`` (mean forward
    passes per image) and ``seeds``.
    """
    from robeval.acr.training import per_seed_table

    check_frame(rows, ["sigma", "variant", "seed", "radius", "correct", "forward_passes"], "sequential table rows")
    tab = per_seed_table(rows, radii)
    passes = rows.groupby(["sigma", "variant", "seed"], sort=False)["forward_passes"].mean()
    tab["passes"] = passes.reindex(tab.index).to_numpy()
    out = tab.groupby(level=["sigma", "variant"], sort=False).mean()
    out["seeds"] = tab.groupby(level=["sigma", "variant"], sort=False).size()
    return out


def table_costs(rows: pd.DataFrame, n0: int, n_max: int) -> pd.DataFrame:
    """Forward passes of the sequential Table 5 against fixed-N CERTIFY at ``N = n_max`` (which spends ``n0 +
    n_max`` per image): per (sigma, variant), the mean passes per image, their ratio and the share of images that
    ran to ``n_max``.

    Returns
    -------
    DataFrame indexed by ``(sigma, variant)`` with ``images``, ``passes``, ``fixed_passes``, ``ratio`` (fixed /
    sequential) and ``share_at_n_max``.
    """
    check_frame(rows, ["sigma", "variant", "n_used", "forward_passes"], "sequential table rows")
    g = rows.groupby(["sigma", "variant"], sort=False)
    out = pd.DataFrame(
        {
            "images": g.size(),
            "passes": g["forward_passes"].mean(),
            "share_at_n_max": g["n_used"].apply(lambda n: float((n >= int(n_max)).mean())),
        }
    )
    out["fixed_passes"] = float(int(n0) + int(n_max))
    out["ratio"] = out.fixed_passes / out.passes
    return out[["images", "passes", "fixed_passes", "ratio", "share_at_n_max"]]
