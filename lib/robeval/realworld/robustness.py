"""Real-world robustness of individual predictions (Scher & Trügler).

The real-world robustness of a prediction ``y = f(x_t)`` is the probability that
the prediction is *unchanged* under a perturbation ``x'`` drawn from a
point-specific distribution ``p_{x_t}`` (paper Sec. 3.2, Eq. 2-3):

    P_r(x_t) = 1 - P(f(x_t + x') != f(x_t)),   x' ~ p_{x_t}.

It is estimated by brute-force Monte Carlo (Sec. 3.5):

1. build a function returning samples of the perturbed point ``x_t + x'``;
2. draw ``N`` samples;
3. classify them with the black-box ``f`` and count how often the label changes.

This module provides that estimator (:func:`real_world_robustness`) and the
perturbation models the paper discusses: multivariate normal with a
trace-normalised covariance times a scale (Sec. 3.5.1, Eq. 5), one covariance
per point (the fog ensemble, Sec. 4.2), bounded features (Sec. 3.2) and
categorical features via transition matrices (Sec. 3.5.2). The regression
variant with a threshold ``gamma`` (Eq. 4) is the ``threshold`` argument.

Determinism: every point gets its own random stream spawned from one seed, so a
point's estimate depends only on the seed and its index -- not on the chunk size
used to batch the classifier calls, nor on which other points are evaluated.

Perturbation model contract
---------------------------
A *sampler* is any callable ``sampler(x, index, n_samples, rng) -> ndarray``
taking one unperturbed point ``x`` (float64, shape (d,)), its row ``index`` in
the evaluated array, a sample count and a ``numpy.random.Generator``, and
returning the *perturbed points* ``x + x'`` as a float array of shape
``(n_samples, d)``. Returning perturbed points (not perturbations) lets a model
clip, truncate or resample categorical features.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import stats

from robeval.core.frames import check_unmasked
from robeval.core.seeding import as_generator
from robeval.core.validation import as_model, check_covariance, check_features, check_positive
from robeval.core.validation import check_numbers as check_numbers
from robeval.realworld.samplers import GaussianPerturbation

__all__ = [
    "RobustnessEstimate",
    "real_world_robustness",
    "MAX_DRAWS",
    "adaptive_sample_sizes",
    "ADAPTIVE_RULES",
    "union_halfwidth",
    "wilson_se",
    "rescale_distances",
    "min_pairwise_correlation",
    "max_order_violation",
    "correlation",
    "point_rngs",
]

Sampler = Callable[[np.ndarray, int, int, np.random.Generator], np.ndarray]

#: Largest number of Monte-Carlo draws (points x samples per point) one call makes without ``allow_large=True``:
#: 1e9 draws are minutes to hours for a fast model; a typo (n_samples=10**13) would be months.
MAX_DRAWS = 10**9


# ----------------------------------------------------------------------------
# input validation (kept local: this module must not depend on the notebook layer)
# ----------------------------------------------------------------------------


def point_rngs(rng, n: int) -> list[np.random.Generator]:
    """Spawn one independent random stream per point.

    Parameters
    ----------
    rng : int or numpy.random.Generator
        Parent seed. A Generator is advanced once (one 128-bit draw) to derive the
        children, so reusing the same Generator gives fresh but reproducible streams.
    n : int
        Number of streams.

    Returns
    -------
    list of numpy.random.Generator, length ``n``.
    """
    rng = as_generator(rng, "rng")
    entropy = [int(v) for v in rng.integers(0, 2**32, size=4, dtype=np.uint64)]
    return [np.random.default_rng(s) for s in np.random.SeedSequence(entropy).spawn(n)]


# ----------------------------------------------------------------------------


def trace_normalized(cov, scale: float = 1.0) -> np.ndarray:
    """Return ``scale * cov / trace(cov)`` (paper Sec. 4.1: trace-1 covariance times a scale).

    ``scale`` is the total variance ``E||x'||^2`` of the perturbation, i.e. the
    per-feature standard deviation of an isotropic model is ``sqrt(scale / d)``.

    Parameters
    ----------
    cov : array_like, shape (d, d) or (n, d, d)
        Symmetric PSD matrix (or stack) with positive trace.
    scale : float >= 0
        Perturbation scale (units: squared feature units).

    Returns
    -------
    ndarray, float64, same shape as ``cov``.
    """
    C = check_covariance(cov)
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (Real, np.integer, np.floating)):
        raise TypeError(
            f"scale must be a number (the total variance of the perturbation), got {type(scale).__name__} {scale!r}; "
            "pass e.g. scale=2.0 (convert strings from a settings file with float(...))."
        )
    if not np.isfinite(scale) or scale < 0:
        raise ValueError(f"scale must be a finite number >= 0; got {scale!r}.")
    tr = np.trace(C, axis1=-2, axis2=-1)
    if np.any(tr <= 0):
        raise ValueError("cov has zero trace and cannot be normalised; pass a non-zero covariance.")
    return float(scale) * C / np.asarray(tr)[..., None, None]


def identity_covariance(d: int) -> np.ndarray:
    """Identity covariance normalised to trace 1: ``eye(d) / d`` (paper Sec. 4.1)."""
    if int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer number of features; got {d!r}.")
    return np.eye(int(d)) / int(d)


def random_covariance(d: int, rng) -> np.ndarray:
    """Random covariance ``C_r = A^T A`` (Eq. 5), normalised to trace 1.

    Parameters
    ----------
    d : int
        Number of features.
    rng : int or numpy.random.Generator
        ``A`` is (d, d) with i.i.d. standard normal entries drawn from ``rng``.

    Returns
    -------
    ndarray, float64, shape (d, d), symmetric PSD with trace 1.
    """
    if int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer number of features; got {d!r}.")
    A = as_generator(rng, "rng").standard_normal((int(d), int(d)))
    return trace_normalized(A.T @ A)


# ----------------------------------------------------------------------------
# Monte-Carlo estimator (Sec. 3.5)
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RobustnessEstimate:
    """Monte-Carlo estimate of real-world robustness per point.

    Attributes
    ----------
    robustness : ndarray, float64, shape (n,)
        ``P_r = 1 - (#changed / N)`` in [0, 1].
    se : ndarray, float64, shape (n,)
        Binomial standard error ``sqrt(P_r (1 - P_r) / N)``.
    n_samples : int or ndarray of int64, shape (n,)
        ``N``, samples per point (an array when ``n_samples="auto"`` chose it per point).
    base_prediction : ndarray, shape (n,)
        ``f(x_t)`` of the unperturbed points.
    """

    robustness: np.ndarray
    se: np.ndarray
    n_samples: int | np.ndarray
    base_prediction: np.ndarray


def _call_predict(predict, Z: np.ndarray, regression: bool) -> np.ndarray:
    out = np.asarray(predict(Z))
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1 or out.shape[0] != Z.shape[0]:
        raise ValueError(
            f"predict returned shape {out.shape} for {Z.shape[0]} rows; it must return one label "
            "(or, for regression, one value) per row, shape (m,). Wrap probability outputs with argmax."
        )
    if regression and not np.all(np.isfinite(out.astype(np.float64))):
        raise ValueError("predict returned NaN or inf; the regression model must return finite values.")
    if not regression and out.dtype.kind in "fc" and not np.all(np.isfinite(out)):
        raise ValueError(
            "predict returned NaN or inf labels; a label change could not be told from a missing prediction "
            "(NaN != NaN would count every draw as a change). Return class labels, e.g. probabilities.argmax(1)."
        )
    return out


def _changed(y_pert: np.ndarray, y_base: np.ndarray, threshold: float | None) -> np.ndarray:
    if threshold is None:
        return y_pert != y_base  # Eq. 2
    return np.abs(y_pert.astype(np.float64) - y_base.astype(np.float64)) > threshold  # Eq. 4


def _gaussian_chunk(g: GaussianPerturbation, X, chunk, rngs) -> np.ndarray:
    """Samples of several points written into one buffer (fast path for the Gaussian model).

    Each point draws its standard normals from its own stream, exactly as ``g(x, i, m, rng)`` would, so
    results are identical to the generic path; the covariance factor is applied with one matrix product
    per chunk when it is shared.
    """
    rows = sum(m for _, m in chunk)
    Z = np.empty((rows, X.shape[1]))
    a = 0
    for i, m in chunk:
        rngs[i].standard_normal(out=Z[a : a + m])
        if g.per_point:
            Z[a : a + m] = Z[a : a + m] @ g.factor[i].T
        a += m
    if g.diag is not None:
        Z *= g.diag
    elif not g.per_point:
        # blocks of 8192 rows: one huge skinny GEMM makes multithreaded BLAS spin (40x slower on a busy
        # machine), small ones run single-threaded at full speed
        out = np.empty_like(Z)
        LT = g.factor.T
        for s in range(0, rows, 8192):
            np.matmul(Z[s : s + 8192], LT, out=out[s : s + 8192])
        Z = out
    a = 0
    for i, m in chunk:
        Z[a : a + m] += X[i]
        a += m
    return Z


def _prefetched(make, chunks, enabled: bool):
    """Yield ``(chunk, make(chunk))``; with ``enabled`` the next chunk is sampled in a background thread
    while the caller classifies the current one (numpy's generators release the GIL). Chunks are still
    produced one at a time and in order, so results are identical either way."""
    if not enabled:
        for chunk in chunks:
            yield chunk, make(chunk)
        return
    from concurrent.futures import ThreadPoolExecutor

    it = iter(chunks)
    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            current = next(it)
        except StopIteration:
            return
        future = pool.submit(make, current)
        for nxt in it:
            Z = future.result()
            future = pool.submit(make, nxt)
            yield current, Z
            current = nxt
        yield current, future.result()


def _sampler_chunk(sampler, X, chunk, rngs) -> np.ndarray:
    d = X.shape[1]
    parts = []
    for i, m in chunk:
        # a copy of the point: a sampler that writes into its input (x += shift) never reaches the caller's X
        Zi = np.asarray(sampler(X[i].copy(), i, m, rngs[i]), dtype=np.float64)
        if Zi.shape != (m, d):
            raise ValueError(f"sampler returned shape {Zi.shape} for point {i}; expected ({m}, {d}).")
        parts.append(Zi)
    Z = np.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
    if not np.all(np.isfinite(Z)):
        raise ValueError("the perturbation model produced NaN or inf samples; check its parameters.")
    return Z


def _chunked(pieces, chunk_rows: int) -> list[list[tuple[int, int]]]:
    """Split ``(point, sample count)`` pieces into chunks of at most ``chunk_rows`` rows, in order; a point's
    samples span several chunks only when its count exceeds ``chunk_rows``."""
    split: list[tuple[int, int]] = []
    for i, m in pieces:
        while m > 0:
            split.append((i, min(m, chunk_rows)))
            m -= chunk_rows
    chunks: list[list[tuple[int, int]]] = [[]]
    rows = 0
    for i, m in split:
        if rows + m > chunk_rows and chunks[-1]:
            chunks.append([])
            rows = 0
        chunks[-1].append((i, m))
        rows += m
    return [c for c in chunks if c]


def _check_budget(predict, X: np.ndarray, draws: int, allow_large: bool) -> None:
    """Raise ValueError when ``draws`` Monte-Carlo draws exceed :data:`MAX_DRAWS` and ``allow_large`` is not set,
    with the time the classifier alone would take (measured on 1024 copies of the first point)."""
    if not isinstance(allow_large, (bool, np.bool_)):
        raise TypeError(f"allow_large must be True or False, got {allow_large!r}.")
    if draws <= MAX_DRAWS or allow_large:
        return
    import time

    probe = np.repeat(X[:1], 1024, axis=0)
    t0 = time.perf_counter()
    predict(probe)
    seconds = (time.perf_counter() - t0) / len(probe) * draws
    days = seconds / 86400
    when = f"{days:.3g} days" if days >= 1 else f"{seconds / 3600:.3g} hours"
    raise ValueError(
        f"this call would make {draws:.3g} Monte-Carlo draws (points x samples per point), more than "
        f"MAX_DRAWS = {MAX_DRAWS:.0e}; classifying them alone would take about {when} at this model's measured "
        "speed. Check n_samples / n_max (the paper uses 10000 per point), or pass allow_large=True to run it."
    )


def _check_adaptive(n_min, n_max, se_target) -> tuple[int, int, float]:
    for name, v in (("n_min", n_min), ("n_max", n_max)):
        whole = (
            isinstance(v, Real)
            and not isinstance(v, (bool, np.bool_))
            and (isinstance(v, int) or np.isfinite(v) and int(v) == v)
        )
        if not whole or not 1 <= v < 2**63:
            raise ValueError(f"{name} must be an integer in 1 .. 2**63 - 1; got {v!r}.")
    if n_min > n_max:
        raise ValueError(f"n_min ({n_min}) must not exceed n_max ({n_max}).")
    if isinstance(se_target, (bool, np.bool_)) or not isinstance(se_target, Real):
        raise TypeError(f"se_target must be a number in (0, 0.5), e.g. 0.005; got {se_target!r}.")
    if not np.isfinite(se_target) or not 0 < se_target < 0.5:
        raise ValueError(f"se_target must be a number in (0, 0.5), e.g. 0.005; got {se_target!r}.")
    return int(n_min), int(n_max), float(se_target)


def wilson_se(k, n) -> np.ndarray:
    """Half-width of the Wilson 95% interval for ``k`` successes in ``n`` trials, divided by 1.96.

    Unlike ``sqrt(p(1-p)/n)`` it is positive at ``k = 0`` and ``k = n`` (about ``0.96 / n`` there), so it
    can serve as a stopping rule for points whose draws never changed the label.
    """
    from robeval.core.stats import wilson_half_width

    z = 1.959963984540054
    return wilson_half_width(k, n, z) / z


def adaptive_sample_sizes(n_min: int, n_max: int) -> list[int]:
    """The schedule of cumulative sample counts of ``n_samples="auto"``: ``n_min``, doubled until ``n_max``.

    ``n_min`` and ``n_max`` are integers with ``1 <= n_min <= n_max`` (TypeError / ValueError naming them otherwise;
    ``n_min = 0`` would never double)."""
    n_min = check_positive(n_min, "n_min", integer=True)
    n_max = check_positive(n_max, "n_max", integer=True)
    if n_min > n_max:
        raise ValueError(f"n_min ({n_min}) must be <= n_max ({n_max}); the schedule doubles n_min up to n_max.")
    out = [n_min]
    while out[-1] < n_max:
        out.append(min(2 * out[-1], n_max))
    return out


ADAPTIVE_RULES = ("auto", "auto-cs")
COVERAGE = 0.95  # the "auto-cs" intervals hold P_r with this probability, simultaneously over all rounds


def union_halfwidth(k, n, rounds: int, coverage: float = COVERAGE) -> np.ndarray:
    """Largest distance from ``k / n`` to the ends of the two-sided Clopper-Pearson interval at error
    ``(1 - coverage) / rounds`` (the stopping statistic of ``n_samples="auto-cs"``).

    With one such interval per round, the union bound over the ``rounds`` rounds makes them hold together with
    probability >= ``coverage``, so the interval of the round where a point stops keeps its coverage under
    optional stopping.

    Parameters
    ----------
    k, n : array_like of int — successes (label changes) and trials, ``0 <= k <= n``, ``n >= 1``.
    rounds : int >= 1 — number of looks of the schedule. coverage : float in (0, 1).

    Returns
    -------
    numpy.ndarray of float64, shape ``broadcast(k, n)``, in [0, 1] (probability units).
    """
    from scipy.stats import beta

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    a = (1.0 - coverage) / rounds / 2.0
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta.ppf(1 - a, k + 1, n - k), 1.0)
    p = k / n
    return np.maximum(p - lo, hi - p)


def _adaptive_counts(count, n: int, n_min: int, n_max: int, se_target: float, rule: str = "auto"):
    """Rounds of draws for the points not yet precise enough; returns (changes, samples) per point.

    ``rule="auto"``: stop once the Wilson standard error is <= ``se_target`` (a worst-case standard error, no
    coverage statement under optional stopping). ``rule="auto-cs"``: stop once :func:`union_halfwidth` is
    <= ``1.96 se_target`` (coverage >= 95% of ``P_r +- 1.96 se_target`` under optional stopping).
    """
    schedule = adaptive_sample_sizes(n_min, n_max)
    changed = np.zeros(n, dtype=np.int64)
    drawn = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    for r, total in enumerate(schedule):
        if active.size == 0:
            break
        step = total - drawn[active]
        changed += count([(int(i), int(m)) for i, m in zip(active, step)], f"round {r + 1} ({active.size} points)")
        drawn[active] = total
        # the interval is over the label-change count; its width is the same for P_r = 1 - changed / n
        if rule == "auto-cs":
            wide = union_halfwidth(changed[active], drawn[active], len(schedule)) > 1.959963984540054 * se_target
        else:
            wide = wilson_se(changed[active], drawn[active]) > se_target
        active = active[wide]
    return changed, drawn


def real_world_robustness(
    predict: Callable[[np.ndarray], np.ndarray],
    X,
    cov=None,
    sampler: Sampler | None = None,
    n_samples: int | str = 10000,
    rng=None,
    *,
    se_target: float = 0.005,
    n_min: int = 256,
    n_max: int = 10000,
    threshold: float | None = None,
    chunk_rows: int = 65536,
    return_se: bool = False,
    progress: bool = False,
    prefetch: bool = True,
    allow_large: bool = False,
):
    """Monte-Carlo real-world robustness ``P_r = 1 - P(f(x + x') != f(x))`` per point.

    Implements Sec. 3.5: for each point draw ``n_samples`` perturbed copies from
    the perturbation model, classify them with the black box ``predict`` and
    report the fraction whose label equals the unperturbed label. Samples of many
    points are concatenated into one ``predict`` call of at most ``chunk_rows``
    rows (a point's samples are split across calls only when ``n_samples``
    exceeds ``chunk_rows``).

    Parameters
    ----------
    predict : callable, scikit-learn estimator or torch.nn.Module
        The black box: a function ``predict(Z) -> labels`` with ``Z`` float64 of shape (m, d) and a result of
        shape (m,) (class labels; or real values when ``threshold`` is given), a fitted estimator (its
        ``predict`` is used) or a torch module. Outputs are read by :func:`robeval.core.validation.read_output`:
        labels (m,), one logit column (m, 1) (binary: class = logit > 0, the same answers as the two columns
        ``(0, logit)``), scores (m, C) (argmax); with ``threshold``, values (m,) or (m, 1).
    X : array_like, shape (n, d)
        Unperturbed points (finite reals; converted to float64). A numpy masked array is refused (TypeError: its
        masked points would be read like any other).
    cov : array_like, shape (d, d) or (n, d, d), optional
        Covariance of a Gaussian perturbation, shared or one per point.
        Exactly one of ``cov`` and ``sampler`` must be given.
    sampler : callable, optional
        Any perturbation model ``sampler(x, index, n_samples, rng) -> (n_samples, d)``
        returning perturbed points (see module docstring), e.g.
        :class:`BoundedPerturbation` or :class:`CategoricalPerturbation`.
    n_samples : int >= 1, "auto" or "auto-cs"
        ``N``, Monte-Carlo samples per point (the paper uses 10000). ``"auto"`` and ``"auto-cs"`` draw
        adaptively (:func:`adaptive_sample_sizes`): every point starts with ``n_min`` samples and doubles its
        sample count until it is precise enough or has ``n_max`` samples. Points far from the decision boundary
        stop after a few hundred samples. A point's draws are a prefix of the draws a fixed
        ``n_samples=n_max`` call makes, so its estimate still depends only on the seed and its index.
        The two rules give different guarantees:

        * ``"auto"``: stop once the Wilson 95% half-width / 1.96 is at most ``se_target``. This bounds a
          worst-case standard error; it is *not* a coverage statement under optional stopping (for points whose
          label rarely flips, ``|error| > 1.96 se_target`` happens more often than 5%).
        * ``"auto-cs"``: stop once the two-sided Clopper-Pearson interval at error ``0.05 / K`` (``K`` rounds;
          :func:`union_halfwidth`) lies within ``1.96 se_target`` of the estimate. By the union bound over the
          rounds, ``P_r`` lies in the interval of the round where the point stopped with probability >= 95%
          under optional stopping, so ``|error| <= 1.96 se_target`` with probability >= 95% for every point
          that stops before ``n_max``. It draws more rows than ``"auto"``.
    se_target : float > 0
        With adaptive ``n_samples``: target standard error of ``P_r`` per point (``"auto"``: the Wilson 95%
        interval's half-width divided by 1.96, not the plug-in ``sqrt(p(1-p)/N)``, which is 0 when no draw
        changed the label and would stop every robust point at once; ``"auto-cs"``: half of the largest allowed
        error at 95% coverage, divided by 1.96).
    n_min, n_max : int
        With adaptive ``n_samples``: first and largest sample count per point (``1 <= n_min <= n_max``).
        ``se_target``, ``n_min`` and ``n_max`` are checked with a fixed ``n_samples`` too (a value outside these
        ranges raises ValueError, a non-number TypeError), although only the adaptive rules use them.
    rng : int or numpy.random.Generator
        Seed. Point ``i`` uses the ``i``-th stream spawned from it, so results do
        not depend on ``chunk_rows``.
    threshold : float, optional
        Regression variant (Eq. 4): an output counts as changed when
        ``|f(x + x') - f(x)| > threshold``. A finite number >= 0 (TypeError for a boolean or text).
    chunk_rows : int
        Maximum number of rows per ``predict`` call (bounds memory).
    return_se : bool
        If True return a :class:`RobustnessEstimate` (robustness, standard error,
        base predictions) instead of the bare array.
    progress : bool
        Show a tqdm progress bar over chunks.
    prefetch : bool
        Sample the next chunk in a background thread while ``predict`` runs on the
        current one (results are identical; set False if ``sampler`` and ``predict``
        share mutable state).
    allow_large : bool
        Allow more than :data:`MAX_DRAWS` draws in total (``n * n_samples``, or ``n * n_max`` with "auto").
        Without it such a call raises ValueError with the estimated time of the classifier calls.

    Returns
    -------
    ndarray, float64, shape (n,), or RobustnessEstimate if ``return_se``.
    """
    X = check_features(X)
    n, d = X.shape
    adaptive = isinstance(n_samples, str)
    if adaptive and n_samples not in ADAPTIVE_RULES:
        raise ValueError(f"n_samples must be an integer >= 1, 'auto' or 'auto-cs'; got {n_samples!r}.")
    n_min, n_max, se_target = _check_adaptive(
        n_min, n_max, se_target
    )  # checked even where a fixed N leaves them unused
    if not adaptive:
        if isinstance(n_samples, (bool, np.bool_)) or int(n_samples) != n_samples or n_samples < 1:
            raise ValueError(f"n_samples must be an integer >= 1 or 'auto'; got {n_samples!r}.")
        n_samples = int(n_samples)
    if isinstance(chunk_rows, (bool, np.bool_)):
        raise TypeError(f"chunk_rows must be an integer >= 1 (rows per predict call, e.g. 65536), not {chunk_rows!r}.")
    if int(chunk_rows) != chunk_rows or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1; got {chunk_rows!r}.")
    if threshold is not None and (isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, Real)):
        raise TypeError(f"threshold must be a finite number >= 0 (or None for classification); got {threshold!r}.")
    if threshold is not None and (not np.isfinite(threshold) or threshold < 0):
        raise ValueError(f"threshold must be a finite number >= 0 (or None for classification); got {threshold!r}.")
    if (cov is None) == (sampler is None):
        raise ValueError("pass exactly one of cov (Gaussian perturbation) or sampler (any perturbation model).")
    if cov is not None:
        C = check_covariance(cov, d=d)
        if C.ndim == 3 and C.shape[0] != n:
            raise ValueError(
                f"cov is a stack of {C.shape[0]} covariances but X has {n} points; give one (d, d) matrix "
                "per point, in the order of X."
            )
        sampler = GaussianPerturbation(C)
    elif not callable(sampler):
        raise ValueError("sampler must be callable as sampler(x, index, n_samples, rng).")
    model = as_model(predict, name="predict")
    regression = threshold is not None
    predict = model.values if regression else model.predict
    rngs = point_rngs(rng, n)
    _check_budget(predict, X, n * (n_max if adaptive else n_samples), allow_large)

    # base predictions f(x_t), chunked like the samples, on copies: a predict that scales its input in place
    base = np.concatenate(
        [_call_predict(predict, X[s : s + chunk_rows].copy(), regression) for s in range(0, n, chunk_rows)]
    )

    gaussian = sampler if isinstance(sampler, GaussianPerturbation) else None

    def make(chunk):
        if gaussian is not None:
            return _gaussian_chunk(gaussian, X, chunk, rngs)
        return _sampler_chunk(sampler, X, chunk, rngs)

    def count(pieces, desc):
        """Label changes per point over the draws ``pieces`` = [(point, sample count), ...]."""
        chunks = _chunked(pieces, chunk_rows)
        iterator = chunks
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(chunks, desc=desc, unit="chunk")
        changed_per_point = np.zeros(n, dtype=np.int64)
        for chunk, Z in _prefetched(make, iterator, enabled=prefetch and len(chunks) > 1):
            y = _call_predict(predict, Z, regression)
            owner = np.repeat([i for i, _ in chunk], [m for _, m in chunk])
            changed = _changed(y, base[owner], threshold)
            changed_per_point += np.rint(np.bincount(owner, weights=changed.astype(np.float64), minlength=n)).astype(
                np.int64
            )
        return changed_per_point

    if adaptive:
        n_changed, n_samples = _adaptive_counts(count, n, n_min, n_max, se_target, rule=n_samples)
    else:
        n_changed = count([(i, n_samples) for i in range(n)], "real-world robustness")

    pr = 1.0 - n_changed / n_samples
    if not return_se:
        return pr
    se = np.sqrt(pr * (1.0 - pr) / n_samples)
    return RobustnessEstimate(robustness=pr, se=se, n_samples=n_samples, base_prediction=base)


# ----------------------------------------------------------------------------
# comparison helpers (Sec. 4.1)
# ----------------------------------------------------------------------------


def rescale_distances(distances, success=None) -> np.ndarray:
    """Adversarial robustness ``r_i = d_i / max_j d_j`` (paper Sec. 4.1). A numpy masked array is refused
    (TypeError): its masked distances would count, the largest of them dividing the others.

    Parameters
    ----------
    distances : array_like, shape (n,)
        Distance of each test point to its closest counterfactual / adversarial
        example (non-negative, same units as the features).
    success : array_like of bool, shape (n,), optional
        Whether the search found a label-flipping point. Failed points get NaN and
        are excluded from the maximum (their true distance is unknown).

    Returns
    -------
    ndarray, float64, shape (n,), values in [0, 1] or NaN.
    """
    check_unmasked(distances, "distances")
    check_unmasked(success, "success")
    d = np.asarray(distances, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"distances must be 1-D (one per point); got shape {d.shape}.")
    ok = np.ones(d.shape, bool) if success is None else np.asarray(success, dtype=bool)
    if ok.shape != d.shape:
        raise ValueError(f"success has shape {ok.shape} but distances has {d.shape}.")
    ok = ok & np.isfinite(d)
    if np.any(d[ok] < 0):
        raise ValueError("distances must be non-negative.")
    if not np.any(ok) or d[ok].max() <= 0:
        raise ValueError("no successful point with a positive distance; cannot rescale by the maximum.")
    r = np.full(d.shape, np.nan)
    r[ok] = d[ok] / d[ok].max()
    return r


def _finite_pairs(a, b, names: str) -> tuple[np.ndarray, np.ndarray]:
    """Two equal-length 1-D float64 vectors with the pairs holding a NaN or inf dropped; masked arrays refused."""
    for values, name in zip((a, b), names.split(" and ")):
        check_unmasked(values, name)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"{names} must be 1-D of equal length; got {a.shape} and {b.shape}.")
    ok = np.isfinite(a) & np.isfinite(b)
    return a[ok], b[ok]


def correlation(a, b, method: str = "pearson") -> float:
    """Correlation of two robustness vectors over points, ignoring NaNs.

    Parameters
    ----------
    a, b : array_like, shape (n,)
    method : {"pearson", "spearman"}

    Returns
    -------
    float (NaN when fewer than 3 valid points or a constant vector).
    """
    a, b = _finite_pairs(a, b, "a and b")
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    if method == "pearson":
        return float(np.corrcoef(a, b)[0, 1])
    if method == "spearman":
        return float(stats.spearmanr(a, b).statistic)
    raise ValueError(f"method must be 'pearson' or 'spearman'; got {method!r}.")


def min_pairwise_correlation(estimates) -> float:
    """Minimum Pearson correlation between all pairs of repeated estimates.

    The paper's convergence check (Sec. 4.1.3): repeat the Monte-Carlo estimate
    ``R`` times (20 in the paper) and report the smallest pairwise correlation.

    Parameters
    ----------
    estimates : array_like, shape (R, n)
        Row r = robustness of the n points in repetition r.

    Returns
    -------
    float
    """
    E = np.asarray(estimates, dtype=np.float64)
    if E.ndim != 2 or E.shape[0] < 2:
        raise ValueError(f"estimates must have shape (R >= 2, n); got {E.shape}.")
    if np.any(np.ptp(E, axis=1) == 0):
        raise ValueError("a repetition is constant over points; correlation is undefined.")
    Cr = np.corrcoef(E)
    iu = np.triu_indices(E.shape[0], k=1)
    return float(Cr[iu].min())


def max_order_violation(robustness, distance) -> float:
    """Largest amount by which a point farther from the boundary is *less* robust.

    ``max over pairs (i, j) with distance_i <= distance_j of robustness_i - robustness_j``
    (clipped at 0). It is 0 exactly when real-world robustness is a non-decreasing
    function of the counterfactual distance -- i.e. when the distance ranks the
    points correctly (paper Sec. 3.3: linear boundary, isotropic uncertainty) --
    and positive when two points at the same or increasing distance are ordered
    the other way by ``P_r`` (e.g. near the corner of the right-angle model).
    Unlike a rank correlation it is insensitive to ties from saturation at 1.

    Parameters
    ----------
    robustness, distance : array_like, shape (n,)

    Returns
    -------
    float >= 0 (robustness units). NaN entries are ignored.
    """
    r, d = _finite_pairs(robustness, distance, "robustness and distance")
    if r.size < 2:
        raise ValueError("need at least two finite (robustness, distance) pairs.")
    order = np.argsort(d, kind="stable")
    r, d = r[order], d[order]
    run_max = np.maximum.accumulate(r)
    # within a group of tied distances every member counts as "no farther" than the others
    last = np.searchsorted(d, d, side="right") - 1
    return float(max(0.0, np.max(run_max[last] - r)))
