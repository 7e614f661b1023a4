"""The MSCR protocol (Siedel et al. 2022, Algorithm 1 and Sec. 3.2) as resumable run grids.

One *cell* is one run seed and one training noise level ``eps_train``: it draws the run's train/test split,
trains one model on ``eps_train``-augmented training data and tests it on clean data and on every
``eps_test`` level; it returns one row per ``eps_test``. Cells are independent and carry their own seed,
so :func:`robeval.runs.run_grid` can resume and parallelise them.

Augmentation follows the authors' code: for ``eps > 0`` every point is replaced by ``k`` noisy copies
(uniform in the L_p ball of radius eps, :mod:`robeval.noise`) with the point's label; ``eps = 0`` means
the clean data. The accuracy of a model under ``eps_test`` is the fraction of correctly classified noisy
copies.

``noise_mode`` selects where the random numbers come from:

``"iid"`` (default; what the paper describes)
    every point gets its own independent offsets; training noise depends on (run seed, eps_train), test
    noise on (run seed, eps_test), so within one run all models see the same test noise (paired
    comparisons between columns, as in the authors' code).
``"shared_offsets"`` (what the reference code does)
    the authors' sampler calls ``np.random.seed(run_seed)`` before sampling *each point*, so within a run
    every point receives the same k offsets, and train and test noise of any levels are the same k unit
    offsets scaled by eps. We reproduce that structure with one draw of k unit-ball offsets per run.

MSCR (Eq. 2) per run: ``(Acc_rob(eps_min) - Acc_clean) / Acc_clean``, reported in percent and averaged
over runs (Algorithm 1, line 9).
"""

from __future__ import annotations

import functools
import math
import zlib

import numpy as np
import pandas as pd

from robeval.noise import unit_ball_offsets
from robeval.separation import check_norm
from robeval.validation import check_frame

__all__ = [
    "NOISE_MODES",
    "split_indices",
    "noise_generator",
    "augment",
    "augment_shared",
    "make_classifier",
    "evaluate_levels",
    "run_cell_2d",
    "run_cell_cifar",
    "mscr_value",
    "mscr_per_run",
    "mean_ci",
    "accuracy_matrix",
    "mscr_summary",
    "row_optima",
    "resolve_eps_levels",
    "make_cells",
    "reference_positions",
    "compare_with_reference",
    "printed_vs_csv",
    "corrected_cifar_eps_test",
    "separation_table",
    "cifar_separation_table",
    "accuracy_table",
    "compare_modes_with_reference",
    "reference_agreement_overview",
    "difference_matrix",
    "row_optima_table",
    "count_matching_optima",
    "mscr_mode_table",
    "k_effect_cells",
    "k_effect_stats",
    "count_equal_columns",
]

NOISE_MODES = ("iid", "shared_offsets")
_ROLE = {"train": 0, "test": 1, "shared": 2, "split": 3, "model": 4}


# ------------------------------------------------------------------------------------ random streams
def _eps_key(eps: float) -> int:
    # a stable integer for a noise level (eps_min is irrational-looking: hash its repr)
    return zlib.crc32(repr(round(float(eps), 12)).encode())


def noise_generator(seed: int, role: str, eps: float = 0.0) -> np.random.Generator:
    """Independent numpy Generator for (run seed, role, eps); ``role`` in {"train", "test", "shared", ...}."""
    if role not in _ROLE:
        raise ValueError(f"role must be one of {sorted(_ROLE)}, got {role!r}")
    return np.random.default_rng(np.random.SeedSequence([int(seed), _ROLE[role], _eps_key(eps)]))


def split_indices(n: int, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random train/test split of ``range(n)`` (not stratified, like ``train_test_split`` in the paper).

    Returns
    -------
    (train_idx, test_idx) : int64 arrays; ``len(test_idx) = ceil(test_size * n)``.
    """
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    n_test = int(math.ceil(test_size * n))
    if n_test >= n:
        raise ValueError(f"test_size={test_size} leaves no training data for n={n}")
    perm = noise_generator(seed, "split").permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _check_eps(eps):
    eps = float(eps)
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"eps must be finite and >= 0, got {eps}")
    return eps


def augment(X, y, eps: float, k: int, norm, rng: np.random.Generator):
    """Replace every point by ``k`` i.i.d. uniform noisy copies in its eps-ball (``eps = 0``: clean data).

    Parameters
    ----------
    X : ndarray (n, d); y : ndarray (n,); eps : float >= 0; k : int >= 1; norm : {np.inf, 2, 1}
    rng : numpy.random.Generator

    Returns
    -------
    (X_aug (n*k, d) float64, y_aug (n*k,)); copies of point i are rows i*k .. i*k+k-1.
    """
    eps = _check_eps(eps)
    if eps == 0:
        return np.asarray(X, dtype=np.float64), np.asarray(y)
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    off = unit_ball_offsets(n, k, d, norm, rng)
    return (X[:, None, :] + eps * off).reshape(n * k, d), np.repeat(y, k)


def augment_shared(X, y, eps: float, unit_offsets: np.ndarray):
    """Reference-code behaviour: every point gets the same offsets ``eps * unit_offsets`` (shape (k, d))."""
    eps = _check_eps(eps)
    if eps == 0:
        return np.asarray(X, dtype=np.float64), np.asarray(y)
    X = np.asarray(X, dtype=np.float64)
    k = unit_offsets.shape[0]
    return (X[:, None, :] + eps * unit_offsets[None]).reshape(-1, X.shape[1]), np.repeat(y, k)


# ------------------------------------------------------------------------------------------- models
def make_classifier(model: str, seed: int, *, n_estimators: int = 100, n_jobs: int | None = None):
    """The paper's 2D classifiers: ``"rf"`` RandomForest(100 trees) or ``"1nn"`` 1-nearest-neighbour.

    The authors' 1-NN uses scikit-learn's default Euclidean metric for every noise norm; so does ours.
    """
    if model == "rf":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=n_estimators, random_state=int(seed) % (2**32), n_jobs=n_jobs)
    if model == "1nn":
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=1)
    raise ValueError(f"unknown model {model!r}; use 'rf' or '1nn'")


def evaluate_levels(predict, X_test, y_test, eps_test, k: int, norm, *, seed: int, noise_mode: str = "iid",
                    unit_offsets=None) -> list[dict]:
    """Accuracy of ``predict`` on clean and on every eps_test-augmented copy of the test set.

    All noisy test sets go through ``predict`` in ONE call (cheap per-call overhead), and the clean
    test set is predicted once however often ``0`` appears.

    Returns
    -------
    list of dicts ``{"eps_test": float, "acc": float in [0, 1], "n_eval": int}``, in the order of eps_test.
    """
    if noise_mode not in NOISE_MODES:
        raise ValueError(f"noise_mode must be one of {NOISE_MODES}, got {noise_mode!r}")
    blocks, labels, slices = [X_test], [y_test], {}
    pos = len(X_test)
    for e in dict.fromkeys(float(v) for v in eps_test):
        if e == 0:
            slices[e] = slice(0, len(X_test))
            continue
        if noise_mode == "iid":
            Xa, ya = augment(X_test, y_test, e, k, norm, noise_generator(seed, "test", e))
        else:
            Xa, ya = augment_shared(X_test, y_test, e, unit_offsets[:k])
        blocks.append(Xa)
        labels.append(ya)
        slices[e] = slice(pos, pos + len(Xa))
        pos += len(Xa)
    correct = np.asarray(predict(np.concatenate(blocks))) == np.concatenate(labels)
    return [{"eps_test": float(e), "acc": float(correct[slices[float(e)]].mean()),
             "n_eval": int(slices[float(e)].stop - slices[float(e)].start)} for e in eps_test]


@functools.lru_cache(maxsize=4)
def _load_2d(dataset: str):
    from robeval.data import load_mscr_2d

    return load_mscr_2d(dataset)


def run_cell_2d(cell: dict, config: dict) -> list[dict]:
    """One run of the 2D protocol for one model: split, augment, fit, test on all eps_test levels.

    cell : ``{"seed": int, "eps_train": float, "model": "rf" | "1nn" (optional), "k": int (optional)}``
    config : ``dataset`` ("A"/"B"/"C"), ``norm`` ("linf"/"l2"), ``eps_test`` (list), ``k_train``, ``k_test``,
        ``test_size`` (0.2), ``n_estimators`` (100), ``noise_mode``, ``model`` (default "rf"),
        ``rf_n_jobs`` (threads per forest).
        A ``k`` in the cell overrides both k_train and k_test (Fig. 4).

    Returns one row per eps_test: ``eps_test``, ``acc`` (fraction), ``n_eval``.
    """
    seed = int(cell["seed"])
    eps_train = _check_eps(cell["eps_train"])
    model = cell.get("model", config.get("model", "rf"))
    k_train = int(cell.get("k", config.get("k_train", 10)))
    k_test = int(cell.get("k", config.get("k_test", 10)))
    if k_train < 1 or k_test < 1:
        raise ValueError(f"k must be >= 1, got k_train={k_train}, k_test={k_test}")
    norm = check_norm(config.get("norm", "linf"))
    noise_mode = config.get("noise_mode", "iid")
    if noise_mode not in NOISE_MODES:
        raise ValueError(f"noise_mode must be one of {NOISE_MODES}, got {noise_mode!r}")
    X, y = _load_2d(config.get("dataset", "B"))
    tr, te = split_indices(len(X), float(config.get("test_size", 0.2)), seed)
    unit = None
    if noise_mode == "shared_offsets":
        unit = unit_ball_offsets(1, max(k_train, k_test), X.shape[1], norm, noise_generator(seed, "shared"))[0]
        Xtr, ytr = augment_shared(X[tr], y[tr], eps_train, unit[:k_train])
    else:
        Xtr, ytr = augment(X[tr], y[tr], eps_train, k_train, norm, noise_generator(seed, "train", eps_train))
    clf = make_classifier(model, seed, n_estimators=int(config.get("n_estimators", 100)),
                          n_jobs=config.get("rf_n_jobs"))
    clf.fit(Xtr, ytr)
    rows = evaluate_levels(clf.predict, X[te], y[te], config["eps_test"], k_test, norm, seed=seed,
                           noise_mode=noise_mode, unit_offsets=unit)
    for r in rows:
        r["model"] = model
    return rows


# --------------------------------------------------------------------------------------- CIFAR-10
def uniform_linf_box(x, eps: float, gen, lo: float = 0.0, hi: float = 1.0):
    """Uniform noise in the L_inf ball intersected with the pixel box [lo, hi]^d (torch, per coordinate).

    The authors' CIFAR code samples ``Uniform(max(x - eps, 0), min(x + eps, 1))`` coordinate-wise, i.e.
    uniformly on the intersection of the eps-cube and the image box (no mass piles up at 0 or 1 as it
    would with clipping). ``x``: float tensor in [lo, hi]; ``gen``: torch.Generator.
    """
    import torch

    low = torch.clamp(x - eps, min=lo)
    high = torch.clamp(x + eps, max=hi)
    u = torch.rand(x.shape, generator=gen, dtype=x.dtype, device=x.device)
    return low + (high - low) * u


def image_mlp(hidden=(512, 256), num_classes: int = 10):
    """A CPU-cheap image classifier: channel normalisation, flatten, ReLU MLP (``robeval.models.MLP``).

    Used by the ``default`` profile where a CNN cannot be trained long enough on two CPU cores; input is
    float images in [0, 1] (N, 3, 32, 32) like every ``robeval.models`` image model.
    """
    from robeval import models

    class ImageMLP(models.FeatureClassifier):
        def __init__(self):
            super().__init__()
            self.norm = models.Normalize()
            self.mlp = models.MLP(3 * 32 * 32, hidden=tuple(hidden), num_classes=num_classes)
            self.head = self.mlp.head

        def features(self, x):
            return self.mlp.features(self.norm(x).flatten(1))

    return ImageMLP()


@functools.lru_cache(maxsize=2)
def _load_cifar(full: bool):
    from robeval.data import load_cifar10_any

    return load_cifar10_any(full)


def run_cell_cifar(cell: dict, config: dict) -> list[dict]:
    """One run of the CIFAR-10 protocol for one eps_train (k = 1, L_inf noise inside the pixel box).

    cell : ``{"seed": int, "eps_train": float}``
    config : ``arch``, ``epochs``, ``batch_size``, ``lr``, ``momentum``, ``weight_decay``, ``schedule``,
        ``milestones``, ``n_train``, ``n_test`` (prefixes of the shipped subset / full set; 0 = all),
        ``full_data``, ``eps_test`` (list), ``torch_threads``, ``width`` (cnn_small), ``dropout`` (WRN).

    Returns one row per eps_test: ``eps_test``, ``acc`` (fraction), ``n_eval``.
    """
    import torch

    from robeval import models, training

    seed = int(cell["seed"])
    eps_train = _check_eps(cell["eps_train"])
    if config.get("torch_threads"):
        torch.set_num_threads(int(config["torch_threads"]))
    x_tr, y_tr, x_te, y_te = _load_cifar(bool(config.get("full_data", False)))
    n_tr = int(config.get("n_train") or len(x_tr))
    n_te = int(config.get("n_test") or len(x_te))
    x_tr, y_tr, x_te, y_te = x_tr[:n_tr], y_tr[:n_tr], x_te[:n_te], y_te[:n_te]
    torch.manual_seed(seed)
    arch = config.get("arch", "cnn_small")
    net = image_mlp(tuple(config.get("hidden") or (512, 256))) if arch == "image_mlp" else models.from_config(
        {**config, "arch": arch})
    transform = None
    if eps_train > 0:
        transform = lambda xb, gen: uniform_linf_box(xb, eps_train, gen)  # noqa: E731
    training.train(net, x_tr, y_tr, epochs=int(config["epochs"]), batch_size=int(config["batch_size"]),
                   lr=float(config["lr"]), momentum=float(config.get("momentum", 0.9)),
                   weight_decay=float(config.get("weight_decay", 5e-4)), schedule=config.get("schedule", "step"),
                   milestones=config.get("milestones"), flip_crop_aug=True, batch_transform=transform,
                   seed=seed, progress=False, desc=f"eps_train={eps_train:g}")
    x_clean = training.to_float_tensor(x_te)
    rows = []
    clean_pred = training.predict(net, x_clean)
    for e in config["eps_test"]:
        e = float(e)
        if e == 0:
            pred = clean_pred
        else:
            gen = torch.Generator().manual_seed(int(np.random.SeedSequence([seed, _ROLE["test"], _eps_key(e)])
                                                    .generate_state(1)[0]))
            pred = training.predict(net, uniform_linf_box(x_clean, e, gen))
        rows.append({"eps_test": e, "acc": float(np.mean(pred == y_te)), "n_eval": int(len(y_te))})
    return rows


# ---------------------------------------------------------------------------------------- metrics
def mscr_value(acc_clean, acc_rob):
    """MSCR in percent, Eq. (2): ``100 * (acc_rob - acc_clean) / acc_clean`` (elementwise, arrays ok)."""
    acc_clean = np.asarray(acc_clean, dtype=np.float64)
    acc_rob = np.asarray(acc_rob, dtype=np.float64)
    if np.any(acc_clean <= 0):
        raise ValueError("clean accuracy must be > 0 to normalise the MSCR")
    return 100.0 * (acc_rob - acc_clean) / acc_clean


def _match_eps(values: pd.Series, eps: float) -> pd.Series:
    return np.isclose(values.to_numpy(dtype=float), float(eps), rtol=1e-9, atol=1e-12)


def mscr_per_run(df: pd.DataFrame, eps_min: float, *, by=("eps_train",)) -> pd.DataFrame:
    """Per-run MSCR from tidy rows (columns ``seed``, ``eps_test``, ``acc`` and the ``by`` columns).

    Returns a frame with ``by`` + ``seed`` + ``acc_clean``, ``acc_rob``, ``mscr`` (percent).
    """
    keys = list(by) + ["seed"]
    clean = df[_match_eps(df["eps_test"], 0.0)].set_index(keys)["acc"]
    rob = df[_match_eps(df["eps_test"], eps_min)].set_index(keys)["acc"]
    if rob.empty:
        raise ValueError(f"no rows with eps_test == eps_min = {eps_min}; include eps_min in eps_test")
    out = pd.DataFrame({"acc_clean": clean, "acc_rob": rob}).dropna()
    out["mscr"] = mscr_value(out["acc_clean"], out["acc_rob"])
    return out.reset_index()


def mean_ci(values, level: float = 0.95) -> tuple[float, float, float, int]:
    """Mean, sample std and the t-based half-width of the ``level`` CI of the mean: (mean, std, margin, n)."""
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    n = v.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    if n == 1:
        return float(v[0]), math.nan, math.nan, 1
    std = float(v.std(ddof=1))
    margin = float(stats.t.ppf(0.5 + level / 2, n - 1) * std / math.sqrt(n))
    return float(v.mean()), std, margin, n


def accuracy_matrix(df: pd.DataFrame, *, level: float = 0.95, percent: bool = True) -> dict:
    """Mean accuracy eps_test x eps_train over runs with std and CI margin.

    Returns dict of DataFrames ``mean``, ``std``, ``margin``, ``n`` (index eps_test, columns eps_train);
    in percent when ``percent``.
    """
    scale = 100.0 if percent else 1.0
    stats_ = df.groupby(["eps_test", "eps_train"])["acc"].apply(lambda s: mean_ci(s * scale, level))
    out = {}
    for i, name in enumerate(("mean", "std", "margin", "n")):
        out[name] = stats_.apply(lambda t: t[i]).unstack("eps_train")
    return out


def mscr_summary(df: pd.DataFrame, eps_min: float, *, by=("eps_train",), level: float = 0.95) -> pd.DataFrame:
    """MSCR (percent) mean, std, CI margin and n over runs, per ``by`` group."""
    per = mscr_per_run(df, eps_min, by=by)
    rows = []
    for key, grp in per.groupby(list(by)):
        m, s, h, n = mean_ci(grp["mscr"], level)
        ac = mean_ci(100 * grp["acc_clean"], level)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "mscr": m, "mscr_std": s,
                     "mscr_margin": h, "acc_clean": ac[0], "acc_clean_margin": ac[2], "n_runs": n})
    return pd.DataFrame(rows)


def row_optima(mean: pd.DataFrame) -> pd.Series:
    """For every eps_test row, the eps_train column with the highest mean accuracy."""
    return mean.idxmax(axis=1)


# ------------------------------------------------------------------------------------ grid helpers
def resolve_eps_levels(levels, eps_min: float) -> list[float]:
    """Replace the placeholder ``-1`` (settings files) by the measured ``eps_min``; check the rest are >= 0."""
    out = []
    for v in levels:
        v = float(v)
        if v == -1.0:
            v = float(eps_min)
        elif v < 0:
            raise ValueError(f"noise levels must be >= 0 (or -1 for eps_min), got {v}")
        out.append(v)
    return out


def make_cells(seeds, eps_train, **fixed) -> list[dict]:
    """Grid cells ``{"seed": s, "eps_train": e, **fixed}`` for every run seed and training level."""
    return [{"seed": int(s), "eps_train": float(e), **fixed} for s in seeds for e in eps_train]


def reference_positions(ours, reference) -> list[int]:
    """Position in ``reference`` (noise levels) of every level in ``ours``, matched by value.

    The reference sheets print eps_min at full precision in their column headers, so a relative tolerance of
    1e-6 matches it while keeping the printed levels (0.001, 0.002, ...) apart. Raises ValueError for a level of
    ``ours`` that the reference lacks.
    """
    ref = np.asarray(reference, dtype=float)
    pick = []
    for c in np.asarray(ours, dtype=float):
        hit = np.flatnonzero(np.isclose(ref, c, rtol=1e-6, atol=1e-9))
        if hit.size == 0:
            raise ValueError(f"eps_train {c} has no column in the reference ({list(ref)})")
        pick.append(int(hit[0]))
    return pick


def compare_with_reference(mean: pd.DataFrame, margin: pd.DataFrame, ref_mean: pd.DataFrame,
                           ref_margin: pd.DataFrame | None = None) -> pd.DataFrame:
    """Cell-by-cell comparison of our accuracy matrix with the authors'.

    Rows are matched by position (the reference sheets print eps_min rounded), our columns are matched to
    the reference columns by eps_train value (so a profile may run a subset of the columns).
    Returns a long frame with our mean and CI margin, the reference mean and margin, the difference,
    and ``inside``: whether the reference mean lies within our CI widened by the reference margin.
    """
    if mean.shape[0] != ref_mean.shape[0]:
        raise ValueError(f"row counts differ: ours {mean.shape[0]}, reference {ref_mean.shape[0]}")
    pick = reference_positions(mean.columns, ref_mean.columns)
    ref_mean = ref_mean.iloc[:, pick]
    ref_margin = ref_margin.iloc[:, pick] if ref_margin is not None else None
    rm = ref_margin.to_numpy() if ref_margin is not None else np.zeros(ref_mean.shape)
    rows = []
    for i, e_te in enumerate(mean.index):
        for j, e_tr in enumerate(mean.columns):
            ours, h, ref, r = mean.iat[i, j], margin.iat[i, j], ref_mean.iat[i, j], rm[i, j]
            rows.append({"eps_test": e_te, "eps_train": e_tr, "ours": ours, "ours_margin": h, "reference": ref,
                         "reference_margin": r, "diff": ours - ref,
                         "inside": bool(abs(ours - ref) <= (h if np.isfinite(h) else 0) + r)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ the paper's printed CIFAR table
#: Table 2b of the paper as printed (accuracy in %, rows eps_test, columns eps_train; MSCR row in %),
#: transcribed from the paper so that the notebook can list where the print differs from the authors' CSV.
PAPER_TABLE_2B = {
    "eps_train": [0.0, 0.01, 0.02, 0.03, 0.05, 0.07, "eps_min", 0.15],
    "eps_test": [0.0, 0.01, 0.02, 0.03, 0.05, 0.07, "eps_min", 0.15],
    "acc": [
        [91.681, 91.932, 91.917, 91.311, 90.428, 88.645, 86.051, 81.989],
        [91.453, 91.900, 91.964, 91.351, 90.472, 88.678, 86.085, 81.995],
        [90.675, 91.527, 91.868, 91.459, 90.577, 88.817, 86.158, 82.082],
        [89.181, 91.606, 91.606, 91.479, 90.690, 88.983, 86.306, 82.165],
        [84.062, 89.273, 89.273, 90.530, 90.832, 89.513, 86.745, 82.540],
        [76.706, 84.086, 84.086, 87.303, 90.065, 89.907, 87.322, 83.051],
        [59.261, 67.534, 67.534, 74.137, 83.784, 88.260, 88.194, 84.181],
        [37.458, 42.765, 42.765, 49.685, 65.285, 77.257, 86.130, 85.352],
    ],
    "mscr": [-35.362, -33.977, -26.527, -18.808, -7.347, -0.434, 2.490, 2.674],
}


def printed_vs_csv(printed: dict, csv_acc: pd.DataFrame, csv_mscr: pd.Series, eps_min: float,
                   tol: float = 0.0015) -> pd.DataFrame:
    """Cells where the paper's printed Table 2b differs from the authors' CSV by more than rounding.

    ``csv_acc`` rows are matched to the printed rows by eps_test value (``"eps_min"`` -> ``eps_min``),
    columns by position. Returns rows ``what``, ``eps_test``, ``eps_train``, ``printed``, ``csv``, ``diff``.
    """
    lab = lambda v: float(eps_min) if v == "eps_min" else float(v)  # noqa: E731
    rows = []
    csv_idx = csv_acc.index.to_numpy(dtype=float)
    for i, e_te in enumerate(printed["eps_test"]):
        hit = np.flatnonzero(np.isclose(csv_idx, lab(e_te), atol=1e-6))
        if hit.size == 0:
            raise ValueError(f"eps_test {e_te} of the printed table not in the CSV rows")
        for j, e_tr in enumerate(printed["eps_train"]):
            p, c = printed["acc"][i][j], float(csv_acc.iat[hit[0], j])
            if abs(p - c) > tol:
                rows.append({"what": "accuracy", "eps_test": lab(e_te), "eps_train": lab(e_tr), "printed": p,
                             "csv": c, "diff": p - c})
    for j, e_tr in enumerate(printed["eps_train"]):
        p, c = printed["mscr"][j], float(csv_mscr.iat[j])
        if abs(p - c) > tol:
            rows.append({"what": "MSCR", "eps_test": float(eps_min), "eps_train": lab(e_tr), "printed": p,
                         "csv": c, "diff": p - c})
    return pd.DataFrame(rows, columns=["what", "eps_test", "eps_train", "printed", "csv", "diff"])


def corrected_cifar_eps_test(eps_test) -> list[float]:
    """The 18 eps_test levels of the authors' CSV with the header typo fixed (0.0125 listed after eps_min,
    where the rows continue increasing: 0.125)."""
    out = [float(e) for e in eps_test]
    for i in range(1, len(out)):
        if out[i] < out[i - 1] and np.isclose(out[i] * 10, out[i - 1], rtol=0.25):
            out[i] = out[i] * 10
    if any(b < a for a, b in zip(out, out[1:])):
        raise ValueError(f"eps_test levels are not increasing after the fix: {out}")
    return out


# ------------------------------------------------------------------------------------ result tables
# The notebooks build their tables with these functions so that the table logic is reachable by tests; the
# column names are those of the CSV files under results/<profile>/mscr_*/.
_NORM_LABELS = {math.inf: "Linf", 2.0: "L2", 1.0: "L1"}


def _check_separations(sep, name: str = "sep") -> np.ndarray:
    d = np.asarray(sep, dtype=np.float64)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of per-point separations, got shape {d.shape}")
    if np.isnan(d).any() or (d < 0).any():
        raise ValueError(f"{name} must hold distances >= 0 (no NaN)")
    return d


def separation_table(sep) -> pd.DataFrame:
    """Table 1 (2D row): minimal class separation ``2r`` and ``eps_min = r`` under several norms.

    Parameters
    ----------
    sep : mapping norm -> array of shape (n,)
        For each norm (``np.inf``, 2 or 1, or their names), every point's distance to the nearest point of
        another class (:func:`robeval.separation.nearest_other_class_distance`), in data units.

    Returns
    -------
    DataFrame with one row per norm, in the mapping's order: ``norm`` ("Linf", "L2" or "L1"), ``2r`` (the
    smallest separation), ``eps_min`` (= r = 2r / 2) and ``median per-point separation``.
    """
    if not hasattr(sep, "items") or len(sep) == 0:
        raise ValueError("sep must be a non-empty mapping norm -> per-point separations")
    labels, two_r, medians = [], [], []
    for p, d in sep.items():
        d = _check_separations(d, f"sep[{p!r}]")
        labels.append(_NORM_LABELS[check_norm(p)])
        two_r.append(d.min())
        medians.append(np.median(d))
    return pd.DataFrame({"norm": labels, "2r": two_r, "eps_min": [v / 2 for v in two_r],
                         "median per-point separation": medians})


def cifar_separation_table(sep, seconds: float) -> pd.DataFrame:
    """Table 1 (CIFAR-10 row) as one row: images, ``2r`` (L_inf, pixel units in [0, 1]), ``2r x 255`` (rounded to
    6 decimals, an integer for exact uint8 distances), ``eps_min``, the median per-image separation and the
    wall time ``seconds`` of the search. ``sep``: shape (n,), distances in [0, 1]."""
    d = _check_separations(sep)
    two_r = float(d.min())
    return pd.DataFrame({"images": [len(d)], "2r (Linf)": [two_r], "2r x 255": [round(two_r * 255, 6)],
                         "eps_min": [two_r / 2], "median separation": [float(np.median(d))],
                         "seconds": [float(seconds)]})


def accuracy_table(mean: pd.DataFrame, mscr, *, margin: pd.DataFrame | None = None, mscr_margin=None,
                   decimals: int | None = None) -> pd.DataFrame:
    """An accuracy matrix with the MSCR row appended (Table 2a / 2b layout).

    Parameters
    ----------
    mean : DataFrame (eps_test x eps_train), accuracy in percent.
    mscr : array-like (n_eps_train,), MSCR in percent, in the column order of ``mean``.
    margin, mscr_margin : optional CI half-widths of the same shapes. When given, every cell becomes the
        string ``"mean ± margin"`` (both rounded to ``decimals``, which is then required).
    decimals : round to this many decimals (None: no rounding; numbers only).

    Returns
    -------
    DataFrame with the rows of ``mean`` plus a last row labelled ``"MSCR"``.
    """
    mean = check_frame(mean, (), "mean")
    mscr = pd.Series(np.asarray(mscr, dtype=np.float64))
    if mscr.ndim != 1 or len(mscr) != mean.shape[1]:
        raise ValueError(f"mscr needs one value per column of mean ({mean.shape[1]}), got shape {mscr.shape}")
    if margin is None:
        if mscr_margin is not None:
            raise ValueError("mscr_margin given without margin; give both or neither")
        tab = mean.copy() if decimals is None else mean.round(decimals)
        tab.loc["MSCR"] = (mscr if decimals is None else mscr.round(decimals)).to_numpy()
        return tab
    margin = check_frame(margin, (), "margin")
    if margin.shape != mean.shape:
        raise ValueError(f"margin has shape {margin.shape}, mean {mean.shape}")
    if mscr_margin is None or decimals is None:
        raise ValueError("formatting 'mean ± margin' needs mscr_margin and decimals")
    mscr_margin = pd.Series(np.asarray(mscr_margin, dtype=np.float64))
    if len(mscr_margin) != len(mscr):
        raise ValueError(f"mscr_margin has {len(mscr_margin)} values, mscr {len(mscr)}")
    tab = mean.round(decimals).astype(str) + " ± " + margin.round(decimals).astype(str)
    tab.loc["MSCR"] = (mscr.round(decimals).astype(str) + " ± " + mscr_margin.round(decimals).astype(str)).to_numpy()
    return tab


def compare_modes_with_reference(mats, ref_mean: pd.DataFrame, ref_margin: pd.DataFrame | None = None
                                 ) -> pd.DataFrame:
    """:func:`compare_with_reference` for several accuracy matrices (one per noise mode), stacked.

    ``mats``: mapping mode -> :func:`accuracy_matrix` result (needs ``mean`` and ``margin``). Returns the long
    comparison frames concatenated in the mapping's order, with a ``mode`` column.
    """
    if not hasattr(mats, "items") or len(mats) == 0:
        raise ValueError("mats must be a non-empty mapping mode -> accuracy matrix")
    parts = []
    for mode, mat in mats.items():
        c = compare_with_reference(mat["mean"], mat["margin"], ref_mean, ref_margin)
        c["mode"] = mode
        parts.append(c)
    return pd.concat(parts, ignore_index=True)


def reference_agreement_overview(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per mode: the fraction of cells agreeing with the reference (``cells_agreeing``), the mean and the root
    mean square of our-minus-reference differences in percentage points. Input: :func:`compare_modes_with_reference`."""
    comparison = check_frame(comparison, ("mode", "inside", "diff"), "comparison",
                             hint="Use compare_modes_with_reference.")
    return comparison.groupby("mode").agg(cells_agreeing=("inside", "mean"), mean_diff=("diff", "mean"),
                                          rms_diff=("diff", lambda d: float(np.sqrt(np.mean(d ** 2)))))


def difference_matrix(comparison: pd.DataFrame, mode: str | None = None) -> pd.DataFrame:
    """Ours minus reference (percentage points) as a matrix eps_test x eps_train, from a comparison frame
    (:func:`compare_with_reference`, or :func:`compare_modes_with_reference` with ``mode`` selecting one)."""
    comparison = check_frame(comparison, (), "comparison")
    if mode is not None:
        if "mode" not in comparison.columns or not (comparison["mode"] == mode).any():
            raise ValueError(f"no rows of mode {mode!r} in the comparison")
        comparison = comparison[comparison["mode"] == mode]
    return comparison.pivot(index="eps_test", columns="eps_train", values="diff")


def row_optima_table(means, eps_test, reference: pd.DataFrame | None = None,
                     reference_label: str = "published") -> pd.DataFrame:
    """The best eps_train of every eps_test row for several accuracy matrices side by side.

    ``means``: mapping column label -> mean accuracy DataFrame (eps_test x eps_train); ``eps_test``: the row
    levels (the index, named ``eps_test``); ``reference``: an optional reference matrix added as the column
    ``reference_label``. Rows are matched by position. Returns a DataFrame of eps_train values.
    """
    index = pd.Index(eps_test, name="eps_test")
    cols = dict(means)
    if reference is not None:
        if reference_label in cols:
            raise ValueError(f"reference_label {reference_label!r} is also a key of means")
        cols[reference_label] = reference
    out = {}
    for label, mean in cols.items():
        opt = row_optima(check_frame(mean, (), f"means[{label!r}]"))
        if len(opt) != len(index):
            raise ValueError(f"{label!r} has {len(opt)} rows, eps_test {len(index)} levels")
        out[label] = opt.values
    return pd.DataFrame(out, index=index)


def count_matching_optima(ours, reference, atol: float = 1e-3) -> int:
    """How many rows have the same best eps_train in ``ours`` and ``reference`` (1-D, same length; equal up to
    ``atol``, which absorbs eps_min printed to fewer digits)."""
    a = np.asarray(ours, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"ours and reference must be 1-D of the same length, got {a.shape} and {b.shape}")
    return int(np.sum(np.isclose(a, b, atol=atol)))


def mscr_mode_table(summaries, ref_mscr=None, ref_mscr_margin=None) -> pd.DataFrame:
    """The MSCR row (percent) of several :func:`mscr_summary` frames side by side, indexed by eps_train.

    Columns ``MSCR <mode>`` then ``± <mode>`` (CI half-widths), then, when ``ref_mscr`` is given (one value per
    eps_train, same order), ``MSCR published`` and ``± published`` (NaN when ``ref_mscr_margin`` is None).
    """
    if not hasattr(summaries, "items") or len(summaries) == 0:
        raise ValueError("summaries must be a non-empty mapping mode -> mscr_summary frame")
    tab = pd.DataFrame({f"MSCR {m}": s.set_index("eps_train")["mscr"] for m, s in summaries.items()})
    for m, s in summaries.items():
        tab[f"± {m}"] = s.set_index("eps_train")["mscr_margin"]
    if ref_mscr is not None:
        ref_mscr = np.asarray(ref_mscr, dtype=np.float64)
        if ref_mscr.shape != (len(tab),):
            raise ValueError(f"ref_mscr needs {len(tab)} values (one per eps_train), got shape {ref_mscr.shape}")
        tab["MSCR published"] = ref_mscr
        tab["± published"] = np.asarray(ref_mscr_margin, dtype=np.float64) if ref_mscr_margin is not None else np.nan
    elif ref_mscr_margin is not None:
        raise ValueError("ref_mscr_margin given without ref_mscr")
    return tab


def k_effect_cells(seeds, eps: float, ks, model: str = "rf") -> list[dict]:
    """Grid cells of Fig. 4: ``eps_train = eps_test = eps`` for every run seed and number of noisy copies ``k``."""
    eps = _check_eps(eps)
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 1:
        raise ValueError(f"ks must be a non-empty list of k >= 1, got {ks}")
    return [{"seed": int(s), "eps_train": eps, "k": k, "model": model} for s in seeds for k in ks]


def k_effect_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 statistics per ``k``: mean robust accuracy and its sample std over runs, both in percent.
    Input: tidy rows with columns ``k`` and ``acc`` (fraction)."""
    df = check_frame(df, ("k", "acc"), "df")
    return df.groupby("k")["acc"].agg(mean=lambda a: 100 * a.mean(), std=lambda a: 100 * a.std(ddof=1))


def count_equal_columns(acc, a: int, b: int) -> int:
    """Rows of the matrix ``acc`` (2-D) in which columns ``a`` and ``b`` hold the same value (``np.isclose``):
    how often a printed table repeats one column in another."""
    arr = np.asarray(acc, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"acc must be 2-D, got shape {arr.shape}")
    for j in (a, b):
        if not -arr.shape[1] <= j < arr.shape[1]:
            raise ValueError(f"column {j} out of range for {arr.shape[1]} columns")
    return int(np.sum(np.isclose(arr[:, a], arr[:, b])))
