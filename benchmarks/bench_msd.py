"""Throughput of the MSD pipeline: augmentation, feature extraction, transform features, MSD distances.

Usage: ``python benchmarks/bench_msd.py [--images 100] [--samples 50] [--arch cnn_small]``

Measured on real CIFAR-10 images (the subset), one process, this machine:

* ``augment_img_s``: images/s of the full nine-op scheme (AugMix compositing, per-image instances);
* ``features_img_s``: images/s of the feature extractor (``model.features``, untrained weights — speed only);
* ``transform_features_inst_s``: transform instances/s of ``msd.transform_features`` over ``--images`` images
  (one instance = apply one sampled scheme instance to all images + feature extraction);
* ``msd_pairs_s``: (augmentation sample, corruption mean) distances/s of ``msd.msd_many`` (100k × 75, D = 128).

The estimate ``paper_msd_hours`` is the time the paper's per-scheme MSD (100 images × 100k samples) would take at
the measured instance rate. The last line is JSON with the rates and their ratios to the floors in ``FLOORS``
(rates under which the default profile's MSD work would exceed about a minute).
"""
from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

FLOORS = {"augment_img_s": 1000.0, "features_img_s": 1000.0, "transform_features_inst_s": 20.0,
          "msd_pairs_s": 1e7}


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=100, help="feature images D_S (paper: 100)")
    parser.add_argument("--samples", type=int, default=50, help="transform instances timed")
    parser.add_argument("--arch", default="cnn_small")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    import torch

    from robeval import augmentations as A
    from robeval import models
    from robeval import msd as M
    from robeval.data import load_cifar10_subset

    torch.set_num_threads(args.threads)
    x_train = load_cifar10_subset()[0]
    x = np.ascontiguousarray(x_train[:1000].transpose(0, 2, 3, 1))
    full = frozenset(A.BASE_OPS)
    rates = {}

    t = _best(lambda: A.apply_scheme(x, full, np.random.default_rng(0)), args.repeats)
    rates["augment_img_s"] = len(x) / t

    torch.manual_seed(0)
    model = models.build(args.arch)
    feature_fn = M.model_feature_fn(model)
    feature_fn(x[:10])
    t = _best(lambda: feature_fn(x), args.repeats)
    rates["features_img_s"] = len(x) / t

    images = x[: args.images]
    transform = M.scheme_transform(full)
    t = _best(lambda: M.transform_features(feature_fn, images, transform, np.random.default_rng(0), args.samples),
              args.repeats)
    rates["transform_features_inst_s"] = args.samples / t

    rng = np.random.default_rng(0)
    aug_feats, corr_means = rng.normal(size=(100_000, 128)), rng.normal(size=(75, 128))
    t = _best(lambda: M.msd_many(aug_feats, corr_means), args.repeats)
    rates["msd_pairs_s"] = aug_feats.shape[0] * corr_means.shape[0] / t

    for k, v in rates.items():
        print(f"{k:28s} {v:14.1f}   (floor {FLOORS[k]:g}, ratio {v / FLOORS[k]:.2f})", flush=True)
    paper_hours = 100_000 * (100 / args.images) / rates["transform_features_inst_s"] / 3600
    print(f"paper MSD per scheme (100 images x 100k samples) at this rate: {paper_hours:.1f} h")
    print(json.dumps({"benchmark": "msd", "arch": args.arch, "images": args.images, "threads": args.threads,
                      "machine": platform.processor() or platform.machine(),
                      "rates": {k: round(v, 1) for k, v in rates.items()},
                      "ratios_to_floor": {k: round(v / FLOORS[k], 3) for k, v in rates.items()},
                      "paper_msd_hours_per_scheme": round(paper_hours, 2)}))


if __name__ == "__main__":
    main()
