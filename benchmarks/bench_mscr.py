"""Benchmark: cost of one 2D MSCR protocol run relative to its floor, and the CIFAR subset separation time.

* protocol: ``robeval.mscr.protocol.run_cell_2d`` for the 9 eps_train levels of Table 2a (9 forests x 9 test levels);
* floor: fitting and predicting the *same* RandomForests (same seeds, n_jobs) on the *same* arrays, built
  beforehand, with nothing else (no splitting, noise sampling or scoring).
* separation: exact L_inf class separation of the 6000 CIFAR-10 subset images (branch and bound) and, for
  scale, brute force on 500 query images extrapolated to all 6000.

Prints a final JSON line: ``{"protocol_s", "floor_s", "ratio_protocol_to_floor", "separation_s", ...}``.
Target: ratio <= 1.10. Usage: ``python benchmarks/bench_mscr.py [--repeats 2] [--n-jobs 2] [--levels 9] [--skip-brute]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np


def _mirror():
    if "ROBEVAL_DATA_DIR" not in os.environ:
        guess = Path(__file__).resolve().parents[2] / "shared" / "data"
        if guess.exists():
            os.environ["ROBEVAL_DATA_DIR"] = str(guess)


def protocol_run(seed, eps_levels, n_jobs):
    from robeval.mscr import protocol as mscr

    config = dict(
        dataset="B",
        norm="linf",
        eps_test=eps_levels,
        k_train=10,
        k_test=10,
        test_size=0.2,
        n_estimators=100,
        noise_mode="iid",
        rf_n_jobs=n_jobs,
    )
    rows = []
    for e in eps_levels:
        rows += mscr.run_cell_2d({"seed": seed, "eps_train": e, "model": "rf"}, config)
    return rows


def floor_arrays(seed, eps_levels):
    """The exact arrays the protocol fits and predicts (built outside the timed region)."""
    from robeval.core import data
    from robeval.mscr import protocol as mscr

    X, y = data.load_mscr_2d("B")
    tr, te = mscr.split_indices(len(X), 0.2, seed)
    train_sets = [mscr.augment(X[tr], y[tr], e, 10, np.inf, mscr.noise_generator(seed, "train", e)) for e in eps_levels]
    blocks = [X[te]] + [
        mscr.augment(X[te], y[te], e, 10, np.inf, mscr.noise_generator(seed, "test", e))[0] for e in eps_levels if e > 0
    ]
    return train_sets, np.concatenate(blocks)


def floor_run(seed, train_sets, X_pred, n_jobs):
    from sklearn.ensemble import RandomForestClassifier

    for Xtr, ytr in train_sets:
        clf = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=n_jobs).fit(Xtr, ytr)
        clf.predict(X_pred)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--skip-brute", action="store_true")
    p.add_argument("--levels", type=int, default=9, help="eps_train levels timed (Table 2a has 9)")
    args = p.parse_args(argv)
    _mirror()
    import torch

    from robeval.core import data
    from robeval.mscr import separation

    torch.set_num_threads(max(1, args.n_jobs))
    X, y = data.load_mscr_2d("B")
    eps_min = separation.eps_min(X, y, np.inf)
    eps_levels = [0.0, 0.001, 0.002, eps_min, 0.007, 0.01, 0.015, 0.02, 0.03]
    seed = 0
    eps_levels = eps_levels[: args.levels]
    train_sets, X_pred = floor_arrays(seed, eps_levels)
    protocol_run(seed, eps_levels[:2], args.n_jobs)  # warm-up: imports, data cache, thread pools
    t_proto, t_floor = [], []
    for _ in range(args.repeats):  # interleaved so machine load affects both alike
        t0 = time.perf_counter()
        protocol_run(seed, eps_levels, args.n_jobs)
        t_proto.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        floor_run(seed, train_sets, X_pred, args.n_jobs)
        t_floor.append(time.perf_counter() - t0)

    x_tr, y_tr, x_te, y_te = data.load_cifar10_subset()
    Xc, yc = np.concatenate([x_tr, x_te]), np.concatenate([y_tr, y_te])
    t0 = time.perf_counter()
    two_r = separation.min_class_separation(Xc, yc, np.inf, pixel_units=True) / 255
    t_sep = time.perf_counter() - t0
    brute_est = None
    if not args.skip_brute:
        T = torch.from_numpy(Xc.reshape(len(Xc), -1).astype(np.float32))
        t0 = time.perf_counter()
        torch.cdist(T[:500], T, p=float("inf"))
        brute_est = (time.perf_counter() - t0) * len(Xc) / 500
    result = {
        "protocol_s": round(min(t_proto), 3),
        "floor_s": round(min(t_floor), 3),
        "ratio_protocol_to_floor": round(min(t_proto) / min(t_floor), 3),
        "target_ratio": 1.10,
        "separation_cifar_subset_s": round(t_sep, 3),
        "separation_2r_x255": round(two_r * 255, 6),
        "brute_force_estimate_s": round(brute_est, 1) if brute_est else None,
        "ratio_separation_to_brute": round(t_sep / brute_est, 3) if brute_est else None,
        "eps_levels": len(eps_levels),
        "n_jobs": args.n_jobs,
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
