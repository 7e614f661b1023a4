"""A small, seeded training loop for the image experiments (CPU here, CUDA when present).

Images enter as uint8 NCHW numpy arrays (as returned by ``robeval.core``) and are scaled to [0, 1]
floats; augmentation happens on float batches in pixel space:

1. ``flip_crop``: random horizontal flips and 4-pixel zero-padded random crops (the CIFAR standard);
2. ``batch_transform(xb, gen)``: any further augmentation (uniform L_p noise for MSCR, AugMix, …);
3. ``step_fn(model, xb, yb, epoch) -> loss``: a custom objective (randomized-smoothing training variants);
   default is cross-entropy.

All randomness flows from one ``torch.Generator`` seeded by ``seed``, so reruns on CPU are identical.

On a GPU the training subset is moved to the device once and every batch is gathered, flipped and cropped there;
the visiting order and the flip/crop draws still come from the CPU generator (a few integers per image, copied
without waiting), so a GPU run visits the same batches with the same crops as a CPU run of the same seed. A
``batch_transform`` draws its noise on the device from a generator of the device (seeded from ``seed``), unless it
is marked :func:`needs_host_generator` (numpy augmentations that run on the CPU anyway). Nothing in the loop
waits for the device (no ``.item()`` per step) unless a progress bar is shown.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from robeval.core.env import torch_device, usable_device
from robeval.core.nn.checks import (
    check_count,
    check_inference_images,
    check_milestones,
    check_module,
    check_seed,
    check_sgd,
    check_train_images,
    check_train_labels,
    output_classes,
)
from robeval.core.validation import check_bool

PROGRESS_EVERY = 50  # steps between two loss readings of a shown progress bar (each one waits for the device)
#: The most torch intra-op threads one training may use (``threads``, ``$ROBEVAL_TRAIN_THREADS``). A fixed number,
#: not a multiple of this machine's cores: the thread count is part of a run's recipe (CPU gradients are summed in a
#: thread-count-dependent order), so a count one machine accepts must be accepted on every other to reproduce the
#: run there. 1024 is above the cores of any one CPU machine; far larger counts are typos, and torch's thread pool
#: kills the interpreter (SIGSEGV, nothing cleaned up) at 100,000 threads.
MAX_THREADS = 1024


def check_threads(value, name: str = "threads") -> int:
    """``value`` as an int in 1 .. :data:`MAX_THREADS` (TypeError / ValueError naming ``name`` otherwise)."""
    n = check_count(value, name, minimum=1, example=2)
    if n > MAX_THREADS:
        raise ValueError(
            f"{name} must be at most {MAX_THREADS} (torch threads of one training; more is a typo, and torch's thread "
            f"pool crashes the interpreter at 100,000), got {n:,}; pass the thread count the run is made with, e.g. "
            f"{name}=2."
        )
    return n


def check_config_threads(config: dict, key: str) -> int | None:
    """``config[key]`` (a grid cell's torch thread count, e.g. ``torch_threads``) as an int in 1 .. :data:`MAX_THREADS`,
    or None when it is absent, None or 0 (torch's count is left as it is). Anything else (2.7, '3', -1, True,
    10**6) raises TypeError / ValueError naming ``config['<key>']`` (:func:`check_threads`), before the cell computes
    anything: ``torch.set_num_threads`` would truncate 2.7, read '3', and crash the interpreter on 10**6."""
    value = config.get(key)
    if value is None or (
        isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value == 0
    ):
        return None
    return check_threads(value, f"config[{key!r}]")


def train_threads() -> int:
    """Intra-op threads used for training: ``$ROBEVAL_TRAIN_THREADS`` or 2 (whatever the machine has), so a
    seed gives the same model on every machine with the same instruction set. A value that is no integer in
    1 .. :data:`MAX_THREADS` raises ValueError naming the variable."""
    import os

    value = os.environ.get("ROBEVAL_TRAIN_THREADS", "2")
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"ROBEVAL_TRAIN_THREADS must be a positive integer, got {value!r}.") from None
    if n < 1:
        raise ValueError(f"ROBEVAL_TRAIN_THREADS must be >= 1, got {n}.")
    if n > MAX_THREADS:
        raise ValueError(
            f"ROBEVAL_TRAIN_THREADS must be at most {MAX_THREADS} (torch threads of one training; more is a typo, and "
            f"torch's thread pool crashes the interpreter at 100,000), got {n:,}; set it to the thread count the run "
            "is made with, e.g. ROBEVAL_TRAIN_THREADS=2, or unset it (2)."
        )
    return n


class fixed_threads:
    """Context manager: torch runs with ``n`` intra-op threads inside, the previous number after. ``n`` must be an
    integer in 1 .. :data:`MAX_THREADS` (TypeError / ValueError naming it ``threads``, as the trainers call it)."""

    def __init__(self, n: int):
        self.n = check_threads(n, "threads")

    def __enter__(self):
        self.old = torch.get_num_threads()
        torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        torch.set_num_threads(self.old)
        return False


def to_float_tensor(x: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 images (N, C, H, W) in 0–255 → float32 tensor in [0, 1]; float input is passed through."""
    if isinstance(x, torch.Tensor):
        return x.float() / 255.0 if x.dtype == torch.uint8 else x.float()
    x = np.asarray(x)
    if x.dtype == np.uint8:
        return torch.from_numpy(x).float().div_(255.0)
    if x.dtype.kind != "f":
        raise ValueError(f"Images must be uint8 (0–255) or float in [0, 1], got dtype {x.dtype}.")
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))


def flip_crop(xb: torch.Tensor, gen: torch.Generator, pad: int = 4) -> torch.Tensor:
    """Random horizontal flip and random crop after zero padding by ``pad`` pixels (per image).

    ``xb`` float (N, C, H, W) on any device; ``gen`` a ``torch.Generator`` (the draws are made on its device and
    copied to ``xb``'s). Returns a tensor of ``xb``'s shape, dtype and device."""
    n, _, h, w = xb.shape
    dev = xb.device
    # the draws come from ``gen`` on its own device (the CPU generator of the training loop) and are copied to the
    # images' device without waiting; on the CPU the copies are no-ops and the stream is unchanged
    flip = (torch.rand(n, generator=gen, device=gen.device) < 0.5).to(dev, non_blocking=True)
    xb = torch.where(flip.view(-1, 1, 1, 1), xb.flip(3), xb)
    padded = F.pad(xb, (pad, pad, pad, pad))
    dx = torch.randint(0, 2 * pad + 1, (n,), generator=gen, device=gen.device).to(dev, non_blocking=True)
    dy = torch.randint(0, 2 * pad + 1, (n,), generator=gen, device=gen.device).to(dev, non_blocking=True)
    rows = dy.view(-1, 1) + torch.arange(h, device=dev).view(1, -1)  # (n, h)
    cols = dx.view(-1, 1) + torch.arange(w, device=dev).view(1, -1)  # (n, w)
    idx_n = torch.arange(n, device=dev).view(-1, 1, 1, 1)
    idx_c = torch.arange(xb.shape[1], device=dev).view(1, -1, 1, 1)
    return padded[idx_n, idx_c, rows.view(n, 1, h, 1), cols.view(n, 1, 1, w)]


def needs_host_generator(transform: Callable) -> Callable:
    """Mark a ``batch_transform(xb, gen)`` that draws from a CPU ``torch.Generator`` whatever device ``xb`` is on
    (numpy augmentations seeded from ``gen``); :func:`train` then passes it the CPU generator. Unmarked transforms
    get a generator on the training device, so their noise is drawn there. Returns ``transform`` itself."""
    if not callable(transform):
        raise TypeError(f"transform must be callable, got {type(transform).__name__}.")
    transform.needs_host_generator = True
    return transform


def device_generator(seed: int, device, host: torch.Generator) -> torch.Generator:
    """The generator a batch transform draws from on ``device``: ``host`` itself on the CPU (so CPU runs keep their
    single stream), else a generator on the device seeded from ``seed`` (its own stream, independent of ``host``)."""
    device = torch.device(device)
    if device.type == "cpu":
        return host
    state = np.random.SeedSequence([int(seed), 0x6E6F697365]).generate_state(1, dtype=np.uint64)[0]
    return torch.Generator(device=device).manual_seed(int(state) & (2**63 - 1))


def lr_scheduler(optimizer, schedule: str, epochs: int, steps_per_epoch: int, milestones=None, gamma=0.1):
    """The learning-rate schedule of the trainers, stepped once per batch: 'cosine' (over ``epochs``), 'step'
    (``gamma`` at each of ``milestones``, whole epochs >= 1: :func:`~robeval.core.nn.checks.check_milestones`) or
    'constant'."""
    milestones = check_milestones(milestones)
    total = max(1, epochs * steps_per_epoch)
    if schedule == "cosine":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, total) / total)))
    if schedule == "step":
        ms = [m * steps_per_epoch for m in milestones]
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, ms, gamma=gamma)
    if schedule == "constant":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    raise ValueError(f"Unknown schedule {schedule!r}; use 'cosine', 'step' or 'constant'.")


def train(
    model: nn.Module,
    x: np.ndarray,
    y: np.ndarray,
    *,
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
    batch_transform: Callable | None = None,
    step_fn: Callable | None = None,
    epoch_callback: Callable | None = None,
    seed: int = 0,
    device=None,
    progress: bool = True,
    desc: str = "train",
    threads: int | None = None,
) -> nn.Module:
    """Train ``model`` in place with SGD and return it (in eval mode).

    On a CUDA device the forward pass runs under bf16 autocast with channels-last activations and pinned
    host memory (training only: certification and evaluation count predictions from float32 logits).

    Parameters
    ----------
    x : uint8 (N, C, H, W) or float32 in [0, 1];  y : int (N,) class labels.
    epochs, batch_size, lr, momentum, weight_decay, nesterov : SGD settings (``nesterov`` True or False:
        anything else is refused with TypeError). ``epochs`` is an integer >= 0: 0 trains nothing and returns
        the model as it was built, in eval mode (the arguments are still checked).
    schedule : 'cosine' (per step), 'step' (``milestones`` in epochs, factor ``gamma``) or 'constant'.
        ``milestones``: None or a list of whole epochs >= 1 (text, fractions, 0 or negative epochs are refused;
        one after the last epoch never applies): :func:`~robeval.core.nn.checks.check_milestones`.
    flip_crop_aug : apply random flips and 4-px padded crops (images only).
    batch_transform : ``f(xb, gen) -> xb`` further augmentation on float batches in [0, 1].
    step_fn : ``f(model, xb, yb, epoch) -> loss`` replacing cross-entropy (custom objectives).
    epoch_callback : ``f(model, epoch)`` called after each epoch (e.g. re-weighting, logging).
    seed : seeds initial-independent randomness (shuffling, augmentation). Seed torch before building the
        model for identical initialisation.
    threads : torch intra-op threads during training (default :func:`train_threads`), an integer in
        1 .. :data:`MAX_THREADS` (a larger count is refused with ValueError). Fixed, because CPU
        weight gradients are reduced in a thread-count-dependent order: the same seed gives bit-identical
        models only with the same number of threads.
    """
    from tqdm.auto import tqdm

    epochs = check_count(epochs, "epochs", minimum=0, example=10)
    batch_size = check_count(batch_size, "batch_size", minimum=1, example=128)
    seed = check_seed(seed)
    threads = train_threads() if threads is None else check_threads(threads, "threads")
    check_sgd(lr, momentum, weight_decay, gamma)
    nesterov = check_bool(nesterov, "nesterov")
    milestones = check_milestones(milestones)
    x = check_train_images(x, features=True)  # one pass over float data, once per call
    y = check_train_labels(y, n=len(x), num_classes=output_classes(model))
    device = torch_device() if device is None else torch.device(device)
    gen = torch.Generator().manual_seed(int(seed))
    model.to(device)
    if device.type == "cuda":
        # GPU: channels-last activations, bf16 autocast for the forward pass
        model.to(memory_format=torch.channels_last)
    # the subset lives on the training device for the whole run: batches are gathered there
    xt = to_float_tensor(x).to(device)
    yt = torch.as_tensor(y).to(device)
    dgen = device_generator(seed, device, gen)
    opt = torch.optim.SGD(
        model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov and momentum > 0
    )
    steps = (len(xt) + batch_size - 1) // batch_size
    sched = lr_scheduler(opt, schedule, epochs, steps, milestones, gamma)
    bar = tqdm(total=epochs * steps, desc=desc, disable=not progress, leave=False)
    with fixed_threads(threads):
        _epochs(
            model,
            xt,
            yt,
            epochs,
            batch_size,
            gen,
            dgen,
            opt,
            sched,
            device,
            flip_crop_aug,
            batch_transform,
            step_fn,
            epoch_callback,
            bar,
        )
    bar.close()
    return model.eval()


def _epochs(
    model,
    xt,
    yt,
    epochs,
    batch_size,
    gen,
    dgen,
    opt,
    sched,
    device,
    flip_crop_aug,
    batch_transform,
    step_fn,
    epoch_callback,
    bar,
) -> None:
    cuda = device.type == "cuda"
    transform_gen = gen if getattr(batch_transform, "needs_host_generator", False) else dgen
    step = 0
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(xt), generator=gen).to(device, non_blocking=True)
        for start in range(0, len(xt), batch_size):
            idx = order[start : start + batch_size]
            xb, yb = xt[idx], yt[idx]
            if flip_crop_aug and xb.ndim == 4:
                xb = flip_crop(xb, gen)
            if batch_transform is not None:
                out = batch_transform(xb, transform_gen)
                if not isinstance(out, torch.Tensor) or out.shape != xb.shape:
                    got = tuple(out.shape) if isinstance(out, torch.Tensor) else f"a {type(out).__name__}"
                    raise TypeError(
                        f"batch_transform(xb, generator) must return a torch tensor of the batch's shape "
                        f"{tuple(xb.shape)}, got {got}; return the transformed batch (torch.as_tensor(...) of a numpy "
                        "result)."
                    )
                xb = out.to(device, non_blocking=True)
            if cuda and xb.ndim == 4:
                xb = xb.contiguous(memory_format=torch.channels_last)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=cuda):
                loss = step_fn(model, xb, yb, epoch) if step_fn is not None else F.cross_entropy(model(xb), yb)
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                got = f"shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else f"a {type(loss).__name__}"
                raise TypeError(
                    f"step_fn(model, xb, yb, epoch) must return the batch's loss as a scalar torch tensor (it is "
                    f"differentiated), got {got}; return e.g. F.cross_entropy(model(xb), yb)."
                )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            bar.update()
            step += 1
            if not bar.disable and step % PROGRESS_EVERY == 0:  # reading the loss waits for the device
                bar.set_postfix(epoch=epoch, loss=f"{loss.item():.3f}", refresh=False)
        if epoch_callback is not None:
            model.eval()
            epoch_callback(model, epoch)


@torch.no_grad()
def _batched(model: nn.Module, x, fn: Callable, batch_size: int, device) -> np.ndarray:
    """``fn(model, batch)`` over ``x`` in batches of ``batch_size`` on ``device``, concatenated on the CPU.

    Checked first, before the model is touched: ``model`` a torch module, ``batch_size`` an integer >= 1, ``x`` the
    images (or feature rows) ``model`` takes (:func:`~robeval.core.nn.checks.check_inference_images`), ``device`` one
    this machine can use (:func:`~robeval.core.env.usable_device`; None: :func:`~robeval.core.env.torch_device`).
    The model runs in eval mode and stays on ``device``; the train/eval mode of each of its modules is restored
    after the call. An empty batch runs through the model too, so that its result has the model's output width,
    e.g. (0, C) logits, not (0,)."""
    check_module(model)
    batch_size = check_count(batch_size, "batch_size", minimum=1, example=500)
    x = check_inference_images(x, model)
    device = torch_device() if device is None else usable_device(device)
    modes = [(m, m.training) for m in model.modules()]
    model.eval().to(device)
    try:
        xt = to_float_tensor(x)
        starts = range(0, max(len(xt), 1), batch_size)  # an empty batch once: the output's width comes from the model
        outs = [fn(model, xt[i : i + batch_size].to(device)).cpu() for i in starts]
    except RuntimeError as exc:  # torch's "Output size is too small" for images smaller than the model's pooling
        if x.ndim != 4 or not any(w in str(exc) for w in ("too small", "can't be greater than actual input")):
            raise
        raise ValueError(
            f"x holds images of {x.shape[2]}x{x.shape[3]} pixels, too small for {type(model).__name__} (torch: "
            f"{str(exc).splitlines()[0][:100]}); pass images of the size the model was built for, e.g. 32x32."
        ) from None
    finally:
        for m, was_training in modes:
            m.training = was_training
    return torch.cat(outs).numpy()


def predict_logits(model: nn.Module, x, batch_size: int = 500, device=None) -> np.ndarray:
    """Logits float32 (N, classes).

    ``x``: uint8 images (N, C, H, W) in 0..255 or float images in [0, 1] with the model's C channels (numpy or
    torch), or float (N, F) rows for an MLP; a flat, channels-last, NaN or 0..255-float batch is refused
    (ValueError naming ``x``). ``device``: a device this machine can use (None: the GPU when present), checked
    before the model is moved there. The model is left on ``device``, in the train/eval mode it had."""
    return _batched(model, x, lambda m, b: m(b), batch_size, device)


def predict_proba(model: nn.Module, x, batch_size: int = 500, device=None) -> np.ndarray:
    """Softmax probabilities float32 (N, classes); arguments as :func:`predict_logits`."""
    return _batched(model, x, lambda m, b: torch.softmax(m(b), 1), batch_size, device)


def predict(model: nn.Module, x, batch_size: int = 500, device=None) -> np.ndarray:
    """Predicted labels int64 (N,); arguments as :func:`predict_logits`."""
    return _batched(model, x, lambda m, b: m(b).argmax(1), batch_size, device).astype(np.int64)


def extract_features(model: nn.Module, x, batch_size: int = 500, device=None) -> np.ndarray:
    """Penultimate-layer features float32 (N, D) via ``model.features``; arguments as :func:`predict_logits`."""
    if not callable(getattr(check_module(model), "features", None)):
        raise ValueError(
            f"model ({type(model).__name__}) has no .features(x) method (the penultimate layer); build it with "
            "robeval.core.nn.build(...)."
        )
    return _batched(model, x, lambda m, b: m.features(b), batch_size, device)


def accuracy(model: nn.Module, x, y, batch_size: int = 500, device=None) -> float:
    """Fraction of ``x`` classified as ``y``.

    ``y`` follows the label contract of :func:`train` (:func:`robeval.core.nn.checks.check_train_labels`): one
    whole-number class index in 0..C-1 per image (C the classes the model scores); a fraction, a label out of
    range, text, booleans or a length other than ``len(x)`` is refused (ValueError / TypeError naming ``y``), not
    counted as a miss. Labels are paired with the images by position, so a pandas Series ``y`` must carry the
    positions 0..N-1 as its index (ValueError otherwise: pass ``y.to_numpy()`` in the order of ``x``). A numpy
    masked array ``x`` or ``y`` is refused (TypeError): its masked entries would be read like any other."""
    import pandas as pd

    from robeval.core.frames import check_unmasked

    check_unmasked(x, "x")  # a masked array's hidden images and labels would be read like any other
    check_unmasked(y, "y")
    if isinstance(y, pd.Series) and not y.index.equals(pd.RangeIndex(len(y))):
        shown = ", ".join(repr(v) for v in y.index[:4]) + (", ..." if len(y) > 4 else "")
        raise ValueError(
            f"y is a pandas Series with the index [{shown}], but x has no index: labels are paired with the images by "
            "position, not by label. Pass y.to_numpy() if y is in the order of x, or reorder it first (e.g. "
            "y.sort_index().to_numpy() if its index gives each image's position in x)."
        )
    y = check_train_labels(y, n=len(x) if hasattr(x, "__len__") else None, num_classes=output_classes(model))
    return float(np.mean(predict(model, x, batch_size, device) == y))
