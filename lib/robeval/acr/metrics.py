"""Metrics on randomized-smoothing certification results (Sun et al., Sections 3, 6 and 7).

:func:`acr` (average certified radius) and :func:`certified_accuracy` on certification frames (per input:
:func:`radius_contributions`, :func:`certified_indicators`, paired across models by :func:`align_frames`; columns
``label predict radius correct``, as in the published files, ``predict = -1`` for abstentions), and the
tables built from many files: :func:`certification_table` (Tables 3-5), :func:`certified_accuracy_curves`
(Fig. 6), :func:`best_over_sigma` (Section 7), baseline comparisons (:func:`below_then_above`,
:func:`acr_gain_recovered`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from robeval.acr.frames import check_certification_frame
from robeval.acr.published import METHODS
from robeval.acr.theory import max_certified_radius
from robeval.core.frames import check_frame
from robeval.core.validation import check_bool, check_mapping, check_numbers


def check_radii(radii, name: str = "radii") -> np.ndarray:
    """Query radii as a 1-D float64 array (a scalar becomes one radius): numbers, finite and >= 0; TypeError /
    ValueError naming ``name`` otherwise."""
    radii = np.atleast_1d(check_numbers(radii, name, example="[0.0, 0.25, 0.5]"))
    if radii.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (a list of radii), got shape {radii.shape}; flatten it.")
    if not np.all(np.isfinite(radii)) or np.any(radii < 0):
        raise ValueError(
            f"{name} must be finite numbers >= 0 (L2 radii in input units), got "
            f"{radii[~(np.isfinite(radii) & (radii >= 0))][:3]}."
        )
    return radii


def acr(df: pd.DataFrame) -> float:
    """Average certified radius: mean over all inputs of ``radius * 1[correct]``.

    Parameters
    ----------
    df : pandas.DataFrame
        Certification frame (one row per input).

    Returns
    -------
    float
        ACR in input units (L2).
    """
    check_certification_frame(df)
    contributions = df["radius"].to_numpy(np.float64) * df["correct"].to_numpy(np.float64)
    with np.errstate(over="ignore"):
        mean = float(contributions.mean())
    if math.isinf(mean):  # the radii are finite (checked): only their sum overflowed; average at a scale
        mean = float((contributions / len(contributions)).sum())
    return mean


def certified_accuracy(df: pd.DataFrame, radii) -> np.ndarray:
    """Fraction of inputs that are correct with certified radius ``>= r``, for each ``r``.

    Parameters
    ----------
    df : pandas.DataFrame
        Certification frame.
    radii : array_like of float, shape (R,)
        Radii (input units, L2), in any order; a radius listed twice gets its value twice (one value per entry).

    Returns
    -------
    numpy.ndarray of float64, shape (R,), values in [0, 1].
    """
    check_certification_frame(df)
    radii = check_radii(radii)
    ok = df["correct"].to_numpy().astype(bool)
    r = np.sort(df["radius"].to_numpy(np.float64)[ok])
    # number of correct inputs with radius >= each query, by one sorted search
    n_ge = len(r) - np.searchsorted(r, radii, side="left")
    return n_ge / len(df)


def certified_indicators(df: pd.DataFrame, radii) -> np.ndarray:
    """Per input, whether it is correct with certified radius ``>= r`` for each ``r`` (the mean over inputs is
    :func:`certified_accuracy`): for paired comparisons of models certified on the same inputs.

    Returns
    -------
    numpy.ndarray of bool, shape (M, R), rows in the frame's order.
    """
    check_certification_frame(df)
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    ok = df["correct"].to_numpy().astype(bool)
    return ok[:, None] & (df["radius"].to_numpy(np.float64)[:, None] >= radii[None, :])


def radius_contributions(df: pd.DataFrame) -> np.ndarray:
    """Per input, ``radius * 1[correct]`` (the mean over inputs is :func:`acr`), shape (M,)."""
    check_certification_frame(df)
    return df["radius"].to_numpy(np.float64) * df["correct"].to_numpy(np.float64)


def align_frames(frames: dict) -> dict:
    """The certification frames restricted to the inputs (``idx``) they all share, each sorted by ``idx``, so
    row ``i`` is the same test input in every frame (some published ImageNet files are truncated)."""
    check_mapping(frames, "frames")
    common = None
    for key, df in frames.items():
        if "idx" not in df.columns:
            raise ValueError(f"frame {key!r} has no 'idx' column; pairing inputs across models needs it.")
        common = set(df["idx"]) if common is None else common & set(df["idx"])
    if not common:
        raise ValueError("the frames share no input (idx).")
    keep = np.array(sorted(common))
    return {
        k: df[df["idx"].isin(keep)].sort_values("idx", kind="stable").reset_index(drop=True) for k, df in frames.items()
    }


def certification_table(frames: dict, radii, n_images: bool = False) -> pd.DataFrame:
    """ACR and certified accuracy (percent) for several certification frames.

    Parameters
    ----------
    frames : dict
        ``key -> DataFrame``; keys become the index (tuples give a MultiIndex, e.g.
        ``(sigma, method)``).
    radii : array_like of float, shape (R,)
        Each radius once: two radii with the same 2-decimal label (``0.1`` twice, or ``0.101`` and ``0.104``)
        are refused (ValueError).
    n_images : bool
        Also report each frame's number of rows (column ``n_images``, last); some published files are
        truncated.

    Returns
    -------
    pandas.DataFrame
        Column ``ACR`` then one column per radius (``'0.00'``, ``'0.25'``, ...) in percent
        [, ``n_images``].
    """
    if not isinstance(frames, Mapping):
        raise TypeError(f"frames must be a dict {{key: certification DataFrame}}, got {type(frames).__name__}.")
    if not frames:
        raise ValueError("frames is empty; pass {key: certification DataFrame}.")
    radii = check_radii(radii)
    labels = [f"{r:.2f}" for r in radii]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            first = radii[labels.index(label)]
            raise ValueError(
                f"radii holds {first:g} and {radii[i]:g}, which share the column label {label!r} (2 decimals): one "
                "column would hide the other. Pass each radius once, at least 0.01 apart."
            )
    check_bool(n_images, "n_images")
    rows = {}
    for key, df in frames.items():
        check_certification_frame(df, f"frames[{key!r}]")
        rows[key] = [acr(df)] + list(100.0 * certified_accuracy(df, radii))
    cols = ["ACR"] + labels
    out = pd.DataFrame.from_dict(rows, orient="index", columns=cols)
    if all(isinstance(k, tuple) for k in rows):
        out.index = pd.MultiIndex.from_tuples(list(rows))
    if n_images:
        out["n_images"] = [len(df) for df in frames.values()]
    return out


def best_over_sigma(frames_by_sigma: dict, radii) -> pd.DataFrame:
    """Best certified accuracy across noise levels at each radius (Section 7's recommendation).

    Parameters
    ----------
    frames_by_sigma : dict
        ``sigma -> certification DataFrame`` for one training method.
    radii : array_like of float, shape (R,)

    Returns
    -------
    pandas.DataFrame
        Columns ``radius``, ``best_accuracy`` (fraction), ``best_sigma``, and ``acc_sigma=<s>``
        for every sigma.
    """
    if not frames_by_sigma:
        raise ValueError("frames_by_sigma is empty; pass {sigma: certification DataFrame}.")
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    sigmas = list(frames_by_sigma)
    acc = np.stack([certified_accuracy(frames_by_sigma[s], radii) for s in sigmas])  # (S, R)
    best = acc.argmax(axis=0)
    out = pd.DataFrame({"radius": radii, "best_accuracy": acc.max(axis=0), "best_sigma": [sigmas[i] for i in best]})
    for s, a in zip(sigmas, acc):
        out[f"acc_sigma={s}"] = a
    return out


def compare_tables(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Long comparison of two ``(sigma, method) x [ACR, radii...]`` tables.

    Returns
    -------
    pandas.DataFrame with columns ``sigma, method, quantity, paper, recomputed, diff`` (recomputed
    minus paper; accuracies in percentage points, ACR in input units).
    """
    common = ours.index.intersection(paper.index)
    if len(common) == 0:
        raise ValueError("the tables share no (sigma, method) rows.")
    cols = [c for c in paper.columns if c in ours.columns]
    rows = []
    for key in common:
        for c in cols:
            p, o = float(paper.loc[key, c]), float(ours.loc[key, c])
            rows.append((key[0], key[1], c, p, o, o - p))
    return pd.DataFrame(rows, columns=["sigma", "method", "quantity", "paper", "recomputed", "diff"])


def key_columns(key, key_names) -> dict:
    """The columns ``{name: part}`` for a frames-dict key (a tuple, or one value) and its ``key_names``."""
    key = key if isinstance(key, tuple) else (key,)
    if len(key) != len(key_names):
        raise ValueError(f"key {key!r} has {len(key)} parts but key_names names {len(key_names)}: {list(key_names)}.")
    return dict(zip(key_names, key))


def certified_accuracy_curves(frames: dict, radii, key_names=("sigma", "method")) -> pd.DataFrame:
    """Certified accuracy against radius for several certification frames, as one long table (Fig. 6).

    Parameters
    ----------
    frames : dict
        ``key -> certification DataFrame``; a key is a tuple with one value per ``key_names``.
    radii : array_like of float, shape (R,)
        Radii (input units, L2).
    key_names : tuple of str
        Column names of the key parts.

    Returns
    -------
    pandas.DataFrame
        ``len(frames) * R`` rows, one block per frame in dict order; columns ``*key_names``, ``radius``,
        ``certified_accuracy`` (fraction).
    """
    check_mapping(frames, "frames")
    radii = np.atleast_1d(np.asarray(radii, dtype=np.float64))
    parts = [
        pd.DataFrame(
            {**key_columns(key, key_names), "radius": radii, "certified_accuracy": certified_accuracy(df, radii)}
        )
        for key, df in frames.items()
    ]
    return pd.concat(parts, ignore_index=True)


def acr_gain_recovered(
    table: pd.DataFrame, sigma: float, method: str = "ours", baseline: str = "gaussian", candidates=METHODS
):
    """Percent of the best other method's ACR gain over the baseline that ``method`` reaches (Sec. 6).

    ``100 * (ACR[method] - ACR[baseline]) / (max_c ACR[c] - ACR[baseline])``, ``c`` over ``candidates``
    present at ``sigma`` other than ``method`` and ``baseline``.

    Parameters
    ----------
    table : pandas.DataFrame
        Index ``(sigma, method)``, column ``ACR`` (e.g. :func:`certification_table`).

    Returns
    -------
    float (a NumPy scalar when the table holds NumPy floats), in percent.
    """
    check_frame(table, ("ACR",), "table", hint="E.g. from certification_table.")
    for m in (method, baseline):
        if (sigma, m) not in table.index:
            raise ValueError(f"table has no row ({sigma}, {m!r}).")
    others = [m for m in candidates if (sigma, m) in table.index and m not in (baseline, method)]
    if not others:
        raise ValueError(f"no method to compare with at sigma={sigma} besides {method!r} and {baseline!r}.")
    best = max(table.loc[(sigma, m), "ACR"] for m in others)
    base = table.loc[(sigma, baseline), "ACR"]
    return 100 * (table.loc[(sigma, method), "ACR"] - base) / (best - base)


def below_then_above(
    table: pd.DataFrame, sigma: float, small: str, large: str, baseline: str = "gaussian", methods=None
) -> tuple[bool, bool]:
    """Fig. 6 / Sec. 6: are all methods below the baseline at column ``small`` and above it at ``large``?

    Parameters
    ----------
    table : pandas.DataFrame
        Index ``(sigma, method)``, certified-accuracy columns such as ``"0.00"``.
    methods : sequence of str, optional
        Default: every method at ``sigma`` except the baseline.

    Returns
    -------
    (bool, bool)
        ``(below at small, above at large)``.
    """
    for c in (small, large):
        if c not in table.columns:
            raise ValueError(f"table has no column {c!r}; columns: {list(table.columns)}.")
    if (sigma, baseline) not in table.index:
        raise ValueError(f"table has no row ({sigma}, {baseline!r}).")
    if methods is None:
        methods = [m for s, m in table.index if s == sigma and m != baseline]
    g = table.loc[(sigma, baseline)]
    below = all(table.loc[(sigma, m), small] < g[small] for m in methods)
    above = all(table.loc[(sigma, m), large] > g[large] for m in methods)
    return below, above


def best_over_sigma_by_method(frames: dict, radii, methods=None, sigmas=None) -> pd.DataFrame:
    """:func:`best_over_sigma` for every method, stacked (Section 7).

    Parameters
    ----------
    frames : dict
        ``(sigma, method) -> certification DataFrame``; every pair of ``sigmas`` x ``methods`` must be present.
    methods, sigmas : sequence, optional
        Default: in order of first appearance among the keys.

    Returns
    -------
    pandas.DataFrame
        :func:`best_over_sigma` columns plus ``method``, one block per method.
    """
    check_mapping(frames, "frames")
    methods = list(dict.fromkeys(m for _, m in frames)) if methods is None else list(methods)
    sigmas = list(dict.fromkeys(s for s, _ in frames)) if sigmas is None else list(sigmas)
    missing = [(s, m) for m in methods for s in sigmas if (s, m) not in frames]
    if missing:
        raise ValueError(f"frames lacks {missing}; best over sigma needs every sigma of every method.")
    parts = [best_over_sigma({s: frames[(s, m)] for s in sigmas}, radii).assign(method=m) for m in methods]
    return pd.concat(parts, ignore_index=True)


def best_over_sigma_table(best: pd.DataFrame) -> pd.DataFrame:
    """Pivot of :func:`best_over_sigma_by_method`: methods x radius, best certified accuracy in percent (1 decimal)."""
    check_frame(best, ("method", "radius", "best_accuracy"), "best", hint="Build it with best_over_sigma_by_method.")
    return best.pivot(index="method", columns="radius", values="best_accuracy").mul(100).round(1)


def max_file_radius(frames: dict, sigma: float) -> float:
    """Largest certified radius in the certification frames of one ``sigma`` (keys ``(sigma, method)``)."""
    radii = [float(df.radius.max()) for (s, _), df in frames.items() if s == sigma]
    if not radii:
        raise ValueError(f"no certification frame at sigma={sigma}.")
    return max(radii)


def largest_certifiable_column(columns, n: int, alpha: float, sigma: float, cap: float = math.inf) -> tuple[str, float]:
    """The largest radius column of a certification table that budget ``(n, alpha)`` can still certify.

    Parameters
    ----------
    columns : iterable of str
        Table columns; radius columns are those that parse as numbers (``"0.25"``), others (``"ACR"``)
        are ignored.
    cap : float
        Do not go beyond this radius either (e.g. the radius the paper quotes).

    Returns
    -------
    (column, r_max)
        The last radius column ``c`` (in table order) with ``0 < float(c) <= min(cap, r_max)``, and
        ``r_max = max_certified_radius(n, alpha, sigma)``.
    """
    r_max = max_certified_radius(int(n), float(alpha), sigma)
    big = []
    for c in columns:
        try:
            r = float(c)
        except (TypeError, ValueError):
            continue
        if 0 < r <= min(cap, r_max):
            big.append(c)
    if not big:
        raise ValueError(
            f"no radius column in (0, {min(cap, r_max):.3g}]; the budget N={n} certifies at most "
            f"{r_max:.3g} at sigma={sigma}."
        )
    return big[-1], r_max
