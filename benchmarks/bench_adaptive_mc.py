"""Adaptive Monte Carlo for real-world robustness: model rows needed vs the paper's fixed N = 10 000.

On the paper's two Sec. 4.1 setups — binary Iris with its random forest (10 trees, depth 3) and Ionosphere
with its MLP (256, 256) — every test point's ``P_r`` is estimated twice with the same seed, at the scales of
Figs. 3a/3b and 4a/4b (identity covariance with unit diagonal times the scale):

* fixed: ``n_samples = 10000`` per point (the paper's protocol);
* adaptive: ``n_samples = "auto"`` — start at ``n_min`` samples, double until the point's Wilson standard error
  is at most ``se_target`` or it has ``n_max = 10000`` samples (a worst-case standard error);
* adaptive, valid: ``n_samples = "auto-cs"`` — double until the Clopper-Pearson interval at 0.05 / (number of
  rounds) lies within ``1.96 se_target`` of the estimate (95% coverage under optional stopping).

The adaptive draws are a prefix of the fixed draws (same per-point stream), so the difference between the two
estimates is pure early stopping. Reported per setup and rule: model rows of each, their ratio (goal: >= 5x fewer
rows in total), the wall time of each (fastest of ``--repeats`` runs) and the time ratio beside the row
ratio (``time_over_row_ratio``: the share of the row saving that reaches the wall clock), the largest
``|P_adaptive - P_fixed|`` in units of ``se_target``, and the number of points where it exceeds ``3 se_target``.

Usage: ``python benchmarks/bench_adaptive_mc.py [--se-target 0.005] [--epochs 200] [--quick]``; the last line
printed is JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

GOAL = 5.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--se-target", type=float, default=0.005)
    ap.add_argument("--n-max", type=int, default=10000)
    ap.add_argument("--n-min", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=200, help="MLP training epochs (the paper: 200)")
    ap.add_argument("--scales", type=float, nargs="+", default=[0.07, 0.43])
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per estimate (the fastest counts)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = ap.parse_args(argv)

    from robeval.realworld.covariance import identity_covariance
    from robeval.realworld.experiments import fit_iris_forest, fit_mlp, ionosphere_split, iris_split, torch_predict
    from robeval.realworld.robustness import real_world_robustness

    if args.quick:
        args.n_max, args.n_min, args.epochs, args.repeats = 1000, 64, 2, 1

    setups = {}
    iris = iris_split(seed=0)
    forest = fit_iris_forest(iris, seed=0)
    setups["iris_forest"] = (forest.predict, iris.X_test)
    iono = ionosphere_split(seed=0)
    setups["ionosphere_mlp"] = (torch_predict(fit_mlp(iono, epochs=args.epochs, seed=0)), iono.X_test)

    results = {}
    for name, (predict, X) in setups.items():
        if args.quick:
            X = X[:10]
        for scale in args.scales:
            cov = scale * identity_covariance(X.shape[1])
            t_fixed = np.inf
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                fixed = real_world_robustness(predict, X, cov=cov, n_samples=args.n_max, rng=1, return_se=True)
                t_fixed = min(t_fixed, time.perf_counter() - t0)
            rows_fixed = int(args.n_max * len(X))
            entry = {"points": len(X), "rows_fixed": rows_fixed, "seconds_fixed": round(t_fixed, 4)}
            for rule in ("auto", "auto-cs"):
                best = np.inf
                for _ in range(args.repeats):  # the fastest of a few runs: the machine is shared
                    t0 = time.perf_counter()
                    auto = real_world_robustness(
                        predict,
                        X,
                        cov=cov,
                        n_samples=rule,
                        n_min=args.n_min,
                        n_max=args.n_max,
                        se_target=args.se_target,
                        rng=1,
                        return_se=True,
                    )
                    best = min(best, time.perf_counter() - t0)
                gap = np.abs(auto.robustness - fixed.robustness) / args.se_target
                rows_auto = int(np.sum(auto.n_samples))
                tag = "" if rule == "auto" else "_cs"
                entry.update(
                    {
                        f"rows_adaptive{tag}": rows_auto,
                        f"row_ratio{tag}": rows_fixed / rows_auto,
                        f"seconds_adaptive{tag}": round(best, 4),
                        f"time_ratio{tag}": t_fixed / best,
                        f"time_over_row_ratio{tag}": (t_fixed / best) / (rows_fixed / rows_auto),
                        f"points_at_n_max{tag}": int(np.sum(auto.n_samples == args.n_max)),
                        f"max_gap_in_se_target{tag}": float(gap.max()),
                        f"points_gap_above_3_se_target{tag}": int(np.sum(gap > 3)),
                    }
                )
            results[f"{name}@{scale:g}"] = entry
            print(name, scale, results[f"{name}@{scale:g}"], flush=True)

    total_fixed = sum(r["rows_fixed"] for r in results.values())
    secs_fixed = sum(r["seconds_fixed"] for r in results.values())
    summary = {
        "benchmark": "adaptive_mc",
        "se_target": args.se_target,
        "n_min": args.n_min,
        "n_max": args.n_max,
        "results": results,
        "goal_row_ratio": GOAL,
        "max_gap_in_se_target": max(r["max_gap_in_se_target"] for r in results.values()),
    }
    for tag in ("", "_cs"):
        rows = sum(r[f"rows_adaptive{tag}"] for r in results.values())
        secs = sum(r[f"seconds_adaptive{tag}"] for r in results.values())
        summary[f"total_row_ratio{tag}"] = total_fixed / rows
        summary[f"total_time_ratio{tag}"] = secs_fixed / secs
        summary[f"time_over_row_ratio{tag}"] = (secs_fixed / secs) / (total_fixed / rows)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
