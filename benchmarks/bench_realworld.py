"""Monte-Carlo real-world robustness throughput vs the model's bare batched predict.

Throughput = perturbed samples classified per second by ``robeval.realworld.real_world_robustness``
(sampling, chunking, label comparison included), divided by the throughput of calling the same model's
predict on the same number of pre-made rows in the same chunk size. Target ratio >= 0.9: the estimator's
overhead is small next to the classifier.

Models: the Ionosphere-sized MLP (32 -> 256 -> 256 -> 2, torch, untrained weights: speed does not depend
on them) and the Iris random forest (10 trees, depth 3, 4 features, scikit-learn).

Usage: ``python benchmarks/bench_realworld.py [--quick]``; the last line printed is JSON.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench(name, predict, d, n_points, n_samples, chunk_rows, repeats):
    from robeval.realworld import identity_covariance, real_world_robustness

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_points, d))
    rows = n_points * n_samples
    Z = rng.normal(size=(rows, d))
    cov = identity_covariance(d)

    def bare():
        for s in range(0, rows, chunk_rows):
            predict(Z[s:s + chunk_rows])

    def mc():
        real_world_robustness(predict, X, cov=cov, n_samples=n_samples, rng=1, chunk_rows=chunk_rows)

    bare(), mc()  # warm-up
    t_bare, t_mc = _best_of(bare, repeats), _best_of(mc, repeats)
    return {"model": name, "rows": rows, "chunk_rows": chunk_rows, "bare_rows_per_s": rows / t_bare,
            "mc_rows_per_s": rows / t_mc, "ratio": t_bare / t_mc}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer rows (CI)")
    args = ap.parse_args()
    import torch
    from sklearn.ensemble import RandomForestClassifier

    from robeval import models
    from robeval.realworld_experiments import torch_predict

    torch.manual_seed(0)
    mlp = models.build("mlp", num_classes=2, in_features=32, hidden=(256, 256))
    rng = np.random.default_rng(0)
    Xf = rng.normal(size=(200, 4))
    rf = RandomForestClassifier(10, max_depth=3, random_state=0).fit(Xf, (Xf[:, 0] > 0).astype(int))
    n_points, n_samples, repeats = (40, 5000, 2) if args.quick else (100, 10000, 3)
    chunk = 65536  # the estimator's default chunk size, used for the bare predict too
    results = [
        bench("mlp_32_256_256", torch_predict(mlp), 32, n_points, n_samples, chunk, repeats),
        bench("random_forest_10x3", rf.predict, 4, n_points, n_samples, chunk, repeats),
    ]
    for r in results:
        print(f"{r['model']:>20}: bare {r['bare_rows_per_s']:.3g} rows/s, MC {r['mc_rows_per_s']:.3g} rows/s, "
              f"ratio {r['ratio']:.3f}")
    floor = 0.9
    print(json.dumps({"benchmark": "realworld_mc_throughput", "floor": floor,
                      "ratios": {r["model"]: round(r["ratio"], 4) for r in results},
                      "min_ratio": round(min(r["ratio"] for r in results), 4),
                      "pass": bool(min(r["ratio"] for r in results) >= floor), "results": results}))


if __name__ == "__main__":
    main()
