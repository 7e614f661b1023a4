"""Many small networks of one architecture trained together as one module (grouped convolutions), each exactly
as :func:`robeval.core.nn.training.train` would train it alone.

A grid that trains dozens of small networks (notebook 02's gpu profile: 80 ResNet-20s) spends its time
launching tiny kernels. Here ``G`` independent networks of the same architecture become one module whose
layers hold the ``G`` networks side by side along the channel axis:

* a convolution with ``C_in -> C_out`` channels becomes one with ``G*C_in -> G*C_out`` channels and ``G`` times
  the groups (network ``g`` owns channels ``g*C : (g+1)*C`` of every activation);
* a batch norm over ``C`` channels becomes one over ``G*C`` channels, which *is* per-network batch norm
  (statistics are per channel), with per-network running statistics and affine parameters;
* a linear layer becomes :class:`GroupedLinear` (a batched matmul, one weight matrix per network);
* :class:`robeval.core.nn.models.Normalize` holds ``G`` copies of its channel statistics.

The fused module takes a batch per network, shape ``(G, B, C, H, W)``, and returns logits ``(G, B, classes)``:
each network sees its own images, so every network keeps its own data order, flips, crops and noise.
:func:`stack` builds the fused module from ordinary networks (:func:`robeval.core.nn.models.build`), :func:`unstack`
gives them back (state dicts exactly those of ordinary networks), and :func:`train_fused` trains a fused module
so that network ``g`` receives exactly the batches and augmentation draws that
``training.train(..., seed=seeds[g])`` would give it, with the sum of the ``G`` mean cross-entropies as loss
(its gradient with respect to network ``g``'s parameters is network ``g``'s own gradient) and one SGD optimizer
(SGD with momentum and weight decay acts elementwise, so it is ``G`` separate optimizers). In float64 on a
CPU the result equals separate training to rounding (``tests/core/test_fused.py``: 1e-10 after 50 steps).

:func:`calibrate` measures how many network-steps per second one fused group of ``G`` networks achieves on a
device, so that a GPU lease can choose between fused training and one process per network.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from robeval.core.env import torch_device
from robeval.core.nn import models
from robeval.core.nn.checks import (
    check_count,
    check_milestones,
    check_seeds,
    check_sgd,
    check_train_images,
    check_train_labels,
    output_classes,
)
from robeval.core.nn.training import fixed_threads, flip_crop, lr_scheduler, to_float_tensor, train_threads
from robeval.core.validation import check_bool

__all__ = ["GroupedLinear", "FusedNet", "stack", "unstack", "build_fused", "train_fused", "calibrate"]

#: modules whose own ``forward`` treats each network's channel block separately (so fusing their leaves is exact)
KNOWN_CONTAINERS = (
    nn.Sequential,
    models.CifarResNet,
    models.BasicBlock,
    models.SmallCNN,
    models.WideResNet,
    models.WideBlock,
    models.MLP,
)
#: parameter-free leaves that act per channel (or elementwise) and need no change
_STATELESS = (
    nn.ReLU,
    nn.Identity,
    nn.MaxPool2d,
    nn.AvgPool2d,
    nn.AdaptiveAvgPool2d,
    nn.AdaptiveMaxPool2d,
    nn.Dropout,
    nn.Flatten,
    nn.Sequential,  # empty: the identity shortcut
)


class GroupedLinear(nn.Module):
    """``groups`` independent linear maps applied side by side.

    Input ``(..., groups*in_features)``: network ``g`` owns features ``g*in_features : (g+1)*in_features``.
    Output ``(..., groups*out_features)``, laid out the same way. ``weight``: ``(groups, out_features,
    in_features)``, ``weight[g]`` is network g's ``nn.Linear.weight``; ``bias``: ``(groups, out_features)``.
    Parameters are left uninitialised: :func:`stack` fills them from ordinary networks.
    """

    def __init__(self, groups: int, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.groups, self.in_features, self.out_features = int(groups), int(in_features), int(out_features)
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.empty(self.groups, self.out_features, self.in_features, **kw))
        if bias:
            self.bias = nn.Parameter(torch.empty(self.groups, self.out_features, **kw))
        else:
            self.register_parameter("bias", None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        if x.shape[-1] != self.groups * self.in_features:
            raise ValueError(
                f"GroupedLinear expects {self.groups} x {self.in_features} = {self.groups * self.in_features} "
                f"input features, got {x.shape[-1]}."
            )
        xg = x.reshape(-1, self.groups, self.in_features).transpose(0, 1)  # (G, M, in)
        wt = self.weight.transpose(1, 2)  # (G, in, out)
        out = torch.bmm(xg, wt) if self.bias is None else torch.baddbmm(self.bias.unsqueeze(1), xg, wt)
        return out.transpose(0, 1).reshape(*lead, self.groups * self.out_features)

    def extra_repr(self) -> str:
        return f"groups={self.groups}, in_features={self.in_features}, out_features={self.out_features}"


class FusedNet(nn.Module):
    """``G`` networks of one architecture held as one module (build it with :func:`stack` or :func:`build_fused`).

    ``forward(x)``: ``x`` of shape ``(G, B, C, H, W)`` (images: float in [0, 1], like every
    :mod:`robeval.core.nn.models` model) or ``(G, B, F)`` (the MLP), network ``g`` gets ``x[g]``; returns the logits
    ``(G, B, classes)`` in the dtype of the computation. ``features(x)``: the penultimate activations
    ``(G, B, D)``. ``net`` is the fused module (the architecture's own module tree, its layers widened, so the
    state dict keys are ``"net." +`` the ordinary network's keys). ``channels_last`` (set by :func:`train_fused` on
    CUDA) lays 4-d inputs out channels-last.
    """

    def __init__(self, net: nn.Module, groups: int, template: nn.Module, rules: dict):
        super().__init__()
        self.net = net
        self.groups = int(groups)
        self.channels_last = False
        # the ordinary architecture on the meta device (no memory), for :func:`unstack`; not a submodule
        object.__setattr__(self, "_template", template)
        object.__setattr__(self, "_rules", dict(rules))

    def _merge(self, x: torch.Tensor) -> torch.Tensor:
        G = self.groups
        if not isinstance(x, torch.Tensor) or x.dim() < 3 or x.shape[0] != G:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"FusedNet of {G} networks expects input (G={G}, B, C, ...), got {shape}.")
        B = x.shape[1]
        if x.dim() == 5 and self.channels_last:
            _, _, C, H, W = x.shape  # one copy into (B, H, W, G*C) memory: channels-last (B, G*C, H, W)
            return x.permute(1, 3, 4, 0, 2).reshape(B, H, W, G * C).permute(0, 3, 1, 2)
        return x.transpose(0, 1).reshape(B, G * x.shape[2], *x.shape[3:])

    def _split(self, out: torch.Tensor) -> torch.Tensor:
        return out.reshape(out.shape[0], self.groups, -1).transpose(0, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._split(self.net(self._merge(x)))

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self._split(self.net.features(self._merge(x)))

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


# --- stack / unstack ----------------------------------------------------------------------------------------------


def _leaf_rule(name: str, leaf: nn.Module) -> str:
    """How the state of one leaf combines over networks: 'cat0' (concatenate along dim 0), 'cat1', 'stack' or
    'stateless'. Raises for leaves not known to act on each network's channels separately."""
    if isinstance(leaf, nn.Conv2d) or type(leaf) is nn.BatchNorm2d:
        return "cat0"
    if type(leaf) is nn.Linear:
        return "stack"
    if isinstance(leaf, models.Normalize):
        return "cat1"
    if isinstance(leaf, _STATELESS):
        if isinstance(leaf, nn.Flatten) and (leaf.start_dim != 1 or leaf.end_dim != -1):
            raise TypeError(f"Layer {name!r}: only nn.Flatten(1, -1) can be fused, got {leaf}.")
        return "stateless"
    raise TypeError(
        f"Layer {name!r} ({type(leaf).__name__}) cannot be fused: supported layers are Conv2d, BatchNorm2d, Linear, "
        f"Normalize and parameter-free {', '.join(t.__name__ for t in _STATELESS)}."
    )


def _fused_leaf(leaf: nn.Module, rule: str, G: int) -> nn.Module:
    """The widened version of ``leaf`` for ``G`` networks, on the meta device (filled by load_state_dict)."""
    meta = {"device": "meta"}
    if isinstance(leaf, nn.Conv2d):
        return nn.Conv2d(
            G * leaf.in_channels,
            G * leaf.out_channels,
            leaf.kernel_size,
            leaf.stride,
            leaf.padding,
            leaf.dilation,
            groups=G * leaf.groups,
            bias=leaf.bias is not None,
            padding_mode=leaf.padding_mode,
            dtype=leaf.weight.dtype,
            **meta,
        )
    if isinstance(leaf, nn.BatchNorm2d):
        dtype = leaf.weight.dtype if leaf.weight is not None else leaf.running_mean.dtype
        return nn.BatchNorm2d(
            G * leaf.num_features,
            leaf.eps,
            leaf.momentum,
            leaf.affine,
            leaf.track_running_stats,
            dtype=dtype,
            **meta,
        )
    if isinstance(leaf, nn.Linear):
        return GroupedLinear(
            G, leaf.in_features, leaf.out_features, leaf.bias is not None, dtype=leaf.weight.dtype, **meta
        )
    if rule == "cat1":  # Normalize: buffers (1, C, 1, 1) -> (1, G*C, 1, 1)
        new = copy.deepcopy(leaf).to("meta")
        for bname, buf in list(new.named_buffers(recurse=False)):
            shape = list(buf.shape)
            shape[1] *= G
            setattr(new, bname, torch.empty(shape, dtype=buf.dtype, device="meta"))
        return new
    return leaf  # stateless


def _set_submodule(root: nn.Module, name: str, module: nn.Module) -> None:
    parent, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent) if parent else root, child, module)


def _combine(rule: str, key: str, tensors: list[torch.Tensor]) -> torch.Tensor:
    if rule == "stack":
        return torch.stack(tensors)
    if key.rpartition(".")[2] == "num_batches_tracked":
        return tensors[0]
    return torch.cat(tensors, dim=1 if rule == "cat1" else 0)


def _part(rule: str, key: str, tensor: torch.Tensor, G: int, g: int) -> torch.Tensor:
    if rule == "stack":
        return tensor[g]
    if key.rpartition(".")[2] == "num_batches_tracked":
        return tensor
    return tensor.chunk(G, dim=1 if rule == "cat1" else 0)[g]


def stack(nets: Sequence[nn.Module], *, extra_containers: tuple = ()) -> FusedNet:
    """Fuse ``G = len(nets)`` networks of the same architecture into one :class:`FusedNet`.

    Parameters
    ----------
    nets : sequence of nn.Module
        Networks of one class and one configuration (e.g. ``models.build("resnet20")`` each), all parameters and
        buffers on one device and of one dtype per tensor. Their weights and batch-norm statistics are copied;
        the inputs are not changed.
    extra_containers : tuple of module classes
        Further classes, besides :data:`KNOWN_CONTAINERS`, whose ``forward`` acts on each network's channel block
        separately (convolutions, batch norm, elementwise ops, pooling, ``flatten(1)``, residual sums): their
        leaf layers are widened and their own code runs unchanged on the widened activations.

    Returns
    -------
    FusedNet
        On the device of ``nets``, in the training mode of ``nets[0]``; ``unstack(stack(nets))`` gives networks
        whose state dicts equal those of ``nets`` exactly.
    """
    nets = list(nets) if isinstance(nets, (list, tuple)) else nets
    if not isinstance(nets, list) or not nets:
        raise ValueError(f"stack needs a non-empty list of networks, got {type(nets).__name__}.")
    first = nets[0]
    for i, net in enumerate(nets):
        if not isinstance(net, nn.Module):
            raise TypeError(f"stack: item {i} is a {type(net).__name__}, not an nn.Module.")
        if type(net) is not type(first) or repr(net) != repr(first):
            raise ValueError(
                f"stack: network {i} ({type(net).__name__}) differs in architecture from network 0 "
                f"({type(first).__name__}); only networks of the same architecture and configuration can be fused."
            )
    sds = [net.state_dict() for net in nets]
    for i, sd in enumerate(sds[1:], 1):
        for k, v in sds[0].items():
            w = sd.get(k)
            if w is None or w.shape != v.shape or w.dtype != v.dtype or w.device != v.device:
                raise ValueError(
                    f"stack: network {i}'s {k!r} ({None if w is None else (tuple(w.shape), w.dtype, str(w.device))}) "
                    f"differs from network 0's ({tuple(v.shape)}, {v.dtype}, {v.device})."
                )
            if k.rpartition(".")[2] == "num_batches_tracked" and not torch.equal(w, v):
                raise ValueError(
                    f"stack: networks 0 and {i} have run different numbers of training batches ({k}: "
                    f"{int(v)} vs {int(w)}); fuse networks at the same stage of training."
                )
    containers = KNOWN_CONTAINERS + tuple(extra_containers)
    G = len(nets)
    rules, leaves = {}, {}
    for name, mod in first.named_modules():
        children = list(mod.children())
        if children:
            if type(mod) not in containers:
                raise TypeError(
                    f"stack: module {name or '<root>'!r} of class {type(mod).__name__} is not known to act on each "
                    f"network's channels separately; pass its class in extra_containers if it does."
                )
            continue
        if name == "":
            raise TypeError(f"stack: a single {type(mod).__name__} layer is not a network to fuse.")
        rule = _leaf_rule(name, mod)
        leaves[name] = rule
        for k, _ in list(mod.named_parameters(recurse=False)) + list(mod.named_buffers(recurse=False)):
            rules[f"{name}.{k}"] = rule
    device = next((v.device for v in sds[0].values()), torch.device("cpu"))
    template = copy.deepcopy(first).to("meta")
    net = copy.deepcopy(template)
    for name, rule in leaves.items():
        if rule != "stateless":
            _set_submodule(net, name, _fused_leaf(template.get_submodule(name), rule, G))
    net = net.to_empty(device=device)
    with torch.no_grad():
        net.load_state_dict({k: _combine(rules[k], k, [sd[k] for sd in sds]) for k in sds[0]})
    fused = FusedNet(net, G, template, rules)
    return fused.train(first.training)


def unstack(fused: FusedNet) -> list[nn.Module]:
    """The ``G`` ordinary networks of ``fused`` (copies, on its device, in its training mode): network ``g``'s state
    dict holds exactly network g's slice of the fused weights and batch-norm statistics, so it can be saved,
    loaded into ``models.build(arch)`` and evaluated like any network."""
    if not isinstance(fused, FusedNet):
        raise TypeError(f"unstack needs a FusedNet (from stack or build_fused), got {type(fused).__name__}.")
    sd = fused.net.state_dict()
    device = next((v.device for v in sd.values()), torch.device("cpu"))
    out = []
    for g in range(fused.groups):
        net = copy.deepcopy(fused._template).to_empty(device=device)
        with torch.no_grad():
            net.load_state_dict({k: _part(fused._rules[k], k, v, fused.groups, g) for k, v in sd.items()})
        if fused.channels_last:
            net = net.to(memory_format=torch.channels_last)
        out.append(net.train(fused.training))
    return out


def build_fused(arch: str, G: int, *, seeds: Sequence[int] | None = None, num_classes: int = 10, **kwargs) -> FusedNet:
    """``G`` fresh networks ``models.build(arch, num_classes, **kwargs)`` fused by :func:`stack`. With ``seeds``
    (``G`` ints), network g is built right after ``torch.manual_seed(seeds[g])``: the initial weights of
    ``torch.manual_seed(seeds[g]); models.build(arch)`` (this reseeds torch's global generator)."""
    G = _check_groups(G)
    if seeds is not None:
        seeds = check_seeds(seeds, G)
    nets = []
    for g in range(G):
        if seeds is not None:
            torch.manual_seed(seeds[g])
        nets.append(models.build(arch, num_classes, **kwargs))
    return stack(nets)


def _check_groups(G) -> int:
    if isinstance(G, (bool, np.bool_)) or not isinstance(G, (int, np.integer)) or G < 1:
        raise ValueError(f"G (networks per group) must be an integer >= 1, got {G!r}.")
    return int(G)


# --- training -----------------------------------------------------------------------------------------------------


class _FusedSteps:
    """The fused SGD loop one step at a time (shared by :func:`train_fused` and :func:`calibrate`).

    Network g's batches follow ``training._epochs`` with its own generator: per epoch one ``randperm``; per step
    the batch ``x[order[start:start+B]]``, then ``flip_crop(xb, gen)``, then ``transform(xb, gen)``. The G batches
    are prepared on the CPU (by ``workers`` threads: each network's generator is its own, so the draws do not
    depend on the threads) and stacked to ``(G, B, C, H, W)``.
    """

    def __init__(self, fused, xt, yt, gens, batch_size, opt, sched, device, flip_crop_aug, transforms, workers):
        self.fused, self.xt, self.yt, self.gens = fused, xt, yt, gens
        self.batch_size, self.opt, self.sched, self.device = batch_size, opt, sched, device
        self.flip_crop_aug, self.transforms = flip_crop_aug, transforms
        self.cuda = device.type == "cuda"
        self.pool = None
        if workers > 1:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fused-aug")
        self.orders = None

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def new_epoch(self):
        self.orders = [torch.randperm(len(self.xt), generator=gen) for gen in self.gens]

    def _batch(self, g: int, start: int, xbuf: torch.Tensor, ybuf: torch.Tensor) -> None:
        gen = self.gens[g]
        idx = self.orders[g][start : start + self.batch_size]
        xb = self.xt[idx]
        if self.flip_crop_aug and xb.ndim == 4:
            xb = flip_crop(xb, gen)
        if self.transforms[g] is not None:
            xb = self.transforms[g](xb, gen)
        if not isinstance(xb, torch.Tensor) or xb.shape != xbuf.shape[1:] or xb.dtype != xbuf.dtype:
            got = (tuple(xb.shape), xb.dtype) if isinstance(xb, torch.Tensor) else type(xb).__name__
            raise ValueError(
                f"batch_transforms[{g}] must return a tensor of the batch's shape and dtype "
                f"{(tuple(xbuf.shape[1:]), xbuf.dtype)}, got {got}."
            )
        if xb.is_floating_point() and not bool(torch.isfinite(xb).all()):
            raise ValueError(
                f"batch_transforms[{g}] returned NaN or infinite pixel values (network {g}'s batch at image {start}); "
                "a NaN batch trains every parameter to NaN: fix the transform (e.g. its noise radius)."
            )
        xbuf[g].copy_(xb)
        ybuf[g].copy_(self.yt[idx])

    def step(self, start: int) -> torch.Tensor:
        """One SGD step on the batches starting at ``start`` of this epoch's orders; returns the G per-network mean
        cross-entropies (float32, detached, on the device; not synchronised)."""
        G = self.fused.groups
        n = min(self.batch_size, len(self.xt) - start)
        xbuf = torch.empty((G, n, *self.xt.shape[1:]), dtype=self.xt.dtype, pin_memory=self.cuda)
        ybuf = torch.empty((G, n), dtype=self.yt.dtype, pin_memory=self.cuda)
        if self.pool is None:
            for g in range(G):
                self._batch(g, start, xbuf, ybuf)
        else:
            list(self.pool.map(lambda g: self._batch(g, start, xbuf, ybuf), range(G)))
        xb = xbuf.to(self.device, non_blocking=self.cuda)
        yb = ybuf.to(self.device, non_blocking=self.cuda)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.cuda):
            logits = self.fused(xb)  # (G, B, classes)
            per_net = F.cross_entropy(logits.reshape(G * n, -1), yb.reshape(-1), reduction="none")
            losses = per_net.view(G, n).mean(1)
            loss = losses.sum()
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        self.sched.step()
        return losses.detach()


def _prepare(
    fused,
    x,
    y,
    seeds,
    batch_size,
    lr,
    momentum,
    weight_decay,
    nesterov,
    schedule,
    milestones,
    gamma,
    epochs,
    device,
    channels_last,
):
    """Validate, move ``fused`` to ``device`` (before the optimizer sees its parameters, as ``training.train``
    does), and build the data tensors, generators, optimizer and schedule."""
    if not isinstance(fused, FusedNet):
        raise TypeError(f"train_fused needs a FusedNet (from stack or build_fused), got {type(fused).__name__}.")
    seeds = check_seeds(seeds, fused.groups)
    check_count(epochs, "epochs", minimum=0, example=10)
    check_count(batch_size, "batch_size", minimum=1, example=128)
    check_sgd(lr, momentum, weight_decay, gamma)
    nesterov = check_bool(nesterov, "nesterov")
    milestones = check_milestones(milestones)
    x = check_train_images(x)
    y = check_train_labels(y, n=len(x), num_classes=output_classes(fused._template))
    xt = to_float_tensor(x)
    yt = torch.as_tensor(y)
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    _place(fused, device, channels_last)
    opt = torch.optim.SGD(
        fused.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov and momentum > 0
    )
    steps = (len(xt) + batch_size - 1) // batch_size
    sched = lr_scheduler(opt, schedule, int(epochs), steps, milestones, gamma)
    return xt, yt, gens, opt, sched, steps


def _transforms(batch_transforms, G: int) -> list:
    if batch_transforms is None:
        return [None] * G
    if callable(batch_transforms):
        return [batch_transforms] * G
    ts = list(batch_transforms)
    if len(ts) != G:
        raise ValueError(f"batch_transforms has {len(ts)} entries but the fused module holds G = {G} networks.")
    for g, t in enumerate(ts):
        if t is not None and not callable(t):
            raise TypeError(f"batch_transforms[{g}] must be None or a function f(xb, gen) -> xb, got {t!r}.")
    return ts


def _place(fused: FusedNet, device: torch.device, channels_last: bool | None) -> None:
    flag = device.type == "cuda" if channels_last is None else bool(channels_last)
    fused.to(device, memory_format=torch.channels_last if flag else torch.contiguous_format)
    fused.channels_last = flag


def _workers(workers, device, G: int) -> int:
    if workers is None:
        import os

        return min(G, os.cpu_count() or 1) if device.type == "cuda" else 1
    if isinstance(workers, (bool, np.bool_)) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1 or None, got {workers!r}.")
    return int(workers)


def train_fused(
    fused: FusedNet,
    x: np.ndarray,
    y: np.ndarray,
    *,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int = 128,
    lr: float = 0.1,
    momentum: float = 0.9,
    weight_decay: float = 5e-4,
    nesterov: bool = False,
    schedule: str = "cosine",
    milestones=None,
    gamma: float = 0.1,
    flip_crop_aug: bool = True,
    batch_transforms: Callable | Sequence[Callable | None] | None = None,
    device=None,
    threads: int | None = None,
    workers: int | None = None,
    channels_last: bool | None = None,
    progress: bool = False,
    desc: str = "train_fused",
) -> FusedNet:
    """Train the ``G`` networks of ``fused`` together, each exactly as :func:`robeval.core.nn.training.train` would
    train it alone with ``seed=seeds[g]`` and ``batch_transform=batch_transforms[g]``; return ``fused`` in eval mode.

    Every network draws its data order, flips, crops and noise from its own ``torch.Generator`` seeded with
    ``seeds[g]``, in the call order of ``training.train``, so its batches are those of a separate training. The loss
    is the sum over networks of each network's mean cross-entropy over its batch; one SGD optimizer and one
    learning-rate schedule (``training``'s) act on the fused parameters, elementwise, hence per network. On CUDA,
    as in ``training.train``, activations are channels-last and the forward pass runs under bf16 autocast; on a CPU
    the networks' dtype is used (float32, or float64 for exact comparisons).

    Parameters
    ----------
    fused : FusedNet
        ``G`` networks (e.g. :func:`build_fused` with the initial seeds of the separate runs); trained in place.
    x : uint8 (N, C, H, W) images in 0-255 or float in [0, 1]; the same training set for every network.
    y : int (N,) class labels.
    seeds : G integers >= 0, network g's ``training.train`` seed (shuffling and augmentation).
    epochs, batch_size, lr, momentum, weight_decay, nesterov : SGD settings (as ``training.train``); the last
        batch of an epoch has ``N mod batch_size`` images for every network.
    schedule, milestones, gamma : 'cosine' (per step), 'step' (``milestones`` in epochs, factor ``gamma``) or
        'constant', as ``training.train``.
    flip_crop_aug : random flips and 4-px padded crops (:func:`robeval.core.nn.training.flip_crop`).
    batch_transforms : one function ``f(xb, gen) -> xb`` for all networks, or G functions / None (e.g. uniform
        noise of network g's radius); called on the CPU batch (B, C, H, W) with network g's generator, as
        ``training.train`` calls ``batch_transform``; must keep the batch's shape and dtype.
    device : torch device (default: CUDA when present, else CPU); ``fused`` is moved there.
    threads : torch intra-op threads during training (default :func:`robeval.core.nn.training.train_threads`), an
        integer in 1 .. :data:`robeval.core.nn.training.MAX_THREADS`.
    workers : threads preparing the G batches on the CPU (default: min(G, CPU count) on CUDA, 1 on a CPU); they
        change no random draw.
    channels_last : channels-last weights and activations (default: on CUDA, as ``training.train``; grouped
        convolutions may prefer either layout: :func:`calibrate` measures it).
    progress, desc : a tqdm progress bar.
    """
    from tqdm.auto import tqdm

    if not isinstance(fused, FusedNet):
        raise TypeError(f"train_fused needs a FusedNet (from stack or build_fused), got {type(fused).__name__}.")
    device = torch_device() if device is None else torch.device(device)
    transforms = _transforms(batch_transforms, fused.groups)
    n_workers = _workers(workers, device, fused.groups)
    xt, yt, gens, opt, sched, steps = _prepare(
        fused,
        x,
        y,
        seeds,
        batch_size,
        lr,
        momentum,
        weight_decay,
        nesterov,
        schedule,
        milestones,
        gamma,
        epochs,
        device,
        channels_last,
    )
    loop = _FusedSteps(fused, xt, yt, gens, int(batch_size), opt, sched, device, flip_crop_aug, transforms, n_workers)
    bar = tqdm(total=int(epochs) * steps, desc=desc, disable=not progress, leave=False)
    try:
        with fixed_threads(train_threads() if threads is None else threads):
            for epoch in range(int(epochs)):
                fused.train()
                loop.new_epoch()
                for start in range(0, len(xt), int(batch_size)):
                    losses = loop.step(start)
                    bar.update()
                if progress:
                    bar.set_postfix(epoch=epoch, loss=f"{float(losses.float().mean()):.3f}", refresh=False)
    finally:
        loop.close()
        bar.close()
    return fused.eval()


# --- calibration --------------------------------------------------------------------------------------------------


def calibrate(
    arch: str,
    G_values: Sequence[int] = (1, 4, 16),
    batch_size: int = 128,
    seconds_budget: float = 60.0,
    device=None,
    *,
    batch_transform: Callable | None = None,
    image_shape: tuple = (3, 32, 32),
    workers: int | None = None,
    threads: int | None = None,
    channels_last: bool | None = None,
) -> dict:
    """Training throughput of one fused group of G networks, for each G in ``G_values``, within about
    ``seconds_budget`` seconds in all (e.g. 60 s at the start of a GPU lease, to choose between fused training and
    one process per network).

    Each G gets an equal share of the budget: it builds ``build_fused(arch, G)``, runs two warm-up steps
    (allocation, kernel selection), then full :func:`train_fused` steps (CPU batch preparation with flips, crops
    and ``batch_transform``, transfer, forward, backward, SGD) on random uint8 images until its share is spent
    (at least 3 timed steps). The total exceeds the budget where the build, the warm-up and 3 steps take longer
    than a share. ``workers``, ``threads`` and ``channels_last`` as in :func:`train_fused`; ``batch_transform``
    (e.g. MSCR's uniform noise) is applied to every network's batch, ``image_shape`` is (C, H, W).

    Returns
    -------
    dict
        ``{"arch", "batch_size", "device", "channels_last", "seconds", "results": [{"G", "steps", "seconds", "ms_per_step",
        "network_steps_per_s"}, ...], "best_G"}``: ``ms_per_step`` is milliseconds per fused step (G networks
        one step each), ``network_steps_per_s`` = G / seconds per step, ``best_G`` the G with the most network-steps
        per second, ``seconds`` the wall time of the whole calibration.
    """
    t_start = time.perf_counter()
    Gs = [_check_groups(G) for G in (G_values if not isinstance(G_values, (int, np.integer)) else [G_values])]
    if not Gs:
        raise ValueError("G_values must name at least one group size.")
    if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}.")
    if not np.isfinite(seconds_budget) or seconds_budget <= 0:
        raise ValueError(f"seconds_budget must be a positive number of seconds, got {seconds_budget!r}.")
    device = torch_device() if device is None else torch.device(device)
    share = float(seconds_budget) / len(Gs)
    rng = np.random.default_rng(0)
    n = 2 * int(batch_size)
    x = rng.integers(0, 256, size=(n, *image_shape), dtype=np.uint8)
    y = rng.integers(0, 10, size=n)
    results = []

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for G in Gs:
        t_share = time.perf_counter()
        fused = build_fused(arch, G)
        xt, yt, gens, opt, sched, _ = _prepare(
            fused,
            x,
            y,
            list(range(G)),
            batch_size,
            0.01,
            0.9,
            5e-4,
            False,
            "constant",
            None,
            0.1,
            1,
            device,
            channels_last,
        )
        fused.train()
        loop = _FusedSteps(
            fused,
            xt,
            yt,
            gens,
            int(batch_size),
            opt,
            sched,
            device,
            True,
            [batch_transform] * G,
            _workers(workers, device, G),
        )
        try:
            with fixed_threads(train_threads() if threads is None else threads):
                loop.new_epoch()
                for _ in range(2):
                    loop.step(0)
                sync()
                t0 = time.perf_counter()
                steps = 0
                while True:  # at least 3 timed steps; then until the share (counted from the build) is spent
                    loop.step(0)
                    steps += 1
                    if steps >= 3 and (steps % 4 == 0 or device.type != "cuda"):
                        sync()
                        if time.perf_counter() - t_share >= share:
                            break
                sync()
                dt = time.perf_counter() - t0
        finally:
            loop.close()
        results.append(
            {
                "G": G,
                "steps": steps,
                "seconds": round(dt, 4),
                "ms_per_step": round(1e3 * dt / steps, 3),
                "network_steps_per_s": round(G * steps / dt, 3),
            }
        )
        del fused, loop, opt
    best = max(results, key=lambda r: r["network_steps_per_s"])["G"]
    return {
        "arch": arch,
        "batch_size": int(batch_size),
        "device": str(device),
        "channels_last": bool(device.type == "cuda" if channels_last is None else channels_last),
        "seconds": round(time.perf_counter() - t_start, 3),
        "results": results,
        "best_G": best,
    }
