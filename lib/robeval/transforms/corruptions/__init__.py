"""Image corruptions of CIFAR-10-C (Hendrycks & Dietterich 2019) and CIFAR-10-C-bar (Mintun et al. 2021).

Public API
----------
- ``C_CORRUPTIONS``: the 15 CIFAR-10-C names in the benchmark's order.
- ``CBAR_CORRUPTIONS``: the 10 CIFAR-10-C-bar names.
- ``CANDIDATE_CORRUPTIONS``: the 30 candidate corruptions of the C-bar construction (the release's
  ``corruption_master_list.csv``; ``pinch_and_twirl`` and ``fish_eye`` are its ``_v2`` entries), the 10
  C-bar corruptions among them.
- ``VARIANTS``: corruptions outside the benchmarks, applied with published parameters:
  ``glass_blur_true_swap`` (glass blur with a real pixel swap; the released CIFAR-10-C copies, see
  ``cifar10_c.glass_shuffle``).
- ``corrupt(images, name, severity, seed=None, idx=None)``: one benchmark severity (1..5).
- ``corrupt_with_param(images, name, param, seed=None, idx=None)``: a raw parameter (continuous magnitude in
  [0, 10] for the C-bar transforms; a published parameter value for the CIFAR-10-C ones).
- ``severity_params(name)``: the five published parameters of ``name``.
- ``generate_dataset(images, labels, names, out_dir, seed)``: write ``<name>.npy`` files in the release layout.

All functions take and return uint8 NHWC batches (N, 32, 32, 3) — convert NCHW data with
``robeval.core.images.to_nhwc`` — and are reproducible given ``seed``. Randomness is per image: image ``i``
draws from its own stream ``keyed(seed, idx[i])`` (``robeval.core.seeding.keyed``; ``idx`` defaults to
``0 .. N-1``), so results do not depend on how a data set is cut into batches. Only 32x32 images are
accepted (the parameters are CIFAR's; ImageNet-C's are not implemented).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from robeval.core.seeding import keyed
from robeval.core.validation import check_path
from robeval.transforms.corruptions import cifar10_c, cifar10_c_bar
from robeval.transforms.corruptions.cifar10_c import C_CORRUPTIONS, CATEGORIES
from robeval.transforms.corruptions.cifar10_c_bar import (
    CANDIDATE_CORRUPTIONS,
    CBAR_CORRUPTIONS,
    SCAN_RANGES,
    scan_levels,
)
from robeval.transforms.corruptions.common import ImageRNG, SeedRequired, check_images, check_severity

__all__ = [
    "C_CORRUPTIONS",
    "CBAR_CORRUPTIONS",
    "CANDIDATE_CORRUPTIONS",
    "ALL_CORRUPTIONS",
    "VARIANTS",
    "CATEGORIES",
    "SCAN_RANGES",
    "corrupt",
    "corrupt_with_param",
    "severity_params",
    "scan_levels",
    "generate_dataset",
    "is_generated",
    "load_dataset",
    "corruption_seed",
]

ALL_CORRUPTIONS: tuple[str, ...] = C_CORRUPTIONS + tuple(c for c in CANDIDATE_CORRUPTIONS if c not in C_CORRUPTIONS)
VARIANTS: tuple[str, ...] = tuple(cifar10_c.VARIANT_FUNCTIONS)

_FUNCTIONS = {**cifar10_c.FUNCTIONS, **cifar10_c_bar.CANDIDATE_FUNCTIONS, **cifar10_c.VARIANT_FUNCTIONS}
_PARAMS = {**cifar10_c.PARAMS, **cifar10_c_bar.PARAMS, **cifar10_c.VARIANT_PARAMS}
# The form of each corruption's parameter (a variant takes its base corruption's).
_C_PARAMS = {**cifar10_c.PARAMS, **cifar10_c.VARIANT_PARAMS}

# Bump when a change to a corruption or to the seeding changes generated files: generate_dataset then
# regenerates files written by an older version instead of resuming with them.
GENERATOR_VERSION = 2  # 2: per-image streams keyed by dataset index; glass blur copies as the release


def _check_name(name) -> str:
    if not isinstance(name, str):  # a list would fail as "unhashable type"
        raise TypeError(
            f"name must be one corruption name as text, e.g. 'fog', got {type(name).__name__} {name!r:.60}; call "
            "once per name (generate_dataset takes several names)."
        )
    if name not in _FUNCTIONS:
        raise ValueError(
            f"Unknown corruption name {name!r}. Valid names: CIFAR-10-C: {', '.join(C_CORRUPTIONS)}; "
            f"CIFAR-10-C-bar: {', '.join(CBAR_CORRUPTIONS)}; further candidates: "
            f"{', '.join(c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS)}; variants: "
            f"{', '.join(VARIANTS)}."
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


PARAM_BOUND = 10  # a CIFAR-10-C parameter may reach this multiple of the largest published value of its component


def _check_bound(name: str, param: tuple) -> None:
    """ValueError when a component of a CIFAR-10-C parameter exceeds :data:`PARAM_BOUND` times the largest published
    value of that component: such a value corrupts nothing more on a 32x32 image, but a blur kernel built from it
    (e.g. a defocus radius of 1e5) would need hundreds of GiB."""
    published = [p if isinstance(p, tuple) else (p,) for p in _C_PARAMS[name]]
    for i, v in enumerate(param):
        top = max(1.0, max(abs(float(p[i])) for p in published))
        if abs(v) > PARAM_BOUND * top:
            raise ValueError(
                f"param {param} of {name} has component {i} = {v:g}, more than {PARAM_BOUND} x the largest published "
                f"value ({top:g}): that would build kernels or masks far larger than a 32x32 image (or run out of "
                f"memory). Pass |value| <= {PARAM_BOUND * top:g}; published parameters: {_C_PARAMS[name]}."
            )


def _check_domain(name: str, param) -> None:
    """ValueError naming ``param`` when a single-number CIFAR-10-C parameter (already finite and >= 0) lies outside
    what its corruption means: a photon count of 0 (every image black: 0 / 0), a share of replaced values above 1, a
    JPEG quality that is not a whole number in 1..100 (PIL truncates a fraction and clamps the rest)."""
    why = None
    if name == "shot_noise" and param <= 0:
        why = "a Poisson photon count > 0 (0 photons would divide by zero: black images)"
    elif name == "impulse_noise" and param > 1:
        why = "the share of values replaced by salt or pepper, in [0, 1]"
    elif name == "jpeg_compression" and (param != int(param) or not 1 <= param <= 100):
        why = "a JPEG quality, a whole number in 1..100 (PIL truncates a fraction and clamps the rest)"
    if why:
        raise ValueError(f"param of {name} is {why}; got {param!r}. Published values: {_C_PARAMS[name]}.")


# Components a corruption divides by, or zooms by, named for the message: (index, name, smallest value or None for
# "> 0"). A zero sigma makes a NaN kernel (black images), a zoom factor below 1 crops outside the image.
_DIVISORS = {
    "defocus_blur": ((1, "alias blur", None),),
    "motion_blur": ((1, "sigma", None),),
    "zoom_blur": ((0, "first zoom factor", 1.0), (2, "zoom step", None)),
    "snow": ((2, "zoom factor", 1.0), (5, "motion-blur sigma", None)),
    "fog": ((1, "decay", None),),
}
TINY_SIGMA = 1e-150  # below it 2 * sigma**2 underflows to 0 (a NaN kernel); from below 0.1 a sigma blurs nothing


def _check_divisors(name: str, param: tuple) -> None:
    """ValueError naming the component of a tuple parameter (already finite and >= 0) that its corruption divides
    or zooms by when it is 0 (or below 1 for a zoom factor): such a value gave black images or an OverflowError."""
    for i, label, low in _DIVISORS.get(name, ()):
        v = param[i]
        if low is None and v > 0 and "sigma" in label and v < TINY_SIGMA:
            why = f">= {TINY_SIGMA:g} (a smaller one underflows; any sigma below 0.1 already blurs nothing)"
        elif (low is None and v <= 0) or (low is not None and v < low):
            why = "> 0" if low is None else f">= {low:g} (a zoom into the image)"
        else:
            continue
        raise ValueError(
            f"{name}'s {label} (component {i} of param {param}) must be {why}, got {v:g}. Published values: "
            f"{_C_PARAMS[name]}."
        )


def _check_param(name: str, param):
    if name in _C_PARAMS:
        ref = _C_PARAMS[name][0]
        if isinstance(ref, tuple):
            if not isinstance(param, (tuple, list, np.ndarray)) or len(param) != len(ref):
                raise ValueError(
                    f"param of {name} must be a tuple of length {len(ref)} like {ref}; got {param!r}. "
                    f"Published values: {_C_PARAMS[name]}."
                )
            try:
                param = tuple(float(p) for p in param)
            except (TypeError, ValueError):
                raise TypeError(
                    f"param of {name} must be a tuple of {len(ref)} numbers like {ref}; got {param!r}."
                ) from None
            if not all(np.isfinite(param)):
                raise ValueError(f"param of {name} must be finite, got {param}.")
            if any(p < 0 for p in param):  # radii, sigmas, weights, zooms, counts: a negative one has no meaning
                raise ValueError(
                    f"param {param} of {name} has a negative component; every component is a size, weight or count "
                    f">= 0. Published values: {_C_PARAMS[name]}."
                )
            _check_divisors(name, param)
            _check_bound(name, param)
            return param
        if isinstance(param, (bool, np.bool_)) or not isinstance(param, Real) or not np.isfinite(param) or param < 0:
            raise ValueError(f"param of {name} must be one finite non-negative number like {ref}; got {param!r}.")
        _check_domain(name, param)
        _check_bound(name, (param,))
        return param
    if isinstance(param, (bool, np.bool_)) or not isinstance(param, Real) or not 0 <= float(param) <= 10:
        raise ValueError(
            f"param of {name} must be a magnitude level in [0, 10] (published: {_PARAMS.get(name)}); got {param!r}."
        )
    return float(param)


def corrupt_with_param(images, name: str, param, seed=None, idx=None) -> np.ndarray:
    """Apply corruption ``name`` with a raw parameter.

    Parameters
    ----------
    images : uint8 array (N, 32, 32, 3), NHWC
    name : str
        One of ``ALL_CORRUPTIONS`` or ``VARIANTS``.
    param : float or tuple
        C-bar transforms and candidates: the magnitude level in [0, 10] (the release's severity value,
        e.g. 0.7 … 4.2 for blue_noise_sample). CIFAR-10-C: a parameter of the same form as
        ``severity_params(name)[k]`` (e.g. 0.08 for gaussian_noise, (0.5, 0.6) for defocus_blur).
    seed : int, numpy SeedSequence or Generator
        Required for the corruptions that draw random numbers (noise, angles, crops, ...); the
        deterministic ones (e.g. contrast) accept ``None``. Never falls back to fresh OS entropy. Image ``i``
        draws from its own stream ``robeval.core.seeding.keyed(seed, idx[i])``; a Generator is first turned
        into a root seed with one draw (so repeated calls with one Generator differ).
    idx : int array (N,), optional
        The images' stream keys, default ``arange(N)``: distinct integers in 0 .. 2**32 - 1 (a repeated key is
        refused: two images would share one noise stream). Pass the images' positions in the data set to make
        results independent of batching: ``corrupt_with_param(x, ..., seed=s)`` equals the concatenation of
        ``corrupt_with_param(x[a:b], ..., seed=s, idx=range(a, b))`` over any split.

    Returns
    -------
    uint8 array (N, 32, 32, 3)
    """
    _check_name(name)
    images = check_images(images)
    param = _check_param(name, param)
    if name == "pixelate" and int(min(images.shape[1:3]) * param) < 1:  # PIL's refusal would not name param
        side = min(images.shape[1:3])
        raise ValueError(
            f"param of pixelate is a down-scaling factor, got {param!r}: {images.shape[1]}x{images.shape[2]} images "
            f"would shrink to less than one pixel. Pass a factor >= 1/{side} ({1 / side:.3g}); published factors: "
            f"{_C_PARAMS['pixelate']}."
        )
    rng = ImageRNG(seed, len(images), idx, what=f"corruption {name!r}")
    try:
        # CIFAR-10-C's raw parameters: a NaN or inf from one is refused, never cast to a black uint8 image
        raw = name in _C_PARAMS
        with np.errstate(divide="raise", over="raise", invalid="raise") if raw else contextlib.nullcontext():
            out = _FUNCTIONS[name](images, param, rng)
    except SeedRequired:  # ImageRNG's own words: this corruption draws random numbers and no seed was given
        raise
    except (ValueError, ArithmeticError, IndexError, MemoryError) as exc:  # a parameter the corruption cannot take
        why = " ".join(str(exc).split())[:120]
        raise ValueError(
            f"param {param!r} of {name} cannot be applied to {images.shape[1]}x{images.shape[2]} images ({type(exc).__name__}: "
            f"{why}); pass a parameter near the published ones: {_C_PARAMS.get(name, _PARAMS.get(name))}."
        ) from None
    assert out.shape == images.shape and out.dtype == np.uint8, (name, out.shape, out.dtype)
    return out


def corrupt(images, name: str, severity: int, seed=None, idx=None, *, layout: str = "NHWC") -> np.ndarray:
    """Apply a CIFAR-10-C or CIFAR-10-C-bar corruption at benchmark severity 1..5.

    Parameters
    ----------
    images : uint8 array (N, 32, 32, 3), NHWC, values 0..255
    name : str
        One of ``C_CORRUPTIONS``, ``CBAR_CORRUPTIONS`` or ``VARIANTS``.
    severity : int in 1..5
    seed : int, numpy SeedSequence or Generator (``None`` only for deterministic corruptions)
        Random parameters (noise, angles, crops, …) are drawn per image, image ``i`` from the stream
        ``robeval.core.seeding.keyed(seed, idx[i])``.
    idx : int array (N,), optional
        Stream keys of the images (default ``arange(N)``), distinct; see :func:`corrupt_with_param`.
    layout : {"NHWC", "NCHW"}
        Layout of ``images`` and of the result. ``"NCHW"`` takes batches as the CIFAR-10 loaders of
        :mod:`robeval.core.data` return them by default (uint8 (N, 3, 32, 32)); the corruption is the same.

    Returns
    -------
    uint8 array of the same shape (and layout).
    """
    from robeval.core.frames import check_unmasked
    from robeval.core.images import LAYOUTS, to_nchw, to_nhwc

    check_unmasked(images, "images")  # a layout change would drop the mask before the images are checked
    if layout not in LAYOUTS:
        raise ValueError(f"Unknown layout {layout!r}; use 'NHWC' (N, H, W, C) or 'NCHW' (N, C, H, W).")
    _check_name(name)
    severity = check_severity(severity)
    if layout == "NCHW":
        out = corrupt_with_param(to_nhwc(images), name, severity_params(name)[severity - 1], seed=seed, idx=idx)
        return to_nchw(out)
    return corrupt_with_param(images, name, severity_params(name)[severity - 1], seed=seed, idx=idx)


def corruption_seed(seed: int, name: str, severity: int) -> np.random.SeedSequence:
    """Root seed of one (corruption, severity) of a generated dataset: ``keyed(seed, name, severity)``.

    Image ``i`` of the dataset is corrupted with ``corrupt(images[i:i+1], name, severity,
    seed=corruption_seed(seed, name, severity), idx=[i])``: files do not depend on the chunk size nor on
    which corruptions were generated before.
    """
    return keyed(int(seed), name, int(severity))


MANIFEST = "corruptions.json"  # written next to the .npy files by generate_dataset


def _check_severities(severities) -> tuple[int, ...]:
    if isinstance(severities, (str, bytes)) or np.ndim(severities) == 0:
        severities = (severities,)
    sev = []
    for s in severities:
        try:
            sev.append(check_severity(s))
        except ValueError:  # its message names `severity`, which generate_dataset does not take
            raise ValueError(
                f"severities must hold the benchmark levels, integers in 1..5 (e.g. (1, 2, 3, 4, 5)); got {s!r}. "
                "For a continuous magnitude use corrupt_with_param(images, name, param)."
            ) from None
    sev = tuple(sev)
    if not sev:
        raise ValueError("severities is empty; pass some of 1..5, e.g. (1, 2, 3, 4, 5).")
    if len(set(sev)) != len(sev):
        raise ValueError(f"severities must not repeat, got {sev}.")
    return sev


def _digest(data) -> str:
    return hashlib.sha256(memoryview(np.ascontiguousarray(data)).cast("B")).hexdigest()


def _npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


MANIFEST_MAX = 16 * 2**20  # bytes of corruptions.json (a few hundred bytes per corruption file)


def _read_manifest_full(out_dir: Path) -> dict:
    """The whole ``corruptions.json`` ({} when missing or unreadable). A FIFO, device or socket (or a link to one)
    or a file over :data:`MANIFEST_MAX` bytes in its place is refused (ValueError naming it), never opened."""
    from robeval.core.io import check_regular_file, read_json

    path = out_dir / MANIFEST
    if path.exists():
        fix = "remove it (generate_dataset writes a JSON file there) or write to another folder"
        check_regular_file(path, "", fix, max_bytes=MANIFEST_MAX)
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_manifest(out_dir: Path) -> dict:
    entries = _read_manifest_full(out_dir).get("corruptions")
    return entries if isinstance(entries, dict) else {}


def _write_manifest(out_dir: Path, entries: dict | None = None, **parts) -> None:
    """Set ``parts`` of ``corruptions.json`` and add ``entries`` to its ``corruptions``, as one read-modify-write
    under a lock on the folder: two runs writing into one folder each keep the other's entries."""
    from robeval.core.io import folder_lock

    with folder_lock(out_dir):
        _update_manifest(out_dir, entries, **parts)


def _update_manifest(out_dir: Path, entries: dict | None = None, **parts) -> None:
    """The read-modify-write of :func:`_write_manifest`, for a caller that holds the folder's lock already."""
    from robeval.core.io import atomic_write_json

    data = _read_manifest_full(out_dir)  # re-read: keep entries of files written meanwhile
    data.update(parts)
    if entries:
        old = data.get("corruptions")
        data["corruptions"] = {**(old if isinstance(old, dict) else {}), **entries}
    if isinstance(data.get("corruptions"), dict):
        data["corruptions"] = dict(sorted(data["corruptions"].items()))
    atomic_write_json(out_dir / MANIFEST, data)


def _stale_temporaries(out_dir: Path, older_than: float = 60.0) -> list[Path]:
    """Temporary files a killed writer of this folder left: ``core.io`` writes ``<file>`` as
    ``.<file>.<8 random characters>.tmp`` (``tempfile.mkstemp``) and renames it. Only those of the files
    :func:`generate_dataset` writes (the manifest, ``labels.npy``, ``<corruption>.npy``) are robeval's; any other
    ``*.tmp`` file is left alone. A temporary written to in the last ``older_than`` seconds is another run's, still
    being written (a file of 150 MB takes about a second), and is left alone too."""
    import time

    own = {MANIFEST, "labels.npy"} | {f"{name}.npy" for name in _PARAMS}
    pattern = re.compile(r"\.(.+)\.[a-z0-9_]{8}\.tmp")
    found = (pattern.fullmatch(p.name) for p in out_dir.glob(".*.tmp"))
    paths = [out_dir / m.group(0) for m in found if m and m.group(1) in own and (out_dir / m.group(0)).is_file()]
    now = time.time()
    return sorted(p for p in paths if now - p.stat().st_mtime > older_than)


def _check_manifest_keys(out_dir: Path, manifest: dict) -> None:
    """ValueError naming ``corruptions.json`` when a key of its ``corruptions`` is not a plain file name in
    ``out_dir`` (empty, or holding a path separator, ``..`` or a NUL: ``"/any/x"`` or ``"../x"`` would name a
    file outside the folder). generate_dataset writes none such; the manifest was edited or comes from elsewhere."""
    entries = manifest.get("corruptions")
    for key in entries if isinstance(entries, dict) else ():
        path = out_dir / f"{key}.npy"
        if not key or any(c in key for c in ("/", "\\", "\0", "..")) or path.parent != out_dir:
            raise ValueError(
                f"{out_dir / MANIFEST} records the corruption {key!r}, which is not the plain name of a file in that "
                "folder (the manifest was edited or comes from elsewhere); nothing is deleted or written: remove "
                "that entry, or write to another folder."
            )


def _output_paths(out_dir: Path) -> list[Path]:
    """The paths robeval writes in a generated folder: the manifest, labels and the file of every corruption robeval
    knows, directly in ``out_dir``; never a file that a key of ``corruptions.json`` names (the manifest is data: a
    key ``"notes"`` or ``"../x"`` must not make a user's file robeval's)."""
    names = set(C_CORRUPTIONS) | set(CBAR_CORRUPTIONS) | set(VARIANTS) | set(_PARAMS)
    return [out_dir / MANIFEST, out_dir / "labels.npy"] + [out_dir / f"{n}.npy" for n in sorted(names)]


def _own_files(out_dir: Path) -> list[Path]:
    """Files of a generated folder that exist (regular files at :func:`_output_paths`)."""
    return [p for p in _output_paths(out_dir) if p.is_file()]


def folder_inputs(images, labels, severities) -> dict:
    """What a generated folder is made from: sha256 of the uint8 images (N, 32, 32, 3) and of the labels as
    uint8 (N,), N, and the severities (``labels.npy`` repeats the labels once per severity). A numpy masked array of
    labels is refused (TypeError naming ``labels``)."""
    from robeval.core.frames import check_unmasked

    images = check_images(images)
    check_unmasked(labels, "labels")
    return {
        "images_sha256": _digest(images),
        "labels_sha256": _digest(np.asarray(labels).astype(np.uint8)),
        "n_images": len(images),
        "severities": list(_check_severities(severities)),
    }


def _folder_manifest(out_dir: Path) -> dict:
    """``corruptions.json`` of ``out_dir`` as :func:`check_folder` judges it ({} when missing): ValueError naming it
    as damaged or not robeval's when it is not readable JSON, not an object, or holds ``inputs``, ``labels`` or
    ``corruptions`` that are not objects (generate_dataset writes none such; nothing is deleted or written)."""
    from robeval.core.io import read_json

    path = out_dir / MANIFEST
    if not path.exists():
        return {}
    _read_manifest_full(out_dir)  # a FIFO, device or folder there, or a file too large: refused by name
    fix = (
        "nothing is deleted or written. Restore it, or move it away if it is not robeval's (or write to another "
        "folder, --out)"
    )
    try:
        data = read_json(path)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise ValueError(
            f"{path} is damaged or not robeval's: it is not a JSON object as generate_dataset writes; {fix}."
        )
    for key in ("inputs", "labels", "corruptions"):
        if key in data and not isinstance(data[key], dict):
            raise ValueError(
                f"{path} is damaged or not robeval's: its {key!r} is {type(data[key]).__name__} "
                f"{data[key]!r:.40}, not a JSON object as generate_dataset writes; {fix}."
            )
    return data


def _recorded_files(out_dir: Path, manifest: dict) -> set[Path]:
    """The files of ``out_dir`` that its ``manifest`` (:func:`_folder_manifest`) records robeval writing: the
    manifest itself, ``labels.npy`` where it records the labels, and the ``<name>.npy`` of each corruption robeval
    knows that it records (a key naming no corruption makes no file robeval's)."""
    if not manifest:
        return set()
    out = {out_dir / MANIFEST}
    labels = manifest.get("labels")
    if isinstance(labels, dict) and labels.get("file") == "labels.npy":
        out.add(out_dir / "labels.npy")
    known = set(C_CORRUPTIONS) | set(CBAR_CORRUPTIONS) | set(VARIANTS) | set(_PARAMS)
    entries = manifest.get("corruptions")
    out |= {out_dir / f"{k}.npy" for k in (entries if isinstance(entries, dict) else ()) if k in known}
    return out


def check_folder(out_dir: Path, inputs: dict, overwrite: bool) -> None:
    """Refuse the folder ``out_dir`` when it holds files made from other ``inputs`` (:func:`folder_inputs`), or empty it
    of them with ``overwrite``: the files its ``corruptions.json`` records robeval writing (:func:`_recorded_files`), no
    other file; :func:`generate_dataset` and ``robeval corrupt`` call it before they skip or write anything. A file with
    one of robeval's output names that no manifest records (e.g. a downloaded CIFAR-10-C release: ``fog.npy``,
    ``labels.npy``) is refused by name even with ``overwrite``, and so is a manifest that is damaged or not robeval's
    (:func:`_folder_manifest`), that is not a regular file, or records a corruption under a key that is not a plain file
    name (ValueError), before anything is deleted; so is a FIFO, socket, device or folder at any path robeval writes
    (``labels.npy``, ``<corruption>.npy``), by name, checked with ``os.stat`` (never opened, and never replaced with a
    regular file)."""
    from robeval.core.io import check_write_target

    manifest = _folder_manifest(out_dir)
    for path in _output_paths(out_dir)[1:]:  # the manifest: refused above, as a file to read
        check_write_target(path, "", "remove it, or write to another folder (--out)")
    _check_manifest_keys(out_dir, manifest)
    own = _own_files(out_dir)
    recorded = manifest.get("inputs")
    if not own or recorded == inputs:
        return
    ours = _recorded_files(out_dir, manifest)
    unrecorded = [p.name for p in own if p not in ours]
    if unrecorded:
        raise ValueError(
            f"{out_dir} holds {', '.join(unrecorded)}, which robeval did not record writing (no corruptions.json "
            f"there records {'it' if len(unrecorded) == 1 else 'them'}); robeval never deletes such files, not even "
            "with --overwrite (overwrite=True), and mixing them would pair images with the wrong labels. Write to "
            "another folder (--out), or remove them yourself if you no longer need them."
        )
    if overwrite:
        for p in own:
            p.unlink()
        return
    if recorded is None:
        why = "files this version did not record (no inputs in corruptions.json)"
    else:
        diff = [k for k in inputs if recorded.get(k) != inputs[k]]
        why = f"corruptions of other inputs ({', '.join(diff)} differ from this run's)"
    raise ValueError(
        f"{out_dir} holds {why}; mixing them would pair images with the wrong labels. Write to another folder, "
        "or pass --overwrite (overwrite=True) to delete them and start the folder afresh."
    )


def _recipe(images: np.ndarray, seed: int, severities: tuple[int, ...], images_digest: str) -> dict:
    return {
        "generator": GENERATOR_VERSION,
        "seed": int(seed),
        "severities": list(severities),
        "shape": [len(severities) * len(images), *images.shape[1:]],
        "images_sha256": images_digest,
    }


def _is_verified(path: Path, entry, recipe: dict) -> bool:
    """A finished file of this recipe: the manifest entry matches and the file's bytes hash to its digest."""
    if not isinstance(entry, dict) or {k: entry.get(k) for k in recipe} != recipe or not path.is_file():
        return False
    try:
        arr = np.load(path, mmap_mode="r")
        if list(arr.shape) != recipe["shape"] or arr.dtype != np.uint8:
            return False
    except (OSError, ValueError):
        return False
    return _file_digest(path) == entry.get("sha256")


def is_generated(out_dir, name: str, images, seed: int, severities=(1, 2, 3, 4, 5)) -> bool:
    """Whether ``out_dir/<name>.npy`` is a finished file of :func:`generate_dataset` for these images, seed and
    severities (recorded in ``corruptions.json`` by this generator version, and its bytes still hash to the
    recorded sha256); such files are skipped on a rerun."""
    images = check_images(images)
    severities = _check_severities(severities)
    out_dir = Path(out_dir)
    recipe = _recipe(images, int(seed), severities, _digest(images))
    return _is_verified(out_dir / f"{name}.npy", _read_manifest(out_dir).get(name), recipe)


def generate_dataset(
    images,
    labels,
    names,
    out_dir,
    seed: int = 0,
    *,
    severities=(1, 2, 3, 4, 5),
    chunk_size: int = 1000,
    progress: bool = True,
    overwrite: bool = False,
) -> dict[str, Path]:
    """Write a corrupted copy of a test set in the CIFAR-10-C release layout.

    For every corruption ``<name>.npy`` holds the chosen severities stacked, uint8 (S·N, 32, 32, 3) (rows
    k·N … (k+1)·N − 1 are ``severities[k]``), and ``labels.npy`` holds the labels repeated S times (S·N,)
    uint8. Image ``i`` of severity ``s`` draws from the stream ``keyed(seed, name, s, i)``, so the files do not
    depend on ``chunk_size`` (which only bounds the memory of one step) nor on the other corruptions.

    Files are written atomically and recorded, with their sha256 and what made them (seed, severities,
    images, generator version), in ``corruptions.json``. A corruption whose file is recorded for the same
    recipe and still hashes to the recorded digest is skipped, so an interrupted run resumes; any other
    existing file (other generator or seed, truncated) is regenerated. The manifest also records the folder's
    inputs (sha256 of the images and of the uint8 labels, N, severities) and the sha256 of ``labels.npy``,
    which is written once. A folder holding files of other inputs is refused (ValueError) unless
    ``overwrite``, which deletes them first: ``corruptions.json``, and the ``labels.npy`` and ``<name>.npy`` (of
    the corruptions robeval knows) that it records, never another file. A file with one of those names that no
    ``corruptions.json`` records (e.g. a downloaded release's ``fog.npy``) is refused by name, with or without
    ``overwrite``. A ``corruptions.json`` that is a FIFO, device or link to one, is damaged or not robeval's (not
    a JSON object, or its ``inputs``, ``labels`` or ``corruptions`` not objects), or records a corruption under a
    key that is not a plain file name (``"../x"``, ``"/any/x"``), is refused (ValueError) before anything is
    deleted, and so is a FIFO, socket, device or folder at ``labels.npy`` or a ``<name>.npy`` (never opened, never
    replaced with a regular file); temporary files a killed run of robeval left (``.<file>.<random>.tmp``
    of the files named above) are removed at the start, and no other file.
    One writer per folder.

    Parameters
    ----------
    images : uint8 array (N, 32, 32, 3)
    labels : int array (N,), values 0..255 (not a numpy masked array)
    names : str or iterable of str (corruption names with published severities), at least one
    out_dir : path
    seed : int
    severities : iterable of int in 1..5 (default all five)
    chunk_size : int, images corrupted per step
    progress : bool, show a progress bar (True or False)
    overwrite : bool, start the folder afresh when it holds files of other inputs (only files its
        corruptions.json records robeval writing are deleted)

    Returns
    -------
    dict name → path of the written (or existing) file, plus ``"labels"``.
    """
    from robeval.core.frames import check_unmasked
    from robeval.core.io import atomic_write_bytes, folder_lock
    from robeval.core.validation import check_bool

    images = check_images(images)
    check_bool(progress, "progress")
    check_unmasked(labels, "labels")  # np.asarray would write the masked labels like any other
    labels = np.asarray(labels)
    if labels.ndim != 1 or len(labels) != len(images):
        raise ValueError(f"labels must have shape ({len(images)},), one per image, got {labels.shape}.")
    if labels.dtype.kind not in "iu" or labels.min() < 0 or labels.max() > 255:
        raise ValueError("labels must be integers in 0..255 (they are stored as uint8, as in the release).")
    names = [names] if isinstance(names, str) else list(dict.fromkeys(names))
    if not names:
        raise ValueError("names is empty; pass at least one corruption name, e.g. ['fog'] (or ALL_CORRUPTIONS).")
    for name in names:
        severity_params(name)  # validates the name and that it has published severities
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}.")
    if isinstance(chunk_size, (bool, np.bool_)) or not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}.")
    severities = _check_severities(severities)
    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite must be True or False, got {overwrite!r}.")
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next(p for p in (out_dir, *out_dir.parents) if p.exists() and not p.is_dir())
        raise ValueError(
            f"out_dir {str(out_dir)!r} cannot be made a folder: {str(blocker)!r} exists and is not a folder; pass "
            "the path of a folder (made if missing) to hold the .npy files."
        ) from None
    for tmp in _stale_temporaries(out_dir):
        tmp.unlink(missing_ok=True)
    n = len(images)
    inputs = folder_inputs(images, labels, severities)
    images_digest = inputs["images_sha256"]
    labels_u8 = labels.astype(np.uint8)
    label_path = out_dir / "labels.npy"
    label_bytes = _npy_bytes(np.tile(labels_u8, len(severities)))
    label_digest = hashlib.sha256(label_bytes).hexdigest()
    # one run at a time checks the folder and records its inputs: between another run's labels.npy and its
    # manifest, the folder would look like files of unrecorded inputs
    with folder_lock(out_dir):
        check_folder(out_dir, inputs, overwrite)
        if not label_path.is_file() or _file_digest(label_path) != label_digest:
            atomic_write_bytes(label_path, label_bytes)
        _update_manifest(out_dir, inputs=inputs, labels={"file": "labels.npy", "sha256": label_digest})
    recipe = _recipe(images, seed, severities, images_digest)
    manifest = _read_manifest(out_dir)
    paths: dict[str, Path] = {name: out_dir / f"{name}.npy" for name in names}
    todo = [name for name in names if not _is_verified(paths[name], manifest.get(name), recipe)]
    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo) * len(severities) * n, desc="corrupting", unit="img")
    for name in todo:
        out = np.empty(tuple(recipe["shape"]), dtype=np.uint8)
        for k, sev in enumerate(severities):
            root = corruption_seed(seed, name, sev)
            for start in range(0, n, chunk_size):
                stop = min(start + chunk_size, n)
                out[k * n + start : k * n + stop] = corrupt(
                    images[start:stop], name, sev, seed=root, idx=np.arange(start, stop)
                )
                if bar is not None:
                    bar.update(stop - start)
                    bar.set_postfix_str(f"{name} s{sev}")
        data = _npy_bytes(out)
        del out
        atomic_write_bytes(paths[name], data)
        _write_manifest(out_dir, entries={name: {**recipe, "sha256": hashlib.sha256(data).hexdigest()}})
    if bar is not None:
        bar.close()
    paths["labels"] = label_path
    return paths


def load_dataset(out_dir, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Read one generated corruption: images uint8 (S, N, 32, 32, 3) by severity and labels (N,).

    S is the number of severities recorded for the file in ``corruptions.json`` (5 when it has no record). A file
    or ``labels.npy`` whose shape or sha256 differs from its record, or labels that do not repeat the same N labels
    once per severity, raise ValueError: the folder was edited, or mixes runs, and would pair images with the
    wrong labels. A FIFO, device or socket (or a link to one) in place of the file, ``labels.npy`` or
    ``corruptions.json`` is refused (ValueError naming it) before it is opened: reading it would block or never end.
    """
    out_dir = check_path(out_dir, "out_dir")
    if not isinstance(name, str) or name not in _PARAMS:
        raise ValueError(
            f"name must be a corruption generate_dataset writes (one with published severities: "
            f"{', '.join(_PARAMS)}), got {name!r}."
        )
    path = out_dir / f"{name}.npy"
    if not path.exists():
        raise ValueError(
            f"{path} does not exist; run generate_dataset(..., names=[{name!r}], out_dir={str(out_dir)!r})."
        )
    from robeval.core.io import check_npy_size, check_regular_file

    manifest = _read_manifest_full(out_dir)
    entry = _read_manifest(out_dir).get(name)
    recorded = isinstance(entry, dict) and bool(entry.get("severities"))
    n_sev = len(entry["severities"]) if recorded else 5
    fix = "generate_dataset writes a .npy file there: remove it and run generate_dataset again (robeval corrupt)"
    for file in (path, out_dir / "labels.npy"):  # a header claiming more than the file holds: refused before np.load
        check_npy_size(check_regular_file(file, "", fix), str(file))
    x = np.load(path)
    y = np.load(out_dir / "labels.npy")
    regenerate = "Regenerate the folder with generate_dataset(..., overwrite=True) (robeval corrupt --overwrite)."
    labels = manifest.get("labels")
    for file, record, shape in ((path, entry, list(x.shape)), (out_dir / "labels.npy", labels, None)):
        if not isinstance(record, dict):
            continue
        if (shape is not None and shape != record.get("shape")) or _file_digest(file) != record.get("sha256"):
            raise ValueError(
                f"{file} is not the file corruptions.json records (its shape or sha256 differs: the folder was "
                f"edited or mixes runs). {regenerate}"
            )
    n = len(x) // n_sev
    if len(x) % n_sev or len(y) != len(x) or not np.array_equal(y, np.tile(y[:n], n_sev)):
        raise ValueError(
            f"{path} holds {len(x)} images and labels.npy {len(y)} labels; expected {n_sev} severities ("
            + (
                f"as corruptions.json records for {name!r}"
                if recorded
                else f"the default: corruptions.json records no severities for {name!r}"
            )
            + f") of N images each and labels.npy repeating the same N labels once per severity. {regenerate}"
        )
    return x.reshape((n_sev, n) + x.shape[1:]), y[:n]
