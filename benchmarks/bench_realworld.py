"""Monte-Carlo real-world robustness throughput vs the model's bare batched predict.

Throughput = perturbed samples classified per second by ``robeval.realworld.robustness.real_world_robustness``
(sampling, chunking, label comparison included), divided by the throughput of calling the same model's
predict on the same number of pre-made rows in the same chunk size. Target ratio >= 0.9: the estimator's
overhead is small next to the classifier.

Models: the Ionosphere-sized MLP (32 -> 256 -> 256 -> 2, torch, untrained weights: speed does not depend
on them) and the Iris random forest (10 trees, depth 3, 4 features, scikit-learn).

The two measurements alternate round by round and the reported ratio is the median of the per-round
ratios, so load from other processes on a shared machine hits both sides alike. To show where the
overhead goes, the script also times the sampling alone (standard normals, covariance factor, shift) and
prints the *serial bound* ``t_bare / (t_bare + t_sampling)``: the ratio if sampling never overlapped with
predict. The estimator samples the next chunk in a background thread, so the ratio can exceed that bound
when a core is free; when the model already keeps every core busy (torch on a 2-core machine) the two
compete and the ratio sits near the bound. ``--torch-threads`` sets torch's thread count for both sides.

Usage: ``python benchmarks/bench_realworld.py [--quick] [--rounds R] [--torch-threads T]``; the last line
printed is JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

FLOOR = 0.9


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench(name, predict, d, n_points, n_samples, chunk_rows, rounds):
    from robeval.realworld.covariance import identity_covariance
    from robeval.realworld.robustness import (
        _gaussian_chunk,
        point_rngs,
        real_world_robustness,
    )
    from robeval.realworld.samplers import GaussianPerturbation

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_points, d))
    rows = n_points * n_samples
    Z = rng.normal(size=(rows, d))
    cov = identity_covariance(d)
    per_chunk = max(1, chunk_rows // n_samples)
    chunks = [[(i, n_samples) for i in range(s, min(s + per_chunk, n_points))] for s in range(0, n_points, per_chunk)]

    def bare():
        for s in range(0, rows, chunk_rows):
            predict(Z[s : s + chunk_rows])

    def mc():
        real_world_robustness(predict, X, cov=cov, n_samples=n_samples, rng=1, chunk_rows=chunk_rows)

    def sampling():  # the estimator's sampling work alone, same chunks and streams
        g, rngs = GaussianPerturbation(cov), point_rngs(1, n_points)
        for chunk in chunks:
            _gaussian_chunk(g, X, chunk, rngs)

    bare(), mc()  # warm-up
    t_bare, t_mc, t_samp = [], [], []
    for _ in range(rounds):
        t_bare.append(_timed(bare))
        t_mc.append(_timed(mc))
        t_samp.append(_timed(sampling))
    ratios = np.array(t_bare) / np.array(t_mc)
    tb, ts = float(np.median(t_bare)), float(np.median(t_samp))
    return {
        "model": name,
        "rows": rows,
        "chunk_rows": chunk_rows,
        "rounds": rounds,
        "bare_rows_per_s": rows / tb,
        "mc_rows_per_s": rows / float(np.median(t_mc)),
        "sampling_rows_per_s": rows / ts,
        "ratio": float(np.median(ratios)),
        "ratio_min": float(ratios.min()),
        "ratio_max": float(ratios.max()),
        "serial_bound": tb / (tb + ts),
    }


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer rows and rounds (CI)")
    ap.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 5, quick 3)")
    ap.add_argument("--torch-threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    args = ap.parse_args(argv)
    import torch
    from sklearn.ensemble import RandomForestClassifier

    from robeval.core.env import hardware_info
    from robeval.core.nn import models
    from robeval.realworld.experiments import torch_predict

    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    torch.manual_seed(0)
    mlp = models.build("mlp", num_classes=2, in_features=32, hidden=(256, 256))
    rng = np.random.default_rng(0)
    Xf = rng.normal(size=(200, 4))
    rf = RandomForestClassifier(10, max_depth=3, random_state=0).fit(Xf, (Xf[:, 0] > 0).astype(int))
    n_points, n_samples = (40, 5000) if args.quick else (100, 10000)
    rounds = args.rounds or (3 if args.quick else 5)
    chunk = 65536  # the estimator's default chunk size, used for the bare predict too
    results = [
        bench("mlp_32_256_256", torch_predict(mlp), 32, n_points, n_samples, chunk, rounds),
        bench("random_forest_10x3", rf.predict, 4, n_points, n_samples, chunk, rounds),
    ]
    for r in results:
        print(
            f"{r['model']:>20}: bare {r['bare_rows_per_s']:.3g} rows/s, MC {r['mc_rows_per_s']:.3g} rows/s, "
            f"sampling alone {r['sampling_rows_per_s']:.3g} rows/s; ratio {r['ratio']:.3f} "
            f"(rounds {r['ratio_min']:.3f}-{r['ratio_max']:.3f}), serial bound {r['serial_bound']:.3f}"
        )
    min_ratio = min(r["ratio"] for r in results)
    print(
        json.dumps(
            {
                "benchmark": "realworld_mc_throughput",
                "floor": FLOOR,
                "torch_threads": torch.get_num_threads(),
                "cpu_count": hardware_info().get("cpu_count"),
                "ratios": {r["model"]: round(r["ratio"], 4) for r in results},
                "min_ratio": round(min_ratio, 4),
                "pass": bool(min_ratio >= FLOOR),
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
