"""The claims ledger: every reproduced number beside the paper's value, with a verdict.

A notebook records claims with :class:`Ledger`; ``make reproduce`` aggregates every notebook's ledger of a
profile into one Markdown report (``results/CLAIMS.md`` for the default profile).

Verdicts
--------
``reproduced`` / ``not reproduced``: decided by the claim's rule —
  * ``holds=True/False``: a qualitative statement checked by the notebook (e.g. "optimum at eps_train=0.007");
  * ``ci=(lo, hi)``: the paper value lies inside our confidence interval (widened by ``abs_tol`` if given);
  * ``abs_tol``: ``|reproduced − paper| ≤ abs_tol``; ``rel_tol``: ``≤ rel_tol · |paper|``.
``not comparable at this profile``: the profile scales the protocol down so far that agreement is not
  expected (``comparable_at`` does not list it); the numbers are still shown.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .io import atomic_write_json, atomic_write_text, read_json
from .paths import PROFILES, check_profile, results_dir

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_COMPARABLE = "not comparable at this profile"
PAPERS = {
    "MSCR": "Siedel et al. 2022 — class separation and MSCR",
    "MSD": "Mintun et al. 2021 — augmentation/corruption similarity, CIFAR-10-C-bar",
    "RealWorld": "Scher & Trügler — real-world robustness of individual predictions",
    "ACR": "ACR is a poor metric for randomized smoothing (ICML 2025)",
    "Foundation": "Data and environment",
}


@dataclass
class Claim:
    id: str
    paper: str
    source: str
    description: str
    paper_value: Any
    reproduced: Any
    ci: tuple[float, float] | None
    rule: str
    verdict: str
    profile: str
    notebook: str
    note: str = ""


def _num(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def judge(paper_value, reproduced, *, ci=None, abs_tol=None, rel_tol=None, holds=None) -> tuple[str, str]:
    """Return ``(verdict, rule text)`` for one claim (ignoring profile comparability)."""
    given = [x is not None for x in (abs_tol, rel_tol, holds)]
    if holds is not None:
        if any(given[:2]) or ci is not None:
            raise ValueError("A qualitative claim (holds=) takes no tolerance or CI.")
        return (REPRODUCED if bool(holds) else NOT_REPRODUCED), "qualitative"
    p, r = _num(paper_value), _num(reproduced)
    if p is None:
        raise ValueError(f"paper value {paper_value!r} is not a finite number; use holds= for qualitative claims.")
    if ci is not None:
        lo, hi = float(ci[0]), float(ci[1])
        if not lo <= hi:
            raise ValueError(f"ci must be (low, high) with low ≤ high, got {ci!r}.")
        pad = float(abs_tol or 0.0)
        rule = "paper value inside our 95% CI" + (f" ± {pad:g}" if pad else "")
        return (REPRODUCED if lo - pad <= p <= hi + pad else NOT_REPRODUCED), rule
    if r is None:
        return NOT_REPRODUCED, "reproduced value missing or not finite"
    if abs_tol is not None and rel_tol is not None:
        raise ValueError("Give either abs_tol or rel_tol, not both.")
    if abs_tol is not None:
        return (REPRODUCED if abs(r - p) <= abs_tol else NOT_REPRODUCED), f"|Δ| ≤ {abs_tol:g}"
    if rel_tol is not None:
        return (REPRODUCED if abs(r - p) <= rel_tol * abs(p) else NOT_REPRODUCED), f"|Δ| ≤ {rel_tol:.0%} of paper"
    raise ValueError("A numeric claim needs a rule: ci=, abs_tol= or rel_tol= (or holds= for qualitative).")


@dataclass
class Ledger:
    """The claims of one notebook run under one profile."""

    paper: str
    notebook: str
    profile: str
    claims: list[Claim] = field(default_factory=list)

    def __post_init__(self):
        check_profile(self.profile)
        if self.paper not in PAPERS:
            raise ValueError(f"Unknown paper {self.paper!r}; use one of {', '.join(PAPERS)}.")

    def add(self, id: str, source: str, description: str, *, paper=None, reproduced=None, ci=None,
            abs_tol=None, rel_tol=None, holds=None, comparable_at=("default", "paper"), note: str = "") -> Claim:
        """Record one claim and return it (with its verdict)."""
        if any(c.id == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} is recorded twice in {self.notebook}; ids must be unique.")
        bad = set(comparable_at) - set(PROFILES)
        if bad:
            raise ValueError(f"comparable_at has unknown profile(s) {sorted(bad)}; use {PROFILES}.")
        verdict, rule = judge(paper, reproduced, ci=ci, abs_tol=abs_tol, rel_tol=rel_tol, holds=holds)
        if holds is not None and reproduced is None:
            reproduced = bool(holds)
        if self.profile not in comparable_at:
            verdict = NOT_COMPARABLE
        claim = Claim(id=id, paper=self.paper, source=source, description=description, paper_value=paper,
                      reproduced=reproduced, ci=tuple(map(float, ci)) if ci is not None else None, rule=rule,
                      verdict=verdict, profile=self.profile, notebook=self.notebook, note=note)
        self.claims.append(claim)
        return claim

    @property
    def path(self):
        return results_dir(self.profile) / "claims" / f"{self.notebook}.json"

    def save(self):
        """Write the ledger atomically; returns the path."""
        return atomic_write_json(self.path, {"paper": self.paper, "notebook": self.notebook,
                                             "profile": self.profile, "claims": [asdict(c) for c in self.claims]})

    def table(self):
        import pandas as pd

        return pd.DataFrame([asdict(c) for c in self.claims],
                            columns=list(Claim.__dataclass_fields__)).drop(columns=["profile", "notebook", "paper"])


def check_ledger(ledger) -> Ledger:
    """``ledger`` if it is a :class:`Ledger`, else TypeError (for functions that record claims)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be a robeval.claims.Ledger, got {type(ledger).__name__}.")
    return ledger


def load_claims(profile: str):
    """Every saved claim of ``profile`` as a DataFrame (empty if none)."""
    import pandas as pd

    folder = results_dir(profile) / "claims"
    rows = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        rows.extend(read_json(path)["claims"])
    return pd.DataFrame(rows, columns=list(Claim.__dataclass_fields__))


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v).replace("|", "\\|")


def report(profile: str, path=None) -> str:
    """Aggregate all ledgers of ``profile`` into Markdown; write it (``results/CLAIMS.md`` for default,
    else ``<results_dir>/CLAIMS.md``) and return the text."""
    df = load_claims(profile)
    lines = [f"# Claims ledger — profile `{profile}`", "",
             "Generated by `make reproduce` from the notebooks' ledgers (`robeval.claims`). "
             "Verdicts: **reproduced**, **not reproduced**, or *not comparable at this profile* "
             "(the profile scales the protocol down; numbers shown for information).", ""]
    from .notebooks import notebook_paths

    missing = [p.stem for p in notebook_paths() if df.empty or p.stem not in set(df["notebook"])]
    if missing:
        lines += [f"Notebooks with no ledger under this profile yet (not run, or failed): {', '.join(missing)}.", ""]
    if df.empty:
        lines.append("No claims recorded yet for this profile.")
    else:
        lines += ["## Summary", "", "| paper | claims | reproduced | not reproduced | not comparable |",
                  "|---|---:|---:|---:|---:|"]
        for paper, g in df.groupby("paper", sort=False):
            counts = g["verdict"].value_counts()
            lines.append(f"| {PAPERS.get(paper, paper)} | {len(g)} | {counts.get(REPRODUCED, 0)} | "
                         f"{counts.get(NOT_REPRODUCED, 0)} | {counts.get(NOT_COMPARABLE, 0)} |")
        for paper, g in df.groupby("paper", sort=False):
            lines += ["", f"## {PAPERS.get(paper, paper)}", "",
                      "| id | source | claim | paper | reproduced | 95% CI | rule | verdict | notebook |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for c in g.itertuples():
                verdict = {REPRODUCED: "**reproduced**", NOT_REPRODUCED: "**not reproduced**"}.get(
                    c.verdict, f"*{c.verdict}*")
                desc = c.description + (f" ({c.note})" if c.note else "")
                lines.append(f"| {c.id} | {c.source} | {_fmt(desc)} | {_fmt(c.paper_value)} | "
                             f"{_fmt(c.reproduced)} | {_fmt(c.ci)} | {_fmt(c.rule)} | {verdict} | {c.notebook} |")
    text = "\n".join(lines) + "\n"
    if path is None:
        from .paths import RESULTS_DIR

        path = RESULTS_DIR / "CLAIMS.md" if profile == "default" else results_dir(profile) / "CLAIMS.md"
    atomic_write_text(path, text)
    return text
