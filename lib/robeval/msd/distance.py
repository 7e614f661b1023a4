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

The experiments built on these distances are in :mod:`robeval.msd.powerset` and :mod:`robeval.msd.cbar`.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real

import numpy as np

from robeval.core.frames import check_unmasked
from robeval.core.images import to_nchw, to_nhwc
from robeval.core.seeding import as_generator, keyed
from robeval.core.validation import (
    check_exact_integers,
    check_images,
    check_no_bools,
    check_numbers,
    is_torch_tensor,
    to_numpy,
)
from robeval.transforms import augmentations as aug
from robeval.transforms.corruptions import ALL_CORRUPTIONS, VARIANTS
from robeval.transforms.corruptions.common import check_severity


# distances
def _check_feats(a, name: str) -> np.ndarray:
    """``a`` as a float64 (n_samples, D) array (a 1-D array is one sample); TypeError naming ``name`` for anything
    that is no real number (text, which ``float()`` would parse; ``None``; booleans; a numpy masked array) and for
    rows numpy cannot stack (not numpy's message), ValueError for complex values (their imaginary part would be
    dropped), a wrong shape or a NaN / infinite value."""
    example = "a (n_samples, D) float array of transform features"
    check_no_bools(a, name, example=example)
    check_unmasked(a, name)  # np.asarray drops a mask: masked samples would count like the others
    if is_torch_tensor(a):  # read detached (one requiring grad would fail in np.asarray), as to_numpy does elsewhere
        a = to_numpy(a)
    if np.iscomplexobj(a):
        raise ValueError(
            f"{name} must be real-valued features, got complex values (dtype {np.asarray(a).dtype}); their imaginary "
            "part would be dropped in silence. Pass the real features (e.g. np.abs or .real, as you intend)."
        )
    try:
        arr = check_numbers(a, name, example=example)
    except ValueError:  # rows of different lengths
        raise TypeError(f"{name} must be a numeric (n_samples, D) feature array, got {a!r:.60}.") from None
    check_exact_integers(a, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(
            f"{name} must be a (n_samples, D) feature array with n_samples >= 1, got shape "
            f"{np.shape(a)}; stack one transform feature per row."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; check the feature extractor.")
    return arr


def _check_2d(a, name: str) -> None:
    """ValueError for a 1-D feature array: it reads as n samples of one feature or one sample of n features, and
    the two give different distances."""
    if np.ndim(a) == 1:
        n = np.shape(a)[0]
        raise ValueError(
            f"{name} has shape ({n},), which reads two ways; pass {name}[:, None] (or .reshape(-1, 1)) for {n} "
            f"samples of one scalar feature, or {name}[None] for one sample of {n} features."
        )


def _check_pair(aug_feats, corr_feats):
    """Both sample sets as (n_samples, D) arrays of one D (1-D arrays refused, see :func:`_check_2d`)."""
    _check_2d(aug_feats, "aug_feats")
    _check_2d(corr_feats, "corr_feats")
    _check_same_columns(aug_feats, corr_feats)
    a = _check_feats(aug_feats, "aug_feats")
    c = _check_feats(corr_feats, "corr_feats")
    if a.shape[1] != c.shape[1]:
        raise ValueError(
            f"aug_feats and corr_feats have different feature sizes ({a.shape[1]} vs "
            f"{c.shape[1]}); compute both with the same feature extractor."
        )
    return a, c


def _check_same_columns(aug_feats, corr_feats, second: str = "corr_feats") -> None:
    """ValueError when both feature sets are DataFrames whose columns differ (other names, or the same names in
    another order): the distance pairs features by position, so it would compare different features. ``second``
    names the second argument in the message."""
    import pandas as pd

    if not (isinstance(aug_feats, pd.DataFrame) and isinstance(corr_feats, pd.DataFrame)):
        return
    if aug_feats.columns.equals(corr_feats.columns):
        return

    def shown(cols) -> str:
        return "[" + ", ".join(repr(v) for v in cols[:4]) + (", ...]" if len(cols) > 4 else "]")

    raise ValueError(
        f"aug_feats and {second} are DataFrames with different columns (aug_feats: {shown(aug_feats.columns)}, "
        f"{second}: {shown(corr_feats.columns)}); features are paired by position, which would compare different "
        f"features. Put them in one order ({second} = {second}[aug_feats.columns]) or pass arrays."
    )


def _finite_distance(value, what: str, a: np.ndarray, c: np.ndarray, second: str = "corr_feats"):
    """``value`` unchanged when every distance in it is finite; else ValueError: the features are finite (checked),
    so float64 overflowed in the squares of the norm."""
    if np.all(np.isfinite(value)):
        return value
    top = max(float(np.abs(a).max()), float(np.abs(c).max()))
    raise ValueError(
        f"{what} is not finite although aug_feats and {second} are: features as large as {top:.3g} overflow float64 "
        f"in the squared norm. Scale both feature arrays by one factor first (e.g. divide both by {top:.3g}) and "
        "multiply the distance back."
    )


def _tiny_exponent(*arrays: np.ndarray) -> int:
    """The power of two that brings the largest absolute feature of ``arrays`` into [0.5, 1) when it is below 2**-400
    (where the squares of a distance underflow float64 and it would read 0), else 0: a distance is computed on the
    features times ``2**k`` and multiplied back by ``2**-k``, which changes no bit of a distance that does not
    underflow."""
    top = max(float(np.abs(x).max()) for x in arrays)
    return -int(np.frexp(top)[1]) if 0.0 < top < 2.0**-400 else 0


def mmd(aug_feats, corr_feats) -> float:
    """Distance between the mean transform features of two sample sets (the paper's "MMD").

    Parameters
    ----------
    aug_feats : float array (K, D)   transform features f(a_k) of augmentation samples
    corr_feats : float array (M, D)  transform features f(c_m) of corruption samples
        A 1-D array is refused (ValueError): pass ``x[:, None]`` for n scalar features, ``x[None]`` for one sample.

    Returns
    -------
    float  ``|| mean_k f(a_k) - mean_m f(c_m) ||_2`` in feature units. ValueError when it overflows float64
    (features near 1e154 or larger): scale the features first, and when both are DataFrames with different columns
    (paired by position, they would compare different features).
    """
    a, c = _check_pair(aug_feats, corr_feats)
    k = _tiny_exponent(a, c)
    if k:
        return float(np.ldexp(mmd(np.ldexp(a, k), np.ldexp(c, k)), -k))
    return _finite_distance(float(np.linalg.norm(a.mean(0) - c.mean(0))), "mmd", a, c)


def msd(aug_feats, corr_feats) -> float:
    """Minimal Sample Distance: L2 distance from the mean corruption feature to the nearest augmentation
    sample, ``min_k || f(a_k) - mean_m f(c_m) ||_2``.

    Parameters
    ----------
    aug_feats : float array (K, D);  corr_feats : float array (M, D)
        A 1-D array is refused (ValueError): pass ``x[:, None]`` for n scalar features, ``x[None]`` for one sample.

    Returns
    -------
    float (feature units). ValueError when it overflows float64 (features near 1e154 or larger): scale the features
    first, and when both are DataFrames with different columns (paired by position, they would compare different
    features). A numpy masked array is refused (TypeError: its masked samples would count like the others).
    """
    a, c = _check_pair(aug_feats, corr_feats)
    k = _tiny_exponent(a, c)
    if k:
        return float(np.ldexp(msd(np.ldexp(a, k), np.ldexp(c, k)), -k))
    return _finite_distance(float(np.min(np.linalg.norm(a - c.mean(0), axis=1))), "msd", a, c)


def _sq_dists(a: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(K, L) squared distances, computed as |a|^2 - 2 a.c + |c|^2 (one matrix product)."""
    d = (a * a).sum(1)[:, None] - 2.0 * a @ centres.T + (centres * centres).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _check_many(aug_feats, corr_means):
    """:func:`_check_pair` for the ``*_many`` functions, whose second argument is ``corr_means``."""
    _check_same_columns(aug_feats, corr_means, "corr_means")
    a = _check_feats(aug_feats, "aug_feats")
    c = _check_feats(corr_means, "corr_means")
    if a.shape[1] != c.shape[1]:
        raise ValueError(
            f"aug_feats and corr_means have different feature sizes ({a.shape[1]} vs {c.shape[1]}); compute both "
            "with the same feature extractor."
        )
    return a, c


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
    a, c = _check_many(aug_feats, corr_means)
    k = _tiny_exponent(a, c)
    if k:
        return np.ldexp(msd_many(np.ldexp(a, k), np.ldexp(c, k)), -k)
    # the nearest sample of each chunk by one matrix product, on features centred on the samples' mean (a large
    # common offset would cancel every digit of |a|^2 - 2 a.c + |c|^2), then its distance as msd computes it
    shift = a.mean(0)
    best = np.full(len(c), np.inf)
    for start in range(0, len(a), 8192):  # chunked so 100k samples stay within memory
        chunk = a[start : start + 8192]
        nearest = chunk[_sq_dists(chunk - shift, c - shift).argmin(0)]
        best = np.minimum(best, np.linalg.norm(nearest - c, axis=1))
    return _finite_distance(best, "msd_many", a, c, "corr_means")


def mmd_many(aug_feats, corr_means) -> np.ndarray:
    """MMD from one augmentation sample set to many corruption means: (L,) float64."""
    a, c = _check_many(aug_feats, corr_means)
    k = _tiny_exponent(a, c)
    if k:
        return np.ldexp(mmd_many(np.ldexp(a, k), np.ldexp(c, k)), -k)
    return _finite_distance(np.linalg.norm(c - a.mean(0)[None, :], axis=1), "mmd_many", a, c, "corr_means")


# transform features
def model_feature_fn(model, *, batch_size: int = 500, device=None) -> Callable[[np.ndarray], np.ndarray]:
    """Wrap a :mod:`robeval.core.nn.models` network as ``feature_fn(images uint8 (N, H, W, C)) -> (N, D)`` float64
    returning the penultimate layer ``model.features`` (computed in eval mode; the model's own train/eval mode is
    restored after each call). ``device``: a torch device this machine can use (None: the model's own), checked
    here; images of another dtype than uint8 (floats in 0..255 or in [0, 1]) are refused, not guessed at."""
    import torch

    from robeval.core.env import usable_device
    from robeval.core.nn.training import extract_features
    from robeval.core.validation import check_images, check_positive

    if not hasattr(model, "features"):
        raise ValueError("model has no .features(x) method; build it with robeval.core.nn.models.build(...).")
    check_positive(batch_size, "batch_size", integer=True)
    if device is not None:
        device = usable_device(device)
    dtypes = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if dtypes - {torch.float32}:
        raise ValueError(
            f"model's parameters are {', '.join(sorted(str(d) for d in dtypes))}, but model_feature_fn feeds it "
            "float32 images; convert it with model.float() first."
        )

    def feature_fn(images: np.ndarray) -> np.ndarray:
        x = to_nchw(check_images(images))
        was_training = model.training
        try:
            return extract_features(model, x, batch_size=batch_size, device=device).astype(np.float64)
        finally:
            model.train(was_training)

    return feature_fn


def _image_features(feature_fn, images: np.ndarray, n: int, width: int | None = None) -> np.ndarray:
    """``feature_fn(images)`` as a float64 (n, D) array; ValueError naming ``feature_fn`` for another shape, for
    values that are not numbers, or for a D other than ``width`` (the D of its earlier calls)."""
    raw = feature_fn(images)
    try:
        kind = np.asarray(raw).dtype.kind
        feats = np.asarray(raw, dtype=np.float64) if kind in "biuf" else None
    except (ValueError, TypeError):  # ragged rows
        kind, feats = "O", None
    if feats is None:
        raise ValueError(
            f"feature_fn must return numbers, one row of D floats per image; got {type(raw).__name__} of "
            f"{'text' if kind in 'US' else 'objects or rows of different lengths'}. Return the (N, D) features "
            "(e.g. a network's penultimate layer, model_feature_fn)."
        )
    if feats.ndim != 2 or feats.shape[0] != n or feats.shape[1] < 1:
        raise ValueError(
            f"feature_fn must return one feature row per image, shape ({n}, D), for {n} images; got shape "
            f"{feats.shape}. Return the (N, D) features (e.g. a network's penultimate layer, model_feature_fn)."
        )
    if width is not None and feats.shape[1] != width:
        raise ValueError(
            f"feature_fn returned {feats.shape[1]} features per image, {width} in its earlier calls; it must give "
            "the same D on every call (one fixed feature extractor)."
        )
    return feats


def _check_callable(fn, name: str, form: str) -> None:
    """TypeError naming ``name`` unless ``fn`` is callable: checked on entry, not at the first call in a loop."""
    if not callable(fn):
        raise TypeError(f"{name} must be a function, callable as {form}; got {type(fn).__name__} {fn!r:.60}.")


_CORRUPT_FN = "corrupt_fn(images, name, severity, seed=...) -> uint8 images (or None for robeval's corrupt)"


def _checked_output(out, images: np.ndarray, who: str) -> np.ndarray:
    """``out``, what ``who`` returned for ``images``, as an array; ValueError naming ``who`` unless it is uint8 with
    the shape of ``images`` (one image per input)."""
    arr = np.asarray(out)
    if arr.shape != images.shape or arr.dtype != np.uint8:
        raise ValueError(
            f"{who} must return a uint8 array with the shape of its input, one image per input; got {arr.dtype} "
            f"{arr.shape} for input {images.dtype} {images.shape}."
        )
    return arr


def transform_features(
    feature_fn: Callable,
    images,
    transform: Callable,
    rng: np.random.Generator,
    n_samples: int,
    *,
    batch_size: int = 1000,
    progress: bool = False,
    desc: str = "transform features",
) -> np.ndarray:
    """Transform features ``f(t_k) = mean_x f_hat(t_k(x)) - mean_x f_hat(x)`` of ``n_samples`` instances.

    Parameters
    ----------
    feature_fn : callable(uint8 (N, H, W, C)) -> float (N, D)   image feature extractor f_hat
        one feature row per image (another shape: ValueError naming ``feature_fn``)
    images : uint8 array (N, H, W, C)   the fixed image sample D_S (paper: 100 images)
    transform : callable(images, rng) -> uint8 (N, H, W, C)
        draws ONE instance of the transform from ``rng`` and applies it to all images
        (see :func:`scheme_transform`, :func:`corruption_transform`). A ``feature_fn`` or ``transform`` that is
        not callable is refused on entry (TypeError naming it); an output of another shape or dtype than the
        input's (an image dropped or added, floats) raises ValueError naming ``transform``.
    rng : numpy Generator
    n_samples : int >= 1   number of transform instances (paper: 100 per corruption, 100k per scheme)
    batch_size : int >= 1   images per feature-extractor call (several instances are stacked)
    progress : bool   show a progress bar (True or False; anything else is refused)

    Returns
    -------
    float64 array (n_samples, D)
    """
    from tqdm.auto import tqdm

    from robeval.core.budgets import check_allocation
    from robeval.core.validation import check_bool, check_positive

    _check_callable(feature_fn, "feature_fn", "feature_fn(images uint8 (N, H, W, C)) -> float (N, D)")
    _check_callable(transform, "transform", "transform(images, rng) -> uint8 images of the input's shape")
    images = check_images(images)
    rng = as_generator(rng, "rng")
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
    check_positive(n_samples, "n_samples", integer=True)
    check_positive(batch_size, "batch_size", integer=True)
    check_bool(progress, "progress")
    n = len(images)
    # every user callable gets its own copy: one that writes into its input never reaches the caller's images
    clean = _image_features(feature_fn, images.copy(), n).mean(0)
    check_allocation(
        (int(n_samples), clean.shape[0]), 8, what="n_samples x D",
        fix="draw fewer instances (the paper uses 100 per corruption), or call in parts and concatenate.",
    )  # fmt: skip
    per_call = max(1, batch_size // n)  # instances per feature-extractor call
    out = np.empty((n_samples, clean.shape[0]))
    with tqdm(total=n_samples, desc=desc, disable=not progress, leave=False) as bar:
        for start in range(0, n_samples, per_call):
            k = min(per_call, n_samples - start)
            batch = np.concatenate(
                [_checked_output(transform(images.copy(), rng), images, "transform") for _ in range(k)]
            )
            feats = _image_features(feature_fn, batch, k * n, clean.shape[0]).reshape(k, n, -1)
            out[start : start + k] = feats.mean(1) - clean
            bar.update(k)
    return out


def scheme_transform(scheme, *, mode: str = "composite", severity: float = 3.0, **kw) -> Callable:
    """Transform for :func:`transform_features`: one sampled instance of an augmentation scheme
    (:func:`robeval.transforms.augmentations.sample_scheme`) applied to all images.

    ``mode``, ``severity`` (AugMix scale, [0.1, 10]) and ``width``, ``max_depth``, ``alpha`` (``**kw``, forwarded
    to :func:`~robeval.transforms.augmentations.apply_scheme`) are checked here, by drawing one instance as
    :func:`~robeval.transforms.augmentations.sample_scheme` does, so a bad value fails when the transform is made,
    not inside a feature loop."""
    scheme = aug.parse_scheme(scheme)
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string naming a compositing mode (e.g. 'composite'), got {mode!r}.")
    if isinstance(severity, (bool, np.bool_)) or not isinstance(severity, (Real, np.floating, np.integer)):
        raise TypeError(f"severity must be a number in [0.1, 10] (AugMix scale; the paper uses 3), got {severity!r}.")
    unknown = sorted(set(kw) - {"width", "max_depth", "alpha"})
    if unknown:
        raise TypeError(
            f"scheme_transform got unknown keyword(s) {unknown}; it takes mode, severity and the scheme's width, "
            "max_depth and alpha (see sample_scheme)."
        )
    # a value out of range: ValueError here, not inside a feature loop
    aug.sample_scheme(scheme, 1, np.random.default_rng(0), mode=mode, severity=severity, **kw)

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
    from robeval.transforms.corruptions import corrupt

    return corrupt


def _check_corruption_name(name, arg: str) -> str:
    """``name`` if :func:`robeval.transforms.corruptions.corrupt` knows it; else ValueError naming ``arg``."""
    known = (*ALL_CORRUPTIONS, *VARIANTS)
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"{arg} must name a corruption of robeval.transforms ({', '.join(known)}), got {name!r}.")
    return name


def _corruption_list(corruptions) -> list:
    """``corruptions`` as a list of distinct names: TypeError naming the first entry that cannot be a name because
    it is unhashable (a list or a dict: numpy or the seeding failed on it deep inside), ValueError naming the names
    listed more than once (each would be computed twice and fill two slices of the result)."""
    from collections import Counter

    from robeval.core.validation import check_sequence

    def check_hashable(values):
        for i, c in enumerate(values):
            try:
                hash(c)
            except TypeError:
                raise TypeError(
                    f"corruptions[{i}] is {type(c).__name__} {c!r:.40}, not a corruption name; pass a flat sequence "
                    "of names, e.g. ['fog', 'snow']."
                ) from None

    check_hashable(corruptions if isinstance(corruptions, (list, tuple)) else ())  # before numpy reads them
    out = check_sequence(corruptions, "corruptions", example="['fog', 'snow']")
    check_hashable(out)  # another container (an object array) holding a list
    repeated = [c for c, k in Counter(out).items() if k > 1]
    if repeated:
        raise ValueError(
            f"corruptions lists {', '.join(repr(c) for c in repeated)} more than once; pass each corruption once (a "
            "repeat would be computed twice and stand twice in the result)."
        )
    return out


def _severity_list(severities, arg: str = "severities") -> list[int]:
    """``severities`` (one level or a sequence of them) as a list of ints in 1..5; else ValueError naming ``arg``."""
    values = np.atleast_1d(np.asarray(severities, dtype=object)).ravel().tolist()
    bad = [
        v for v in values if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 1 <= v <= 5
    ]
    if bad or not values:
        raise ValueError(f"{arg} must be integer benchmark levels in 1..5, got {bad[0] if bad else severities!r}.")
    return [int(v) for v in values]


def corruption_transform(name: str, severity: int, corrupt_fn: Callable | None = None) -> Callable:
    """Transform for :func:`transform_features`: one realisation of corruption ``name`` at ``severity``
    (``corrupt_fn(images, name, severity, seed)``, default :func:`robeval.transforms.corruptions.corrupt`) with a
    seed drawn from the rng. A ``corrupt_fn`` that is not callable is refused here (TypeError naming it); one that
    returns another shape or dtype than its input's raises ValueError naming ``corrupt_fn`` when called."""
    if corrupt_fn is None:
        _check_corruption_name(name, "name")
    else:
        _check_callable(corrupt_fn, "corrupt_fn", _CORRUPT_FN)
    severity = check_severity(severity)
    who = "corrupt_fn" if corrupt_fn is not None else "corrupt"
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn

    def transform(images, rng):
        rng = as_generator(rng, "rng")  # an int seed as scheme_transform's apply_scheme takes it
        out = corrupt_fn(images, name, severity, seed=int(rng.integers(2**31)))
        return _checked_output(out, np.asarray(images), who)

    return transform


_TWICE = "it would be drawn twice as often as the others"


def mixture_transform(names, probs, severities=(1, 2, 3, 4, 5), corrupt_fn: Callable | None = None) -> Callable:
    """Per-image augmentation by a random corruption: image i gets corruption ``names[j]`` with
    probability ``probs[j]`` at a uniformly drawn severity. ``fn(images uint8 NHWC, rng) -> uint8``;
    wrap with :func:`robeval.transforms.augmentations.as_batch_transform` for training (Fig. 2 toy). Every name
    is checked when the transform is made (ValueError naming ``names``) when ``corrupt_fn`` is None; a name or a
    severity listed twice is refused (ValueError): it would be drawn twice as often. A ``corrupt_fn`` that is not
    callable is refused here (TypeError naming it); one that returns another shape or dtype than its input's
    raises ValueError naming ``corrupt_fn`` when called."""
    import math

    from robeval.core.validation import check_distinct, check_sequence

    names = check_distinct(check_sequence(names, "names", example="['fog', 'snow']"), "names", why=_TWICE)
    if corrupt_fn is None:
        for name in names:
            _check_corruption_name(name, "names")
    else:
        _check_callable(corrupt_fn, "corrupt_fn", _CORRUPT_FN)
    who = "corrupt_fn" if corrupt_fn is not None else "corrupt"
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn
    check_unmasked(probs, "probs")  # the masked probabilities would be drawn with, and summed
    probs = np.asarray(probs)
    if probs.dtype.kind not in "iuf":
        raise TypeError(f"probs must be numbers (one probability per name), got {probs.dtype} values.")
    probs = probs.astype(np.float64)
    if (
        len(names) != len(probs)
        or not np.all(np.isfinite(probs))
        or np.any(probs < 0)
        or not np.isclose(probs.sum(), 1.0)
    ):
        raise ValueError("names and probs must have equal length and probs must be finite, >= 0 and sum to 1.")
    if abs(math.fsum(probs) - 1.0) > np.sqrt(np.finfo(np.float64).eps):
        probs = probs / probs.sum()  # within isclose's tolerance but beyond Generator.choice's: normalised
    severities = tuple(check_distinct(_severity_list(severities), "severities", why=_TWICE))

    def fn(images, rng):
        images = check_images(images)
        rng = as_generator(rng, "rng")
        which = rng.choice(len(names), size=len(images), p=probs)
        sev = rng.choice(severities, size=len(images))
        out = images.copy()
        for j, name in enumerate(names):
            for s in severities:
                sel = np.flatnonzero((which == j) & (sev == s))
                if sel.size:
                    part = corrupt_fn(images[sel], name, int(s), seed=int(rng.integers(2**31)))
                    out[sel] = _checked_output(part, images[sel], who)
        return out

    return fn


def sample_feature_images(images_nchw, n: int, seed: int) -> np.ndarray:
    """The fixed image sample D_S: ``n`` images drawn without replacement, returned as uint8 NHWC."""
    images_nchw = np.asarray(images_nchw)
    if n > len(images_nchw):
        raise ValueError(f"cannot draw {n} feature images from {len(images_nchw)}; lower n_feature_images.")
    idx = np.sort(np.random.default_rng(seed).choice(len(images_nchw), size=n, replace=False))
    return to_nhwc(images_nchw[idx])


def _corrupt_instances(images, name: str, severity: int, seeds, corrupt_fn) -> np.ndarray:
    """One task of :func:`corruption_features` in a worker: the instances with the given seeds, concatenated."""
    who = "corrupt_fn" if corrupt_fn is not None else "corrupt"
    corrupt_fn = _default_corrupt() if corrupt_fn is None else corrupt_fn
    return np.concatenate(
        [_checked_output(corrupt_fn(images, name, severity, seed=int(s)), images, who) for s in seeds]
    )


def corruption_features(
    feature_fn: Callable,
    images,
    corruptions,
    severities,
    n_samples: int,
    seed: int,
    *,
    corrupt_fn: Callable | None = None,
    batch_size: int = 1000,
    progress: bool = True,
    n_jobs=1,
    chunk: int | None = None,
) -> np.ndarray:
    """Transform features of ``n_samples`` realisations of every corruption and severity; the realisations of
    (corruption c, severity s) draw from ``keyed(seed, c, s)`` (``seed``: an int or a SeedSequence).

    ``n_jobs`` > 1 corrupts in worker processes (:func:`robeval.core.runs.parallel.imap`), ``chunk`` realisations per
    task (default about eight tasks per process, of 8 to 128 images): the seed of every realisation is drawn here, in the order the
    serial loop draws it, and ``feature_fn`` runs here (on the GPU when it is there) on the same batches, so the
    result is bit-identical for every ``n_jobs`` and ``chunk``. ``corrupt_fn`` must then be picklable.

    ``corruptions`` is a non-empty sequence of distinct corruption names (checked against
    :func:`robeval.transforms.corruptions.corrupt`'s when ``corrupt_fn`` is None; a name listed twice raises
    ValueError naming the repeats, an unhashable entry such as a list TypeError); ``batch_size`` and ``chunk`` are
    integers >= 1, ``n_jobs`` is not 0 (a negative value means all cores, as in joblib) and ``progress`` a bool.
    A ``feature_fn`` or ``corrupt_fn`` that is not callable is refused on entry (TypeError naming it); a
    ``corrupt_fn`` that returns another shape or dtype than its input's raises ValueError naming ``corrupt_fn``.

    Returns
    -------
    float64 array (len(corruptions), len(severities), n_samples, D)
    """
    from tqdm.auto import tqdm

    from robeval.core.runs.parallel import chunk_ranges, default_chunk, imap, resolve_jobs
    from robeval.core.validation import check_bool, check_positive

    out = None
    corruptions = _corruption_list(corruptions)
    if corrupt_fn is None:
        for c in corruptions:
            _check_corruption_name(c, "corruptions")
    else:
        _check_callable(corrupt_fn, "corrupt_fn", _CORRUPT_FN)
    _check_callable(feature_fn, "feature_fn", "feature_fn(images uint8 (N, H, W, C)) -> float (N, D)")
    check_positive(batch_size, "batch_size", integer=True)
    check_bool(progress, "progress")
    if chunk is not None:
        check_positive(chunk, "chunk", integer=True)
    if isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_)) and n_jobs == 0:
        raise ValueError("n_jobs must be >= 1 (worker processes), -1 (all cores) or None; got 0.")
    severities = _severity_list(severities)
    pairs = [(c, s) for c in corruptions for s in severities]
    n_jobs = resolve_jobs(n_jobs)
    if n_jobs > 1 or chunk is not None:
        images = check_images(images)
        if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
        rngs = [np.random.default_rng(keyed(seed, c, int(s))) for c, s in pairs]
        # the seeds corruption_transform draws, one scalar draw per realisation as in the serial loop
        seeds = [[int(rng.integers(2**31)) for _ in range(int(n_samples))] for rng in rngs]
        if chunk is None:
            per = len(images)  # images per realisation: chunks of about 8 to 128 images, as for the test sets
            chunk = default_chunk(len(pairs) * int(n_samples), n_jobs, minimum=-(-8 // per), maximum=max(1, 128 // per))
        ranges = chunk_ranges(int(n_samples), max(1, min(int(chunk), int(n_samples))))
        tasks = [(images, c, int(s), seeds[k][a:b], corrupt_fn) for k, (c, s) in enumerate(pairs) for a, b in ranges]
        results = imap(_corrupt_instances, tasks, n_jobs=n_jobs)
    for k, (c, s) in enumerate(tqdm(pairs, desc="corruption features", disable=not progress)):
        if n_jobs > 1 or chunk is not None:
            rng = rngs[k]
            done = np.concatenate([next(results) for _ in ranges]).reshape((int(n_samples),) + images.shape)
            replay = iter(done)

            def transform(_images, _rng, replay=replay):
                return next(replay)

        else:
            rng = np.random.default_rng(keyed(seed, c, int(s)))
            transform = corruption_transform(c, s, corrupt_fn)
        f = transform_features(feature_fn, images, transform, rng, n_samples, batch_size=batch_size)
        if out is None:
            out = np.empty((len(corruptions), len(severities), n_samples, f.shape[1]))
        elif f.shape[1] != out.shape[3]:
            raise ValueError(
                f"feature_fn returned {f.shape[1]} features per image for {c} at severity {s}, {out.shape[3]} "
                "before; it must give the same D on every call (one fixed feature extractor)."
            )
        out[k // len(severities), k % len(severities)] = f
    return out
