"""Image corruptions of CIFAR-10-C (Hendrycks & Dietterich 2019) and CIFAR-10-C-bar (Mintun et al. 2021).

Public API
----------
- ``C_CORRUPTIONS``: the 15 CIFAR-10-C names in the benchmark's order.
- ``CBAR_CORRUPTIONS``: the 10 CIFAR-10-C-bar names.
- ``CANDIDATE_CORRUPTIONS``: the 30 candidate corruptions of the C-bar construction (the release's
  ``corruption_master_list.csv``; ``pinch_and_twirl`` and ``fish_eye`` are its ``_v2`` entries), the 10
  C-bar corruptions among them.
- ``corrupt(images, name, severity, seed=None)``: one benchmark severity (1..5).
- ``corrupt_with_param(images, name, param, seed=None)``: a raw parameter (continuous magnitude in [0, 10]
  for the C-bar transforms; a published parameter value for the CIFAR-10-C ones).
- ``severity_params(name)``: the five published parameters of ``name``.
- ``generate_dataset(images, labels, names, out_dir, seed)``: write ``<name>.npy`` files in the release layout.

All functions take and return uint8 NHWC batches (N, H, W, 3) — transpose NCHW data with
``x.transpose(0, 2, 3, 1)`` — and are reproducible given ``seed``.
"""
from __future__ import annotations

import zlib
from numbers import Real
from pathlib import Path

import numpy as np

from . import cifar10_c, cifar10_c_bar
from .cifar10_c import C_CORRUPTIONS, CATEGORIES
from .cifar10_c_bar import CANDIDATE_CORRUPTIONS, CBAR_CORRUPTIONS, SCAN_RANGES, scan_levels
from .common import check_images, check_severity, make_rng

__all__ = [
    "C_CORRUPTIONS",
    "CBAR_CORRUPTIONS",
    "CANDIDATE_CORRUPTIONS",
    "ALL_CORRUPTIONS",
    "CATEGORIES",
    "SCAN_RANGES",
    "corrupt",
    "corrupt_with_param",
    "severity_params",
    "scan_levels",
    "generate_dataset",
    "load_dataset",
    "corruption_seed",
]

ALL_CORRUPTIONS: tuple[str, ...] = C_CORRUPTIONS + tuple(c for c in CANDIDATE_CORRUPTIONS if c not in C_CORRUPTIONS)

_FUNCTIONS = {**cifar10_c.FUNCTIONS, **cifar10_c_bar.CANDIDATE_FUNCTIONS}
_PARAMS = {**cifar10_c.PARAMS, **cifar10_c_bar.PARAMS}


def _check_name(name) -> str:
    if name not in _FUNCTIONS:
        raise ValueError(
            f"Unknown corruption {name!r}. Valid names: CIFAR-10-C: {', '.join(C_CORRUPTIONS)}; "
            f"CIFAR-10-C-bar: {', '.join(CBAR_CORRUPTIONS)}; further candidates: "
            f"{', '.join(c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS)}."
        )
    return name


def severity_params(name: str) -> tuple:
    """The five published severity parameters of a benchmark corruption.

    CIFAR-10-C: the per-severity constants of ``make_cifar_c.py`` (floats or tuples). CIFAR-10-C-bar: the
    magnitudes in [0, 10] of ``cifar10_c_bar.csv``. Candidates that are not in either benchmark have no
    published severities; use ``scan_levels(name)`` for their scan.
    """
    _check_name(name)
    if name not in _PARAMS:
        raise ValueError(
            f"{name!r} is a construction candidate without published severities; use scan_levels({name!r}) "
            "for its magnitude range and corrupt_with_param() to apply a magnitude."
        )
    return _PARAMS[name]


def _check_param(name: str, param):
    if name in cifar10_c.PARAMS:
        ref = cifar10_c.PARAMS[name][0]
        if isinstance(ref, tuple):
            if not isinstance(param, (tuple, list, np.ndarray)) or len(param) != len(ref):
                raise ValueError(
                    f"{name} takes a parameter tuple of length {len(ref)} like {ref}; got {param!r}. "
                    f"Published values: {cifar10_c.PARAMS[name]}."
                )
            param = tuple(float(p) for p in param)
            if not all(np.isfinite(param)):
                raise ValueError(f"{name} parameter must be finite, got {param}.")
            return param
        if isinstance(param, bool) or not isinstance(param, Real) or not np.isfinite(param) or param < 0:
            raise ValueError(f"{name} takes one non-negative number like {ref}; got {param!r}.")
        return param
    if isinstance(param, bool) or not isinstance(param, Real) or not 0 <= float(param) <= 10:
        raise ValueError(f"{name} takes a magnitude level in [0, 10] (published: {_PARAMS.get(name)}); got {param!r}.")
    return float(param)


def corrupt_with_param(images, name: str, param, seed=None) -> np.ndarray:
    """Apply corruption ``name`` with a raw parameter.

    Parameters
    ----------
    images : uint8 array (N, H, W, 3)
    name : str
        One of ``ALL_CORRUPTIONS``.
    param : float or tuple
        C-bar transforms and candidates: the magnitude level in [0, 10] (the release's severity value,
        e.g. 0.7 … 4.2 for blue_noise_sample). CIFAR-10-C: a parameter of the same form as
        ``severity_params(name)[k]`` (e.g. 0.08 for gaussian_noise, (0.5, 0.6) for defocus_blur).
    seed : int, numpy Generator or None

    Returns
    -------
    uint8 array (N, H, W, 3)
    """
    _check_name(name)
    images = check_images(images)
    param = _check_param(name, param)
    rng = make_rng(seed)
    out = _FUNCTIONS[name](images, param, rng)
    assert out.shape == images.shape and out.dtype == np.uint8, (name, out.shape, out.dtype)
    return out


def corrupt(images, name: str, severity: int, seed=None) -> np.ndarray:
    """Apply a CIFAR-10-C or CIFAR-10-C-bar corruption at benchmark severity 1..5.

    Parameters
    ----------
    images : uint8 array (N, 32, 32, 3), NHWC, values 0..255
    name : str
        One of ``C_CORRUPTIONS`` or ``CBAR_CORRUPTIONS``.
    severity : int in 1..5
    seed : int, numpy Generator or None
        Random parameters (noise, angles, crops, …) are drawn per image from this generator.

    Returns
    -------
    uint8 array of the same shape.
    """
    _check_name(name)
    severity = check_severity(severity)
    return corrupt_with_param(images, name, severity_params(name)[severity - 1], seed=seed)


def corruption_seed(seed: int, name: str, severity: int, chunk: int = 0) -> np.random.SeedSequence:
    """Independent, order-free seed for one (corruption, severity, chunk) cell of a generated dataset."""
    return np.random.SeedSequence([int(seed), zlib.crc32(name.encode()), int(severity), int(chunk)])


def generate_dataset(images, labels, names, out_dir, seed: int = 0, *, chunk_size: int = 1000,
                     progress: bool = True) -> dict[str, Path]:
    """Write a corrupted copy of a test set in the CIFAR-10-C release layout.

    For every corruption ``<name>.npy`` holds the five severities stacked, uint8 (5N, H, W, 3) (rows
    k·N … (k+1)·N − 1 are severity k+1), and ``labels.npy`` holds the labels repeated 5 times (5N,) uint8.
    Files are written atomically; corruptions whose file already exists with the right shape are skipped,
    so an interrupted run resumes. Randomness is seeded per (corruption, severity, chunk of ``chunk_size``
    images), so files do not depend on which corruptions were generated before.

    Parameters
    ----------
    images : uint8 array (N, H, W, 3)
    labels : int array (N,)
    names : iterable of str (corruption names)
    out_dir : path
    seed : int

    Returns
    -------
    dict name → path of the written (or existing) file, plus ``"labels"``.
    """
    from robeval.io import save_npy

    images = check_images(images)
    labels = np.asarray(labels)
    if labels.ndim != 1 or len(labels) != len(images):
        raise ValueError(f"labels must have shape ({len(images)},), got {labels.shape}.")
    names = [names] if isinstance(names, str) else list(names)
    for name in names:
        severity_params(name)  # validates the name and that it has published severities
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, got {seed!r}.")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    n = len(images)
    expected = (5 * n,) + images.shape[1:]
    paths: dict[str, Path] = {}
    todo = []
    for name in names:
        path = out_dir / f"{name}.npy"
        paths[name] = path
        if path.exists():
            try:
                if np.load(path, mmap_mode="r").shape == expected:
                    continue
            except (ValueError, OSError):
                pass
        todo.append(name)
    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo) * 5 * n, desc="corrupting", unit="img")
    for name in todo:
        out = np.empty(expected, dtype=np.uint8)
        for sev in range(1, 6):
            for k, start in enumerate(range(0, n, chunk_size)):
                stop = min(start + chunk_size, n)
                rng = np.random.default_rng(corruption_seed(seed, name, sev, k))
                out[(sev - 1) * n + start:(sev - 1) * n + stop] = corrupt(images[start:stop], name, sev, seed=rng)
                if bar is not None:
                    bar.update(stop - start)
                    bar.set_postfix_str(f"{name} s{sev}")
        save_npy(paths[name], out)
    if bar is not None:
        bar.close()
    label_path = out_dir / "labels.npy"
    save_npy(label_path, np.tile(labels.astype(np.uint8), 5))
    paths["labels"] = label_path
    return paths


def load_dataset(out_dir, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Read one generated corruption: images uint8 (5, N, H, W, 3) by severity and labels (N,)."""
    out_dir = Path(out_dir)
    path = out_dir / f"{name}.npy"
    if not path.exists():
        raise ValueError(f"{path} does not exist; run generate_dataset(..., names=[{name!r}], out_dir={str(out_dir)!r}).")
    x = np.load(path)
    y = np.load(out_dir / "labels.npy")
    n = len(x) // 5
    return x.reshape((5, n) + x.shape[1:]), y[:n]
