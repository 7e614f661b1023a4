"""The claims ledger's vocabulary and its small rules: verdicts, evidence classes, units, noise bases, the
:class:`Claim` row, and the arithmetic every rule shares (rounding, p-values from intervals, Holm, the profiles a
row is comparable at, what would decide a row). :mod:`robeval.core.ledger` records and decides the rows; this module
holds what every part of it (and every reader of a saved ledger) shares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from robeval.core.ledger import decisions as _decisions
from robeval.core.paths import PROFILES
from robeval.core.validation import check_float_range, check_numbers, check_probability

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
NOT_COMPARABLE = "not comparable"
CONSISTENCY = "consistency"
ERRATUM = "erratum"
VERIFIED = "verified"
FAILED = "failed"
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE, CONSISTENCY, ERRATUM, VERIFIED, FAILED)
KINDS = ("value", "comparison", "trend", "fact", "consistency", "readings", "table")

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
    "base networks": True,  # independently trained networks, each adapted alike (batch-norm statistics per scheme)
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
TRAINING_UNITS = tuple(u for u, independent in UNITS.items() if independent)
# how many units of a kind exist in this world, where that is a fixed fact: a row never asks for more (a row may
# say its own with ``available=``, e.g. the ImageNet validation images of a released certification file)
UNIT_LIMITS = {
    "schemes": 512,  # the powerset of AugMix's nine base operations (MSD)
    "corruptions": 15,  # CIFAR-10-C's corruption types, the most of any benchmark here (C-bar has 10)
    "test images": 10_000,  # the CIFAR-10 test set
}


@dataclass(frozen=True)
class Need:
    """What would decide an inconclusive row: ``n`` units (None: no number does), phrased in the row's unit by
    :meth:`Ledger._record` once the unit is known (issue 45, item 5)."""

    n: int | None
    now: int | None
    suffix: str = ""
    fallback: str = ""

    def __add__(self, more: str) -> Need:
        return Need(self.n, self.now, self.suffix + more, self.fallback)


def phrase_need(n, now, unit: str, about: str, available=None, evidence: str = "") -> str:
    """``decides`` for a row that ``n`` of its units would decide: never more units than exist (``available``, else
        :data:`UNIT_LIMITS`), and for a claim about models the trainings it needs, not more test units of one model. A
        reanalysis never asks for more of the authors' units as if they were ours: its units are what their released
        files hold (``now``), and more of them come only from a replication that produces them, up to what exists
    (issue 60, item 6). ``n``, ``now`` and ``available`` are counts: None or a finite number >= 0 (TypeError for a
    boolean or text, ValueError for NaN or a negative count)."""
    for name, count in (("n", n), ("now", now), ("available", available)):
        _check_count(count, name)
    for name, value in (("unit", unit), ("about", about), ("evidence", evidence)):
        if not isinstance(value, str) or (name == "unit" and not value.strip()):
            raise TypeError(f"{name} must be text (e.g. unit {sorted(UNITS)[0]!r}), got {value!r:.60}.")
    n = 0 if n == 0 else n  # -0.0 is said as 0
    limit = available if available is not None else UNIT_LIMITS.get(unit)
    if about == MODELS and unit not in TRAINING_UNITS:
        return (
            f"independent trainings: the claim is about models, so more {unit} of the same models cannot decide it"
            + (f" (≈{n} {unit} would only narrow this interval)" if n else "")
        )
    if n is None:
        return f"no number of our {unit}" if evidence != REANALYSIS else f"no number of the authors' {unit}"
    if limit is not None and n > limit:
        return f"more {unit} than exist (≈{n} needed, {limit} exist): nothing this world holds decides it"
    if evidence == REANALYSIS and now is not None and n > now:
        return (
            f"more {unit} than the authors' released files hold (≈{n} needed, {now} there): only a replication that "
            "produces them decides it"
        )
    return f"≈{n} {unit} (now {now})"


def _check_count(count, name: str) -> None:
    """None or a finite number >= 0 (a count of units), else TypeError / ValueError naming ``name``."""
    if count is None:
        return
    if isinstance(count, (bool, np.bool_)) or not isinstance(count, Real):
        raise TypeError(f"{name} must be a count of units (a number >= 0, or None), got {count!r}.")
    if not math.isfinite(count) or count < 0:
        raise ValueError(f"{name} must be a finite count of units >= 0 (or None), got {count!r}.")


# what a claim is about (the row's ``about``); a claim about models is decided only over >= MIN_TRAININGS
# independent trainings, in both directions, whatever the evidence class
MODELS = "models"
ABOUT = {
    MODELS: "training methods or trained models (decided only over >= 3 independent trainings)",
    "one model": "one fixed model: its inputs, predictions, certifications or estimator",
    "data": "data, corruptions, transforms or distances, whatever model",
    "closed form": "formulas, theorems and identities",
    "the paper": "the paper's text, tables and released files against each other",
}
# what a pipeline check (a profile sized below deciding its trainings) still judges: claims that hold whatever model
SIZE_FREE = ("data", "closed form", "the paper")

# the noise an erratum must exceed (the row's ``noise_basis``)
ROUNDING = "print rounding (one run printed twice)"
RUN_SPREAD = "run-to-run spread (numbers from different runs)"
SAMPLING = "sampling error (the row's interval)"
EXACT = "none (exact: text, counts or closed forms)"
NOISE_BASES = (ROUNDING, RUN_SPREAD, SAMPLING, EXACT)

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
    p_value: float | None = None  # p of the row's decision (two-sided scale; robeval.core.ledger.decisions)
    unadjusted: str = ""  # the row's own verdict, when a rule changed it (Holm, stability, units, n, no se)
    part_of: str = ""  # the id of the readings row this row is one reading of (kept out of the tallies)
    about: str = ""  # what the claim is about (ABOUT): "models" needs >= 3 independent trainings
    family: str = ""  # the Holm family the row's test is corrected in ("" for exact rows: no sampling error)
    family_size: int | None = None  # tests in that family
    p_adjusted: float | None = None  # Holm-adjusted p in the family
    stability: float | None = None  # P(an independent rerun at the same n reaches the same decision)
    stable_n: int | None = None  # the n at which that probability reaches STABLE (None: no n does)
    noise: float | None = None  # the paper's own noise an erratum must exceed (consistency/value rows)
    noise_basis: str = ""  # what that noise is (NOISE_BASES)
    ambiguity: str = ""  # readings rows: the key of the ambiguity (AMBIGUITIES) whose readings it combines
    agreement: float | None = None  # P(a rerun with other seeds reaches the same verdict, its own rules included)
    depends: tuple = ()  # the ambiguities (AMBIGUITIES keys) the row's computation rests on (depends=)

    def __post_init__(self):
        check_vocabulary(self)


def check_vocabulary(row) -> None:
    """ValueError unless a row (a :class:`Claim` or a dict of one) uses only the ledger's vocabulary: its kind,
    evidence class, verdict (allowed for that class), unit, ``about`` and ``noise_basis``. TypeError for anything
    else (text, a list)."""
    if not isinstance(row, (dict, Claim)):
        raise TypeError(
            f"row must be a Claim or a dict of one (with id, kind, evidence, verdict), got {type(row).__name__} "
            f"{str(row)[:60]!r}."
        )
    get = row.get if isinstance(row, dict) else lambda k, d=None: getattr(row, k, d)
    rid = get("id", "?")
    kind = get("kind")
    for name in ("unit", "about", "noise_basis", "verdict"):  # a list would be unhashable: named, as text is
        if not isinstance(get(name, ""), (str, type(None))):
            raise TypeError(f"row {rid!r}: {name} must be text, got {type(get(name)).__name__} {get(name)!r:.60}.")
    if kind not in KINDS:
        raise ValueError(f"row {rid!r}: kind {kind!r} is not one of {KINDS}.")
    check_verdict(get("evidence"), get("verdict"), rid)
    unit = get("unit")
    if unit is not None and unit not in UNITS:
        raise ValueError(f"row {rid!r}: unit {unit!r} is not one of {sorted(UNITS)}; say what n counts.")
    about = get("about", "")
    if about and about not in ABOUT:
        raise ValueError(f"row {rid!r}: about {about!r} is not one of {sorted(ABOUT)}.")
    basis = get("noise_basis", "")
    if basis and basis not in NOISE_BASES:
        raise ValueError(f"row {rid!r}: noise_basis {basis!r} is not one of {NOISE_BASES}.")


def check_verdict(evidence: str, verdict: str, row: str = "") -> None:
    """ValueError unless ``verdict`` is allowed for the evidence class ``evidence`` (:data:`ALLOWED`)."""
    where = f"row {row!r}: " if row else ""
    if not isinstance(evidence, str) or evidence not in ALLOWED:
        raise ValueError(f"{where}evidence {evidence!r} is not one of {EVIDENCE}.")
    if verdict not in ALLOWED[evidence]:
        raise ValueError(
            f"{where}verdict {verdict!r} is not allowed for {evidence!r} rows "
            f"(allowed: {', '.join(ALLOWED[evidence])}); "
            "only replications reproduce or contradict, reanalyses and derivations are consistency/erratum."
        )


def round_value(x):
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


def finite_float(x, name: str) -> float:
    if isinstance(x, (bool, np.bool_, str, bytes)):  # text is never read as the number it spells
        raise TypeError(
            f"{name} must be a number, got {x!r}"
            + ("; pass float(...)." if not isinstance(x, (bool, np.bool_)) else ".")
        )
    check_float_range(x, name)  # an int beyond float range: named, not a bare OverflowError
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {x!r}.") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {x!r}; a failed computation must be recorded as inconclusive.")
    return v


def as_interval(interval):
    """``interval`` checked: a robeval.core.stats.Interval with a finite estimate, low <= high, a level in (0, 1),
    ``n`` a whole number >= 0, ``se`` >= 0 or NaN (unknown), and — unless it is a bootstrap interval, whose
    percentiles may exclude the point estimate — the estimate between its bounds (the verdict is read from the
    bounds, the row shows the estimate: the two must tell one story)."""
    from robeval.core.stats import Interval

    if not isinstance(interval, Interval):
        raise TypeError(f"interval must be a robeval.core.stats.Interval, got {type(interval).__name__}.")
    iv = interval
    for name in ("estimate", "low", "high", "se", "level"):
        value = getattr(iv, name)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
            raise TypeError(f"the interval's {name} must be a number, got {value!r}; build it with robeval.core.stats.")
    if isinstance(iv.n, (bool, np.bool_)) or not isinstance(iv.n, (Integral, np.integer)) or iv.n < 0:
        raise ValueError(f"the interval's n must be a whole number of runs or trials >= 0, got {iv.n!r}.")
    if not math.isfinite(iv.estimate) or not iv.low <= iv.high:
        raise ValueError(f"the interval {iv} needs a finite estimate and low <= high.")
    if not 0 < iv.level < 1:
        raise ValueError(f"the interval's level must be a fraction in (0, 1) (0.95, not 95), got {iv.level!r}.")
    if iv.se < 0:  # NaN (unknown) passes
        raise ValueError(f"the interval's se must be >= 0 or NaN (unknown), got {iv.se!r}.")
    if "bootstrap" not in iv.method and not iv.low <= iv.estimate <= iv.high:
        raise ValueError(
            f"the interval's estimate {iv.estimate!r} lies outside its bounds [{iv.low!r}, {iv.high!r}] "
            f"({iv.method}); the verdict is read from the bounds and the row would show the estimate: rebuild it "
            "with robeval.core.stats."
        )
    return interval


def check_notebook(paper: str, notebook) -> None:
    """ValueError unless ``notebook`` is a plain name (letters, digits, '_', '-', '.'; it names the ledger file)
    and, when it is one of the compendium's notebooks (a settings file's ``[meta] notebook``), a notebook of
    ``paper`` (that file's ``[meta] paper``)."""
    import re

    from robeval.core.profiles import experiments, load_table

    if not isinstance(notebook, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", notebook) or ".." in notebook:
        raise ValueError(
            f"notebook {notebook!r} must be a plain name (letters, digits, '_', '-', '.'), e.g. '01_mscr_2d'; it "
            "names the ledger file."
        )
    for exp in experiments():
        meta = load_table(exp).get("meta", {})
        if meta.get("notebook") == notebook and meta.get("paper") != paper:
            raise ValueError(
                f"notebook {notebook!r} reproduces the paper {meta.get('paper')!r} (settings/{exp}.toml), not "
                f"{paper!r}: a ledger's paper is its notebook's; pass paper={meta.get('paper')!r}."
            )


def check_claims(claims, ledger=None) -> None:
    """TypeError unless ``claims`` (a Ledger's starting rows) is a list of :class:`Claim`; with ``ledger`` (the
    :class:`robeval.core.ledger.Ledger` they start), ValueError naming the row unless each is a row that ledger
    could have recorded and saves as :func:`robeval.core.ledger.check_saved_ledger` reads it: a plain id, listed
    once, of the ledger's paper, notebook and profile, ``central`` True or False, a finite estimate."""
    import re

    if not isinstance(claims, list) or not all(isinstance(c, Claim) for c in claims):
        raise TypeError(f"claims must be a list of Claim rows (leave it out for an empty ledger), got {claims!r:.60}.")
    seen = set()
    for i, c in enumerate(claims if ledger is not None else ()):
        why = None
        if not isinstance(c.id, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,200}", c.id):
            why = f"its id {c.id!r:.60} is not a plain name (letters, digits, '_', '-', '.')"
        elif c.id in seen:
            why = f"its id {c.id!r} is listed twice"
        elif not isinstance(c.central, (bool, np.bool_)):
            why = f"central is {c.central!r:.40}, not True or False"
        elif isinstance(c.estimate, float) and not math.isfinite(c.estimate):
            why = f"its estimate is {c.estimate!r}; a failed computation is recorded as inconclusive"
        else:
            why = next(
                (
                    f"its {key} is {getattr(c, key)!r:.60}, not the ledger's {getattr(ledger, key)!r}"
                    for key in ("paper", "notebook", "profile")
                    if getattr(c, key) != getattr(ledger, key)
                ),
                None,
            )
        if why is not None:
            raise ValueError(f"claims: row {i} ({str(c.id)[:60]!r}): {why}; pass rows this ledger records.")
        seen.add(c.id)


def check_noise(noise, what: str) -> float | None:
    """``noise`` (the paper's own noise a row's erratum must exceed) as a float >= 0, or None; TypeError or
    ValueError naming ``what`` (the row) for text, NaN, infinity or a negative number (a gap is never "beyond" a
    NaN noise: the row would be an erratum against no noise at all)."""
    if noise is None:
        return None
    value = finite_float(noise, f"{what}: noise")
    if value < 0:
        raise ValueError(f"{what}: noise must be >= 0 (the paper's own noise, in its units), got {noise!r}.")
    return value


def check_central(central, what: str) -> bool:
    """``central`` as a bool: True or False only (a text "no" would be read as True), TypeError naming ``what``."""
    if not isinstance(central, (bool, np.bool_)):
        raise TypeError(f"{what}: central must be True or False, got {central!r}.")
    return bool(central)


def check_paper_value(value, what: str):
    """A row's paper value as JSON can hold it: text, a whole or finite number, True/False, None, or a list or
    mapping (text keys) of those; ValueError for NaN or infinity (saved as bare NaN, which is not JSON; a missing
    paper value is None), TypeError naming ``what`` for anything else."""
    if value is None or isinstance(value, (str, bool, np.bool_)):
        return value
    if isinstance(value, (Real, np.floating, np.integer)):
        check_float_range(value, f"{what}: paper")
        if not math.isfinite(value):
            raise ValueError(f"{what}: paper must be a finite number or text, got {value!r}; pass None when the paper "
                             "gives no value.")  # fmt: skip
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            check_paper_value(v, what)
        return value
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        for v in value.values():
            check_paper_value(v, what)
        return value
    raise TypeError(
        f"{what}: paper must be text, a number, True/False, None or a list or mapping of those, got "
        f"{type(value).__name__} {value!r:.60}."
    )


def invalid_small_n(iv) -> bool:
    return "bootstrap" in iv.method and iv.n < MIN_BOOTSTRAP_N


def p_value(iv) -> float | None:
    """Two-sided p-value of "the quantity is 0" from an interval: Student t with the interval's degrees of
    freedom for t-intervals (:func:`robeval.core.ledger.decisions.df_of`), the normal approximation with the
    interval's standard error otherwise; None without an se. TypeError unless ``iv`` is a
    robeval.core.stats.Interval; ValueError for one :func:`as_interval` refuses (low > high, a NaN estimate, ...),
    as :meth:`robeval.core.ledger.Ledger.value` does."""
    from robeval.core.stats import Interval

    if not isinstance(iv, Interval):
        raise TypeError(
            f"p_value takes a robeval.core.stats.Interval (estimate, low, high, se, n, level, method), got "
            f"{type(iv).__name__}; build one with robeval.core.stats (e.g. mean_interval)."
        )
    as_interval(iv)
    if not (iv.se == iv.se and iv.se > 0 and math.isfinite(iv.se)):
        return None
    return _decisions.p_decision(_decisions.test_of(iv, kind=_decisions.DIFFERENCE), _decisions.CLAIMED)


def holm(p_values, alpha: float) -> list[bool]:
    """Holm's step-down procedure: which of ``p_values`` are rejected at family-wise level ``alpha``.

    ``p_values`` is a sequence of numbers in [0, 1] and ``alpha`` a number in (0, 1): a NaN p-value (a test that
    could not run has no p-value; leave it out of the family), one outside [0, 1] or a boolean is refused, as is
    an ``alpha`` outside (0, 1). The project's ledgers correct with
    :func:`robeval.core.ledger.decisions.holm_adjusted` over the rows that carry a test, not with this function."""
    alpha = check_probability(alpha, "alpha")
    ps = check_numbers(p_values, "p_values", example="[0.01, 0.04]")
    if ps.ndim != 1:
        raise ValueError(f"p_values must be a one-dimensional sequence of p-values, got shape {ps.shape}.")
    if np.isnan(ps).any():
        raise ValueError(
            f"p_values holds NaN at position {int(np.isnan(ps).argmax())}; a test that could not run has no p-value: "
            "leave it out of the family (Holm would otherwise have to guess whether it is rejected)."
        )
    bad = (ps < 0) | (ps > 1)
    if bad.any():
        raise ValueError(f"p_values must lie in [0, 1], got {float(ps[bad][0])!r} at position {int(bad.argmax())}.")
    p_values = ps.tolist()
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


LABEL_KEYS = ("evidence", "unit", "survives", "mechanism", "scaled", "about", "full_scale", "family", "available",
           "depends")  # fmt: skip
DECIDED = (REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM)


def table_differences(cells: dict):
    """The cells of :meth:`Ledger.whole_table` as a DataFrame: ``cell, paper, ours, diff, se, z`` with ``z`` the
    standardised difference (ours − paper) / se, se the combined uncertainty of both (for a heatmap)."""
    import pandas as pd

    _check_table_cells(cells)
    rows = []
    for name, (pv, iv) in cells.items():
        se = float(iv.se)
        d = float(iv.estimate) - float(pv)
        rows.append({"cell": name, "paper": float(pv), "ours": float(iv.estimate), "diff": d, "se": se,
                     "z": d / se if se > 0 else math.nan})  # fmt: skip
    return pd.DataFrame(rows)


def _check_table_cells(cells: Any) -> None:
    """TypeError naming ``cells`` unless it is :meth:`Ledger.whole_table`'s ``{cell name: (paper value, interval)}``,
    each interval with an ``estimate`` and an ``se``."""
    what = "cells must be a dict {cell name: (paper value, interval with estimate and se)}, as Ledger.whole_table gives"
    if not isinstance(cells, dict):
        raise TypeError(f"{what}; got {type(cells).__name__} {str(cells)[:60]}.")
    for name, pair in cells.items():
        if not (
            isinstance(pair, (tuple, list)) and len(pair) == 2 and all(hasattr(pair[1], a) for a in ("estimate", "se"))
        ):
            raise TypeError(f"{what}; cells[{name!r}] is {str(pair)[:60]!r}.")
        pv, se = pair[0], pair[1].se
        if isinstance(pv, (bool, np.bool_)) or not isinstance(pv, Real) or not math.isfinite(pv):
            raise TypeError(f"{what}; the paper value of cells[{name!r}] is {pv!r:.40}, not a finite number.")
        if isinstance(se, (bool, np.bool_)) or not isinstance(se, Real) or not (se >= 0 and math.isfinite(se)):
            raise ValueError(f"{what}; the interval of cells[{name!r}] has se {se!r:.40}, not a finite number >= 0.")


def decision_of(test, verdict: str) -> str:
    """The decision a row's verdict makes under its test (robeval.core.ledger.decisions)."""
    if verdict in (REPRODUCED, CONSISTENCY, VERIFIED):
        return _decisions.EQUIVALENT if test.kind == _decisions.EQUIVALENCE else _decisions.CLAIMED
    if verdict in (CONTRADICTED, ERRATUM, FAILED):
        return _decisions.DIFFERENT if test.kind == _decisions.EQUIVALENCE else _decisions.OTHER
    return _decisions.NONE


def comparable_span(comparable_at) -> tuple[str, ...]:
    """The profiles a row is comparable at: ``comparable_at`` with every profile between two of them added.

    Profiles are ordered by scale (:data:`robeval.core.paths.PROFILES`: smoke, default, long, gpu, paper). A mechanism
    that survives the scaling of a smaller profile and holds at a larger one survives every scale between them,
    so a row written ``comparable_at=("default", "paper")`` is comparable at ``long`` and ``gpu`` too; ``("paper",)`` stays
    ``("paper",)``. A row whose mechanism needs more than the gpu profile's scale says so per row (``survives``,
    ``scaled``), as at every other profile. ValueError for an unknown profile name."""
    if isinstance(comparable_at, str):  # tuple("paper") would be its letters
        raise TypeError(f"comparable_at must be a tuple of profile names, got the text {comparable_at!r}; write "
                        f"({comparable_at!r},).")  # fmt: skip
    if not isinstance(comparable_at, (tuple, list, set, frozenset)) or not all(
        isinstance(p, str) for p in comparable_at
    ):
        raise TypeError(
            f"comparable_at must be a tuple of profile names, e.g. ('default', 'paper'), got "
            f"{type(comparable_at).__name__} {str(comparable_at)[:60]}."
        )
    names = tuple(comparable_at)
    bad = set(names) - set(PROFILES)
    if bad:
        raise ValueError(f"comparable_at has unknown profile(s) {sorted(bad)}; use {PROFILES}.")
    if not names:
        return ()
    at = sorted(PROFILES.index(p) for p in names)
    return PROFILES[at[0] : at[-1] + 1]


def is_scaled(profile: str, scaled_down: str) -> bool:
    """Whether a profile runs the paper's protocol scaled down: every profile but ``paper``, and ``paper`` when
    its settings' ``scaled_down`` does not start with "nothing" or "none". ValueError for a profile not in
    :data:`robeval.core.paths.PROFILES`; TypeError unless ``scaled_down`` is text or None."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}.")
    if scaled_down is not None and not isinstance(scaled_down, str):
        raise TypeError(
            f"scaled_down must be the settings' text saying what the profile scales down (or None), got "
            f"{type(scaled_down).__name__} {scaled_down!r:.60}."
        )
    text = (scaled_down or "").strip().lower()
    return not (profile == "paper" and (text.startswith("nothing") or text.startswith("none")))
