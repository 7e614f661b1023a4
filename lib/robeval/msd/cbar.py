"""The CIFAR-10-C-bar construction of Mintun, Kirillov & Xie (2021, Sec. 5 and App. D), step by step.

Inputs are measured with a model trained with default augmentation only:

1. **Severity scan.** Every candidate corruption is applied at 10 magnitudes; for each (corruption,
   magnitude) we record the model's test error and the mean transform feature
   f(c) = E_x[f̂(c(x)) − f̂(x)] (see :mod:`robeval.msd`). The same is done for the 15 CIFAR-10-C
   corruptions at their 5 severities (the "baseline" benchmark).
2. **Severity sets** (:func:`build_severity_sets`). For every middle magnitude, choose four others so that
   the relative error spread e_s/e_3 − 1 matches the baseline's average spread (−a, −a/2, 0, a/2, a).
3. **Distances** (:func:`distance_table`). The distance of a severity set to the baseline is the mean over
   its 5 severities of the minimum, over baseline (corruption, severity), of ‖f_new − f_base‖ — an MMD in
   the transform feature space between corruption distributions.
4. **Error-matched datasets** (:func:`sample_matched_datasets`). Groups of 5 corruptions with one severity
   set each whose average error is within ``precision`` (relative) of the target error (the baseline
   model's CIFAR-10-C error).
5. **Distance shifts** (:func:`distance_shifts`). Random disjoint pairs of groups form 10-corruption
   datasets; a corruption's shift is the mean distance of the datasets containing it minus the mean over
   all datasets, in units of the datasets' standard deviation.
6. **Choice** (:func:`farthest_dataset`). The 10 corruptions with the largest shift; among pairs of
   error-matched groups made only of them, the one whose average error is closest to the target.

The release enumerates every 5-combination of the 30 candidates in step 4; :func:`sample_matched_datasets`
draws ``n_groups`` random combinations instead and searches all their severity-set assignments at once.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robeval.core.images import to_nchw, to_nhwc
from robeval.core.validation import check_positive
from robeval.msd.published import PAPER_TABLE1, PAPER_TABLE1_CBAR
from robeval.transforms.corruptions import corrupt, corrupt_with_param

GRID_CELLS = (
    "table1_cell",
    "scan_cell",
)  # the functions a grid store may name (core.runs.cell_function)

if TYPE_CHECKING:
    import pandas


def average_spread(base_errors: np.ndarray) -> float:
    """Average relative spread of the baseline benchmark's errors around severity 3.

    Parameters
    ----------
    base_errors : float array (n_corruptions, 5) — errors at severities 1..5

    Returns
    -------
    float  mean over corruptions of (|e1/e3 − 1| + |e5/e3 − 1|) / 2
    """
    e = np.asarray(base_errors, dtype=np.float64)
    if e.ndim != 2 or e.shape[1] != 5:
        raise ValueError(f"base_errors must have shape (n_corruptions, 5), got {e.shape}.")
    if np.any(e[:, 2] <= 0):
        raise ValueError("severity-3 errors must be > 0 to form relative spreads.")
    lower = np.abs(e[:, 0] / e[:, 2] - 1)
    upper = np.abs(e[:, 4] / e[:, 2] - 1)
    return float(np.mean((lower + upper) / 2))


def build_severity_sets(errors: np.ndarray, spread: float) -> list[tuple[int, int, int, int, int]]:
    """Candidate 5-severity sets of one corruption, one per middle level.

    Parameters
    ----------
    errors : float array (L,) — error at each scanned magnitude, magnitudes in increasing order
    spread : target relative spread a (from :func:`average_spread`)

    Returns
    -------
    list of index 5-tuples (i1 < i2 < i3 < i4 < i5) into the scan, for i3 = 2 … L−3; i1 and i5 minimise
    |e_i/e_i3 − 1 ∓ a|, i2 and i4 minimise |e_i/e_i3 − 1 ∓ a/2| between them (ties go to the larger index).
    """
    e = np.asarray(errors, dtype=np.float64)
    if e.ndim != 1 or len(e) < 5:
        raise ValueError(f"errors must be a 1-D scan of at least 5 magnitudes, got shape {e.shape}.")
    e = np.maximum(e, 1e-12)

    def best(candidates, i, target):
        sep = e[candidates] / e[i] - 1
        dev = np.abs(target - sep)
        return int(candidates[np.flatnonzero(dev == dev.min())[-1]])

    sets = []
    for i in range(2, len(e) - 2):
        s1 = best(np.arange(0, i - 1), i, -spread)
        s2 = best(np.arange(s1 + 1, i), i, -spread / 2)
        s5 = best(np.arange(i + 2, len(e)), i, spread)
        s4 = best(np.arange(i + 1, s5), i, spread / 2)
        sets.append((s1, s2, i, s4, s5))
    return sets


def distance_table(base_features: np.ndarray, scan_features: np.ndarray, sets) -> np.ndarray:
    """Distance of every candidate severity set to the baseline benchmark.

    Parameters
    ----------
    base_features : float array (B, S, D) — mean transform features of the baseline corruptions/severities
    scan_features : float array (C, L, D) — mean transform features of the scan (candidates × magnitudes)
    sets : list (length C) of lists of index 5-tuples (from :func:`build_severity_sets`)

    Returns
    -------
    float array (C, n_sets): mean over the set's 5 magnitudes of min over (b, s) ‖f_new − f_base(b, s)‖.
    """
    base = np.asarray(base_features, dtype=np.float64).reshape(-1, np.shape(base_features)[-1])
    scan = np.asarray(scan_features, dtype=np.float64)
    # nearest baseline distribution for every scanned (candidate, magnitude)
    d = np.linalg.norm(scan[:, :, None, :] - base[None, None, :, :], axis=-1).min(-1)  # (C, L)
    n_sets = len(sets[0])
    out = np.empty((len(sets), n_sets))
    for c, cs in enumerate(sets):
        if len(cs) != n_sets:
            raise ValueError("every candidate needs the same number of severity sets (same scan length).")
        out[c] = [d[c, list(s)].mean() for s in cs]
    return out


def set_errors(errors: np.ndarray, sets) -> np.ndarray:
    """Average error of every severity set: float array (C, n_sets) from scan errors (C, L)."""
    e = np.asarray(errors, dtype=np.float64)
    return np.array([[e[c, list(s)].mean() for s in cs] for c, cs in enumerate(sets)])


def sample_matched_datasets(
    err_table: np.ndarray,
    target: float,
    *,
    precision: float = 0.01,
    num: int = 5,
    n_groups: int = 2000,
    rng: np.random.Generator,
) -> list[tuple[tuple[int, int], ...]]:
    """Error-matched groups of ``num`` corruptions (step 4).

    For ``n_groups`` random ``num``-combinations of candidates (all combinations if there are fewer),
    every assignment of severity sets is scored; assignments with |target − mean error| / target <
    ``precision`` are accepted and one of them is drawn at random. Combinations without an accepted
    assignment are dropped.

    Parameters
    ----------
    err_table : float array (C, n_sets) — average error per candidate and severity set
    target : target average error (the baseline model's CIFAR-10-C error), same units as err_table

    Returns
    -------
    list of groups; a group is a tuple of ``num`` pairs (candidate index, severity-set index).
    """
    err = np.asarray(err_table, dtype=np.float64)
    n_c, n_s = err.shape
    if not 1 <= num <= n_c:
        raise ValueError(f"num must lie in 1..{n_c} (number of candidates), got {num}.")
    if target <= 0:
        raise ValueError(f"target error must be > 0, got {target}.")
    all_combos = None
    from math import comb

    if comb(n_c, num) <= n_groups:
        all_combos = list(itertools.combinations(range(n_c), num))
        combos = all_combos
    else:
        combos = {tuple(sorted(rng.choice(n_c, size=num, replace=False))) for _ in range(n_groups)}
        combos = sorted(combos)
    grids = np.stack(np.meshgrid(*[np.arange(n_s)] * num, indexing="ij"), axis=-1).reshape(-1, num)
    groups = []
    for combo in combos:
        means = err[list(combo)][np.arange(num)[None, :], grids].mean(1)  # (n_s^num,)
        ok = np.flatnonzero(np.abs(target - means) / target < precision)
        if ok.size:
            pick = grids[ok[rng.integers(ok.size)]]
            groups.append(tuple((int(c), int(s)) for c, s in zip(combo, pick)))
    return groups


def group_stats(groups, err_table: np.ndarray, dist_table: np.ndarray) -> pd.DataFrame:
    """One row per group: member candidate indices, severity-set indices, mean error and mean distance."""
    rows = []
    for g in groups:
        cs = [c for c, _ in g]
        ss = [s for _, s in g]
        rows.append(
            {
                "members": tuple(cs),
                "sets": tuple(ss),
                "error": float(np.mean([err_table[c, s] for c, s in g])),
                "distance": float(np.mean([dist_table[c, s] for c, s in g])),
            }
        )
    return pd.DataFrame(rows)


def distance_shifts(
    groups: pd.DataFrame, n_candidates: int, *, n_pairs: int = 100_000, rng: np.random.Generator
) -> np.ndarray:
    """Per-candidate shift in distance (step 5).

    Random pairs of groups with no corruption in common form 10-corruption datasets (distance = mean of the
    two groups' distances). Shift of candidate c = (mean distance of datasets containing c − mean of all
    datasets) / std of all datasets. Candidates never sampled get NaN.

    Returns
    -------
    float array (n_candidates,)
    """
    if len(groups) < 2:
        raise ValueError("need at least two error-matched groups; lower the precision or raise n_groups.")
    member = np.zeros((len(groups), n_candidates), dtype=bool)
    for i, m in enumerate(groups["members"]):
        member[i, list(m)] = True
    dist = groups["distance"].to_numpy()
    draws = rng.integers(0, len(groups), size=(n_pairs * 3, 2))
    disjoint = ~np.any(member[draws[:, 0]] & member[draws[:, 1]], axis=1)
    draws = draws[disjoint][:n_pairs]
    if len(draws) == 0:
        raise ValueError("no two error-matched groups are disjoint; sample more groups.")
    dd = (dist[draws[:, 0]] + dist[draws[:, 1]]) / 2
    contains = member[draws[:, 0]] | member[draws[:, 1]]  # (pairs, C)
    counts = contains.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pos = (contains * dd[:, None]).sum(0) / counts
    shift = (pos - dd.mean()) / dd.std()
    shift[counts == 0] = np.nan
    return shift


def farthest_dataset(groups: pd.DataFrame, shifts: np.ndarray, target: float, *, k: int = 10):
    """Choose the new benchmark (step 6).

    Returns
    -------
    (top, best): ``top`` the indices of the ``k`` candidates with the largest shift; ``best`` a dict with the
    chosen pair of disjoint groups made only of ``top`` members ("groups", their "error" and "distance"),
    or None if no such pair exists at this scale.
    """
    finite = np.where(np.isfinite(shifts), shifts, -np.inf)
    top = set(np.argsort(finite)[::-1][:k].tolist())
    valid = groups[[set(m) <= top for m in groups["members"]]].reset_index(drop=True)
    best = None
    for i, j in itertools.combinations(range(len(valid)), 2):
        a, b = valid.iloc[i], valid.iloc[j]
        if set(a["members"]) & set(b["members"]):
            continue
        err = (a["error"] + b["error"]) / 2
        if best is None or abs(err - target) < abs(best["error"] - target):
            best = {"groups": (a.to_dict(), b.to_dict()), "error": err, "distance": (a["distance"] + b["distance"]) / 2}
    return sorted(top), best


def construct(
    scan: pd.DataFrame, *, precision: float, num: int, n_groups: int, n_pairs: int, n_runs: int, k: int, seed: int
) -> dict:
    """Run steps 2–6 on a severity scan (the rows written by :func:`robeval.msd.cbar.scan_cell`).

    Parameters
    ----------
    scan : DataFrame with columns corruption, kind ("c" baseline / "cbar" candidate), level, error, feature
    precision, num, n_groups, n_pairs : see :func:`sample_matched_datasets` and :func:`distance_shifts`
    n_runs : independent repetitions of steps 4–5 (the release repeats the whole pipeline 10 times with
        different models; here the group sampling is repeated); shifts are averaged over runs
    k : size of the new benchmark (10)

    Returns
    -------
    dict with target (baseline mean error), spread, candidates, levels (C, L), sets, err_table, dist_table,
    shifts (DataFrame: candidate, shift mean/std over runs, scan distance), top (names), best (chosen dataset
    with severities as magnitudes, or None), n_groups_matched (per run).
    """
    base = scan[scan["kind"] == "c"].sort_values(["corruption", "level"])
    cand = scan[scan["kind"] != "c"].sort_values(["corruption", "level"])
    if base.empty or cand.empty:
        raise ValueError("scan needs rows of both kinds: 'c' (baseline benchmark) and 'cbar' (candidates).")
    base_names = sorted(base["corruption"].unique())
    base_err = np.array([base[base["corruption"] == b]["error"].to_numpy() for b in base_names])
    base_feat = np.array([np.stack(base[base["corruption"] == b]["feature"].to_numpy()) for b in base_names])
    names = sorted(cand["corruption"].unique())
    levels = np.array([cand[cand["corruption"] == c]["level"].to_numpy() for c in names])
    errors = np.array([cand[cand["corruption"] == c]["error"].to_numpy() for c in names])
    feats = np.array([np.stack(cand[cand["corruption"] == c]["feature"].to_numpy()) for c in names])
    target = float(base_err.mean())
    spread = average_spread(base_err)
    sets = [build_severity_sets(e, spread) for e in errors]
    err_table = set_errors(errors, sets)
    dist_table = distance_table(base_feat, feats, sets)
    rng = np.random.default_rng(seed)
    all_shifts, all_groups, matched = [], [], []
    for _ in range(n_runs):
        groups = sample_matched_datasets(err_table, target, precision=precision, num=num, n_groups=n_groups, rng=rng)
        matched.append(len(groups))
        stats = group_stats(groups, err_table, dist_table)
        all_groups.append(stats)
        all_shifts.append(distance_shifts(stats, len(names), n_pairs=n_pairs, rng=rng))
    shifts = np.array(all_shifts)
    shift_df = pd.DataFrame(
        {
            "corruption": names,
            "shift": np.nanmean(shifts, 0),
            "shift_std": np.nanstd(shifts, 0),
            "scan_distance": dist_table.mean(1),
            "scan_error": errors.mean(1),
        }
    )
    shift_df = shift_df.sort_values("shift", ascending=False).reset_index(drop=True)
    top_idx, best = farthest_dataset(pd.concat(all_groups, ignore_index=True), np.nanmean(shifts, 0), target, k=k)
    chosen = None
    if best is not None:
        chosen = {"error": best["error"], "distance": best["distance"], "severities": {}}
        for g in best["groups"]:
            for c, s in zip(g["members"], g["sets"]):
                chosen["severities"][names[c]] = [float(levels[c, i]) for i in sets[c][s]]
    return {
        "target": target,
        "spread": spread,
        "candidates": names,
        "levels": levels,
        "sets": sets,
        "err_table": err_table,
        "dist_table": dist_table,
        "shifts": shift_df,
        "top": [names[i] for i in top_idx],
        "best": chosen,
        "n_groups_matched": matched,
    }


def construction_params(cfg) -> dict:
    """The keyword arguments of :func:`construct` from the resolved settings ``cfg`` of
    ``settings/msd_cifar10_c_bar.toml``: ``precision``, ``num`` (= ``group_size``), ``n_groups``, ``n_pairs``,
    ``n_runs`` (= ``construction_runs``), ``k`` (= ``n_chosen``) and ``seed``; use ``construct(scan, **construction_params(cfg))``."""
    return {
        "precision": cfg["precision"],
        "num": cfg["group_size"],
        "n_groups": cfg["n_groups"],
        "n_pairs": cfg["n_pairs"],
        "n_runs": cfg["construction_runs"],
        "k": cfg["n_chosen"],
        "seed": cfg["seed"],
    }


AUG_LABELS = {"none": "Baseline", "autoaugment": "AutoAugment", "augmix": "AugMix", "patch_gaussian": "Patch Gaussian"}
METHODS = ("autoaugment", "augmix", "patch_gaussian")  # the augmentations Table 1 compares with the baseline


# ================================================================== Table 1: networks, calibration, evaluation
def calibration_levels(alpha: float, names=None) -> dict:
    """The C-bar magnitudes scaled by ``alpha``: {name: [min(10, alpha * published level) for the 5 severities]}."""
    from robeval.transforms.corruptions import CBAR_CORRUPTIONS, severity_params

    names = CBAR_CORRUPTIONS if names is None else names
    return {n: [float(min(10.0, alpha * float(v))) for v in severity_params(n)] for n in names}


def mean_cbar_error(model, images_nhwc, labels, alpha: float, seed: int, names=None, *, n_jobs=1) -> float:
    """Mean error of ``model`` over the C-bar corruptions at magnitudes scaled by ``alpha`` (image i at severity
    1 + i mod 5, :func:`robeval.msd.nets.corrupt_diagonal`). ``n_jobs``: worker processes of the corruption
    (:func:`robeval.msd.nets.corrupt_diagonal_many`; the same images for every value), the network runs here."""
    from robeval.core.images import to_nchw
    from robeval.msd import nets
    from robeval.transforms.corruptions import CBAR_CORRUPTIONS

    names = CBAR_CORRUPTIONS if names is None else names
    fast = nets.inference_model(model)
    levels = calibration_levels(alpha, names)
    errs = [
        np.mean(nets.predict_fast(fast, to_nchw(x)) != labels)
        for _, x in nets.corrupt_diagonal_many(images_nhwc, names, seed, levels=levels, n_jobs=n_jobs)
    ]
    return float(np.mean(errs))


def calibrate_alpha(error_of, target: float, *, start: float = 1.0, tol: float = 0.002, max_evals: int = 7):
    """Find the magnitude scale ``alpha`` at which ``error_of(alpha)`` (rising in alpha) meets ``target``: bracket
    by factors of 1.6 from ``start`` (alpha in [1/8, 4]), then regula falsi, at most ``max_evals`` evaluations.

    Returns (alpha, error, history [(alpha, error), ...]); alpha is the evaluated point closest to the target.
    """
    hist = []

    def f(a):
        e = float(error_of(a))
        hist.append((float(a), e))
        return e

    a0, e0 = start, f(start)
    lo = hi = None
    if e0 < target:
        lo, a = (a0, e0), a0
        while len(hist) < max_evals and a < 4.0:
            a = min(4.0, a * 1.6)
            e = f(a)
            if e >= target:
                hi = (a, e)
                break
            lo = (a, e)
    else:
        hi, a = (a0, e0), a0
        while len(hist) < max_evals and a > 0.125:
            a = max(0.125, a / 1.6)
            e = f(a)
            if e <= target:
                lo = (a, e)
                break
            hi = (a, e)
    while lo is not None and hi is not None and len(hist) < max_evals:
        best = min(hist, key=lambda h: abs(h[1] - target))
        if abs(best[1] - target) <= tol or hi[1] == lo[1]:
            break
        a = lo[0] + (target - lo[1]) * (hi[0] - lo[0]) / (hi[1] - lo[1])
        e = f(a)
        if e < target:
            lo = (a, e)
        else:
            hi = (a, e)
    best = min(hist, key=lambda h: abs(h[1] - target))
    return best[0], best[1], hist


def calibrate_cbar(cfg, calibration_key: str, c_test_path, *, n_jobs=1) -> dict:
    """Calibrate CIFAR-10-C-bar to our baseline, as the construction intends (Sec. 5: "severities chosen so that
    the average error matches [CIFAR-10-C] for default augmentation"): the magnitudes of all ten corruptions are
    scaled by one factor alpha (capped at the maximum magnitude 10) so that the calibration network's mean
    error on C-bar meets its mean error on CIFAR-10-C. The calibration network is a default-augmentation model
    that is none of Table 1's runs (notebook 03's feature extractor), so the baselines' C-bar − C difference
    tests the calibration on independent networks. Measured on the first ``n_calibrate`` test images.

    ``n_jobs``: worker processes corrupting the images (:func:`mean_cbar_error`; the result is the same for every
    value).

    Returns a JSON-able dict: alpha, target (C error), error (C-bar error at alpha), history, levels.
    """
    from robeval.core import data
    from robeval.msd import nets

    tcfg = nets.train_config(cfg)
    model = nets.load_model(tcfg, calibration_key)
    c_rows = nets.error_rates(model, c_test_path)
    target = float(np.mean([r["error"] for r in c_rows for _ in range(r["n"])]))
    _, _, x_te, y_te = data.load_cifar10_any(bool(cfg["full_data"]), layout="NHWC")
    n = min(int(cfg["n_calibrate"]), int(cfg["n_test"]))
    x, y = x_te[:n], np.asarray(y_te[:n])
    seed = nets.run_seed(int(cfg["seed"]), "calibration")
    alpha, err, hist = calibrate_alpha(lambda a: mean_cbar_error(model, x, y, a, seed, n_jobs=n_jobs), target)
    return {
        "alpha": alpha,
        "target": target,
        "error": err,
        "history": hist,
        "levels": calibration_levels(alpha),
        "n_images": n,
    }


def table1_cells(augmentations, n_runs: int, seed: int, first_run: int = 0) -> list[dict]:
    """Grid cells of Table 1: every augmentation for runs ``first_run .. first_run + n_runs - 1`` (run-major),
    ``{"augmentation", "run", "seed"}``; the seed ``run_seed(seed, "finetune", run)`` is shared by the methods of a
    run (paired design). A cell depends on its run index, never on ``n_runs`` or ``first_run``: runs 10-14 judged
    alone (``first_run=10, n_runs=5``, a rerun of runs 0-4 with other seeds) are the cells runs 0-14 hold."""
    from robeval.msd.nets import run_seed

    n_runs = int(check_positive(n_runs, "n_runs", strict=True, integer=True))
    first_run = int(check_positive(first_run, "first_run", strict=False, integer=True))
    seed = int(check_positive(seed, "seed", strict=False, integer=True))
    unknown = [a for a in augmentations if a not in AUG_LABELS]
    if unknown:
        raise ValueError(f"unknown augmentation(s) {unknown}; valid: {', '.join(AUG_LABELS)}.")
    return [
        {"augmentation": a, "run": k, "seed": run_seed(seed, "finetune", k)}
        for k in range(first_run, first_run + n_runs)
        for a in augmentations
    ]


def table1_config(cfg, c_test_path, cbar_test_path) -> dict:
    """The JSON-able config of :func:`table1_cell` from the notebook's settings and the cached test sets."""
    from robeval.msd import nets

    return {
        "train": nets.train_config(cfg),
        "seed": int(cfg["seed"]),
        "finetune_epochs": int(cfg["finetune_epochs"]),
        "finetune_lr": float(cfg["finetune_lr"]),
        "c_test_path": str(c_test_path),
        "cbar_test_path": str(cbar_test_path),
    }


def table1_model(cell: dict, config: dict):
    """The network of a Table 1 cell: with ``finetune_epochs`` > 0, the run's default-augmentation network
    fine-tuned for ``finetune_epochs`` (cosine from ``finetune_lr``) with the cell's augmentation on top of crops
    and flips (the baseline: crops and flips only); with 0, a network trained from scratch with the augmentation
    for the training config's epochs (the paper's protocol). Cached (:func:`robeval.msd.nets.trained_model`)."""
    from robeval.msd import nets

    tcfg = config["train"]
    run_key = nets.model_key(tcfg, "none", nets.run_seed(config["seed"], "run", int(cell["run"])))
    if int(config["finetune_epochs"]) > 0:
        return nets.trained_model(
            tcfg,
            cell["augmentation"],
            int(cell["seed"]),
            init=run_key,
            epochs=int(config["finetune_epochs"]),
            lr=float(config["finetune_lr"]),
        )[0]
    if cell["augmentation"] == "none":
        return nets.load_model(tcfg, run_key)
    return nets.trained_model(tcfg, cell["augmentation"], nets.run_seed(config["seed"], "run", int(cell["run"])))[0]


def table1_cell(cell: dict, config: dict) -> list[dict]:
    """One Table 1 network (:func:`table1_model`), evaluated on the clean test images, CIFAR-10-C and the
    calibrated CIFAR-10-C-bar. Returns rows {benchmark ("clean" | "c" | "cbar"), corruption, severity, error, n}."""
    from robeval.core import data
    from robeval.msd import nets

    fast = nets.inference_model(table1_model(cell, config))  # compiled once for both test sets
    _, _, x_te, _ = data.load_cifar10_any(bool(config["train"]["full_data"]))
    rows = []
    for bench, path in (("c", config["c_test_path"]), ("cbar", config["cbar_test_path"])):
        for r in nets.error_rates(fast, path, clean=x_te if bench == "c" else None):
            rows.append({"benchmark": "clean" if r["corruption"] == "clean" else bench, **r})
    return rows


def per_model_table(rows) -> pandas.DataFrame:
    """One row per (augmentation, run): mean errors in % on the clean images, CIFAR-10-C and CIFAR-10-C-bar
    (corruption errors weighted by images, i.e. averaged over corruptions and severities) and delta = C-bar − C."""
    df = rows.copy()
    df["wrong"] = df["error"] * df["n"]
    g = df.groupby(["augmentation", "run", "benchmark"])[["wrong", "n"]].sum()
    err = (100 * g["wrong"] / g["n"]).unstack("benchmark")
    err = err.rename(columns={"clean": "clean_err", "c": "c_err", "cbar": "cbar_err"}).reset_index()
    err["delta"] = err["cbar_err"] - err["c_err"]
    return err


def per_corruption_table(rows, benchmark: str = "cbar") -> pandas.DataFrame:
    """Errors in % per (augmentation, run) and corruption of one benchmark: columns augmentation, run, then one per
    corruption."""
    d = rows[rows["benchmark"] == benchmark].copy()
    d["wrong"] = d["error"] * d["n"]
    g = d.groupby(["augmentation", "run", "corruption"])[["wrong", "n"]].sum()
    return (100 * g["wrong"] / g["n"]).unstack("corruption").reset_index()


def summarise_table1(per_model) -> pandas.DataFrame:
    """Table 1: per method the mean over runs of the clean, C and C-bar errors and of delta (%), their standard
    deviations over runs, the gains over the baseline on C and C-bar (paired by run), and the paper's values.
    Indexed by the method labels of :data:`AUG_LABELS`."""
    import pandas as pd

    pm = per_model.set_index(["augmentation", "run"])
    order = [a for a in AUG_LABELS if a in pm.index.get_level_values(0)]
    rows = []
    base = pm.loc["none"] if "none" in order else None
    for a in order:
        m = pm.loc[a]
        row = {"method": AUG_LABELS[a], "runs": len(m)}
        for col in ("clean_err", "c_err", "cbar_err", "delta"):
            row[col] = float(m[col].mean())
            row[f"{col}_sd"] = float(m[col].std(ddof=1)) if len(m) > 1 else float("nan")
        if base is not None:
            common = m.index.intersection(base.index)
            row["gain_c"] = float((base.loc[common, "c_err"] - m.loc[common, "c_err"]).mean())
            row["gain_cbar"] = float((base.loc[common, "cbar_err"] - m.loc[common, "cbar_err"]).mean())
        row["paper_c_err"] = PAPER_TABLE1[a]["c"]
        row["paper_cbar_err"] = PAPER_TABLE1[a]["cbar"]
        row["paper_delta_printed"] = PAPER_TABLE1[a]["delta"]
        rows.append(row)
    return pd.DataFrame(rows).set_index("method")


def pixel_change_table(test_path, clean_nchw) -> pandas.DataFrame:
    """Mean absolute pixel change (0-255) of every corruption of a :func:`robeval.msd.nets.corrupted_test_set`
    file at every severity (over the images at that severity; NaN for a severity without images). Columns
    corruption, sev1..sev5."""
    import pandas as pd

    with np.load(test_path) as f:
        x, sev, names = f["x"], f["severity"], [str(n) for n in f["names"]]
    clean = np.asarray(clean_nchw[: x.shape[1]], dtype=np.float32)
    rows = []
    for k, name in enumerate(names):
        d = np.abs(x[k].astype(np.float32) - clean).mean(axis=(1, 2, 3))
        means = {f"sev{s}": float(d[sev == s].mean()) if np.any(sev == s) else float("nan") for s in range(1, 6)}
        rows.append({"corruption": name, **means})
    return pd.DataFrame(rows)


# ================================================================== the construction's severity scan
def scan_cell(cell: dict, config: dict) -> list[dict]:
    """One point of the construction's severity scan: corruption ``cell['corruption']`` at ``cell['level']``
    (a benchmark severity 1..5 for CIFAR-10-C corruptions, a magnitude in [0, 10] for candidates).

    Records the error of the baseline network (run 0) on ``n_scan`` test images and the mean transform feature
    f(c) over ``n_feature_samples`` realisations on ``n_feature_images`` test images (feature extractor: the
    separate default-augmentation network, as the release uses a second model).

    Returns one row {corruption, kind, level, error, feature (list of D floats)}.
    """
    from robeval.core import data
    from robeval.msd import distance as msd
    from robeval.msd import nets

    name, level, kind = cell["corruption"], cell["level"], cell["kind"]
    seed = int(cell["seed"])
    _, _, x_test, y_test = data.load_cifar10_any(bool(config["train"]["full_data"]))
    n_scan = int(config["n_scan"])
    x = to_nhwc(x_test[:n_scan])

    def apply(images, lv, rng):
        if kind == "c":
            return corrupt(images, name, int(lv), seed=rng)
        return corrupt_with_param(images, name, float(lv), seed=rng)

    fast = nets.cached_inference_model(config["train"], config["error_model"])  # one network for every scan point
    xc = apply(x, level, np.random.default_rng(nets.keyed_state(seed, "error")))
    error = float(np.mean(nets.predict_fast(fast, to_nchw(xc)) != np.asarray(y_test[:n_scan])))
    feature_images = msd.sample_feature_images(
        x_test, int(config["n_feature_images"]), nets.keyed_state(config["seed"], "scan_feature_images")
    )

    def transform(images, rng):
        return apply(images, level, np.random.default_rng(int(rng.integers(2**31))))

    feats = msd.transform_features(
        nets.cached_feature_fn(config["train"], config["feature_model"]),
        feature_images,
        transform,
        np.random.default_rng(nets.keyed_state(seed, "features")),
        int(config["n_feature_samples"]),
    )
    return [
        {"corruption": name, "kind": kind, "level": float(level), "error": error, "feature": feats.mean(0).tolist()}
    ]


def scan_corruptions(cfg) -> tuple[list[str], list[str]]:
    """The corruptions of the construction's severity scan.

    Returns ``(baseline, candidates)``: the first ``cfg.scan_c_limit`` CIFAR-10-C corruptions (the benchmark
    to move away from) and the first ``cfg.scan_candidate_limit`` candidates — the 10 published CIFAR-10-C-bar
    corruptions first, then the other candidates of the release — so a small scan still contains C-bar.
    """
    from robeval.transforms.corruptions import C_CORRUPTIONS, CANDIDATE_CORRUPTIONS, CBAR_CORRUPTIONS

    baseline = list(C_CORRUPTIONS[: cfg["scan_c_limit"]])
    pool = list(CBAR_CORRUPTIONS) + [c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS]
    return baseline, pool[: cfg["scan_candidate_limit"]]


def scan_config(cfg, keys: dict) -> dict:
    """The JSON-able config of :func:`scan_cell`: the training config, the error model (baseline run 0), the
    feature extractor (the separate default-augmentation network) and the scan's sizes."""
    from robeval.msd import nets

    return {
        "train": nets.train_config(cfg),
        "seed": int(cfg["seed"]),
        "error_model": keys["run0"],
        "feature_model": keys["extractor"],
        "n_scan": cfg["n_scan"],
        "n_feature_images": cfg["n_feature_images"],
        "n_feature_samples": cfg["n_feature_samples"],
    }


def scan_cells(baseline, candidates, n_levels: int, seed: int) -> list[dict]:
    """Grid cells of the severity scan: each baseline (CIFAR-10-C) corruption at severities 1..5
    (kind "c"), then each candidate at its ``n_levels`` scan magnitudes (kind "cbar", rounded to 4 decimals).
    Cell seeds are ``run_seed(seed, "scan", corruption, level)``."""
    from robeval.msd.nets import run_seed
    from robeval.transforms.corruptions import scan_levels

    cells = [{"corruption": c, "kind": "c", "level": s} for c in baseline for s in range(1, 6)]
    cells += [
        {"corruption": c, "kind": "cbar", "level": round(float(lv), 4)}
        for c in candidates
        for lv in scan_levels(c, n_levels)
    ]
    return [{**c, "seed": run_seed(seed, "scan", c["corruption"], float(c["level"]))} for c in cells]


def candidate_distances(scan) -> pandas.DataFrame:
    """Per candidate corruption, the mean over its scanned magnitudes of the distance from its transform
    feature to the nearest CIFAR-10-C (corruption, severity) feature, and whether it is in the published
    CIFAR-10-C-bar. Columns corruption, distance, published."""
    import pandas as pd

    from robeval.transforms.corruptions import CBAR_CORRUPTIONS

    base = np.stack(scan[scan["kind"] == "c"]["feature"].map(np.asarray).to_numpy())
    cand = scan[scan["kind"] != "c"]
    rows = []
    for name, g in cand.groupby("corruption", sort=True):
        f = np.stack(g["feature"].map(np.asarray).to_numpy())
        d = np.linalg.norm(f[:, None, :] - base[None, :, :], axis=-1).min(1)
        rows.append({"corruption": name, "distance": float(d.mean()), "published": name in CBAR_CORRUPTIONS})
    return pd.DataFrame(rows)


# ================================================================== pictures and the paper's table
def mosaic(grid: np.ndarray, pad: int = 2) -> np.ndarray:
    """Tile a (rows, cols, H, W, 3) uint8 image grid into one (rows·(H+pad), cols·(W+pad), 3) picture (white gaps)."""
    r, c, h, w, _ = grid.shape
    out = np.full((r * (h + pad), c * (w + pad), 3), 255, dtype=np.uint8)
    for i in range(r):
        for j in range(c):
            out[i * (h + pad) : i * (h + pad) + h, j * (w + pad) : j * (w + pad) + w] = grid[i, j]
    return out


def corruption_grid(images, names, seed: int, levels: dict | None = None) -> np.ndarray:
    """Every corruption at every severity on a few images, for the picture grid.

    images : uint8 (K, H, W, 3); levels : optional {name: five magnitudes} replacing the published severities
    (the calibrated C-bar). Returns uint8 (len(names), 6, H, W, 3): column 0 is the clean image
    ``images[i % K]`` of row i, columns 1..5 severities 1..5.
    """
    from robeval.msd.nets import keyed_state

    images = np.asarray(images)
    levels = levels or {}
    out = np.empty((len(names), 6) + images.shape[1:], dtype=np.uint8)
    for i, name in enumerate(names):
        img = images[i % len(images)][None]
        out[i, 0] = img[0]
        for s in range(1, 6):
            rng = keyed_state(seed, "grid", name, s)
            if name in levels:
                out[i, s] = corrupt_with_param(img, name, float(levels[name][s - 1]), seed=rng)[0]
            else:
                out[i, s] = corrupt(img, name, s, seed=rng)[0]
    return out


def paper_cbar_table() -> pandas.DataFrame:
    """The paper's per-corruption CIFAR-10-C-bar errors (%, Table 1): rows Baseline, AutoAugment, AugMix,
    Patch Gaussian; columns the 10 CIFAR-10-C-bar corruptions."""
    import pandas as pd

    from robeval.transforms.corruptions import CBAR_CORRUPTIONS

    table = pd.DataFrame(PAPER_TABLE1_CBAR, index=CBAR_CORRUPTIONS).T
    table.index = [AUG_LABELS[a] for a in table.index]
    return table


def method_slug(method: str) -> str:
    """Claim-id form of a Table 1 row label or augmentation: "Patch Gaussian" -> "patch_gaussian"."""
    return method.lower().replace(" ", "_")
