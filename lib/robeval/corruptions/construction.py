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

import numpy as np
import pandas as pd


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


def sample_matched_datasets(err_table: np.ndarray, target: float, *, precision: float = 0.01, num: int = 5,
                            n_groups: int = 2000, rng: np.random.Generator) -> list[tuple[tuple[int, int], ...]]:
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
        rows.append({"members": tuple(cs), "sets": tuple(ss),
                     "error": float(np.mean([err_table[c, s] for c, s in g])),
                     "distance": float(np.mean([dist_table[c, s] for c, s in g]))})
    return pd.DataFrame(rows)


def distance_shifts(groups: pd.DataFrame, n_candidates: int, *, n_pairs: int = 100_000,
                    rng: np.random.Generator) -> np.ndarray:
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


def construct(scan: pd.DataFrame, *, precision: float, num: int, n_groups: int, n_pairs: int, n_runs: int,
              k: int, seed: int) -> dict:
    """Run steps 2–6 on a severity scan (the rows written by :func:`robeval.corruptions.experiments.scan_cell`).

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
    shift_df = pd.DataFrame({"corruption": names, "shift": np.nanmean(shifts, 0), "shift_std": np.nanstd(shifts, 0),
                             "scan_distance": dist_table.mean(1), "scan_error": errors.mean(1)})
    shift_df = shift_df.sort_values("shift", ascending=False).reset_index(drop=True)
    top_idx, best = farthest_dataset(pd.concat(all_groups, ignore_index=True), np.nanmean(shifts, 0), target, k=k)
    chosen = None
    if best is not None:
        chosen = {"error": best["error"], "distance": best["distance"], "severities": {}}
        for g in best["groups"]:
            for c, s in zip(g["members"], g["sets"]):
                chosen["severities"][names[c]] = [float(levels[c, i]) for i in sets[c][s]]
    return {"target": target, "spread": spread, "candidates": names, "levels": levels, "sets": sets,
            "err_table": err_table, "dist_table": dist_table, "shifts": shift_df,
            "top": [names[i] for i in top_idx], "best": chosen, "n_groups_matched": matched}
