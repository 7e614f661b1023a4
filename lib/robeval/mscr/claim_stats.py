"""Shared helpers of the MSCR claims (:mod:`robeval.mscr.claims`, notebooks 01 and 02): the per-run
accuracy grid :class:`RunCube`, the interval rules every claim is judged by and the display table.

* :class:`RunCube` / :func:`run_cube` — per-run accuracies ``acc[run, i_test, j_train]`` of one grid, paired by
  run seed (:func:`common_seeds`);
* equivalence margins and intervals over runs — :func:`neighbour_gap`, :func:`mean_iv`, the paired difference
  to the runner-up column (:func:`best_vs_runner_up`, :func:`group_contrast`) and the Spearman trend
  (:func:`fast_spearman`, :func:`spearman_rho`), :func:`regret` of a set of optima, :func:`level_name`;
* :func:`best_columns_table` — which eps_train columns are statistically the best of each eps_test row.

The comparability profiles (``ALWAYS``, ``RUNS``, ``PAPER_ONLY``) say at which profiles a claim's numbers
can be compared with the paper's.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from robeval.core import stats
from robeval.core.frames import check_frame, check_unique_runs
from robeval.core.paths import PROFILES
from robeval.mscr.protocol import check_eps_min, mscr_value

ALWAYS = PROFILES  # exact computations: comparable at every profile
RUNS = ("default", "paper")  # the paper's protocol with fewer runs (smoke: 10 trees, 2 runs)
PAPER_ONLY = ("paper",)  # CIFAR-10 values: only the paper's network on the full data is comparable


# --------------------------------------------------------------------------------------------- helpers
def level_name(eps: float, eps_min: float) -> str:
    """The claim-id name of a noise level: ``"eps_min"`` for eps_min, else ``f"{eps:g}"`` (0.007 -> "0.007")."""
    return "eps_min" if np.isclose(eps, eps_min, rtol=1e-6, atol=1e-9) else f"{eps:g}"


def neighbour_gap(values, j: int) -> float:
    """The smallest absolute difference between ``values[j]`` and its neighbours ``values[j-1]``,
    ``values[j+1]`` (a row of a published table): the equivalence margin of that cell."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size < 2 or not 0 <= j < v.size:
        raise ValueError(f"need a 1-D row of >= 2 values and a valid position, got shape {v.shape}, j={j}")
    gaps = [abs(v[j] - v[i]) for i in (j - 1, j + 1) if 0 <= i < v.size]
    return float(min(gaps))


def _one_run(values) -> stats.Interval:
    """Stand-in interval for a single run: no CI (the ledger records the row as inconclusive)."""
    v = float(np.asarray(values, dtype=np.float64).reshape(-1)[0])
    return stats.Interval(v, -math.inf, math.inf, math.nan, 1, 0.95, "one run: no interval")


def mean_iv(values, level: float = 0.95, ref_sd=None, ref_n: int | None = None) -> stats.Interval:
    """:func:`robeval.core.stats.mean_interval` over runs, or a no-CI stand-in for a single run.

    With ``ref_sd`` (a published standard deviation over its ``ref_n`` runs) the interval is the one that
    compares our mean with that published mean: :func:`robeval.core.stats.mean_vs_reference_interval`."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 0:
        raise ValueError("no runs to summarise")
    if v.size < 2:
        return _one_run(v)
    if ref_sd is None:
        return stats.mean_interval(v, level)
    return stats.mean_vs_reference_interval(v, float(ref_sd), int(ref_n), level)


def fix_single(claim, n_needed: int = 2):
    """A row resting on one run says how many runs decide it."""
    if claim.n_runs == 1 and claim.verdict == "inconclusive":
        claim.decides = f">= {n_needed} runs (now 1): one run has no confidence interval"
    return claim


@dataclass(frozen=True)
class RunCube:
    """Per-run accuracies of one grid: ``acc[run, i_test, j_train]`` in percent, runs in ``seeds`` order."""

    seeds: np.ndarray
    eps_test: np.ndarray
    eps_train: np.ndarray
    acc: np.ndarray

    def col(self, eps_train: float) -> int:
        hit = np.flatnonzero(np.isclose(self.eps_train, eps_train, rtol=1e-6, atol=1e-12))
        if hit.size == 0:
            raise ValueError(f"eps_train {eps_train} is not a column of this grid ({list(self.eps_train)})")
        return int(hit[0])

    def row(self, eps_test: float) -> int:
        hit = np.flatnonzero(np.isclose(self.eps_test, eps_test, rtol=1e-6, atol=1e-12))
        if hit.size == 0:
            raise ValueError(f"eps_test {eps_test} is not a row of this grid ({list(self.eps_test)})")
        return int(hit[0])

    def mscr(self, eps_min: float) -> np.ndarray:
        """Per-run MSCR in percent, shape (runs, eps_train) (Eq. 2 on the clean and the eps_min rows)."""
        eps_min = check_eps_min(eps_min)
        return mscr_value(self.acc[:, self.row(0.0), :] / 100, self.acc[:, self.row(eps_min), :] / 100)

    def subset(self, seeds) -> RunCube:
        """The runs with the given seeds, in that order (for pairing two grids)."""
        pos = {int(s): i for i, s in enumerate(self.seeds)}
        idx = [pos[int(s)] for s in seeds]
        return RunCube(np.asarray(seeds), self.eps_test, self.eps_train, self.acc[idx])


def run_cube(df: pd.DataFrame) -> RunCube:
    """A :class:`RunCube` from tidy grid rows (``seed``, ``eps_train``, ``eps_test``, ``acc`` as a fraction).

    Only complete runs (every eps_train x eps_test cell present) are kept, so every comparison is paired."""
    df = check_frame(df, ("seed", "eps_train", "eps_test", "acc"), "df", non_empty=True)
    check_unique_runs(df, ("seed", "eps_train", "eps_test"), "df", hint="A run has one accuracy per cell.")
    t = df.pivot_table(index="seed", columns=["eps_test", "eps_train"], values="acc", aggfunc="mean")
    e_te = np.array(sorted(set(t.columns.get_level_values(0))), dtype=float)
    e_tr = np.array(sorted(set(t.columns.get_level_values(1))), dtype=float)
    full = pd.MultiIndex.from_product([e_te, e_tr])
    t = t.reindex(columns=full).dropna(axis=0, how="any")
    if t.empty:
        raise ValueError("no complete run (every eps_train x eps_test cell) in the grid rows")
    acc = 100.0 * t.to_numpy(dtype=float).reshape(len(t), len(e_te), len(e_tr))
    return RunCube(t.index.to_numpy(), e_te, e_tr, acc)


def common_seeds(*cubes: RunCube) -> np.ndarray:
    """Seeds present in every cube, in the order of the first (the pairing of two grids)."""
    keep = set(int(s) for s in cubes[0].seeds)
    for c in cubes[1:]:
        keep &= set(int(s) for s in c.seeds)
    return np.array([int(s) for s in cubes[0].seeds if int(s) in keep])


def paired_stats(a, b) -> stats.Interval:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return stats.paired_interval(a, b) if a.size >= 2 else _one_run(a - b)


def _ranks(v: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (as scipy.stats.rankdata)."""
    n = len(v)
    order = np.argsort(v, kind="mergesort")
    r = np.empty(n, dtype=np.float64)
    r[order] = np.arange(1, n + 1, dtype=np.float64)
    sv = v[order]
    tie = sv[1:] == sv[:-1]
    if not tie.any():
        return r
    start = 0
    for i in range(1, n + 1):  # average the ranks of each run of equal values
        if i == n or sv[i] != sv[start]:
            r[order[start:i]] = (start + i + 1) / 2
            start = i
    return r


def fast_spearman(x, y) -> float:
    """Spearman rank correlation of two short 1-D sequences (NaN when one is constant); equal to
    :func:`robeval.core.stats.spearman`, much faster inside bootstrap loops."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.max() == x.min() or y.max() == y.min():
        return math.nan
    rx, ry = _ranks(x), _ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    return float(np.dot(rx, ry) / math.sqrt(np.dot(rx, rx) * np.dot(ry, ry)))


def trend_test(levels, per_run, n_boot: int, seed: int = 0) -> stats.Interval:
    """The trend of a per-run curve over ``levels``, with an interval valid at the number of runs.

    With at least :data:`robeval.core.ledger.MIN_BOOTSTRAP_N` runs: :func:`robeval.core.stats.trend_interval`
    (Spearman rho between ``levels`` and the mean curve, percentile bootstrap over runs), computed with
    :func:`fast_spearman`. With fewer runs (e.g. 3 trainings per column) a percentile bootstrap has no useful
    coverage (its upper bound can equal the estimate), so: :func:`per_run_trend` — the t-interval over runs of
    each run's own Spearman rho (:func:`per_run_trend`)."""
    from robeval.core.ledger import MIN_BOOTSTRAP_N

    levels = np.asarray(levels, dtype=np.float64)
    per_run = np.asarray(per_run, dtype=np.float64)
    if per_run.ndim != 2 or per_run.shape[1] != len(levels):
        raise ValueError(f"per_run must have shape (runs, {len(levels)}), got {per_run.shape}")
    if per_run.shape[0] < 2:
        rho = fast_spearman(levels, per_run.mean(axis=0))
        if not np.isfinite(rho):  # a constant curve (e.g. an untrained network's) has no rank correlation
            return stats.Interval(0.0, -math.inf, math.inf, math.nan, 1, 0.95, "one run, constant curve: no rho")
        return _one_run([rho])
    if per_run.shape[0] < MIN_BOOTSTRAP_N:
        return per_run_trend(levels, per_run)
    return stats.bootstrap_interval(lambda a: fast_spearman(levels, a.mean(axis=0)), per_run, n_boot=n_boot, seed=seed)


def steady_rise_interval(per_run, level: float = 0.95) -> tuple[stats.Interval, int]:
    """ "The curve rises at every step" (a *steady* increase, Sec. 5.2) over the levels of ``per_run`` (runs x
    levels, paired over runs): every neighbouring step j -> j + 1 must rise, so the weakest step decides the claim
    (an intersection-union test: no correction), and a fall at some step contradicts it (Bonferroni over the
    steps) — :func:`robeval.core.stats.rows_contrast_interval` with one row per step. Returns the interval of the
    deciding step's paired difference (curve units) and the step's position j. One run gives an unbounded
    interval."""
    x = np.asarray(per_run, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2:
        raise ValueError(f"per_run must have shape (runs, levels >= 2), got {x.shape}.")
    steps = x.shape[1] - 1
    runs = np.repeat(x[:, None, :], steps, axis=1)  # (runs, steps, levels): row j compares column j + 1 with j
    iv, row, _, _ = stats.rows_contrast_interval(runs, [([j + 1], [j]) for j in range(steps)], level)
    return iv, int(row)


def per_run_trend(levels, per_run, level: float = 0.95) -> stats.Interval:
    """Small-n trend interval: each run's Spearman rho between ``levels`` and its own curve (``per_run``: runs x
    levels), summarised by a t-interval over the independent runs (valid from 2 runs on, unlike a percentile
    bootstrap). A run whose curve is constant has no rho: the interval is then unbounded (inconclusive)."""
    levels = np.asarray(levels, dtype=np.float64)
    per_run = np.asarray(per_run, dtype=np.float64)
    rhos = np.array([fast_spearman(levels, r) for r in per_run])
    n = len(rhos)
    if n < 2 or not np.all(np.isfinite(rhos)):
        est = float(np.nanmean(rhos)) if np.any(np.isfinite(rhos)) else 0.0
        return stats.Interval(est, -math.inf, math.inf, math.nan, n, level, "per-run Spearman rho: undefined run")
    iv = stats.mean_interval(rhos, level)
    return dataclasses.replace(iv, method=f"t-interval over {n} runs of the per-run Spearman rho")


def run_labels(labels: dict | None = None) -> dict:
    """The ledger labels of a row resting on our own runs (:mod:`robeval.core.ledger`): a replication over
    independent random-forest / 1-NN fits (``unit`` "forest runs") of a claim about training methods
    (``about="models"``); ``labels`` overrides or adds keys (e.g. ``unit="training runs"`` for CIFAR-10 networks,
    ``survives=False`` with ``mechanism=`` where the scaled protocol loses the mechanism)."""
    out = {"evidence": "replication", "unit": "forest runs", "about": "models"}
    out.update(labels or {})
    return out


def boot_ci(statistic, *samples, n_boot: int, seed: int = 0, fixed=(), fixed_se=None) -> stats.Interval:
    if len(samples[0]) < 2:
        return _one_run([statistic(*samples, *fixed)])
    return stats.bootstrap_interval(statistic, *samples, n_boot=n_boot, seed=seed, fixed=fixed, fixed_se=fixed_se)


def best_vs_runner_up(acc_row_runs, j: int) -> tuple[stats.Interval, int]:
    """ "Column ``j`` beats every other column" for one row of a run cube (``acc_row_runs``: (runs, columns)),
    ``j`` fixed in advance (the paper's best): :func:`robeval.core.stats.best_contrast_interval` with A = {j}
    and B = every other column — reproduced only when ``j`` beats each of them (the weakest pair decides, no
    correction), contradicted only when some column beats ``j`` after Bonferroni over the other columns (the
    comparator is chosen from our data). Returns ``(interval, the deciding column)``: > 0 says ``j`` is best."""
    a = np.asarray(acc_row_runs, dtype=np.float64)
    others = [i for i in range(a.shape[1]) if i != j]
    iv, _, r = stats.best_contrast_interval(a, [j], others)
    return iv, r


def group_contrast(acc_row_runs, group_a, group_b) -> tuple[stats.Interval, int, int]:
    """ "The optimum lies in group A": the best column of ``group_a`` against the best of ``group_b`` (positions
    in one row of a run cube, (runs, columns)), both chosen from our data and corrected for it
    (:func:`robeval.core.stats.best_contrast_interval`). Returns ``(interval, a, b)``: the deciding pair."""
    return stats.best_contrast_interval(np.asarray(acc_row_runs, dtype=np.float64), list(group_a), list(group_b))


def sides_of(cube: RunCube, e: float, above: bool) -> tuple[list[int], list[int]]:
    """The columns on the claimed side of row ``e``'s diagonal and the rest: eps_train > eps_test against
    eps_train <= eps_test (``above``), or eps_train < eps_test against eps_train >= eps_test."""
    if above:
        up = [j for j, t in enumerate(cube.eps_train) if t > e + 1e-12]
        down = [j for j, t in enumerate(cube.eps_train) if t <= e + 1e-12]
    else:
        up = [j for j, t in enumerate(cube.eps_train) if t < e - 1e-12]
        down = [j for j, t in enumerate(cube.eps_train) if t >= e - 1e-12]
    if not up or not down:
        raise ValueError(f"row eps_test = {e} has no column on one side of the diagonal")
    return up, down


def pooled_contrast(cube: RunCube, rows, above: bool):
    """ "In every row of ``rows`` (eps_test values) the best column lies on the claimed side of the diagonal"
    (:func:`sides_of`): :func:`robeval.core.stats.rows_contrast_interval` — each row's best columns chosen from our
    runs and corrected for it, the rows combined (every row must hold: the weakest decides; a contradiction in
    some row pays Bonferroni over the rows). Returns ``(interval, (eps_test, eps_train a, eps_train b))`` of the
    deciding row and pair."""
    idx = [cube.row(e) for e in rows]
    iv, r, a, b = stats.rows_contrast_interval(cube.acc[:, idx, :], [sides_of(cube, e, above) for e in rows])
    return iv, (rows[r], cube.eps_train[a], cube.eps_train[b])


def regret(mean_matrix, optima) -> float:
    """Sum over rows of (best mean accuracy − mean accuracy of the column ``optima[i]``) in pp: how much worse
    the given optima (e.g. the published ones) are than the best columns of ``mean_matrix``; 0 when they agree."""
    m = np.asarray(mean_matrix, dtype=np.float64)
    o = np.asarray(optima, dtype=int)
    if m.ndim != 2 or o.shape != (m.shape[0],):
        raise ValueError(f"need a 2-D matrix and one optimum per row, got {m.shape} and {o.shape}")
    return float(np.sum(m.max(axis=1) - m[np.arange(m.shape[0]), o]))


def spearman_rho(x, y) -> float:
    """Spearman rank correlation of two 1-D sequences of equal length; NaN for fewer than 2 points."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-D of the same length, got shapes {x.shape} and {y.shape}")
    if x.size < 2:
        return float("nan")
    return fast_spearman(x, y)


def level_index(levels, e) -> int | None:
    """Position of noise level ``e`` in ``levels`` (equal up to the 4 decimals of the sheets' row labels), or
    None where it has no counterpart."""
    hit = np.flatnonzero(np.isclose(np.asarray(levels, dtype=float), float(e), rtol=1e-3, atol=5e-5))
    return int(hit[0]) if hit.size else None


def pick_rows(ref_levels, ours) -> list[int]:
    out = []
    for e in np.asarray(ours, dtype=float):
        i = level_index(ref_levels, e)
        if i is None:
            raise ValueError(f"noise level {e} has no counterpart in the published levels {list(ref_levels)}")
        out.append(i)
    return out


# ------------------------------------------------------------------------------------------ display
def best_columns_table(
    cube: RunCube, eps_min: float, ref_acc=None, ref_eps_train=None, ref_eps_test=None, level: float = 0.95
) -> pd.DataFrame:
    """Which eps_train columns are statistically the best of each eps_test row: our best column by mean, every
    column whose paired difference to it (over runs) has a ``level`` CI reaching 0 (tied with the best), and,
    with the published matrix, its best column and whether it is among ours. One row per eps_test."""
    rows = []
    if ref_acc is not None:
        ra = np.asarray(ref_acc, dtype=np.float64)[
            np.ix_(pick_rows(ref_eps_test, cube.eps_test), pick_rows(ref_eps_train, cube.eps_train))
        ]
    for i, e in enumerate(cube.eps_test):
        a = cube.acc[:, i, :]
        jb = int(np.argmax(a.mean(axis=0)))
        tied = [jb]
        for j in range(a.shape[1]):
            if j != jb and (a.shape[0] < 2 or stats.paired_interval(a[:, jb], a[:, j], level).low <= 0):
                tied.append(j)
        row = {
            "eps_test": level_name(e, eps_min),
            "our best": level_name(cube.eps_train[jb], eps_min),
            "statistically tied with it": ", ".join(level_name(cube.eps_train[j], eps_min) for j in sorted(tied)),
        }
        if ref_acc is not None:
            pb = int(np.argmax(ra[i]))
            row["published best"] = level_name(cube.eps_train[pb], eps_min)
            row["published best among ours"] = pb in tied
        rows.append(row)
    return pd.DataFrame(rows).set_index("eps_test")
