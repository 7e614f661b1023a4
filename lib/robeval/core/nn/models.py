"""Classifiers used by the papers, all taking float images in [0, 1] (N, 3, 32, 32).

Normalisation by the CIFAR-10 channel statistics happens *inside* every image model, so perturbations
(uniform L_p noise, Gaussian smoothing noise, corruptions) are applied in pixel space as in the papers.
Every model exposes ``features(x)`` — the penultimate activations (N, D) — used by the MSD feature space.

Architectures
-------------
``cnn_small``  a 4-conv CNN (CPU-friendly; smoke/default profiles)
``resnet8``, ``resnet20``, ``resnet110``  CIFAR ResNets of He et al. (6n+2 layers; 110 is Cohen et al.'s)
``wrn28_10``, ``wrn40_2``  Wide ResNets (MSCR paper; MSD/AugMix papers), dropout configurable
``mlp``        fully connected ReLU network for tabular data (``in_features``, ``hidden``)
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from robeval.core.nn.checks import check_count

CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2470, 0.2435, 0.2616)


class Normalize(nn.Module):
    def __init__(self, mean=CIFAR10_MEAN, std=CIFAR10_STD):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(1, -1, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, -1, 1, 1))

    def forward(self, x):
        return (x - self.mean) / self.std


class FeatureClassifier(nn.Module):
    """Base: ``forward(x) = head(features(x))``."""

    def features(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class SmallCNN(FeatureClassifier):
    def __init__(self, num_classes: int = 10, width: int = 32):
        super().__init__()
        w = width
        self.norm = Normalize()
        self.body = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1),
            nn.BatchNorm2d(w),
            nn.ReLU(inplace=True),
            nn.Conv2d(w, w, 3, padding=1),
            nn.BatchNorm2d(w),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(w, 2 * w, 3, padding=1),
            nn.BatchNorm2d(2 * w),
            nn.ReLU(inplace=True),
            nn.Conv2d(2 * w, 2 * w, 3, padding=1),
            nn.BatchNorm2d(2 * w),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(2 * w, 4 * w, 3, padding=1),
            nn.BatchNorm2d(4 * w),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Linear(4 * w, num_classes)

    def features(self, x):
        return self.body(self.norm(x))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class CifarResNet(FeatureClassifier):
    """ResNet-(6n+2) for CIFAR (He et al. 2016): three stages of n basic blocks, widths 16/32/64."""

    def __init__(self, depth: int, num_classes: int = 10):
        super().__init__()
        if (depth - 2) % 6:
            raise ValueError(f"CIFAR ResNet depth must be 6n+2 (8, 20, 110, …), got {depth}.")
        n = (depth - 2) // 6
        self.norm = Normalize()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        layers, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(n):
                layers.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        self.stages = nn.Sequential(*layers)
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(64, num_classes)

    def features(self, x):
        return self.pool(self.stages(self.stem(self.norm(x))))


class WideBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, dropout: float):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.shortcut = None if (cin == cout and stride == 1) else nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(self.dropout(F.relu(self.bn2(y))))
        return y + (x if self.shortcut is None else self.shortcut(o))


class WideResNet(FeatureClassifier):
    """WRN-depth-k (Zagoruyko & Komodakis 2016), pre-activation blocks."""

    def __init__(self, depth: int, widen: int, num_classes: int = 10, dropout: float = 0.0):
        super().__init__()
        if (depth - 4) % 6:
            raise ValueError(f"WideResNet depth must be 6n+4 (16, 28, 40, …), got {depth}.")
        n = (depth - 4) // 6
        widths = (16, 16 * widen, 32 * widen, 64 * widen)
        self.norm = Normalize()
        self.stem = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        layers, cin = [], widths[0]
        for cout, stride in zip(widths[1:], (1, 2, 2)):
            for i in range(n):
                layers.append(WideBlock(cin, cout, stride if i == 0 else 1, dropout))
                cin = cout
        self.stages = nn.Sequential(*layers)
        self.out = nn.Sequential(nn.BatchNorm2d(cin), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(cin, num_classes)

    def features(self, x):
        return self.out(self.stages(self.stem(self.norm(x))))


class MLP(FeatureClassifier):
    """ReLU MLP for tabular data; ``hidden`` lists the widths (e.g. (256, 256) for the Ionosphere model)."""

    def __init__(self, in_features: int, hidden=(256, 256), num_classes: int = 2):
        super().__init__()
        layers, cin = [], in_features
        for h in hidden:
            layers += [nn.Linear(cin, h), nn.ReLU()]
            cin = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(cin, num_classes)

    def features(self, x):
        return self.body(x)


ARCHS = ("cnn_small", "resnet8", "resnet20", "resnet110", "wrn28_10", "wrn40_2", "mlp")
#: The most classes a model's head may score (ImageNet-21k has 21,841): a WRN-28-10 head of 100,000 classes holds
#: 64 million weights (256 MB); a larger count is a typo that would otherwise fail in torch's allocator.
MAX_CLASSES = 100_000
#: The largest ``width`` of cnn_small (4096 channels in its last layer, ~140 million weights), ``widen`` of a Wide
#: ResNet (the settings' cap; WRN-28-100: ~3.7 billion) and number of weights of an mlp (2**31: 8 GiB of float32): a
#: larger value is a typo that would otherwise fail in torch's allocator, or take all of the machine's memory.
MAX_WIDTH, MAX_WIDEN, MAX_WEIGHTS = 1024, 100, 2**31
#: The options of :func:`build` each architecture takes (resnets take none)
_OPTIONS = {"cnn_small": ("width",), "wrn28_10": ("widen", "dropout"), "wrn40_2": ("widen", "dropout"),
            "mlp": ("in_features", "hidden")}  # fmt: skip


def check_num_classes(num_classes) -> int:
    """``num_classes`` as an int in 2 .. :data:`MAX_CLASSES` (a classifier of 0 or 1 class decides nothing)."""
    num_classes = check_count(num_classes, "num_classes", minimum=2, example=10)
    if num_classes > MAX_CLASSES:
        raise ValueError(
            f"num_classes must be at most {MAX_CLASSES:,} (a head that large is already 256 MB), got {num_classes:,}; "
            "pass the number of classes of the labels, e.g. num_classes=10."
        )
    return num_classes


def build(arch: str, num_classes: int = 10, **kwargs) -> FeatureClassifier:
    """Build a fresh model by name (see module docstring). Seed torch first for identical initialisation.

    ``num_classes``: an integer in 2 .. :data:`MAX_CLASSES`. Options: ``width`` (cnn_small, 1 .. :data:`MAX_WIDTH`),
    ``widen`` (1 .. :data:`MAX_WIDEN`) and ``dropout`` (a probability in [0, 1)) (Wide ResNets), ``in_features``
    (required, >= 1) and ``hidden`` (a list of layer widths >= 1) (mlp, at most :data:`MAX_WEIGHTS` weights); the
    resnets take none. An option an architecture does not take, or a value outside these, is refused (TypeError /
    ValueError naming it)."""
    if not isinstance(arch, str):
        raise TypeError(f"arch must be an architecture name, one of {', '.join(ARCHS)}; got {arch!r:.60}.")
    num_classes = check_num_classes(num_classes)
    allowed = _OPTIONS.get(arch, () if arch.startswith("resnet") else None)
    unknown = sorted(set(kwargs) - set(allowed)) if allowed is not None else []
    if unknown:
        raise TypeError(
            f"build({arch!r}) got the option(s) {', '.join(map(repr, unknown))}, which it does not take; "
            + (f"its options are {', '.join(allowed)}." if allowed else "it takes no options (its size is its name).")
        )
    kwargs = _checked_options(kwargs, num_classes)
    if arch == "cnn_small":
        return SmallCNN(num_classes, **kwargs)
    if arch.startswith("resnet") and arch[6:].isdigit():
        return CifarResNet(int(arch[6:]), num_classes)
    if arch == "wrn28_10":
        return WideResNet(28, kwargs.get("widen", 10), num_classes, dropout=kwargs.get("dropout", 0.3))
    if arch == "wrn40_2":
        return WideResNet(40, kwargs.get("widen", 2), num_classes, dropout=kwargs.get("dropout", 0.0))
    if arch == "mlp":
        if "in_features" not in kwargs:
            raise TypeError(
                "build('mlp') needs in_features, the length of one input row: e.g. build('mlp', in_features=3 * 32 * 32) "
                "for flattened CIFAR images, or in_features=X.shape[1] for a feature matrix X."
            )
        return MLP(num_classes=num_classes, **kwargs)
    raise ValueError(f"Unknown architecture {arch!r}; choose one of {', '.join(ARCHS)}.")


def _checked_options(kwargs: dict, num_classes: int) -> dict:
    """:func:`build`'s size options checked by name: whole-number sizes within their caps, a dropout probability."""
    out = dict(kwargs)
    for key, cap, example in (("width", MAX_WIDTH, 32), ("widen", MAX_WIDEN, 10), ("in_features", None, 3072)):
        if key in out:
            out[key] = check_count(out[key], key, minimum=1, example=example)
            if cap is not None and out[key] > cap:
                raise ValueError(f"{key} must be at most {cap} (a larger network is a typo), got {out[key]:,}.")
    if "dropout" in out:
        p = out["dropout"]
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
            raise TypeError(f"dropout must be a probability in [0, 1), e.g. 0.3, got {p!r:.40}.")
        if not 0 <= p < 1:
            raise ValueError(f"dropout must be a probability in [0, 1), e.g. 0.3, got {p!r}.")
    if "hidden" in out:
        hidden = out["hidden"]
        if isinstance(hidden, (str, bytes)) or not isinstance(hidden, (list, tuple)):
            raise TypeError(f"hidden must be a list of layer widths, e.g. (256, 256), got {hidden!r:.40}.")
        if not all(isinstance(h, (int, np.integer)) and not isinstance(h, (bool, np.bool_)) and h >= 1 for h in hidden):
            raise ValueError(f"hidden must list whole-number layer widths >= 1, e.g. (256, 256), got {hidden!r:.60}.")
        out["hidden"] = type(hidden)(int(h) for h in hidden)
    if "in_features" in out:
        sizes = [out["in_features"], *out.get("hidden", (256, 256))]
        weights = sum(a * b + b for a, b in zip(sizes, sizes[1:])) + sizes[-1] * num_classes
        if weights > MAX_WEIGHTS:
            raise ValueError(
                f"build('mlp') with in_features={sizes[0]:,} and hidden={tuple(sizes[1:])} holds {weights:,} weights, "
                f"more than {MAX_WEIGHTS:,} (8 GiB): a typo in a size; pass the length of one input row."
            )
    return out


def from_config(config, num_classes: int = 10, arch_key: str = "arch") -> FeatureClassifier:
    """Build ``config[arch_key]`` with the size options a settings file may give: ``width`` (cnn_small
    channels, default 32), ``dropout`` and ``widen`` (Wide ResNets: the widening factor instead of the name's, e.g.
    1 makes ``wrn28_10`` a WRN-28-1; 0 or absent keeps it). Options that do not apply to the arch are ignored; an
    option given as None counts as absent. The values are passed to :func:`build` as they are, so its checks apply:
    a fractional, boolean or text ``width`` / ``widen`` (4.9, True, '4'), a ``width`` of 0 (refused, not read as the
    default) or a text ``dropout`` raise TypeError / ValueError naming the option (``config['width']``), never
    truncated or parsed.
    A ``config`` that is no mapping raises TypeError, one without ``arch_key`` ValueError listing the keys."""
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a mapping such as {{{arch_key!r}: 'cnn_small'}}, got {type(config).__name__} "
            f"{config!r:.60}; for an architecture name alone use robeval.core.nn.build(name)."
        )
    if arch_key not in config:
        raise ValueError(
            f"config has no {arch_key!r} key (it has {', '.join(map(repr, config)) or 'none'}); it needs {arch_key!r}: "
            f"one of {', '.join(ARCHS[:-1])}, and may give 'width' (cnn_small), 'widen' and 'dropout' (Wide ResNets)."
        )
    arch = config[arch_key]
    if not isinstance(arch, str):
        raise TypeError(
            f"config[{arch_key!r}] must be an architecture name, one of {', '.join(ARCHS)}; got {arch!r:.60}."
        )
    kwargs = {}
    if arch == "cnn_small" and config.get("width") is not None:
        kwargs["width"] = config["width"]
    if arch.startswith("wrn") and config.get("dropout") is not None:
        kwargs["dropout"] = config["dropout"]
    widen = config.get("widen") if arch.startswith("wrn") else None
    keeps_name = isinstance(widen, (int, np.integer)) and not isinstance(widen, (bool, np.bool_)) and widen == 0
    if widen is not None and not keeps_name:  # the integer 0 keeps the name's factor (the settings' default)
        kwargs["widen"] = widen
    try:
        return build(arch, num_classes, **kwargs)
    except (TypeError, ValueError) as exc:  # build names the option as its keyword: here it is a key of config
        key = next((k for k in kwargs if str(exc).startswith(f"{k} must ")), None)
        if key is None:
            raise
        text = str(exc).replace(f"pass e.g. {key}=", f"give e.g. {key!r}: ")
        raise type(exc)(f"config[{key!r}]{text[len(key) :]}") from None


def load_from_config(config, path, num_classes: int = 10, arch_key: str = "arch") -> FeatureClassifier:
    """:func:`from_config` with the weights of the state dict saved at ``path`` (loaded on the CPU), in eval mode.

    ``path`` must hold a torch state dict of that architecture and ``num_classes`` (``torch.save(model.state_dict(),
    path)``); a missing file raises FileNotFoundError, anything else (a folder, a file torch cannot read as plain
    tensors, the weights of another architecture, width or number of classes) one ValueError naming ``path``, what
    it holds and the fix. Only plain tensors are read (``weights_only=True``): no code stored in a file runs."""
    from robeval.core.io import check_regular_file

    model = from_config(config, num_classes, arch_key)
    fix = (
        "delete it (a cached network is retrained on the next run) or pass the path, config and num_classes it was "
        "saved with"
    )
    try:
        path = check_regular_file(path, "path", fix)
    except FileNotFoundError:  # os's bare "[Errno 2]" names nothing: a missing file or a link to one
        link = f" (a link to the missing {os.readlink(path)})" if os.path.islink(path) else ""
        raise FileNotFoundError(f"path {str(path)!r}: no such file{link}; {fix}.") from None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch's text for a non-tensor pickle invites weights_only=False: not passed on
        raise ValueError(
            f"path {str(path)!r} is not a torch state dict of plain tensors ({type(exc).__name__} in torch.load); {fix}."
        ) from None
    check_state_dict(model, state, f"path {str(path)!r}", fix)
    model.load_state_dict(state)
    return model.eval()


def check_state_dict(model: nn.Module, state, where: str, fix: str) -> None:
    """ValueError naming ``where`` (and ``fix``) when ``state`` is not a state dict that ``model`` loads: not a
    mapping of names to tensors, other parameter names (another architecture) or other shapes (another width or
    number of classes, named from the linear head)."""
    if not isinstance(state, Mapping):
        raise ValueError(f"{where} holds a {type(state).__name__}, not a state dict (names -> tensors); {fix}.")
    odd = next(((k, v) for k, v in state.items() if not isinstance(v, torch.Tensor)), None)
    if odd is not None:
        raise ValueError(
            f"{where} holds a mapping that is not a state dict: {odd[0]!r:.60} maps to a {type(odd[1]).__name__}, not a "
            f"tensor; {fix}."
        )
    own = model.state_dict()
    missing, extra = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    if missing or extra:
        shown = "; ".join(
            f"{len(keys)} {what} (e.g. {keys[0]!r})"
            for keys, what in ((missing, "missing"), (extra, "unexpected"))
            if keys
        )
        raise ValueError(
            f"{where} holds the weights of another architecture than {type(model).__name__} (parameter names: "
            f"{shown}); {fix}."
        )
    head = getattr(model, "head", None)
    if isinstance(head, nn.Linear) and "head.weight" in state and state["head.weight"].ndim == 2:
        saved, asked = int(state["head.weight"].shape[0]), head.out_features
        if saved != asked:
            raise ValueError(
                f"{where} holds a head of {saved} classes, but num_classes={asked} was asked; pass num_classes={saved} "
                f"or {fix.split(' or ')[0]}."
            )
    wrong = [k for k in own if tuple(state[k].shape) != tuple(own[k].shape)]
    if wrong:
        k = wrong[0]
        raise ValueError(
            f"{where} holds {type(model).__name__} weights of other sizes ({len(wrong)} tensors, e.g. {k!r}: "
            f"{tuple(state[k].shape)} saved, {tuple(own[k].shape)} built): another width or widening factor; {fix}."
        )
