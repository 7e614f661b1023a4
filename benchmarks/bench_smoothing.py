"""Benchmark: randomized-smoothing certification throughput vs the bare forward pass.

Certification pushes noisy copies of each image through the base classifier. Its throughput (noisy
samples per second through ``Smooth.sample_counts``: replicate, draw noise, forward, argmax, count)
is compared with the same model's bare forward throughput on a pre-built batch of the same size.
The ratio should be close to 1 (target >= 0.9): the noise generation and counting must not matter.

Run: ``python benchmarks/bench_smoothing.py [--arch resnet8] [--batch-size 500] [--repeats 7]``.
The last line printed is a JSON object with ``ratio`` and ``ratio_to_floor`` (ratio / 0.9).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from robeval.acr.smoothing import Smooth, image_generators
from robeval.core.env import hardware_info, torch_device
from robeval.core.nn import models

FLOOR = 0.9


def _sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def time_bare(model, batch) -> float:
    """Seconds for one ``model(batch).argmax(1)`` (the unavoidable work)."""
    dev = batch.device
    with torch.no_grad():
        _sync(dev)
        t0 = time.perf_counter()
        model(batch).argmax(1)
        _sync(dev)
    return time.perf_counter() - t0


def time_certify(smooth: Smooth, x, batch_size: int, gen) -> float:
    """Seconds for CERTIFY's counting loop over ``batch_size`` noisy samples (one forward batch)."""
    dev = x.device
    num = batch_size // len(x)
    _sync(dev)
    t0 = time.perf_counter()
    counts = smooth.sample_counts(x, num, batch_size, gen)
    _sync(dev)
    dt = time.perf_counter() - t0
    assert counts.sum() == num * len(x)
    return dt


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="resnet8")
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--images", type=int, default=4, help="distinct images certified together")
    ap.add_argument("--sigma", type=float, default=0.5)
    args = ap.parse_args(argv)

    dev = torch_device()
    torch.manual_seed(0)
    model = models.build(args.arch).to(dev).eval()
    x = torch.rand(args.images, 3, 32, 32, device=dev)
    if args.batch_size % args.images:
        raise SystemExit("--batch-size must be a multiple of --images")
    batch = x.repeat_interleave(args.batch_size // args.images, dim=0).contiguous()
    smooth = Smooth(model, 10, args.sigma, device=dev)
    # interleave the two measurements batch by batch and compare medians (robust to a shared machine)
    gen = image_generators(0, np.arange(len(x)), 0, dev)
    time_bare(model, batch), time_certify(smooth, x, args.batch_size, gen)  # warm-up
    bare, cert = [], []
    for _ in range(args.repeats):
        bare.append(time_bare(model, batch))
        cert.append(time_certify(smooth, x, args.batch_size, gen))
    b = args.batch_size / float(np.median(bare))
    c = args.batch_size / float(np.median(cert))
    out = {
        "benchmark": "smoothing_certify_vs_forward",
        "arch": args.arch,
        "device": str(dev),
        "batch_size": args.batch_size,
        "bare_samples_per_s": round(b, 1),
        "certify_samples_per_s": round(c, 1),
        "ratio": round(c / b, 4),
        "floor": FLOOR,
        "ratio_to_floor": round(c / b / FLOOR, 4),
        "cpu_count": hardware_info().get("cpu_count"),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
