"""Fog prediction with ensemble input uncertainty (Scher & Trügler Sec. 4.2, Fig. 6).

The paper predicts whether visibility at Graz airport is below 10 km (SYNOP) from
10 ERA5 variables at the nearest grid point, hourly for 2022. ERA5 provides a best
guess and a 10-member ensemble per timestep; the ensemble gives a *per-point*
covariance of the input uncertainty, used for real-world robustness. The model is
a 2-layer neural network trained on the best guess with a block split (weeks 1-2
train, week 3 validation, week 4 test, repeating); adversarial robustness comes
from ART's DeepFool.

ERA5 and the SYNOP station data are not available offline. This module provides

* :func:`synthetic_fog_data` -- a documented synthetic stand-in with the same
  structure (10 predictors per hour for a year, a 10-member ensemble whose spread
  and inter-variable correlation vary with the weather, a fog label from a
  physically motivated rule applied to the *true* state plus noise). Numbers
  computed on it are **not** the paper's numbers.
* :func:`load_ensemble_table` / :func:`save_ensemble_table` -- a plain tabular
  format for real ensemble data (see below), so users who have ERA5 + SYNOP can
  run the same experiment.

Independent runs
----------------
The paper trains one network. :func:`run_fog_grid` trains ``n_runs`` networks on the same data, each from its own
seed (:func:`fog_run`), as the cells of a resumable run grid cached under the git-ignored
``results/<profile>/grids/``; the claims are judged on intervals over those runs.

Tabular ensemble format (CSV, one row per timestep and member)
-------------------------------------------------------------
``time``      ISO-8601 timestamp (hourly), identical for all rows of one timestep.
``member``    integer: ``-1`` for the best guess (deterministic analysis used for
              training), ``0 .. M-1`` for the ensemble members. Every timestep has
              one best-guess row and the same M members.
``<feature>`` one float column per predictor (same names and units in every row).
``fog``       label on best-guess rows: 1 if visibility < 10 km, else 0 (leave
              empty on member rows).

Synthetic stand-in: variables and units
---------------------------------------
``t2m`` 2 m temperature (K); ``d2m`` 2 m dewpoint (K); ``u10``, ``v10`` 10 m wind
(m/s); ``sp`` surface pressure (hPa); ``tcc`` total cloud cover (0-1); ``blh``
boundary-layer height (m); ``tp`` precipitation (mm/h); ``ssrd`` surface solar
radiation downwards (W/m^2); ``t850`` temperature at 850 hPa (K).

The weather follows seasonal and diurnal cycles plus AR(1) synoptic anomalies
(Graz-like continental climate, basin with frequent autumn/winter inversions).
Fog becomes likely with a small dewpoint depression, weak wind, a shallow
boundary layer, a temperature inversion (``t850 > t2m``), clear nights and
autumn/winter; the label is a noisy threshold of that score on the *true* state.
The true state differs from the best guess by one draw from the ensemble's
uncertainty distribution, so input uncertainty genuinely matters. Ensemble spread
is larger in unsettled weather (cloud, precipitation, wind).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

GRID_CELLS = ("fog_cell",)  # the functions a grid store may name (core.runs.cell_function)

__all__ = [
    "FEATURES",
    "FogData",
    "synthetic_fog_data",
    "ensemble_covariance",
    "block_split",
    "load_ensemble_table",
    "save_ensemble_table",
    "standardize",
    "fog_run",
    "fog_data_from_settings",
    "fog_config",
    "fog_cell",
    "run_fog_grid",
]

FEATURES = ("t2m", "d2m", "u10", "v10", "sp", "tcc", "blh", "tp", "ssrd", "t850")
_LOWER = {"tcc": 0.0, "blh": 10.0, "tp": 0.0, "ssrd": 0.0}
_UPPER = {"tcc": 1.0}


@dataclass(frozen=True)
class FogData:
    """Hourly predictors with an ensemble and a binary fog label.

    Attributes
    ----------
    time : ndarray, datetime64[h], shape (T,)
    best : ndarray, float64, shape (T, k)    best-guess predictors (training input)
    members : ndarray, float64, shape (T, M, k)    ensemble members
    fog : ndarray, int64, shape (T,)    1 = visibility below 10 km
    features : tuple of str, length k
    """

    time: np.ndarray
    best: np.ndarray
    members: np.ndarray
    fog: np.ndarray
    features: tuple

    def __post_init__(self):
        T, k = self.best.shape
        if self.members.ndim != 3 or self.members.shape[0] != T or self.members.shape[2] != k:
            raise ValueError(f"members must have shape (T={T}, M, k={k}); got {self.members.shape}.")
        if self.members.shape[1] < 2:
            raise ValueError("need at least 2 ensemble members to estimate a covariance.")
        if self.fog.shape != (T,) or self.time.shape != (T,) or len(self.features) != k:
            raise ValueError("time, fog and features must match the number of timesteps / predictors.")
        if not (np.all(np.isfinite(self.best)) and np.all(np.isfinite(self.members))):
            raise ValueError("predictors contain NaN or inf; fill or drop those timesteps.")
        if not np.all(np.isin(self.fog, (0, 1))):
            raise ValueError("fog labels must be 0 or 1.")


# ----------------------------------------------------------------------------
# synthetic stand-in
# ----------------------------------------------------------------------------


def _ar1(rng, n, phi, sigma):
    """Stationary AR(1) series with lag-1 autocorrelation phi and marginal std sigma."""
    e = rng.standard_normal(n) * sigma * np.sqrt(1 - phi**2)
    x = np.empty(n)
    x[0] = rng.standard_normal() * sigma
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


def _fog_score(s: dict, doy: np.ndarray, hour: np.ndarray) -> np.ndarray:
    """Physically motivated fog propensity of a state (higher = more likely fog)."""
    depression = s["t2m"] - s["d2m"]  # K; saturation when ~0
    wind = np.hypot(s["u10"], s["v10"])
    inversion = s["t850"] - s["t2m"]  # > 0: warm air aloft, stable basin
    night = np.cos(2 * np.pi * (hour - 3) / 24)  # peak near 03 local
    cold_season = np.cos(2 * np.pi * (doy - 330) / 365.25)  # peak late November
    return (
        -1.6 * depression
        - 0.7 * wind
        + 0.25 * inversion
        - 0.004 * s["blh"]
        - 1.2 * s["tcc"]
        + 0.6 * night
        + 0.8 * cold_season
        + 2.0 * np.minimum(s["tp"], 2.0)  # rain lowers visibility too
    )


def _clip_physical(X: np.ndarray, features) -> np.ndarray:
    X = X.copy()
    for j, f in enumerate(features):
        lo, hi = _LOWER.get(f, -np.inf), _UPPER.get(f, np.inf)
        X[..., j] = np.clip(X[..., j], lo, hi)
    return X


def synthetic_fog_data(
    seed: int = 0, n_days: int = 365, n_members: int = 10, fog_rate: float = 0.15, start: str = "2022-01-01"
) -> FogData:
    """Synthetic ERA5/SYNOP-like stand-in for the fog experiment (see module docstring).

    Parameters
    ----------
    seed : int
    n_days : int
        Length of the hourly record (365 = the paper's one year).
    n_members : int
        Ensemble size (ERA5: 10).
    fog_rate : float in (0, 1)
        Target fraction of hours with visibility < 10 km (the label threshold is the
        corresponding quantile of the noisy fog score).
    start : str
        First timestamp.

    Returns
    -------
    FogData with T = 24 * n_days hours, k = 10 predictors.
    """
    if int(n_days) != n_days or n_days < 28:
        raise ValueError(f"n_days must be an integer >= 28 (one 4-week split block); got {n_days!r}.")
    if int(n_members) != n_members or n_members < 2:
        raise ValueError(f"n_members must be an integer >= 2; got {n_members!r}.")
    if not 0 < fog_rate < 1:
        raise ValueError(f"fog_rate must be in (0, 1); got {fog_rate!r}.")
    rng = np.random.default_rng(seed)
    T = 24 * int(n_days)
    time = np.datetime64(start, "h") + np.arange(T).astype("timedelta64[h]")
    hour = np.arange(T) % 24
    doy = (np.arange(T) // 24) % 365 + 1
    season = np.cos(2 * np.pi * (doy - 200) / 365.25)  # +1 in mid July
    diurnal = np.cos(2 * np.pi * (hour - 15) / 24)  # +1 at 15 local

    # synoptic state: slowly varying anomalies (hourly AR(1), e-folding of days)
    syn_t = _ar1(rng, T, 0.995, 3.0)
    syn_p = _ar1(rng, T, 0.997, 7.0)
    moist = _ar1(rng, T, 0.99, 1.0)
    cloud_l = _ar1(rng, T, 0.98, 1.0)
    u_l, v_l = _ar1(rng, T, 0.97, 2.0), _ar1(rng, T, 0.97, 2.0)

    tcc = 1 / (1 + np.exp(-(1.3 * cloud_l - 0.1 * syn_p / 7 + 0.2)))
    clear = 1 - tcc
    t2m = 283.0 + 10.0 * season + syn_t + (3.0 + 4.0 * clear) * diurnal
    depression = np.maximum(0.0, 3.0 + 2.0 * diurnal * clear + 1.2 * moist - 1.5 * tcc + 0.8 * season)
    d2m = t2m - depression
    wind_scale = 1.0 + 0.6 * np.maximum(diurnal, 0) + 0.5 * np.abs(syn_p) / 7
    u10 = (u_l + 0.5) * wind_scale * 0.8
    v10 = v_l * wind_scale * 0.8
    sp = 980.0 + syn_p - 0.3 * syn_t
    blh = np.maximum(
        20.0,
        150.0 + (900.0 * clear + 400.0) * np.maximum(diurnal, 0) * (0.6 + 0.4 * season) + 60.0 * np.hypot(u10, v10),
    )
    tp = np.maximum(0.0, 1.5 * (tcc - 0.75) * 4 + 0.5 * rng.standard_normal(T)) * (tcc > 0.75)
    sun = np.maximum(0.0, np.cos(2 * np.pi * (hour - 12) / 24)) ** 1.5 * (650 + 300 * season)
    ssrd = sun * (1 - 0.75 * tcc)
    # 850 hPa (~1500 m, above the basin): less diurnal cycle, warmer than the surface on cold clear nights
    t850 = 276.0 + 8.0 * season + 0.8 * syn_t + 2.0 * clear * (1 - diurnal) * (1 - 0.5 * season)
    best = np.column_stack([t2m, d2m, u10, v10, sp, tcc, blh, tp, ssrd, t850])

    # ensemble uncertainty: weather-dependent spreads, fixed physical correlations between variables
    base_sd = np.array([0.6, 0.7, 0.8, 0.8, 0.6, 0.08, 60.0, 0.15, 25.0, 0.5])
    unsettled = 0.6 + 0.8 * tcc + 0.15 * np.hypot(u10, v10) + 0.6 * np.minimum(tp, 2)
    spread = base_sd[None, :] * unsettled[:, None] * (1 + 0.3 * _ar1(rng, T, 0.9, 1.0))[:, None].clip(0.3)
    spread[:, 8] *= (sun > 0) + 0.05  # no radiation uncertainty at night
    R = np.eye(10)
    for i, j, r in [
        (0, 1, 0.75),
        (0, 9, 0.5),
        (1, 9, 0.3),
        (2, 3, 0.2),
        (5, 8, -0.6),
        (5, 7, 0.4),
        (0, 6, 0.3),
        (6, 2, 0.3),
        (6, 3, 0.2),
        (4, 0, -0.2),
    ]:
        R[i, j] = R[j, i] = r
    # make R a valid correlation matrix (nearest PSD by eigenvalue clipping)
    lam, V = np.linalg.eigh(R)
    R = (V * np.clip(lam, 1e-3, None)) @ V.T
    d = np.sqrt(np.diag(R))
    Lr = np.linalg.cholesky(R / np.outer(d, d))
    z = rng.standard_normal((T, n_members + 1, 10)) @ Lr.T
    pert = z * spread[:, None, :]
    members = _clip_physical(best[:, None, :] + pert[:, :n_members], FEATURES)
    truth = _clip_physical(best + pert[:, n_members], FEATURES)

    state = dict(zip(FEATURES, truth.T))
    score = _fog_score(state, doy, hour) + 0.8 * rng.standard_normal(T)  # unresolved local effects
    fog = (score > np.quantile(score, 1 - fog_rate)).astype(np.int64)
    return FogData(time=time, best=best, members=members, fog=fog, features=FEATURES)


# ----------------------------------------------------------------------------
# covariance, split, scaling
# ----------------------------------------------------------------------------


def ensemble_covariance(members) -> np.ndarray:
    """Per-timestep sample covariance of the ensemble (ddof = 1).

    Parameters
    ----------
    members : array_like, shape (T, M, k)

    Returns
    -------
    ndarray, float64, shape (T, k, k), symmetric PSD (rank <= M - 1: singular when M <= k).
    """
    E = np.asarray(members, dtype=np.float64)
    if E.ndim != 3 or E.shape[1] < 2:
        raise ValueError(f"members must have shape (T, M >= 2, k); got {E.shape}.")
    A = E - E.mean(axis=1, keepdims=True)
    C = np.einsum("tmi,tmj->tij", A, A) / (E.shape[1] - 1)
    return 0.5 * (C + np.swapaxes(C, 1, 2))


def block_split(time, pattern=(2, 1, 1)) -> dict:
    """The paper's block split by weeks: ``pattern`` weeks train, validation, test, repeating.

    Parameters
    ----------
    time : array_like of datetime64, shape (T,)
    pattern : (int, int, int)
        Weeks of train, validation, test per cycle (paper: 2, 1, 1).

    Returns
    -------
    dict of boolean masks ``train``, ``val``, ``test`` (shape (T,)), disjoint and covering all.
    """
    t = np.asarray(time).astype("datetime64[h]")
    if t.ndim != 1 or len(t) == 0:
        raise ValueError("time must be a non-empty 1-D array of timestamps.")
    if len(pattern) != 3 or min(pattern) < 1:
        raise ValueError(f"pattern must be three positive week counts; got {pattern!r}.")
    week = ((t - t[0]).astype(np.int64) // (24 * 7)).astype(np.int64)
    pos = week % int(sum(pattern))
    a, b = pattern[0], pattern[0] + pattern[1]
    return {"train": pos < a, "val": (pos >= a) & (pos < b), "test": pos >= b}


def standardize(X, cov, mean, scale):
    """Standardise points and transform their covariances accordingly.

    ``x -> (x - mean) / scale`` maps a covariance ``C`` to ``C / outer(scale, scale)``.

    Returns
    -------
    (ndarray (n, k), ndarray (n, k, k))
    """
    X = np.asarray(X, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    return (X - mean) / s, np.asarray(cov, dtype=np.float64) / np.outer(s, s)


# ----------------------------------------------------------------------------
# tabular format for real ensemble data
# ----------------------------------------------------------------------------


def save_ensemble_table(data: FogData, path) -> Path:
    """Write ``data`` in the documented tabular format (CSV; see module docstring)."""
    import pandas as pd

    from robeval.core.io import save_frame

    T, M, k = data.members.shape
    best = pd.DataFrame(data.best, columns=list(data.features))
    best.insert(0, "member", -1)
    best.insert(0, "time", pd.to_datetime(data.time))
    best["fog"] = data.fog
    mem = pd.DataFrame(data.members.reshape(T * M, k), columns=list(data.features))
    mem.insert(0, "member", np.tile(np.arange(M), T))
    mem.insert(0, "time", pd.to_datetime(np.repeat(data.time, M)))
    mem["fog"] = np.nan
    df = pd.concat([best, mem], ignore_index=True).sort_values(["time", "member"], kind="stable")
    df["time"] = df["time"].dt.strftime("%Y-%m-%dT%H:%M")
    return save_frame(df, Path(path))


def load_ensemble_table(path, features=None) -> FogData:
    """Read real (or exported) ensemble data in the documented tabular format.

    Parameters
    ----------
    path : str or Path
        CSV with columns ``time``, ``member``, the predictors and ``fog``.
    features : sequence of str, optional
        Predictor columns to use (default: every column except time/member/fog).

    Returns
    -------
    FogData

    Raises
    ------
    ValueError
        Missing columns, timesteps without a best guess, unequal member sets, or
        missing labels, each with what to fix.
    """
    import pandas as pd

    df = pd.read_csv(path)
    for col in ("time", "member", "fog"):
        if col not in df.columns:
            raise ValueError(f"{path}: missing column {col!r}; expected time, member, <features...>, fog.")
    features = (
        tuple(features) if features is not None else tuple(c for c in df.columns if c not in ("time", "member", "fog"))
    )
    missing = [f for f in features if f not in df.columns]
    if missing or not features:
        raise ValueError(f"{path}: predictor columns {missing or '(none)'} not found.")
    df["time"] = pd.to_datetime(df["time"])
    df = df.sort_values(["time", "member"], kind="stable")
    best = df[df["member"] == -1]
    mem = df[df["member"] >= 0]
    times = best["time"].to_numpy()
    if best["time"].duplicated().any():
        raise ValueError(f"{path}: some timesteps have more than one best-guess row (member = -1).")
    if best["fog"].isna().any():
        raise ValueError(f"{path}: best-guess rows need a fog label (0/1); {int(best['fog'].isna().sum())} are empty.")
    counts = mem.groupby("time")["member"].nunique()
    M = int(counts.iloc[0]) if len(counts) else 0
    if len(counts) != len(times) or (counts != M).any() or M < 2:
        raise ValueError(f"{path}: every timestep needs one best-guess row and the same M >= 2 member rows.")
    if not np.array_equal(mem["time"].drop_duplicates().to_numpy(), times):
        raise ValueError(f"{path}: member timesteps differ from best-guess timesteps.")
    members = mem[list(features)].to_numpy(np.float64).reshape(len(times), M, len(features))
    return FogData(
        time=times.astype("datetime64[h]"),
        best=best[list(features)].to_numpy(np.float64),
        members=members,
        fog=best["fog"].to_numpy().astype(np.int64),
        features=features,
    )


# ----------------------------------------------------------------------------
# the experiment (Sec. 4.2)
# ----------------------------------------------------------------------------


def fog_run(
    data: FogData,
    seed,
    *,
    hidden=(32, 32),
    epochs: int = 30,
    batch_size: int = 64,
    lr: float = 0.01,
    n_samples: int = 10000,
    n_repeats: int = 2,
    max_test_points: int | None = None,
    deepfool_max_iter: int = 100,
    progress: bool = False,
) -> dict:
    """One independent run of Fig. 6 on ``data``: a network trained from its own seed, nothing written.

    Steps: block split (2/1/1 weeks); standardise with training statistics; train a 2-hidden-layer ReLU
    network on the best guess (seed ``keyed(seed, "model")``); on the test hours (an evenly spaced subset of
    ``max_test_points``) compute (i) adversarial robustness with ART's DeepFool, rescaled by its maximum, and
    (ii) real-world robustness with each hour's ensemble covariance (transformed to standardised units),
    ``n_samples`` samples, repeated ``n_repeats`` times from independent streams ``keyed(seed, "mc", r)``
    (the convergence check; the first two are kept as ``rw_robustness`` and ``rw_robustness2``).

    Returns dict with ``points`` (DataFrame, one row per test hour) and ``summary`` (accuracies, DeepFool
    success rate, convergence check).
    """
    import pandas as pd

    from robeval.core.seeding import as_seed_sequence, keyed
    from robeval.realworld.adversarial import deepfool
    from robeval.realworld.experiments import Split, fit_mlp, int_seed, torch_predict, torch_threads
    from robeval.realworld.robustness import min_pairwise_correlation, real_world_robustness

    if int(n_repeats) < 2:
        raise ValueError(f"n_repeats must be >= 2 (two independent estimates per hour); got {n_repeats!r}.")
    seed = as_seed_sequence(seed)
    masks = block_split(data.time)
    cov = ensemble_covariance(data.members)
    mean = data.best[masks["train"]].mean(axis=0)
    scale = data.best[masks["train"]].std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    Xs, Cs = standardize(data.best, cov, mean, scale)
    split = Split(Xs[masks["train"]], data.fog[masks["train"]], Xs[masks["test"]], data.fog[masks["test"]], mean, scale)
    test_idx = np.flatnonzero(masks["test"])
    if max_test_points and max_test_points < len(test_idx):
        # evenly spaced subset keeps the seasonal coverage of the test weeks
        test_idx = test_idx[np.linspace(0, len(test_idx) - 1, int(max_test_points)).round().astype(int)]
    X, C = Xs[test_idx], Cs[test_idx]
    with torch_threads(1):  # small network: single-threaded training, gradients and inference are fastest
        model = fit_mlp(
            split,
            hidden=tuple(hidden),
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            seed=int_seed(seed, "model"),
            progress=progress,
        )
        predict = torch_predict(model)
        adv = deepfool(model, X, max_iter=deepfool_max_iter)
        reps = [
            real_world_robustness(
                predict, X, cov=C, n_samples=n_samples, rng=keyed(seed, "mc", r), return_se=True, progress=progress
            )
            for r in range(int(n_repeats))
        ]
        acc = {k: float(np.mean(predict(Xs[m]) == data.fog[m])) for k, m in masks.items()}
    try:
        min_corr = min_pairwise_correlation(np.stack([r.robustness for r in reps]))
    except ValueError:  # a repetition constant over the hours: the correlation is undefined
        min_corr = float("nan")
    points = pd.DataFrame(
        {
            "time": data.time[test_idx].astype(str),
            "fog": data.fog[test_idx],
            "prediction": reps[0].base_prediction,
            "adv_distance": adv.distance,
            "adv_success": adv.success,
            "adv_robustness": adv.robustness,
            "rw_robustness": reps[0].robustness,
            "rw_se": reps[0].se,
            "rw_robustness2": reps[1].robustness,
            "ensemble_total_var": np.trace(C, axis1=1, axis2=2),
        }
    )
    test_fog = data.fog[masks["test"]].mean()
    summary = {
        "n_test_points": int(len(test_idx)),
        "accuracy_train": acc["train"],
        "accuracy_val": acc["val"],
        "accuracy_test": acc["test"],
        "majority_baseline_test": float(max(test_fog, 1 - test_fog)),
        "deepfool_success_rate": adv.success_rate,
        "n_repeats": int(n_repeats),
        "n_samples": int(n_samples),
        "min_pairwise_corr": min_corr,
    }
    return {"points": points, "summary": summary}


def fog_data_from_settings(cfg) -> FogData:
    """The data of notebook 06 from the settings of ``realworld_fog``: the table at ``data_path`` (tabular
    ensemble format, :func:`load_ensemble_table`) or, when ``data_path`` is empty, the synthetic stand-in
    (:func:`synthetic_fog_data` with ``seed``, ``n_days``, ``n_members`` and ``fog_rate``)."""
    if cfg["data_path"]:
        return load_ensemble_table(cfg["data_path"])
    return synthetic_fog_data(cfg["seed"], n_days=cfg["n_days"], n_members=cfg["n_members"], fog_rate=cfg["fog_rate"])


def _file_digest(path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fog_config(cfg) -> dict:
    """The grid configuration of notebook 06 from the settings of ``realworld_fog``: everything that changes a
    run's results (``n_runs`` and ``n_jobs`` do not), with the sha256 of the real data file when ``data_path``
    is set (so a changed file is recomputed)."""
    keys = ("seed", "data_path", "n_days", "n_members", "fog_rate", "hidden", "batch_size", "lr")
    keys += ("deepfool_max_iter", "epochs", "n_samples", "max_test_points", "n_repeats")
    config = {k: cfg[k] for k in keys}
    config["hidden"] = [int(h) for h in config["hidden"]]
    config["data_sha256"] = _file_digest(cfg["data_path"]) if cfg["data_path"] else ""
    return config


def fog_cell(cell: dict, config: dict) -> list[dict]:
    """Grid cell of notebook 06: run ``cell["run"]`` (:func:`fog_run` seeded by ``keyed(config["seed"], "run",
    run)``) on the data of ``config`` (:func:`fog_data_from_settings`), as rows tagged ``table`` = "points" or
    "summary"."""
    from robeval.core.seeding import keyed

    data = fog_data_from_settings(config)
    out = fog_run(
        data,
        keyed(config["seed"], "run", int(cell["run"])),
        hidden=config["hidden"],
        epochs=config["epochs"],
        batch_size=config["batch_size"],
        lr=config["lr"],
        n_samples=config["n_samples"],
        n_repeats=config["n_repeats"],
        max_test_points=config["max_test_points"] or None,
        deepfool_max_iter=config["deepfool_max_iter"],
    )
    return [{"table": "points", **r} for r in out["points"].to_dict(orient="records")] + [
        {"table": "summary", **out["summary"]}
    ]


def run_fog_grid(cfg, out_dir, *, progress: bool = True) -> dict:
    """Notebook 06's computation: ``n_runs`` independently trained networks on the same data, as a resumable
    run grid (:func:`robeval.core.runs.run_grid` with :func:`fog_cell`, ``n_jobs`` workers, cells cached under
    ``results/<profile>/grids/realworld_fog`` by configuration and code); writes ``fog_points.csv`` (one row
    per run and test hour), ``fog_runs.csv`` (one row per run) and ``fog_data.json`` (the data's size, fog rate
    and whether it is the synthetic stand-in) into ``out_dir``. Returns ``{"points", "runs", "data"}``."""
    from pathlib import Path

    from robeval.core import io
    from robeval.core.runs import grid_store, run_grid
    from robeval.realworld.experiments import tidy_table

    if int(cfg["n_runs"]) < 1:
        raise ValueError(f"n_runs must be >= 1; got {cfg['n_runs']!r}.")
    out_dir = Path(out_dir)
    df = run_grid(
        fog_cell,
        [{"run": r} for r in range(int(cfg["n_runs"]))],
        store=grid_store(cfg.profile, "realworld_fog"),
        config=fog_config(cfg),
        n_jobs=int(cfg["n_jobs"]),
        desc="fog runs",
        progress=progress,
    )
    points = tidy_table(df[df["table"] == "points"].drop(columns="table"))
    runs = tidy_table(df[df["table"] == "summary"].drop(columns="table"))
    data = fog_data_from_settings(cfg)
    info = {
        "synthetic": not cfg["data_path"],
        "data_path": cfg["data_path"],
        "n_hours": int(len(data.time)),
        "n_members": int(data.members.shape[1]),
        "n_features": int(len(data.features)),
        "fog_rate": float(data.fog.mean()),
    }
    io.save_frame(points, out_dir / "fog_points.csv")
    io.save_frame(runs, out_dir / "fog_runs.csv")
    io.atomic_write_json(out_dir / "fog_data.json", info)
    return {"points": points, "runs": runs, "data": info}
