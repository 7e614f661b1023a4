"""Throughput of every CIFAR-10-C / CIFAR-10-C-bar corruption and the time to generate the full benchmarks.

Usage: ``python benchmarks/bench_corruptions.py [--n 1000] [--repeats 1]``

For each corruption, all five severities are applied to ``n`` real CIFAR-10 test images (the subset);
images/s counts corrupted images (5·n per corruption). The estimated generation time of the full datasets
is 5 × 10 000 images per corruption at the measured rate, on this machine, one process. The last line is
JSON: per-corruption rates, the estimates, and ratios to a floor of ``FLOOR`` images/s (the rate at which
one corruption of the full CIFAR-10-C takes ~8 minutes).
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

FLOOR = 100.0  # images per second


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="test images per severity (≤ 1000 for the subset)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="corruption names (default: all 25)")
    args = parser.parse_args(argv)

    from robeval.core.data import load_cifar10_subset
    from robeval.transforms import corruptions as C

    x = load_cifar10_subset(layout="NHWC")[2][: args.n]
    names = args.only or list(C.C_CORRUPTIONS + C.CBAR_CORRUPTIONS)
    C.corrupt(x[:2], "frost", 1, seed=0)  # load the frost photographs outside the timing
    rates = {}
    for name in names:
        C.corrupt(x[:2], name, 1, seed=0)  # warm caches (operators of circular blur, zoom matrices)
        best = np.inf
        for r in range(args.repeats):
            t0 = time.perf_counter()
            for sev in range(1, 6):
                C.corrupt(x, name, sev, seed=r)
            best = min(best, time.perf_counter() - t0)
        rates[name] = 5 * len(x) / best
        print(f"{name:34s} {rates[name]:10.0f} img/s   full (50k images): {5e4 / rates[name]:8.1f} s", flush=True)

    def total(group):
        return float(sum(5e4 / rates[n] for n in group if n in rates))

    est_c, est_cbar = total(C.C_CORRUPTIONS), total(C.CBAR_CORRUPTIONS)
    print(f"estimated full CIFAR-10-C: {est_c / 60:.1f} min, CIFAR-10-C-bar: {est_cbar / 60:.1f} min (one process)")
    result = {
        "benchmark": "corruptions",
        "n_images": int(len(x)),
        "machine": platform.processor() or platform.machine(),
        "floor_img_per_s": FLOOR,
        "img_per_s": {k: round(v, 1) for k, v in rates.items()},
        "ratio_to_floor": {k: round(v / FLOOR, 2) for k, v in rates.items()},
        "min_ratio_to_floor": round(min(rates.values()) / FLOOR, 2),
        "est_full_cifar10_c_s": round(est_c, 1),
        "est_full_cifar10_c_bar_s": round(est_cbar, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
