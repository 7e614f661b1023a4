"""Fused training of many same-shaped networks (robeval.core.nn.fused): one module with grouped convolutions trains G
networks exactly as G separate ``training.train`` calls would (float64 on a CPU, to rounding)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

from robeval.core.nn import fused as fu
from robeval.core.nn import models, training


@pytest.fixture
def float64():
    """float64 by default and one torch thread (deterministic reductions); both restored after the test."""
    old_dtype, old_threads = torch.get_default_dtype(), torch.get_num_threads()
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)
    yield
    torch.set_default_dtype(old_dtype)
    torch.set_num_threads(old_threads)


def _data(n: int, size: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(n, 3, size, size), dtype=np.uint8), rng.integers(0, 10, size=n)


def _noise(eps: float):
    """Uniform L_inf noise inside the pixel box (as MSCR's ``uniform_linf_box``), drawn from the batch generator."""

    def transform(xb, gen):
        lo, hi = torch.clamp(xb - eps, min=0.0), torch.clamp(xb + eps, max=1.0)
        return lo + (hi - lo) * torch.rand(xb.shape, generator=gen, dtype=xb.dtype)

    return transform


def _max_state_diff(a: nn.Module, b: nn.Module) -> float:
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for k in sa:
        assert sa[k].shape == sb[k].shape and sa[k].dtype == sb[k].dtype, k
    return max(float((sa[k].double() - sb[k].double()).abs().max()) for k in sa)


def _rel_diff(got: torch.Tensor, want: torch.Tensor) -> float:
    """Largest absolute difference relative to the largest magnitude (at least 1)."""
    return float((got - want).abs().max()) / max(1.0, float(want.abs().max()))


def _separate_and_fused(arch, x, y, inits, seeds, transforms, build_kw=None, **kw):
    build_kw = build_kw or {}
    separate = []
    for init, seed, transform in zip(inits, seeds, transforms):
        torch.manual_seed(init)
        net = models.build(arch, **build_kw)
        training.train(net, x, y, seed=seed, batch_transform=transform, device="cpu", threads=1, progress=False, **kw)
        separate.append(net)
    f = fu.build_fused(arch, len(inits), seeds=inits, **build_kw)
    fu.train_fused(f, x, y, seeds=seeds, batch_transforms=transforms, device="cpu", threads=1, **kw)
    return separate, f


def test_fused_training_equals_separate_training_after_50_steps(float64):
    """The issue's acceptance test: 3 ResNet-8s, batch 16 on 200 images (13 steps an epoch, the last of 8 images),
    4 epochs = 52 steps with flips, crops, per-network noise (none, 0.03, 0.1) and a step schedule: every parameter
    and buffer of every fused network equals the separately trained one to 1e-10."""
    x, y = _data(200, 8)  # 8x8 images keep the test fast; the ResNet's pooling is adaptive
    inits, seeds = [0, 1, 2], [11, 12, 13]
    transforms = [None, _noise(0.03), _noise(0.1)]
    kw = dict(epochs=4, batch_size=16, lr=0.1, momentum=0.9, weight_decay=5e-4, schedule="step", milestones=[2])
    separate, f = _separate_and_fused("resnet8", x, y, inits, seeds, transforms, **kw)
    assert not f.training
    nets = fu.unstack(f)
    for g, (a, b) in enumerate(zip(separate, nets)):
        assert _max_state_diff(a, b) <= 1e-10, g
        assert int(b.state_dict()["stem.1.num_batches_tracked"]) == 52
    # the networks really trained, and differently
    torch.manual_seed(0)
    assert _max_state_diff(models.build("resnet8"), nets[0]) > 1e-2
    assert _max_state_diff(nets[0], nets[1]) > 1e-2


def test_single_network_nesterov_cosine_and_workers(float64):
    """G = 1 with nesterov momentum and the cosine schedule equals training.train; preparing batches with worker
    threads changes nothing."""
    x, y = _data(40, 8, seed=1)
    kw = dict(epochs=2, batch_size=16, lr=0.05, momentum=0.9, weight_decay=1e-3, nesterov=True, schedule="cosine")
    separate, f = _separate_and_fused("cnn_small", x, y, [5], [7], [_noise(0.05)], build_kw={"width": 4}, **kw)
    assert _max_state_diff(separate[0], fu.unstack(f)[0]) <= 1e-10
    f2 = fu.build_fused("cnn_small", 2, seeds=[5, 5], width=4)
    fu.train_fused(f2, x, y, seeds=[7, 8], batch_transforms=_noise(0.05), device="cpu", threads=1, workers=2, **kw)
    a, b = fu.unstack(f2)
    assert _max_state_diff(a, separate[0]) <= 1e-10 and _max_state_diff(b, separate[0]) > 1e-3


def test_channels_last_training_matches(float64):
    """The channels-last layout train_fused uses on CUDA (weights and the fused input), here on a CPU."""
    x, y = _data(32, 8, seed=2)
    kw = dict(epochs=1, batch_size=16, lr=0.05, schedule="constant", batch_transforms=_noise(0.05), device="cpu")
    nets = []
    for channels_last in (False, True):
        f = fu.build_fused("resnet8", 2, seeds=[3, 4])
        fu.train_fused(f, x, y, seeds=[5, 6], threads=1, channels_last=channels_last, **kw)
        assert f.channels_last is channels_last
        assert f.net.stem[0].weight.is_contiguous(memory_format=torch.channels_last) is channels_last
        nets.append(fu.unstack(f))
    for a, b in zip(*nets):
        assert _max_state_diff(a, b) <= 1e-10


@pytest.mark.parametrize(
    ("arch", "kwargs", "shape"),
    [
        ("resnet8", {}, (3, 8, 8)),
        ("cnn_small", {"width": 4}, (3, 8, 8)),
        ("wrn40_2", {}, (3, 8, 8)),
        ("mlp", {"in_features": 6}, (6,)),
    ],
)
@pytest.mark.parametrize("G", [1, 3])
def test_stack_unstack_round_trip_and_forward(float64, arch, kwargs, shape, G):
    torch.manual_seed(0)
    nets = [models.build(arch, **kwargs) for _ in range(G)]
    for i, net in enumerate(nets):  # non-trivial batch-norm statistics and affine parameters
        for v in net.state_dict().values():
            if v.is_floating_point():
                v.mul_(0.9 + 0.2 * torch.rand(v.shape)).add_(0.01 * i)
    f = fu.stack(nets)
    assert f.groups == G and f.training
    for a, b in zip(nets, fu.unstack(f)):
        assert _max_state_diff(a, b) == 0.0
        rebuilt = models.build(arch, **kwargs)
        rebuilt.load_state_dict(b.state_dict())  # strict: an ordinary network of the architecture
    x = torch.rand(G, 5, *shape)
    with torch.no_grad():
        for mode in ("eval", "train"):
            f.train(mode == "train")
            for net in nets:
                net.train(mode == "train")
            want = torch.stack([net(x[g]) for g, net in enumerate(nets)])
            got = f(x)
            assert got.shape == want.shape == (G, 5, 10)
            assert _rel_diff(got, want) <= 1e-12
            feats = torch.stack([net.features(x[g]) for g, net in enumerate(nets)])
            assert _rel_diff(f.features(x), feats) <= 1e-12
        # training-mode forwards updated the running statistics the same way
        for a, b in zip(nets, fu.unstack(f)):
            assert _max_state_diff(a, b) <= 1e-12
        if len(shape) == 3:  # the channels-last input layout used on CUDA gives the same logits
            f.eval().channels_last = True
            want = torch.stack([net.eval()(x[g]) for g, net in enumerate(nets)])
            assert _rel_diff(f(x), want) <= 1e-12


def test_grouped_linear_is_one_linear_per_network(float64):
    torch.manual_seed(0)
    lins = [nn.Linear(4, 3) for _ in range(2)]
    gl = fu.GroupedLinear(2, 4, 3)
    with torch.no_grad():
        gl.weight.copy_(torch.stack([lin.weight for lin in lins]))
        gl.bias.copy_(torch.stack([lin.bias for lin in lins]))
    x = torch.rand(5, 2 * 4)
    with torch.no_grad():
        want = torch.cat([lins[0](x[:, :4]), lins[1](x[:, 4:])], dim=1)
        assert float((gl(x) - want).abs().max()) <= 1e-12
    with pytest.raises(ValueError, match="input features"):
        gl(torch.rand(5, 7))


def test_bad_inputs_give_clear_errors():
    torch.manual_seed(0)
    r8 = models.build("resnet8")
    with pytest.raises(ValueError, match="non-empty list"):
        fu.stack([])
    with pytest.raises(ValueError, match="architecture"):
        fu.stack([r8, models.build("cnn_small")])
    with pytest.raises(ValueError, match="architecture"):
        fu.stack([models.build("cnn_small", width=4), models.build("cnn_small", width=8)])
    with pytest.raises(TypeError, match="not an nn.Module"):
        fu.stack([r8, "resnet8"])
    trained = models.build("resnet8").train()
    trained(torch.rand(2, 3, 8, 8))  # one batch-norm update
    with pytest.raises(ValueError, match="numbers of training batches"):
        fu.stack([r8, trained])

    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, x):
            return 2 * self.lin(x)  # acts on each network's features separately, but stack cannot know

    with pytest.raises(TypeError, match="extra_containers"):
        fu.stack([Odd(), Odd()])
    with pytest.raises(TypeError, match="cannot be fused"):
        fu.stack([nn.Sequential(nn.LayerNorm(3)), nn.Sequential(nn.LayerNorm(3))])
    assert fu.stack([Odd(), Odd()], extra_containers=(Odd,)).groups == 2
    with pytest.raises(TypeError, match="FusedNet"):
        fu.unstack(r8)

    f = fu.build_fused("resnet8", 2)
    with pytest.raises(ValueError, match=r"G=2"):
        f(torch.rand(3, 4, 3, 8, 8))
    with pytest.raises(ValueError, match="seeds"):
        fu.build_fused("resnet8", 2, seeds=[0])
    with pytest.raises(ValueError, match="G"):
        fu.build_fused("resnet8", 0)
    x, y = _data(8, 8)
    kw = dict(epochs=1, batch_size=4, device="cpu", threads=1)
    with pytest.raises(ValueError, match="seeds has 3 entries"):
        fu.train_fused(f, x, y, seeds=[0, 1, 2], **kw)
    with pytest.raises(TypeError, match="sequence"):
        fu.train_fused(f, x, y, seeds=0, **kw)
    with pytest.raises(ValueError, match="batch_transforms has 1"):
        fu.train_fused(f, x, y, seeds=[0, 1], batch_transforms=[None], **kw)
    with pytest.raises(ValueError, match="y has 5 labels for 8 inputs; pass exactly one label per input row"):
        fu.train_fused(f, x, y[:5], seeds=[0, 1], **kw)
    with pytest.raises(TypeError, match="FusedNet"):
        fu.train_fused(r8, x, y, seeds=[0, 1], **kw)
    with pytest.raises(ValueError, match="shape and dtype"):
        fu.train_fused(f, x, y, seeds=[0, 1], batch_transforms=lambda xb, gen: xb[:, :2], **kw)


def test_calibrate_returns_positive_rates_on_cpu():
    out = fu.calibrate(
        "resnet8", [1, 2], batch_size=4, seconds_budget=0.5, device="cpu", image_shape=(3, 8, 8), threads=1
    )
    assert out["device"] == "cpu" and out["batch_size"] == 4 and out["best_G"] in (1, 2)
    assert [r["G"] for r in out["results"]] == [1, 2]
    for r in out["results"]:
        assert r["steps"] >= 1 and r["seconds"] > 0 and r["ms_per_step"] > 0 and r["network_steps_per_s"] > 0
    assert out["seconds"] > 0
    with pytest.raises(ValueError, match="seconds_budget"):
        fu.calibrate("resnet8", [1], seconds_budget=0)


# ------------------------------------------------------------------ issue 62: the fused trainer's input contract
@pytest.mark.parametrize(
    "change, error, said",
    [
        ("nan_images", ValueError, r"x holds 1 NaN or infinite pixel values"),
        ("inf_images", ValueError, r"x holds 1 NaN or infinite pixel values"),
        (
            "float_0_255",
            ValueError,
            r"x holds float pixel values in \[0, 255\], outside \[0, 1\] \(it looks like 0\.\.255",
        ),
        ("negative_floats", ValueError, r"x holds float pixel values in \[-0\.5, .*outside \[0, 1\]"),
        ("int64_images", TypeError, r"x must hold uint8 images in 0\.\.255 or floats in \[0, 1\], got dtype int64"),
        ("nhwc_3d", ValueError, r"x must be an image batch of shape \(N, C, H, W\)"),
        ("fractional_labels", ValueError, r"y must hold integer class indices, got the non-integer value 2\.5"),
        ("nan_labels", ValueError, r"y contains 1 NaN or infinite labels"),
        ("negative_labels", ValueError, r"y holds the label -1"),
        ("short_labels", ValueError, r"y has 7 labels for 8 inputs"),
        ("lr_nan", ValueError, r"lr must be a finite number > 0, got nan"),
        ("lr_zero", ValueError, r"lr must be a finite number > 0"),
        ("lr_text", TypeError, r"lr must be a number, got '0\.1'"),
        ("momentum_inf", ValueError, r"momentum must be a finite number >= 0, got inf"),
        ("weight_decay_negative", ValueError, r"weight_decay must be a finite number >= 0"),
    ],
)
def test_train_fused_refuses_inputs_outside_its_contract(change, error, said):
    """Issue 62, item 6: NaN images, lr = NaN, fractional labels (truncated), float images in 0..255 were all
    accepted, and training ended with NaN parameters or on other labels. Each is refused before any step, naming
    the argument and the fix; the networks are left untouched."""
    x, y = _data(8, 8)
    kw = {"lr": 0.1, "momentum": 0.9, "weight_decay": 5e-4}
    xf = x.astype(np.float32) / 255
    if change == "nan_images":
        x = xf.copy()
        x[3, 1, 2, 2] = np.nan
    elif change == "inf_images":
        x = xf.copy()
        x[0, 0, 0, 0] = np.inf
    elif change == "float_0_255":
        x = x.astype(np.float32)
        x[0, 0, 0, 0], x[0, 0, 0, 1] = 0, 255
    elif change == "negative_floats":
        x = xf - 0.5
        x[0, 0, 0, 0] = -0.5
    elif change == "int64_images":
        x = x.astype(np.int64)
    elif change == "nhwc_3d":
        x = x[:, 0]
    elif change == "fractional_labels":
        y = y.astype(float)
        y[2] = 2.5
    elif change == "nan_labels":
        y = y.astype(float)
        y[0] = np.nan
    elif change == "negative_labels":
        y = y.copy()
        y[1] = -1
    elif change == "short_labels":
        y = y[:7]
    elif change == "lr_nan":
        kw["lr"] = float("nan")
    elif change == "lr_zero":
        kw["lr"] = 0.0
    elif change == "lr_text":
        kw["lr"] = "0.1"
    elif change == "momentum_inf":
        kw["momentum"] = float("inf")
    else:
        kw["weight_decay"] = -1e-4
    net = fu.build_fused("cnn_small", 2, seeds=[0, 1])
    before = {k: v.clone() for k, v in net.state_dict().items()}
    with pytest.raises(error, match=said):
        fu.train_fused(net, x, y, seeds=[0, 1], epochs=1, batch_size=4, device="cpu", **kw)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())  # nothing trained


def test_train_fused_refuses_a_batch_transform_that_returns_nan():
    x, y = _data(8, 8)

    def broken(xb, gen):
        return xb * float("nan")

    net = fu.build_fused("cnn_small", 2, seeds=[0, 1])
    with pytest.raises(ValueError, match=r"batch_transforms\[1\] returned NaN or infinite pixel values"):
        fu.train_fused(net, x, y, seeds=[0, 1], epochs=1, batch_size=4, device="cpu", batch_transforms=[None, broken])
    assert all(torch.isfinite(p).all() for p in net.parameters())  # refused before the step that would poison them
    # the contract's good inputs still train: floats in [0, 1] and integer-valued float labels
    trained = fu.train_fused(
        fu.build_fused("cnn_small", 2, seeds=[0, 1]), x / 255.0, y.astype(float), seeds=[0, 1], epochs=1,
        batch_size=4, device="cpu",
    )  # fmt: skip
    assert all(torch.isfinite(p).all() for p in trained.parameters())


def test_train_fused_shares_train_s_contract():
    """Probe J, F1: the checks moved to robeval.core.nn.checks, which train() and train_fused() share, so the fused
    trainer also refuses labels its networks cannot score, a seed torch cannot take and momentum >= 1 (torch's
    IndexError and overflow, or divergence, before)."""
    x, y = _data(8, 8)
    net = fu.build_fused("cnn_small", 2, seeds=[0, 1])
    run = lambda **kw: fu.train_fused(net, x, kw.pop("y", y), **{"seeds": [0, 1], "epochs": 1, "batch_size": 4, **kw})
    with pytest.raises(ValueError, match=r"y holds the label 10, but the model scores 10 classes \(0\.\.9\)"):
        run(y=np.arange(8) + 3)
    with pytest.raises(ValueError, match=r"seeds\[1\] must be an integer in 0 \.\. 2\*\*64 - 1"):
        run(seeds=[0, 2**64])
    with pytest.raises(ValueError, match=r"momentum must be in \[0, 1\), got 1\.5"):
        run(momentum=1.5)
    with pytest.raises(TypeError, match=r"epochs must be an integer >= 0, got 1\.0"):
        run(epochs=1.0)
