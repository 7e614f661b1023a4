"""A lease's first minute: how fast this GPU runs the gpu profile's units, to choose how the lease spends it.

Each GPU lease (``benchmarks/gpu_profile.py --calibrate-s 60``) starts with this calibration and writes it to its
output (``calibration.json``), so the pack records what the machine did and every ``[gpu]`` estimate can be
replaced by a measurement (issue 44, item 6). Within ``budget_s`` seconds it measures, in float32 where it counts:

1. ``train_1proc``: training steps per second of one ResNet-20 at batch 128 with MSCR's uniform noise in one
   process (``robeval.core.nn.training.train``, the loop the notebooks use: bf16 autocast and channels-last on CUDA);
2. ``train_nproc``: the same in ``n_procs`` processes sharing the device (steps per second, all together);
3. ``train_fused``: network-steps per second of ``group`` ResNet-20s trained as one fused module
   (``robeval.core.nn.fused``, where that module exists; otherwise recorded as unavailable);
4. ``certify``: noisy-input draws per second of CERTIFY (``robeval.acr.smoothing.Smooth``, float32 logits) with
   notebook 09's ResNet-8 at two batch sizes.

``choice`` says which of 2 and 3 trains more networks per second here: the way 02's grid should run this lease.
Each part gets a share of the budget; a part that fails is recorded with its error and the others go on. Run:
``python benchmarks/gpu_calibrate.py --budget-s 60 --out DIR`` (last line: the JSON summary).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))


def _images(n: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8), rng.integers(0, 10, n)


def _sync(device) -> None:
    import torch

    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def _train_steps(seconds: float, device: str, arch: str = "resnet20", batch: int = 128, seed: int = 0) -> dict:
    """Steps per second of robeval.core.nn.training.train (``arch``, uniform noise) over about ``seconds``."""
    import torch

    from robeval.core.nn import models, training

    def noise(xb, gen):
        u = torch.rand(xb.shape, generator=gen, device=xb.device, dtype=xb.dtype)
        return (xb + 0.03 * (2 * u - 1)).clamp(0, 1)

    x, y = _images(batch * 8, seed)
    torch.manual_seed(seed)
    m = models.build(arch)
    run = lambda epochs: training.train(
        m, x, y, epochs=epochs, batch_size=batch, batch_transform=noise, seed=seed, progress=False, device=device
    )
    run(1)  # warm-up: kernels chosen, memory allocated

    def timed(epochs: int) -> float:
        _sync(device)
        t0 = time.perf_counter()
        run(epochs)
        _sync(device)
        return time.perf_counter() - t0

    t1 = timed(1)
    epochs = max(2, int(seconds / max(t1, 1e-6) / 2))  # a longer run: its extra epochs are pure steps
    tn = timed(epochs)
    # a step's cost is the difference of the two runs: the call's fixed cost (model set-up, data preparation) cancels
    per_step = (tn - t1) / (8 * (epochs - 1)) if tn > t1 else tn / (8 * epochs)
    return {
        "steps": epochs * 8,
        "seconds": tn,
        "steps_per_s": 1.0 / per_step,
        "call_overhead_s": max(0.0, t1 - 8 * per_step),
    }


def _proc(seconds, device, arch, batch, seed, queue) -> None:
    import torch

    os.environ["ROBEVAL_TRAIN_THREADS"] = "1"  # training.train sets its own threads (2 unless told): one a process
    torch.set_num_threads(1)
    try:
        queue.put(_train_steps(seconds, device, arch, batch, seed=seed))
    except Exception as exc:  # reported by the parent
        queue.put({"error": f"{type(exc).__name__}: {exc}"})


def train_nproc(seconds: float, device: str, n: int, arch: str, batch: int) -> dict:
    """Steps per second of ``n`` processes training at once on ``device`` (spawned: CUDA needs it)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_proc, args=(seconds, device, arch, batch, i, queue)) for i in range(n)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    got = [queue.get(timeout=max(600.0, 10 * seconds)) for _ in procs]
    for p in procs:
        p.join()
    errors = [g["error"] for g in got if "error" in g]
    if errors:
        raise RuntimeError(errors[0])
    return {
        "processes": n,
        "steps_per_s": sum(g["steps_per_s"] for g in got),
        "per_process": [round(g["steps_per_s"], 3) for g in got],
        "wall_s": time.perf_counter() - t0,
    }


def _train_fused(seconds: float, device: str, group: int, arch: str, batch: int) -> dict:
    """Network-steps per second of ``group`` networks ``arch`` fused into one module (robeval.core.nn.fused)."""
    try:
        from robeval.core.nn import fused
    except ImportError:
        return {"available": False, "why": "robeval.core.nn.fused is not part of this checkout"}

    def noise(xb, gen):  # MSCR's uniform noise, as the processes of part 2 draw it
        import torch

        u = torch.rand(xb.shape, generator=gen, device=xb.device, dtype=xb.dtype)
        return (xb + 0.03 * (2 * u - 1)).clamp(0, 1)

    got = fused.calibrate(arch, [group], batch_size=batch, seconds_budget=seconds, device=device, batch_transform=noise)
    best = max(got["results"], key=lambda r: r["network_steps_per_s"])
    return {"available": True, "G": best["G"], "network_steps_per_s": best["network_steps_per_s"], "calibrate": got}


def certify_rate(seconds: float, device: str, batches=(1000, 10000), arch: str = "resnet8") -> dict:
    """Draws per second of CERTIFY with 09's ResNet-8 (float32 logits) at each batch size."""
    import torch

    from robeval.acr.smoothing import Smooth
    from robeval.core.nn import models

    torch.manual_seed(0)
    m = models.build(arch).to(device).eval()
    x = torch.rand(1, 3, 32, 32)
    out = {}
    for b in batches:
        smooth = Smooth(m, 10, 0.5, device=device)
        smooth.certify(x, n0=100, n=b, alpha=0.001, batch_size=b, seed=0)  # warm-up
        n = b
        while True:
            _sync(device)
            t0 = time.perf_counter()
            smooth.certify(x, n0=100, n=n, alpha=0.001, batch_size=b, seed=0)
            _sync(device)
            dt = time.perf_counter() - t0
            if dt > seconds / (2 * len(batches)) or n >= 10**7:
                break
            n *= 4
        out[str(b)] = {"draws": n + 100, "seconds": dt, "draws_per_s": (n + 100) / dt}
    return out


def calibrate(
    budget_s: float = 60.0,
    *,
    device: str | None = None,
    n_procs: int = 16,
    group: int = 16,
    arch: str = "resnet20",
    batch: int = 128,
    cert_arch: str = "resnet8",
    cert_batches=(1000, 10000),
) -> dict:
    """The four measurements within about ``budget_s`` seconds (shares 0.2, 0.3, 0.3, 0.2) on ``device``
    (default: the GPU when there is one): training ``arch`` at ``batch`` (02's ResNet-20 at 128), CERTIFY with
    ``cert_arch`` (09's ResNet-8) at ``cert_batches``. Returns the summary dict (see the module docstring)."""
    from robeval.core.env import hardware_info, torch_device

    if not budget_s > 0:
        raise ValueError(f"budget_s must be > 0 seconds, got {budget_s!r}.")
    device = str(device or torch_device())
    out = {"device": device, "budget_s": budget_s, "arch": arch, "batch": batch, "hardware": hardware_info()}
    out["parts"] = {}
    parts = [
        ("train_1proc", 0.2, lambda s: _train_steps(s, device, arch, batch)),
        ("train_nproc", 0.3, lambda s: train_nproc(s, device, n_procs, arch, batch)),
        ("train_fused", 0.3, lambda s: _train_fused(s, device, group, arch, batch)),
        ("certify", 0.2, lambda s: certify_rate(s, device, tuple(cert_batches), cert_arch)),
    ]
    t_all = time.perf_counter()
    for name, share, fn in parts:
        t0 = time.perf_counter()
        try:
            out["parts"][name] = fn(share * budget_s)
        except Exception as exc:
            out["parts"][name] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=3)}
        out["parts"][name]["wall_s"] = round(time.perf_counter() - t0, 2)
    p = out["parts"]
    rates = {
        "processes": p["train_nproc"].get("steps_per_s"),
        "fused": p["train_fused"].get("network_steps_per_s") if p["train_fused"].get("available") else None,
    }
    rates = {k: v for k, v in rates.items() if v}
    out["choice"] = max(rates, key=rates.get) if rates else "processes"
    out["wall_s"] = round(time.perf_counter() - t_all, 2)
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget-s", type=float, default=60.0, help="seconds for all four parts (default 60)")
    ap.add_argument("--out", type=Path, required=True, help="folder for calibration.json")
    ap.add_argument("--procs", type=int, default=min(16, os.cpu_count() or 1), help="processes of part 2")
    ap.add_argument("--group", type=int, default=16, help="networks in the fused group of part 3")
    ap.add_argument("--arch", default="resnet20", help="the network trained in parts 1-3 (02's ResNet-20)")
    ap.add_argument("--batch", type=int, default=128, help="its batch size")
    ap.add_argument("--cert-arch", default="resnet8", help="the network certified in part 4 (09's ResNet-8)")
    ap.add_argument("--cert-batches", default="1000,10000", help="CERTIFY batch sizes of part 4")
    args = ap.parse_args(argv)
    got = calibrate(
        args.budget_s,
        n_procs=args.procs,
        group=args.group,
        arch=args.arch,
        batch=args.batch,
        cert_arch=args.cert_arch,
        cert_batches=[int(b) for b in args.cert_batches.split(",")],
    )
    from robeval.core.io import atomic_write_text

    args.out.mkdir(parents=True, exist_ok=True)
    # a temporary file renamed into place: a link named calibration.json is replaced, its target never written
    atomic_write_text(args.out / "calibration.json", json.dumps(got, indent=2, default=str))
    print(json.dumps({k: got[k] for k in ("device", "choice", "wall_s")} | {"parts": _brief(got["parts"])}))
    return got


def _brief(parts: dict) -> dict:
    return {k: {kk: vv for kk, vv in v.items() if kk != "trace"} for k, v in parts.items()}


if __name__ == "__main__":
    main()
