"""Bit-identical reruns under the compendium's CPU pins (docs/reliability.md): two corruptions and a Monte-Carlo
estimate recomputed in a fresh process with ``robeval.core.env.pin_cpu_kernels`` applied before numpy must hash
to the values stored here, on every x86 machine (recorded on an AVX-512 machine, 2026-11-24; the same bits on an
AMD EPYC Zen 3 without AVX-512, 2026-11-28). Without the pins, AVX-512 kernels give other Monte-Carlo bits (P_r
differs by up to 0.005), which is what the pins are for.

A short torch training is bit-identical on one machine (trained twice here) but not across CPU types, pins or
not: oneDNN sizes its convolution blocking from the cache sizes and promises no reproducibility across CPUs
(uxlfoundation/oneDNN#1443). Its stored hash is therefore kept per CPU kind (vendor, family, model, L2 size) and
compared only on a kind recorded here; it guards the training loop's random stream (issue 44, item 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from robeval.core.env import PINNED_CPU_ENV

SCRIPT = textwrap.dedent(
    """
    import hashlib, json, sys
    from robeval.core.env import pin_cpu_kernels
    late = pin_cpu_kernels()
    import numpy as np
    from robeval.realworld import real_world_robustness
    from robeval.transforms import corrupt

    def sha(a):
        return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()

    gen = np.random.default_rng(20)
    x = gen.integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    out = {name: sha(corrupt(x, name, 3, seed=1)) for name in ("fog", "elastic_transform")}
    # a tiny fixed model: tanh layer and BLAS matrix products, a correlated Gaussian perturbation
    W1, b1, W2 = gen.normal(size=(4, 16)), gen.normal(size=16), gen.normal(size=(16, 3))
    predict = lambda Z: np.argmax(np.tanh(Z @ W1 + b1) @ W2, axis=1)
    X = gen.normal(size=(6, 4))
    pr = real_world_robustness(predict, X, cov=0.5 * np.eye(4) + 0.1, n_samples=4000, rng=3)
    out["real_world_robustness"] = sha(np.asarray(pr, dtype=np.float64))
    # a short training with crops, flips and noise drawn on the training device (the CPU): its single stream is
    # the one it had before the loop moved its subset to the device (issue 44, item 4)
    import torch
    from robeval.core.nn import models
    from robeval.core.nn import training

    noise = lambda xb, g: (xb + 0.03 * (2 * torch.rand(xb.shape, generator=g, device=xb.device) - 1)).clamp(0, 1)
    g0 = np.random.default_rng(0)
    xi, yi = g0.integers(0, 256, size=(64, 3, 32, 32), dtype=np.uint8), g0.integers(0, 10, 64)

    def trained():
        torch.manual_seed(0)
        m = models.build("cnn_small")
        training.train(m, xi, yi, epochs=2, batch_size=16, lr=0.05, batch_transform=noise, seed=3, progress=False,
                       threads=1, device="cpu")
        return hashlib.sha256(b"".join(v.detach().numpy().tobytes() for v in m.state_dict().values())).hexdigest()

    out["train"] = trained()
    out["train_again"] = trained()
    out["late"] = late
    print(json.dumps(out))
    """
)

EXPECTED = {
    "fog": "d613f0c03cb70aed8edf5db5d25bed0dd04a16b3b40696006b75ae9016d5600d",
    "elastic_transform": "edaff17474d7ff98eb52a6ad68e192766ae64fb5f230f9c444ff360986766f79",
    "real_world_robustness": "719798c94c8816d7f278c828d9e915213af28151b8d124e70c0f58e773496bb4",
    "late": [],
}
# the training hash per CPU kind (vendor, family, model, L2 per core) where it was recorded; the first one, on the
# AVX-512 machine of 2026-11-27 (a9fd9535...), was stored without its kind and is not listed
TRAIN_BY_CPU = {
    ("AuthenticAMD", "25", "1", "512K"): "68375639ece17fea777ed48ed3540cda698fa5f23e73f1754abb9c60ecbd003c",
}


def cpu_kind() -> tuple[str, str, str, str] | None:
    """(vendor_id, cpu family, model, L2 size of cpu0) from /proc and /sys; None where Linux does not say."""
    try:
        with open("/proc/cpuinfo") as fh:
            fields = dict(ln.split(":", 1) for ln in fh.read().split("\n\n")[0].splitlines() if ":" in ln)
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as fh:
            l2 = fh.read().strip()
    except OSError:
        return None
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return fields.get("vendor_id", ""), fields.get("cpu family", ""), fields.get("model", ""), l2


def test_cpu_kind_reads_this_machine():
    kind = cpu_kind()
    if kind is None:
        return
    vendor, family, model, l2 = kind
    assert vendor and family.isdigit() and model.isdigit(), kind
    assert l2[:-1].isdigit() and l2[-1] in "KM", kind


def test_pinned_rerun_is_bit_identical_to_the_stored_hashes():
    env = {k: v for k, v in os.environ.items() if k not in PINNED_CPU_ENV}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    train, again = out.pop("train"), out.pop("train_again")
    assert out == EXPECTED  # numpy results: the same bits on every x86 machine under the pins
    assert train == again  # torch training: the same bits on one machine
    recorded = TRAIN_BY_CPU.get(cpu_kind())
    if recorded is not None:  # torch training across machines: only against the hash of this CPU kind
        assert train == recorded
