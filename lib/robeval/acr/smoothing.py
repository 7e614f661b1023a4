"""Randomized smoothing: Cohen et al. (2019) CERTIFY and PREDICT for any torch classifier.

The smoothed classifier is ``g(x) = argmax_c P(f(x + eps) = c)`` with ``eps ~ N(0, sigma^2 I)``.
:class:`Smooth` mirrors the pseudocode of Cohen et al. (2019), Section 3.2:

* ``CERTIFY``: guess the top class ``c_A`` from ``n0`` noise draws, count ``n_A`` hits of ``c_A``
  in ``n`` fresh draws, take the one-sided Clopper--Pearson lower bound ``p_A_lower`` at level
  ``1 - alpha``; abstain when ``p_A_lower < 1/2``, else certify the L2 radius
  ``sigma * Phi^{-1}(p_A_lower)``.
* ``PREDICT``: count the top two classes in ``n`` draws and return the top one only when a
  two-sided binomial test of ``n_1`` vs ``n_1 + n_2`` rejects ``p = 1/2`` at level ``alpha``.

Both are batched across noise draws *and* across images (one forward pass holds draws of several
images), device agnostic, and every image draws its noise from its own stream keyed by ``(seed, image
index)``, so results do not depend on the batch size or the grouping of images; the per-class counting
is one ``scatter_add_`` per forward batch, and nothing is read back to the host before the counts are
complete (no per-batch device synchronisation). :func:`robeval.acr.files.write_certification_tsv` writes results in
the tab-separated format of the published certification files.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy.stats import beta as _beta
from scipy.stats import binom as _binom
from scipy.stats import norm as _norm

from robeval.acr.checks import (
    COHEN_HINT,
    check_alpha,
    check_count,
    check_counts,
    check_num_samples,
    check_sigma,
    check_stream_keys,
)
from robeval.core.budgets import MAX_ARRAY_BYTES, MAX_DRAWS, check_draw_budget
from robeval.core.env import usable_device
from robeval.core.errors import IncompleteResult
from robeval.core.frames import check_unmasked
from robeval.core.seeding import as_seed_sequence, keyed
from robeval.core.validation import (
    as_float_points,
    as_model,
    check_bool,
    check_labels,
    check_no_bools,
    read_output,
)

ABSTAIN = -1
_INT_DTYPES = (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)


def clopper_pearson_lower(n_a, n, alpha) -> np.ndarray:
    """One-sided ``(1 - alpha)`` Clopper--Pearson lower confidence bound on a binomial proportion.

    Equal to ``statsmodels.stats.proportion.proportion_confint(n_a, n, alpha=2 * alpha,
    method="beta")[0]`` (Cohen et al.'s ``lower_confidence_bound``).

    Parameters
    ----------
    n_a : int or array_like of int
        Number of successes, ``0 <= n_a <= n``.
    n : int or array_like of int
        Number of trials (broadcast against ``n_a``), ``>= 1``.
    alpha : float
        One-sided failure probability in (0, 1).

    Returns
    -------
    numpy.ndarray of float64
        Lower bounds in [0, 1], shape of ``broadcast(n_a, n)``. With ``n_a == n`` the bound is ``alpha ** (1 / n)``,
        which float64 rounds to exactly 1.0 once its distance from 1 falls below 2**-54 (from ``n`` of about 1e17
        on at ``alpha = 0.001``): :func:`certified_radius` and :func:`robeval.acr.theory.max_certified_radius` take that distance
        from :func:`full_hit_gap` instead, so their radii stay finite.
    """
    alpha = check_alpha(alpha)
    n_a = check_counts(n_a, "n_a", "successes")
    n = check_counts(n, "n", "trials")
    try:
        np.broadcast_shapes(np.shape(n_a), np.shape(n))
    except ValueError:
        raise ValueError(
            f"n_a and n have shapes {np.shape(n_a)} and {np.shape(n)}, which do not match; pass one n per n_a "
            "(or a single n for all)."
        ) from None
    for name, vals, what in (("n", n, "trials (noise draws), e.g. 100000"), ("n_a", n_a, "successes, 0 <= n_a <= n")):
        if not np.all(np.isfinite(vals)):
            bad = vals[~np.isfinite(vals)].reshape(-1)[0]
            raise ValueError(f"{name} must be finite whole numbers of {what}; got {bad}.")
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError("n must be integers >= 1 (number of trials).")
    if np.any(n_a < 0) or np.any(n_a > n) or np.any(n_a != np.round(n_a)):
        raise ValueError("n_a must be integers with 0 <= n_a <= n (number of successes).")
    n_a, n = np.broadcast_arrays(n_a, n)
    out = np.zeros(n_a.shape, dtype=np.float64)
    pos = n_a > 0
    # Beta(n_a, n - n_a + 1) quantile; with n_a == n this is alpha ** (1 / n), computed stably.
    full = pos & (n_a == n)
    part = pos & ~full
    out[part] = _beta.ppf(alpha, n_a[part], n[part] - n_a[part] + 1)
    out[full] = np.exp(np.log(alpha) / n[full])
    return out if out.ndim else out[()]


def clopper_pearson_upper(n_a, n, alpha) -> np.ndarray:
    """One-sided ``(1 - alpha)`` Clopper--Pearson upper confidence bound (``1 - lower(n - n_a, n)``)."""
    n_a = np.asarray(n_a, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    return 1.0 - clopper_pearson_lower(n - n_a, n, alpha)


def sequential_schedule(n_start: int, n_max: int) -> np.ndarray:
    """Cumulative sample sizes of the sequential test: ``n_start * 2**k`` up to ``n_max`` (included)."""
    n_start = check_num_samples(n_start, "n_start")
    n_max = check_num_samples(n_max, "n_max")
    if n_start > n_max:
        raise ValueError(f"n_start ({n_start}) must be <= n_max ({n_max}).")
    sizes = [n_start]
    while sizes[-1] < n_max:
        sizes.append(min(2 * sizes[-1], n_max))
    return np.asarray(sizes, dtype=np.int64)


def binom_test_two_sided(k, n, p: float = 0.5) -> np.ndarray:
    """Two-sided exact binomial test p-value (as ``scipy.stats.binomtest(k, n, p).pvalue``), vectorised.

    Only ``p = 0.5`` (the case PREDICT needs) is supported: the distribution is symmetric, so the
    two-sided p-value is ``min(1, 2 * P(X <= min(k, n - k)))``.

    Parameters
    ----------
    k, n : array_like of int
        Successes and trials, ``0 <= k <= n``; ``n == 0`` gives p-value 1.

    Returns
    -------
    numpy.ndarray of float64
    """
    if p != 0.5:
        raise ValueError("binom_test_two_sided supports only p=0.5 (the PREDICT test).")
    k = np.asarray(k, dtype=np.int64)
    n = np.asarray(n, dtype=np.int64)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("k must satisfy 0 <= k <= n.")
    tail = np.minimum(k, n - k)
    pv = np.minimum(1.0, 2.0 * _binom.cdf(tail, n, 0.5))
    pv = np.where(n == 0, 1.0, pv)
    # exactly balanced counts: every outcome is at least as extreme -> p-value 1
    pv = np.where(2 * k == n, 1.0, pv)
    return pv if pv.ndim else pv[()]


def radius_from_p_lower(p_lower, sigma) -> np.ndarray:
    """Raw Cohen radius ``sigma * Phi^{-1}(p_lower)`` (negative below 1/2), stable near 1.

    Parameters
    ----------
    p_lower : array_like of float in [0, 1]
    sigma : float > 0

    Returns
    -------
    numpy.ndarray of float64 (input units, L2); ``-inf`` at 0 and ``+inf`` at 1.
    """
    sigma = check_sigma(sigma)
    p = np.asarray(p_lower, dtype=np.float64)
    # isf(1 - p) keeps precision when p = 1 - 1e-9
    z = np.where(p > 0.5, _norm.isf(1.0 - p), _norm.ppf(p))
    out = sigma * z
    return out if np.ndim(out) else float(out)


#: Budgets above which a radius where all ``n`` draws hit is computed from :func:`full_hit_gap` (as
#: :func:`robeval.acr.theory.max_certified_radius` does) rather than from ``1 - alpha ** (1 / n)``, which keeps ever
#: fewer digits (at alpha = 0.001: about 7 of 16 left near 4e9 draws, a radius wrong in its 3rd digit near 1e16) and
#: is 0, an infinite radius, from about 1e17. It lies above MAX_DRAWS (1e9, one CERTIFY call's default budget); up to
#: it the radii are unchanged, bit for bit (the two forms differ in the last digits, 1e-13 relative, at most budgets).
STABLE_FULL_HIT_FROM = 2**32


def full_hit_gap(n, alpha) -> np.ndarray:
    """``1 - alpha ** (1 / n)``, how far below 1 the Clopper-Pearson lower bound lies when all ``n`` draws hit, as
    ``-expm1(ln(alpha) / n)``: accurate to float64 precision for every ``n`` up to 1.8e308 (``n``, ``alpha``
    validated by the caller)."""
    return -np.expm1(np.log(alpha) / np.asarray(n, dtype=np.float64))


def stable_full_hits(radius, n_a, n, alpha, sigma):
    """``radius`` (``radius_from_p_lower(clopper_pearson_lower(n_a, n, alpha), sigma)``, arguments already
    validated) with the entries where all of more than :data:`STABLE_FULL_HIT_FROM` draws hit recomputed as
    ``sigma * Phi^{-1}_upper(full_hit_gap(n, alpha))``; ``radius`` itself when there is none."""
    n_a, n = np.broadcast_arrays(np.asarray(n_a, dtype=np.float64), np.asarray(n, dtype=np.float64))
    huge = (n_a == n) & (n > STABLE_FULL_HIT_FROM)
    if not huge.any():
        return radius
    out = np.array(radius, dtype=np.float64)
    out[huge] = check_sigma(sigma) * _norm.isf(full_hit_gap(n[huge], check_alpha(alpha)))
    return out if out.ndim else float(out)


def certified_radius(n_a, n, alpha, sigma):
    """Cohen et al.'s CERTIFY decision from counts: ``(abstain, radius)``.

    Parameters
    ----------
    n_a : array_like of int
        Hits of the guessed top class among ``n`` draws.
    n : int or array_like of int
        Number of estimation draws ``N``.
    alpha : float
        Failure probability.
    sigma : float
        Noise level.

    Returns
    -------
    abstain : numpy.ndarray of bool
        ``True`` where ``p_A_lower < 1/2``.
    radius : numpy.ndarray of float64
        ``sigma * Phi^{-1}(p_A_lower)`` where certified, 0.0 where abstaining; where all of more than
        :data:`STABLE_FULL_HIT_FROM` draws hit, computed from ``1 - p_A_lower`` (:func:`full_hit_gap`, as
        :func:`robeval.acr.theory.max_certified_radius`), finite for any budget.
    """
    alpha = check_alpha(alpha)
    n_a, n = check_counts(n_a, "n_a", "successes"), check_counts(n, "n", "trials")  # a tensor read once, as its values
    p_lower = np.asarray(clopper_pearson_lower(n_a, n, alpha))
    abstain = p_lower < 0.5
    r = np.asarray(radius_from_p_lower(np.where(abstain, 0.5, p_lower), sigma))
    r = np.asarray(stable_full_hits(r, n_a, n, alpha, sigma))
    return abstain, np.where(abstain, 0.0, r)


@dataclass
class CertifyResult:
    """Per-image output of :meth:`Smooth.certify` (arrays of length ``B``).

    ``prediction`` is ``ABSTAIN`` (-1) where ``p_A_lower < 1/2``; ``radius`` is then 0.0.
    ``time`` is the wall-clock seconds spent per image (the batch time divided evenly).
    """

    prediction: np.ndarray
    radius: np.ndarray
    n_a: np.ndarray
    n: int
    p_a_lower: np.ndarray
    counts0: np.ndarray
    time: np.ndarray


@dataclass
class RadiusResult:
    """Per-image output of :meth:`Smooth.certify_radius` (arrays of length ``B``).

    ``certified`` says whether ``g`` is certified to predict ``prediction`` within L2 radius ``radius``;
    ``prediction`` is the guessed top class (``ABSTAIN`` where not certified); ``n_used`` the estimation draws
    spent on the image (selection draws not included); ``p_a_lower`` the Clopper-Pearson lower bound at the
    stage where the test stopped (at that stage's level).
    """

    prediction: np.ndarray
    certified: np.ndarray
    n_used: np.ndarray
    n_a: np.ndarray
    p_a_lower: np.ndarray
    radius: float
    threshold: float

    def certified_correct(self, labels) -> np.ndarray:
        """Bool (B,): certified at ``radius`` *and* predicting the label (numpy, list or torch-tensor class indices;
        booleans and masked arrays raise TypeError). ``certified_correct(y).mean()`` is the certified accuracy.
        """
        check_no_bools(labels, "labels", example="[0, 2, 1] (class indices 0..num_classes-1)")
        y = check_labels(labels, name="labels", n=len(self.prediction), integer=True)
        return self.certified & (self.prediction == y)


BATCH_SIZE_MEANING = "noisy inputs per forward pass; the results do not depend on it"
NOISE_BLOCK = 100  # draws generated per call from an image's own stream (fixed: results do not depend on batching)
#: Largest forward batch (noisy inputs x input size x 4 bytes) :meth:`Smooth.sample_counts` builds; a larger
#: ``batch_size`` is refused naming it (the allocator's own failure would not), a ``batch_size`` above the draws
#: of a call is cut to them (results do not depend on it).
MAX_BATCH_BYTES = 2**32


def _show_classes(values, k: int = 4) -> str:
    vals = list(dict.fromkeys(np.asarray(values).tolist()))
    return "[" + ", ".join(repr(v) for v in vals[:k]) + (", ...]" if len(vals) > k else "]")


def _restores_mode(method):
    """Run ``method`` and put every submodule of a torch base classifier back in the mode (train / eval) it had:
    CERTIFY and PREDICT evaluate in eval mode, but the caller's model is left as it was given."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        modes = [(m, m.training) for m in self.base_classifier.modules()] if self._model.kind == "torch" else []
        try:
            return method(self, *args, **kwargs)
        finally:
            for m, training in modes:
                m.training = training

    return wrapper


def image_generators(seed, idx, stage: int, device) -> list[torch.Generator]:
    """One torch Generator per image, seeded from ``keyed(seed, idx_i, stage)``: an image's noise depends
    only on the seed, its dataset index and the stage (0 = selection, 1 = estimation), never on which
    images are certified together or on the batch size."""
    out = []
    for i in np.asarray(idx).reshape(-1):
        state = keyed(seed, int(i), int(stage)).generate_state(2, np.uint32)
        out.append(torch.Generator(device=device).manual_seed(int(state[0]) << 32 | int(state[1])))
    return out


class Smooth:
    """A smoothed classifier ``g`` around a base classifier ``f`` (Cohen et al., 2019).

    Parameters
    ----------
    base_classifier : torch.nn.Module, scikit-learn estimator or callable
        A torch module maps a float tensor ``(B, *input_shape)`` to logits ``(B, num_classes)`` (a binary one may
        return one logit column ``(B, 1)``: class = logit > 0); a callable maps a float32 numpy array to the same,
        to one-hot votes or to votes, i.e. integer classes ``(B,)`` in ``[0, num_classes)``; an estimator's ``predict`` gives the votes
        (its classes must be ``0..num_classes-1``). Every batch it returns is checked: one row per input,
        ``num_classes`` finite columns or in-range integer votes; anything else raises ValueError, so a broken
        model is never certified. Noise is added in the classifier's input space (robeval image models:
        pixel space [0, 1]).
    num_classes : int
        Number of classes, 2 .. 2**30 (the int64 vote counts of one input stay within 8 GiB; more raises ValueError).
    sigma : float
        Noise standard deviation (> 0).
    device : str or torch.device, optional
        Where draws are generated and evaluated; default: the device of the model's first parameter
        (CPU for parameter-free models, estimators and plain functions). Checked here: a wrong type raises
        TypeError, a name torch does not know or a device this machine cannot use ValueError.
    """

    ABSTAIN = ABSTAIN

    def __init__(self, base_classifier, num_classes: int, sigma: float, device=None):
        self._model = as_model(base_classifier, name="base_classifier")
        if isinstance(num_classes, (bool, np.bool_)) or not isinstance(num_classes, (int, np.integer)):
            raise TypeError(f"num_classes must be an integer >= 2, got {num_classes!r}.")
        if num_classes < 2:
            raise ValueError(f"num_classes must be an integer >= 2, got {num_classes!r}.")
        if int(num_classes) * 8 > MAX_ARRAY_BYTES:  # the int64 vote counts of one input: refused before allocating
            raise ValueError(
                f"num_classes={int(num_classes)} would need {int(num_classes) * 8 / 2**30:.3g} GiB of vote counts per "
                f"input, more than {MAX_ARRAY_BYTES / 2**30:.0f} GiB (num_classes <= {MAX_ARRAY_BYTES // 8}); pass the "
                "base classifier's number of classes."
            )
        self.base_classifier = base_classifier
        self.num_classes = int(num_classes)
        self.sigma = check_sigma(sigma)
        if device is None:
            try:
                device = next(base_classifier.parameters()).device
            except (AttributeError, StopIteration, TypeError):
                device = torch.device("cpu")
        self.device = usable_device(device)
        try:
            first = next(base_classifier.parameters())
            self._dtype = first.dtype if first.is_floating_point() else torch.float32
        except (AttributeError, StopIteration, TypeError):
            self._dtype = torch.float32
        classes = self._model.classes
        if classes is not None:
            cl = np.asarray(classes)
            ok = cl.dtype.kind in "biu" or (cl.dtype.kind == "f" and np.all(cl == np.round(cl)))
            if not ok or len(cl) > self.num_classes or (len(cl) and (cl.min() < 0 or cl.max() >= self.num_classes)):
                raise ValueError(
                    f"base_classifier's classes_ are {_show_classes(cl)} (dtype {cl.dtype}), but Smooth counts votes "
                    f"as class indices 0..num_classes-1 = 0..{self.num_classes - 1}. Fit the estimator on integer "
                    "labels (np.unique(y, return_inverse=True)[1]), or pass a function that maps its predictions to "
                    "indices, e.g. lambda x: np.searchsorted(est.classes_, est.predict(x))."
                )

    # -- helpers ---------------------------------------------------------------------------
    def _as_tensor(self, x) -> torch.Tensor:
        check_unmasked(x, "x")  # its masked inputs would be certified like any other
        if isinstance(x, np.ndarray):
            if x.dtype == np.uint8:
                raise ValueError(
                    "x is uint8; convert images to float in [0, 1] first (robeval.core.nn.training.to_float_tensor)."
                )
            if x.dtype.kind not in "biu":  # the shared contract: text and NaN refused, naming the row
                x = as_float_points(x, name="x", min_ndim=1, min_rows=0)
            x = torch.from_numpy(np.ascontiguousarray(x))
        if not isinstance(x, torch.Tensor):
            raise ValueError(f"x must be a numpy array or torch tensor, got {type(x).__name__}.")
        if x.device.type == "meta":  # no values to certify (torch would fail in Tensor.item(), naming no argument)
            raise ValueError(
                "x is a torch tensor on the 'meta' device, which holds no values; pass the inputs on the CPU or a GPU."
            )
        if not torch.is_floating_point(x):
            raise ValueError("x must be a floating point array (inputs in the classifier's units).")
        if not torch.isfinite(x).all():
            raise ValueError("x contains NaN or inf values; clean the inputs first.")
        return x.to(self.device, dtype=torch.float32)

    def _prepare(
        self, x, n, alpha, batch_size, seed, idx, *, n0: int = 0, allow_large=False, what="len(x) * n", n_name="n"
    ):
        """Validated ``(n, alpha, batch_size)``, ``x`` as a batch tensor on the device, the image indices
        that key the noise streams; the base classifier is put in eval mode (the common start of CERTIFY
        and PREDICT, whose :func:`_restores_mode` gives the caller's mode back).

        A call of more than :data:`robeval.core.budgets.MAX_DRAWS` draws (``len(x) * (n0 + n)``) is refused
        with the time the classifier would take at its measured speed, unless ``allow_large``."""
        check_bool(allow_large, "allow_large")  # 'no' would be truthy
        n = check_num_samples(n, n_name, hint=COHEN_HINT if n0 and n_name == "n" else "")  # CERTIFY's n0 and n
        alpha = check_alpha(alpha)
        batch_size = check_count(batch_size, "batch_size", BATCH_SIZE_MEANING)
        as_seed_sequence(seed)  # an int or SeedSequence is required: results must be reproducible
        x = self._as_tensor(x)
        if x.ndim == 0 or len(x) == 0:
            raise ValueError("x is empty; pass a batch (B, *input_shape) with B >= 1.")
        if x.ndim == 1:
            raise ValueError(
                f"x has shape {tuple(x.shape)}, one dimension; pass a batch (B, *input_shape): x[None] for a single "
                "input, x.reshape(-1, 1) for B inputs of one feature."
            )
        idx = np.arange(len(x)) if idx is None else check_stream_keys(idx, len(x))
        if self._model.kind == "torch":
            self.base_classifier.eval()
        draws = float(len(x)) * (float(n0) + float(n))  # a float: an int beyond 1.8e308 would not convert
        if draws > MAX_DRAWS and not (isinstance(allow_large, (bool, np.bool_)) and allow_large):
            check_draw_budget(draws, what=what, seconds_per_draw=self._seconds_per_draw(x, batch_size),
                              allow_large=allow_large)  # fmt: skip
        return n, alpha, batch_size, x, idx

    def _seconds_per_draw(self, x: torch.Tensor, batch_size: int) -> float | None:
        """The base classifier's measured time per noisy input (one forward batch of copies of ``x[0]``), or None
        when the probe fails (the budget message then gives no time)."""
        m = int(min(batch_size, 1024))
        try:
            with torch.no_grad():
                probe = x[:1].expand(m, *x.shape[1:]).contiguous()
                self._forward(probe)  # warm-up
                t0 = time.perf_counter()
                self._forward(probe)
                return (time.perf_counter() - t0) / m
        except Exception:
            return None

    def _forward(self, batch: torch.Tensor, invalid: torch.Tensor | None = None) -> torch.Tensor:
        """Top class of the base classifier for a batch of noisy inputs (its output checked by :meth:`top_class`).

        With ``invalid`` (an int64 tensor of 2 counters on the device), the value checks of :meth:`top_class` that
        need the output's values (non-finite logits, votes out of range) add the number of bad entries to it
        instead of raising here: reading a GPU value back stalls the device once per batch (about 4% of
        CERTIFY's time on an H200), so :meth:`sample_counts` reads the sum once, at its end, and raises then."""
        try:
            if self._model.kind == "torch":
                out = self.base_classifier(batch if batch.dtype == self._dtype else batch.to(self._dtype))
            else:
                out = self._model.outputs(batch.cpu().numpy())
        except RuntimeError as exc:
            raise ValueError(self._failure_message(batch, exc)) from exc
        return self.top_class(out, len(batch), invalid).to(batch.device)

    @staticmethod
    def _failure_message(batch: torch.Tensor, exc: BaseException) -> str:
        """What to tell when the base classifier raised on ``batch``: the hint fits the failure."""
        text = str(exc)
        where = f"the base classifier failed on a batch of shape {tuple(batch.shape)}"
        if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in text.lower():
            return (
                f"{where}: the device ran out of memory ({text.splitlines()[0] if text else 'out of memory'}). Pass a "
                "smaller batch_size (results do not depend on it)."
            )
        if any(word in text for word in ("shape", "size", "dimension", "mat1", "channels")):
            return (
                f"{where}: {text}. Smooth takes a batch (B, *input_shape) of the model's input shape; for a single "
                "image of shape (C, H, W) pass x[None]."
            )
        return f"{where}: {text}"

    def top_class(self, out, batch_len: int, invalid: torch.Tensor | None = None) -> torch.Tensor:
        """The class each input votes for, from the base classifier's output ``out`` for ``batch_len`` inputs.

        ``out`` is logits of shape ``(batch_len, num_classes)`` (finite), one logit column ``(batch_len, 1)`` of a
        binary model (``num_classes=2``; class = logit > 0), one-hot votes ``(batch_len, num_classes)`` (bool or
        0/1 integers) or integer votes of shape ``(batch_len,)`` or ``(batch_len, 1)`` in ``[0, num_classes)``, as a
        torch tensor or numpy array (the reading of :func:`robeval.core.validation.read_output`). Anything else raises
        ValueError naming the problem: counts from such a batch would certify garbage.

        ``invalid`` (internal, see :meth:`_forward`): count the bad values into this tensor instead of raising.

        Returns
        -------
        torch.Tensor of int64, shape (batch_len,)
        """
        if isinstance(out, tuple):
            read_output(out, batch_len, name="the base classifier")  # raises TypeError naming the fix
        if not isinstance(out, torch.Tensor):
            arr = np.asarray(out)
            if arr.dtype.kind not in "biuf":
                raise ValueError(
                    f"the base classifier returned {arr.dtype} values ({_show_classes(arr.reshape(-1))}) for a batch "
                    f"of {batch_len} inputs; Smooth counts votes as class indices 0..num_classes-1 or reads float "
                    "logits. Map labels to indices, e.g. lambda x: np.searchsorted(classes, model.predict(x))."
                )
        t = out if isinstance(out, torch.Tensor) else torch.as_tensor(np.asarray(out))
        where = f"the base classifier returned {tuple(t.shape)} for a batch of {batch_len} inputs"
        if t.ndim not in (1, 2) or t.shape[0] != batch_len:
            raise ValueError(
                f"{where}; it must return one row per input, logits (B, {self.num_classes}) or votes (B,). "
                "A model that ignores its batch (e.g. returns (1, C)) cannot be certified."
            )
        if not (t.is_floating_point() or t.dtype in _INT_DTYPES or t.dtype == torch.bool):
            raise ValueError(f"{where} of dtype {t.dtype}; return float logits or integer class votes.")
        if t.is_floating_point():
            if invalid is not None:
                invalid[0] += (~torch.isfinite(t)).sum().to(invalid.device)
            elif not torch.isfinite(t).all():
                raise ValueError(self._invalid_message(where, int((~torch.isfinite(t)).sum())))
        if t.ndim == 2 and t.shape[1] == 1 and self.num_classes == 2 and t.is_floating_point():
            return (t[:, 0] > 0).to(torch.int64)  # one logit column of a binary model: class = logit > 0
        if t.ndim == 2 and t.shape[1] == 1 and not t.is_floating_point():
            t = t[:, 0]  # a column of votes
        elif t.ndim == 2:
            if t.shape[1] != self.num_classes:
                one = " or one logit column (B, 1) (binary: class = logit > 0)" if self.num_classes == 2 else ""
                raise ValueError(
                    f"{where}, but Smooth was built with num_classes={self.num_classes}; pass the classifier's "
                    f"number of outputs (counts would mix classes){one}."
                )
            if t.is_floating_point():
                return t.argmax(dim=1)
            hot = t.to(torch.int64)  # one-hot votes (bool or 0/1 integers)
            bad = ((hot != 0) & (hot != 1)).any(dim=1) | (hot.sum(dim=1) != 1)
            if invalid is not None:
                invalid[2] += bad.sum().to(invalid.device)
            elif bad.any():
                raise ValueError(self._invalid_message(where, int(bad.sum()), one_hot=True))
            return hot.argmax(dim=1)
        if t.is_floating_point() and not torch.equal(t, torch.round(t)):
            raise ValueError(f"{where}: votes must be integer classes, got a fractional value; return class indices.")
        votes = t.to(torch.int64)
        outside = (votes < 0) | (votes >= self.num_classes)
        if invalid is not None:
            invalid[1] += outside.sum().to(invalid.device)
            return votes.clamp(0, self.num_classes - 1)  # counted as invalid: sample_counts raises at its end
        if outside.any():
            raise ValueError(self._invalid_message(where, int(outside.sum()), votes=True))
        return votes

    def _invalid_message(self, where: str, bad: int, votes: bool = False, one_hot: bool = False) -> str:
        if one_hot:
            return (
                f"{where}: {bad} row(s) of its one-hot output do not hold exactly one 1; return one vote per input "
                f"(B,), one-hot rows (B, {self.num_classes}) or float logits."
            )
        if votes:
            return (
                f"{where}: {bad} vote(s) lie outside [0, {self.num_classes}) (num_classes={self.num_classes}); "
                "return class indices 0..num_classes-1 or pass the right num_classes."
            )
        return (
            f"{where} with {bad} NaN or infinite values; no certificate can rest on non-finite outputs. "
            "Check the model (and its input scaling) before smoothing it."
        )

    @torch.no_grad()
    def sample_counts(self, x: torch.Tensor, num: int, batch_size: int, gens: list) -> np.ndarray:
        """Class counts of ``f(x_i + eps)`` over ``num`` draws for every image ``x_i``.

        Image ``i``'s noise comes from its own generator ``gens[i]`` in blocks of :data:`NOISE_BLOCK` draws,
        and consecutive blocks (of several images) are packed into forward batches of ``batch_size``
        inputs: small ``num`` (e.g. ``n0 = 100``) still fills the accelerator, and the counts do not depend
        on ``batch_size`` or on which images are counted together.

        Parameters
        ----------
        x : torch.Tensor, shape (B, *input_shape), float32 on ``self.device``
        num : int
            Draws per image.
        batch_size : int
            Inputs per forward pass.
        gens : list of B ``torch.Generator`` on ``self.device`` (see :func:`image_generators`)

        Returns
        -------
        numpy.ndarray of int64, shape (B, num_classes)
        """
        b, k = x.shape[0], self.num_classes
        if len(gens) != b:
            raise ValueError(f"gens has {len(gens)} generators for {b} images; pass one per image.")
        batch_size = int(min(batch_size, b * num))  # a larger batch is never filled: same counts, less memory
        row_bytes = int(np.prod(x.shape[1:], dtype=np.int64)) * x.element_size()
        if batch_size * row_bytes > MAX_BATCH_BYTES:
            fits = max(1, MAX_BATCH_BYTES // max(row_bytes, 1))
            raise ValueError(
                f"batch_size={batch_size} noisy inputs of shape {tuple(x.shape[1:])} make forward batches of "
                f"{batch_size * row_bytes / 2**30:.3g} GiB, more than this code builds at once "
                f"({MAX_BATCH_BYTES / 2**30:.0f} GiB); pass batch_size <= {fits} (a speed setting: the results do not "
                "depend on it)."
            )
        counts = torch.zeros(b * k, dtype=torch.int64, device=self.device)
        # bad outputs (non-finite logits, votes out of range), read once at the end: no per-batch device sync
        invalid = torch.zeros(3, dtype=torch.int64, device=self.device)
        buf, own, n_buf = [], [], 0

        def forward(rows: torch.Tensor, owners: torch.Tensor) -> None:
            # scatter_add_, not bincount: CUDA's bincount reads its input's maximum back to the host every batch
            slots = owners * k + self._forward(rows, invalid)
            counts.scatter_add_(0, slots, torch.ones_like(slots))

        for i in range(b):
            for start in range(0, num, NOISE_BLOCK):
                m = min(NOISE_BLOCK, num - start)
                noise = torch.randn((m, *x.shape[1:]), generator=gens[i], device=self.device, dtype=x.dtype)
                buf.append(noise.mul_(self.sigma).add_(x[i]))
                own.append(torch.full((m,), i, dtype=torch.int64, device=self.device))
                n_buf += m
                while n_buf >= batch_size:
                    rows, owners = torch.cat(buf), torch.cat(own)
                    forward(rows[:batch_size], owners[:batch_size])
                    buf, own, n_buf = [rows[batch_size:]], [owners[batch_size:]], n_buf - batch_size
        if n_buf:
            forward(torch.cat(buf), torch.cat(own))
        nonfinite, outside, not_one_hot = (int(v) for v in invalid.tolist())
        if nonfinite or outside or not_one_hot:
            where = f"the base classifier returned, for {b * num} noisy inputs in batches of {batch_size}, outputs"
            if not_one_hot:
                raise ValueError(self._invalid_message(where, not_one_hot, one_hot=True))
            raise ValueError(self._invalid_message(where, outside or nonfinite, votes=bool(outside)))
        return counts.view(b, k).cpu().numpy()

    # -- CERTIFY ---------------------------------------------------------------------------
    @_restores_mode
    def certify(
        self, x, n0: int, n: int, alpha: float, batch_size: int = 1000, *, seed, idx=None, allow_large: bool = False
    ) -> CertifyResult:
        """Cohen et al.'s CERTIFY for a batch of inputs.

        The base classifier runs in eval mode; a torch module's train/eval mode is restored afterwards.

        Parameters
        ----------
        x : numpy.ndarray or torch.Tensor, shape (B, *input_shape), float
            Inputs in the base classifier's units (robeval image models: [0, 1], NCHW).
        n0 : int
            Selection draws (Cohen: 100).
        n : int
            Estimation draws (Cohen: 100000).
        alpha : float
            Failure probability (Cohen: 0.001).
        batch_size : int
            Noisy inputs per forward pass (a speed setting: results do not depend on it).
        seed : int or numpy.random.SeedSequence
            Root of the noise streams; equal seeds and arguments give identical results.
        idx : array_like of int, optional
            Index of each input (default ``arange(B)``): input ``i``'s noise stream is keyed by
            ``(seed, idx[i])``, so certifying a dataset in any grouping gives the same result. Whole numbers in
            0 .. 2**32 - 1, none repeated; a numpy masked array is refused (TypeError).
        allow_large : bool
            Run a call of more than :data:`robeval.core.budgets.MAX_DRAWS` draws (``B * (n0 + n)``), which is
            otherwise refused with the time it would take.

        Returns
        -------
        CertifyResult
        """
        n0 = check_num_samples(n0, "n0", hint=COHEN_HINT)
        n, alpha, batch_size, x, idx = self._prepare(
            x, n, alpha, batch_size, seed, idx, n0=n0, allow_large=allow_large, what="len(x) * (n0 + n)"
        )
        t0 = time.perf_counter()
        # selection: guess the top class from n0 draws
        counts0 = self.sample_counts(x, n0, batch_size, image_generators(seed, idx, 0, self.device))
        c_hat = counts0.argmax(axis=1)
        # estimation: fresh draws, count the guessed class
        counts = self.sample_counts(x, n, batch_size, image_generators(seed, idx, 1, self.device))
        n_a = counts[np.arange(len(c_hat)), c_hat]
        p_lower = np.asarray(clopper_pearson_lower(n_a, n, alpha), dtype=np.float64).reshape(-1)
        abstain, radius = certified_radius(n_a, n, alpha, self.sigma)
        elapsed = time.perf_counter() - t0
        pred = np.where(np.asarray(abstain).reshape(-1), ABSTAIN, c_hat).astype(np.int64)
        return CertifyResult(
            prediction=pred,
            radius=np.asarray(radius, dtype=np.float64).reshape(-1),
            n_a=n_a.astype(np.int64),
            n=n,
            p_a_lower=p_lower,
            counts0=counts0,
            time=np.full(len(pred), elapsed / max(len(pred), 1)),
        )

    # -- certified accuracy at a fixed radius, sequentially ---------------------------------------
    @_restores_mode
    def certify_radius(
        self,
        x,
        radius: float,
        n0: int,
        n_max: int,
        alpha: float,
        batch_size: int = 1000,
        *,
        seed,
        idx=None,
        n_start: int = 100,
        allow_large: bool = False,
    ) -> RadiusResult:
        """Is ``g`` certified within L2 ``radius`` at each input? A sequential version of CERTIFY that stops
        as soon as the answer is clear, valid at level ``alpha`` under optional stopping.

        After guessing ``c_A`` from ``n0`` selection draws (as CERTIFY), estimation draws are added in stages
        of cumulative size ``n_start, 2 n_start, 4 n_start, ..., n_max``. ``radius`` is certified iff
        ``p_A >= p* = Phi(radius / sigma)`` is shown, i.e. iff the one-sided Clopper-Pearson lower bound of
        ``n_A`` reaches ``p*``. Stage ``k`` of ``K`` tests at level ``alpha / K`` (Bonferroni alpha spending
        over a group-sequential design, Jennison & Turnbull 2000, ch. 2), so by the union bound the probability
        of certifying any input whose true ``p_A < p*`` is at most ``alpha``. An input stops early, abstaining,
        when the upper bound at the stage's level falls below ``p*`` (stopping to abstain never certifies, so it
        costs no validity).

        Parameters
        ----------
        x : array (B, *input_shape), float — inputs in the base classifier's units.
        radius : float >= 0 — the L2 radius to certify.
        n0 : int — selection draws. n_max : int — largest number of estimation draws per input.
        alpha : float — failure probability. batch_size : int — inputs per forward pass (speed only).
        seed, idx : the noise streams, keyed by ``(seed, idx[i])`` as in :meth:`certify`.
        n_start : int — draws of the first stage (a multiple of 100 keeps streams independent of grouping).

        Returns
        -------
        RadiusResult
        """
        n0 = check_num_samples(n0, "n0")
        if isinstance(radius, (bool, np.bool_)) or not isinstance(radius, (int, float, np.integer, np.floating)):
            raise TypeError(
                f"radius must be one number (an L2 radius), got {type(radius).__name__} {radius!r}; call "
                "certify_radius once per radius, or call certify once and compare its radius column with each radius."
            )
        radius = float(radius)
        if not math.isfinite(radius) or radius < 0:
            raise ValueError(f"radius must be a finite number >= 0, got {radius!r}.")
        n_max, alpha, batch_size, x, idx = self._prepare(
            x,
            n_max,
            alpha,
            batch_size,
            seed,
            idx,
            n0=n0,
            allow_large=allow_large,
            what="len(x) * (n0 + n_max)",
            n_name="n_max",
        )
        schedule = sequential_schedule(n_start, n_max)
        level = alpha / len(schedule)
        threshold = float(_norm.cdf(radius / self.sigma))
        counts0 = self.sample_counts(x, n0, batch_size, image_generators(seed, idx, 0, self.device))
        c_hat = counts0.argmax(axis=1)
        gens = image_generators(seed, idx, 3, self.device)
        b = len(x)
        n_a = np.zeros(b, dtype=np.int64)
        n_used = np.zeros(b, dtype=np.int64)
        decided = np.zeros(b, dtype=bool)
        certified = np.zeros(b, dtype=bool)
        p_lower = np.zeros(b)
        done = 0
        for n_k in schedule:
            active = np.flatnonzero(~decided)
            if not len(active):
                break
            step = int(n_k - done)
            counts = self.sample_counts(x[active], step, batch_size, [gens[i] for i in active])
            n_a[active] += counts[np.arange(len(active)), c_hat[active]]
            n_used[active] = n_k
            lo = np.asarray(clopper_pearson_lower(n_a[active], n_k, level), dtype=np.float64).reshape(-1)
            hi = np.asarray(clopper_pearson_upper(n_a[active], n_k, level), dtype=np.float64).reshape(-1)
            p_lower[active] = lo
            certified[active] = lo >= threshold
            decided[active] = (lo >= threshold) | (hi < threshold)
            done = int(n_k)
        return RadiusResult(
            prediction=np.where(certified, c_hat, ABSTAIN).astype(np.int64),
            certified=certified,
            n_used=n_used,
            n_a=n_a,
            p_a_lower=p_lower,
            radius=radius,
            threshold=threshold,
        )

    # -- PREDICT ---------------------------------------------------------------------------
    @_restores_mode
    def predict(
        self, x, n: int, alpha: float, batch_size: int = 1000, *, seed, idx=None, allow_large: bool = False
    ) -> np.ndarray:
        """Cohen et al.'s PREDICT for a batch of inputs.

        Returns the top class among ``n`` draws when the two-sided binomial test of its count
        against the runner-up's rejects ``p = 1/2`` at level ``alpha``; otherwise ``ABSTAIN``.

        Parameters
        ----------
        x : numpy.ndarray or torch.Tensor, shape (B, *input_shape), float
        n : int
            Draws per input.
        alpha : float
            Probability of returning a class other than ``g(x)``.
        batch_size : int
        seed : int or numpy.random.SeedSequence
        idx : array_like of int, optional (see :meth:`certify`)

        Returns
        -------
        numpy.ndarray of int64, shape (B,)
        """
        n, alpha, batch_size, x, idx = self._prepare(x, n, alpha, batch_size, seed, idx, allow_large=allow_large)
        counts = self.sample_counts(x, n, batch_size, image_generators(seed, idx, 2, self.device))
        order = np.argsort(-counts, axis=1, kind="stable")
        rows = np.arange(len(counts))
        c1, c2 = counts[rows, order[:, 0]], counts[rows, order[:, 1]]
        pv = np.asarray(binom_test_two_sided(c1, c1 + c2, 0.5)).reshape(-1)
        return np.where(pv > alpha, ABSTAIN, order[:, 0]).astype(np.int64)

    # -- a dataset ---------------------------------------------------------------------------
    def certify_dataset(
        self,
        x,
        labels,
        n0: int = 100,
        n: int = 100_000,
        alpha: float = 0.001,
        batch_size: int = 1000,
        images_per_step: int | None = None,
        seed: int = 0,
        idx=None,
        progress: bool = True,
        allow_large: bool = False,
    ) -> pd.DataFrame:
        """CERTIFY every input of a dataset; one row per input.

        Inputs are processed in groups of ``images_per_step``. Every input's noise stream is keyed by
        ``(seed, idx)`` (see :meth:`certify`), so the result depends neither on ``batch_size`` nor on
        ``images_per_step``: both are speed settings.

        Parameters
        ----------
        x : array, shape (M, *input_shape), float
        labels : array_like, list or torch tensor of int, shape (M,)
            Class indices in ``[0, num_classes)``; float, NaN or out-of-range labels raise ValueError, booleans
            (True is not class 1) and a numpy masked array (its masked labels would be read) TypeError.
        n0, n, alpha, batch_size, allow_large : see :meth:`certify` (the draw budget applies per step)
        images_per_step : int, optional
            Inputs certified together (default: enough to fill ``batch_size`` with ``n0`` draws,
            at least 1).
        seed : int or numpy.random.SeedSequence
        idx : array_like of int, optional
            Dataset indices written to the ``idx`` column (default ``arange(M)``).
        progress : bool
            Show a tqdm bar.

        Returns
        -------
        pandas.DataFrame
            Columns ``idx, label, predict, radius, correct, time`` (the published format; time in
            seconds) plus ``n_a, N, p_a_lower``.

        Raises
        ------
        robeval.core.runs.IncompleteResult
            When a group fails after others were certified: nothing finished is lost, the error's ``partial`` holds
            the finished rows and its message says how to resume (the original error is its cause). A failure in the
            first group raises the original error.
        """
        try:
            n_x = len(x)
        except TypeError:
            raise TypeError(f"x must be a batch (M, *input_shape) array or tensor, got {type(x).__name__}.") from None
        check_bool(progress, "progress")
        check_bool(allow_large, "allow_large")
        check_no_bools(labels, "labels", example="[0, 2, 1] (class indices 0..num_classes-1)")
        labels = check_labels(labels, name="labels", n=n_x, num_classes=self.num_classes)
        m = len(labels)
        idx = np.arange(m) if idx is None else check_stream_keys(idx, m)
        n0 = check_num_samples(n0, "n0", hint=COHEN_HINT)
        batch_size = check_count(batch_size, "batch_size", BATCH_SIZE_MEANING)
        step = max(1, batch_size // n0) if images_per_step is None else images_per_step  # 0 is not "the default"
        step = check_count(step, "images_per_step", "inputs certified together; the results do not depend on it")
        from tqdm.auto import tqdm

        parts = []
        starts = range(0, m, step)
        for s in tqdm(starts, desc="certify", disable=not progress):
            try:
                res = self.certify(
                    x[s : s + step], n0, n, alpha, batch_size=batch_size, seed=seed, idx=idx[s : s + step],
                    allow_large=allow_large,
                )  # fmt: skip
            except Exception as exc:
                if not parts:
                    raise
                raise IncompleteResult(
                    f"certify_dataset: images {s}..{min(s + step, m) - 1} failed ({type(exc).__name__}: {exc}). The "
                    f"{s} of {m} images certified before are kept: the error's .partial holds their rows. After fixing "
                    f"the cause, resume with certify_dataset(x[{s}:], labels[{s}:], idx=idx[{s}:]) with the same n0, n, "
                    "alpha and seed, and pd.concat([err.partial, rest]): every image's noise is keyed by (seed, idx), "
                    "so that equals an uninterrupted run.",
                    partial=pd.concat(parts, ignore_index=True),
                    done=s,
                    total=m,
                ) from exc
            parts.append(
                pd.DataFrame(
                    {
                        "idx": idx[s : s + step],
                        "label": labels[s : s + step],
                        "predict": res.prediction,
                        "radius": res.radius,
                        "correct": (res.prediction == labels[s : s + step]).astype(np.int64),
                        "time": res.time,
                        "n_a": res.n_a,
                        "N": res.n,
                        "p_a_lower": res.p_a_lower,
                    }
                )
            )
        if not parts:
            raise ValueError("x is empty; pass at least one input.")
        return pd.concat(parts, ignore_index=True)
