"""The experiment set-ups of Scher & Trügler Sec. 4.1 (Iris, Ionosphere) as testable functions.

* Iris reduced to two classes, standardised to unit variance, random forest with 10
  trees of max depth 3 fitted on 2/3 of the data; robustness on the remaining 1/3.
* Ionosphere without its 2 categorical features (32 continuous features), MLP with two
  hidden ReLU layers of 256 units. The paper does not say how Ionosphere is scaled;
  we standardise with the training statistics like Iris, so that perturbation scales
  mean the same on both datasets.

The paper shows one split and one trained model per dataset. Its statements are about what such a classifier
does, so we repeat the whole experiment over independent *runs*: run ``r`` of a dataset draws its own split,
model, attack start and Monte-Carlo streams from ``robeval.core.seeding.keyed(seed, dataset, r)``
(:func:`sec41_run`). The runs are the cells of a resumable run grid (:func:`run_sec41_grid`), cached under the
git-ignored ``results/<profile>/grids/`` and keyed by the configuration and the code, so nothing is trained
twice and a committed result file never stands in for a computation. Every claim is then judged on intervals
over the runs (:func:`sec41_statistics`, :mod:`robeval.realworld.claims`).

The last sections hold the tables of notebook 07 (Appendix A).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from robeval.core.errors import IncompleteResult
from robeval.core.seeding import as_seed_sequence, keyed
from robeval.realworld.covariance import trace_normalized
from robeval.realworld.robustness import correlation, real_world_robustness

GRID_CELLS = (
    "sec41_cell",
    "sec41_pair_cell",
)  # the functions a grid store may name (core.runs.cell_function)

if TYPE_CHECKING:
    import pandas

__all__ = [
    "Split",
    "iris_split",
    "ionosphere_split",
    "fit_iris_forest",
    "fit_mlp",
    "torch_predict",
    "int_seed",
    "scale_sweep",
    "convergence_check",
    "SEC41_DATASETS",
    "sec41_run",
    "fig5_readings",
    "fig5_pair_run",
    "COV_READINGS",
    "own_cov_reading",
    "iris_pair_name",
    "sec41_cell",
    "sec41_scales",
    "sec41_config",
    "sec41_cells",
    "run_sec41_grid",
    "tidy_table",
    "load_sec41_results",
]

SEC41_DATASETS = ("iris", "ionosphere")

# The readings of "perturbation scale s" that Sec. 4.1 leaves open (robeval.core.ledger.ambiguities,
# "realworld_fig3_axis"), as the per-feature variance each gives at scale s on d-dimensional data: the covariance
# with unit diagonal (trace d) or normalised to trace 1, and s a multiplier of the variance or of the standard
# deviation. Our runs use one of the two variance readings (setting cov_trace, :func:`own_cov_reading`).
COV_READINGS = {
    "identity-variance": lambda s, d: s,
    "trace1-variance": lambda s, d: s / d,
    "identity-std": lambda s, d: s**2,
    "trace1-std": lambda s, d: s**2 / d,
}
IRIS_CLASSES = ("setosa", "versicolor", "virginica")  # the Iris labels 0, 1, 2


def own_cov_reading(cov_trace: str) -> str:
    """The reading of :data:`COV_READINGS` that the setting ``cov_trace`` runs: "features" (covariance ``s * C``
    with ``trace(C) = d``) is "identity-variance", "one" (``trace(C) = 1``) is "trace1-variance"."""
    if cov_trace not in ("features", "one"):
        raise ValueError(f"cov_trace must be 'features' or 'one'; got {cov_trace!r}.")
    return "identity-variance" if cov_trace == "features" else "trace1-variance"


def iris_pair_name(classes) -> str:
    """The reading name of an Iris class pair (robeval.core.ledger.ambiguities, "realworld_iris_pair"), e.g. (1, 2) ->
    "versicolor-virginica"."""
    a, b = sorted(int(c) for c in classes)
    if a == b or not 0 <= a < b <= 2:
        raise ValueError(f"an Iris class pair is two different labels in 0..2; got {classes!r}.")
    return f"{IRIS_CLASSES[a]}-{IRIS_CLASSES[b]}"


@dataclass(frozen=True)
class Split:
    """Standardised train/test split. Arrays are float64 (n, d) and int64 (n,)."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    mean: np.ndarray
    scale: np.ndarray


def int_seed(seed, *keys) -> int:
    """A 32-bit int seed for libraries that take only ints (scikit-learn, torch), derived from ``seed``
    (int or SeedSequence) and ``keys`` with :func:`robeval.core.seeding.keyed`."""
    return int(keyed(seed, *keys).generate_state(1)[0])


def _split(X, y, train_fraction, seed) -> Split:
    from sklearn.model_selection import train_test_split

    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1); got {train_fraction!r}.")
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=train_fraction, random_state=int(seed), stratify=y)
    mean, scale = Xtr.mean(axis=0), Xtr.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return Split((Xtr - mean) / scale, ytr, (Xte - mean) / scale, yte, mean, scale)


def iris_split(seed: int = 0, train_fraction: float = 2 / 3, classes=(0, 1)) -> Split:
    """Binary Iris (default setosa vs versicolor, 100 points, 4 features), standardised, stratified split."""
    from robeval.core.data import load_iris_binary

    X, y = load_iris_binary(tuple(classes))
    return _split(X, y, train_fraction, seed)


def ionosphere_split(seed: int = 0, train_fraction: float = 2 / 3) -> Split:
    """Ionosphere without the 2 categorical columns (351 x 32), standardised, stratified split."""
    from robeval.core.data import load_ionosphere

    X, y = load_ionosphere()
    return _split(X[:, 2:], y, train_fraction, seed)


def fit_iris_forest(split: Split, seed: int = 0, n_estimators: int = 10, max_depth: int = 3):
    """The paper's Iris classifier: RandomForestClassifier(10 trees, max depth 3)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_estimators, max_depth=max_depth, random_state=int(seed)).fit(
        split.X_train, split.y_train
    )


class torch_threads:
    """Context manager: run torch with ``n`` intra-op threads (an integer 1 .. 1024; None or 0: unchanged), then
    restore.

    Small tabular models train and attack several times faster single-threaded (thread start-up and
    spin-waiting dominate tiny matrix products, badly so on a busy machine)."""

    def __init__(self, n: int | None):
        from robeval.core.nn.training import check_threads

        zero = isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and n == 0
        self.n = None if n is None or zero else check_threads(n, "n")

    def __enter__(self):
        import torch

        self.old = torch.get_num_threads()
        if self.n is not None:
            torch.set_num_threads(self.n)

    def __exit__(self, *exc):
        import torch

        torch.set_num_threads(self.old)


def fit_mlp(
    split: Split,
    *,
    hidden=(256, 256),
    epochs: int = 200,
    batch_size: int = 32,
    lr: float = 0.01,
    seed: int = 0,
    progress: bool = False,
    threads: int = 1,
):
    """The paper's Ionosphere network: MLP (256, 256) ReLU, trained with SGD + momentum, cross-entropy.

    ``threads``: torch intra-op threads during training (1 is fastest for these small models; the same seed
    and thread count give a bit-identical model). Returns the trained ``torch.nn.Module`` (eval mode, on CPU).
    """
    import torch

    from robeval.core.nn import models, training

    torch.manual_seed(int(seed))
    model = models.build("mlp", num_classes=2, in_features=split.X_train.shape[1], hidden=tuple(hidden))
    training.train(
        model,
        split.X_train.astype(np.float32),
        split.y_train,
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        momentum=0.9,
        weight_decay=0.0,
        schedule="cosine",
        flip_crop_aug=False,
        seed=seed,
        device="cpu",
        progress=progress,
        desc="MLP",
        threads=threads,  # checked by train (an integer 1 .. 1024; int() would truncate 2.7)
    )
    return model.eval()


def torch_predict(model, batch_size: int = 2048):
    """``predict(Z) -> labels`` (int64, (m,)) for a torch logits model; Z float (m, d).

    Batches of ~2000 rows keep the hidden activations in cache: on a CPU the 256-256 MLP classifies twice as
    fast as with batches of 100 000 (the labels are the same)."""
    import torch

    from robeval.core.env import torch_device

    device = torch_device()
    model = model.eval().to(device)

    @torch.no_grad()
    def predict(Z):
        Z = torch.from_numpy(np.ascontiguousarray(Z, dtype=np.float32))
        out = [model(Z[i : i + batch_size].to(device)).argmax(1).cpu() for i in range(0, len(Z), batch_size)]
        return torch.cat(out).numpy().astype(np.int64)

    return predict


def scale_sweep(
    predict,
    X,
    base_cov,
    scales,
    adversarial,
    *,
    n_samples: int,
    seed,
    trace: float = 1.0,
    chunk_rows: int = 65536,
    progress: bool = True,
):
    """Real-world robustness at each perturbation scale and its correlation with adversarial robustness.

    Parameters
    ----------
    predict : callable, (m, d) -> (m,) labels
    X : array_like, shape (n, d)
    base_cov : array_like, shape (d, d)
        Covariance shape; rescaled to trace ``trace`` and multiplied by each scale.
    scales : sequence of float
        Perturbation scales (total variance, see :func:`robeval.realworld.covariance.trace_normalized`).
    adversarial : array_like, shape (n,)
        Rescaled adversarial robustness (NaN for failed attacks, ignored in correlations).
    n_samples, seed, chunk_rows :
        Monte-Carlo settings; scale ``s`` draws from ``keyed(seed, "sweep", s)``.
    trace : float
        Trace of the covariance at scale 1: 1 (trace-normalised) or ``d`` (identity with unit diagonal).

    Returns
    -------
    robustness : ndarray, float64, shape (len(scales), n)
    table : pandas.DataFrame with columns ``scale, pearson, spearman, mean_robustness, min_robustness``

    Raises :class:`robeval.core.errors.IncompleteResult` (with the finished scales in ``partial``) when a scale
    after the first fails.
    """
    import pandas as pd
    from tqdm.auto import tqdm

    if isinstance(scales, (str, bytes)) or np.ndim(scales) != 1:
        raise TypeError(f"scales must be a sequence of numbers (total variances), e.g. [0.5, 1.0]; got {scales!r}.")
    bad = [s for s in scales if isinstance(s, (bool, np.bool_, str, bytes)) or not np.isscalar(s) or not np.isreal(s)]
    if bad:
        raise TypeError(f"scales must hold numbers, got {bad[0]!r}; convert strings with float(...).")
    scales = [float(s) for s in scales]
    R = np.empty((len(scales), len(X)))
    rows = []
    for k, s in enumerate(tqdm(scales, desc="scales", disable=not progress)):
        cov = trace_normalized(base_cov, s * trace)
        try:
            R[k] = real_world_robustness(
                predict, X, cov=cov, n_samples=n_samples, rng=keyed(seed, "sweep", s), chunk_rows=chunk_rows
            )
        except Exception as exc:
            if k == 0:
                raise
            raise IncompleteResult(
                f"scale_sweep: scale {s:g} failed ({type(exc).__name__}: {exc}). The {k} of {len(scales)} scales "
                f"finished before are kept: the error's .partial holds (robustness[:{k}], table). After fixing the "
                f"cause, resume with scale_sweep(..., scales[{k}:], ...) with the same seed and concatenate: scale s "
                "draws from keyed(seed, 'sweep', s), so that equals an uninterrupted sweep.",
                partial=(R[:k].copy(), pd.DataFrame(rows)),
                done=k,
                total=len(scales),
            ) from exc
        rows.append(
            {
                "scale": s,
                "pearson": correlation(adversarial, R[k]),
                "spearman": correlation(adversarial, R[k], method="spearman"),
                "mean_robustness": R[k].mean(),
                "min_robustness": R[k].min(),
            }
        )
    return R, pd.DataFrame(rows)


def convergence_check(predict, X, cov, *, n_samples: int, n_repeats: int, seed, chunk_rows: int = 65536):
    """Repeat the Monte-Carlo estimate ``n_repeats`` times with independent streams (Sec. 4.1.3):
    repetition ``r`` draws from ``keyed(seed, "repeat", r)``.

    Returns
    -------
    estimates : ndarray, float64, shape (n_repeats, n)
    min_corr : float
        Minimum pairwise Pearson correlation (the paper reports > 0.999 for N = 10000);
        NaN if some repetition is constant over points.
    """
    from robeval.realworld.robustness import min_pairwise_correlation

    E = np.stack(
        [
            real_world_robustness(
                predict, X, cov=cov, n_samples=n_samples, rng=keyed(seed, "repeat", r), chunk_rows=chunk_rows
            )
            for r in range(int(n_repeats))
        ]
    )
    try:
        return E, min_pairwise_correlation(E)
    except ValueError:
        return E, float("nan")


# --------------------------------------------------------------------------------------------------
# Sec. 4.1: one run, the grid of runs, and the statistics the claims are judged on
# --------------------------------------------------------------------------------------------------


def _subset(split: Split, max_test_points: int | None) -> Split:
    if not max_test_points or max_test_points >= len(split.X_test):
        return split
    keep = np.linspace(0, len(split.X_test) - 1, int(max_test_points)).round().astype(int)
    return Split(split.X_train, split.y_train, split.X_test[keep], split.y_test[keep], split.mean, split.scale)


def sec41_run(
    dataset: str,
    seed,
    *,
    n_samples: int,
    sweep_samples: int,
    scales,
    scatter_scales,
    n_repeats: int,
    n_random_cov: int,
    attack: str,
    attack_kwargs: dict | None = None,
    model_kwargs: dict | None = None,
    cov_trace: str = "features",
    iris_classes=(1, 2),
    max_test_points: int | None = None,
    reading_samples: int | None = None,
    progress: bool = False,
) -> dict:
    """One independent run of Sec. 4.1 for ``dataset`` ("iris" or "ionosphere"); nothing is written.

    Every random step draws from its own child of ``seed`` (an int or a SeedSequence;
    :func:`robeval.core.seeding.keyed`): the split, the model, the attack's start, the random covariances and
    each Monte-Carlo estimate. Steps:

    1. split and fit the paper's classifier (Iris: random forest; Ionosphere: MLP 256-256 with ``model_kwargs``);
    2. adversarial robustness of every test point (CEML for the forest; ART Brendel-Bethge or DeepFool for the
       MLP, ``attack``), the distance rescaled by its maximum over the run's test points;
    3. the scale sweep (Figs. 3c/4c): real-world robustness with identity covariance at every scale of
       ``scales`` from ``sweep_samples`` samples per point, and its Pearson and Spearman correlation with
       adversarial robustness;
    4. at the *peak* scale (largest Spearman correlation of the sweep), two fresh independent estimates with
       ``n_samples`` samples (columns ``rw_peak``, ``rw_peak2``): the correlation of the first with adversarial
       robustness is free of the selection of the peak, that of the two estimates with each other is what a
       score ranking points exactly like real-world robustness would reach;
    5. at the scatter scales (Figs. 3a,b/4a,b) ``n_samples`` samples per point; at the first one ``n_repeats``
       independent repetitions (the convergence check; the first two are kept as ``rw_identity_<s>`` and
       ``rw_identity2_<s>``) and ``n_random_cov`` random covariances ``A^T A`` (Eq. 5) of the same trace
       (Fig. 5; columns ``rw_random<k>_<s>``).

    ``cov_trace`` fixes what "scale" means. The paper says its covariances are "normalised to a trace of 1" but
    also that the identity has "all diagonal terms 1" and that the random covariance has "the same trace" as the
    identity. ``"features"``: covariance at scale ``s`` is ``s * C`` with ``trace(C) = d`` (identity with unit
    diagonal; per-feature variance ``s``); ``"one"``: ``trace(C) = 1`` (per-feature variance ``s / d``).
    ``max_test_points`` (smoke runs) keeps an evenly spaced subset of the test points. With ``reading_samples``,
    the Fig. 5 estimates are also made under every other reading of the covariance (:data:`COV_READINGS`,
    ``reading_samples`` samples per point; :func:`fig5_readings`).

    Returns
    -------
    dict with ``points`` (DataFrame, one row per test point), ``sweep`` (one row per scale), ``summary``
    (dict: test accuracy, attack success rate, peak scale, convergence check, ...) and, with ``reading_samples``,
    ``fig5`` (:func:`fig5_readings`; column ``pair`` the Iris class pair, "" for Ionosphere).
    """
    import pandas as pd

    from robeval.realworld.adversarial import brendel_bethge, ceml_counterfactuals, deepfool
    from robeval.realworld.covariance import identity_covariance, random_covariance
    from robeval.realworld.robustness import min_pairwise_correlation

    if dataset not in SEC41_DATASETS:
        raise ValueError(f"dataset must be one of {SEC41_DATASETS}; got {dataset!r}.")
    if cov_trace not in ("features", "one"):
        raise ValueError(f"cov_trace must be 'features' or 'one'; got {cov_trace!r}.")
    if int(n_repeats) < 2:
        raise ValueError(f"n_repeats must be >= 2 (the convergence check compares repetitions); got {n_repeats!r}.")
    if int(n_random_cov) < 1:
        raise ValueError(f"n_random_cov must be >= 1; got {n_random_cov!r}.")
    scatter_scales = [float(s) for s in scatter_scales]
    if not scatter_scales:
        raise ValueError("scatter_scales needs at least one scale (panel a of Figs. 3/4).")
    attack_kwargs = dict(attack_kwargs or {})
    model_kwargs = dict(model_kwargs or {})
    seed = as_seed_sequence(seed)
    mc = keyed(seed, "mc")

    if dataset == "iris":
        if attack != "ceml":
            raise ValueError("the Iris random forest is attacked with CEML (attack='ceml').")
        split = _subset(iris_split(int_seed(seed, "split"), classes=tuple(iris_classes)), max_test_points)
        model = fit_iris_forest(split, seed=int_seed(seed, "model"), **model_kwargs)
        predict = model.predict
        adv = ceml_counterfactuals(model, split.X_test, progress=progress, **attack_kwargs)
    else:
        split = _subset(ionosphere_split(int_seed(seed, "split")), max_test_points)
        with torch_threads(1):
            model = fit_mlp(split, seed=int_seed(seed, "model"), progress=progress, **model_kwargs)
            if attack == "brendel_bethge":
                adv = brendel_bethge(model, split.X_test, seed=int_seed(seed, "attack"), **attack_kwargs)
            elif attack == "deepfool":
                adv = deepfool(model, split.X_test, **attack_kwargs)
            else:
                raise ValueError(f"attack for Ionosphere must be 'brendel_bethge' or 'deepfool'; got {attack!r}.")
        predict = torch_predict(model)

    X = split.X_test
    d = X.shape[1]
    tr = float(d) if cov_trace == "features" else 1.0
    eye = identity_covariance(d)
    r_adv = adv.robustness

    def estimate(cov, s, *keys, n=n_samples):
        return real_world_robustness(predict, X, cov=trace_normalized(cov, s * tr), n_samples=n, rng=keyed(mc, *keys))

    with torch_threads(1):
        _, sweep = scale_sweep(
            predict, X, eye, scales, r_adv, n_samples=sweep_samples, seed=mc, trace=tr, progress=progress
        )
        finite = sweep["spearman"].notna()
        peak = float(sweep.loc[sweep.loc[finite, "spearman"].idxmax(), "scale"]) if finite.any() else float(scales[-1])
        points = pd.DataFrame(
            {
                "point": np.arange(len(X)),
                "label": split.y_test,
                "prediction": predict(X),
                "adv_distance": adv.distance,
                "adv_success": adv.success,
                "adv_robustness": r_adv,
                "rw_peak": estimate(eye, peak, "peak", 0),
                "rw_peak2": estimate(eye, peak, "peak", 1),
            }
        )
        first = scatter_scales[0]
        repeats = np.stack([estimate(eye, first, "identity", first, r) for r in range(int(n_repeats))])
        try:
            min_corr = min_pairwise_correlation(repeats)
        except ValueError:  # a repetition constant over the points: the correlation is undefined
            min_corr = float("nan")
        points[f"rw_identity_{first:g}"] = repeats[0]
        points[f"rw_identity2_{first:g}"] = repeats[1]
        for s in scatter_scales[1:]:
            points[f"rw_identity_{s:g}"] = estimate(eye, s, "identity", s, 0)
        covs = [random_covariance(d, keyed(seed, "random_cov", k)) for k in range(int(n_random_cov))]
        for k, cov_k in enumerate(covs):
            points[f"rw_random{k}_{first:g}"] = estimate(cov_k, first, "random", first, k)
        if reading_samples is not None:
            own = [repeats[0], repeats[1]] + [points[f"rw_random{k}_{first:g}"].to_numpy() for k in range(len(covs))]
            fig5 = fig5_readings(
                predict, X, covs, mc, scale=first, cov_trace=cov_trace, own=own, n_samples=n_samples,
                reading_samples=reading_samples,
            )  # fmt: skip
            fig5.insert(0, "pair", iris_pair_name(iris_classes) if dataset == "iris" else "")

    summary = {
        "n_test": int(len(X)),
        "n_features": int(d),
        "test_accuracy": float(np.mean(points["prediction"] == split.y_test)),
        "attack": adv.method,
        "attack_success_rate": adv.success_rate,
        "peak_scale": peak,
        "convergence_scale": first,
        "n_repeats": int(n_repeats),
        "n_samples": int(n_samples),
        "min_pairwise_corr": min_corr,
    }
    out = {"points": points, "sweep": sweep, "summary": summary}
    if reading_samples is not None:
        out["fig5"] = fig5
    return out


def fig5_readings(
    predict, X, covs, mc, *, scale: float, cov_trace: str, n_samples: int, reading_samples: int, own=None
) -> pandas.DataFrame:
    """Fig. 5's estimates of one run under every reading of the covariance (:data:`COV_READINGS`).

    For each reading, at the scale ``scale`` (panel a's), with per-feature variance ``v = COV_READINGS[r](scale,
    d)``: two independent estimates of P_r with the identity covariance ``v * I`` (``rw_identity``,
    ``rw_identity2``: their difference is the Monte-Carlo noise) and one with each random covariance of ``covs``
    rescaled to the same trace ``v * d`` (``rw_random<k>``). The run's own reading (:func:`own_cov_reading` of
    ``cov_trace``) uses ``n_samples`` samples per point — or ``own``, the arrays the run already estimated, in the
    column order above —, the other readings ``reading_samples`` (every estimate of a reading at one N, so its
    noise and its covariance effect are measured alike).

    predict : the classifier; X : (n, d) test points; covs : list of (d, d) random covariances (any trace);
    mc : the run's Monte-Carlo SeedSequence (each reading draws from its own child). Returns a DataFrame with one
    row per reading and point: ``reading``, ``point``, ``n_samples``, ``rw_identity``, ``rw_identity2``,
    ``rw_random<k>`` (P_r in [0, 1]).
    """
    import pandas as pd

    from robeval.realworld.covariance import identity_covariance

    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    ours = own_cov_reading(cov_trace)
    cols = ["rw_identity", "rw_identity2"] + [f"rw_random{k}" for k in range(len(covs))]
    tables = []
    for reading, variance in COV_READINGS.items():
        total = float(variance(float(scale), d)) * d  # trace of the covariance: per-feature variance times d
        if reading == ours and own is not None:
            if len(own) != len(cols):
                raise ValueError(f"own must hold {len(cols)} arrays ({cols}), got {len(own)}.")
            values, n = [np.asarray(a, dtype=np.float64) for a in own], int(n_samples)
        else:
            n = int(n_samples) if reading == ours else int(reading_samples)
            keys = [("identity", 0), ("identity", 1)] + [("random", k) for k in range(len(covs))]
            mats = [identity_covariance(d), identity_covariance(d)] + list(covs)
            values = [
                real_world_robustness(
                    predict, X, cov=trace_normalized(m, total), n_samples=n, rng=keyed(mc, "reading", reading, *key)
                )
                for m, key in zip(mats, keys)
            ]
        t = pd.DataFrame(dict(zip(cols, values)))
        t.insert(0, "n_samples", n)
        t.insert(0, "point", np.arange(len(X)))
        t.insert(0, "reading", reading)
        tables.append(t)
    return pd.concat(tables, ignore_index=True)


def fig5_pair_run(
    seed, *, classes, scale: float, n_random_cov: int, cov_trace: str, n_samples: int, reading_samples: int,
    max_test_points: int | None = None,
) -> pandas.DataFrame:  # fmt: skip
    """Fig. 5 on Iris with another class pair (robeval.core.ledger.ambiguities, "realworld_iris_pair"): the run's split
    of the two ``classes`` and its random forest (as in :func:`sec41_run`), its ``n_random_cov`` random
    covariances, and :func:`fig5_readings` under every covariance reading. No attack and no scale sweep: only the
    Fig. 5 rows read this pair. Returns the :func:`fig5_readings` table with a column ``pair``."""
    from robeval.realworld.covariance import random_covariance

    seed = as_seed_sequence(seed)
    split = _subset(iris_split(int_seed(seed, "split"), classes=tuple(classes)), max_test_points)
    model = fit_iris_forest(split, seed=int_seed(seed, "model"))
    d = split.X_test.shape[1]
    covs = [random_covariance(d, keyed(seed, "random_cov", k)) for k in range(int(n_random_cov))]
    out = fig5_readings(
        model.predict, split.X_test, covs, keyed(seed, "mc"), scale=scale, cov_trace=cov_trace,
        n_samples=n_samples, reading_samples=reading_samples,
    )  # fmt: skip
    out.insert(0, "pair", iris_pair_name(classes))
    return out


def sec41_scales(cfg) -> np.ndarray:
    """The perturbation scales of the Sec. 4.1 sweep (Figs. 3c, 4c) from the settings of
    ``realworld_iris_ionosphere``: ``n_scales`` log-spaced values from ``scale_min`` to ``scale_max``
    (float64, both ends included)."""
    return np.logspace(np.log10(cfg["scale_min"]), np.log10(cfg["scale_max"]), cfg["n_scales"])


def sec41_config(cfg) -> dict:
    """The grid configuration of notebook 05 from the settings of ``realworld_iris_ionosphere``: everything
    that changes a run's results (``n_runs`` and ``n_jobs`` do not). Keys: ``seed``, ``n_samples``,
    ``sweep_samples``, ``scales`` (:func:`sec41_scales`), ``n_repeats``, ``n_random_cov``, ``cov_trace``,
    ``max_test_points``, ``reading_samples`` (Fig. 5 under the other covariance readings: ``sweep_samples``), and
    per dataset (``iris`` / ``ionosphere``) the keyword arguments of :func:`sec41_run`
    that differ: scatter scales, attack and its settings, model settings, Iris classes."""
    attack = cfg["ionosphere_attack"]
    return {
        "seed": int(cfg["seed"]),
        "n_samples": int(cfg["n_samples"]),
        "sweep_samples": int(cfg["sweep_samples"]),
        "scales": [float(s) for s in sec41_scales(cfg)],
        "n_repeats": int(cfg["n_repeats"]),
        "n_random_cov": int(cfg["n_random_cov"]),
        "cov_trace": cfg["cov_trace"],
        "max_test_points": int(cfg["max_test_points"]),
        # Fig. 5 under the covariance readings other than ours: N per point (robeval.core.ledger.ambiguities)
        "reading_samples": int(cfg["sweep_samples"]),
        "iris": {
            "scatter_scales": [float(s) for s in cfg["iris_scatter_scales"]],
            "attack": "ceml",
            "attack_kwargs": {"regularization": cfg["ceml_regularization"]},
            "model_kwargs": {},
            "iris_classes": [int(c) for c in cfg["iris_classes"]],
        },
        "ionosphere": {
            "scatter_scales": [float(s) for s in cfg["ionosphere_scatter_scales"]],
            "attack": attack,
            "attack_kwargs": {"steps": int(cfg["bb_steps"])} if attack == "brendel_bethge" else {},
            "model_kwargs": {
                "epochs": int(cfg["mlp_epochs"]),
                "batch_size": int(cfg["mlp_batch_size"]),
                "lr": float(cfg["mlp_lr"]),
            },
        },
    }


def sec41_cells(n_runs: int, iris_classes=None) -> list[dict]:
    """The grid cells ``{"dataset", "run"}``: Ionosphere first (its runs are the long ones, so parallel
    workers start with them and finish with the short Iris runs); with ``iris_classes`` (our pair), then the Fig. 5
    cells ``{"dataset": "iris", "run", "pair"}`` of every other Iris class pair (:func:`fig5_pair_run`)."""
    if int(n_runs) < 1:
        raise ValueError(f"n_runs must be >= 1; got {n_runs!r}.")
    cells = [{"dataset": d, "run": r} for d in ("ionosphere", "iris") for r in range(int(n_runs))]
    if iris_classes is not None:
        cells += [
            {"dataset": "iris", "run": r, "pair": p} for p in _other_pairs(iris_classes) for r in range(int(n_runs))
        ]
    return cells


def sec41_cell(cell: dict, config: dict) -> list[dict]:
    """Grid cell of notebook 05: run ``cell["run"]`` of ``cell["dataset"]`` (:func:`sec41_run`, seeded by
    ``keyed(config["seed"], dataset, run)``), as rows tagged ``table`` = "points", "sweep", "summary" or "fig5";
    a cell with ``pair`` (another Iris class pair) is :func:`fig5_pair_run` only (rows tagged "fig5")."""
    dataset, run = cell["dataset"], int(cell["run"])
    if dataset not in SEC41_DATASETS:
        raise ValueError(f"dataset must be one of {SEC41_DATASETS}; got {dataset!r}.")
    per = config[dataset]
    if cell.get("pair"):  # Fig. 5 with another Iris class pair: its own stream, keyed by the pair
        classes = [IRIS_CLASSES.index(c) for c in cell["pair"].split("-")]
        fig5 = fig5_pair_run(
            keyed(config["seed"], dataset, run, "pair", cell["pair"]), classes=classes,
            scale=per["scatter_scales"][0], n_random_cov=config["n_random_cov"], cov_trace=config["cov_trace"],
            n_samples=config["n_samples"], reading_samples=config["reading_samples"],
            max_test_points=config["max_test_points"] or None,
        )  # fmt: skip
        return [{"table": "fig5", **r} for r in fig5.to_dict(orient="records")]
    out = sec41_run(
        dataset,
        keyed(config["seed"], dataset, run),
        iris_classes=per.get("iris_classes", (1, 2)),
        **_sec41_settings(config, per),
    )
    return _sec41_rows(out)


def _sec41_settings(config: dict, per: dict) -> dict:
    """The keyword arguments of :func:`sec41_run` a grid cell takes from its config (``per``: the dataset's part)."""
    return dict(
        n_samples=config["n_samples"],
        sweep_samples=config["sweep_samples"],
        scales=config["scales"],
        scatter_scales=per["scatter_scales"],
        n_repeats=config["n_repeats"],
        n_random_cov=config["n_random_cov"],
        attack=per["attack"],
        attack_kwargs=per["attack_kwargs"],
        model_kwargs=per["model_kwargs"],
        cov_trace=config["cov_trace"],
        max_test_points=config["max_test_points"] or None,
        reading_samples=config.get("reading_samples"),
    )


def _sec41_rows(out: dict) -> list[dict]:
    """A :func:`sec41_run` result as grid rows tagged ``table`` = "points", "fig5" (if any), "sweep", "summary"."""
    rows = [{"table": "points", **r} for r in out["points"].to_dict(orient="records")]
    if "fig5" in out:
        rows += [{"table": "fig5", **r} for r in out["fig5"].to_dict(orient="records")]
    rows += [{"table": "sweep", **r} for r in out["sweep"].to_dict(orient="records")]
    rows.append({"table": "summary", **out["summary"]})
    return rows


_INT_COLUMNS = ("run", "point", "label", "prediction", "fog", "n_test", "n_test_points", "n_features", "n_repeats",
                "n_samples")  # fmt: skip


def tidy_table(table) -> pandas.DataFrame:
    """A table split off a grid's collected results: columns without any value dropped, count and label columns
    made int64 and True/False columns bool again (mixing tables in one grid turns them into float / object)."""
    t = table.dropna(axis=1, how="all").copy()
    for col in t.columns:
        v = t[col]
        if v.isna().any():
            continue
        if col in _INT_COLUMNS:
            t[col] = v.astype(np.int64)
        elif v.dtype == object and set(v.unique()) <= {True, False}:
            t[col] = v.astype(bool)
    return t.reset_index(drop=True)


def run_sec41_grid(cfg, out_dir, *, progress: bool = True) -> dict:
    """Notebook 05's computation: ``n_runs`` runs of each dataset as a resumable run grid
    (:func:`robeval.core.runs.run_grid` with :func:`sec41_cell`, ``n_jobs`` workers; cells cached under
    ``results/<profile>/grids/realworld_sec41`` by configuration and code), then the result files
    ``<dataset>_points.csv``, ``<dataset>_sweep.csv``, ``<dataset>_runs.csv`` and ``<dataset>_fig5.csv`` written
    into ``out_dir`` (one row per run and point / scale / run / class pair, covariance reading and point; column
    ``run``). Returns ``{dataset: {table: DataFrame}}``.
    """
    from pathlib import Path

    from robeval.core import io
    from robeval.core.runs import grid_store, run_grid

    out_dir = Path(out_dir)
    df = run_grid(
        sec41_cell,
        sec41_cells(cfg["n_runs"], cfg["iris_classes"]),
        store=grid_store(cfg.profile, "realworld_sec41"),
        config=sec41_config(cfg),
        n_jobs=int(cfg["n_jobs"]),
        desc="Sec. 4.1 runs",
        progress=progress,
    )
    tables = {}
    for dataset in SEC41_DATASETS:
        part = df[df["dataset"] == dataset]
        tables[dataset] = {}
        for table, name in (("points", "points"), ("sweep", "sweep"), ("summary", "runs"), ("fig5", "fig5")):
            t = part[part["table"] == table].drop(columns=["table", "dataset"])
            if table != "fig5":
                t = t.drop(columns=["pair"], errors="ignore")
            t = tidy_table(t)
            if table == "fig5" and dataset != "iris":
                t = t.drop(columns=["pair"], errors="ignore")  # one Ionosphere dataset: no class pair
            order = {"points": ["point"], "sweep": ["scale"], "summary": [], "fig5": ["pair", "reading", "point"]}
            t = t.sort_values(["run"] + [c for c in order[table] if c in t.columns])
            t = t.reset_index(drop=True)
            io.save_frame(t, out_dir / f"{dataset}_{name}.csv")
            tables[dataset][name] = t
    return tables


def sec41_pair_cells(n_runs: int, iris_classes) -> list[dict]:
    """The cells ``{"pair", "run"}`` of :func:`sec41_pair_cell`: every Iris class pair other than ``iris_classes``
    (ours), ``n_runs`` runs each."""
    if int(n_runs) < 1:
        raise ValueError(f"n_runs must be >= 1; got {n_runs!r}.")
    return [{"pair": p, "run": r} for p in _other_pairs(iris_classes) for r in range(int(n_runs))]


def _other_pairs(iris_classes) -> list[str]:
    """The names ('a-b') of the Iris class pairs other than ``iris_classes`` (ours), in a fixed order."""
    ours = iris_pair_name(iris_classes)
    return [iris_pair_name(p) for p in ((0, 1), (0, 2), (1, 2)) if iris_pair_name(p) != ours]


def sec41_pair_cell(cell: dict, config: dict) -> list[dict]:
    """Grid cell of notebook 05's other Iris class pairs (robeval.core.ledger.ambiguities, "realworld_iris_pair"):
    the whole Sec. 4.1 run (:func:`sec41_run`: forest, CEML attack, scale sweep, scatter scales, convergence
    repetitions, Fig. 5 under every covariance reading) on the two classes of ``cell["pair"]``, seeded by
    ``keyed(config["seed"], "iris", run, "pair-run", pair)`` (independent of our pair's runs and of the Fig. 5-only
    pair cells of :func:`sec41_cell`). Rows tagged ``table`` = "points", "sweep", "summary" or "fig5", each with
    ``pair``."""
    pair, run = str(cell["pair"]), int(cell["run"])
    names = pair.split("-")
    if len(names) != 2 or any(n not in IRIS_CLASSES for n in names):
        raise ValueError(f"pair must name two Iris classes 'a-b' of {IRIS_CLASSES}; got {pair!r}.")
    per = config["iris"]
    out = sec41_run(
        "iris",
        keyed(config["seed"], "iris", run, "pair-run", pair),
        iris_classes=[IRIS_CLASSES.index(n) for n in names],
        **_sec41_settings(config, per),
    )
    return [{**r, "pair": pair} for r in _sec41_rows(out)]


def run_sec41_pairs_grid(cfg, out_dir, *, progress: bool = True) -> dict:
    """The Iris rows under the other class pairs (the ambiguity "realworld_iris_pair"): ``n_runs`` runs of each
    pair other than ``iris_classes`` (:func:`sec41_pair_cell`) as a resumable run grid cached under
    ``results/<profile>/grids/realworld_sec41_pairs``, then ``iris_pairs_points.csv``, ``iris_pairs_sweep.csv``,
    ``iris_pairs_runs.csv`` and ``iris_pairs_fig5.csv`` in ``out_dir`` (column ``pair``). Returns
    :func:`load_sec41_pair_results`."""
    from pathlib import Path

    from robeval.core import io
    from robeval.core.runs import grid_store, run_grid

    out_dir = Path(out_dir)
    df = run_grid(
        sec41_pair_cell,
        sec41_pair_cells(cfg["n_runs"], cfg["iris_classes"]),
        store=grid_store(cfg.profile, "realworld_sec41_pairs"),
        config=sec41_config(cfg),
        n_jobs=int(cfg["n_jobs"]),
        desc="Sec. 4.1 runs, other Iris pairs",
        progress=progress,
    )
    order = {"points": ["point"], "sweep": ["scale"], "summary": [], "fig5": ["reading", "point"]}
    for table, name in (("points", "points"), ("sweep", "sweep"), ("summary", "runs"), ("fig5", "fig5")):
        t = tidy_table(df[df["table"] == table].drop(columns=["table"]))
        t = t.sort_values(["pair", "run"] + [c for c in order[table] if c in t.columns]).reset_index(drop=True)
        io.save_frame(t, out_dir / f"iris_pairs_{name}.csv")
    return load_sec41_pair_results(out_dir)


def load_sec41_pair_results(out_dir) -> dict:
    """The files :func:`run_sec41_pairs_grid` wrote: ``{pair: {"points", "sweep", "runs", "fig5"}}`` (one entry per
    Iris class pair other than ours, each table without its ``pair`` column), or ``{}`` where the folder has none
    (written before the other pairs ran: their rows stay open)."""
    from pathlib import Path

    from robeval.core import io

    out_dir = Path(out_dir)
    names = ("points", "sweep", "runs", "fig5")
    if not all((out_dir / f"iris_pairs_{n}.csv").exists() for n in names):
        return {}
    tables = {n: io.load_frame(out_dir / f"iris_pairs_{n}.csv") for n in names}
    pairs = sorted(set(tables["runs"]["pair"].astype(str)))
    return {
        p: {n: t[t["pair"].astype(str) == p].drop(columns=["pair"]).reset_index(drop=True) for n, t in tables.items()}
        for p in pairs
    }


def load_sec41_results(out_dir, dataset: str) -> dict:
    """The result files :func:`run_sec41_grid` wrote for ``dataset``: ``{"points", "sweep", "runs"}``
    DataFrames (column ``run`` in each), and ``"fig5"`` (Fig. 5 under every covariance reading and, for Iris,
    class pair) where the folder has it."""
    from pathlib import Path

    from robeval.core import io

    if dataset not in SEC41_DATASETS:
        raise ValueError(f"dataset must be one of {SEC41_DATASETS}; got {dataset!r}.")
    out_dir = Path(out_dir)
    out = {name: io.load_frame(out_dir / f"{dataset}_{name}.csv") for name in ("points", "sweep", "runs")}
    if (out_dir / f"{dataset}_fig5.csv").exists():  # absent in result folders written before the readings
        out["fig5"] = io.load_frame(out_dir / f"{dataset}_fig5.csv")
    return out
