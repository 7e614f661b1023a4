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
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robeval.core.seeding import keyed
from robeval.core.validation import check_frame

__all__ = ["sequential_cells", "sequential_config", "sequential_cell", "sequential_table"]


def sequential_cells(cfg) -> list[dict]:
    """Cells of the comparison grid: one fixed-N CERTIFY cell and one ``certify_radius`` cell per radius."""
    if cfg.seq_fixed_images > cfg.seq_images:
        raise ValueError(
            f"seq_fixed_images ({cfg.seq_fixed_images}) must not exceed seq_images ({cfg.seq_images}): the fixed-N "
            "images are the first of the sequential ones."
        )
    return [{"method": "fixed", "radius": -1.0}] + [{"method": "sequential", "radius": float(r)} for r in cfg.seq_radii]


def sequential_config(cfg) -> dict:
    """The grid config of :func:`sequential_cell`: the resolved settings without the descriptive texts."""
    return {k: v for k, v in cfg.as_dict().items() if k not in ("estimate", "scaled_down")}


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
    from robeval.acr.smoothing import Smooth
    from robeval.acr.training import (
        ChannelsLastInference,
        certified_test_indices,
        rs_config,
        train_subset,
        trained_model,
    )
    from robeval.core import data
    from robeval.core.env import torch_device
    from robeval.core.training import to_float_tensor

    seed, sigma = int(config["seeds"][0]), float(config["sigmas"][0])
    rs_cfg = rs_config({"variant": "gaussian", "sigma": sigma, "seed": seed}, config)
    xtr, ytr, xte, yte = data.load_cifar10_any(bool(config.get("full_cifar10", False)))
    tr, _ = train_subset(seed, len(ytr), int(config["n_train"]))  # the model of notebook 09's grid
    dev = torch_device()
    model, _ = trained_model(rs_cfg, config, xtr[tr], ytr[tr], dev)
    sm = Smooth(ChannelsLastInference(model), 10, sigma, device=dev)
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
