"""The MSCR protocol (Siedel et al. 2022, Algorithm 1 and Sec. 3.2) as resumable run grids.

One *cell* is one run seed and one training noise level ``eps_train``: it draws the run's train/test split,
trains one model on ``eps_train``-augmented training data and tests it on clean data and on every
``eps_test`` level; it returns one row per ``eps_test``. Cells are independent and carry their own seed,
so :func:`robeval.core.runs.run_grid` can resume and parallelise them.

Augmentation follows the authors' code: for ``eps > 0`` every point is replaced by ``k`` noisy copies
(uniform in the L_p ball of radius eps, :mod:`robeval.mscr.noise`) with the point's label; ``eps = 0`` means
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

Runs are paired: run i has the seed ``run_seeds(cfg.seed, n)[i]`` in every grid (both noise modes, both
models, every eps level), hence the same split, the same test noise and the same forest seed, so differences
between conditions are taken per run.

MSCR (Eq. 2) per run: ``(Acc_rob(eps_min) - Acc_clean) / Acc_clean``, reported in percent and averaged
over runs (Algorithm 1, line 9). The CIFAR-10 cells live in :mod:`robeval.mscr.cifar`.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from robeval.core.frames import check_frame, check_numeric_column, check_same_index, check_unique_runs, check_unmasked
from robeval.core.seeding import keyed
from robeval.core.validation import (
    as_float_points,
    as_model,
    check_bool,
    check_choice,
    check_distinct,
    check_eps,
    check_exact_integers,
    check_features,
    check_labels,
    check_level,
    check_numbers,
    check_positive,
    check_sequence,
)
from robeval.mscr.noise import unit_ball_offsets
from robeval.mscr.separation import check_norm

GRID_CELLS = ("run_cell_2d",)  # the functions a grid store may name (core.runs.cell_function)

NOISE_MODES = ("iid", "shared_offsets")

_ROLES = ("train", "test", "shared", "split", "model", "init")


def noise_generator(seed: int, role: str, eps: float = 0.0) -> np.random.Generator:
    """Independent numpy Generator for (run seed, role, eps) (:func:`robeval.core.seeding.keyed`); ``role`` in
    {"train", "test", "shared", "split", "model", "init"}."""
    if role not in _ROLES:
        raise ValueError(f"role must be one of {sorted(_ROLES)}, got {role!r}")
    return np.random.default_rng(keyed(int(seed), role, float(eps)))


def derived_seed(seed: int, role: str, eps: float = 0.0) -> int:
    """A 32-bit integer seed for (run seed, role, eps), for libraries that take an int (scikit-learn, torch)."""
    if role not in _ROLES:
        raise ValueError(f"role must be one of {sorted(_ROLES)}, got {role!r}")
    return int(keyed(int(seed), role, float(eps)).generate_state(1)[0])


#: Most runs :func:`run_seeds` derives (a grid of more runs than this is a typo: 10**12 would never return)
MAX_RUNS = 10**6


def run_seeds(seed: int, n_runs: int) -> list[int]:
    """The seeds of runs 0 .. n_runs-1 derived from the settings' ``seed`` (:func:`robeval.core.seeding.keyed`
    with the run index): run i has the same seed in every grid (noise modes, models, eps levels, profiles), so
    grids are paired by run, and a grid with fewer runs uses the first seeds of a larger one. ``seed`` must be
    below 2**63 (ValueError otherwise) and ``n_runs`` a whole number from 0 to :data:`MAX_RUNS`: an int, a numpy
    integer, a float without a fractional part (24.0) or a 0-d array of one; anything else (a bool, text, None, a
    fraction, a negative or non-finite number, a count above MAX_RUNS such as 10**400) raises ValueError naming
    ``n_runs``."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 2**63:
        raise ValueError(f"seed must be an integer in 0 .. 2**63 - 1 (a 64-bit seed), got {seed!r}.")
    check_positive(seed, "seed", strict=False, integer=True)
    n_runs = _check_n_runs(n_runs)
    return [int(keyed(int(seed), "mscr run", i).generate_state(1)[0]) for i in range(n_runs)]


def _check_n_runs(n_runs) -> int:
    """``n_runs`` as an int in 0 .. :data:`MAX_RUNS` (see :func:`run_seeds`); ValueError naming it otherwise,
    before numpy or ``int()`` reads it (10**400 made np.isfinite fail with numpy's words, None and Fractions too)."""
    value = n_runs.item() if isinstance(n_runs, np.ndarray) and n_runs.ndim == 0 else n_runs
    kinds = (int, float, np.integer, np.floating)
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, kinds)
        or (isinstance(value, (float, np.floating)) and not (math.isfinite(value) and float(value).is_integer()))
        or value < 0
    ):
        raise ValueError(
            f"n_runs must be an integer >= 0 (a count of runs, not True/False), got {n_runs!r:.60}; pass e.g. 24."
        )
    if value > MAX_RUNS:
        big = isinstance(value, int) and value > 10**20  # 10**5000 has too many digits for str()
        shown = f"an int of about {int(value.bit_length() * math.log10(2)) + 1} digits" if big else repr(n_runs)
        raise ValueError(f"n_runs must be at most {MAX_RUNS:,} (one seed per run of a grid), got {shown}.")
    return int(value)


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
    eps = check_eps(eps)
    X = as_float_points(X, name="X", dtype=np.float64)  # the shared contract: text / NaN refused naming the row
    if eps == 0:
        return X, np.asarray(y)
    n, d = X.shape
    off = unit_ball_offsets(n, k, d, norm, rng)
    return (X[:, None, :] + eps * off).reshape(n * k, d), np.repeat(y, k)


def augment_shared(X, y, eps: float, unit_offsets: np.ndarray):
    """Reference-code behaviour: every point gets the same offsets ``eps * unit_offsets`` (shape (k, d))."""
    eps = check_eps(eps)
    if eps == 0:
        return np.asarray(X, dtype=np.float64), np.asarray(y)
    X = np.asarray(X, dtype=np.float64)
    k = unit_offsets.shape[0]
    return (X[:, None, :] + eps * unit_offsets[None]).reshape(-1, X.shape[1]), np.repeat(y, k)


def make_classifier(model: str, seed: int, *, n_estimators: int = 100, n_jobs: int | None = None):
    """The paper's 2D classifiers: ``"rf"`` RandomForest(100 trees) or ``"1nn"`` 1-nearest-neighbour.

    The authors' 1-NN uses scikit-learn's default Euclidean metric for every noise norm; so does ours.
    """
    if model == "rf":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=n_estimators, random_state=derived_seed(seed, "model"), n_jobs=n_jobs
        )
    if model == "1nn":
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=1)
    raise ValueError(f"unknown model {model!r}; use 'rf' or '1nn'")


def check_levels_once(levels: list, name: str, *, why: str) -> None:
    """ValueError naming ``name`` when ``levels`` (floats) lists a level twice, or two equal within 1e-9 relative
    (levels computed by arithmetic, e.g. 0.1 + 0.2: the summaries group levels exactly and would split them)."""
    check_distinct(levels, name, why=why)
    ordered = sorted(levels)  # levels equal but for their last digits: one level run twice, split by the summaries
    for a, b in zip(ordered, ordered[1:]):
        if np.isclose(b, a, rtol=1e-9, atol=0.0):
            raise ValueError(
                f"{name} lists {a!r} and {b!r}, equal but for their last digits (levels computed by arithmetic, "
                f"e.g. 0.1 + 0.2): {why}. Pass each level once, e.g. round(level, 12)."
            )


def evaluate_levels(
    predict, X_test, y_test, eps_test, k: int, norm, *, seed: int, noise_mode: str = "iid", unit_offsets=None
) -> list[dict]:
    """Accuracy of a classifier on clean and on every eps_test-augmented copy of the test set.

    All noisy test sets go through the classifier in ONE call (cheap per-call overhead), and the clean
    test set is predicted once however often ``0`` appears. A numpy masked array ``X_test`` or ``y_test`` is
    refused (TypeError): its masked entries would be read.

    Parameters
    ----------
    predict : scikit-learn estimator, torch.nn.Module or callable
        A fitted estimator (its ``predict`` is used), a torch module or a function mapping an (m, d) float64
        array to labels (m,), one logit column (m, 1) (binary: class = logit > 0) or scores (m, C) (argmax);
        see :func:`robeval.core.validation.read_output`.
    X_test : array_like, shape (n, d)
        Finite test points in data units (NaN or inf raise ValueError).
    y_test : array_like, list or torch tensor, shape (n,)
        Test labels (NaN labels raise ValueError), of the predictions' type: numbers for numbers, strings for
        strings; an estimator's labels of the other type are mapped to its ``classes_`` by their text, anything
        else is refused (:func:`robeval.core.validation.match_labels`).
    eps_test : sequence of float >= 0
        Distinct noise radii (0 = clean); at least one. A radius listed twice, or two equal within 1e-9 relative
        (levels computed by arithmetic, e.g. 0.1 + 0.2), raise ValueError before anything is evaluated: the
        summaries group levels exactly and would refuse the rows later.
    k : int >= 1
        Noisy copies per test point and level.
    norm : {np.inf, 2, 1} or "linf" / "l2" / "l1"
    seed : int
        Run seed of the test noise.
    noise_mode : {"iid", "shared_offsets"}
    unit_offsets : ndarray (>= k, d), required with ``noise_mode="shared_offsets"``
        Offsets in the unit ball of ``norm``; its first ``k`` rows are used (NaN, infinite or longer rows are
        refused with ValueError; text, booleans or a masked array with TypeError).

    Returns
    -------
    list of dicts ``{"eps_test": float, "acc": float in [0, 1], "n_eval": int}``, in the order of eps_test.
    """
    model = as_model(predict, name="predict")
    if noise_mode not in NOISE_MODES:
        raise ValueError(f"noise_mode must be one of {NOISE_MODES}, got {noise_mode!r}")
    X_test = check_features(X_test, "X_test")
    y_test = check_labels(y_test, name="y_test", n=len(X_test))
    if isinstance(eps_test, (str, bytes)) or np.ndim(eps_test) != 1:
        raise TypeError(f"eps_test must be a sequence of noise radii, e.g. [0.0, eps_min]; got {eps_test!r}.")
    if len(eps_test) == 0:
        raise ValueError("eps_test is empty; pass at least one noise radius (0 for clean accuracy).")
    eps_test = [check_eps(e, "eps_test") for e in eps_test]
    check_levels_once(eps_test, "eps_test", why="one test level would be evaluated twice")
    k = check_positive(k, "k", integer=True)
    norm = check_norm(norm)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer (the run seed of the test noise), got {seed!r}.")
    if noise_mode == "shared_offsets":
        example = "unit_ball_offsets(1, k, d, norm, rng)[0]"
        unit = None if unit_offsets is None else check_numbers(unit_offsets, "unit_offsets", example=example)
        if unit is None or unit.ndim != 2 or unit.shape[0] < k or unit.shape[1] != X_test.shape[1]:
            raise ValueError(
                f"noise_mode='shared_offsets' needs unit_offsets of shape (>= {k}, {X_test.shape[1]}), got "
                f"{None if unit is None else unit.shape}; draw them with unit_ball_offsets(1, k, d, norm, rng)[0]."
            )
        _check_unit_offsets(unit[:k], norm)
    blocks, labels, slices = [X_test], [y_test], {}
    pos = len(X_test)
    for e in dict.fromkeys(eps_test):
        if e == 0:
            slices[e] = slice(0, len(X_test))
            continue
        if noise_mode == "iid":
            Xa, ya = augment(X_test, y_test, e, k, norm, noise_generator(seed, "test", e))
        else:
            Xa, ya = augment_shared(X_test, y_test, e, unit[:k])
        blocks.append(Xa)
        labels.append(ya)
        slices[e] = slice(pos, pos + len(Xa))
        pos += len(Xa)
    X_all, y_all = np.concatenate(blocks), np.concatenate(labels)
    pred = check_predictions(model.predict(X_all), len(X_all))
    correct = pred == model.labels(y_all, pred, name="y_test")
    return [
        {
            "eps_test": float(e),
            "acc": float(correct[slices[float(e)]].mean()),
            "n_eval": int(slices[float(e)].stop - slices[float(e)].start),
        }
        for e in eps_test
    ]


def _check_unit_offsets(unit: np.ndarray, norm: float) -> None:
    """ValueError naming ``unit_offsets`` when one of the offsets used is NaN / infinite or lies outside the unit
    ball of ``norm`` (a noise radius eps scales them: an offset of norm 100 would put noise 100 eps away)."""
    if not np.all(np.isfinite(unit)):
        row = int(np.argmax(~np.all(np.isfinite(unit), axis=1)))
        raise ValueError(
            f"unit_offsets contains NaN or infinite values (first in row {row}); draw them with "
            "unit_ball_offsets(1, k, d, norm, rng)[0]."
        )
    lengths = np.linalg.norm(unit, ord=norm, axis=1)
    if np.any(lengths > 1 + 1e-9):
        row = int(np.argmax(lengths))
        raise ValueError(
            f"unit_offsets must lie in the unit ball of the norm {norm:g}, but row {row} has norm {lengths[row]:.4g} "
            "> 1; draw them with unit_ball_offsets(1, k, d, norm, rng)[0]."
        )


def check_predictions(pred, n: int) -> np.ndarray:
    """``pred`` as a 1-D array of ``n`` labels, or ValueError: a classifier's ``predict`` must return one label
    per input row (a scalar, a wrong length, a 2-D score matrix or NaN labels would silently give a wrong
    accuracy through numpy broadcasting)."""
    out = np.asarray(pred)
    if out.ndim != 1 or len(out) != n:
        raise ValueError(
            f"predict must return one label per input row, i.e. shape ({n},); got shape {out.shape}. "
            "Pass the classifier's predict (labels), not predict_proba or a scorer."
        )
    if out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        raise ValueError(
            f"predict returned {int(np.sum(~np.isfinite(out)))} NaN/infinite labels; labels must be finite."
        )
    if out.dtype.kind not in "biufUSO":
        raise ValueError(f"predict must return labels (ints or strings), got dtype {out.dtype}.")
    return out


@functools.lru_cache(maxsize=4)
def _load_2d(dataset: str):
    from robeval.core.data import load_mscr_2d

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
    eps_train = check_eps(cell["eps_train"])
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
    clf = make_classifier(
        model, seed, n_estimators=int(config.get("n_estimators", 100)), n_jobs=config.get("rf_n_jobs")
    )
    clf.fit(Xtr, ytr)
    rows = evaluate_levels(
        clf.predict, X[te], y[te], config["eps_test"], k_test, norm, seed=seed, noise_mode=noise_mode, unit_offsets=unit
    )
    for r in rows:
        r["model"] = model
    return rows


def _accuracy(value, name: str):
    """An accuracy, or the ``"acc"`` of a row of :func:`evaluate_levels` (so ``mscr_value(acc[0], acc[1])`` works)."""
    if isinstance(value, dict):
        if "acc" not in value:
            raise TypeError(
                f"{name} is a dict without an 'acc' entry ({sorted(value)}); pass an accuracy in [0, 1] "
                "or a row of evaluate_levels."
            )
        value = value["acc"]
    from robeval.core.validation import is_torch_tensor, to_numpy

    if is_torch_tensor(value):  # detached (one requiring grad would fail in np.asarray), as to_numpy does elsewhere
        value = to_numpy(value)
    kind = np.asarray(value).dtype.kind
    if kind == "c" or kind == "O" and any(isinstance(v, complex) for v in np.asarray(value).reshape(-1).tolist()):
        raise TypeError(  # float() would drop the imaginary part with only a warning
            f"{name} must be an accuracy in [0, 1] (a real number), got the complex {value!r:.60}; pass the real "
            f"accuracy ({name}.real if the imaginary part is 0)."
        )
    if kind == "O" and not isinstance(value, (str, bytes)):  # a Fraction, or text among numbers
        try:
            return check_numbers(value, name, example="0.85")
        except TypeError:
            pass
    if np.asarray(value).dtype.kind in "mMV":  # dates, durations, records: float() would read them as numbers
        raise TypeError(
            f"{name} must be an accuracy in [0, 1] (a real number), got values of dtype {np.asarray(value).dtype}; "
            f"pass the accuracies as floats, e.g. {name}=[0.85, 0.9]."
        )
    if isinstance(value, (str, bytes)) or np.asarray(value).dtype.kind in "USO":
        raise TypeError(f"{name} must be an accuracy in [0, 1] (a number, not text), got {value!r:.60}.")
    if np.asarray(value).dtype.kind == "b":
        raise TypeError(f"{name} must be an accuracy in [0, 1] (a number, not True/False), got {value!r:.60}.")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be an accuracy in [0, 1] (a number, an array or a row of evaluate_levels), got {value!r}."
        ) from None


def mscr_value(acc_clean, acc_rob):
    """MSCR in percent, Eq. (2): ``100 * (acc_rob - acc_clean) / acc_clean`` (elementwise, arrays ok).

    Both accuracies are *fractions* in [0, 1] (0.85, not 85), or rows ``{"eps_test", "acc", ...}`` of
    :func:`evaluate_levels` (their ``"acc"`` is used): a NaN, a value outside [0, 1] (e.g. a percentage mixed
    with a fraction), a clean accuracy of 0 or two arrays of different shapes raise ValueError, and so do two pandas
    Series with different indexes (runs are paired by position: :func:`robeval.core.frames.check_same_index`).
    A numpy masked array is refused (TypeError: its masked values would be read like any other), and so are text,
    booleans, dates, durations, structured records and complex numbers (TypeError: an imaginary part would be
    dropped), for either argument. A torch tensor is read detached (one that requires grad too).
    """
    check_unmasked(acc_clean, "acc_clean")
    check_unmasked(acc_rob, "acc_rob")
    check_same_index(acc_clean, acc_rob, ("acc_clean", "acc_rob"))
    acc_clean = _accuracy(acc_clean, "acc_clean")
    acc_rob = _accuracy(acc_rob, "acc_rob")
    if acc_clean.ndim and acc_rob.ndim and acc_clean.shape != acc_rob.shape:
        raise ValueError(
            f"acc_clean and acc_rob differ in length ({acc_clean.shape} vs {acc_rob.shape}); pass one clean and one "
            "robust accuracy per run, paired (or a single number for either)."
        )
    for name, a in (("acc_clean", acc_clean), ("acc_rob", acc_rob)):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or infinite values; drop failed runs before computing the MSCR.")
        if np.any((a < 0) | (a > 1)):
            raise ValueError(
                f"{name} must be a fraction in [0, 1], got {a.min():g} .. {a.max():g}; pass accuracies as "
                "fractions (85 % -> 0.85), the same unit for both."
            )
    if np.any(acc_clean <= 0):
        raise ValueError("clean accuracy must be > 0 to normalise the MSCR")
    return 100.0 * (acc_rob - acc_clean) / acc_clean


def _match_eps(values: pd.Series, eps: float) -> pd.Series:
    """The rows whose ``eps_test`` is ``eps``: exactly 0 for the clean rows, else within 1e-9 relative (a level read
    back from a file); no absolute tolerance, which would merge a tiny eps_min with 0."""
    v = values.to_numpy(dtype=float)
    return v == 0.0 if eps == 0 else np.isclose(v, float(eps), rtol=1e-9, atol=0.0)


def check_eps_min(eps_min) -> float:
    eps_min = check_eps(eps_min, "eps_min")
    if eps_min == 0:
        raise ValueError(
            "eps_min is 0: the robust accuracy would be the clean accuracy and MSCR 0% for every model ('perfectly "
            "robust'). Pass the measured eps_min = min_class_separation(X, y) / 2, which is > 0 (a separation of 0, "
            "identical points with different labels, is refused there, naming the points)."
        )
    return eps_min


def _check_by(by, df) -> tuple:
    """``by`` (column names of ``df`` that group the runs) as a tuple: TypeError for a lone string (a tuple of
    names is expected), ValueError naming ``by`` for a column ``df`` lacks."""
    if isinstance(by, (str, bytes)) or not isinstance(by, (tuple, list)):
        raise TypeError(
            f"by must be a tuple of column names, e.g. ('eps_train',) or ('eps_train', 'model'); got {by!r}"
            + (f": write by=({by!r},)." if isinstance(by, str) else ".")
        )
    missing = [c for c in by if c not in getattr(df, "columns", ())]
    if missing:
        raise ValueError(
            f"by names the column(s) {missing}, which df lacks (it has {list(df.columns)}); pass columns of df, "
            "e.g. by=('eps_train',)."
        )
    keyed = [c for c in by if c in ("seed", "eps_test", "acc")]
    if keyed or len(set(by)) != len(by):
        what = f"{keyed[0]!r}, which is not a grouping column" if keyed else "a column more than once"
        raise ValueError(
            f"by names {what}: every run is keyed by its seed, and eps_test and acc are its levels and accuracies; "
            "group the runs by other columns of df, each once, e.g. by=('eps_train',)."
        )
    return tuple(by)


def _check_run_rows(df: pd.DataFrame, by, *, hint: str) -> pd.DataFrame:
    """The tidy rows ``df`` checked column by column (ValueError naming ``df``, the column and the row): ``seed``
    whole numbers >= 0, ``eps_test`` and ``eps_train`` (when present) finite numbers >= 0 with no two levels equal
    within 1e-9 relative but not exactly (they would group apart), ``acc`` a finite
    fraction in [0, 1], the other ``by`` columns without missing values (a NaN key would drop its rows from every
    group). Returns ``df`` with ``eps_test`` and ``acc`` as float64."""
    seed = check_numeric_column(df, "seed", "df", hint=hint)
    frac = seed.to_numpy() != np.round(seed.to_numpy())
    if np.any(frac | (seed.to_numpy() < 0)):
        i = int(np.argmax(frac | (seed.to_numpy() < 0)))
        raise ValueError(
            f"df: column 'seed' must hold run seeds (whole numbers >= 0), but row {df.index[i]!r} holds "
            f"{df['seed'].iloc[i]!r}; fix that row (or the file it was read from)."
        )
    eps = {c: check_numeric_column(df, c, "df", hint=hint) for c in ("eps_test", "eps_train") if c in df.columns}
    for c, values in eps.items():
        if np.any(values.to_numpy() < 0):
            i = int(np.argmax(values.to_numpy() < 0))
            raise ValueError(
                f"df: column {c!r} holds the negative noise radius {values.iloc[i]!r} in row {df.index[i]!r}."
            )
        levels = np.unique(values.to_numpy())  # levels are grouped exactly: two that differ in the last digits
        twins = np.isclose(levels[1:], levels[:-1], rtol=1e-9, atol=0.0)  # would split one level's runs
        if np.any(twins):
            i = int(np.argmax(twins))
            raise ValueError(
                f"df: column {c!r} holds the levels {float(levels[i])!r} and {float(levels[i + 1])!r}, equal but for their last "
                f"digits (levels computed by arithmetic, e.g. 0.1 + 0.2); one level's runs would be split in two. "
                f"Round the levels, e.g. df[{c!r}] = df[{c!r}].round(12)."
            )
    for c in by:
        if c not in eps and df[c].isna().any():
            i = int(np.argmax(df[c].isna().to_numpy()))
            raise ValueError(
                f"df: column {c!r} (named in by) holds a missing value in row {df.index[i]!r}; its rows would be "
                "dropped from every group. Fill or drop those rows."
            )
    acc = check_numeric_column(df, "acc", "df", hint=hint)
    bad = (acc.to_numpy() < 0) | (acc.to_numpy() > 1)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"df: column 'acc' must hold accuracies as fractions in [0, 1], but row {df.index[i]!r} holds "
            f"{acc.iloc[i]!r}; pass fractions (85 % -> 0.85)."
        )
    return df.assign(eps_test=eps["eps_test"], acc=acc)


def mscr_per_run(df: pd.DataFrame, eps_min: float, *, by=("eps_train",)) -> pd.DataFrame:
    """Per-run MSCR from tidy rows (columns ``seed``, ``eps_test``, ``acc`` and the ``by`` columns).

    ``by`` is a tuple of column names (a lone string is refused: TypeError). Every row needs a whole-number
    ``seed`` >= 0, finite noise radii >= 0 and a finite ``acc`` in [0, 1] (ValueError naming the row otherwise).

    Returns a frame with ``by`` + ``seed`` + ``acc_clean``, ``acc_rob``, ``mscr`` (percent).
    """
    eps_min = check_eps_min(eps_min)
    check_frame(df, ("seed", "eps_test", "acc"), "df", hint="Pass the grid's rows (run_cell_2d / evaluate_levels).")
    by = _check_by(by, df)
    keys = list(by) + ["seed"]
    check_unique_runs(
        df, ("seed", *by, "eps_test"), "df", hint="Each run (seed, training level) has one accuracy per eps_test."
    )
    hint = "Each run (seed, training level) needs a finite accuracy at eps_test = 0 and at eps_test = eps_min."
    df = _check_run_rows(df, by, hint=hint)
    clean = df[_match_eps(df["eps_test"], 0.0)].set_index(keys)["acc"]
    rob = df[_match_eps(df["eps_test"], eps_min)].set_index(keys)["acc"]
    if clean.empty:
        raise ValueError(
            "df has no rows with eps_test == 0: the clean accuracy that normalises the MSCR is missing; evaluate "
            "every run at eps_test = 0 too (include 0 in eps_test)."
        )
    if rob.empty:
        raise ValueError(f"no rows with eps_test == eps_min = {eps_min}; include eps_min in eps_test")
    out = pd.DataFrame({"acc_clean": clean, "acc_rob": rob})
    lone = out[out.isna().any(axis=1)]
    if len(lone):
        key = lone.index[0] if isinstance(lone.index[0], tuple) else (lone.index[0],)
        run = ", ".join(f"{k}={getattr(v, 'item', lambda v=v: v)()!r}" for k, v in zip(keys, key))
        missing = "eps_test = 0" if np.isnan(lone.iloc[0]["acc_clean"]) else f"eps_test = eps_min = {eps_min}"
        raise ValueError(
            f"{len(lone)} run(s) lack a row at one of the two noise levels, e.g. the run {run} has none at {missing}; the "
            f"MSCR of such a run cannot be computed, and leaving it out would change n silently. {hint}"
        )
    out["mscr"] = mscr_value(out["acc_clean"], out["acc_rob"])
    return out.reset_index()


def mean_ci(values, level: float = 0.95) -> tuple[float, float, float, int]:
    """Mean, sample std and the t-based half-width of the ``level`` CI of the mean: (mean, std, margin, n).

    ``level`` is a fraction in (0, 1) (0.95, not 95; ValueError otherwise). NaN values are left out (n counts the
    others); :func:`mscr_summary` refuses NaN accuracies before they reach here, naming the row. An infinite value
    (no accuracy or MSCR is one: an error upstream) raises ValueError, as do text values (TypeError) and a numpy
    masked array (TypeError: its masked values would count; pass ``values.compressed()``)."""
    from scipy import stats

    level = check_level(level)
    check_unmasked(values, "values")
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        raise ValueError(f"values must be a one-dimensional sequence of numbers, got {values!r:.80}.")
    v = check_numbers(values, "values", example="[0.91, 0.93, 0.92]")
    check_exact_integers(values, "values")
    if np.isinf(v).any():
        i = int(np.flatnonzero(np.isinf(v))[0])
        raise ValueError(
            f"values must be finite numbers (NaN is left out), but values[{i}] is {v[i]}; an infinite accuracy or "
            "MSCR comes from an error upstream: fix or drop that run."
        )
    v = v[~np.isnan(v)]
    n = v.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    if n == 1:
        return float(v[0]), math.nan, math.nan, 1
    from robeval.core.validation import mean_std  # values of any scale: near 1e-300 and 1e300 too

    mean, std = mean_std(v)
    margin = float(stats.t.ppf(0.5 + level / 2, n - 1) * std / math.sqrt(n))
    return mean, std, margin, n


def accuracy_matrix(df: pd.DataFrame, *, level: float = 0.95, percent: bool = True) -> dict:
    """Mean accuracy eps_test x eps_train over runs with std and CI margin.

    Returns dict of DataFrames ``mean``, ``std``, ``margin``, ``n`` (index eps_test, columns eps_train);
    in percent when ``percent`` (True or False). ``df`` is refused (ValueError naming the row) for a ``seed`` that
    is not a whole number >= 0, a NaN, text or negative ``eps_test`` / ``eps_train`` (its rows would be dropped
    in silence) and an ``acc`` outside [0, 1].
    """
    scale = 100.0 if percent else 1.0
    level = check_level(level)
    check_frame(df, ("seed", "eps_train", "eps_test", "acc"), "df", hint="Pass the grid's rows (run_cell_2d).")
    check_frame(df, (), "df", non_empty=True, hint="Pass the grid's rows (run_cell_2d).")
    check_unique_runs(df, ("seed", "eps_train", "eps_test"), "df", hint="Each run has one accuracy per cell.")
    check_bool(percent, "percent")
    acc = _check_run_rows(df, ("eps_train",), hint="Each run has one finite accuracy per cell.")["acc"]
    df = df.assign(acc=acc)
    stats_ = df.groupby(["eps_test", "eps_train"])["acc"].apply(lambda s: mean_ci(s * scale, level))
    out = {}
    for i, name in enumerate(("mean", "std", "margin", "n")):
        out[name] = stats_.apply(lambda t, i=i: t[i]).unstack("eps_train")
    return out


def mscr_summary(df: pd.DataFrame, eps_min: float, *, by=("eps_train",), level: float = 0.95) -> pd.DataFrame:
    """MSCR (percent) mean, std, CI margin and n over runs, per ``by`` group.

    ``df``: tidy rows (``seed``, ``eps_test``, ``acc`` as a fraction, and the ``by`` columns); every run needs a
    finite accuracy at ``eps_test = 0`` and at ``eps_min`` (ValueError naming the row or run otherwise: text, NaN
    or a missing level is never dropped in silence). ``level``: confidence level in (0, 1)."""
    level = check_level(level)
    per = mscr_per_run(df, eps_min, by=by)
    rows = []
    for key, grp in per.groupby(list(by)):
        m, s, h, n = mean_ci(grp["mscr"], level)
        ac = mean_ci(100 * grp["acc_clean"], level)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "mscr": m,
                "mscr_std": s,
                "mscr_margin": h,
                "acc_clean": ac[0],
                "acc_clean_margin": ac[2],
                "n_runs": n,
            }
        )
    return pd.DataFrame(rows)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def row_optima(mean: pd.DataFrame) -> pd.Series:
    """For every eps_test row, the eps_train column with the highest mean accuracy. A NaN, infinite or text
    cell of ``mean`` is refused (ValueError naming the cell)."""
    check_frame(mean, (), "mean", non_empty=True, hint="Pass accuracy_matrix(df)['mean'].")
    if mean.shape[1] == 0:
        raise ValueError("mean has no eps_train columns; pass accuracy_matrix(df)['mean'].")
    cells = mean.to_numpy(dtype=object)
    text = [(r, c) for (r, c), v in np.ndenumerate(cells) if isinstance(v, (str, bytes))]
    if text:  # to_numeric would read "0.9" as a number, and idxmax then compare text with numbers
        r, c = text[0]
        raise ValueError(
            f"mean holds the text {cells[r, c]!r} at eps_test={_plain(mean.index[r])}, eps_train="
            f"{_plain(mean.columns[c])}; every cell needs a mean accuracy that is a number: convert the frame "
            "(mean.apply(pd.to_numeric)) or fill that cell."
        )
    values = mean.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(values)):
        r, c = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(
            f"mean holds {_plain(mean.iloc[r, c])!r} at eps_test={_plain(mean.index[r])}, eps_train={_plain(mean.columns[c])}; every "
            "cell needs a finite mean accuracy (a NaN would be skipped in silence, or fail a row). Fill or drop it."
        )
    return mean.idxmax(axis=1)


def resolve_eps_levels(levels, eps_min: float, *, replace_nearest: bool = False) -> list[float]:
    """The noise levels of a grid with the measured ``eps_min`` in place.

    levels : noise levels (>= 0); a ``-1`` (settings files) marks where ``eps_min`` goes.
    eps_min : the measured half minimal class separation, >= 0, in the norm's units.
    replace_nearest : if ``levels`` has no ``-1``, ``eps_min`` replaces the level nearest to it. This is the
        authors' rule: their sheets for datasets A, B and C, L_inf and L2, all use the grid 0, 0.001, 0.002,
        0.004, 0.007, ... with eps_min in place of 0.004 (A, B) or of 0.002 (C).

    Returns the levels as floats, in the given order.
    """
    eps_min = float(eps_min)
    if not math.isfinite(eps_min) or eps_min < 0:
        raise ValueError(f"eps_min must be a finite distance >= 0, got {eps_min}")
    out, marked = [], False
    for v in levels:
        v = float(v)
        if v == -1.0:
            v, marked = eps_min, True
        elif v < 0 or not math.isfinite(v):
            raise ValueError(f"noise levels must be finite and >= 0 (or -1 for eps_min), got {v}")
        out.append(v)
    if not out:
        raise ValueError("levels is empty; give at least one noise level")
    if replace_nearest and not marked:
        out[int(np.argmin([abs(v - eps_min) for v in out]))] = eps_min
    return out


def make_cells(seeds, eps_train, **fixed) -> list[dict]:
    """Grid cells ``{"seed": s, "eps_train": e, **fixed}`` for every run seed and training level.

    ``seeds``: distinct integers >= 0 (a fraction is never truncated to a seed); ``eps_train``: distinct noise
    radii >= 0, no two equal within 1e-9 relative (the summaries group levels exactly). TypeError / ValueError naming the argument otherwise (a repeated seed or level would be a run
    counted twice). The keywords ``fixed`` are the cell keys :func:`run_cell_2d` reads: ``model`` ("rf" or
    "1nn") and ``k`` (an integer >= 1); any other keyword (``seed`` or ``eps_train`` would override ``seeds`` /
    ``eps_train`` in every cell) raises TypeError."""
    seeds = [int(check_positive(s, "seeds", strict=False, integer=True)) for s in check_sequence(seeds, "seeds")]
    levels = [check_eps(e, "eps_train") for e in check_sequence(eps_train, "eps_train", example="[0.0, 0.01]")]
    check_distinct(seeds, "seeds", why="a run counted twice")
    check_levels_once(levels, "eps_train", why="one training level would run twice")
    for key in fixed:
        if key in ("seed", "eps_train"):
            raise TypeError(
                f"make_cells got the keyword {key}=, which would override {'seeds' if key == 'seed' else key} in "
                f"every cell; pass the run seeds as seeds and the training levels as eps_train."
            )
        if key not in ("model", "k"):
            raise TypeError(
                f"make_cells got the unknown keyword {key}=; a cell takes only model= ('rf' or '1nn') and k= "
                "(noisy copies per point, an integer >= 1)."
            )
    if "k" in fixed:
        check_positive(fixed["k"], "k", integer=True)
    if "model" in fixed:
        check_choice(fixed["model"], "model", ("rf", "1nn"))
    return [{"seed": s, "eps_train": e, **fixed} for s in seeds for e in levels]


def k_effect_cells(seeds, eps: float, ks, model: str = "rf") -> list[dict]:
    """Grid cells of Fig. 4: ``eps_train = eps_test = eps`` for every run seed and number of noisy copies ``k``."""
    eps = check_eps(eps)
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 1:
        raise ValueError(f"ks must be a non-empty list of k >= 1, got {ks}")
    return [{"seed": int(s), "eps_train": eps, "k": k, "model": model} for s in seeds for k in ks]


# --- settings -> grids: the cells and configs of the notebooks, from the resolved settings -------------------


def _run_seeds(cfg, n_runs: int) -> list[int]:
    return run_seeds(cfg.seed, n_runs)


def config_2d(cfg, eps_test, *, noise_mode: str, model: str | None = None) -> dict:
    """Config of :func:`run_cell_2d` from the ``mscr_2d`` settings ``cfg``.

    ``eps_test``: the test levels (eps_min resolved, :func:`resolve_eps_levels`); ``k`` noisy copies for
    training and testing, ``test_size``, ``n_estimators``, ``dataset`` and ``norm`` come from the settings; one
    thread per forest (the grid parallelises over cells). ``model`` is only written when given (Fig. 4's
    cells name it themselves).
    """
    config = dict(
        dataset=cfg.dataset,
        norm=cfg.norm,
        eps_test=list(eps_test),
        k_train=cfg.k,
        k_test=cfg.k,
        test_size=cfg.test_size,
        n_estimators=cfg.n_estimators,
        rf_n_jobs=1,
        noise_mode=noise_mode,
    )
    if model is not None:
        config["model"] = model
    return config


def rf_grids_2d(cfg, eps_levels) -> dict[str, tuple[list[dict], dict]]:
    """Table 2a's random-forest grids from the ``mscr_2d`` settings: noise mode -> ``(cells, config)``.

    The main mode (``cfg.noise_mode``) comes first with ``cfg.runs`` runs, then the other mode of
    :data:`NOISE_MODES` with ``cfg.runs_shared`` runs (the first ``runs_shared`` seeds of the main mode, so the
    modes are paired by run); cells are every run seed (:func:`run_seeds`) x every ``eps_train`` in
    ``eps_levels``, which are also the test levels.
    """
    main = cfg.noise_mode
    if main not in NOISE_MODES:
        raise ValueError(f"noise_mode must be one of {NOISE_MODES}, got {main!r}")
    other = next(m for m in NOISE_MODES if m != main)
    return {
        mode: (
            make_cells(_run_seeds(cfg, n_runs), eps_levels, model="rf"),
            config_2d(cfg, eps_levels, noise_mode=mode, model="rf"),
        )
        for mode, n_runs in ((main, cfg.runs), (other, cfg.runs_shared))
    }


def nn_grid_2d(cfg, eps_levels) -> tuple[list[dict], dict]:
    """Fig. 5's 1-NN grid from the ``mscr_2d`` settings: ``(cells, config)`` with ``cfg.runs_1nn`` runs in the
    main noise mode (the same seeds, hence splits and test noise, as the random forest's: paired by run), every
    ``eps_train`` in ``eps_levels`` (also the test levels)."""
    return (
        make_cells(_run_seeds(cfg, cfg.runs_1nn), eps_levels, model="1nn"),
        config_2d(cfg, eps_levels, noise_mode=cfg.noise_mode, model="1nn"),
    )


def nn_grids_2d(cfg, eps_levels) -> dict[str, tuple[list[dict], dict]]:
    """Fig. 5's 1-NN grids in both noise modes (the noise mode is ambiguous: every claim is tested under both):
    noise mode -> ``(cells, config)``. The main mode is :func:`nn_grid_2d`; the other mode runs the first
    ``min(cfg.runs_1nn, cfg.runs_shared)`` seeds, paired by run with the random forest's other-mode grid."""
    main = cfg.noise_mode
    if main not in NOISE_MODES:
        raise ValueError(f"noise_mode must be one of {NOISE_MODES}, got {main!r}")
    other = next(m for m in NOISE_MODES if m != main)
    return {
        main: nn_grid_2d(cfg, eps_levels),
        other: (
            make_cells(_run_seeds(cfg, min(cfg.runs_1nn, cfg.runs_shared)), eps_levels, model="1nn"),
            config_2d(cfg, eps_levels, noise_mode=other, model="1nn"),
        ),
    }


def k_effect_grid_2d(cfg) -> tuple[list[dict], dict]:
    """Fig. 4's grid from the ``mscr_2d`` settings: ``(cells, config)`` with ``cfg.k_effect_runs`` runs of the
    random forest for every ``k`` in ``cfg.k_effect_ks``, at ``eps_train = eps_test = cfg.k_effect_eps``."""
    eps = float(cfg.k_effect_eps)
    return (
        k_effect_cells(_run_seeds(cfg, cfg.k_effect_runs), eps, cfg.k_effect_ks),
        config_2d(cfg, [eps], noise_mode=cfg.noise_mode),
    )
