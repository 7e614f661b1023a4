"""The claims ledger: every statement of a paper that we test, beside our evidence, with a verdict.

A notebook records claims with :class:`Ledger`; ``make reproduce`` aggregates the ledgers of a profile into
one Markdown report (``results/CLAIMS.md`` for the default profile).

Evidence classes (``evidence=``, required on every row)
--------------------------------------------------------
``replication``
    our own experiment under the paper's protocol. Recorded as ``scaled replication`` automatically when the
    notebook's profile scales the protocol down (:attr:`Ledger.scaling`, from the settings' ``scaled_down``).
``scaled replication``
    our own experiment at reduced scale: the row states what was scaled (``scaling``) and whether the mechanism
    the claim is about survives it (``survives``, with the reason in ``mechanism``). Only a surviving mechanism
    can reproduce or contradict; otherwise the row is ``not comparable``, whatever the numbers.
``reanalysis``
    the authors' released artefacts (sheets, certification files, printed tables) re-analysed.
``derivation``
    closed forms, theorems, identities, and our estimator against our own closed form.
``environment``
    data files, counts, checksums: checks outside the paper tallies.

``unit`` says what ``n`` counts (:data:`UNITS`); intervals over units that are not independent trainings (test
images of one model, schemes sharing one network, grid points) are shown, but a claim about training methods or
models (``about="models"``) is decided only over >= 3 independent trainings.

Verdicts, and the classes that may carry them (:data:`ALLOWED`)
----------------------------------------------------------------
``reproduced`` / ``contradicted``
    replications only. For a number (:meth:`Ledger.value`): our CI of (ours − paper), carrying the paper's own
    uncertainty where it gives one, lies inside (outside) ``paper ± margin``, the margin defended on the row
    (``margin_basis``); a whole table (:meth:`Ledger.whole_table`) within one tolerance. For a statement
    (:meth:`Ledger.comparison`): the CI of the paired difference / trend excludes 0 on the claimed (other) side.
``inconclusive``
    the evidence cannot decide, or a decision is fragile; the row says what would decide it.
``not comparable``
    the protocol is scaled beyond the mechanism the claim is about (the row says why); numbers are shown.
``consistency`` / ``erratum``
    reanalyses and derivations: the paper's statement holds on its own artefacts / closed forms, or not.
``verified`` / ``failed``
    environment checks.

One rule set for every row (enforced here, never chosen per row)
-----------------------------------------------------------------
1. *Stable decisions* (:meth:`Ledger.finalise`, :mod:`robeval.core.ledger.decisions`): a decision stands only when an
   independent rerun at the same n would reach it again with probability >= :data:`~robeval.core.ledger.decisions.STABLE`
   (0.9) — the lower of the predictive closed form (the true effect uncertain about the observed one) and the
   share of predictive resamples of the row's own runs that reach it again; else the row is fragile,
   inconclusive, and names the n that would make it stable (``stability``, ``stable_n``).
2. *Multiplicity over every decision*: every test of a notebook is Holm-corrected in its family — the notebook
   (all its tests), or for a non-central row a table or figure it names (``family=``); central rows always in
   the notebook's. A row without a p-value (no standard error) decides nothing.
3. *Values against the paper's own uncertainty*: the paper's standard error enters the interval; a test whose
   interval is wider than its margin band decides nothing either way; a whole table gets one tolerance.
4. *Readings wherever the paper is ambiguous* (:data:`robeval.core.ledger.ambiguities.AMBIGUITIES`): every row that
   depends on a registered ambiguity is tested under each reading (:meth:`Ledger.under_readings`) and decided
   only when all agree; :meth:`Ledger.save` refuses a dependent row recorded under one reading.
5. *One standard for errata*: every erratum exceeds the paper's own noise, named by ``noise_basis``
   (:data:`NOISE_BASES`): print rounding only for a number printed twice from one run, else the paper's
   run-to-run spread; exact only for text, counts and closed forms. A failed check without a noise test is
   inconclusive, never an erratum.
6. *Claims about methods follow from the unit*: a sampled statement is about models unless the row says what
   else it is about (``about``, :data:`ABOUT`); a claim about models is decided, in either direction and whatever
   the evidence class, only over >= 3 independent trainings (:data:`TRAINING_UNITS`).
7. *A larger rerun overrules*: a decision stands only where no other profile's stored ledger of the notebook
   (``results/<profile>/claims``, :func:`robeval.core.ledger.rules.larger_reruns`) holds the same row on more
   independent runs with another verdict — the rerun rule 1 predicts, done. The row is then inconclusive and
   says which profile's rerun did not reach it. Either decision can be overruled; smoke runs and dry runs
   consult nothing.
8. *Two reruns that flip it leave it open*: a decision that two independent reruns with other seeds at the same
   profile did not reach (recorded in ``results/<profile>/reruns.json``,
   :func:`robeval.core.ledger.rules.recorded_flips`) is inconclusive, whatever its stability: the rerun rule 1
   predicts failed twice. Either decision can be left open so.

Rules (one method each)
-----------------------
* :meth:`Ledger.value` — a number: equivalence within a stated margin (exact estimates: ``|ours − paper| ≤ margin``).
* :meth:`Ledger.whole_table` — a table: every cell within one tolerance, from the cells' standardised differences.
* :meth:`Ledger.comparison` — "A beats B" (and trends): the CI of the difference (rank correlation) excludes 0.
* :meth:`Ledger.fact` — a statement decided exactly on our data (no sampling error): holds or not.
* :meth:`Ledger.consistency` — the authors' artefacts against each other or against a closed form.
* :meth:`Ledger.readings` / :meth:`Ledger.under_readings` — a statement the paper leaves ambiguous, tested under
  every reading: decided only when all readings agree.
* :meth:`Ledger.unavailable` — a claim whose statistic this run cannot compute (its inputs do not exist, e.g. no
  easy training image): inconclusive, saying what is missing.

Every row records its test (``rule``), confidence ``level``, ``n_runs`` with its ``unit``, its decision's
``p_value``, family and Holm-adjusted p, its ``stability``, and, where an effect size is known, the ``power`` the
test had; an inconclusive row says what would ``decide`` it. A percentile bootstrap needs at least
:data:`MIN_BOOTSTRAP_N` independent units to decide anything. A saved ledger is checked against this vocabulary
when it is loaded (:func:`check_saved_ledger`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from robeval.core.ledger import decisions as _decisions
from robeval.core.ledger.gaps import GapTest, direction_test, gap_test
from robeval.core.ledger.readings import ReadingsMixin
from robeval.core.ledger.rules import larger_reruns, leave_flipped_open, overruled_by, rerun_agreement, stability_of
from robeval.core.ledger.store import StoreMixin
from robeval.core.ledger.vocab import (
    ABOUT,
    CONSISTENCY,
    CONTRADICTED,
    DECIDED,
    DERIVATION,
    ENVIRONMENT,
    ERRATUM,
    EVIDENCE,
    EXACT,
    FAILED,
    INCONCLUSIVE,
    KINDS,
    LABEL_KEYS,
    MIN_BOOTSTRAP_N,
    MIN_TRAININGS,
    MODELS,
    NOISE_BASES,
    NOT_COMPARABLE,
    PAPERS,
    REANALYSIS,
    REPLICATION,
    REPRODUCED,
    RUN_SPREAD,
    SAMPLING,
    SCALED,
    SIZE_FREE,
    TRAINING_UNITS,
    UNITS,
    VERIFIED,
    Claim,
    Need,
    as_interval,
    check_central,
    check_claims,
    check_noise,
    check_notebook,
    check_paper_value,
    comparable_span,
    decision_of,
    finite_float,
    invalid_small_n,
    phrase_need,
    round_value,
)
from robeval.core.paths import PROFILES, check_profile
from robeval.core.validation import check_fact_types as _check_types


@dataclass
class Ledger(ReadingsMixin, StoreMixin):
    """The claims of one notebook run under one profile.

    ``scaling``: what this profile scales down relative to the paper's protocol ("" at the paper's scale; set by
    :func:`robeval.core.notebooks.setup` from the settings' ``scaled_down``). Replication rows recorded under a
    scaling become ``scaled replication`` rows carrying it. ``mechanism``: why the mechanisms the notebook's
    claims are about survive that scaling (the settings' ``mechanism``); a row's own ``mechanism=`` replaces it.
    ``survives``: False when no mechanism survives this run at all — a dry run (``ROBEVAL_DRY_RUN=1``, every loop
    cut short to exercise the code paths; :func:`robeval.core.notebooks.setup` passes ``not settings.dry_run``).
    Every row but the environment checks is then recorded ``not comparable``, whatever its numbers, with
    ``mechanism`` (required) as the reason: such a ledger holds no evidence. ``decided_by``: a profile sized only to
    check a notebook's pipeline (its settings' ``pipeline_check``, e.g. 09 at ``default``, whose central rows need the
    ``gpu`` profile) names the profile that decides its rows; such a run is no evidence about models (``survives``
    False): its rows about trained models (``about`` "models" or "one model") are ``not comparable``, while its rows
    about data, closed forms or the paper (:data:`SIZE_FREE`, whatever model) are judged as in any run.

    Every record method takes the row's labels as keywords: ``evidence`` (one of :data:`EVIDENCE`, required),
    ``unit`` (what n counts, :data:`UNITS`; required with an interval), ``survives`` (bool: does the mechanism
    the claim is about survive this profile's scaling; default True), ``mechanism`` (why, or why not),
    ``scaled`` (what this row scales beyond the profile's scaling, e.g. "48 augmentation samples instead of
    100k"), ``full_scale`` (this row's computation is not touched by the profile's scaling, e.g. an exact
    statistic of the whole dataset: it stays a ``replication``), ``about`` (what the claim is about, :data:`ABOUT`;
    sampled statements default to ``"models"``: decided only over >= 3 independent trainings), ``family`` (a
    table or figure whose tests are Holm-corrected together, non-central rows only), ``depends`` (the keys of
    :data:`robeval.core.ledger.ambiguities.AMBIGUITIES` the row's computation rests on: :meth:`save` refuses the row
    unless it is a readings row for each, :meth:`check_ambiguities`).
    """

    paper: str
    notebook: str
    profile: str
    claims: list[Claim] = field(default_factory=list)
    index: list[dict] = field(default_factory=list)
    scaling: str = ""
    mechanism: str = ""
    survives: bool = True
    decided_by: str = ""

    def __post_init__(self):
        check_profile(self.profile)
        self.cover(self.index) if self.index else None  # checked as cover() checks it, not first by save()
        if not isinstance(self.survives, bool):
            raise TypeError(f"survives must be True or False, got {self.survives!r}.")
        if self.decided_by:
            check_profile(self.decided_by)
            if self.survives or self.decided_by == self.profile:
                raise ValueError(
                    f"decided_by={self.decided_by!r} marks a run sized as a pipeline check: it needs survives=False and "
                    f"another profile than {self.profile!r} (the one whose run decides the rows)."
                )
        if not self.survives and not str(self.mechanism or "").strip():
            raise ValueError(
                "a ledger whose run is no evidence (survives=False, e.g. a dry run) needs mechanism= saying why; "
                "set `mechanism` in the profile's settings table (e.g. [dry_run])."
            )
        if not isinstance(self.paper, str) or self.paper not in PAPERS:
            raise ValueError(f"Unknown paper {self.paper!r}; use one of {', '.join(PAPERS)}.")
        check_notebook(self.paper, self.notebook)  # a plain name; a compendium notebook of this paper
        check_claims(self.claims, self)  # the starting rows are rows of this ledger
        if not isinstance(self.mechanism, str):
            raise TypeError(f"mechanism must be a string (why the mechanisms survive), got {self.mechanism!r:.60}.")
        if not isinstance(self.scaling, str):
            raise TypeError(f"scaling must be a string (what the profile scales down), got {self.scaling!r}.")

    # ------------------------------------------------------------------------------------------------- rules
    def value(
        self,
        id: str,
        source: str,
        description: str,
        *,
        paper,
        margin: float,
        margin_basis: str = "",
        interval=None,
        estimate=None,
        comparable_at=("default", "paper"),
        central: bool = False,
        note: str = "",
        noise: float | None = None,
        noise_basis: str = "",
        **labels,
    ) -> Claim:
        """A number: is our estimate *equivalent* to the printed ``paper`` value within ``± margin``?

        ``margin_basis`` defends the margin (e.g. "the gap to the nearest column the paper compares", "the
        printed rounding"); required with an interval. With ``interval`` (a :class:`robeval.core.stats.Interval`
        over independent runs): reproduced when the interval lies inside ``paper ± margin``, contradicted when
        it lies entirely outside (however wide), else inconclusive; an interval wider than the margin band can
        only contradict. With ``estimate`` (exact, deterministic): reproduced iff
        ``|estimate − paper| <= margin``; for a reanalysis or derivation a larger gap is an erratum only beyond
        the paper's own ``noise`` (its ``noise_basis``, one of :data:`NOISE_BASES`), inconclusive within it."""
        p = finite_float(paper, "paper")
        m = finite_float(margin, "margin")
        if m < 0:
            raise ValueError(f"margin must be >= 0, got {margin!r}.")
        if (interval is None) == (estimate is None):
            raise ValueError("pass either interval= (a stochastic estimate) or estimate= (an exact one), not both.")
        basis = f" ({margin_basis})" if margin_basis else ""
        if interval is None:
            est = finite_float(estimate, "estimate")
            ok = abs(est - p) <= m
            return self._record(
                id, source, description, "value", p, est, None, None, m, None,
                f"exact computation: |ours − paper| ≤ {m:g}{basis}", None,
                REPRODUCED if ok else CONTRADICTED, "", comparable_at, central, note, labels,
                noise=noise, noise_basis=noise_basis, discrepancy=abs(est - p),
            )  # fmt: skip
        if not margin_basis:
            raise ValueError(
                f"{id}: a value row with an interval needs margin_basis= saying why ± {m:g} is the margin "
                "(e.g. the smallest difference the paper draws conclusions from, or the paper's own CI)."
            )
        from robeval.core.stats import power_to_confirm, runs_needed

        iv = as_interval(interval)
        lo, hi = iv.low, iv.high
        test = _decisions.test_of(iv, kind=_decisions.EQUIVALENCE, paper=p, margin=m)
        reach = test is None or _decisions.reachable(test, 1 - iv.level)
        # one rule in both directions: inside the band reproduces, entirely outside it contradicts, a straddling
        # interval decides nothing; a wide interval can still be entirely outside the band (issue 45, item 1)
        if reach and p - m <= lo and hi <= p + m:
            verdict, decides = REPRODUCED, ""
        elif hi < p - m or lo > p + m:
            verdict, decides = CONTRADICTED, ""
        else:
            verdict = INCONCLUSIVE
            gap = abs(iv.estimate - p)
            target = (m - gap) if gap < m else (gap - m)
            n = runs_needed(iv, target) if target > 0 else None
            if n:
                decides = Need(n, iv.n)
            elif target > 0 and iv.floor_se > 0:
                decides = "no number of our runs: the published value's own uncertainty is too wide for the margin"
            else:
                decides = "the paper profile"
            if not reach:
                # the interval (ours and the paper's uncertainty together) is wider than the margin band: this
                # test cannot confirm the paper's value; only an interval entirely beyond the band decides
                decides += (
                    f"; at these uncertainties the test cannot reach reproduced (half-width {iv.halfwidth:.3g} ≥ "
                    f"margin {m:g}): only an interval entirely outside paper ± {m:g} would decide (contradicted)"
                )
        rule = f"equivalence: {iv.level:.0%} CI ({iv.method}) inside paper ± {m:g}{basis}"
        claim = self._record(
            id, source, description, "value", p, iv.estimate, (lo, hi), iv.level, m, iv.n, rule,
            power_to_confirm(m, iv.se, iv.level), verdict, decides, comparable_at, central, note, labels,
            interval=iv, test=test,
        )  # fmt: skip
        claim._resample = _decisions.resampler(claim._test, iv)
        claim._zero_width = iv.se == 0
        return claim

    def comparison(
        self,
        id: str,
        source: str,
        description: str,
        *,
        interval,
        direction: str = ">",
        paper="holds",
        effect: float | None = None,
        kind: str = "comparison",
        comparable_at=("default", "paper"),
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """A directional statement: the paper says the quantity behind ``interval`` (a paired difference
        "A − B", or a rank correlation for a trend) is ``direction`` 0 (``">"`` or ``"<"``).

        Reproduced when the interval excludes 0 on that side, contradicted when it excludes 0 on the other
        side, inconclusive otherwise. ``effect`` (the paper's own effect size, if it reports one) gives the
        power the test had. Every test of the notebook is Holm-corrected in its family on :meth:`finalise`."""
        from robeval.core.stats import power_to_detect, runs_needed

        if direction not in (">", "<"):
            raise ValueError(f"direction must be '>' or '<', got {direction!r}.")
        if kind not in ("comparison", "trend"):
            raise ValueError(f"kind must be 'comparison' or 'trend', got {kind!r}.")
        iv = as_interval(interval)
        sign = 1 if direction == ">" else -1
        lo, hi = (iv.low, iv.high) if sign > 0 else (-iv.high, -iv.low)
        if lo > 0:
            verdict, decides = REPRODUCED, ""
        elif hi < 0:
            verdict, decides = CONTRADICTED, ""
        else:
            verdict = INCONCLUSIVE
            gap = abs(iv.estimate)
            n = runs_needed(iv, gap) if gap > 0 else None
            decides = Need(n, iv.n, " if the effect is real") if n else "cannot be decided: estimate ≈ 0"
        what = "rank correlation" if kind == "trend" else "difference"
        rule = f"{iv.level:.0%} CI of the {what} ({iv.method}) excludes 0, claimed {direction} 0"
        if isinstance(effect, (str, bytes)):  # float("0.1") would read it
            raise TypeError(f"{id}: effect must be a number (the paper's effect size), got {effect!r}.")
        effect = None if effect is None else finite_float(effect, "effect")  # NaN is not "no effect given"
        power = power_to_detect(effect, iv.se, iv.level) if effect is not None else None
        test = _decisions.test_of(iv, kind=_decisions.DIFFERENCE, sign=sign)
        claim = self._record(
            id, source, description, kind, paper, iv.estimate, (iv.low, iv.high), iv.level, None, iv.n, rule,
            power, verdict, decides, comparable_at, central, note, labels, interval=iv, test=test,
        )  # fmt: skip
        claim._resample = _decisions.resampler(claim._test, iv, sign)
        claim._zero_width = iv.se == 0
        return claim

    def whole_table(
        self,
        id: str,
        source: str,
        description: str,
        *,
        cells: dict,
        tolerance: float,
        tolerance_basis: str,
        comparable_at=("default", "paper"),
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """A whole table against the paper's, one verdict from its cells' standardised differences.

        ``cells``: cell name -> ``(paper value, interval)``, each interval over our independent runs and, where
        the paper gives its uncertainty, including it (``floor_se``: :func:`robeval.core.stats.
        mean_vs_reference_interval`), so a cell's difference is judged against the combined uncertainty of both.
        ``tolerance``: one tolerance for the whole table, declared once with its defence (``tolerance_basis``).

        Reproduced when every cell's interval lies inside paper ± tolerance (an intersection–union test: each
        cell at the family's level); contradicted when some cell's interval lies beyond it after Bonferroni over
        the cells, however wide the other cells are; otherwise inconclusive. While some cell's interval is wider
        than the tolerance band the table cannot be reproduced, only contradicted. The row's estimate counts the
        cells within the tolerance and names the largest difference; the cells' standardised differences are
        :func:`table_differences` (for a heatmap)."""
        if not isinstance(cells, dict) or len(cells) < 1:
            raise ValueError(f"{id}: cells must map each cell's name to (paper value, interval), got {cells!r:.60}.")
        tol = finite_float(tolerance, "tolerance")
        if tol <= 0:
            raise ValueError(f"{id}: tolerance must be > 0, got {tolerance!r}.")
        if not str(tolerance_basis or "").strip():
            raise ValueError(f"{id}: tolerance_basis= must defend the table's one tolerance (why ± {tol:g}).")
        tests, names, ivs = [], [], []
        for name, pair in cells.items():
            if not (isinstance(pair, tuple | list) and len(pair) == 2):
                raise ValueError(f"{id}: cell {name!r} must be (paper value, interval), got {pair!r}.")
            pv, iv = finite_float(pair[0], f"paper value of cell {name!r}"), as_interval(pair[1])
            tests.append(_decisions.test_of(iv, kind=_decisions.EQUIVALENCE, paper=pv, margin=tol))
            names.append(str(name))
            ivs.append(iv)
        level = ivs[0].level
        rule = (
            f"whole table: every cell's {level:.0%} CI ({ivs[0].method}) inside paper ± {tol:g} ({tolerance_basis}); "
            f"contradicted when a cell lies beyond it (Bonferroni over {len(tests)} cells)"
        )
        if any(t is None for t in tests):  # e.g. one run: no interval, no test
            n = min(iv.n for iv in ivs)
            return self._record(
                id, source, description, "table", f"{len(tests)} cells", f"{len(tests)} cells, n = {n}", None, level,
                tol, n, rule, None, INCONCLUSIVE, f">= 2 runs (now {n}): a cell without a standard error has no test",
                comparable_at, central, note, labels, interval=ivs[0],
            )  # fmt: skip
        test = _decisions.TableTest(tuple(tests), tuple(names))
        alpha = 1 - level
        blocked = _decisions.table_reachable(test, alpha)
        deltas = [abs(t.estimate) for t in tests]
        worst = int(max(range(len(tests)), key=lambda i: deltas[i]))
        inside = sum(iv.low >= pair_p - tol and iv.high <= pair_p + tol
                     for iv, pair_p in zip(ivs, (float(v[0]) for v in cells.values())))  # fmt: skip
        z = test.z()
        estimate = (
            f"{inside} of {len(tests)} cells inside paper ± {tol:g}; largest |ours − paper| {deltas[worst]:.3g} "
            f"({names[worst]}); largest |z| {max(abs(v) for v in z):.3g}, RMS z {math.sqrt(sum(v * v for v in z) / len(z)):.3g}"
        )
        # one rule in both directions (issue 45, item 1): a cell wider than the band blocks a reproduction only;
        # a cell entirely beyond the band contradicts the table however wide the other cells are
        if not blocked and _decisions.table_p(test, _decisions.EQUIVALENT) <= alpha:
            verdict, decides = REPRODUCED, ""
        elif _decisions.table_p(test, _decisions.DIFFERENT) <= alpha:
            verdict, decides = CONTRADICTED, ""
        elif blocked:
            verdict = INCONCLUSIVE
            decides = (
                f"{len(blocked)} cell(s) cannot be confirmed at these uncertainties (interval wider than ± {tol:g}: "
                f"{', '.join(blocked[:5])}{' ...' if len(blocked) > 5 else ''}): the table can be contradicted, not "
                "reproduced, at this n"
            )
        else:
            verdict = INCONCLUSIVE
            n = _decisions.decision_n(test, _decisions.EQUIVALENT, alpha, target=0.5)
            decides = Need(n, test.n) if n else "no number of our runs (the published uncertainty)"
        return self._record(
            id, source, description, "table", f"{len(tests)} cells", estimate, None, level, tol, test.n, rule,
            None, verdict, decides, comparable_at, central, note, labels, interval=ivs[0], test=test,
        )  # fmt: skip

    def fact(
        self,
        id: str,
        source: str,
        description: str,
        *,
        holds: bool,
        basis: str,
        paper="holds",
        estimate=None,
        comparable_at=PROFILES,
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """A statement decided exactly on our data or closed forms (no sampling error): ``basis`` says why
        it is exact (e.g. "exhaustive search over all pairs", "closed form"). Holds or not: reproduced /
        contradicted for replications, consistency / erratum for reanalyses and derivations, verified / failed
        for environment checks."""
        _check_types(f"fact {id!r}", holds=holds)
        holds = bool(holds)
        if not isinstance(basis, str) or not basis.strip():
            raise ValueError("basis= must say why the statement is decided exactly (no sampling error).")
        return self._record(
            id, source, description, "fact", paper, estimate if estimate is not None else holds, None, None,
            None, None, f"exact: {basis}", None, REPRODUCED if holds else CONTRADICTED, "", comparable_at,
            central, note, labels, noise_basis=EXACT,
        )  # fmt: skip

    def consistency(
        self,
        id: str,
        source: str,
        description: str,
        *,
        holds: bool | None = None,
        check: str,
        paper=None,
        estimate=None,
        discrepancy: float | None = None,
        claimed: float | None = None,
        noise: float | None = None,
        noise_basis: str = "",
        margin: float | None = None,
        comparable_at=PROFILES,
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """The authors' artefacts checked against each other or a closed form (``check`` says how):
        ``consistency`` when the statement holds, ``erratum`` when the printed value differs from the authors'
        own data or the paper contradicts itself. ``evidence`` is ``reanalysis`` or ``derivation``.

        One standard for errata (the same test on every row): pass ``discrepancy`` (printed − recomputed, in the
        paper's units), ``noise`` (the paper's own noise for that number) and ``noise_basis`` saying what that
        noise is (:data:`NOISE_BASES`): :data:`ROUNDING` only for a value printed twice from one run;
        :data:`RUN_SPREAD` when the numbers come from different runs (the paper's own run-to-run spread);
        :data:`EXACT` (noise 0) for text, counts and closed forms. It is an erratum only when
        ``|discrepancy| > noise``. ``holds=`` alone decides both ways only with ``noise_basis=EXACT`` (the
        statement is decided without noise: text, counts, closed forms; a derivation's closed form is exact by
        default); for a reanalysis of the paper's noisy numbers it decides nothing either way (a check that could
        not find an erratum cannot confirm either).

        With :data:`RUN_SPREAD` (the numbers come from different runs of the paper), consistency and erratum pass
        the same kind of test and the same gates (issue 60, item 3): the gap is a draw with standard error
        ``noise / 1.96`` (the paper's own, so a rerun of ours recomputes it). Beyond the noise it is tested for a
        difference from 0 (erratum); within it, by two one-sided tests for a true gap inside ± ``margin`` (the
        largest gap the statement tolerates, in the paper's units; default ``noise``): consistency only when that
        equivalence test rejects — a gap within the noise is otherwise inconclusive, not confirmed. Both decisions
        join the notebook's Holm family and its stability gate.

        A statement of direction ("rises at every step", "each component improves", "the best is X") passes
        ``claimed`` instead of ``discrepancy``: its weakest margin on the claimed side, signed (> 0 where every part
        holds; e.g. the smallest step of a column that should rise), in the units of ``noise``. It is consistency
        only beyond the noise on the claimed side, an erratum only beyond it on the other, and inconclusive between
        (with :data:`RUN_SPREAD`: one difference test for both, gated alike) — never confirmed because nothing
        went the wrong way."""
        if not isinstance(check, str) or not check.strip():
            raise ValueError(f"{id}: check= must say how the artefacts were checked (text), got {check!r:.60}.")
        if claimed is not None:
            if discrepancy is not None or holds is not None or margin is not None:
                raise ValueError(f"{id}: pass claimed= (a statement of direction) or discrepancy=/holds=, not both.")
            gap = direction_test(id, claimed, noise, noise_basis, check)
        elif discrepancy is not None or noise is not None:
            if holds is not None:
                raise ValueError("pass holds= or discrepancy= with noise=, not both.")
            gap = gap_test(id, discrepancy, noise, noise_basis, check, margin)
        elif holds is None:
            raise ValueError("consistency needs holds= (or discrepancy= and noise=).")
        else:
            _check_types(f"consistency {id!r}", holds=holds)
            gap = GapTest(holds, None, check, None, "")
        holds, test, check, undecided = gap.holds, gap.test, gap.check, gap.undecided
        estimate = gap.estimate if estimate is None else estimate
        labels.setdefault("evidence", REANALYSIS)
        verdict = INCONCLUSIVE if holds is None else CONSISTENCY if bool(holds) else ERRATUM
        claim = self._record(
            id, source, description, "consistency", paper, estimate, None, None, None, None, check, None,
            verdict, undecided if holds is None else "", comparable_at, central, note, labels,
            noise=noise, noise_basis=noise_basis,
            discrepancy=None if discrepancy is None or claimed is not None else abs(discrepancy), test=test,
        )  # fmt: skip
        return claim

    def unavailable(
        self,
        id: str,
        source: str,
        description: str,
        *,
        why: str,
        kind: str = "comparison",
        paper="holds",
        comparable_at=("default", "paper"),
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """A claim whose statistic this run cannot compute — e.g. a model without any easy training image has no
        easy-input gradient norm. Recorded *inconclusive* without an estimate, ``why`` saying what is missing and
        what would decide it (the row's ``decides``); the other rules still apply (``not comparable`` outside
        ``comparable_at`` or when the mechanism does not survive). ``kind`` is the kind the row has when it can be
        computed (:data:`KINDS`)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
        if not isinstance(why, str) or not why.strip():
            raise ValueError(f"{id}: why= must say what is missing and what would decide the claim.")
        return self._record(
            id, source, description, kind, paper, None, None, None, None, None, f"not computed: {why}", None,
            INCONCLUSIVE, why, comparable_at, central, note, labels,
        )  # fmt: skip

    def get(self, id: str) -> Claim:
        """The recorded row ``id`` (KeyError naming the recorded ids if there is none)."""
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(f"{self.notebook} has no claim {id!r}; recorded: {[c.id for c in self.claims][:20]}")

    def _check_id(self, id) -> str:
        if not isinstance(id, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*", id):
            raise ValueError(f"claim id {id!r} must be a plain name (letters, digits, '_', '-', '.').")
        id = id + getattr(self, "_suffix", "")
        if any(c.id == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} is recorded twice in {self.notebook}; ids must be unique.")
        return id

    def _labels(self, id: str, labels: dict, n_runs, interval, central: bool) -> dict:
        bad = set(labels) - set(LABEL_KEYS)
        if bad:
            hint = (
                " (about_models= is gone: say what the claim is about with about=, one of ABOUT)"
                if ("about_models" in bad)
                else ""
            )
            raise TypeError(f"{id}: unknown keyword(s) {sorted(bad)}; row labels are {LABEL_KEYS}{hint}.")
        evidence = labels.get("evidence")
        if evidence is None:
            raise TypeError(
                f"{id}: evidence= is required: one of {EVIDENCE} (what the verdict rests on; see robeval.core.ledger)."
            )
        if evidence not in EVIDENCE:
            raise ValueError(f"{id}: evidence {evidence!r} is not one of {EVIDENCE}.")
        unit = labels.get("unit")
        if unit is not None and (not isinstance(unit, str) or unit not in UNITS):
            raise ValueError(f"{id}: unit {unit!r} is not one of {sorted(UNITS)}.")
        if unit is None and (n_runs is not None or interval is not None):
            raise TypeError(f"{id}: unit= is required with an interval: what do its n = {n_runs} units count?")
        if unit is None:
            unit = "none (exact)"
        for flag in ("full_scale", "survives"):
            if not isinstance(labels.get(flag, flag == "survives"), bool):
                raise TypeError(f"{id}: {flag}= must be True or False, got {labels[flag]!r}.")
        about = labels.get("about")
        if about is None:
            # the strict reading unless the row says otherwise: a sampled statement of our experiments or of the
            # authors' released models is about models; exact rows are about what they compute
            if interval is not None and evidence in (REPLICATION, SCALED, REANALYSIS):
                about = MODELS
            else:
                about = {DERIVATION: "closed form", REANALYSIS: "the paper"}.get(evidence, "data")
        if about not in ABOUT:
            raise ValueError(f"{id}: about {about!r} is not one of {sorted(ABOUT)} (what the claim is about).")
        family = labels.get("family", "")
        if not isinstance(family, str):
            raise TypeError(f"{id}: family= must be a name (a table or figure of the paper), got {family!r}.")
        if family and central:
            raise ValueError(
                f"{id}: a central claim is corrected in its notebook's family (all of the notebook's tests), "
                f"the strictest; drop family={family!r} or make the row non-central."
            )
        available = labels.get("available")
        if available is not None and (isinstance(available, bool) or not isinstance(available, int) or available < 1):
            raise TypeError(
                f"{id}: available= must be the number of {unit} that exist (an int >= 1), got {available!r}."
            )
        from robeval.core.ledger.ambiguities import check_depends

        return dict(
            depends=check_depends(labels.get("depends", ()), self.paper),
            available=available,
            evidence=evidence,
            unit=unit,
            survives=labels.get("survives", True),
            mechanism=str(labels.get("mechanism", "") or ""),
            scaled=str(labels.get("scaled", "") or ""),
            about=about,
            full_scale=labels.get("full_scale", False),
            family=family.strip(),
        )

    def _record(
        self, id, source, description, kind, paper_value, estimate, ci, level, margin, n_runs, rule, power,
        verdict, decides, comparable_at, central, note, labels, interval=None, test=None, noise=None,
        noise_basis="", discrepancy=None,
    ) -> Claim:  # fmt: skip
        id = self._check_id(id)
        central, noise = check_central(central, id), check_noise(noise, id)
        paper_value = check_paper_value(paper_value, id)
        for name, text in (("source", source), ("description", description), ("note", note)):
            if not isinstance(text, str) or (name != "note" and not text.strip()):
                raise TypeError(f"{id}: {name} must be {'text' if name == 'note' else 'non-empty text'}, got {text!r}.")
        lab = self._labels(id, labels, n_runs, interval, central)
        comparable_at = comparable_span(comparable_at)
        if isinstance(decides, Need):  # what would decide it, in the row's own units
            decides = (
                phrase_need(decides.n, decides.now, lab["unit"], lab["about"], lab["available"], lab["evidence"])
                + decides.suffix
            )
        # the verdict of the row's own test, in its evidence class's words: kept as ``unadjusted`` when a rule
        # below overrides a decision (issue 45, item 5)
        own = verdict
        if lab["evidence"] in (REANALYSIS, DERIVATION):
            own = {REPRODUCED: CONSISTENCY, CONTRADICTED: ERRATUM}.get(verdict, verdict)
        if noise_basis and noise_basis not in NOISE_BASES:
            raise ValueError(f"{id}: noise_basis {noise_basis!r} is not one of {NOISE_BASES}.")
        evidence, scaling, mechanism = lab["evidence"], "", lab["mechanism"]
        if evidence in (REPLICATION, SCALED):
            # a row computed in full under a scaled profile (e.g. an exact statistic of the whole dataset) keeps
            # only its own scaling
            scaling = "; ".join(s for s in ("" if lab["full_scale"] else self.scaling, lab["scaled"]) if s)
            if scaling:
                evidence = SCALED
            if evidence == SCALED and not mechanism and lab["survives"]:
                mechanism = self.mechanism
            comparable = self.profile in comparable_at
            if not comparable:
                mechanism = f"not at the {self.profile} profile (comparable at: {', '.join(comparable_at)})" + (
                    f"; {mechanism}" if mechanism else ""
                )
                verdict, decides = NOT_COMPARABLE, f"the {' or '.join(comparable_at)} profile"
            elif not lab["survives"]:
                evidence = SCALED  # an experiment whose mechanism differs from the paper's is not its protocol
                if not mechanism:
                    raise ValueError(f"{id}: survives=False needs mechanism= saying why the mechanism is lost.")
                verdict, decides = NOT_COMPARABLE, "the paper's protocol (see mechanism)"
            elif evidence == SCALED and not mechanism:
                raise ValueError(
                    f"{id}: a scaled replication needs mechanism= saying why the mechanism the claim is about "
                    f"survives the scaling ({scaling[:80]}...), or survives=False."
                )
        elif evidence in (REANALYSIS, DERIVATION):
            if self.profile not in comparable_at and verdict not in (CONSISTENCY, ERRATUM):
                verdict = NOT_COMPARABLE
                decides = decides or f"the {' or '.join(comparable_at)} profile"
            verdict = {REPRODUCED: CONSISTENCY, CONTRADICTED: ERRATUM}.get(verdict, verdict)
            if verdict == CONSISTENCY and test is None and not noise_basis:
                if evidence == DERIVATION:
                    noise_basis = EXACT  # a closed form: decided without noise, both ways
                else:
                    # point values of the paper's noisy numbers agree with the statement, but without a test
                    # against the paper's own noise a failure could not be an erratum: so a success is no
                    # consistency either (issue 45, item 1: every path can fail both ways or decides nothing)
                    verdict = INCONCLUSIVE
                    decides = (
                        "a test against the paper's own noise (discrepancy= and noise= with noise_basis=, or "
                        f"noise_basis={EXACT!r} when the statement is decided without noise): the statement holds on "
                        "the printed values, but so close a check could not have found an erratum either"
                    )
            if verdict == ERRATUM:
                # one standard for errata: beyond the paper's own noise, whatever the code path
                if test is not None and noise_basis != RUN_SPREAD:
                    noise_basis = SAMPLING
                elif evidence == DERIVATION and not noise_basis:
                    noise_basis = EXACT  # a closed form against the paper's statement of it: no noise
                elif not noise_basis:
                    # no noise test: the row cannot be an erratum (the same standard on every code path)
                    verdict = INCONCLUSIVE
                    decides = (
                        "a test against the paper's own noise (discrepancy= and noise= with noise_basis=, or "
                        f"noise_basis={EXACT!r} when the statement is decided without noise): an erratum must "
                        "exceed the paper's own noise"
                    )
                elif noise_basis != EXACT:
                    if noise is None:
                        raise ValueError(f"{id}: noise_basis={noise_basis!r} needs noise= (the paper's own noise).")
                    if discrepancy is not None and discrepancy <= noise:
                        verdict = INCONCLUSIVE
                        decides = (
                            f"a gap beyond the paper's own noise ({noise_basis}: {noise:.4g}); "
                            f"ours differs by {discrepancy:.4g}"
                        )
        else:  # environment
            verdict = {REPRODUCED: VERIFIED, CONSISTENCY: VERIFIED, CONTRADICTED: FAILED, ERRATUM: FAILED}.get(
                verdict, verdict
            )
        if lab["about"] == MODELS and verdict in DECIDED:
            # a claim about training methods or models: only independent trainings decide it, either way
            if not (lab["unit"] in TRAINING_UNITS and (n_runs or 0) >= MIN_TRAININGS):
                verdict = INCONCLUSIVE
                over = f"{n_runs} {lab['unit']}" if n_runs else "one model per method"
                decides = f"≥ {MIN_TRAININGS} independent trainings (the claim is about models; this rests on {over})"
        if (
            interval is not None
            and invalid_small_n(interval)
            and verdict in (REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM)
        ):
            verdict = INCONCLUSIVE
            decides = f"an interval valid at n = {interval.n} (a percentile bootstrap needs ≥ {MIN_BOOTSTRAP_N})"
        if not self.survives and evidence != ENVIRONMENT and not (self.decided_by and lab["about"] in SIZE_FREE):
            # a run that is no evidence (a dry run): the numbers are shown, no row carries a verdict; a pipeline
            # check trims the trainings, so only its rows about data, closed forms or the paper keep their verdicts
            verdict, mechanism = NOT_COMPARABLE, self.mechanism
            if self.decided_by:
                # the profile that can decide this row: the pipeline check's own, where the row is comparable there,
                # else the smallest larger profile the row is comparable at (issue 60, item 6)
                larger = [p for p in comparable_at if PROFILES.index(p) > PROFILES.index(self.profile)]
                by = self.decided_by if self.decided_by in larger else (larger[0] if larger else "")
                decides = (
                    f"the {by} profile (this {self.profile} run is sized to check the pipeline, not to decide: see "
                    "mechanism)"
                    if by
                    else f"no profile of this compendium (the row is comparable at {', '.join(comparable_at) or 'none'})"
                )
            else:
                decides = f"a real run of the {self.profile} profile (this run is no evidence: see mechanism)"
        if interval is not None and test is None and verdict in DECIDED:
            verdict = INCONCLUSIVE
            decides = "an interval with a standard error (without one the row has no p-value and no family)"
            if interval.se == 0 and interval.n > 1:
                decides = (
                    f"an interval of nonzero width: its {interval.n} {lab['unit']} (or every resample of them) gave "
                    "one value, and a degenerate interval at 0 or at the margin has no p-value; more units or a "
                    "statistic that varies"
                )
        decision = decision_of(test, verdict) if test is not None else None
        pv = None if test is None else _decisions.decision_p(test, decision)
        _check_types(f"row {id!r}", p_value=pv, estimate=estimate, counts={"n_runs": n_runs})
        claim = Claim(
            id=id, paper=self.paper, source=source, description=description, kind=kind,
            paper_value=round_value(paper_value), estimate=round_value(estimate),
            ci=None if ci is None else (round_value(ci[0]), round_value(ci[1])), level=level, margin=round_value(margin),
            n_runs=n_runs, rule=rule, power=None if power is None else round(float(power), 3), verdict=verdict,
            decides=decides, central=bool(central), profile=self.profile, notebook=self.notebook, note=note,
            evidence=evidence, unit=lab["unit"], scaling=scaling, mechanism=mechanism,
            p_value=None if pv is None else float(f"{pv:.4g}"), about=lab["about"],
            noise=None if noise is None else round_value(noise), noise_basis=noise_basis, depends=lab["depends"],
        )  # fmt: skip
        # a decision of the row's own test that a rule above made inconclusive (too few trainings, a bootstrap at
        # small n, no standard error, an erratum without a noise test): finalise keeps it as ``unadjusted``
        claim._overridden = own if (own in DECIDED and verdict == INCONCLUSIVE) else ""
        # the row's own test, kept for the family's correction (finalise); not serialised
        claim._test = test if verdict != NOT_COMPARABLE else None
        claim._p = pv
        claim._family = lab["family"]
        claim._available = lab["available"]
        self.claims.append(claim)
        return claim

    # ------------------------------------------------------------------------------------------- multiplicity
    def finalise(self) -> list[Claim]:
        """Apply the rules that need the whole notebook: Holm's correction over each family and the stability
        of every decision; then recombine the readings rows. Idempotent; called by :meth:`save` and
        :meth:`table`. Returns the rows that are tests (they carry a family).

        * Families: every row with a test (an interval with a standard error, not ``not comparable``) belongs
          to its notebook's family, which holds every test of the notebook; a non-central row may name a smaller
          family (a table or figure: ``family=``) and is corrected within it. Central rows are always corrected
          in the notebook's family. The family's size counts every test in it, decided or not; the readings of
          one ambiguous statement count once (an intersection-union test, :func:`_family_adjusted`).
        * A decision (reproduced, contradicted, consistency, erratum) stands only if its Holm-adjusted p is
          <= :data:`robeval.core.ledger.decisions.ALPHA` and an independent rerun at the same n would reach it again
          at the row's Holm level with probability >= :data:`robeval.core.ledger.decisions.STABLE` (the lower of the
          predictive closed form and the share of predictive resamples of the row's runs, :func:`_stability`); otherwise the row is inconclusive, ``unadjusted`` keeps its own verdict and ``decides`` says
          what failed and the n that would make it stable (``stable_n``).
        """
        self._mark_central()
        for c in self.claims:
            if getattr(c, "_final", None) != (c.verdict, c.decides):
                c._own = (c.verdict, c.decides)  # first finalise, or the row was changed since the last one
            c.verdict, c.decides = c._own
            c.unadjusted, c.family, c.family_size, c.p_adjusted = getattr(c, "_overridden", ""), "", None, None
            c.stability, c.stable_n, c.agreement = None, None, None
        tests = [c for c in self.claims if getattr(c, "_test", None) is not None and c._p is not None]
        families: dict[str, list[Claim]] = {self.notebook: tests}
        for c in tests:
            if c._family:
                families.setdefault(f"{self.notebook} / {c._family}", []).append(c)
        adjusted: dict[str, dict[int, tuple[float, int, int]]] = {}
        for name, rows in families.items():
            every = {c.id: c for c in self.claims} if name == self.notebook else None
            adjusted[name] = _family_adjusted(rows, every)
        alpha = _decisions.ALPHA
        for c in tests:
            name = f"{self.notebook} / {c._family}" if c._family else self.notebook
            p_adj, rank, m = adjusted[name][id(c)]
            c.family, c.family_size, c.p_adjusted = name, m, float(f"{p_adj:.4g}")
            if c.verdict not in DECIDED:
                continue
            level = alpha / (m - rank + 1)
            decision = decision_of(c._test, c.verdict)
            c.stability, c.stable_n = stability_of(c, decision, level)
            need = phrase_need(c.stable_n, c.n_runs, c.unit, c.about, getattr(c, "_available", None), c.evidence)
            need = f"stable at {need}" if need.startswith("≈") else f"stable: {need}"
            if p_adj > alpha:
                c.unadjusted, c.verdict = c.verdict, INCONCLUSIVE
                joint = getattr(c, "_jointly", None) if name == self.notebook else None
                together = (
                    f" (one test with the {joint[0] - 1} other reading(s) of its statement, an intersection-union "
                    f"test at the rank of its weakest reading, {joint[1]}: p = {joint[2]:.3g})"
                    if joint
                    else ""
                )
                c.decides = (
                    f"Holm: p = {c._p:.3g} (adjusted {p_adj:.3g}) fails the correction over the {m} tests of "
                    f"{name}{together}; {need}"
                )
            elif c.stability < _decisions.STABLE:
                c.unadjusted, c.verdict = c.verdict, INCONCLUSIVE
                how = "on resampled runs" if getattr(c, "_resampled", False) else "predictively"
                c.decides = (
                    f"fragile: a rerun at n = {c.n_runs} reaches '{c.unadjusted}' with probability "
                    f"{c.stability:.3f} ({how}; < {_decisions.STABLE}) at Holm level {level:.3g}; {need}"
                )
        reruns = larger_reruns(self.profile, self.notebook)
        for c in tests:
            over = overruled_by(c, reruns) if c.verdict in DECIDED else None
            if over is not None:
                other, row = over
                c.unadjusted, c.verdict = c.verdict, INCONCLUSIVE
                c.decides = (
                    f"a larger rerun does not reach it: the {other} profile's {row['n_runs']} {row.get('unit') or 'runs'}"
                    f" give '{row['verdict']}'" + (f" ({row['decides']})" if row.get("decides") else "")
                )
        rerun_agreement(self.notebook, tests, adjusted)
        for c in self.claims:
            if c.kind == "readings" and getattr(c, "_readings", None):
                self._combine(c)
        leave_flipped_open(self.claims, self.profile, self.notebook)  # rule 8: two reruns that flip it
        for c in self.claims:
            c._final = (c.verdict, c.decides)
        return tests


def _reading_root(c: Claim, by_id: dict) -> str:
    """The id of the outermost readings row that ``c`` is (through nested readings) one reading of."""
    root, seen = c.part_of, set()
    while root in by_id and by_id[root].part_of and root not in seen:
        seen.add(root)
        root = by_id[root].part_of
    return root


def _family_adjusted(rows: list, every: dict | None) -> dict:
    """Holm over one family: ``{id(row): (adjusted p, rank, family size)}``.

    In the notebook's family (``every``: the notebook's rows by id) the readings of one ambiguous statement count
    as one test: the statement is decided only when every reading reaches the same decision, an
    intersection-union test whose p is the largest of its readings' (no correction among them, and none of the
    family's other tests pays for the readings). Each reading is then judged at its statement's Holm level: its adjusted p is its own p times the
    number of hypotheses left at that rank, never below the adjusted p of the rank before. A table or figure
    family (``every`` None) keeps every row as a test of its own."""
    if every is None:
        adj = _decisions.holm_adjusted([c._p for c in rows])
        return {id(c): (a[0], a[1], len(rows)) for c, a in zip(rows, adj)}
    entries: dict[str, list] = {}
    for c in rows:  # a readings row carries no test itself; nested readings chain their part_of ids through them
        key = _reading_root(c, every) if c.part_of else f"\0{id(c)}"
        entries.setdefault(key, []).append(c)
    groups = list(entries.values())
    adj = _decisions.holm_adjusted([max(c._p for c in g) for g in groups])
    m = len(groups)
    before = {rank: a for a, rank in adj}  # the adjusted p at each rank
    out = {}
    for g, (a, rank) in zip(groups, adj):
        floor = before.get(rank - 1, 0.0)
        weakest = max(g, key=lambda c: c._p)
        for c in g:
            p = a if len(g) == 1 else min(1.0, max(floor, c._p * (m - rank + 1)))
            out[id(c)] = (p, rank, m)
            # how a reading was judged, for its ``decides``: with its statement's other readings
            c._jointly = (len(g), weakest.id, weakest._p) if len(g) > 1 else None
    return out


def check_ledger(ledger) -> Ledger:
    """``ledger`` if it is a :class:`Ledger`, else TypeError (for functions that record claims)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be a robeval.core.ledger.Ledger, got {type(ledger).__name__}.")
    return ledger
