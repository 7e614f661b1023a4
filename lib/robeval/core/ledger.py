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
models (``about_models=True``) is decided only over >= 3 independent trainings.

Verdicts, and the classes that may carry them (:data:`ALLOWED`)
----------------------------------------------------------------
``reproduced`` / ``contradicted``
    replications only. For a number (:meth:`Ledger.value`): *equivalent within ± margin* — our CI lies inside
    (outside) ``paper ± margin``, the margin stated and defended on the row (``margin_basis``). For a statement
    (:meth:`Ledger.comparison`): the CI of the paired difference / trend excludes 0 on the claimed (other) side,
    after Holm's correction over the notebook's family of central comparisons.
``inconclusive``
    the evidence cannot decide; the row says what would (runs, a valid interval, the paper's intended reading).
``not comparable``
    the protocol is scaled beyond the mechanism the claim is about (the row says why); numbers are shown.
``consistency`` / ``erratum``
    reanalyses and derivations: the paper's statement holds on its own artefacts / closed forms, or not. An
    erratum must exceed the paper's own noise (``noise=`` of :meth:`Ledger.consistency`).
``verified`` / ``failed``
    environment checks.

Rules (one method each)
-----------------------
* :meth:`Ledger.value` — a number: equivalence within a stated margin (exact estimates: ``|ours − paper| ≤ margin``).
* :meth:`Ledger.comparison` — "A beats B" (and trends): the CI of the difference (rank correlation) excludes 0.
* :meth:`Ledger.fact` — a statement decided exactly on our data (no sampling error): holds or not.
* :meth:`Ledger.consistency` — the authors' artefacts against each other or against a closed form.
* :meth:`Ledger.readings` — a statement the paper leaves ambiguous, tested under every reasonable reading: it is
  decided only when all readings agree.
* :meth:`Ledger.unavailable` — a claim whose statistic this run cannot compute (its inputs do not exist, e.g. no
  easy training image): inconclusive, saying what is missing.

Every row records its test (``rule``), confidence ``level``, ``n_runs`` with its ``unit``, and, where an effect
size is known, the ``power`` the test had; an inconclusive row says what would ``decide`` it. A percentile
bootstrap needs at least :data:`MIN_BOOTSTRAP_N` independent units to decide anything.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from robeval.core.io import atomic_write_json, read_json
from robeval.core.paths import PROFILES, check_profile, results_dir

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
NOT_COMPARABLE = "not comparable"
CONSISTENCY = "consistency"
ERRATUM = "erratum"
VERIFIED = "verified"
FAILED = "failed"
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE, CONSISTENCY, ERRATUM, VERIFIED, FAILED)
KINDS = ("value", "comparison", "trend", "fact", "consistency", "readings")

REPLICATION = "replication"
SCALED = "scaled replication"
REANALYSIS = "reanalysis"
DERIVATION = "derivation"
ENVIRONMENT = "environment"
EVIDENCE = (REPLICATION, SCALED, REANALYSIS, DERIVATION, ENVIRONMENT)

ALLOWED = {
    REPLICATION: (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE),
    SCALED: (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE),
    REANALYSIS: (CONSISTENCY, ERRATUM, INCONCLUSIVE, NOT_COMPARABLE),
    DERIVATION: (CONSISTENCY, ERRATUM, INCONCLUSIVE, NOT_COMPARABLE),
    ENVIRONMENT: (VERIFIED, FAILED),
}

# what n counts -> whether each unit is an independent training of a model (the only unit that can decide a
# claim about training methods or models)
UNITS = {
    "training runs": True,  # networks trained from scratch with independent seeds
    "forest runs": True,  # random forests / 1-NN fitted on independent splits and noise
    "fine-tuning runs": True,  # independent fine-tunings of one pretrained network
    "Monte-Carlo repetitions": False,  # independent re-estimates with one fixed model
    "test images": False,  # test images of one model
    "test points": False,  # test points of one model
    "test hours": False,  # test samples (hours) of one fog model
    "schemes": False,  # augmentation schemes sharing one network
    "corruptions": False,  # corruption types evaluated on one model
    "grid points": False,  # points of a grid in a closed-form analysis
    "published models": False,  # the authors' released models, one per method
    "trials": False,  # simulation trials
    "none (exact)": False,  # no sampling: an exact computation, a closed form, a file compared with a file
}
MIN_BOOTSTRAP_N = 10  # a percentile bootstrap over fewer independent units has no useful coverage
MIN_TRAININGS = 3  # a claim about models/training methods needs at least this many independent trainings
HOLM_FAMILY = ("comparison", "trend")  # central rows of these kinds form each notebook's Holm family

PAPERS = {
    "mscr": "Siedel et al. 2022 — class separation and MSCR",
    "msd": "Mintun et al. 2021 — augmentation/corruption similarity, CIFAR-10-C-bar",
    "realworld": "Scher & Trügler — real-world robustness of individual predictions",
    "acr": "ACR is a poor metric for randomized smoothing (ICML 2025)",
    "core": "Data and environment",
}
_SIG = 6  # significant digits kept for recorded numbers (verdicts use the unrounded values)


@dataclass
class Claim:
    id: str
    paper: str
    source: str
    description: str
    kind: str
    paper_value: Any
    estimate: Any
    ci: tuple[float, float] | None
    level: float | None
    margin: float | None
    n_runs: int | None
    rule: str
    power: float | None
    verdict: str
    decides: str
    central: bool
    profile: str
    notebook: str
    note: str = ""
    evidence: str = REPLICATION
    unit: str | None = None
    scaling: str = ""  # what this row's experiment scales down (scaled replications)
    mechanism: str = ""  # why the mechanism the claim is about survives the scaling, or why not
    p_value: float | None = None  # two-sided p of a comparison (from its interval), for Holm's correction
    unadjusted: str = ""  # the verdict before Holm's correction, when the correction changed it
    part_of: str = ""  # the id of the readings row this row is one reading of (kept out of the tallies)

    def __post_init__(self):
        check_verdict(self.evidence, self.verdict)
        if self.unit is not None and self.unit not in UNITS:
            raise ValueError(f"unit {self.unit!r} is not one of {sorted(UNITS)}; say what n counts.")


def check_verdict(evidence: str, verdict: str) -> None:
    """ValueError unless ``verdict`` is allowed for the evidence class ``evidence`` (:data:`ALLOWED`)."""
    if evidence not in ALLOWED:
        raise ValueError(f"evidence {evidence!r} is not one of {EVIDENCE}.")
    if verdict not in ALLOWED[evidence]:
        raise ValueError(
            f"verdict {verdict!r} is not allowed for {evidence!r} rows (allowed: {', '.join(ALLOWED[evidence])}); "
            "only replications reproduce or contradict, reanalyses and derivations are consistency/erratum."
        )


def _round(x):
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, (int, float)) or hasattr(x, "item"):
        try:
            v = float(x)
        except (TypeError, ValueError):
            return x
        if not math.isfinite(v):
            return v
        if isinstance(x, int) or (hasattr(x, "dtype") and x.dtype.kind in "iu"):
            return int(v)
        return float(f"{v:.{_SIG}g}")
    return x


def _finite(x, name: str) -> float:
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a number, got {x!r}.")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {x!r}.") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {x!r}; a failed computation must be recorded as inconclusive.")
    return v


def _interval(interval):
    """``interval`` checked: a robeval.core.stats.Interval with a finite estimate and low <= high."""
    from robeval.core.stats import Interval

    if not isinstance(interval, Interval):
        raise TypeError(f"interval must be a robeval.core.stats.Interval, got {type(interval).__name__}.")
    if not math.isfinite(interval.estimate) or not interval.low <= interval.high:
        raise ValueError(f"the interval {interval} needs a finite estimate and low <= high.")
    return interval


def _invalid_small_n(iv) -> bool:
    return "bootstrap" in iv.method and iv.n < MIN_BOOTSTRAP_N


def p_value(iv) -> float | None:
    """Two-sided p-value of "the quantity is 0" from an interval: Student t with n − 1 degrees of freedom for
    t-intervals, the normal approximation with the interval's standard error otherwise; None without an se."""
    from scipy import stats as st

    if not (iv.se == iv.se and iv.se > 0 and math.isfinite(iv.se)):
        return None
    z = abs(iv.estimate) / iv.se
    if "t-interval" in iv.method and iv.n >= 2:
        return float(2 * st.t.sf(z, iv.n - 1))
    return float(2 * st.norm.sf(z))


def holm(p_values, alpha: float) -> list[bool]:
    """Holm's step-down procedure: which of ``p_values`` are rejected at family-wise level ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


_LABELS = ("evidence", "unit", "survives", "mechanism", "scaled", "about_models", "full_scale")


@dataclass
class Ledger:
    """The claims of one notebook run under one profile.

    ``scaling``: what this profile scales down relative to the paper's protocol ("" at the paper's scale; set by
    :func:`robeval.core.notebooks.setup` from the settings' ``scaled_down``). Replication rows recorded under a
    scaling become ``scaled replication`` rows carrying it. ``mechanism``: why the mechanisms the notebook's
    claims are about survive that scaling (the settings' ``mechanism``); a row's own ``mechanism=`` replaces it.
    ``survives``: False when no mechanism survives this run at all — a dry run (``ROBEVAL_DRY_RUN=1``, every loop
    cut short to exercise the code paths; :func:`robeval.core.notebooks.setup` passes ``not settings.dry_run``).
    Every row but the environment checks is then recorded ``not comparable``, whatever its numbers, with
    ``mechanism`` (required) as the reason: such a ledger holds no evidence.

    Every record method takes the row's labels as keywords: ``evidence`` (one of :data:`EVIDENCE`, required),
    ``unit`` (what n counts, :data:`UNITS`; required with an interval), ``survives`` (bool: does the mechanism
    the claim is about survive this profile's scaling; default True), ``mechanism`` (why, or why not),
    ``scaled`` (what this row scales beyond the profile's scaling, e.g. "48 augmentation samples instead of
    100k"), ``full_scale`` (this row's computation is not touched by the profile's scaling, e.g. an exact
    statistic of the whole dataset: it stays a ``replication``), ``about_models`` (the claim is about training methods or models: decided only over >= 3 independent
    trainings).
    """

    paper: str
    notebook: str
    profile: str
    claims: list[Claim] = field(default_factory=list)
    index: list[dict] = field(default_factory=list)
    scaling: str = ""
    mechanism: str = ""
    survives: bool = True

    def __post_init__(self):
        check_profile(self.profile)
        if not isinstance(self.survives, bool):
            raise TypeError(f"survives must be True or False, got {self.survives!r}.")
        if not self.survives and not str(self.mechanism or "").strip():
            raise ValueError(
                "a ledger whose run is no evidence (survives=False, e.g. a dry run) needs mechanism= saying why; "
                "set `mechanism` in the profile's settings table (e.g. [dry_run])."
            )
        if self.paper not in PAPERS:
            raise ValueError(f"Unknown paper {self.paper!r}; use one of {', '.join(PAPERS)}.")
        if (
            not isinstance(self.notebook, str)
            or not re.fullmatch(r"[A-Za-z0-9_.-]+", self.notebook)
            or ".." in self.notebook
        ):
            raise ValueError(
                f"notebook {self.notebook!r} must be a plain name (letters, digits, '_', '-', '.'), "
                "e.g. '01_mscr_2d'; it names the ledger file."
            )
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
        **labels,
    ) -> Claim:
        """A number: is our estimate *equivalent* to the printed ``paper`` value within ``± margin``?

        ``margin_basis`` defends the margin (e.g. "the gap to the nearest column the paper compares", "the
        printed rounding"); required with an interval. With ``interval`` (a :class:`robeval.core.stats.Interval`
        over independent runs): reproduced when the interval lies inside ``paper ± margin``, contradicted when
        it lies entirely outside, else inconclusive. With ``estimate`` (exact, deterministic): reproduced iff
        ``|estimate − paper| <= margin``.
        """
        p = _finite(paper, "paper")
        m = _finite(margin, "margin")
        if m < 0:
            raise ValueError(f"margin must be >= 0, got {margin!r}.")
        if (interval is None) == (estimate is None):
            raise ValueError("pass either interval= (a stochastic estimate) or estimate= (an exact one), not both.")
        basis = f" ({margin_basis})" if margin_basis else ""
        if interval is None:
            est = _finite(estimate, "estimate")
            ok = abs(est - p) <= m
            return self._record(
                id, source, description, "value", p, est, None, None, m, None,
                f"exact computation: |ours − paper| ≤ {m:g}{basis}", None,
                REPRODUCED if ok else CONTRADICTED, "", comparable_at, central, note, labels,
            )  # fmt: skip
        if not margin_basis:
            raise ValueError(
                f"{id}: a value row with an interval needs margin_basis= saying why ± {m:g} is the margin "
                "(e.g. the smallest difference the paper draws conclusions from, or the paper's own CI)."
            )
        from robeval.core.stats import power_to_confirm, runs_needed

        iv = _interval(interval)
        lo, hi = iv.low, iv.high
        if p - m <= lo and hi <= p + m:
            verdict, decides = REPRODUCED, ""
        elif hi < p - m or lo > p + m:
            verdict, decides = CONTRADICTED, ""
        else:
            verdict = INCONCLUSIVE
            gap = abs(iv.estimate - p)
            target = (m - gap) if gap < m else (gap - m)
            n = runs_needed(iv, target) if target > 0 else None
            if n:
                decides = f"≈{n} runs (now {iv.n})"
            elif target > 0 and iv.floor_se > 0:
                decides = "no number of our runs: the published value's own uncertainty is too wide for the margin"
            else:
                decides = "the paper profile"
        rule = f"equivalence: {iv.level:.0%} CI ({iv.method}) inside paper ± {m:g}{basis}"
        return self._record(
            id, source, description, "value", p, iv.estimate, (lo, hi), iv.level, m, iv.n, rule,
            power_to_confirm(m, iv.se, iv.level), verdict, decides, comparable_at, central, note, labels,
            interval=iv,
        )  # fmt: skip

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
        power the test had. Central comparisons of a notebook are Holm-corrected together on :meth:`save`.
        """
        from robeval.core.stats import power_to_detect, runs_needed

        if direction not in (">", "<"):
            raise ValueError(f"direction must be '>' or '<', got {direction!r}.")
        if kind not in ("comparison", "trend"):
            raise ValueError(f"kind must be 'comparison' or 'trend', got {kind!r}.")
        iv = _interval(interval)
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
            decides = f"≈{n} runs if the effect is real (now {iv.n})" if n else "cannot be decided: estimate ≈ 0"
        what = "rank correlation" if kind == "trend" else "difference"
        rule = f"{iv.level:.0%} CI of the {what} ({iv.method}) excludes 0, claimed {direction} 0"
        power = power_to_detect(effect, iv.se, iv.level) if effect is not None else None
        return self._record(
            id, source, description, kind, paper, iv.estimate, (iv.low, iv.high), iv.level, None, iv.n, rule,
            power, verdict, decides, comparable_at, central, note, labels, interval=iv,
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
        if not isinstance(holds, bool):
            holds = bool(holds)
        if not basis:
            raise ValueError("basis= must say why the statement is decided exactly (no sampling error).")
        return self._record(
            id, source, description, "fact", paper, estimate if estimate is not None else holds, None, None,
            None, None, f"exact: {basis}", None, REPRODUCED if holds else CONTRADICTED, "", comparable_at,
            central, note, labels,
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
        noise: float | None = None,
        comparable_at=PROFILES,
        central: bool = False,
        note: str = "",
        **labels,
    ) -> Claim:
        """The authors' artefacts checked against each other or a closed form (``check`` says how):
        ``consistency`` when the statement holds, ``erratum`` when the printed value differs from the authors'
        own data or the paper contradicts itself. ``evidence`` is ``reanalysis`` or ``derivation``.

        One standard of charity for errata: pass ``discrepancy`` (printed − recomputed, in the paper's units)
        and ``noise`` (the paper's own uncertainty or printed rounding for that number) instead of ``holds``;
        it is an erratum only when ``|discrepancy| > noise``.
        """
        if discrepancy is not None or noise is not None:
            if holds is not None:
                raise ValueError("pass holds= or discrepancy= with noise=, not both.")
            d = _finite(discrepancy, "discrepancy")
            tol = _finite(noise, "noise")
            holds = abs(d) <= tol
            check = f"{check}; erratum only beyond the paper's own noise: |{d:.4g}| vs {tol:.4g}"
            estimate = d if estimate is None else estimate
        elif holds is None:
            raise ValueError("consistency needs holds= (or discrepancy= and noise=).")
        labels.setdefault("evidence", REANALYSIS)
        return self._record(
            id, source, description, "consistency", paper, estimate, None, None, None, None, check, None,
            CONSISTENCY if bool(holds) else ERRATUM, "", comparable_at, central, note, labels,
        )  # fmt: skip

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

    def readings(
        self,
        id: str,
        source: str,
        description: str,
        *,
        parts,
        ambiguity: str,
        central: bool = False,
        note: str = "",
    ) -> Claim:
        """A statement the paper leaves ambiguous (``ambiguity`` names what is unstated), decided only when
        every reasonable reading agrees: ``parts`` are the rows already recorded, one per reading (their ids,
        or the Claims). The combined row takes their common verdict; when the readings disagree it is
        inconclusive and names the ambiguity — a contradiction under one of our own choices only is none. The
        parts are marked ``part_of`` = ``id`` and left out of the verdict tallies (the combined row counts)."""
        parts = [p if isinstance(p, Claim) else self.get(p) for p in parts]
        if len(parts) < 2:
            raise ValueError("readings needs at least two recorded rows, one per reading.")
        if not ambiguity:
            raise ValueError("readings needs ambiguity= naming what the paper leaves open.")
        evidence = {p.evidence for p in parts}
        units = {p.unit for p in parts}
        if len(evidence) != 1:
            raise ValueError(f"the readings of {id} must share one evidence class, got {sorted(evidence)}.")
        verdicts = {p.verdict for p in parts}
        verdict = verdicts.pop() if len(verdicts) == 1 else INCONCLUSIVE
        decides = "" if verdict != INCONCLUSIVE else f"the paper's intended reading ({ambiguity})"
        if verdict == NOT_COMPARABLE:
            decides = parts[0].decides
        estimate = "; ".join(f"{p.id}: {_round(p.estimate)} ({p.verdict})" for p in parts)
        claim = Claim(
            id=self._check_id(id), paper=self.paper, source=source, description=description, kind="readings",
            paper_value=parts[0].paper_value, estimate=estimate, ci=None, level=None, margin=None,
            n_runs=min((p.n_runs for p in parts if p.n_runs is not None), default=None),
            rule=f"every reading must agree ({len(parts)} readings: {ambiguity})", power=None, verdict=verdict,
            decides=decides, central=bool(central), profile=self.profile, notebook=self.notebook, note=note,
            evidence=evidence.pop(), unit=units.pop() if len(units) == 1 else None,
            scaling=parts[0].scaling, mechanism=parts[0].mechanism,
        )  # fmt: skip
        for p in parts:
            p.part_of = id
        self.claims.append(claim)
        return claim

    def get(self, id: str) -> Claim:
        """The recorded row ``id`` (KeyError naming the recorded ids if there is none)."""
        for c in self.claims:
            if c.id == id:
                return c
        raise KeyError(f"{self.notebook} has no claim {id!r}; recorded: {[c.id for c in self.claims][:20]}")

    def _check_id(self, id) -> str:
        if not isinstance(id, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", id):
            raise ValueError(f"claim id {id!r} must be a plain name (letters, digits, '_', '-', '.').")
        if any(c.id == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} is recorded twice in {self.notebook}; ids must be unique.")
        return id

    def _labels(self, id: str, labels: dict, n_runs, interval) -> dict:
        bad = set(labels) - set(_LABELS)
        if bad:
            raise TypeError(f"{id}: unknown keyword(s) {sorted(bad)}; row labels are {_LABELS}.")
        evidence = labels.get("evidence")
        if evidence is None:
            raise TypeError(
                f"{id}: evidence= is required: one of {EVIDENCE} (what the verdict rests on; see robeval.core.ledger)."
            )
        if evidence not in EVIDENCE:
            raise ValueError(f"{id}: evidence {evidence!r} is not one of {EVIDENCE}.")
        unit = labels.get("unit")
        if unit is not None and unit not in UNITS:
            raise ValueError(f"{id}: unit {unit!r} is not one of {sorted(UNITS)}.")
        if unit is None and (n_runs is not None or interval is not None):
            raise TypeError(f"{id}: unit= is required with an interval: what do its n = {n_runs} units count?")
        if unit is None:
            unit = "none (exact)"
        full_scale = labels.get("full_scale", False)
        if not isinstance(full_scale, bool):
            raise TypeError(f"{id}: full_scale= must be True or False, got {full_scale!r}.")
        survives = labels.get("survives", True)
        if not isinstance(survives, bool):
            raise TypeError(f"{id}: survives= must be True or False, got {survives!r}.")
        about_models = labels.get("about_models", False)
        if not isinstance(about_models, bool):
            raise TypeError(f"{id}: about_models= must be True or False, got {about_models!r}.")
        return dict(
            evidence=evidence,
            unit=unit,
            survives=survives,
            mechanism=str(labels.get("mechanism", "") or ""),
            scaled=str(labels.get("scaled", "") or ""),
            about_models=about_models,
            full_scale=full_scale,
        )

    def _record(
        self, id, source, description, kind, paper_value, estimate, ci, level, margin, n_runs, rule, power,
        verdict, decides, comparable_at, central, note, labels, interval=None,
    ) -> Claim:  # fmt: skip
        id = self._check_id(id)
        lab = self._labels(id, labels, n_runs, interval)
        comparable_at = tuple(comparable_at)
        bad = set(comparable_at) - set(PROFILES)
        if bad:
            raise ValueError(f"comparable_at has unknown profile(s) {sorted(bad)}; use {PROFILES}.")
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
            if lab["about_models"] and verdict in (REPRODUCED, CONTRADICTED):
                independent = UNITS.get(lab["unit"], False) and (n_runs or 0) >= MIN_TRAININGS
                if not independent:
                    verdict = INCONCLUSIVE
                    decides = f"≥ {MIN_TRAININGS} independent trainings (this interval is over {n_runs} {lab['unit']})"
        elif evidence in (REANALYSIS, DERIVATION):
            if self.profile not in comparable_at and verdict not in (CONSISTENCY, ERRATUM):
                verdict = NOT_COMPARABLE
                decides = decides or f"the {' or '.join(comparable_at)} profile"
            verdict = {REPRODUCED: CONSISTENCY, CONTRADICTED: ERRATUM}.get(verdict, verdict)
            if lab["about_models"] and verdict == CONSISTENCY and not UNITS.get(lab["unit"], False):
                verdict = INCONCLUSIVE
                decides = f"≥ {MIN_TRAININGS} independent trainings per method (the files hold one model each)"
        else:  # environment
            verdict = {REPRODUCED: VERIFIED, CONSISTENCY: VERIFIED, CONTRADICTED: FAILED, ERRATUM: FAILED}.get(
                verdict, verdict
            )
        if (
            interval is not None
            and _invalid_small_n(interval)
            and verdict in (REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM)
        ):
            verdict = INCONCLUSIVE
            decides = f"an interval valid at n = {interval.n} (a percentile bootstrap needs ≥ {MIN_BOOTSTRAP_N})"
        if not self.survives and evidence != ENVIRONMENT:
            # a run that is no evidence (a dry run): the numbers are shown, no row carries a verdict
            verdict, mechanism = NOT_COMPARABLE, self.mechanism
            decides = f"a real run of the {self.profile} profile (this run is no evidence: see mechanism)"
        pv = p_value(interval) if interval is not None and kind in HOLM_FAMILY else None
        claim = Claim(
            id=id, paper=self.paper, source=source, description=description, kind=kind,
            paper_value=_round(paper_value), estimate=_round(estimate),
            ci=None if ci is None else (_round(ci[0]), _round(ci[1])), level=level, margin=_round(margin),
            n_runs=n_runs, rule=rule, power=None if power is None else round(float(power), 3), verdict=verdict,
            decides=decides, central=bool(central), profile=self.profile, notebook=self.notebook, note=note,
            evidence=evidence, unit=lab["unit"], scaling=scaling, mechanism=mechanism,
            p_value=None if pv is None else float(f"{pv:.4g}"),
        )  # fmt: skip
        self.claims.append(claim)
        return claim

    # ------------------------------------------------------------------------------------------- multiplicity
    def adjust(self) -> list[Claim]:
        """Holm's correction over this notebook's family of central comparisons (kinds ``comparison`` and
        ``trend`` that are tests: not ``not comparable``, with a p-value). A decided row whose Holm-adjusted
        test fails becomes inconclusive (``unadjusted`` keeps the raw verdict). Idempotent; called by
        :meth:`save` and :meth:`table`. Returns the family."""
        fam = [
            c
            for c in self.claims
            if c.central
            and c.kind in HOLM_FAMILY
            and c.p_value is not None
            and (c.unadjusted or c.verdict) != NOT_COMPARABLE
        ]
        if not fam:
            return fam
        for c in fam:  # undo a previous adjustment
            if c.unadjusted:
                c.verdict, c.unadjusted = c.unadjusted, ""
                c.decides = c.decides.split(" | Holm:")[0] if " | Holm:" in c.decides else ""
        levels = {c.level for c in fam}
        alpha = 1 - min(levels)
        keep = holm([c.p_value for c in fam], alpha)
        for c, ok in zip(fam, keep):
            if not ok and c.verdict in (REPRODUCED, CONTRADICTED):
                c.unadjusted = c.verdict
                c.verdict = INCONCLUSIVE
                c.decides = f"{c.decides} | Holm: p = {c.p_value:.3g} fails the correction over {len(fam)} central comparisons".lstrip(
                    " |"
                )
        return fam

    def cover(self, index) -> None:
        """Record the part of the paper's claims index that this notebook covers: entries
        ``{"source", "statement", "claims": [id patterns], "reason": why none tests it}``. On :meth:`save`,
        every pattern must match a recorded claim and every recorded claim must be matched by an entry."""
        for e in index:
            if not isinstance(e, dict) or not {"source", "statement"} <= set(e):
                raise ValueError(f"claims index entries need 'source' and 'statement', got {e!r}.")
            if not e.get("claims") and not e.get("reason"):
                raise ValueError(f"index entry {e['source']!r} names no claims and gives no reason why none tests it.")
        self.index = [dict(e) for e in index]

    def check_coverage(self) -> None:
        """ValueError if the index and the recorded claims do not match (see :meth:`cover`)."""
        from fnmatch import fnmatchcase

        if not self.index:
            return
        ids = [c.id for c in self.claims]
        dead = [p for e in self.index for p in e.get("claims", []) if not any(fnmatchcase(i, p) for i in ids)]
        stray = [i for i in ids if not any(fnmatchcase(i, p) for e in self.index for p in e.get("claims", []))]
        if dead or stray:
            raise ValueError(
                f"{self.notebook}: claims index and ledger disagree: patterns matching no claim {dead}; "
                f"claims in no index entry {stray}."
            )

    @property
    def path(self):
        import os
        from pathlib import Path

        # robeval.core.notebooks.verify rebuilds ledgers into a scratch folder
        folder = os.environ.get("ROBEVAL_LEDGER_DIR")
        return (Path(folder) if folder else results_dir(self.profile) / "claims") / f"{self.notebook}.json"

    def save(self):
        """Apply Holm's correction, check coverage and write the ledger (and its index) atomically; returns
        the path."""
        self.adjust()
        self.check_coverage()
        return atomic_write_json(
            self.path,
            {
                "paper": self.paper,
                "notebook": self.notebook,
                "profile": self.profile,
                "scaling": self.scaling,
                "mechanism": self.mechanism,
                "survives": self.survives,
                "claims": [asdict(c) for c in self.claims],
                "index": self.index,
            },
        )

    def table(self):
        """The claims as a DataFrame for display (text columns unabbreviated), after Holm's correction."""
        import pandas as pd

        self.adjust()
        pd.set_option("display.max_colwidth", None)
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(Claim.__dataclass_fields__)).drop(
            columns=["profile", "notebook", "paper"]
        )


def check_ledger(ledger) -> Ledger:
    """``ledger`` if it is a :class:`Ledger`, else TypeError (for functions that record claims)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be a robeval.core.ledger.Ledger, got {type(ledger).__name__}.")
    return ledger


def is_scaled(profile: str, scaled_down: str) -> bool:
    """Whether a profile runs the paper's protocol scaled down: every profile but ``paper``, and ``paper`` when
    its settings' ``scaled_down`` does not start with "nothing" or "none"."""
    text = (scaled_down or "").strip().lower()
    return not (profile == "paper" and (text.startswith("nothing") or text.startswith("none")))


def load_claims(profile: str):
    """Every saved claim of ``profile`` as a DataFrame (empty if none)."""
    import pandas as pd

    rows = [c for ledger in load_ledgers(profile) for c in ledger["claims"]]
    return pd.DataFrame(rows, columns=list(Claim.__dataclass_fields__))


def load_ledgers(profile: str) -> list[dict]:
    """Every saved ledger of ``profile`` (dicts with paper, notebook, profile, claims, index), by notebook."""
    folder = results_dir(profile) / "claims"
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        d = read_json(path)
        d.setdefault("index", [])
        out.append(d)
    return out
