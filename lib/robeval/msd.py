"""Transform feature space, MMD and the Minimal Sample Distance (Mintun, Kirillov & Xie 2021, Sec. 3).

Transform features. With an image feature extractor ``f_hat`` (the last hidden layer of a network
trained with default augmentation only) and a fixed random image sample ``D_S``, a transform ``t`` is
encoded as

    f(t) = E_{x in D_S} [ f_hat(t(x)) - f_hat(x) ]                                       (Sec. 3)

where one *instance* of ``t`` (one draw of its random parameters) is applied to every image in D_S.

Distances between an augmentation scheme p_a (samples a_1..a_K) and a corruption p_c (samples
c_1..c_M):

    d_MMD(p_a, p_c) = || mean_k f(a_k) - mean_m f(c_m) ||
    d_MSD(p_a, p_c) = min_k || f(a_k) - mean_m f(c_m) ||

The module also holds the two experiments of notebook 03 as grid-cell functions: the augmentation
powerset (per scheme a trained model, its CIFAR-10-C errors and its MSD/MMD to every corruption) and the
Fig. 2 toy (augmentation = mixture of impulse noise and motion blur), and the tables and quantities the
notebook's claims are judged on (the claims themselves are recorded by :mod:`robeval.msd_claims`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from . import augmentations as aug
from .validation import check_frame as _check_frame

__all__ = [
    "transform_features", "mmd", "msd", "mmd_many", "msd_many", "model_feature_fn", "scheme_transform",
    "corruption_transform", "mixture_transform", "sample_feature_images", "corruption_features",
    "sample_powerset_schemes", "make_corrupted_test_sets", "train_feature_extractor", "prepare_powerset",
    "powerset_cell", "toy_mixture_cell", "toy_distances", "spearman_table", "average_over_severities",
    "inclusion_effect", "method_transform", "METHODS",
    "toy_cells", "powerset_cells", "toy_table", "spearman_summary", "inclusion_effects", "relative_msd_reduction",
    "single_op_table", "mean_error_by_kind", "toy_landmarks", "method_vs_powerset_median",
    "PAPER_SPEARMAN_THRESHOLD", "PAPER_N_ABOVE_THRESHOLD",
]

# Sec. 4.2: "12 of 15 have Spearman rank correlation greater than 0.6"
PAPER_SPEARMAN_THRESHOLD = 0.6
PAPER_N_ABOVE_THRESHOLD = 12


# --------------------------------------------------------------------------------------------------
# distances
# --------------------------------------------------------------------------------------------------
def _check_feats(a, name: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a (n_samples, D) feature array with n_samples >= 1, got shape "
                         f"{np.shape(a)}; stack one transform feature per row.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; check the feature extractor.")
    return arr


def _check_pair(aug_feats, corr_feats):
    a = _check_feats(aug_feats, "aug_feats")
    c = _check_feats(corr_feats, "corr_feats")
    if a.shape[1] != c.shape[1]:
        raise ValueError(f"aug_feats and corr_feats have different feature sizes ({a.shape[1]} vs "
                         f"{c.shape[1]}); compute both with the same feature extractor.")
    return a, c


def mmd(aug_feats, corr_feats) -> float:
    """Distance between the mean transform features of two sample sets (the paper's "MMD").

    Parameters
    ----------
    aug_feats : float array (K, D)   transform features f(a_k) of augmentation samples
    corr_feats : float array (M, D)  transform features f(c_m) of corruption samples

    Returns
    -------
    float  ``|| mean_k f(a_k) - mean_m f(c_m) ||_2`` in feature units.
    """
    a, c = _check_pair(aug_feats, corr_feats)
    return float(np.linalg.norm(a.mean(0) - c.mean(0)))


def msd(aug_feats, corr_feats) -> float:
    """Minimal Sample Distance: L2 distance from the mean corruption feature to the nearest augmentation
    sample, ``min_k || f(a_k) - mean_m f(c_m) ||_2``.

    Parameters
    ----------
    aug_feats : float array (K, D);  corr_feats : float array (M, D)

    Returns
    -------
    float (feature units)
    """
    a, c = _check_pair(aug_feats, corr_feats)
    return float(np.min(np.linalg.norm(a - c.mean(0), axis=1)))


def _sq_dists(a: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(K, L) squared distances, computed as |a|^2 - 2 a.c + |c|^2 (one matrix product)."""
    d = (a * a).sum(1)[:, None] - 2.0 * a @ centres.T + (centres * centres).sum(1)[None, :]
    return np.maximum(d, 0.0)


def msd_many(aug_feats, corr_means) -> np.ndarray:
    """MSD from one augmentation sample set to many corruption means at once.

    Parameters
    ----------
    aug_feats : float array (K, D)
    corr_means : float array (L, D)   mean transform feature of each corruption (e.g. each
        corruption-severity pair)

    Returns
    -------
    float64 array (L,)
    """
    a, c = _check_pair(aug_feats, corr_means)
    best = np.full(len(c), np.inf)
    for start in range(0, len(a), 8192):  # chunked so 100k samples stay within memory
        best = np.minimum(best, _sq_dists(a[start:start + 8192], c).min(0))
    return np.sqrt(best)


def mmd_many(aug_feats, corr_means) -> np.ndarray:
    """MMD from one augmentation sample set to many corruption means: (L,) float64."""
    a, c = _check_pair(aug_feats, corr_means)
    return np.linalg.norm(c - a.mean(0)[None, :], axis=1)


# --------------------------------------------------------------------------------------------------
# transform features
# --------------------------------------------------------------------------------------------------
def model_feature_fn(model, *, batch_size: int = 500, device=None) -> Callable[[np.ndarray], np.ndarray]:
    """Wrap a :mod:`robeval.models` network as ``feature_fn(images uint8 (N, H, W, C)) -> (N, D)`` float64
    returning the penultimate layer ``model.features`` (model in eval mode)."""
    from .training import extract_features

    if not hasattr(model, "features"):
        raise ValueError("model has no .features(x) method; build it with robeval.models.build(...).")

    def feature_fn(images: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(np.asarray(images).transpose(0, 3, 1, 2))
        return extract_features(model, x, batch_size=batch_size, device=device).astype(np.float64)

    return feature_fn


def transform_features(feature_fn: Callable, images, transform: Callable, rng: np.random.Generator,
                       n_samples: int, *, batch_size: int = 1000, progress: bool = False,
                       desc: str = "transform features") -> np.ndarray:
    """Transform features ``f(t_k) = mean_x f_hat(t_k(x)) - mean_x f_hat(x)`` of ``n_samples`` instances.

    Parameters
    ----------
    feature_fn : callable(uint8 (N, H, W, C)) -> float (N, D)   image feature extractor f_hat
    images : uint8 array (N, H, W, C)   the fixed image sample D_S (paper: 100 images)
    transform : callable(images, rng) -> uint8 (N, H, W, C)
        draws ONE instance of the transform from ``rng`` and applies it to all images
        (see :func:`scheme_transform`, :func:`corruption_transform`).
    rng : numpy Generator
    n_samples : int >= 1   number of transform instances (paper: 100 per corruption, 100k per scheme)
    batch_size : int   images per feature-extractor call (several instances are stacked)

    Returns
    -------
    float64 array (n_samples, D)
    """
    from tqdm.auto import tqdm

    images = aug._check_images(images)
    rng = aug._check_rng(rng)
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
    n = len(images)
    clean = np.asarray(feature_fn(images), dtype=np.float64).mean(0)
    per_call = max(1, batch_size // n)  # instances per feature-extractor call
    out = np.empty((n_samples, clean.shape[0]))
    with tqdm(total=n_samples, desc=desc, disable=not progress, leave=False) as bar:
        for start in range(0, n_samples, per_call):
            k = min(per_call, n_samples - start)
            batch = np.concatenate([transform(images, rng) for _ in range(k)])
            if batch.shape != (k * n,) + images.shape[1:] or batch.dtype != np.uint8:
                raise ValueError("transform must return a uint8 array with the shape of its input; got "
                                 f"{batch.dtype} {batch.shape[1:]} for input {images.shape[1:]}.")
            feats = np.asarray(feature_fn(batch), dtype=np.float64).reshape(k, n, -1)
            out[start:start + k] = feats.mean(1) - clean
            bar.update(k)
    return out


def scheme_transform(scheme, *, mode: str = "composite", severity: float = 3.0, **kw) -> Callable:
    """Transform for :func:`transform_features`: one sampled instance of an augmentation scheme
    (:func:`robeval.augmentations.sample_scheme`) applied to all images."""
    scheme = aug.parse_scheme(scheme)

    def transform(images, rng):
        return aug.apply_scheme(images, scheme, rng, mode, severity=severity, same_instance=True, **kw)

    return transform


METHODS = ("autoaugment", "augmix", "patch_gaussian")


def method_transform(name: str) -> Callable:
    """Transform for :func:`transform_features` of a published augmentation method (one instance applied
    to all images): ``autoaugment`` (CIFAR-10 policy), ``augmix`` (the full nine-op scheme) or
    ``patch_gaussian`` (width 25, sigma ~ U(0, 1))."""
    if name == "autoaugment":
        return lambda images, rng: aug.autoaugment(images, rng, same_instance=True)
    if name == "patch_gaussian":
        return lambda images, rng: aug.patch_gaussian_images(images, rng, same_instance=True)
    if name == "augmix":
        return scheme_transform(aug.BASE_OPS)
    raise ValueError(f"Unknown method {name!r}; valid: {', '.join(METHODS)}.")


def _default_corrupt():
    from .corruptions import corrupt

    return corrupt


def corruption_transform(name: str, severity: int, corrupt_fn: Callable | None = None) -> Callable:
    """Transform for :func:`transform_features`: one realisation of corruption ``name`` at ``severity``
    (``corrupt_fn(images, name, severity, seed)``, default :func:`robeval.corruptions.corrupt`) with a
    seed drawn from the rng."""
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn

    def transform(images, rng):
        return corrupt_fn(images, name, severity, seed=int(rng.integers(2 ** 31)))

    return transform


def mixture_transform(names, probs, severities=(1, 2, 3, 4, 5), corrupt_fn: Callable | None = None) -> Callable:
    """Per-image augmentation by a random corruption: image i gets corruption ``names[j]`` with
    probability ``probs[j]`` at a uniformly drawn severity. ``fn(images uint8 NHWC, rng) -> uint8``;
    wrap with :func:`robeval.augmentations.as_batch_transform` for training (Fig. 2 toy)."""
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn
    probs = np.asarray(probs, dtype=np.float64)
    if len(names) != len(probs) or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ValueError("names and probs must have equal length and probs must be >= 0 and sum to 1.")
    severities = tuple(int(s) for s in severities)

    def fn(images, rng):
        images = aug._check_images(images)
        which = rng.choice(len(names), size=len(images), p=probs)
        sev = rng.choice(severities, size=len(images))
        out = images.copy()
        for j, name in enumerate(names):
            for s in severities:
                sel = np.flatnonzero((which == j) & (sev == s))
                if sel.size:
                    out[sel] = corrupt_fn(images[sel], name, int(s), seed=int(rng.integers(2 ** 31)))
        return out

    return fn


def sample_feature_images(images_nchw, n: int, seed: int) -> np.ndarray:
    """The fixed image sample D_S: ``n`` images drawn without replacement, returned as uint8 NHWC."""
    images_nchw = np.asarray(images_nchw)
    if n > len(images_nchw):
        raise ValueError(f"cannot draw {n} feature images from {len(images_nchw)}; lower n_feature_images.")
    idx = np.sort(np.random.default_rng(seed).choice(len(images_nchw), size=n, replace=False))
    return np.ascontiguousarray(images_nchw[idx].transpose(0, 2, 3, 1))


def corruption_features(feature_fn: Callable, images, corruptions, severities, n_samples: int, seed: int, *,
                        corrupt_fn: Callable | None = None, batch_size: int = 1000,
                        progress: bool = True) -> np.ndarray:
    """Transform features of ``n_samples`` realisations of every corruption and severity.

    Returns
    -------
    float64 array (len(corruptions), len(severities), n_samples, D)
    """
    from tqdm.auto import tqdm

    out = None
    pairs = [(c, s) for c in corruptions for s in severities]
    for k, (c, s) in enumerate(tqdm(pairs, desc="corruption features", disable=not progress)):
        rng = np.random.default_rng([seed, k])
        f = transform_features(feature_fn, images, corruption_transform(c, s, corrupt_fn), rng, n_samples,
                               batch_size=batch_size)
        if out is None:
            out = np.empty((len(corruptions), len(severities), n_samples, f.shape[1]))
        out[k // len(severities), k % len(severities)] = f
    return out


# --------------------------------------------------------------------------------------------------
# experiments (grid-cell functions for robeval.runs.run_grid)
# --------------------------------------------------------------------------------------------------
def sample_powerset_schemes(n: int, seed: int) -> list[frozenset]:
    """``n`` schemes of the 512-scheme powerset: the empty scheme and the nine single ops first (they carry
    the Fig. 1/4 contrasts; solarize and translate_x, the ops of Fig. 4, lead), then a seeded uniform draw
    without replacement from the rest."""
    schemes = aug.powerset_schemes()
    if not 1 <= n <= len(schemes):
        raise ValueError(f"n must lie in 1..{len(schemes)}, got {n}.")
    lead = ("solarize", "translate_x")
    singles = [frozenset({o}) for o in lead] + [frozenset({o}) for o in aug.BASE_OPS if o not in lead]
    head = [frozenset()] + singles
    if n <= len(head):
        return head[:n]
    rest = [sc for sc in schemes if len(sc) > 1]
    pick = np.random.default_rng(seed).choice(len(rest), size=n - len(head), replace=False)
    return head + [rest[i] for i in sorted(pick)]


def make_corrupted_test_sets(x_nchw, corruptions, severities, seed: int, path, *,
                             corrupt_fn: Callable | None = None, progress: bool = True) -> Path:
    """Corrupt the test images with every corruption and severity (in memory, as the paper does) and
    store them in ``path`` (npz, key ``x`` uint8 (n_corr, n_sev, N, 3, H, W)); reuses an existing file."""
    from tqdm.auto import tqdm

    from .io import save_npz

    path = Path(path)
    if path.is_file():
        return path
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn
    x = np.ascontiguousarray(np.asarray(x_nchw).transpose(0, 2, 3, 1))
    out = np.empty((len(corruptions), len(severities)) + np.shape(x_nchw), dtype=np.uint8)
    pairs = [(i, j) for i in range(len(corruptions)) for j in range(len(severities))]
    for i, j in tqdm(pairs, desc="corrupt test set", disable=not progress):
        seed_ij = int(np.random.default_rng([seed, i, j]).integers(2 ** 31))
        out[i, j] = corrupt_fn(x, corruptions[i], int(severities[j]), seed=seed_ij).transpose(0, 3, 1, 2)
    save_npz(path, x=out)
    return path


def train_feature_extractor(x, y, *, arch: str, epochs: int, batch_size: int, lr: float, weight_decay: float,
                            seed: int, path, width: int | None = None, progress: bool = True):
    """Train the feature extractor f_hat with default augmentation only (random crop and flip), as the paper
    requires, save its state dict to ``path`` and return the model; reuses an existing file."""
    import torch

    from . import models, training

    path = Path(path)
    torch.manual_seed(int(seed))
    model = models.from_config({"arch": arch, "width": width})
    if path.is_file():
        model.load_state_dict(torch.load(path, map_location="cpu"))
        return model.eval()
    training.train(model, x, y, epochs=int(epochs), batch_size=int(batch_size), lr=float(lr),
                   weight_decay=float(weight_decay), nesterov=True, schedule="cosine", flip_crop_aug=True,
                   seed=int(seed), progress=progress, desc="feature extractor")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(model.cpu().state_dict(), tmp)
    tmp.replace(path)
    return model.eval()


_PREP_KEYS = ("seed", "n_train", "n_test", "full_data", "extractor_arch", "extractor_epochs", "batch_size", "lr",
              "weight_decay", "corruptions", "severities", "n_feature_images", "n_corruption_samples",
              "toy_pool_samples", "width")


def prepare_powerset(settings, workdir, *, progress: bool = True) -> dict:
    """Everything the grid cells share, computed once and cached under ``workdir/<settings hash>/``:

    1. the training/test images (``data.npz``; a seeded subset of the CIFAR-10 subset or full CIFAR-10),
    2. the corrupted test sets (CIFAR-10-C generated in memory, ``corrupted_test.npz``),
    3. the feature extractor f_hat trained with default augmentation (``extractor.pt``),
    4. the fixed image sample D_S (from the training split, as in the paper) and the transform features of
       ``n_corruption_samples`` instances of each corruption and severity (``corruption_features.npz``:
       ``feats`` (n_corr, n_sev, M, D), ``means`` (n_corr, n_sev, D), ``feature_images``),
    5. for the Fig. 2 toy, an independent pool of impulse-noise and motion-blur instance features
       (``toy_pool.npz``).

    Parameters
    ----------
    settings : mapping with the keys of ``settings/msd_powerset.toml``
    workdir : directory for the cache (e.g. ``robeval.paths.cache_dir() / "msd_powerset" / profile``)

    Returns
    -------
    dict  the ``config`` for :func:`powerset_cell` and :func:`toy_mixture_cell` (JSON-able), plus
    ``extractor_clean_error``.
    """
    from . import data as rdata
    from . import training
    import hashlib
    import json

    from .io import save_npz

    s = dict(settings)
    key = json.dumps({k: s[k] for k in _PREP_KEYS if k in s}, sort_keys=True, default=str)
    root = Path(workdir) / hashlib.sha256(key.encode()).hexdigest()[:10]
    root.mkdir(parents=True, exist_ok=True)
    data_path = root / "data.npz"
    if not data_path.is_file():
        x_tr, y_tr, x_te, y_te = rdata.load_cifar10_any(bool(s.get("full_data", False)))
        rng = np.random.default_rng([int(s["seed"]), 0])
        tr = np.sort(rng.choice(len(x_tr), size=min(int(s["n_train"]), len(x_tr)), replace=False))
        te = np.sort(rng.choice(len(x_te), size=min(int(s["n_test"]), len(x_te)), replace=False))
        save_npz(data_path, x_train=x_tr[tr], y_train=y_tr[tr].astype(np.int64), x_test=x_te[te],
                 y_test=y_te[te].astype(np.int64))
    d = np.load(data_path)
    corruptions, severities = list(s["corruptions"]), [int(v) for v in s["severities"]]
    corrupted_path = make_corrupted_test_sets(d["x_test"], corruptions, severities, int(s["seed"]) + 1,
                                              root / "corrupted_test.npz", progress=progress)
    extractor_path = root / "extractor.pt"
    extractor = train_feature_extractor(d["x_train"], d["y_train"], arch=s["extractor_arch"],
                                        epochs=s["extractor_epochs"], batch_size=s["batch_size"], lr=s["lr"],
                                        weight_decay=s["weight_decay"], seed=int(s["seed"]) + 2,
                                        path=extractor_path, width=s.get("width"), progress=progress)
    feature_fn = model_feature_fn(extractor)
    feats_path = root / "corruption_features.npz"
    if not feats_path.is_file():
        images = sample_feature_images(d["x_train"], int(s["n_feature_images"]), int(s["seed"]) + 3)
        f = corruption_features(feature_fn, images, corruptions, severities, int(s["n_corruption_samples"]),
                                int(s["seed"]) + 4, progress=progress)
        save_npz(feats_path, feats=f, means=f.mean(2), feature_images=images)
    toy_path = root / "toy_pool.npz"
    if not toy_path.is_file():
        images = np.load(feats_path)["feature_images"]
        pool = corruption_features(feature_fn, images, ["impulse_noise", "motion_blur"], severities,
                                   int(s["toy_pool_samples"]), int(s["seed"]) + 5, progress=progress)
        save_npz(toy_path, impulse_noise=pool[0], motion_blur=pool[1])
    clean_error = float(np.mean(training.predict(extractor, d["x_test"]) != d["y_test"]))
    config = {k: s[k] for k in ("arch", "epochs", "batch_size", "lr", "weight_decay", "severity", "mode",
                                "n_aug_samples", "extractor_arch")}
    if s.get("width"):
        config["width"] = int(s["width"])
    config.update(corruptions=corruptions, severities=severities, data_path=str(data_path),
                  corrupted_test_path=str(corrupted_path), corr_features_path=str(feats_path),
                  extractor_path=str(extractor_path), toy_pool_path=str(toy_path),
                  torch_threads=int(s.get("torch_threads", 1)))
    return {"config": config, "extractor_clean_error": clean_error}


def _load_extractor(config: dict):
    from . import models

    return models.load_from_config(config, config["extractor_path"], arch_key="extractor_arch")


def _train_and_score(cell: dict, config: dict, batch_transform) -> dict:
    """Train ``config['arch']`` with ``batch_transform`` on the training images and return its error on the
    clean test images and on every stored corrupted test set ((corruption, severity) -> error)."""
    import torch

    from . import models, training

    data = np.load(config["data_path"])
    torch.manual_seed(int(cell["seed"]))
    model = models.from_config(config)
    training.train(model, data["x_train"], data["y_train"], epochs=int(config["epochs"]),
                   batch_size=int(config["batch_size"]), lr=float(config["lr"]),
                   weight_decay=float(config["weight_decay"]), nesterov=True, schedule="cosine",
                   batch_transform=batch_transform, seed=int(cell["seed"]), progress=False)
    y = data["y_test"]
    errors = {("clean", 0): float(np.mean(training.predict(model, data["x_test"]) != y))}
    with np.load(config["corrupted_test_path"]) as f:
        corrupted = f["x"]  # read (and decompress) once, not once per (corruption, severity)
    for ci, c in enumerate(config["corruptions"]):
        for si, s in enumerate(config["severities"]):
            errors[(c, s)] = float(np.mean(training.predict(model, corrupted[ci, si]) != y))
    return errors


def powerset_cell(cell: dict, config: dict) -> list[dict]:
    """One scheme of the augmentation powerset (Sec. 4): MSD and MMD from the scheme to every
    corruption/severity, and the corruption errors of a model trained with the scheme.

    cell : {"scheme": '+'-joined name ('none' = empty) or a method ('autoaugment', 'patch_gaussian';
        'augmix' = the full scheme), "seed": int}
    config : data_path (npz with x_train, y_train, x_test, y_test, uint8 NCHW), corrupted_test_path (npz
        ``x`` (n_corr, n_sev, N, 3, 32, 32)), corr_features_path (npz ``means`` (n_corr, n_sev, D),
        ``feature_images`` uint8 NHWC), extractor_path / extractor_arch, corruptions, severities,
        n_aug_samples, severity (AugMix scale), mode, arch, epochs, batch_size, lr, weight_decay.

    Returns one row per (corruption, severity) plus a 'clean' row: scheme, family ('powerset' or
    'method'), n_ops (-1 for methods), corruption, severity, error, msd, mmd.
    """
    import torch

    torch.set_num_threads(int(config.get("torch_threads", 1)) or 1)
    feats = np.load(config["corr_features_path"])
    means = feats["means"]
    n_corr, n_sev, dim = means.shape
    feature_fn = model_feature_fn(_load_extractor(config))
    rng = np.random.default_rng([int(cell["seed"]), 1])
    if cell["scheme"] in METHODS and cell["scheme"] != "augmix":  # a published method, not a powerset scheme
        name, family, n_ops = cell["scheme"], "method", -1
        feature_transform = method_transform(name)
        transform = aug.make_batch_transform(name)
    else:
        scheme = aug.parse_scheme(aug.BASE_OPS if cell["scheme"] == "augmix" else cell["scheme"])
        name, family, n_ops = aug.scheme_name(scheme), "powerset", len(scheme)
        feature_transform = scheme_transform(scheme, mode=config["mode"], severity=float(config["severity"])) \
            if scheme else None
        transform = aug.make_batch_transform(scheme, mode=config["mode"], severity=float(config["severity"])) \
            if scheme else None
    if feature_transform is not None:
        aug_feats = transform_features(feature_fn, feats["feature_images"], feature_transform, rng,
                                       int(config["n_aug_samples"]))
    else:  # the empty scheme is the identity: its only transform feature is 0
        aug_feats = np.zeros((1, dim))
    flat = means.reshape(-1, dim)
    d_msd = msd_many(aug_feats, flat).reshape(n_corr, n_sev)
    d_mmd = mmd_many(aug_feats, flat).reshape(n_corr, n_sev)
    errors = _train_and_score(cell, config, transform)
    base = {"scheme": name, "family": family, "n_ops": n_ops}
    rows = [{**base, "corruption": "clean", "severity": 0, "error": errors[("clean", 0)], "msd": np.nan,
             "mmd": np.nan}]
    for ci, c in enumerate(config["corruptions"]):
        for si, s in enumerate(config["severities"]):
            rows.append({**base, "corruption": c, "severity": int(s), "error": errors[(c, s)],
                         "msd": float(d_msd[ci, si]), "mmd": float(d_mmd[ci, si])})
    return rows


def toy_mixture_cell(cell: dict, config: dict) -> list[dict]:
    """Fig. 2b toy, training part: a model trained with augmentation = impulse noise with probability
    ``cell['fraction']`` else motion blur (random severity 1-5), scored on the stored corrupted test sets.

    Returns one row per (corruption, severity) plus 'clean': fraction, corruption, severity, error.
    """
    import torch

    torch.set_num_threads(int(config.get("torch_threads", 1)) or 1)
    p = float(cell["fraction"])
    fn = mixture_transform(("impulse_noise", "motion_blur"), (p, 1.0 - p))
    errors = _train_and_score(cell, config, aug.as_batch_transform(fn))
    return [{"fraction": p, "corruption": c, "severity": int(s), "error": e} for (c, s), e in errors.items()]


def toy_distances(target_feats, other_feats, target_means, fractions, n_samples: int, seed: int):
    """Fig. 2b toy, distance part: MMD and MSD between a mixture augmentation and the target corruption.

    An augmentation sample is a target-corruption instance with probability ``fraction`` and an
    other-corruption instance otherwise; instances are drawn from the feature pools.

    Parameters
    ----------
    target_feats : (n_sev, P, D) transform features of target-corruption (impulse noise) instances
    other_feats : (n_sev, P, D) of the other corruption (motion blur)
    target_means : (n_sev, D) mean transform feature of the target corruption (independent samples)
    fractions : sequence of floats in [0, 1]
    n_samples : int   augmentation samples per fraction

    Returns
    -------
    list of dict rows: fraction, mmd, msd (both averaged over severities)
    """
    t = np.asarray(target_feats, dtype=np.float64).reshape(-1, np.shape(target_feats)[-1])
    o = np.asarray(other_feats, dtype=np.float64).reshape(-1, np.shape(other_feats)[-1])
    rows = []
    for k, frac in enumerate(fractions):
        rng = np.random.default_rng([seed, k])
        n_t = rng.binomial(n_samples, float(frac))
        sample = np.concatenate([t[rng.integers(0, len(t), n_t)], o[rng.integers(0, len(o), n_samples - n_t)]])
        rows.append({"fraction": float(frac),
                     "mmd": float(mmd_many(sample, target_means).mean()),
                     "msd": float(msd_many(sample, target_means).mean())})
    return rows


def spearman_table(df, *, by: str = "scheme") -> "pandas.DataFrame":  # noqa: F821
    """Spearman rank correlation, per corruption, between distance and error across schemes.

    Errors and distances are first averaged over severities (as in the paper's figures).

    Parameters
    ----------
    df : DataFrame with columns scheme, corruption, severity, error, msd, mmd (from :func:`powerset_cell`)

    Returns
    -------
    DataFrame indexed by corruption: rho_msd, p_msd, rho_mmd, p_mmd, n_schemes
    """
    import pandas as pd
    from scipy.stats import spearmanr

    d = df[df["corruption"] != "clean"]
    if "family" in d:  # the paper's correlations are over the powerset only
        d = d[d["family"].fillna("powerset") == "powerset"]
    avg = d.groupby(["corruption", by], sort=False)[["error", "msd", "mmd"]].mean().reset_index()
    rows = []
    for c, g in avg.groupby("corruption", sort=False):
        r_msd = spearmanr(g["msd"], g["error"])
        r_mmd = spearmanr(g["mmd"], g["error"])
        rows.append({"corruption": c, "rho_msd": float(r_msd.statistic), "p_msd": float(r_msd.pvalue),
                     "rho_mmd": float(r_mmd.statistic), "p_mmd": float(r_mmd.pvalue), "n_schemes": len(g)})
    return pd.DataFrame(rows).set_index("corruption")


def average_over_severities(df) -> "pandas.DataFrame":  # noqa: F821
    """Mean error, MSD and MMD per (scheme, corruption) over severities (the paper's per-corruption view).

    Returns columns scheme, family, n_ops, corruption, error, msd, mmd (the 'clean' rows keep their error;
    rows without a family, from older runs, count as 'powerset')."""
    cols = [c for c in ("error", "msd", "mmd") if c in df]
    if "family" in df:
        df = df.assign(family=df["family"].fillna("powerset"))
    keys = [k for k in ("scheme", "family", "n_ops", "corruption") if k in df]
    return df.groupby(keys, sort=False, dropna=False)[cols].mean().reset_index()


def inclusion_effect(df, op: str, corruption: str) -> dict:
    """Fig. 4: mean MSD and error on ``corruption`` of schemes that include base op ``op`` vs schemes that
    do not (severity-averaged).

    Returns
    -------
    dict with msd_with, msd_without, error_with, error_without, n_with, n_without (NaN where a group is
    empty)
    """
    if op not in aug.BASE_OPS:
        raise ValueError(f"op must be one of {', '.join(aug.BASE_OPS)}, got {op!r}.")
    avg = average_over_severities(df)
    avg = avg[avg["corruption"] == corruption]
    if "family" in avg:
        avg = avg[avg["family"] == "powerset"]
    if avg.empty:
        raise ValueError(f"no rows for corruption {corruption!r}; valid: {sorted(set(df['corruption']))}.")
    has = avg["scheme"].map(lambda s: op in aug.parse_scheme(s))
    out = {}
    for label, sel in (("with", has), ("without", ~has)):
        g = avg[sel]
        out[f"msd_{label}"] = float(g["msd"].mean()) if len(g) else float("nan")
        out[f"error_{label}"] = float(g["error"].mean()) if len(g) else float("nan")
        out[f"n_{label}"] = int(len(g))
    return out


# --------------------------------------------------------------------------------------------------
# notebook 03: grid cells, result tables and the quantities its claims are judged on
# --------------------------------------------------------------------------------------------------


def _check_seed(seed, name: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r}.")
    return int(seed)


def toy_cells(fractions, seed: int) -> list[dict]:
    """Grid cells of the Fig. 2b toy: one per impulse-noise fraction, ``{"fraction", "seed"}``.

    Cell ``i`` gets seed ``1000·seed + 700 + i`` (kept apart from the powerset cells' ``1000·seed + 0..599``).
    """
    seed = _check_seed(seed)
    fractions = [float(p) for p in fractions]
    bad = [p for p in fractions if not 0.0 <= p <= 1.0]
    if bad:
        raise ValueError(f"fractions must lie in [0, 1], got {bad}.")
    return [{"fraction": p, "seed": seed * 1000 + 700 + i} for i, p in enumerate(fractions)]


def powerset_cells(schemes, methods, seed: int) -> list[dict]:
    """Grid cells of Sec. 4: one per powerset scheme, then one per published method, ``{"scheme", "seed"}``.

    A scheme's seed is ``1000·seed + its index in the 512-scheme powerset``, so a scheme's result does not
    depend on which other schemes run; method ``i`` gets ``1000·seed + 600 + i``. ``methods`` are names of
    :data:`METHODS` (AugMix is the full nine-op scheme and normally comes with the powerset).
    """
    seed = _check_seed(seed)
    all_schemes = aug.powerset_schemes()
    parsed = [aug.parse_scheme(s) for s in schemes]
    methods = [str(m) for m in methods]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; valid: {', '.join(METHODS)}.")
    cells = [{"scheme": aug.scheme_name(s), "seed": seed * 1000 + all_schemes.index(s)} for s in parsed]
    cells += [{"scheme": m, "seed": seed * 1000 + 600 + i} for i, m in enumerate(methods)]
    return cells


def toy_table(distances, runs, corruption: str = "impulse_noise") -> "pandas.DataFrame":  # noqa: F821
    """Fig. 2b table: per mixing fraction the MMD/MSD to ``corruption`` and the error on it.

    Parameters
    ----------
    distances : DataFrame or rows with fraction, mmd, msd (from :func:`toy_distances`)
    runs : DataFrame with fraction, corruption, error (rows of :func:`toy_mixture_cell`; the error is
        averaged over severities and repeated cells of the same fraction)
    corruption : the target corruption

    Returns
    -------
    DataFrame with columns fraction, mmd, msd, error_<corruption> (errors as fractions in [0, 1]); one
    row per fraction present in both inputs, in the order of ``distances``.
    """
    import pandas as pd

    dist = _check_frame(pd.DataFrame(distances), ("fraction", "mmd", "msd"), "distances")
    runs = _check_frame(runs, ("fraction", "corruption", "error"), "runs")
    sel = runs[runs["corruption"] == corruption]
    if sel.empty:
        raise ValueError(f"runs has no rows for corruption {corruption!r}; it has "
                         f"{sorted(set(runs['corruption']))}.")
    err = sel.groupby("fraction")["error"].mean().rename(f"error_{corruption}").reset_index()
    return dist.merge(err, on="fraction")


def spearman_summary(rho, threshold: float = PAPER_SPEARMAN_THRESHOLD) -> dict:
    """Sec. 4.2 / App. B in numbers, from :func:`spearman_table`.

    Returns
    -------
    dict with n_above (corruptions whose Spearman(MSD, error) exceeds ``threshold``; NaN counts as not
    above), n_corruptions, median_rho_msd and median_rho_mmd (medians over corruptions, NaN skipped).
    """
    rho = _check_frame(rho, ("rho_msd", "rho_mmd"), "rho")
    return {"n_above": int((rho["rho_msd"] > threshold).sum()), "n_corruptions": int(len(rho)),
            "median_rho_msd": float(rho["rho_msd"].median()), "median_rho_mmd": float(rho["rho_mmd"].median())}


def inclusion_effects(df, ops=("solarize", "translate_x"),
                      corruptions=("impulse_noise", "motion_blur")) -> "pandas.DataFrame":  # noqa: F821
    """Fig. 4 table: :func:`inclusion_effect` for every (op, corruption) pair, op-major.

    Returns
    -------
    DataFrame with columns op, corruption, msd_with, error_with, n_with, msd_without, error_without,
    n_without (feature units and error fractions; NaN where a group is empty).
    """
    import pandas as pd

    return pd.DataFrame([{"op": op, "corruption": c, **inclusion_effect(df, op, c)}
                         for op in ops for c in corruptions])


def relative_msd_reduction(msd_with, msd_without) -> float:
    """How much including an op lowers the mean MSD, relative to schemes without it:
    ``(msd_without − msd_with) / msd_without`` (positive = closer). NaN when ``msd_without`` is 0 or NaN,
    where no relative change is defined."""
    with_, without = float(msd_with), float(msd_without)
    if not np.isfinite(without) or without == 0.0:
        return float("nan")
    return (without - with_) / without


def single_op_table(avg, corruption: str = "motion_blur") -> "pandas.DataFrame":  # noqa: F821
    """Fig. 1 table: the empty and the single-op powerset schemes on ``corruption``.

    Parameters
    ----------
    avg : DataFrame from :func:`average_over_severities` (scheme, family, n_ops, corruption, error, msd, …)

    Returns
    -------
    the matching rows of ``avg`` (powerset family, ``n_ops <= 1``) with an added column ``kind``:
    "baseline" for the empty scheme, else the op's kind ("color" or "geometric").
    """
    avg = _check_frame(avg, ("scheme", "family", "n_ops", "corruption", "error"), "avg")
    power = avg[avg["family"] == "powerset"]
    single = power[(power["corruption"] == corruption) & (power["n_ops"] <= 1)].copy()
    single["kind"] = single["scheme"].map(lambda s: "baseline" if s == "none" else aug.OPS[s].kind)
    return single


def mean_error_by_kind(single) -> dict:
    """Mean error of the rows of :func:`single_op_table` per kind: {"geometric", "color", "baseline"}
    (NaN for a kind without rows)."""
    single = _check_frame(single, ("kind", "error"), "single")
    return {k: single[single["kind"] == k]["error"].mean() for k in ("geometric", "color", "baseline")}


def toy_landmarks(toy, corruption: str = "impulse_noise") -> dict:
    """The rows of the Fig. 2b table that its claims compare, after sorting by fraction.

    Returns
    -------
    dict with ``far`` (the smallest fraction, normally 0), ``small`` (the smallest fraction > 0), ``near``
    (the largest fraction, normally 1) as Series, and ``mmd_linearity``: the Pearson correlation of fraction
    and MMD over all rows (−1 = MMD falls exactly linearly with the fraction).
    """
    toy = _check_frame(toy, ("fraction", "mmd", "msd", f"error_{corruption}"), "toy").sort_values("fraction")
    positive = toy[toy["fraction"] > 0]
    if len(toy) < 2 or positive.empty:
        raise ValueError("the Fig. 2b table needs at least two fractions, one of them > 0; got "
                         f"{list(toy['fraction'])}.")
    return {"far": toy.iloc[0], "small": positive.iloc[0], "near": toy.iloc[-1],
            "mmd_linearity": float(np.corrcoef(toy["fraction"], toy["mmd"])[0, 1])}


def method_vs_powerset_median(avg, method: str, corruption: str) -> tuple[float, float]:
    """Fig. 5: MSD of a published ``method`` to ``corruption`` and the median MSD of the powerset schemes.

    ``avg`` from :func:`average_over_severities`. Returns ``(method_msd, powerset_median)``; the method's
    MSD is NaN when it did not run.
    """
    avg = _check_frame(avg, ("scheme", "family", "corruption", "msd"), "avg")
    at = avg[avg["corruption"] == corruption]
    m = at[(at["family"] == "method") & (at["scheme"] == method)]["msd"]
    ref = at[at["family"] == "powerset"]["msd"].median()
    return (float(m.iloc[0]) if len(m) else float("nan")), float(ref)
