"""Sequential certification at fixed radii vs fixed-N CERTIFY: the same certified accuracy from fewer draws.

The ACR paper recommends certified accuracy at chosen radii over ACR. Certifying "radius >= r" needs far
fewer noise draws than estimating p_A to N = 100 000 when p_A is far from the threshold Phi(r / sigma):
``Smooth.certify_radius`` adds draws in doubling stages and stops as soon as a Clopper-Pearson bound (at the
stage's Bonferroni share of alpha) decides, abstaining like CERTIFY otherwise.

Model: a Gaussian-trained (sigma = 0.5) small CNN on the CIFAR-10 subset, as in notebook 09's Gaussian variant
at the default profile (trained once and cached under the data cache, keyed by its settings). For ``--images``
test images we run fixed-N CERTIFY (``--n``, alpha = 0.001) once, and ``certify_radius`` at each radius of
``--radii`` with ``n_max = --n``; we report the certified accuracy of both with Wilson intervals and the
forward passes each used. Floor: the forward passes of fixed-N CERTIFY; the ratio is fixed / sequential per
radius (target >= 10).

Usage: ``python benchmarks/bench_sequential.py [--images 20] [--n 100000] [--epochs 12]``; last line JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def gaussian_model(epochs: int, sigma: float, width: int, n_train: int, seed: int = 0):
    """The Gaussian-trained small CNN (cached by its settings under robeval's data cache)."""
    import torch

    from robeval.core import models, training
    from robeval.core.data import load_cifar10_subset
    from robeval.core.paths import cache_dir

    config = {"arch": "cnn_small", "width": width, "epochs": epochs, "sigma": sigma, "n_train": n_train, "seed": seed}
    path = cache_dir() / "bench_sequential" / ("model_" + "_".join(f"{k}{v}" for k, v in config.items()) + ".pt")
    torch.manual_seed(seed)
    model = models.from_config(config)
    if path.is_file():
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        return model.eval()
    x, y, _, _ = load_cifar10_subset()

    def add_noise(xb, gen):
        return xb + sigma * torch.randn(xb.shape, generator=gen)

    training.train(
        model,
        x[:n_train],
        y[:n_train],
        epochs=epochs,
        batch_size=64,
        lr=0.05,
        schedule="cosine",
        batch_transform=add_noise,
        seed=seed,
        progress=False,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), path)
    return model.eval()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=20)
    ap.add_argument("--n", type=int, default=100_000, help="N of fixed CERTIFY and n_max of the sequential test")
    ap.add_argument("--n0", type=int, default=100)
    ap.add_argument("--alpha", type=float, default=0.001)
    ap.add_argument("--radii", type=float, nargs="+", default=[0.25, 0.5, 0.75])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--n-train", type=int, default=5000)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--batch-size", type=int, default=1000)
    args = ap.parse_args(argv)

    from robeval.acr.smoothing import Smooth
    from robeval.core.data import load_cifar10_subset
    from robeval.core.env import hardware_info
    from robeval.core.stats import proportion_interval
    from robeval.core.training import to_float_tensor

    sigma = 0.5
    model = gaussian_model(args.epochs, sigma, args.width, args.n_train)
    _, _, x_test, y_test = load_cifar10_subset()
    x = to_float_tensor(x_test[: args.images])
    y = y_test[: args.images].astype(np.int64)
    sm = Smooth(model, 10, sigma)
    t0 = time.perf_counter()
    fixed = sm.certify(x, args.n0, args.n, args.alpha, batch_size=args.batch_size, seed=0)
    t_fixed = time.perf_counter() - t0
    fixed_forwards = args.images * (args.n0 + args.n)
    rows = []
    for r in args.radii:
        t0 = time.perf_counter()
        seq = sm.certify_radius(x, r, args.n0, args.n, args.alpha, batch_size=args.batch_size, seed=0)
        dt = time.perf_counter() - t0
        k_fixed = int(((fixed.radius >= r) & (fixed.prediction == y)).sum())
        k_seq = int((seq.certified & (seq.prediction == y)).sum())
        forwards = int(args.images * args.n0 + seq.n_used.sum())
        a, b = proportion_interval(k_fixed, args.images), proportion_interval(k_seq, args.images)
        rows.append(
            {
                "radius": r,
                "certified_accuracy_fixed": a.estimate,
                "ci_fixed": [a.low, a.high],
                "certified_accuracy_sequential": b.estimate,
                "ci_sequential": [b.low, b.high],
                "agree_on_images": int(
                    (((fixed.radius >= r) & (fixed.prediction == y)) == (seq.certified & (seq.prediction == y))).sum()
                ),
                "forwards_sequential": forwards,
                "forward_ratio": fixed_forwards / forwards,
                "seconds_sequential": round(dt, 2),
            }
        )
        print(
            f"r={r}: certified accuracy fixed {a.estimate:.3f} vs sequential {b.estimate:.3f}; "
            f"forwards {fixed_forwards} vs {forwards} ({fixed_forwards / forwards:.1f}x fewer)"
        )
    out = {
        "benchmark": "sequential_certification",
        "device": str(sm.device),
        "hardware": {k: hardware_info().get(k) for k in ("cpu", "cpu_count", "torch")},
        "images": args.images,
        "n": args.n,
        "forwards_fixed": fixed_forwards,
        "seconds_fixed": round(t_fixed, 2),
        "results": rows,
        "mean_forward_ratio": float(np.mean([r["forward_ratio"] for r in rows])),
        "min_forward_ratio": float(np.min([r["forward_ratio"] for r in rows])),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
