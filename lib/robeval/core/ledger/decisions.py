"""The decision rules every ledger row shares: one p-value per decision, Holm's correction over a family,
and the probability that an independent rerun at the same n reaches the same decision (*stability*).

A row of the claims ledger that rests on an interval is a test. :func:`test_of` turns the interval into a
:class:`Test`: a *difference* (the paper claims the quantity is > 0 on its side; the estimate is signed so that
the claimed side is positive) or an *equivalence* (our value against the paper's within ± margin; the estimate
is ours − paper). Every decision then has

* a p-value on the two-sided scale (:func:`p_decision`): for a difference the two-sided p of "= 0"; for an
  equivalence the two one-sided tests (TOST) for "reproduced" and the one-sided test beyond the margin for
  "contradicted", doubled, so that "the 95% CI lies inside (outside) paper ± margin" is exactly p < 0.05;
* Holm's adjusted p over the row's family (:func:`holm_adjusted`), the level ``alpha / (m − rank + 1)`` at
  which the row was tested in Holm's step-down;
* its stability: the probability that an independent rerun with the same n reaches the same decision at that
  level, estimated twice and the lower figure kept: (a) in closed form (:func:`rerun_probability`) from the
  *predictive* distribution of the rerun's estimate — the true effect is not the observed one but uncertain
  about it (flat prior), so the rerun's estimate varies with twice the variance of one run's (Goodman 1992,
  "A comment on replication, p-values and evidence", Stat. Med. 11:875); and (b) without a distribution
  (:func:`resampled_stability`), where the interval carries its units: the whole decision rerun on
  :data:`RESAMPLES` predictive resamples of the runs (a bootstrap resample of a bootstrap resample,
  :func:`robeval.core.stats.predictive_indices`), which sees heavy tails, a spread that varies between run
  sets and rank statistics over nearly equal means. A decision whose stability is below :data:`STABLE` is
  fragile: the ledger records it inconclusive and names the n that would make it stable
  (:func:`n_for_stability`, :func:`resampled_n`).

What this can and cannot promise: a decision rule that thresholds a noisy statistic flips, in a rerun, for
rows whose true effect lies near its threshold (at the threshold about half the time, whatever the rule); the
stability gate and the corrections keep the rows far from it, and they keep the false decisions of null
effects (the ones that never replicate) to the family's error rate. How many of a ledger's decisions a rerun
changes therefore depends on how many of its true effects lie near the threshold; ``tests/core/
test_decisions.py`` measures both.

A t-interval's degrees of freedom are n − 1, or read back from its width for Welch intervals (:func:`df_of`).
With a ``floor_se`` (a published value's own standard error) only our part of the se is redrawn by a rerun,
and only our part shrinks with more runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from scipy import stats as st
from scipy.optimize import brentq

ALPHA = 0.05  # family-wise error rate of every family
STABLE = 0.9  # a decision stands only when a rerun at the same n reaches it with at least this probability
RESAMPLES = 400  # predictive resamples behind a resampled stability (Monte-Carlo se <= 0.025; 0.015 at 0.9)

DIFFERENCE = "difference"
EQUIVALENCE = "equivalence"

# the decisions a test can reach
CLAIMED = "claimed side"  # difference > 0 on the claimed side (reproduced / consistency)
OTHER = "other side"  # difference on the other side (contradicted / erratum)
EQUIVALENT = "equivalent"  # within ± margin (reproduced / consistency)
DIFFERENT = "different"  # beyond ± margin (contradicted / erratum)
NONE = "none"  # no decision (the row is inconclusive)


@dataclass(frozen=True)
class Test:
    """One row's test. ``estimate``: a difference signed so that the claimed side is positive, or ours − paper
    for an equivalence; ``se``: its standard error (ours and the paper's together); ``df``: degrees of freedom
    (``math.inf`` for the normal); ``floor_se``: the part of ``se`` that more runs of ours cannot shrink;
    ``margin``: the equivalence margin (0 for a difference); ``n``: the independent units."""

    kind: str
    estimate: float
    se: float
    df: float
    n: int
    floor_se: float = 0.0
    margin: float = 0.0

    @property
    def own_se(self) -> float:
        """The part of ``se`` a rerun of ours redraws."""
        return math.sqrt(max(self.se**2 - self.floor_se**2, 0.0))


def _quantile(alpha: float, df: float) -> float:
    q = 1 - alpha / 2
    return float(st.norm.ppf(q)) if not math.isfinite(df) else float(st.t.ppf(q, df))


def _sf(x: float, df: float) -> float:
    return float(st.norm.sf(x)) if not math.isfinite(df) else float(st.t.sf(x, df))


def df_of(iv) -> float:
    """Degrees of freedom of an interval (:class:`robeval.core.stats.Interval`): n − 1 for a (paired) t-interval,
    read back from the ratio of its half-width to its se for a Welch t-interval, ``math.inf`` otherwise."""
    if "t-interval" not in iv.method or not (iv.se > 0 and math.isfinite(iv.se)):
        return math.inf
    if "Welch" not in iv.method:
        return float(max(iv.n - 1, 1))
    q = (iv.high - iv.low) / 2 / iv.se
    z = float(st.norm.ppf(0.5 + iv.level / 2))
    if not math.isfinite(q) or q <= z * (1 + 1e-9):
        return math.inf
    lo = 1e-3
    if float(st.t.ppf(0.5 + iv.level / 2, lo)) < q:
        return lo
    try:
        return float(brentq(lambda d: float(st.t.ppf(0.5 + iv.level / 2, d)) - q, lo, 1e7))
    except ValueError:
        return math.inf


def test_of(iv, *, kind: str, sign: int = 1, paper: float | None = None, margin: float | None = None):
    """The :class:`Test` behind a row's interval, or None when the interval has no usable standard error (no
    p-value: such a row cannot belong to a family and decides nothing). A zero-width interval over more than one
    unit (runs that all gave one value, a bootstrap whose resamples all agree) is degenerate: its normal p would
    be 0. It gets the exact p its units still allow instead (``interval.exact_p``: the sign test over the units,
    2 · 2^-n, or the bootstrap's resolution, 2 / (B + 1)), as the se at which the normal test gives that p for the
    decision the interval shows (for an equivalence: inside or beyond the margin); an interval without that p, an
    estimate of 0 or one exactly at the margin gets no test."""
    se = iv.se
    if not (isinstance(se, float | int) and math.isfinite(se)) or se < 0:
        return None
    if se == 0 and int(iv.n) > 1:  # a zero-width interval over several units (all gave one value): degenerate
        exact = getattr(iv, "exact_p", None)
        if exact is None or not 0 < float(exact) < 1:
            return None  # no p-value (exact values are recorded with estimate=, not as an interval)
        # the exact p its units allow (a sign test over the units, a bootstrap's resolution), as the se at which a
        # normal test gives that p: never p = 0 from an interval that merely failed to vary
        z = float(st.norm.isf(float(exact) / 2))
        if kind == DIFFERENCE:
            if float(iv.estimate) == 0:
                return None
            return Test(DIFFERENCE, sign * float(iv.estimate), abs(float(iv.estimate)) / z, math.inf, int(iv.n))
        t, m = float(iv.estimate) - float(paper), float(margin)
        if math.isclose(abs(t), m, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return Test(EQUIVALENCE, t, abs(m - abs(t)) / z, math.inf, int(iv.n), 0.0, m)
    floor = float(getattr(iv, "floor_se", 0.0) or 0.0)
    boot = getattr(iv, "draws", None)
    if boot is not None and len(boot) > 0 and kind in (DIFFERENCE, EQUIVALENCE):
        return _bootstrap_test(iv, boot, kind, sign, paper, margin, floor)
    if kind == DIFFERENCE:
        return Test(DIFFERENCE, sign * float(iv.estimate), float(se), df_of(iv), int(iv.n), floor)
    if kind == EQUIVALENCE:
        return Test(
            EQUIVALENCE, float(iv.estimate) - float(paper), float(se), df_of(iv), int(iv.n), floor, float(margin)
        )
    raise ValueError(f"kind must be {DIFFERENCE!r} or {EQUIVALENCE!r}, got {kind!r}.")


def _bootstrap_test(iv, boot, kind: str, sign: int, paper, margin, floor: float):
    """A percentile bootstrap row's :class:`Test`, its p-value consistent with its percentile interval: the
    distance from the estimate to 0 (or to the margin band's edge) in units of the bootstrap spread *on that
    side* — (estimate − low) / z or (high − estimate) / z, z the interval's normal quantile — so p < 1 − level
    exactly when the interval excludes 0 (or lies inside, or beyond, the band), and the tail beyond the
    resamples is extrapolated with the spread facing the null. A normal approximation with the resamples' overall
    sd called a skewed, bounded statistic (a rank correlation of 0.97 with interval [0.50, 0.98]) significant at
    p = 1e-15, and a rerun with other seeds lost it (issue 45, item 0). A discrete statistic whose estimate is its
    own percentile bound takes the resamples' sd on that side; an interval with no spread at all (every resample on
    one value) gets the bootstrap's resolution, 2 / (B + 1), never 0. The p is carried as the se at which the
    normal test gives it."""
    est, lo, hi = float(iv.estimate), float(iv.low), float(iv.high)
    n = int(iv.n)
    z = float(st.norm.isf((1 - float(iv.level)) / 2))
    floor_p = min(1.0, 2.0 / (len(boot) + 1))

    def se_beyond(distance: float, spread: float) -> float:
        """The se of a normal test of "the statistic lies beyond a point ``distance`` away", on that side's spread
        (the resamples' sd where the estimate is its own percentile bound; the bootstrap's resolution where the
        resamples have no spread at all)."""
        if spread <= 0:
            spread = float(iv.se) if float(iv.se) > 0 else 0.0
        if spread > 0:
            return spread
        return distance / float(st.norm.isf(floor_p / 2))

    if kind == DIFFERENCE:
        t = sign * est
        if t == 0:
            return None
        se = se_beyond(abs(est), (est - lo) / z if est > 0 else (hi - est) / z)
        return Test(DIFFERENCE, t, se, math.inf, n, min(floor, se))
    t, m = est - float(paper), float(margin)
    if math.isclose(abs(t), m, rel_tol=1e-9, abs_tol=1e-12):
        return None
    edge_lo, edge_hi = float(paper) - m, float(paper) + m
    if abs(t) < m:  # inside the band: both one-sided tests (TOST); the se of the binding side
        s_lo, s_hi = se_beyond(est - edge_lo, (est - lo) / z), se_beyond(edge_hi - est, (hi - est) / z)
        se = s_lo if (est - edge_lo) / s_lo < (edge_hi - est) / s_hi else s_hi
        # the binding side's z, on the distance to the nearer edge the Test measures
        se = (m - abs(t)) * se / (est - edge_lo if se is s_lo else edge_hi - est)
    elif t > 0:  # beyond the upper edge: the spread facing it
        se = se_beyond(t - m, (est - lo) / z)
    else:
        se = se_beyond(-t - m, (hi - est) / z)
    return Test(EQUIVALENCE, t, se, math.inf, n, min(floor, se), m)


def p_decision(test: Test, decision: str) -> float:
    """The p-value (two-sided scale, in [0, 1]) of ``decision`` under ``test``; for :data:`NONE` the smaller of
    the p-values of the decisions the test could reach (the row still counts in its family)."""
    t, s, df = test.estimate, test.se, test.df
    if s == 0:  # no sampling spread: the decision is exact
        if test.kind == DIFFERENCE:
            return 0.0 if t != 0 else 1.0
        return 0.0 if abs(t) != test.margin else 1.0
    if test.kind == DIFFERENCE:
        return min(1.0, 2 * _sf(abs(t) / s, df))
    m = test.margin
    p_eq = min(1.0, 2 * max(_sf((m - t) / s, df), _sf((m + t) / s, df)))
    p_diff = min(1.0, 2 * _sf((abs(t) - m) / s, df))
    if decision == EQUIVALENT:
        return p_eq
    if decision == DIFFERENT:
        return p_diff
    if decision in (CLAIMED, OTHER):
        raise ValueError(f"an equivalence test decides {EQUIVALENT!r} or {DIFFERENT!r}, not {decision!r}.")
    return min(p_eq, p_diff)


def holm_adjusted(p_values) -> list[tuple[float, int]]:
    """Holm's step-down: for each p-value its adjusted p and its rank (1 = smallest) in the family. A row is
    rejected at family-wise level ``alpha`` iff its adjusted p <= alpha; it was tested at
    ``alpha / (m − rank + 1)``."""
    ps = [float(p) for p in p_values]
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out: list[tuple[float, int]] = [(1.0, 0)] * m
    running = 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, min(1.0, (m - rank + 1) * ps[i]))
        out[i] = (running, rank)
    return out


def reachable(test: Test, alpha: float) -> bool:
    """Whether an equivalence test can reach "reproduced" at its uncertainty: the interval at level
    1 − ``alpha`` must be narrower than the margin band. A difference test always can."""
    if test.kind == DIFFERENCE:
        return True
    return _quantile(alpha, test.df) * test.se < test.margin


# the stability of a t-test is computed with the spread at its upper 95% confidence bound: in reruns of notebook 01
# with other seeds a paired difference's spread over 24 runs grew 1.75x (F6a_clean_gain_0.007.iid), beyond the
# 80% bound (1.16x at 23 df) and within the 95% one (1.33x); run spreads are heavier-tailed than the normal model
SPREAD_BOUND = 0.95


def spread_factor(df: float) -> float:
    """How much larger the true spread may be than the one a t-test observed: its upper :data:`SPREAD_BOUND`
    confidence bound over the observed, sqrt(df / χ²_{1 − SPREAD_BOUND}(df)) (1 for the normal): 4.42 at 2 df,
    2.37 at 4, 1.65 at 9, 1.33 at 23, 1.03 at 1199."""
    if not math.isfinite(df):
        return 1.0
    return math.sqrt(df / float(st.chi2.ppf(1 - SPREAD_BOUND, df)))


def rerun_probability(test: Test, decision: str, alpha: float) -> float:
    """Probability that an independent rerun with the same n reaches ``decision`` again at level ``alpha``: the
    predictive probability (Goodman 1992), with the true effect uncertain about the observed one. The rerun's
    estimate is drawn from N(observed, 2 s²) — one s² for the uncertainty of the true effect, one for the rerun's
    own sampling — where s is our part of the se (a published value's ``floor_se`` is the same number in every
    rerun), and the rerun decides when its estimate passes the same critical value as ours did. A row exactly at
    the critical value is reached again with probability 1/2 (the power at the observed effect said the same,
    but rated a row just past it too highly: the winner's curse). For a t-test the spread is taken at its upper
    :data:`SPREAD_BOUND` confidence bound (:func:`spread_factor`): with 2–4 degrees of freedom an observed spread
    that came out small by chance would otherwise make a decision look stable that a rerun, drawing its own
    spread, does not reach (seen in a rerun of notebook 05 with other seeds)."""
    if decision == NONE:
        return math.nan
    if decision not in (CLAIMED, OTHER, EQUIVALENT, DIFFERENT):
        raise ValueError(f"unknown decision {decision!r}.")
    if (test.kind == DIFFERENCE) != (decision in (CLAIMED, OTHER)):
        raise ValueError(f"a {test.kind} test cannot decide {decision!r}.")
    t, df = test.estimate, test.df
    so = test.own_se * spread_factor(df)
    s = math.sqrt(so**2 + test.floor_se**2)
    if s == 0 or so == 0:
        return 1.0 if p_decision(test, decision) <= alpha else 0.0
    c = _quantile(alpha, df)
    sp = math.sqrt(2.0) * so  # the predictive spread of the rerun's estimate
    if test.kind == DIFFERENCE:
        return float(st.norm.cdf((abs(t) - c * s) / sp))
    m = test.margin
    if decision == EQUIVALENT:
        room = m - c * s
        if room <= 0:
            return 0.0
        return float(max(0.0, st.norm.cdf((room - t) / sp) - st.norm.cdf((-room - t) / sp)))
    return float(st.norm.cdf((abs(t) - m - c * s) / sp))


def resampler(test, interval, sign: int = 1):
    """``draw(gen, m=None, k=1) -> (estimates, ses, df)``: the row's test statistic recomputed on ``k``
    predictive resamples of ``m`` of its units (default the row's n), for :func:`resampled_stability`; None when
    the interval does not carry its units (``interval.redraw``) or the test is a whole table. ``sign``: +1 when
    the test's estimate moves with the interval's (an equivalence, a difference claimed ``>``), −1 when it is
    mirrored (claimed ``<``)."""
    import numpy as np

    redraw = getattr(interval, "redraw", None)
    if test is None or redraw is None or not isinstance(test, Test):
        return None
    base = float(interval.estimate)
    # a bootstrap row's resamples are judged on its own test's scale (the se its bootstrap p corresponds to)
    fixed_se = test.se if getattr(interval, "draws", None) is not None else None

    def draw(gen, m=None, k=1):
        e, s = redraw(gen, m, k)
        n = test.n if m is None else int(m)
        if fixed_se is not None:  # shrinking as 1/sqrt(n) for a rerun of another size
            s = [fixed_se * math.sqrt(test.n / n)] * len(e)
        df = test.df if not math.isfinite(test.df) else max(1.0, (test.df + 1) * n / test.n - 1)
        return test.estimate + sign * (np.asarray(e, dtype=np.float64) - base), np.asarray(s, dtype=np.float64), df

    draw.test = test
    return draw


def _p_many(test: Test, decision: str, t, s, df):
    """:func:`p_decision` over arrays of estimates ``t`` and standard errors ``s`` (all > 0) of ``test``'s kind."""
    import numpy as np

    sf = st.norm.sf if not math.isfinite(df) else (lambda x: st.t.sf(x, df))
    if test.kind == DIFFERENCE:
        return np.minimum(1.0, 2 * sf(np.abs(t) / s))
    m = test.margin
    if decision == EQUIVALENT:
        return np.minimum(1.0, 2 * np.maximum(sf((m - t) / s), sf((m + t) / s)))
    return np.minimum(1.0, 2 * sf((np.abs(t) - m) / s))


def resampled_stability(draw, decision: str, alpha: float, seed: int, m: int | None = None) -> float:
    """The share of :data:`RESAMPLES` predictive resamples of the runs (``draw``, :func:`resampler`) on which the
    whole decision is reached again at level ``alpha``: the distribution-free estimate of the stability. A
    resample with no spread (all drawn units equal) or a statistic that cannot be computed decides nothing; a
    difference decided on the other side counts as not reached. Seeded (``seed``: the row's), so the figure is
    the same on every rerun of the ledger."""
    import numpy as np

    if decision not in (CLAIMED, OTHER, EQUIVALENT, DIFFERENT):
        raise ValueError(f"unknown decision {decision!r}.")
    t, s, df = draw(np.random.default_rng([int(seed), 45]), m, RESAMPLES)
    ok = np.isfinite(t) & np.isfinite(s) & (s > 0)
    if not ok.any():
        return 0.0
    test = draw.test
    hit = _p_many(test, decision, t[ok], s[ok], df) <= alpha
    if test.kind == DIFFERENCE:  # on the side of the decision
        hit &= (t[ok] > 0) if decision == CLAIMED else (t[ok] < 0)
    return float(hit.sum()) / RESAMPLES


def resampled_n(draw, decision: str, alpha: float, seed: int, n0: int, target: float = STABLE, n_max: int = 10**4):
    """The smallest n >= ``n0`` at which :func:`resampled_stability` reaches ``target`` (resamples of n units);
    None when no n up to ``min(n_max, 64 n0)`` does."""
    return _smallest_n(lambda m: resampled_stability(draw, decision, alpha, seed, m) >= target, n0, min(n_max, 64 * n0))


def _boundary(test: Test, decision: str, alpha: float) -> float | None:
    """The |estimate| at which the stability of ``decision`` reaches :data:`STABLE` for ``test``'s se (the edge
    of the gate): a difference or "different" is stable beyond it, an equivalence within it; None when no estimate
    is (an equivalence whose band is too narrow for the se)."""

    def stab(e):
        return rerun_probability(replace(test, estimate=e), decision, alpha)

    if test.kind == DIFFERENCE or decision == DIFFERENT:
        lo, hi = (0.0 if test.kind == DIFFERENCE else test.margin), max(abs(test.estimate), test.se, 1e-12)
        while stab(hi) < STABLE:
            hi *= 2
            if hi > 1e12:
                return None
        return float(brentq(lambda e: stab(e) - STABLE, lo, hi, xtol=1e-12 * hi)) if stab(lo) < STABLE else lo
    if stab(0.0) < STABLE:
        return None
    return float(brentq(lambda e: stab(e) - STABLE, 0.0, test.margin, xtol=1e-12 * max(test.margin, 1e-12)))


def verdict_agreement(test: Test, decision: str, alpha: float, draw=None, seed: int = 0) -> float:
    """The probability that an independent rerun with the same n reaches the same *verdict* — not only p <= alpha
    but its own stability gate too — when the true effect is uncertain about the observed one (predictive, as
    :func:`rerun_probability`): the chance that the rerun's estimate lands beyond the gate's edge
    (:func:`_boundary`). A row just past the gate agrees with a rerun half the time, whatever the gate. With
    ``draw`` (:func:`resampler`) the share of predictive resamples of the runs that land beyond it as well, and the
    lower figure is returned."""
    if decision == NONE:
        return math.nan
    b = _boundary(test, decision, alpha)
    if b is None:
        return 0.0
    so = test.own_se * spread_factor(test.df)
    if so == 0:
        return 1.0
    sp = math.sqrt(2.0) * so
    t = test.estimate
    if test.kind == DIFFERENCE:
        v = float(st.norm.cdf((abs(t) - b) / sp))
    elif decision == EQUIVALENT:
        v = float(max(0.0, st.norm.cdf((b - t) / sp) - st.norm.cdf((-b - t) / sp)))
    else:
        v = float(st.norm.cdf((abs(t) - b) / sp))
    if draw is not None:
        import numpy as np

        e, _, _ = draw(np.random.default_rng([int(seed), 46]), None, RESAMPLES)
        e = e[np.isfinite(e)]
        if test.kind == DIFFERENCE:
            hit = (e * np.sign(t) >= b).sum()
        elif decision == EQUIVALENT:
            hit = (np.abs(e) <= b).sum()
        else:
            hit = (np.abs(e) >= b).sum()
        v = min(v, float(hit) / RESAMPLES)
    return v


def at_n(test: Test, n: int) -> Test:
    """``test`` as a rerun with ``n`` units would see it at the same observed effect: our part of the se
    shrinks as 1/sqrt(n), the floor stays, t degrees of freedom grow with n."""
    so2 = test.own_se**2 * test.n / n
    df = test.df if not math.isfinite(test.df) else max(1.0, (test.df + 1) * n / test.n - 1)
    return replace(test, se=math.sqrt(so2 + test.floor_se**2), df=df, n=int(n))


def n_for_stability(test: Test, decision: str, alpha: float, target: float = STABLE, n_max: int = 10**7):
    """The smallest n at which a rerun reaches ``decision`` at level ``alpha`` with probability >= ``target``,
    at the observed effect; None when no n up to ``n_max`` does (e.g. the published value's own uncertainty is
    too wide, or the observed effect is 0)."""
    if decision == NONE or test.n < 1 or test.own_se == 0:
        return None

    return _smallest_n(lambda n: rerun_probability(at_n(test, n), decision, alpha) >= target, test.n, n_max)


def _smallest_n(ok, n0: int, n_max: int):
    """The smallest n >= ``n0`` with ``ok(n)`` (``ok`` monotone in n): doubling, then bisection; None past
    ``n_max``."""
    if ok(n0):
        return n0
    hi = max(2, n0)
    while not ok(hi):
        hi *= 2
        if hi > n_max:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return int(hi)


@dataclass(frozen=True)
class TableTest:
    """A whole table against the paper's, within one tolerance: every cell an equivalence :class:`Test` with the
    same ``margin``. Reproduced when every cell is equivalent (an intersection–union test: each cell at the
    family's level, no correction needed); contradicted when some cell lies beyond the tolerance (Bonferroni over
    the cells)."""

    cells: tuple
    names: tuple
    kind: str = EQUIVALENCE

    @property
    def n(self) -> int:
        return min(c.n for c in self.cells)

    @property
    def margin(self) -> float:
        return self.cells[0].margin

    def z(self) -> list[float]:
        """The cells' standardised differences (ours − paper) / se (ours and the paper's uncertainty together)."""
        return [c.estimate / c.se if c.se > 0 else (0.0 if c.estimate == 0 else math.copysign(math.inf, c.estimate))
                for c in self.cells]  # fmt: skip


def table_p(test: TableTest, decision: str) -> float:
    k = len(test.cells)
    p_eq = max(p_decision(c, EQUIVALENT) for c in test.cells)
    p_diff = min(1.0, k * min(p_decision(c, DIFFERENT) for c in test.cells))
    return {EQUIVALENT: p_eq, DIFFERENT: p_diff}.get(decision, min(p_eq, p_diff))


def table_reachable(test: TableTest, alpha: float) -> list[str]:
    """The cells whose interval at level 1 − ``alpha`` is wider than the tolerance band (the table cannot be
    reproduced while any is); empty when every cell can be confirmed."""
    return [name for name, c in zip(test.names, test.cells) if not reachable(c, alpha)]


def table_rerun(test: TableTest, decision: str, alpha: float) -> float:
    k = len(test.cells)
    if decision == EQUIVALENT:
        return float(math.prod(rerun_probability(c, EQUIVALENT, alpha) for c in test.cells))
    if decision == DIFFERENT:
        return float(1 - math.prod(1 - rerun_probability(c, DIFFERENT, alpha / k) for c in test.cells))
    return math.nan


def _as_table(test, n):
    return TableTest(tuple(at_n(c, max(1, round(n * c.n / test.n))) for c in test.cells), test.names)


def decision_p(test, decision: str) -> float:
    """:func:`p_decision` for a row's test, a :class:`Test` or a :class:`TableTest`."""
    return table_p(test, decision) if isinstance(test, TableTest) else p_decision(test, decision)


def decision_stability(test, decision: str, alpha: float) -> float:
    """:func:`rerun_probability` for a :class:`Test` or a :class:`TableTest`."""
    return (
        table_rerun(test, decision, alpha) if isinstance(test, TableTest) else rerun_probability(test, decision, alpha)
    )


def decision_n(test, decision: str, alpha: float, target: float = STABLE, n_max: int = 10**6):
    """:func:`n_for_stability` for a :class:`Test` or a :class:`TableTest` (the cells' n grow together)."""
    if not isinstance(test, TableTest):
        return n_for_stability(test, decision, alpha, target)
    if decision == NONE or any(c.own_se == 0 for c in test.cells):
        return None

    return _smallest_n(lambda n: table_rerun(_as_table(test, n), decision, alpha) >= target, test.n, n_max)


def replication_tolerance(published_se, alpha: float = ALPHA, power: float = 0.9) -> float:
    """One tolerance for a whole table from the paper's own uncertainty: the smallest margin at which a
    replication at the paper's own scale (our se per cell equal to the published one) whose true values equal the
    published ones would confirm the *whole* table (every cell's interval inside ± tolerance) with probability
    ``power``. Cell i is confirmed with probability 2 Φ(tol / s_i − z) − 1, s_i = √2 · se_i (ours and the
    published value's), z = z_{1 − alpha/2}; the tolerance solves Π_i = ``power``. Derived from the paper, never
    from our runs: a table the paper could not resolve more finely gets a wider tolerance."""
    import numpy as np

    se = np.asarray(published_se, dtype=np.float64).reshape(-1)
    if se.size == 0 or not np.all(np.isfinite(se)) or np.any(se < 0):
        raise ValueError("published_se must be finite standard errors >= 0, one per cell.")
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1), got {power!r}.")
    s = math.sqrt(2.0) * se[se > 0]
    if s.size == 0:
        return 0.0
    z = float(st.norm.ppf(1 - alpha / 2))

    def confirmed(tol):
        return float(np.prod(np.clip(2 * st.norm.cdf(tol / s - z) - 1, 0.0, 1.0)))

    lo, hi = z * s.max(), (z + 10.0) * s.max()
    return float(brentq(lambda t: confirmed(t) - power, lo, hi, xtol=1e-12 * hi))
