"""Throughput of the MSD pipeline, each stage as a ratio to its floor.

Usage: ``python benchmarks/bench_msd.py [--images 100] [--samples 50] [--arch cnn_small] [--repeats 2]``

Measured on real CIFAR-10 images (the subset), one process, this machine:

* ``augment_img_s``: images/s of the full nine-op scheme (AugMix compositing, per-image instances). It has no
  bare model to compare with; its floor is an absolute rate, 1000 images/s, under which the default
  profile's augmentation work would exceed about a minute.
* ``augment_shared_img_s``: images/s of the same scheme with one instance for 100 images at a time (the MSD
  feature loop's case: :func:`robeval.msd.distance.scheme_transform`), same floor. On a GPU machine this CPU work
  bounds notebook 03's paper profile (``results/paper/gpu_units``).
* ``patch_gaussian_img_s``: images/s of 04's patch Gaussian on float batches of 128 with one torch thread (the
  CPU work it adds to each training step of notebook 04), same floor.
* ``features_img_s``: images/s of ``msd.model_feature_fn`` (uint8 images -> float64 penultimate features,
  untrained weights: speed only). Floor: the bare ``model.features`` forward on pre-made, normalised float32
  tensors in the same batch size -- the ratio is the cost of conversion and batching.
* ``transform_features_inst_s``: transform instances/s of ``msd.transform_features`` over ``--images`` images
  (one instance = draw one scheme instance, apply it to all images, extract features, average). Floor: the
  same work done by hand from its parts -- ``scheme_transform`` on the images, then ``feature_fn`` -- so the
  ratio is the cost of stacking instances and bookkeeping (both call the extractor on ``--images`` images at a
  time: larger CPU batches cost more per image, which is the batch size's effect, not the stacking's).
* ``msd_pairs_s``: (augmentation sample, corruption mean) distances/s of ``msd.msd_many`` (100k x 75, D = 128).
  Floor: the single matrix product ``A @ C.T`` the squared distances are built from (the ratio is < 1 by
  construction; it shows how close the distance search is to one GEMM).

The estimate ``paper_msd_hours`` is the time the paper's per-scheme MSD (100 images x 100k samples) would take at
the measured instance rate. The last line is JSON with the rates and their ratios to the floors.
"""

from __future__ import annotations

import argparse
import json
import platform

import numpy as np

AUGMENT_FLOOR = 1000.0  # images/s


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=100, help="feature images D_S (paper: 100)")
    parser.add_argument("--samples", type=int, default=50, help="transform instances timed")
    parser.add_argument("--arch", default="cnn_small")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    import torch

    from robeval.core.data import load_cifar10_subset
    from robeval.core.images import to_nchw, to_nhwc
    from robeval.core.nn import models
    from robeval.core.nn.training import to_float_tensor
    from robeval.dryrun import time_call
    from robeval.msd import distance as M
    from robeval.transforms import augmentations as A

    torch.set_num_threads(args.threads)
    x_train = load_cifar10_subset()[0]
    x = to_nhwc(x_train[:1000])
    full = frozenset(A.BASE_OPS)

    rates, floors = {}, {}
    t = time_call(lambda: A.apply_scheme(x, full, np.random.default_rng(0)), args.repeats)
    rates["augment_img_s"], floors["augment_img_s"] = len(x) / t, AUGMENT_FLOOR

    def shared_instances(n_inst=10):  # MSD's transform features: one instance on all of the 100 images, 10 times
        rng = np.random.default_rng(0)
        for _ in range(n_inst):
            A.apply_scheme(x[:100], full, rng, same_instance=True)

    t = time_call(shared_instances, args.repeats)
    rates["augment_shared_img_s"], floors["augment_shared_img_s"] = 1000 / t, AUGMENT_FLOOR

    # 04's patch Gaussian on training batches of 128 (float tensors, noise drawn on the CPU), one torch thread as
    # each training process of the paper profile runs it
    from robeval.core.nn.training import fixed_threads

    gen, xb = torch.Generator().manual_seed(0), torch.rand(128, 3, 32, 32)
    with fixed_threads(1):
        t = time_call(lambda: [A.patch_gaussian(xb, gen) for _ in range(10)], args.repeats)
    rates["patch_gaussian_img_s"], floors["patch_gaussian_img_s"] = 1280 / t, AUGMENT_FLOOR

    torch.manual_seed(0)
    model = models.build(args.arch).eval()
    feature_fn = M.model_feature_fn(model, batch_size=500)
    feature_fn(x[:10])
    xt = to_float_tensor(to_nchw(x))

    @torch.no_grad()
    def bare_features():
        for i in range(0, len(xt), 500):
            model.features(xt[i : i + 500])

    t = time_call(lambda: feature_fn(x), args.repeats)
    rates["features_img_s"], floors["features_img_s"] = len(x) / t, len(x) / time_call(bare_features, args.repeats)

    images = x[: args.images]
    transform = M.scheme_transform(full)
    # one extractor call per --images images in both: on a CPU the forward costs more per image in larger batches
    # (a 500-image batch ~1.9x a 100-image one per image, cnn_small), which would be charged to the stacking
    inst_fn = M.model_feature_fn(model, batch_size=len(images))
    t = time_call(
        lambda: M.transform_features(inst_fn, images, transform, np.random.default_rng(0), args.samples),
        args.repeats,
    )

    def by_parts():
        rng = np.random.default_rng(0)
        inst_fn(images).mean(0)
        for _ in range(args.samples):
            inst_fn(transform(images, rng)).mean(0)

    rates["transform_features_inst_s"] = args.samples / t
    floors["transform_features_inst_s"] = args.samples / time_call(by_parts, args.repeats)

    rng = np.random.default_rng(0)
    aug_feats, corr_means = rng.normal(size=(100_000, 128)), rng.normal(size=(75, 128))
    t = time_call(lambda: M.msd_many(aug_feats, corr_means), args.repeats)
    pairs = aug_feats.shape[0] * corr_means.shape[0]
    rates["msd_pairs_s"] = pairs / t
    floors["msd_pairs_s"] = pairs / time_call(lambda: aug_feats @ corr_means.T, args.repeats)

    for k, v in rates.items():
        print(f"{k:28s} {v:14.1f}   (floor {floors[k]:.4g}, ratio {v / floors[k]:.3f})", flush=True)
    paper_hours = 100_000 * (100 / args.images) / rates["transform_features_inst_s"] / 3600
    print(f"paper MSD per scheme (100 images x 100k samples) at this rate: {paper_hours:.1f} h")
    print(
        json.dumps(
            {
                "benchmark": "msd",
                "arch": args.arch,
                "images": args.images,
                "threads": args.threads,
                "machine": platform.processor() or platform.machine(),
                "rates": {k: round(v, 1) for k, v in rates.items()},
                "floors": {k: round(v, 1) for k, v in floors.items()},
                "ratios_to_floor": {k: round(v / floors[k], 3) for k, v in rates.items()},
                "paper_msd_hours_per_scheme": round(paper_hours, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
