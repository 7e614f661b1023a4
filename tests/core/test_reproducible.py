"""Bit-identical reruns under the compendium's CPU pins (README, "Reliability"): a corruption and a Monte-Carlo
estimate recomputed in a fresh process with ``robeval.core.env.pin_cpu_kernels`` applied before numpy must hash
to the values stored here (computed once under the pins). Without the pins, this machine's AVX-512 kernels give
other Monte-Carlo bits (P_r differs by up to 0.005), which is what the pins are for."""

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
    from robeval.core import models, training

    noise = lambda xb, g: (xb + 0.03 * (2 * torch.rand(xb.shape, generator=g, device=xb.device) - 1)).clamp(0, 1)
    g0 = np.random.default_rng(0)
    xi, yi = g0.integers(0, 256, size=(64, 3, 32, 32), dtype=np.uint8), g0.integers(0, 10, 64)
    torch.manual_seed(0)
    m = models.build("cnn_small")
    training.train(m, xi, yi, epochs=2, batch_size=16, lr=0.05, batch_transform=noise, seed=3, progress=False,
                   threads=1, device="cpu")
    out["train"] = hashlib.sha256(b"".join(v.detach().numpy().tobytes() for v in m.state_dict().values())).hexdigest()
    out["late"] = late
    print(json.dumps(out))
    """
)

EXPECTED = {
    "fog": "d613f0c03cb70aed8edf5db5d25bed0dd04a16b3b40696006b75ae9016d5600d",
    "elastic_transform": "edaff17474d7ff98eb52a6ad68e192766ae64fb5f230f9c444ff360986766f79",
    "real_world_robustness": "719798c94c8816d7f278c828d9e915213af28151b8d124e70c0f58e773496bb4",
    "train": "a9fd9535f6a61c7f3ac86606d6a5e1c6acd6f037d3ef4cd02c852e64abf83cbd",
    "late": [],
}


def test_pinned_rerun_is_bit_identical_to_the_stored_hashes():
    env = {k: v for k, v in os.environ.items() if k not in PINNED_CPU_ENV}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == EXPECTED
