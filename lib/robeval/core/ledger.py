"""The claims ledger: every statement of a paper that we test, beside our evidence, with a verdict.

A notebook records claims with :class:`Ledger`; ``make reproduce`` aggregates the ledgers of a profile into
one Markdown report (``results/CLAIMS.md`` for the default profile).

Verdicts
--------
``reproduced``
    our estimate, with its uncertainty from independent runs, agrees with the paper's value or statement,
    and the test could have failed: the interval is narrow enough to exclude the relevant alternative.
``contradicted``
    our evidence excludes the paper's value or statement at the same confidence.
``inconclusive``
    the profile's runs cannot decide; the row says how many runs (or which profile) would.
``not comparable``
    the protocol is scaled beyond comparability at this profile (the row says why); numbers are shown.
``consistency``
    a check of the authors' own artefacts against each other (printed tables vs published files, a
    theorem vs its closed form) that holds. Reported in its own column, never counted as reproduced.
``erratum``
    such a check that fails: the printed value differs from the authors' own data, or the paper is
    internally inconsistent.

Rules (one method each)
-----------------------
* :meth:`Ledger.value` — a number: *equivalence*. Reproduced when our two-sided CI lies inside
  ``paper ± margin`` (``margin`` = the smallest difference the paper draws conclusions from), contradicted
  when the CI lies outside it, inconclusive otherwise. A deterministic estimate (exact computation from data)
  has no interval: ``|ours − paper| ≤ margin``.
* :meth:`Ledger.comparison` — "A beats B" (and trends: "rises with ..."): reproduced when the CI of the
  paired difference (or of the rank correlation) excludes 0 on the claimed side, contradicted when it
  excludes 0 on the other side, inconclusive otherwise.
* :meth:`Ledger.fact` — a statement decided exactly on our data (no sampling error): holds or not.
* :meth:`Ledger.consistency` — the authors' artefacts against each other: ``consistency`` or ``erratum``.

Every row records its test (``rule``), confidence ``level``, number of independent runs ``n_runs``, and,
where an effect size is known, the ``power`` the test had; an inconclusive row says what would ``decide`` it.
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
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE, CONSISTENCY, ERRATUM)
KINDS = ("value", "comparison", "trend", "fact", "consistency")

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
    """(estimate, low, high, se, n, level, method) from a robeval.core.stats.Interval."""
    from robeval.core.stats import Interval

    if not isinstance(interval, Interval):
        raise TypeError(f"interval must be a robeval.core.stats.Interval, got {type(interval).__name__}.")
    if not math.isfinite(interval.estimate) or not interval.low <= interval.high:
        raise ValueError(f"the interval {interval} needs a finite estimate and low <= high.")
    return interval


@dataclass
class Ledger:
    """The claims of one notebook run under one profile."""

    paper: str
    notebook: str
    profile: str
    claims: list[Claim] = field(default_factory=list)
    index: list[dict] = field(default_factory=list)

    def __post_init__(self):
        check_profile(self.profile)
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

    # ------------------------------------------------------------------------------------------------- rules
    def value(
        self,
        id: str,
        source: str,
        description: str,
        *,
        paper,
        margin: float,
        interval=None,
        estimate=None,
        comparable_at=("default", "paper"),
        central: bool = False,
        note: str = "",
    ) -> Claim:
        """A number: does our estimate agree with the printed ``paper`` value within ``margin``?

        With ``interval`` (a :class:`robeval.core.stats.Interval` over independent runs): reproduced when the
        interval lies inside ``paper ± margin``, contradicted when it lies entirely outside, else
        inconclusive. With ``estimate`` (exact, deterministic): reproduced iff ``|estimate − paper| <= margin``.
        """
        p = _finite(paper, "paper")
        m = _finite(margin, "margin")
        if m < 0:
            raise ValueError(f"margin must be >= 0, got {margin!r}.")
        if (interval is None) == (estimate is None):
            raise ValueError("pass either interval= (a stochastic estimate) or estimate= (an exact one), not both.")
        if interval is None:
            est = _finite(estimate, "estimate")
            ok = abs(est - p) <= m
            return self._record(
                id,
                source,
                description,
                "value",
                p,
                est,
                None,
                None,
                m,
                None,
                f"exact computation: |ours − paper| ≤ {m:g}",
                None,
                REPRODUCED if ok else CONTRADICTED,
                "",
                comparable_at,
                central,
                note,
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
            decides = f"≈{n} runs (now {iv.n})" if n else "the paper profile"
        rule = f"equivalence: {iv.level:.0%} CI ({iv.method}) inside paper ± {m:g}"
        return self._record(
            id,
            source,
            description,
            "value",
            p,
            iv.estimate,
            (lo, hi),
            iv.level,
            m,
            iv.n,
            rule,
            power_to_confirm(m, iv.se, iv.level),
            verdict,
            decides,
            comparable_at,
            central,
            note,
        )

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
    ) -> Claim:
        """A directional statement: the paper says the quantity behind ``interval`` (a paired difference
        "A − B", or a rank correlation for a trend) is ``direction`` 0 (``">"`` or ``"<"``).

        Reproduced when the interval excludes 0 on that side, contradicted when it excludes 0 on the other
        side, inconclusive otherwise. ``effect`` (the paper's own effect size, if it reports one) gives the
        power the test had.
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
            id,
            source,
            description,
            kind,
            paper,
            iv.estimate,
            (iv.low, iv.high),
            iv.level,
            None,
            iv.n,
            rule,
            power,
            verdict,
            decides,
            comparable_at,
            central,
            note,
        )

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
    ) -> Claim:
        """A statement decided exactly on our data or closed forms (no sampling error): ``basis`` says why
        it is exact (e.g. "exhaustive search over all pairs", "closed form"). Reproduced or contradicted."""
        if not isinstance(holds, bool):
            holds = bool(holds)
        if not basis:
            raise ValueError("basis= must say why the statement is decided exactly (no sampling error).")
        return self._record(
            id,
            source,
            description,
            "fact",
            paper,
            estimate if estimate is not None else holds,
            None,
            None,
            None,
            None,
            f"exact: {basis}",
            None,
            REPRODUCED if holds else CONTRADICTED,
            "",
            comparable_at,
            central,
            note,
        )

    def consistency(
        self,
        id: str,
        source: str,
        description: str,
        *,
        holds: bool,
        check: str,
        paper=None,
        estimate=None,
        comparable_at=PROFILES,
        central: bool = False,
        note: str = "",
    ) -> Claim:
        """The authors' artefacts checked against each other (``check`` says how): ``consistency`` when it
        holds, ``erratum`` when the paper's printed value differs from its own data or contradicts itself."""
        return self._record(
            id,
            source,
            description,
            "consistency",
            paper,
            estimate,
            None,
            None,
            None,
            None,
            check,
            None,
            CONSISTENCY if bool(holds) else ERRATUM,
            "",
            comparable_at,
            central,
            note,
        )

    def _record(
        self,
        id,
        source,
        description,
        kind,
        paper_value,
        estimate,
        ci,
        level,
        margin,
        n_runs,
        rule,
        power,
        verdict,
        decides,
        comparable_at,
        central,
        note,
    ) -> Claim:
        if not isinstance(id, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", id):
            raise ValueError(f"claim id {id!r} must be a plain name (letters, digits, '_', '-', '.').")
        if any(c.id == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} is recorded twice in {self.notebook}; ids must be unique.")
        comparable_at = tuple(comparable_at)
        bad = set(comparable_at) - set(PROFILES)
        if bad:
            raise ValueError(f"comparable_at has unknown profile(s) {sorted(bad)}; use {PROFILES}.")
        if self.profile not in comparable_at and verdict not in (CONSISTENCY, ERRATUM):
            verdict = NOT_COMPARABLE
            decides = decides or f"the {' or '.join(comparable_at)} profile"
        claim = Claim(
            id=id,
            paper=self.paper,
            source=source,
            description=description,
            kind=kind,
            paper_value=_round(paper_value),
            estimate=_round(estimate),
            ci=None if ci is None else (_round(ci[0]), _round(ci[1])),
            level=level,
            margin=_round(margin),
            n_runs=n_runs,
            rule=rule,
            power=None if power is None else round(float(power), 3),
            verdict=verdict,
            decides=decides,
            central=bool(central),
            profile=self.profile,
            notebook=self.notebook,
            note=note,
        )
        self.claims.append(claim)
        return claim

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
        """Write the ledger (and the index it covers) atomically; returns the path."""
        self.check_coverage()
        return atomic_write_json(
            self.path,
            {
                "paper": self.paper,
                "notebook": self.notebook,
                "profile": self.profile,
                "claims": [asdict(c) for c in self.claims],
                "index": self.index,
            },
        )

    def table(self):
        """The claims as a DataFrame for display (text columns unabbreviated)."""
        import pandas as pd

        pd.set_option("display.max_colwidth", None)
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(Claim.__dataclass_fields__)).drop(
            columns=["profile", "notebook", "paper"]
        )


def check_ledger(ledger) -> Ledger:
    """``ledger`` if it is a :class:`Ledger`, else TypeError (for functions that record claims)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be a robeval.core.ledger.Ledger, got {type(ledger).__name__}.")
    return ledger


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
