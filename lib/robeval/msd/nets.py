"""Networks and corrupted test sets shared by notebooks 03 (powerset) and 04 (CIFAR-10-C-bar), cached by config.

* :func:`trained_model` trains a network once per (training config, augmentation, seed, start) and caches its
  weights under ``cache_dir()/msd_models``; notebook 03's base network and feature extractor are the
  default-augmentation models of notebook 04 when the two settings files agree (:data:`TRAIN_KEYS`), so no
  network is trained twice.
* :func:`corrupted_test_set` corrupts the test images once per (corruptions, images, seed, magnitudes) and caches
  the result under ``cache_dir()/msd_testsets``. Image ``i`` is corrupted at one severity,
  ``1 + i mod 5`` (:func:`diagonal_severities`): every corruption is measured on all ``n_test`` distinct
  images, ``n_test / 5`` per severity, at the cost of one pass over the images. Image ``i`` at severity ``s``
  draws from the stream ``corruption_seed(seed, name, s)`` keyed by ``i``, the stream
  :func:`robeval.transforms.corruptions.generate_dataset` uses for the same image.
* :func:`adapt_batchnorm` re-estimates a network's batch-norm statistics on augmented data (forward passes
  only; Appendix B of the paper), and :func:`error_rates` evaluates a network on a cached test set.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np

from robeval.core.seeding import keyed

# settings that define a trained network; 03 and 04 share a model when all of them agree
TRAIN_KEYS = ("arch", "width", "epochs", "batch_size", "lr", "weight_decay", "n_train", "full_data", "train_threads")
MODEL_VERSION = 1  # bump when the training code below changes what a cached model would be
AUGMENTATIONS = ("none", "autoaugment", "augmix", "patch_gaussian")


def train_config(settings) -> dict:
    """The JSON-able training config (:data:`TRAIN_KEYS`) of a resolved settings object or mapping."""
    missing = [k for k in TRAIN_KEYS if k not in settings]
    if missing:
        raise ValueError(f"the settings lack the training keys {missing}; both MSD settings files define them.")
    return {k: settings[k] for k in TRAIN_KEYS}


def keyed_state(seed, *keys) -> np.random.SeedSequence:
    """The child seed addressed by ``keys`` (:func:`robeval.core.seeding.keyed`) of an int or SeedSequence."""
    return keyed(seed if isinstance(seed, np.random.SeedSequence) else int(seed), *keys)


def run_seed(seed, *keys) -> int:
    """An integer seed for the stream addressed by ``keys`` (e.g. ``("run", 2)``, ``("extractor",)``):
    ``robeval.core.seeding.keyed(seed, *keys)`` reduced to 31 bits."""
    return int(keyed(int(seed), *keys).generate_state(1)[0] >> 1)


def _digest(obj, n: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:n]


def models_dir() -> Path:
    """Where :func:`trained_model` caches weights: ``robeval.core.paths.cache_dir() / "msd_models"``."""
    from robeval.core.paths import cache_dir

    return cache_dir() / "msd_models"


def model_key(
    tcfg: dict,
    augmentation: str,
    seed: int,
    *,
    init: str | None = None,
    epochs: int | None = None,
    lr: float | None = None,
) -> str:
    """The cache name of a trained network: arch, augmentation and a digest of everything that defines it."""
    spec = {
        "train": dict(tcfg),
        "augmentation": str(augmentation),
        "seed": int(seed),
        "init": init,
        "epochs": epochs,
        "lr": lr,
        "version": MODEL_VERSION,
    }
    aug = str(augmentation).replace("+", "-")
    return f"{tcfg['arch']}_{aug}_{_digest(spec)}"


def training_arrays(tcfg: dict):
    """The training images (uint8 NCHW) and labels (int64) of a training config: the first ``n_train``."""
    from robeval.core import data

    x_tr, y_tr, _, _ = data.load_cifar10_any(bool(tcfg["full_data"]))
    n = min(int(tcfg["n_train"]), len(x_tr))
    return x_tr[:n], np.asarray(y_tr[:n]).astype(np.int64)


def augmentation_kwargs(augmentation: str, seed: int, *, mode: str = "composite", severity: float = 3.0) -> dict:
    """The ``batch_transform`` / ``step_fn`` arguments of :func:`robeval.core.nn.training.train` for an
    augmentation: ``"none"`` (crops and flips only), ``"autoaugment"``, ``"patch_gaussian"``, ``"augmix"``
    (the nine AugMix ops with the Jensen-Shannon consistency loss, weight 12, as in AugMix and the paper), or a
    powerset scheme ('+'-joined op names, composited in ``mode`` at ``severity``, plain cross-entropy)."""
    from robeval.transforms import augmentations as aug

    if augmentation == "none":
        return {}
    if augmentation == "augmix":
        return {"step_fn": aug.augmix_jsd_step_fn(severity=3.0, jsd_weight=12.0, seed=int(seed))}
    if augmentation in ("autoaugment", "patch_gaussian"):
        return {"batch_transform": aug.make_batch_transform(augmentation)}
    scheme = aug.parse_scheme(augmentation)
    return {"batch_transform": aug.make_batch_transform(scheme, mode=mode, severity=float(severity))}


def trained_model(
    tcfg: dict,
    augmentation: str,
    seed: int,
    *,
    init=None,
    epochs: int | None = None,
    lr: float | None = None,
    scheme_mode: str = "composite",
    scheme_severity: float = 3.0,
    progress: bool = False,
):
    """A network trained with default augmentation (random crops and flips) plus ``augmentation``, loaded from
    the cache or trained and cached.

    Parameters
    ----------
    tcfg : the training config (:func:`train_config`): arch, width, epochs, batch_size, lr, weight_decay,
        n_train, full_data, train_threads (torch threads while training, fixed so a seed gives one model)
    augmentation : see :func:`augmentation_kwargs`
    seed : int — initialisation (``torch.manual_seed``) and data order / augmentation draws
    init : None (from scratch) or the cache key of a model to start from (fine-tuning; see :func:`model_key`)
    epochs, lr : epochs and initial learning rate of this run (default ``tcfg["epochs"]``, ``tcfg["lr"]``), with
        SGD + Nesterov and a cosine schedule

    Returns
    -------
    (model in eval mode, cache key)
    """
    import torch

    from robeval.core.io import atomic_write_bytes
    from robeval.core.nn import models, training

    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}.")
    key = model_key(tcfg, augmentation, seed, init=init, epochs=epochs, lr=lr)
    path = models_dir() / f"{key}.pt"
    if path.is_file():
        return models.load_from_config(tcfg, path), key
    torch.manual_seed(int(seed))
    model = models.from_config(tcfg)
    if init is not None:
        model.load_state_dict(torch.load(models_dir() / f"{init}.pt", map_location="cpu", weights_only=True))
    x, y = training_arrays(tcfg)
    training.train(
        model,
        x,
        y,
        epochs=int(tcfg["epochs"] if epochs is None else epochs),
        batch_size=int(tcfg["batch_size"]),
        lr=float(tcfg["lr"] if lr is None else lr),
        weight_decay=float(tcfg["weight_decay"]),
        nesterov=True,
        schedule="cosine",
        seed=int(seed),
        threads=int(tcfg["train_threads"]),
        progress=progress,
        desc=f"train {augmentation}",
        **augmentation_kwargs(augmentation, seed, mode=scheme_mode, severity=scheme_severity),
    )
    import io

    buf = io.BytesIO()
    torch.save(model.cpu().state_dict(), buf)
    atomic_write_bytes(path, buf.getvalue())
    return model.eval(), key


def load_model(tcfg: dict, key: str):
    """A cached model (eval mode) by its key from :func:`trained_model`."""
    from robeval.core.nn import models

    path = models_dir() / f"{key}.pt"
    if not path.is_file():
        raise ValueError(f"no cached model {key!r} in {models_dir()}; train it with trained_model(...) first.")
    return models.load_from_config(tcfg, path)


# ------------------------------------------------------------------------------------------------ inference
CPU_INFERENCE_BATCH = 50  # images per forward pass on a CPU (faster than 500 there)
CUDA_INFERENCE_BATCH = 1000  # on a GPU: batches of 50 leave it waiting on kernel launches


def inference_device(device=None):
    """The device MSD inference runs on: ``device``, else :func:`robeval.core.env.torch_device` (a GPU when
    there is one), where the networks were trained."""
    import torch

    from robeval.core.env import torch_device

    return torch_device() if device is None else torch.device(device)


def inference_batch(device=None) -> int:
    """Images per forward pass on ``device`` (:func:`inference_device`): :data:`CPU_INFERENCE_BATCH` on the CPU,
    :data:`CUDA_INFERENCE_BATCH` elsewhere."""
    return CPU_INFERENCE_BATCH if inference_device(device).type == "cpu" else CUDA_INFERENCE_BATCH


def model_device(model):
    """The device of ``model``'s first parameter or buffer (CPU for a module without either)."""
    import torch

    for t in model.parameters():
        return t.device
    for t in model.buffers():
        return t.device
    return torch.device("cpu")


def _batch_to(x, device):
    """uint8 or float images (numpy or torch, NCHW) as a float [0, 1] tensor on ``device``. On the CPU exactly
    :func:`robeval.core.nn.training.to_float_tensor`; elsewhere the bytes travel first and become float there
    (four times less to copy)."""
    import torch

    from robeval.core.nn.training import to_float_tensor

    if device.type == "cpu":
        return to_float_tensor(x)
    t = x if isinstance(x, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(x))
    return to_float_tensor(t.to(device, non_blocking=True))


def inference_model(model, device=None):
    """An eval-mode copy of ``model`` for inference on ``device`` (:func:`inference_device`: the GPU when there
    is one). On the CPU a TorchScript copy optimised for inference (batch norm folded into the convolutions;
    about twice as fast there as eager mode for the small CNN, same predictions), or the eval-mode copy where
    scripting fails; on a GPU the eval-mode copy on it (the folding is a CPU optimisation)."""
    import copy
    import warnings

    import torch

    device = inference_device(device)
    m = copy.deepcopy(model).eval().to(device)
    if device.type != "cpu":
        m._robeval_inference = True  # error_rates takes it as it is
        return m
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.jit.optimize_for_inference(torch.jit.script(m))
    except Exception:  # an architecture TorchScript cannot compile runs eagerly
        return m


def feature_fn(model, batch_size: int | None = None, device=None):
    """``fn(images uint8 NHWC) -> float64 (N, D)``: the penultimate layer ``model.features`` through
    :func:`inference_model` on ``device`` (the GPU when there is one), in batches of ``batch_size`` images
    (default :func:`inference_batch`)."""
    import torch

    from robeval.core.images import to_nchw

    class _Features(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner.features(x)

    device = inference_device(device)
    fast = inference_model(_Features(model), device)
    batch_size = int(batch_size or inference_batch(device))

    def fn(images):
        x = to_nchw(images)
        with torch.inference_mode():
            out = [fast(_batch_to(x[i : i + batch_size], device)) for i in range(0, len(x), batch_size)]
        return torch.cat(out).double().cpu().numpy()

    return fn


@functools.lru_cache(maxsize=4)
def _cached(kind: str, folder: str, tcfg_json: str, key: str):
    model = load_model(json.loads(tcfg_json), key)
    return inference_model(model) if kind == "inference" else feature_fn(model)


def cached_inference_model(tcfg: dict, key: str):
    """:func:`inference_model` of the cached model ``key`` (:func:`load_model`), built once per process and
    reused: grid cells that all evaluate the same network (the severity scan's error model) skip reloading and
    recompiling it (about 1-3 s of a CPU core each). Do not modify the returned module."""
    return _cached("inference", str(models_dir()), json.dumps(tcfg, sort_keys=True, default=str), str(key))


def cached_feature_fn(tcfg: dict, key: str):
    """:func:`feature_fn` of the cached model ``key``, built once per process (see :func:`cached_inference_model`):
    the feature extractor every MSD cell and scan point uses."""
    return _cached("features", str(models_dir()), json.dumps(tcfg, sort_keys=True, default=str), str(key))


def predict_fast(model, x, batch_size: int | None = None) -> np.ndarray:
    """Predicted labels of uint8 NCHW (or float [0, 1]) images in batches of ``batch_size`` (default
    :func:`inference_batch` of the model's device), with ``model`` as it is (pass :func:`inference_model` of it
    for speed and the GPU)."""
    return predict_many(model, [x], batch_size)[0]


def predict_many(model, arrays, batch_size: int | None = None) -> list[np.ndarray]:
    """Predicted labels (int64) of every array of ``arrays`` (uint8 NCHW or float [0, 1] images) in one pass on
    the model's device (:func:`model_device`): batches of ``batch_size`` (default :func:`inference_batch` of that
    device) run across the arrays' boundaries, so many short arrays (a few test images per corruption) cost a few
    batches instead of one call each, and only one batch is in float at a time. Arrays whose lengths are
    multiples of ``batch_size`` meet exactly the batches :func:`predict_fast` gives each."""
    import torch

    device = model_device(model)
    batch_size = int(batch_size or inference_batch(device))
    sizes = [len(a) for a in arrays]
    # the (array, start, stop) pieces of the concatenation, cut at every batch boundary
    pieces, batch, room = [], [], batch_size
    for k, n in enumerate(sizes):
        start = 0
        while start < n:
            stop = min(n, start + room)
            batch.append((k, start, stop))
            room -= stop - start
            start = stop
            if room == 0:
                pieces.append(batch)
                batch, room = [], batch_size
    if batch:
        pieces.append(batch)
    preds = [[] for _ in arrays]
    with torch.inference_mode():
        for batch in pieces:
            parts = [_batch_to(arrays[k][a:b], device) for k, a, b in batch]
            labels = model(parts[0] if len(parts) == 1 else torch.cat(parts)).argmax(1).cpu().numpy().astype(np.int64)
            offset = 0
            for k, a, b in batch:
                preds[k].append(labels[offset : offset + b - a])
                offset += b - a
    return [np.concatenate(p) if p else np.empty(0, dtype=np.int64) for p in preds]


def adapt_batchnorm(model, batches, device=None):
    """A copy of ``model`` whose batch-norm statistics are re-estimated on ``batches`` (an iterable of float
    (B, 3, 32, 32) tensors in [0, 1]): running statistics reset, then a cumulative average over the batches
    (``momentum=None``) in train mode, without gradients; weights are untouched (Schneider et al. 2020; the
    paper's Appendix B). Runs on ``device`` (:func:`inference_device`: the GPU when there is one). Returns the
    copy in eval mode, on that device."""
    import copy

    import torch

    device = inference_device(device)
    m = copy.deepcopy(model).to(device)
    bns = [mod for mod in m.modules() if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        raise ValueError("the model has no batch-norm layers to adapt.")
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    m.train()
    seen = 0
    with torch.no_grad():
        for xb in batches:
            m(xb.to(device, non_blocking=True))
            seen += len(xb)
    if seen == 0:
        raise ValueError("adapt_batchnorm got no batches.")
    return m.eval()


def augmented_batches(x_nchw, transform, seed, *, batch_size: int = 100, flip_crop: bool = True):
    """Float batches of ``x_nchw`` (uint8) after random crops and flips and ``transform(xb, gen)`` (a
    :func:`robeval.transforms.augmentations.make_batch_transform` transform, or None), from a torch Generator
    seeded with ``seed`` — the data the network would see in training with that augmentation."""
    import torch

    from robeval.core.nn import training

    gen = torch.Generator().manual_seed(int(seed))
    xt = training.to_float_tensor(x_nchw)
    for start in range(0, len(xt), batch_size):
        xb = xt[start : start + batch_size]
        if flip_crop:
            xb = training.flip_crop(xb, gen)
        if transform is not None:
            xb = transform(xb, gen)
        yield xb


# ------------------------------------------------------------------------------------------- test sets
def diagonal_severities(n: int) -> np.ndarray:
    """Severity of each of ``n`` test images: ``1 + i mod 5`` (image i is corrupted at that severity only)."""
    return 1 + np.arange(int(n)) % 5


def corrupt_diagonal(images_nhwc, name: str, seed: int, *, levels=None, start: int = 0) -> np.ndarray:
    """Corrupt image ``i`` of ``images_nhwc`` with ``name`` at severity ``1 + i mod 5``.

    ``levels``: None for the published severities (:func:`robeval.transforms.corruptions.corrupt`), or the
    five magnitudes to use instead (:func:`~robeval.transforms.corruptions.corrupt_with_param`; the
    calibrated CIFAR-10-C-bar of notebook 04). Image ``i`` draws from ``corruption_seed(seed, name, s)`` keyed
    by ``i``. ``start``: the images are ``start, start + 1, ...`` of a larger set (a chunk of it), so image ``j``
    here is image ``i = start + j`` there, with its severity and stream: the chunks of a set, concatenated, equal
    the whole set corrupted at once. Returns uint8 NHWC."""
    from robeval.transforms.corruptions import corrupt, corrupt_with_param, corruption_seed

    images = np.asarray(images_nhwc)
    start = int(start)
    sev = diagonal_severities(start + len(images))[start:]
    out = np.empty_like(images)
    for s in range(1, 6):
        idx = np.flatnonzero(sev == s)
        if not idx.size:
            continue
        root = corruption_seed(int(seed), name, s)
        if levels is None:
            out[idx] = corrupt(images[idx], name, s, seed=root, idx=start + idx)
        else:
            out[idx] = corrupt_with_param(images[idx], name, float(levels[s - 1]), seed=root, idx=start + idx)
    return out


def _corrupt_diagonal_chunk(start: int, stop: int, images, name: str, seed: int, levels) -> np.ndarray:
    """One task of :func:`corrupt_diagonal_many`: images ``start .. stop-1`` of the set (given as ``images``)."""
    return corrupt_diagonal(images, name, seed, levels=levels, start=start)


def corrupt_diagonal_many(images_nhwc, names, seed: int, *, levels: dict | None = None, n_jobs=1, chunk=None):
    """Yield ``(name, corrupt_diagonal(images_nhwc, name, seed, levels=levels.get(name)))`` for every name of
    ``names``, in order, the corruption spread over ``n_jobs`` worker processes
    (:func:`robeval.core.runs.parallel.imap`) in chunks of ``chunk`` images (default
    :func:`robeval.core.runs.parallel.default_chunk` over all names' images: about eight chunks per process, 8 to 128
    images, at most one name's images each).

    Every image draws from its own keyed stream and its severity is fixed by its index, so the arrays are
    bit-identical for every ``n_jobs`` and ``chunk``; with ``n_jobs = 1`` (and no ``chunk``) each name is
    :func:`corrupt_diagonal` of all images in this process, as before. A name is yielded as soon as its chunks
    are done (the caller can evaluate it while the workers corrupt the next)."""
    from robeval.core.runs.parallel import chunk_ranges, default_chunk, imap, resolve_jobs

    images = np.asarray(images_nhwc)
    names = [str(n) for n in names]
    levels = levels or {}
    n_jobs = resolve_jobs(n_jobs)
    if n_jobs == 1 and chunk is None:
        for name in names:
            yield name, corrupt_diagonal(images, name, seed, levels=levels.get(name))
        return
    n = len(images)
    if chunk is None:
        chunk = default_chunk(n * len(names), n_jobs)
    ranges = chunk_ranges(n, max(1, min(int(chunk), n)))
    tasks = [(a, b, images[a:b], name, int(seed), levels.get(name)) for name in names for a, b in ranges]
    results = imap(_corrupt_diagonal_chunk, tasks, n_jobs=n_jobs)
    for name in names:
        parts = [next(results) for _ in ranges]
        yield name, (np.concatenate(parts) if parts else np.empty_like(images))


def testsets_dir() -> Path:
    """Where :func:`corrupted_test_set` caches: ``robeval.core.paths.cache_dir() / "msd_testsets"``."""
    from robeval.core.paths import cache_dir

    return cache_dir() / "msd_testsets"


def corrupted_test_set(names, *, n_test: int, full_data: bool, seed: int, levels: dict | None = None, n_jobs=1) -> Path:
    """The first ``n_test`` test images corrupted by every corruption in ``names`` (:func:`corrupt_diagonal`),
    cached as npz: ``x`` uint8 (len(names), n_test, 3, 32, 32) NCHW, ``y`` (n_test,), ``severity``
    (n_test,), ``names``. ``levels`` maps a name to its five magnitudes (default: published severities).
    Returns the file's path (computed once per recipe, including the corruption generator's version).
    ``n_jobs``: worker processes of the corruption (:func:`corrupt_diagonal_many`); the file is bit-identical
    for every value, which is therefore not part of the recipe."""
    from robeval.core import data
    from robeval.core.images import to_nchw
    from robeval.core.io import save_npz
    from robeval.transforms.corruptions import GENERATOR_VERSION

    names = [str(n) for n in names]
    levels = {k: [float(v) for v in vs] for k, vs in (levels or {}).items()}
    recipe = {
        "names": names,
        "n_test": int(n_test),
        "full": bool(full_data),
        "seed": int(seed),
        "levels": levels,
        "generator": GENERATOR_VERSION,
    }
    path = testsets_dir() / f"test_{_digest(recipe)}.npz"
    if path.is_file():
        return path
    _, _, x_te, y_te = data.load_cifar10_any(bool(full_data), layout="NHWC")
    n = min(int(n_test), len(x_te))
    x = x_te[:n]
    out = np.empty((len(names), n, 3) + x.shape[1:3], dtype=np.uint8)
    for k, (_, corrupted) in enumerate(corrupt_diagonal_many(x, names, seed, levels=levels, n_jobs=n_jobs)):
        out[k] = to_nchw(corrupted)
    save_npz(
        path, x=out, y=np.asarray(y_te[:n]).astype(np.int64), severity=diagonal_severities(n), names=np.array(names)
    )
    return path


def error_rates(model, test_path, *, clean=None, corruptions=None) -> list[dict]:
    """Error of ``model`` on every corruption and severity of a :func:`corrupted_test_set` file (or only on the
    names in ``corruptions``), plus the clean error if ``clean`` (uint8 NCHW test images, the same first
    ``n_test``) is given. ``model`` is run through :func:`inference_model` unless it is one already (a
    TorchScript module, or a GPU copy: one network for several test sets); all images go through it in one pass
    (:func:`predict_many`).

    Returns rows {corruption, severity, error, n} ('clean' with severity 0), in the file's order."""
    import torch

    with np.load(test_path) as f:
        x, y, sev, names = f["x"], f["y"], f["severity"], [str(n) for n in f["names"]]
    if corruptions is not None:
        unknown = sorted(set(corruptions) - set(names))
        if unknown:
            raise ValueError(f"{test_path} holds no corruption(s) {unknown}; it holds {names}.")
    keep = [k for k, n in enumerate(names) if corruptions is None or n in corruptions]
    ready = isinstance(model, torch.jit.ScriptModule) or getattr(model, "_robeval_inference", False)
    fast = model if ready else inference_model(model)
    arrays = ([clean[: len(y)]] if clean is not None else []) + [x[k] for k in keep]
    preds = predict_many(fast, arrays)
    rows = []
    if clean is not None:
        pred = preds.pop(0)
        rows.append({"corruption": "clean", "severity": 0, "error": float(np.mean(pred != y)), "n": int(len(y))})
    for k, pred in zip(keep, preds):
        wrong = pred != y
        for s in np.unique(sev):
            sel = sev == s
            rows.append(
                {"corruption": names[k], "severity": int(s), "error": float(wrong[sel].mean()), "n": int(sel.sum())}
            )
    return rows


# ------------------------------------------------------------------------------ the default-augmentation networks
def network_seeds(seed: int, n_runs: int) -> dict:
    """Seeds of the default-augmentation networks of both notebooks: ``run<k>`` = ``run_seed(seed, "run", k)``
    for k < n_runs (Table 1's runs in notebook 04; run 0 is notebook 03's base network, runs k start the
    Fig. 2b fine-tuning runs) and ``extractor`` = ``run_seed(seed, "extractor")`` (notebook 03's feature
    extractor, notebook 04's calibration network)."""
    out = {f"run{k}": run_seed(seed, "run", k) for k in range(int(n_runs))}
    out["extractor"] = run_seed(seed, "extractor")
    return out


def _train_none(tcfg: dict, seed: int) -> str:
    return trained_model(tcfg, "none", seed)[1]


def default_networks(settings, *, n_jobs: int = 1) -> dict:
    """Train (or load from the cache) the networks of :func:`network_seeds` with the settings' training config,
    in up to ``n_jobs`` parallel processes (each training with ``train_threads`` threads). Returns {name: key}."""
    from joblib import Parallel, delayed

    tcfg = train_config(settings)
    seeds = network_seeds(int(settings["seed"]), int(settings["n_runs"]))
    keys = {name: model_key(tcfg, "none", s) for name, s in seeds.items()}
    todo = [n for n in seeds if not (models_dir() / f"{keys[n]}.pt").is_file()]
    if len(todo) > 1 and int(n_jobs) > 1:
        Parallel(n_jobs=min(int(n_jobs), len(todo)))(delayed(_train_none)(tcfg, seeds[n]) for n in todo)
    else:
        for n in todo:
            _train_none(tcfg, seeds[n])
    return keys
