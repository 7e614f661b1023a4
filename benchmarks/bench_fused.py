"""Benchmark: G networks trained as one fused module (robeval.core.nn.fused) vs the same G networks trained one
after another with ``training.train``, in one process.

Both sides run the same SGD steps on the same images: flips, 4-px crops and MSCR's uniform L_inf noise
(``robeval.mscr.cifar.box_noise_transform``, eps 8/255) per batch, drawn on the CPU from each network's own
generator, forward, backward and SGD (on CUDA: channels-last, bf16 autocast, as ``training.train``). The wall
time of ``G`` separate trainings of ``--steps`` steps is compared with one fused training of ``--steps`` steps
(one untimed step of each first). ``ratio`` = separate seconds / fused seconds: above 1 the fused module trains
the G networks faster. Speed is never asserted in a test: this prints it. ``forward_max_rel_diff``: the fused
forward against each network's own on this device (float32, eval mode), relative to the largest logit.

With ``--calibrate SECONDS`` it also runs :func:`robeval.core.nn.fused.calibrate` for the group sizes ``--G-values``
(network-steps per second of one fused group, with the same noise) and adds its result as ``calibration``: what a
GPU lease runs first (e.g. ``--device cuda --calibrate 60 --G-values 8,16,40,80``) to choose between fused
training (notebook 02's ``fused_group``) and one process per network.

Run: ``python benchmarks/bench_fused.py [--arch resnet20] [--G 4] [--batch-size 128] [--steps 3] [--repeats 1]``.
The last line printed is a JSON object with ``ratio``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from robeval.core.env import hardware_info, torch_device
from robeval.core.nn import fused as fu
from robeval.core.nn import models, training
from robeval.mscr.cifar import box_noise_transform


def _sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="resnet20")
    ap.add_argument("--G", type=int, default=4, help="networks trained together")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--steps", type=int, default=3, help="timed SGD steps per network")
    ap.add_argument("--repeats", type=int, default=1, help="timed rounds (median)")
    ap.add_argument("--eps", type=float, default=8 / 255, help="uniform L_inf training noise")
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1: one per network, as MSCR trains)")
    ap.add_argument("--calibrate", type=float, default=0.0, help="seconds for fused.calibrate (0: skip)")
    ap.add_argument("--G-values", default="1,4,16", help="group sizes of --calibrate")
    args = ap.parse_args(argv)
    if args.G < 1 or args.steps < 1 or args.batch_size < 1 or args.repeats < 1:
        raise SystemExit("--G, --steps, --batch-size and --repeats must be >= 1")

    dev = torch.device(args.device) if args.device else torch_device()
    rng = np.random.default_rng(0)
    n = args.batch_size * args.steps
    x = rng.integers(0, 256, size=(n, 3, 32, 32), dtype=np.uint8)
    y = rng.integers(0, 10, size=n)
    noise = box_noise_transform(args.eps)
    kw = dict(batch_size=args.batch_size, epochs=1, lr=0.1, schedule="step", milestones=[80], device=dev)
    kw["threads"] = args.threads

    def separate(x, y) -> float:
        nets = []
        for g in range(args.G):
            torch.manual_seed(g)
            nets.append(models.build(args.arch))
        _sync(dev)
        t0 = time.perf_counter()
        for g, net in enumerate(nets):
            training.train(net, x, y, seed=100 + g, batch_transform=noise, progress=False, **kw)
        _sync(dev)
        return time.perf_counter() - t0

    def fused(x, y) -> float:
        f = fu.build_fused(args.arch, args.G, seeds=list(range(args.G)))
        _sync(dev)
        t0 = time.perf_counter()
        fu.train_fused(f, x, y, seeds=[100 + g for g in range(args.G)], batch_transforms=noise, **kw)
        _sync(dev)
        return time.perf_counter() - t0

    # on this device, in float32 without autocast: the fused forward equals each network's own (a sanity check of the
    # grouped kernels, e.g. cuDNN's, before their speed is trusted)
    torch.manual_seed(0)
    check = [models.build(args.arch).to(dev).eval() for _ in range(args.G)]
    f_check = fu.stack(check).eval()
    xc = torch.rand(args.G, min(args.batch_size, 32), 3, 32, 32, device=dev)
    with torch.no_grad():
        want = torch.stack([net(xc[g]) for g, net in enumerate(check)])
        rel = float((f_check(xc) - want).abs().max() / want.abs().max().clamp_min(1.0))

    warm = args.batch_size  # one untimed step of each (imports, allocation, kernel selection)
    separate(x[:warm], y[:warm]), fused(x[:warm], y[:warm])
    sep, fus = [], []
    for _ in range(args.repeats):  # interleaved: robust to a shared machine
        sep.append(separate(x, y))
        fus.append(fused(x, y))
    s, f = float(np.median(sep)), float(np.median(fus))
    network_steps = args.G * args.steps
    out = {
        "benchmark": "fused_vs_separate_training",
        "arch": args.arch,
        "G": args.G,
        "batch_size": args.batch_size,
        "steps": args.steps,
        "device": str(dev),
        "threads": args.threads,
        "separate_ms_per_network_step": round(1e3 * s / network_steps, 2),
        "fused_ms_per_network_step": round(1e3 * f / network_steps, 2),
        "ratio": round(s / f, 4),
        "forward_max_rel_diff": float(f"{rel:.3g}"),
        "cpu_count": hardware_info().get("cpu_count"),
    }
    if args.calibrate > 0:
        g_values = [int(v) for v in args.G_values.split(",") if v.strip()]
        out["calibration"] = fu.calibrate(
            args.arch,
            g_values,
            args.batch_size,
            args.calibrate,
            dev,
            batch_transform=noise,
            threads=args.threads,
        )
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
