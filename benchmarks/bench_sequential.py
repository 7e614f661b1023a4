"""A whole certified-accuracy table from sequential certification vs fixed-N CERTIFY: what a user saves.

One fixed-N CERTIFY run (Cohen et al., N = ``--n``) serves every radius. We compare, on notebook 09's
Gaussian-trained model (sigma = 0.5, first seed; ``--profile`` picks its settings) and the radii ``--radii``:

* ``per_radius``: one sequential run per radius, by the rule of ``Smooth.certify_radius`` (the test of #16);
* ``table_union``: :func:`robeval.acr.sequential.table_test`, one run for all radii, union-bound
  Clopper-Pearson confidence sequence (doubling looks, alpha spent once across radii; ``certify_table``'s rule);
* ``table_betting``: the same with the betting confidence sequence (Waudby-Smith & Ramdas; Voracek 2024);
* ``fixed``: CERTIFY at every N of a grid up to ``--n`` (for each N exactly what ``Smooth.certify`` returns).

To fit a shared CPU, every image's draws are made once: the selection draws and CERTIFY's estimation stream in
blocks of 100, recording the hits of the guessed class per block. Fixed N reads the first N draws; each
sequential rule reads the same draws in order (all its looks are whole blocks), so its decisions and forward
passes are what it spends on that stream. ``certify_table`` runs the same rules on its own stream.

Forward passes count selection (``n0``) and estimation draws. Reported: per replicate image set (``--sets`` of
``--images`` disjoint test images) the whole-table ratio fixed-N cost / method cost, with its median and 10-90%
range over the sets; the certified accuracy at each radius of every method (pooled over the sets, Wilson 95%
intervals); and a second baseline: the smallest N of the grid whose pooled certified accuracy equals that of
N = ``--n`` within its interval at every radius (``matching_fixed_n``; loose on few images), and the smallest
with the same number of certified images at every radius (``exact_fixed_n``), with the ratio of their cost to
each rule's.

Usage: ``python benchmarks/bench_sequential.py [--profile default] [--sets 5] [--images 20] [--n 100000]``;
the last line printed is JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.stats import norm


def fixed_grid(n: int) -> list[int]:
    """Candidate fixed N: ``n`` times 1/100, 1/50, 1/20, 1/10, 1/5, 1/2 and 1, in whole noise blocks of 100."""
    return sorted({max(100, round(n * f / 100) * 100) for f in GRID})


GRID = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def spread(values) -> dict:
    """Median and 10-90% range of per-set ratios."""
    v = np.asarray(values, dtype=np.float64)
    return {"median": float(np.median(v)), "p10": float(np.quantile(v, 0.1)), "p90": float(np.quantile(v, 0.9))}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default", help="notebook 09 settings profile of the model")
    ap.add_argument("--sets", type=int, default=5, help="replicate sets of disjoint test images")
    ap.add_argument("--images", type=int, default=20, help="images per set")
    ap.add_argument("--n", type=int, default=100_000, help="N of fixed CERTIFY and n_max of the sequential rules")
    ap.add_argument("--n0", type=int, default=100)
    ap.add_argument("--alpha", type=float, default=0.001)
    ap.add_argument("--radii", type=float, nargs="+", default=[0.0, 0.25, 0.5, 0.75, 1.0])
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--block", type=int, default=100, help="draws between looks of the betting rule")
    args = ap.parse_args(argv)

    from robeval.acr.sequential import gaussian_smooth, table_test
    from robeval.acr.smoothing import NOISE_BLOCK, certified_radius, image_generators
    from robeval.acr.training import certified_test_indices
    from robeval.core.env import hardware_info
    from robeval.core.nn.training import to_float_tensor
    from robeval.core.profiles import resolve
    from robeval.core.stats import proportion_interval

    if args.n % NOISE_BLOCK or args.block % NOISE_BLOCK:
        raise ValueError(f"--n and --block must be multiples of {NOISE_BLOCK} (the replay reads whole noise blocks).")
    cfg = resolve("acr_rs_training", args.profile).as_dict()
    sm, x_test, y_test, _ = gaussian_smooth(cfg)
    m = args.sets * args.images
    te = certified_test_indices(len(y_test), m)
    x, y = to_float_tensor(x_test[te]), y_test[te].astype(np.int64)
    radii = np.asarray(args.radii, dtype=np.float64)
    th = norm.cdf(radii / sm.sigma)
    sets = np.arange(m).reshape(args.sets, args.images)
    t_start = time.perf_counter()

    # the draws: selection (n0) and CERTIFY's estimation stream, recorded block by block (hits of c_A per block)
    xt = sm._as_tensor(x)
    counts0 = sm.sample_counts(xt, args.n0, args.batch_size, image_generators(0, te, 0, sm.device))
    c_hat = counts0.argmax(axis=1)
    gens = image_generators(0, te, 1, sm.device)
    nb = args.n // NOISE_BLOCK
    blocks = np.zeros((m, nb), dtype=np.int64)
    for k in range(nb):
        blocks[:, k] = sm.sample_counts(xt, NOISE_BLOCK, args.batch_size, gens)[np.arange(m), c_hat]
    cum = np.concatenate([np.zeros((m, 1), np.int64), np.cumsum(blocks, axis=1)], axis=1)
    t_draws = time.perf_counter() - t_start

    # fixed N: CERTIFY from the first N draws (exactly Smooth.certify with that N, seed 0)
    grid = fixed_grid(args.n)
    fixed_ok = {}
    for n in grid:
        abstain, rad = certified_radius(cum[:, n // NOISE_BLOCK], n, args.alpha, sm.sigma)
        fixed_ok[n] = (~abstain & (c_hat == y))[:, None] & (rad[:, None] >= radii[None, :])

    def replay():
        """The sequential rules read the same recorded draws in order (all their looks are whole blocks)."""
        pos = np.zeros(m, dtype=np.int64)

        def hits(active, step):
            new = pos[active] + step
            out = cum[active, new // NOISE_BLOCK] - cum[active, pos[active] // NOISE_BLOCK]
            pos[active] = new
            return out

        return hits

    # one sequential run per radius (the rule of Smooth.certify_radius), and one run for the whole table
    per_radius_ok, per_radius_cost = [], np.zeros(m)
    for j in range(len(radii)):
        cert, n_used, _, _ = table_test(replay(), m, th[j : j + 1], args.n, args.alpha, futility=False)
        per_radius_ok.append(cert[:, 0] & (c_hat == y))
        per_radius_cost += args.n0 + n_used
    methods = {"per_radius": (np.stack(per_radius_ok, axis=1), per_radius_cost)}
    p_start = counts0[np.arange(m), c_hat] / args.n0
    for rule in ("union", "betting"):
        cert, n_used, _, _ = table_test(
            replay(), m, th, args.n, args.alpha, method=rule, block=args.block, p_start=p_start
        )
        methods[f"table_{rule}"] = (cert & (c_hat == y)[:, None], args.n0 + n_used.astype(np.float64))

    fixed_cost = args.n0 + args.n

    def acc(ok):
        out = []
        for j in range(len(radii)):
            ci = proportion_interval(int(ok[:, j].sum()), m)
            out.append({"estimate": ci.estimate, "low": ci.low, "high": ci.high})
        return out

    ref = acc(fixed_ok[args.n])
    matching = exact = None
    for n in grid:  # smallest N whose certified accuracy contains the N = n_max estimate in its interval
        a = acc(fixed_ok[n])
        if matching is None and all(
            lo["low"] - 1e-12 <= r_["estimate"] <= lo["high"] + 1e-12 for lo, r_ in zip(a, ref)
        ):
            matching = n
        if exact is None and np.array_equal(fixed_ok[n].sum(axis=0), fixed_ok[args.n].sum(axis=0)):
            exact = n  # the same number of certified images at every radius (the CI test is loose on few images)
    results = {}
    for name, (ok, cost) in methods.items():
        per_set = [fixed_cost * args.images / cost[s].sum() for s in sets]
        a = acc(ok)
        results[name] = {
            "forwards_per_image": float(cost.mean()),
            "table_ratio_vs_fixed": float(fixed_cost * m / cost.sum()),
            "table_ratio_per_set": spread(per_set),
            "ratio_vs_matching_fixed": float((args.n0 + matching) * m / cost.sum()),
            "ratio_vs_exact_fixed": float((args.n0 + exact) * m / cost.sum()),
            "certified_accuracy": [v["estimate"] for v in a],
            "within_ci_of_fixed": bool(
                all(r_["low"] - 1e-12 <= v["estimate"] <= r_["high"] + 1e-12 for v, r_ in zip(a, ref))
            ),
            "images_differing_from_fixed": [int((ok[:, j] != fixed_ok[args.n][:, j]).sum()) for j in range(len(radii))],
        }
        print(
            f"{name:14s} forwards/image {cost.mean():9.0f}  whole table {results[name]['table_ratio_vs_fixed']:6.1f}x"
            f" fewer than fixed N={args.n} (per set median {results[name]['table_ratio_per_set']['median']:.1f}x,"
            f" 10-90% {results[name]['table_ratio_per_set']['p10']:.1f}-{results[name]['table_ratio_per_set']['p90']:.1f}x);"
            f" {results[name]['ratio_vs_matching_fixed']:.1f}x fewer than fixed N={matching} (CI match),"
            f" {results[name]['ratio_vs_exact_fixed']:.1f}x fewer than fixed N={exact} (same counts); cert. acc. "
            + " / ".join(f"{v:.2f}" for v in results[name]["certified_accuracy"])
        )
    print(
        f"fixed N={args.n}: certified accuracy "
        + " / ".join(f"{v['estimate']:.2f}" for v in ref)
        + f"; smallest matching N = {matching}: "
        + " / ".join(f"{v['estimate']:.2f}" for v in acc(fixed_ok[matching]))
    )
    out = {
        "benchmark": "sequential_table",
        "device": str(sm.device),
        "hardware": {k: hardware_info().get(k) for k in ("cpu", "cpu_count", "torch")},
        "profile": args.profile,
        "sets": args.sets,
        "images": args.images,
        "n": args.n,
        "n0": args.n0,
        "alpha": args.alpha,
        "radii": radii.tolist(),
        "forwards_fixed_per_image": fixed_cost,
        "fixed_certified_accuracy": [v["estimate"] for v in ref],
        "fixed_accuracy_by_n": {str(n): [v["estimate"] for v in acc(fixed_ok[n])] for n in grid},
        "matching_fixed_n": matching,
        "exact_fixed_n": exact,
        "seconds_draws": round(t_draws, 2),
        "seconds_total": round(time.perf_counter() - t_start, 2),
        "results": results,
        "table_ratio_union": results["table_union"]["table_ratio_vs_fixed"],
        "table_ratio_betting": results["table_betting"]["table_ratio_vs_fixed"],
        "table_ratio_per_radius": results["per_radius"]["table_ratio_vs_fixed"],
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
