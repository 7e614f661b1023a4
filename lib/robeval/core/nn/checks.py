"""The input contract of the trainers (:func:`robeval.core.nn.training.train` and
:func:`robeval.core.nn.fused.train_fused`) and of the inference functions (``predict`` and its siblings:
:func:`check_module`, :func:`check_inference_images`): each check raises one TypeError (wrong kind) or ValueError
(unusable value) naming the argument and the fix, before anything trains or a model moves. A NaN image, a NaN learning rate or a fractional
label would otherwise train silently (every weight NaN, or the label truncated to a class); a label out of range, a
channels-last batch or a huge seed would stop inside torch with torch's message.

The checks read the data once per call (finiteness and range of float images), never per batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn as nn

from robeval.core.frames import check_unmasked
from robeval.core.validation import check_labels

__all__ = [
    "MAX_SEED",
    "check_count",
    "check_inference_images",
    "check_milestones",
    "check_module",
    "check_seed",
    "check_seeds",
    "check_sgd",
    "check_train_images",
    "check_train_labels",
    "model_input",
    "output_classes",
]

#: The largest seed a ``torch.Generator`` takes (``manual_seed`` refuses 2**64 with "Overflow when unpacking long")
MAX_SEED = 2**64 - 1
#: The largest learning rate, weight decay or factor float32 weights can take (torch's SGD converts them)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_count(value, name: str, *, minimum: int = 0, example: int = 1) -> int:
    """``value`` as an int >= ``minimum`` (``epochs``, ``batch_size``, ``threads``); a float such as 1.0 is refused
    (``range`` would fail on it inside the loop)."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}; pass e.g. {name}={example}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}; pass e.g. {name}={example}.")
    return int(value)


def check_milestones(milestones, name: str = "milestones") -> list[int]:
    """The epochs at which the 'step' schedule multiplies the learning rate by ``gamma``, as a list of ints: None
    (no milestone) or a list / tuple (or a 1-D numpy integer array) of whole epochs >= 1. Text, a scalar, fractional
    or boolean epochs, 0 and negative epochs are refused (TypeError / ValueError naming ``name``): the rate would
    never decay (a text is repeated, not multiplied, by the steps per epoch; epoch 0 or -1 never comes) or decay in
    the middle of an epoch. A milestone after the last epoch is accepted: it never applies, so a run cut short (the
    dry run) keeps its full schedule's milestones."""
    example = f"pass whole epochs, e.g. {name}=[10, 20]"
    if isinstance(milestones, np.ndarray) and milestones.ndim == 1:
        values = milestones.tolist()
    elif isinstance(milestones, (list, tuple)) or milestones is None:
        values = list(milestones or ())
    else:
        raise TypeError(
            f"{name} must be a list of epochs, got {type(milestones).__name__} {milestones!r:.60}; {example}."
        )
    for m in values:
        if not _is_int(m):
            raise TypeError(
                f"{name} must hold whole epochs (integers >= 1), got {m!r:.40} in {milestones!r:.60}; {example}."
            )
        if m < 1:
            raise ValueError(
                f"{name} must hold epochs >= 1, got {m!r} in {milestones!r:.60} (epoch {m} never comes: the rate would "
                f"never decay there); {example}."
            )
    return [int(m) for m in values]


def check_seed(seed, name: str = "seed") -> int:
    """``seed`` as an int in 0 .. :data:`MAX_SEED` (the range of ``torch.Generator.manual_seed``)."""
    if not _is_int(seed):
        raise TypeError(f"{name} must be an integer in 0 .. 2**64 - 1, got {seed!r}; pass e.g. {name}=0.")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(
            f"{name} must be an integer in 0 .. 2**64 - 1 (a torch.Generator seed), got {seed!r}; pass e.g. {name}=0 "
            "or derive one with robeval.core.seeding.keyed(...).generate_state(1)[0]."
        )
    return int(seed)


def check_seeds(seeds, G: int) -> list[int]:
    """``G`` seeds, one per network of a fused module, each as :func:`check_seed` takes it."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence | np.ndarray):
        raise TypeError(f"seeds must be a sequence of {G} integers (one per network), got {type(seeds).__name__}.")
    seeds = list(seeds)
    if len(seeds) != G:
        raise ValueError(f"seeds has {len(seeds)} entries but the fused module holds G = {G} networks.")
    for s in seeds:
        if not _is_int(s) or s < 0:
            raise ValueError(f"seeds must be integers >= 0, got {s!r}.")
    return [check_seed(s, f"seeds[{g}]") for g, s in enumerate(seeds)]


def check_sgd(lr, momentum, weight_decay, gamma) -> None:
    """The SGD settings of the trainers: ``lr`` and ``gamma`` finite and > 0, ``weight_decay`` finite and >= 0 (a
    NaN learning rate trains every parameter to NaN), none beyond float32's range (torch converts them for float32
    weights); ``momentum`` in [0, 1) (at 1 or above the velocity never decays and the weights diverge)."""
    for name, value, strict in (("lr", lr, True), ("momentum", momentum, False), ("weight_decay", weight_decay, False),
                                ("gamma", gamma, True)):  # fmt: skip
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {value!r}; pass e.g. {name}=0.1.")
        if not np.isfinite(value) or (value <= 0 if strict else value < 0):
            raise ValueError(
                f"{name} must be a finite number {'> 0' if strict else '>= 0'}, got {value!r}; pass the "
                f"{'learning rate' if name == 'lr' else name} as a number, e.g. {name}=0.1."
            )
        if value > _FLOAT32_MAX:
            raise ValueError(
                f"{name} must be at most {_FLOAT32_MAX:.4g} (float32's largest number: torch applies it to float32 "
                f"weights), got {value!r}; pass e.g. {name}=0.1."
            )
    if momentum >= 1:
        raise ValueError(
            f"momentum must be in [0, 1), got {momentum!r}; at 1 or above SGD's velocity never decays (e.g. momentum=0.9)."
        )


def check_train_images(x, *, name: str = "x", features: bool = False, use: str = "training"):
    """``x`` as the trainers take it (numpy array or tensor, returned unchanged): an image batch (N, C, H, W), uint8
    in 0..255 or float in [0, 1] and finite (the contract of :mod:`robeval.core.nn.models`); with ``features``
    also a finite float matrix (N, F) of any range (an MLP's tabular input). A TypeError or ValueError
    naming ``x`` and the fix otherwise (a channels-last batch, 0..255 floats, NaN pixels); ``use`` names what the
    data is for in those messages ("training", "prediction"). A numpy masked array is refused (TypeError)."""
    check_unmasked(x, name)  # its masked pixels would be trained on
    if not isinstance(x, (np.ndarray, torch.Tensor)):
        x = np.asarray(x)
    if isinstance(x, torch.Tensor):
        is_uint8, is_float = x.dtype == torch.uint8, x.is_floating_point()
    else:
        is_uint8, is_float = x.dtype == np.uint8, x.dtype.kind == "f"
    if features and x.ndim == 2:
        if not is_float:
            raise TypeError(
                f"{name} must hold float features, got dtype {x.dtype}; convert with {name}.astype(np.float32)."
            )
    elif x.ndim != 4:
        shape = "(N, C, H, W) images or (N, F) features" if features else "(N, C, H, W)"
        raise ValueError(f"{name} must be an image batch of shape {shape}, got shape {tuple(x.shape)}.")
    elif x.shape[1] not in (1, 3) and x.shape[3] in (1, 3):
        raise ValueError(
            f"{name} has shape {tuple(x.shape)}, which looks channels-last (N, H, W, C); the models take (N, C, H, W): "
            f"pass {name}.transpose(0, 3, 1, 2)."
        )
    if len(x) == 0:
        raise ValueError(f"{name} is an empty batch (N = 0); pass at least one training image.")
    if is_uint8 and x.ndim == 4:
        return x
    if not is_float:
        raise TypeError(
            f"{name} must hold uint8 images in 0..255 or floats in [0, 1], got dtype {x.dtype}; convert with "
            f"{name}.astype(np.uint8) for pixel values or {name} / 255 for floats."
        )
    lib = torch if isinstance(x, torch.Tensor) else np
    finite = lib.isfinite(x)
    if not bool(finite.all()):
        raise ValueError(
            f"{name} holds {int((~finite).sum())} NaN or infinite {'feature' if x.ndim == 2 else 'pixel'} values; drop "
            f"or repair those rows before {use}."
        )
    if x.ndim == 2:  # features: any finite values
        return x
    lo, hi = float(x.min()), float(x.max())
    if lo < 0 or hi > 1:
        hint = f" (it looks like 0..255: pass uint8 images or {name} / 255)" if hi <= 255 and lo >= 0 else ""
        raise ValueError(f"{name} holds float pixel values in [{lo:g}, {hi:g}], outside [0, 1]{hint}.")
    return x


def output_classes(model) -> int | None:
    """The number of classes a model scores: the ``out_features`` of its linear ``head`` (every
    :mod:`robeval.core.nn.models` network has one), else None (unknown)."""
    head = getattr(model, "head", None)
    return int(head.out_features) if isinstance(head, nn.Linear) else None


def check_train_labels(y, *, n: int, num_classes: int | None = None, name: str = "y") -> np.ndarray:
    """Training labels as int64 (n,): one-dimensional whole numbers in 0 .. ``num_classes`` - 1 (when known), one
    per image; booleans and masked arrays are refused (pass class indices, ``y.astype(int)``)."""
    check_unmasked(y, name)  # its masked labels would be trained on
    if y.dtype == torch.bool if isinstance(y, torch.Tensor) else np.asarray(y).dtype == np.bool_:
        raise TypeError(
            f"{name} holds booleans; a trainer takes class indices 0..C-1: pass {name}.astype(np.int64) if True "
            "means class 1."
        )
    out = check_labels(y, name=name, n=n, integer=True)
    if np.any(out < 0):
        raise ValueError(
            f"{name} holds the label {int(out[out < 0][0])}; labels must be class indices 0..C-1 (remap them)."
        )
    if num_classes is not None and np.any(out >= num_classes):
        raise ValueError(
            f"{name} holds the label {int(out.max())}, but the model scores {num_classes} classes (0..{num_classes - 1}); "
            f"build it with num_classes={int(out.max()) + 1} or remap the labels."
        )
    return out


def check_module(model, name: str = "model") -> nn.Module:
    """``model`` when it is a torch ``nn.Module``; else TypeError naming ``name`` (the inference functions switch a
    module to eval mode and move it to a device, which a plain function has no notion of)."""
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"{name} must be a torch nn.Module (e.g. robeval.core.nn.build('cnn_small')), got {type(model).__name__}; "
            "for a plain function, call it on the batch yourself."
        )
    return model


def model_input(model: nn.Module) -> tuple[str | None, int | None]:
    """What ``model`` takes, read from its first layer that fixes it: ``('images', C)`` when that is a channel
    normalisation (``mean`` of shape (1, C, 1, 1), every image model of :mod:`robeval.core.nn.models`) or a
    ``Conv2d`` of C input channels; ``('features', F)`` when it is a ``Linear`` of F inputs (an MLP on tabular
    rows); ``(None, None)`` when none is found (any batch is passed on)."""
    for module in model.modules():
        mean = getattr(module, "mean", None)
        if isinstance(mean, torch.Tensor) and mean.ndim == 4 and mean.shape[0] == 1 and mean.shape[2:] == (1, 1):
            return "images", int(mean.shape[1])
        if isinstance(module, nn.Conv2d):
            return "images", int(module.in_channels)
        if isinstance(module, nn.Linear):
            return "features", int(module.in_features)
    return None, None


def check_inference_images(x, model: nn.Module, *, name: str = "x"):
    """``x`` as the inference functions (:func:`~robeval.core.nn.training.predict` and its siblings) take it for
    ``model``, returned unchanged: :func:`check_train_images`' contract (uint8 in 0..255 or finite floats in
    [0, 1], (N, C, H, W), not channels-last) with the channels of ``model`` (:func:`model_input`), or finite
    (N, F) float features with the F of an MLP (a model whose first layer is Linear also takes images, which it may
    flatten itself). An empty batch (N = 0) of that shape is passed on. A flat (N, D) array given to an image model
    is refused with the shape to reshape it to (it would be read as one unbatched image and give one prediction):
    an image model that flattens rows itself is not supported here. A numpy masked array is refused (TypeError)."""
    check_unmasked(x, name)
    if not isinstance(x, (np.ndarray, torch.Tensor)):
        x = np.asarray(x)
    kind, size = model_input(model)
    shape = tuple(x.shape)
    if kind == "images" and x.ndim == 2:
        side = int(round((shape[1] / size) ** 0.5)) if shape[1] % size == 0 else 0
        to = f"{shape[0]}, {size}, {side}, {side}" if side * side * size == shape[1] else f"{shape[0]}, {size}, H, W"
        raise ValueError(
            f"{name} has shape {shape}, a matrix, but model takes image batches (N, C, H, W) with C = {size}; if its "
            f"rows are flattened images, pass {name}.reshape({to})."
        )
    if x.ndim in (2, 4) and shape[0] == 0:
        return x
    x = check_train_images(x, name=name, features=kind != "images", use="prediction")  # 4-D: images in any case
    if kind == "images" and shape[1] != size:
        hint = f"it looks channels-last (N, H, W, C): pass {name}.transpose(0, 3, 1, 2)" if shape[3] == size else (
            f"repeat a gray channel with {name}.repeat({size}, axis=1)" if shape[1] == 1 else f"pass {size}-channel images"
        )  # fmt: skip
        raise ValueError(
            f"{name} has shape {shape}: {shape[1]} channel(s), but model takes {size} (N, {size}, H, W); {hint}."
        )
    if kind == "features" and x.ndim == 2 and shape[1] != size:
        raise ValueError(
            f"{name} has {shape[1]} features per row, but model's first layer takes {size}; pass the columns it was "
            "trained on, in that order."
        )
    return x
