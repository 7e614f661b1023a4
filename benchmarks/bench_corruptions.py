"""Throughput of every CIFAR-10-C / CIFAR-10-C-bar corruption and the time to generate the full benchmarks.

Usage: ``python benchmarks/bench_corruptions.py [--n 1000] [--repeats 1] [--prep-jobs 2]``

For each corruption, all five severities are applied to ``n`` real CIFAR-10 test images (the subset);
images/s counts corrupted images (5·n per corruption). The estimated generation time of the full datasets
is 5 × 10 000 images per corruption at the measured rate, on this machine, one process. The last line is
JSON: per-corruption rates, the estimates, and ratios to a floor of ``FLOOR`` images/s (the rate at which
one corruption of the full CIFAR-10-C takes ~8 minutes).

The parallel preparation of notebooks 03 and 04 (:func:`robeval.msd.nets.corrupt_diagonal_many`: every image at
its diagonal severity, chunks in worker processes) is timed on the same images and corruptions with one process
and with ``--prep-jobs`` processes (0 skips it): ``prep_speedup`` is the ratio of the two times with the workers
already started (the notebooks' steady state), ``prep_speedup_cold`` includes starting them; the outputs are
checked to be identical. ``prep_cpu_ratio`` is the CPU time of the serial run over that of the parallel run
(this process and its workers, with psutil): near 1 the workers add no work, so on idle cores the speed-up
approaches the number of processes, whatever the load while it was measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

FLOOR = 100.0  # images per second


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="test images per severity (≤ 1000 for the subset)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None, help="corruption names (default: all 25)")
    parser.add_argument("--prep-jobs", type=int, default=2, help="processes of the parallel preparation (0: skip)")
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
    if args.prep_jobs > 0:
        result.update(prep_speedup(x, names, args.prep_jobs, args.repeats))
    print(json.dumps(result))


def _children_cpu_s() -> float:
    """CPU seconds (user + system) of this process's live child processes (the workers); NaN without psutil
    (installed with joblib's usual companions, not a dependency of robeval)."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def prep_speedup(x, names, n_jobs: int, repeats: int) -> dict:
    """Time :func:`robeval.msd.nets.corrupt_diagonal_many` of ``x`` by ``names`` with 1 and ``n_jobs`` processes
    (wall time, and the CPU time of this process and its workers: their ratio says whether the parallel path adds
    work, which a loaded machine's wall times cannot tell)."""
    from robeval.msd import nets

    def run(jobs):
        cpu0, kids0, t0 = time.process_time(), _children_cpu_s(), time.perf_counter()
        out = [a for _, a in nets.corrupt_diagonal_many(x, names, 0, n_jobs=jobs)]
        wall = time.perf_counter() - t0
        return wall, time.process_time() - cpu0 + _children_cpu_s() - kids0, out

    cold, _, par = run(n_jobs)  # starts the workers
    serial_s, serial_cpu, ref = min((run(1) for _ in range(max(1, repeats))), key=lambda r: r[0])
    warm_s, warm_cpu, _ = min((run(n_jobs) for _ in range(max(1, repeats))), key=lambda r: r[0])
    if not all(np.array_equal(a, b) for a, b in zip(par, ref)):
        raise SystemExit("the parallel preparation differs from the serial one")
    n_img = len(names) * len(x)
    print(
        f"preparation of {n_img} images: 1 process {serial_s:.2f} s, {n_jobs} processes {warm_s:.2f} s "
        f"(x{serial_s / warm_s:.2f}; {cold:.2f} s with starting the workers); CPU {serial_cpu:.2f} s vs "
        f"{warm_cpu:.2f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
        flush=True,
    )
    return {
        "prep_jobs": int(n_jobs),
        "prep_images": int(n_img),
        "prep_serial_s": round(serial_s, 3),
        "prep_parallel_s": round(warm_s, 3),
        "prep_speedup": round(serial_s / warm_s, 2),
        "prep_speedup_cold": round(serial_s / cold, 2),
        # CPU seconds of the serial run / of the parallel run (this process + workers): 1 = no work added
        "prep_cpu_ratio": round(serial_cpu / warm_cpu, 2) if warm_cpu > 0 else None,  # None without psutil
        "cpu_count": os.cpu_count(),
        "load_avg_1min": round(os.getloadavg()[0], 2),  # other processes on the cores make the ratio lower
    }


if __name__ == "__main__":
    main()
