"""Benchmark: the project's CPU training steps and certification forward passes vs a bare torch loop, with the
CPU-kernel pins (``robeval.core.env.PINNED_CPU_ENV``) on and off, in NCHW and channels-last memory format.

Cases (all on the CPU; training with :func:`robeval.core.nn.training.train_threads` intra-op threads, the forward
passes with torch's default; ``--threads N`` sets N for every loop, ``ROBEVAL_TRAIN_THREADS`` included):

* ``resnet20_train``: ResNet-20, batch 128 (notebook 02's MSCR networks): the project's step is
  ``training.train`` (gather, flips and crops, forward, cross-entropy, backward, SGD with momentum and weight
  decay, schedule) for ``--steps`` batches, per step;
* ``resnet8_rs_train``: the ResNet-8 of notebook 09's ``gpu`` profile (``models.build("resnet8")``) trained by
  ``acr.training.train_rs`` (Gaussian training: 64 images x 2 noise draws = 128 noisy inputs per step);
* ``resnet8_forward``: certification's forward passes at batch 1000 (``Smooth.sample_counts``: noise, forward,
  argmax, count), per batch;
* with ``--fused-G G`` also ``resnet20_fused``: ``fused.train_fused`` of G ResNet-20s, per network-step.

The floor of each case is a bare torch loop of the same network on pre-built batches of the same size and memory
format (``opt.zero_grad(); F.cross_entropy(model(xb), yb).backward(); opt.step()`` with the same SGD settings; for
the forward case ``model(xb).argmax(1)`` under ``no_grad``). In channels-last the model's weights are
channels-last and the project's loops get their batches as they would with that change made (``training.train``:
a batch transform that makes the batch channels-last, as it does on CUDA; ``train_rs``: channels-last weights,
which make every convolution's output channels-last; certification: ``acr``'s ``ChannelsLastInference``, which
it uses today; in NCHW the plain model).

The ISA variables act when torch is imported, so every pin setting runs in a fresh subprocess of this script
(``--worker pinned|unpinned``): ``pinned`` gets ``PINNED_CPU_ENV`` (via ``env.pin_cpu_kernels``), ``unpinned`` the
environment without those variables. ``--rounds`` alternates the two settings that many times (medians over all
rounds and ``--repeats``: robust to a shared machine). Each worker also trains a short seeded run of both project
loops twice (4 steps of 32 images) and hashes the state dicts: ``bits`` says whether they are identical within
each process, across the processes of a setting (same machine) and between the settings.

Ratios in the final JSON line are of **seconds** (above 1: slower): ``project_to_floor`` (per setting, case and
format), ``pinned_to_unpinned`` (project and floor), ``channels_last_to_nchw`` (project and floor, per setting);
``seconds`` holds the medians, ``cpu`` the CPU kind (model name, AVX-512F), torch's version and the ISA each
worker's ATen dispatched to, ``loadavg`` the load before and after.

Run: ``python benchmarks/bench_train_step.py [--rounds 3] [--steps 4] [--repeats 1]``; ``--quick`` for tiny sizes
(batch 8, 1 step, forward batch 40, 1 round).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

# --- robeval imports: the only place this benchmark names robeval modules (one line each; rename here when
# --- core's modules move, e.g. core.training -> core.nn.training) -------------------------------------------
from robeval.acr import smoothing as rsmooth  # Smooth, image_generators
from robeval.acr import training as rs_training  # train_rs, RSTrainConfig, ChannelsLastInference
from robeval.core import env as renv  # PINNED_CPU_ENV, pin_cpu_kernels
from robeval.core.nn import fused as rfused  # build_fused, train_fused
from robeval.core.nn import models as rmodels  # build
from robeval.core.nn import training as rtrain  # train, train_threads, fixed_threads

# -------------------------------------------------------------------------------------------------------------

SETTINGS = ("pinned", "unpinned")
FORMATS = ("nchw", "channels_last")
CL = torch.channels_last


# ----------------------------------------------------------------------------------------------- worker side


def _model(arch: str, fmt: str, seed: int = 0):
    torch.manual_seed(seed)
    m = rmodels.build(arch)
    return m.to(memory_format=CL) if fmt == "channels_last" else m


def _data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(n, 3, 32, 32), dtype=np.uint8), rng.integers(0, 10, size=n)


def _to_cl(xb, gen):  # the batch transform that puts a batch in channels-last (training.train does it on CUDA)
    return xb.contiguous(memory_format=CL)


def _project_train(model, x, y, fmt: str, batch: int, threads: int) -> float:
    t0 = time.perf_counter()
    rtrain.train(
        model,
        x,
        y,
        epochs=1,
        batch_size=batch,
        lr=0.1,
        momentum=0.9,
        weight_decay=5e-4,
        schedule="cosine",
        seed=1,
        device="cpu",
        progress=False,
        threads=threads,
        batch_transform=_to_cl if fmt == "channels_last" else None,
    )
    return time.perf_counter() - t0


def _rs_config(images: int, seed: int = 0):
    return rs_training.RSTrainConfig(
        sigma=0.5, epochs=1, batch_size=images, num_noise=2, milestones=(), weight_decay=1e-4, seed=seed
    )


def _project_rs(model, x, y, images: int) -> float:
    t0 = time.perf_counter()
    rs_training.train_rs(model, x, y, _rs_config(images), device="cpu", progress=False)
    return time.perf_counter() - t0


def _floor_train(model, xb, yb, steps: int, threads: int, wd: float) -> float:
    """Bare loop: ``steps`` SGD steps (momentum 0.9, weight decay ``wd``) on the pre-built batch ``xb``."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=wd)
    with rtrain.fixed_threads(threads):
        t0 = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        return time.perf_counter() - t0


def _batch(n: int, fmt: str, seed: int):
    g = torch.Generator().manual_seed(seed)
    xb = torch.rand(n, 3, 32, 32, generator=g)
    yb = torch.randint(0, 10, (n,), generator=g)
    return (xb.contiguous(memory_format=CL) if fmt == "channels_last" else xb), yb


def _time_train_cases(args, threads: int) -> dict:
    """Seconds per step of the project's loops and their floors, per memory format (median of repeats)."""
    out = {}
    b20, steps, img8 = args.batch_size, args.steps, args.batch_size // 2  # train_rs: images x 2 draws = batch
    x20, y20 = _data(b20 * steps, 0)
    x8, y8 = _data(img8 * steps, 1)
    for fmt in FORMATS:
        xb, yb = _batch(b20, fmt, 2)
        res = {"resnet20_train": {"project": [], "floor": []}, "resnet8_rs_train": {"project": [], "floor": []}}
        m20 = _model("resnet20", fmt)
        m8 = _model("resnet8", fmt)
        # warm-up: one step of each (allocation, oneDNN primitive creation)
        _project_train(m20, x20[:b20], y20[:b20], fmt, b20, threads)
        _floor_train(m20, xb, yb, 1, threads, 5e-4)
        _project_rs(m8, x8[:img8], y8[:img8], img8)
        _floor_train(m8, xb, yb, 1, threads, 1e-4)
        for _ in range(args.repeats):  # interleaved
            res["resnet20_train"]["project"].append(_project_train(m20, x20, y20, fmt, b20, threads) / steps)
            res["resnet20_train"]["floor"].append(_floor_train(m20, xb, yb, steps, threads, 5e-4) / steps)
            res["resnet8_rs_train"]["project"].append(_project_rs(m8, x8, y8, img8) / steps)
            res["resnet8_rs_train"]["floor"].append(_floor_train(m8, xb, yb, steps, threads, 1e-4) / steps)
        assert m20.stem[0].weight.is_contiguous(memory_format=CL) == (fmt == "channels_last")
        if args.fused_G:
            G = args.fused_G
            f = rfused.build_fused("resnet20", G, seeds=list(range(G)))
            kw = dict(epochs=1, batch_size=b20, seeds=list(range(G)), device=torch.device("cpu"), threads=threads)
            kw["channels_last"] = fmt == "channels_last"
            rfused.train_fused(f, x20[:b20], y20[:b20], **kw)  # warm-up
            res["resnet20_fused"] = {"project": [], "floor": []}
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                rfused.train_fused(f, x20, y20, **kw)
                res["resnet20_fused"]["project"].append((time.perf_counter() - t0) / (steps * G))
                res["resnet20_fused"]["floor"].append(_floor_train(m20, xb, yb, steps, threads, 5e-4) / steps)
        for case, v in res.items():
            out.setdefault(case, {})[fmt] = {k: float(np.median(s)) for k, s in v.items()}
    return out


def _forward_floor(model, xb) -> float:
    with torch.no_grad():
        t0 = time.perf_counter()
        model(xb).argmax(1)
        return time.perf_counter() - t0


def _forward_project(smooth, x, n: int, gens) -> float:
    t0 = time.perf_counter()
    smooth.sample_counts(x, n // len(x), n, gens)
    return time.perf_counter() - t0


def _time_forward(args) -> dict:
    """Seconds per forward batch of ``--forward-batch`` noisy inputs: Smooth.sample_counts vs bare forward."""
    out = {}
    images = 4
    for fmt in FORMATS:
        torch.manual_seed(0)
        base = rmodels.build("resnet8").eval()
        net = rs_training.ChannelsLastInference(base) if fmt == "channels_last" else base
        bare = base.to(memory_format=CL) if fmt == "channels_last" else base  # same weights, that format
        x = torch.rand(images, 3, 32, 32)
        n = args.forward_batch
        xb = x.repeat_interleave(n // images, dim=0)
        xb = xb.contiguous(memory_format=CL) if fmt == "channels_last" else xb.contiguous()
        smooth = rsmooth.Smooth(net, 10, 0.5, device=torch.device("cpu"))
        gens = rsmooth.image_generators(0, np.arange(images), 0, torch.device("cpu"))

        _forward_floor(bare, xb), _forward_project(smooth, x, n, gens)  # warm-up
        p, f = [], []
        for _ in range(max(3, args.repeats)):
            f.append(_forward_floor(bare, xb))
            p.append(_forward_project(smooth, x, n, gens))
        out[fmt] = {"project": float(np.median(p)), "floor": float(np.median(f))}
    return {"resnet8_forward": out}


def _state_hash(model) -> str:
    h = hashlib.sha256()
    for k, v in model.state_dict().items():
        h.update(k.encode())
        h.update(v.detach().contiguous().cpu().numpy().tobytes())
    return h.hexdigest()[:16]


def _bits(threads: int) -> dict:
    """Hashes of short seeded trainings of both project loops, each run twice in this process."""
    x, y = _data(128, 7)
    out = {}
    for fmt in FORMATS:
        for case in ("resnet20_train", "resnet8_rs_train"):
            hashes = []
            for _ in range(2):
                if case == "resnet20_train":
                    m = _model("resnet20", fmt, seed=3)
                    _project_train(m, x, y, fmt, 32, threads)
                else:
                    m = _model("resnet8", fmt, seed=3)
                    _project_rs(m, x[:64], y[:64], 16)
                hashes.append(_state_hash(m))
            out[f"{case}/{fmt}"] = hashes
    return out


def worker(args) -> dict:
    if args.threads is not None:  # every loop of this process, train_rs's fixed_threads(train_threads()) included
        os.environ["ROBEVAL_TRAIN_THREADS"] = str(args.threads)
        torch.set_num_threads(args.threads)
    threads = rtrain.train_threads()
    out = {
        "setting": args.worker,
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkldnn": torch.backends.mkldnn.is_available(),
        "threads": threads,
        "pins": {k: os.environ.get(k) for k in renv.PINNED_CPU_ENV},
    }
    out["seconds"] = _time_train_cases(args, threads)
    out["seconds"].update(_time_forward(args))
    out["bits"] = _bits(threads) if not args.no_bits else {}
    return out


# ----------------------------------------------------------------------------------------------- parent side


def _env(setting: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in renv.PINNED_CPU_ENV}
    if setting == "pinned":
        renv.pin_cpu_kernels(env, warn=False)
    return env


def cpu_kind() -> dict:
    model, avx512 = None, None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if model is None and line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                if avx512 is None and line.startswith("flags"):
                    avx512 = "avx512f" in line.split(":", 1)[1].split()
                if model is not None and avx512 is not None:
                    break
    except OSError:
        pass
    return {"model_name": model, "avx512f": avx512, "cpu_count": os.cpu_count()}


def _loadavg():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover
        return None


def _ratio(a, b):
    return round(a / b, 4) if b > 0 else None


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch-size", type=int, default=128, help="inputs per training step (train_rs: half images)")
    ap.add_argument("--steps", type=int, default=4, help="timed steps per repeat")
    ap.add_argument("--repeats", type=int, default=1, help="timed repeats per worker (median)")
    ap.add_argument("--rounds", type=int, default=3, help="worker processes per pin setting (alternating)")
    ap.add_argument("--forward-batch", type=int, default=1000, help="noisy inputs per certification forward pass")
    ap.add_argument("--fused-G", type=int, default=0, help="also time fused.train_fused of G ResNet-20s (0: skip)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads of all loops (default: train_threads())")
    ap.add_argument("--no-bits", action="store_true", help="skip the bit-identity check")
    ap.add_argument("--raw", default=None, help="also write every worker's JSON to this file (JSON lines)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (tests): batch 8, 1 step, forward 40, 1 round")
    ap.add_argument("--worker", choices=SETTINGS, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.batch_size, args.steps, args.rounds, args.forward_batch = 8, 1, 1, 40
    if min(args.batch_size, args.steps, args.repeats, args.rounds) < 1 or args.batch_size % 2:
        raise SystemExit("--batch-size (even), --steps, --repeats and --rounds must be >= 1")
    if args.forward_batch < 4 or args.forward_batch % 4:
        raise SystemExit("--forward-batch must be a positive multiple of 4")
    if args.worker:
        out = worker(args)
        print(json.dumps(out))
        return out

    passthrough = ["--batch-size", str(args.batch_size), "--steps", str(args.steps), "--repeats", str(args.repeats)]
    passthrough += ["--forward-batch", str(args.forward_batch), "--fused-G", str(args.fused_G)]
    passthrough += ["--threads", str(args.threads)] if args.threads is not None else []
    passthrough += ["--no-bits"] if args.no_bits else []
    load0 = _loadavg()
    runs = {s: [] for s in SETTINGS}
    for r in range(args.rounds):
        for s in SETTINGS if r % 2 == 0 else SETTINGS[::-1]:
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", s, *passthrough]
            proc = subprocess.run(cmd, env=_env(s), capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"worker {s} failed:\n{proc.stderr[-3000:]}")
            runs[s].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            runs[s][-1]["loadavg"] = _loadavg()
            if args.raw:
                with open(args.raw, "a") as fh:
                    fh.write(json.dumps(runs[s][-1]) + "\n")
    load1 = _loadavg()

    seconds = {}
    for s in SETTINGS:
        seconds[s] = {}
        for case, by_fmt in runs[s][0]["seconds"].items():
            seconds[s][case] = {
                fmt: {
                    side: round(float(np.median([w["seconds"][case][fmt][side] for w in runs[s]])), 5)
                    for side in ("project", "floor")
                }
                for fmt in by_fmt
            }
    cases = list(seconds["pinned"])
    project_to_floor = {
        s: {c: {f: _ratio(v["project"], v["floor"]) for f, v in seconds[s][c].items()} for c in cases} for s in SETTINGS
    }
    pinned_to_unpinned = {
        c: {
            f: {
                side: _ratio(seconds["pinned"][c][f][side], seconds["unpinned"][c][f][side])
                for side in ("project", "floor")
            }
            for f in FORMATS
        }
        for c in cases
    }
    cl_to_nchw = {
        s: {
            c: {
                side: _ratio(seconds[s][c]["channels_last"][side], seconds[s][c]["nchw"][side])
                for side in ("project", "floor")
            }
            for c in cases
        }
        for s in SETTINGS
    }
    fastest = {
        c: min(((s, f) for s in SETTINGS for f in FORMATS), key=lambda sf: seconds[sf[0]][c][sf[1]]["project"])
        for c in cases
    }
    bits = {}
    if not args.no_bits:
        for key in runs["pinned"][0]["bits"]:
            per = {s: [h for w in runs[s] for h in w["bits"][key]] for s in SETTINGS}
            bits[key] = {
                "identical_in_process": {
                    s: all(w["bits"][key][0] == w["bits"][key][1] for w in runs[s]) for s in SETTINGS
                },
                "identical_across_processes": {s: len(set(per[s])) == 1 for s in SETTINGS},
                "pinned_equals_unpinned": set(per["pinned"]) == set(per["unpinned"]),
            }
    fwd = seconds["pinned"].get("resnet8_forward")
    out = {
        "benchmark": "train_step_pins_and_memory_format",
        "batch_size": args.batch_size,
        "steps": args.steps,
        "rounds": args.rounds,
        "forward_batch": args.forward_batch,
        "project_to_floor": project_to_floor,
        "pinned_to_unpinned": pinned_to_unpinned,
        "channels_last_to_nchw": cl_to_nchw,
        "fastest": {c: "/".join(sf) for c, sf in fastest.items()},
        "seconds": seconds,
        "forward_per_s": {
            s: {f: round(args.forward_batch / seconds[s]["resnet8_forward"][f]["project"], 1) for f in FORMATS}
            for s in SETTINGS
        }
        if fwd
        else {},
        "bits": bits,
        "cpu": {
            **cpu_kind(),
            "torch": runs["pinned"][0]["torch"],
            "cpu_capability": {s: runs[s][0]["cpu_capability"] for s in SETTINGS},
            "threads": runs["pinned"][0]["threads"],
        },
        "loadavg": {"before": load0, "after": load1},
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
