"""What a time budget decides: runs per notebook that decide the most central claims within the budget.

:func:`plan` reads the saved ledgers of a profile (each central row's ``verdict``, ``n_runs`` and ``stable_n``,
the runs at which a rerun reaches the same decision with probability :data:`robeval.core.ledger.decisions.STABLE`),
each notebook's measured seconds (the ``measured ... s`` of its settings' ``estimate``, on 2 CPU cores) and the cost
model of ``plan_units.toml`` (how those seconds change with the notebook's run settings), and chooses the run
settings of every notebook so that as many central rows as possible meet their ``stable_n`` within the budget. The
search is exact: every combination of the run values some row asks for, per notebook, merged across notebooks on
the Pareto front of (rows decided, notebooks trimmed, seconds).

A central row counts only through a number: its own ``stable_n``, or, for a readings row (``part_of`` children),
the ``stable_n`` of every reading it combines (it is decided when all are; a reading already decided needs
nothing). A row without one (power-only "≈N runs if the effect is real", rows that need the gpu or paper
profile) is never counted. Run counts only grow; a notebook whose units name a ``trim`` (its [smoke] sizes) and
which decides no central row now may be trimmed to it when that buys more decided rows or is needed to fit.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from robeval.core.ledger.store import check_saved_ledger, read_ledger_json
from robeval.core.ledger.vocab import INCONCLUSIVE, NOT_COMPARABLE
from robeval.core.paths import results_dir
from robeval.core.profiles import RESERVED, experiments, load_table, resolve

UNITS_FILE = Path(__file__).with_name("plan_units.toml")
MEASURED_CORES = 2  # every [default] estimate was measured on 2 CPU cores
MAX_CORES = 1024  # the most CPU cores a plan is made for: one machine (the largest have a few hundred)
UNITS_PROFILE = "default"  # the profile whose measured minutes plan_units.toml's cost model is anchored at
MAX_COMBINATIONS = 100_000  # run combinations tried per notebook
_MEASURED = re.compile(r"^measured (?:[\d.]+ min \((?P<s>\d+(?:\.\d+)?) s\)|(?P<s2>\d+(?:\.\d+)?) s)")


def measured_seconds(estimate: str, where: str = "") -> float:
    """Seconds of a settings ``estimate`` that starts ``measured 6.1 min (367 s) ...`` or ``measured 14 s ...``;
    ValueError naming the fix otherwise (an estimate that was not measured cannot size a budget)."""
    m = _MEASURED.match(estimate or "")
    if not m:
        raise ValueError(
            f"{where}estimate {estimate[:60]!r}... does not start with 'measured <min> min (<s> s)' or 'measured "
            "<s> s': measure the notebook (make reproduce) and write its seconds there, or give measured_s in "
            "plan_units.toml."
        )
    return float(m.group("s") or m.group("s2"))


@dataclass(frozen=True)
class NotebookPlan:
    """One notebook's row of a :class:`Plan`. Minutes are on the planned machine (``slowdown`` and ``cores``
    applied); ``runs_now``/``runs``: run setting -> runs (empty for a notebook without run settings);
    ``decides``: ids of the central rows undecided now that the planned runs decide stably."""

    notebook: str
    experiment: str | None
    minutes_now: float
    minutes: float
    runs_now: dict
    runs: dict
    trimmed: bool
    central: int
    decided_now: int
    decides: tuple
    trim_changes: tuple = ()  # (key, now, planned) when trimmed
    decided_ids: tuple = ()  # the central rows decided now
    pipeline_check: str = ""  # the profile that decides a pipeline check's rows about models ("" for none)


@dataclass(frozen=True)
class Plan:
    """The allocation :func:`plan` chose: ``rows`` per notebook, ``minutes`` in all (overhead included) on the
    planned machine, ``decided_now``/``decided`` central rows of ``central``."""

    budget_min: float
    cores: int
    profile: str
    slowdown: float
    also: tuple
    overhead_min: float
    rows: tuple
    central: int
    decided_now: int
    decided: int
    minutes_now: float = field(default=0.0)
    minutes: float = field(default=0.0)

    def changes(self) -> list[dict]:
        """Settings the plan changes: ``{"file", "table", "key", "now", "planned"}`` per changed value."""
        out = []
        for r in self.rows:
            file = f"lib/robeval/core/settings/{r.experiment}.toml" if r.experiment else r.notebook
            pairs = r.trim_changes if r.trimmed else [(k, r.runs_now[k], r.runs[k]) for k in r.runs]
            out += [
                {"file": file, "table": self.profile, "key": k, "now": a, "planned": b} for k, a, b in pairs if a != b
            ]
        return out

    def table(self) -> str:
        """The plan as a markdown table (minutes on the planned machine; runs now → planned)."""
        head = (
            "| notebook | minutes (now → planned) | runs (now → planned) | central decided (now → planned) "
            "| sized to decide |\n|---|---:|---|---:|---|\n"
        )
        lines = []
        for r in self.rows:
            if r.trimmed:
                runs = "trimmed to its [smoke] sizes"
            else:
                runs = ", ".join(
                    f"{k} {r.runs_now[k]}" + (f" → {r.runs[k]}" if r.runs[k] != r.runs_now[k] else "") for k in r.runs
                )
            decides = ", ".join([*(f"`{i}`" for i in r.decided_ids), *(f"**`{i}`** (new)" for i in r.decides)])
            if r.pipeline_check:
                decides = f"{decides}; " if decides else ""
                decides += f"a pipeline check: its rows about models need the `{r.pipeline_check}` profile"
            runs = runs or ("—" if not r.pipeline_check else "pipeline check")
            lines.append(
                f"| {r.notebook} | {r.minutes_now:.1f} → {r.minutes:.1f} | {runs} | "
                f"{r.decided_now} → {r.decided_now + len(r.decides)} of {r.central} | {decides or '—'} |"
            )
        lines.append(f"| make reproduce's virtual environment | {self.overhead_min:.1f} | — | — | — |")
        lines.append(
            f"| **total** | **{self.minutes_now:.1f} → {self.minutes:.1f}** | | "
            f"**{self.decided_now} → {self.decided} of {self.central}** | |"
        )
        return head + "\n".join(lines) + "\n"

    def as_json(self) -> dict:
        """The plan as one JSON-able dict (the CLI's final line)."""
        return {
            "budget_min": self.budget_min,
            "cores": self.cores,
            "profile": self.profile,
            "slowdown": self.slowdown,
            "also": [list(a) for a in self.also],
            "minutes_now": round(self.minutes_now, 2),
            "minutes": round(self.minutes, 2),
            "central": self.central,
            "decided_now": self.decided_now,
            "decided": self.decided,
            "trimmed": [r.notebook for r in self.rows if r.trimmed],
            "decides": {r.notebook: list(r.decides) for r in self.rows if r.decides},
            "changes": self.changes(),
        }


def _positive(value, name: str, fix: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}; {fix}.")
    return float(value)


def _ledgers(folder: Path) -> list[dict]:
    if not folder.is_dir() or not any(folder.glob("*.json")):
        raise ValueError(
            f"no saved ledgers in {folder}: the plan reads them; run the notebooks first (make reproduce) or pass "
            "a folder of <notebook>.json ledgers."
        )
    return [check_saved_ledger(read_ledger_json(p), p) for p in sorted(folder.glob("*.json"))]


def _experiment_of() -> dict:
    return {load_table(e).get("meta", {}).get("notebook"): e for e in experiments()}


def _needs(row: dict, children: dict, keys_for) -> dict | None:
    """{run setting: runs} that decide ``row`` stably ({} when it is decided now); None when no number does."""
    if row["verdict"] not in (INCONCLUSIVE, NOT_COMPARABLE):
        return {}
    stable_n, kids = row.get("stable_n"), children.get(row["id"], [])
    if stable_n is not None:
        keys, now = keys_for(row["id"]), row.get("n_runs")
        if not keys or now is None or stable_n <= now:  # already at its stable n and still undecided
            return None
        return {k: int(stable_n) for k in keys}
    if not kids:
        return None
    out: dict = {}
    for kid in kids:
        need = _needs(kid, children, keys_for)
        if need is None:
            return None
        for k, v in need.items():
            out[k] = max(out.get(k, 0), v)
    return out or None  # every reading decided, the row not: they disagree, more runs do not settle it


class _Notebook:
    """The cost model of one notebook (see plan_units.toml) and its options."""

    def __init__(self, name: str, unit: dict, experiment: str | None, profile: str, cores: int):
        self.name, self.experiment, self.cores = name, experiment, cores
        table = load_table(experiment) if experiment else {}
        where = f"settings/{experiment}.toml [{profile}] "
        if "measured_s" in unit:
            self.measured = _positive(unit["measured_s"], f"{name}: measured_s", "give the measured seconds")
        elif experiment and "estimate" in table.get(profile, {}):
            self.measured = measured_seconds(table[profile]["estimate"], where)
        else:
            raise ValueError(
                f"{name}: no measured seconds (no settings [{profile}] estimate); add measured_s to its entry in "
                "plan_units.toml."
            )
        settings = resolve(experiment, profile) if experiment else {}
        self.runs = unit.get("runs", {})
        self.now = {k: int(spec.get("now", settings.get(k, 0))) for k, spec in self.runs.items()}
        bad = [k for k, v in self.now.items() if v < 1]
        if bad:
            raise ValueError(f"{name}: run settings {bad} have no current value; give now= in plan_units.toml.")
        self.fixed = float(unit.get("fixed_s", 0.0))
        weighted = sum(spec.get("weight", 1.0) * self.now[k] for k, spec in self.runs.items())
        share = (self.measured - self.fixed) / weighted if weighted else 0.0
        if self.runs and share <= 0:
            raise ValueError(f"{name}: fixed_s {self.fixed:g} is not below the measured {self.measured:g} s.")
        self.per_run = {k: share * spec.get("weight", 1.0) for k, spec in self.runs.items()}
        self.readings = [(p, list(keys)) for p, keys in unit.get("readings", [])]
        self.trim = unit.get("trim")
        self.trim_changes = ()
        if self.trim and experiment:
            smoke, now = resolve(experiment, "smoke").as_dict(), settings.as_dict()
            self.trim_changes = tuple(
                (k, now.get(k), v) for k, v in smoke.items() if k not in RESERVED and now.get(k) != v
            )

    def keys_for(self, row_id: str) -> list | None:
        for pattern, keys in self.readings:
            if fnmatch.fnmatchcase(row_id, pattern):
                return keys
        return list(self.runs) if len(self.runs) == 1 else None

    def seconds(self, runs: dict) -> float:
        """Seconds at ``runs`` on ``cores`` cores (the measured seconds at the current runs on 2)."""
        if not self.runs:
            return self.measured
        scale = MEASURED_CORES / self.cores
        return self.fixed + sum(
            self.per_run[k] * n * scale + self.runs[k].get("extra_s", 0.0) * max(0, n - self.now[k])
            for k, n in runs.items()
        )

    def options(self, needs: dict, decided_now: int) -> list[tuple]:
        """(seconds, decided ids, runs, trimmed) of every run combination some row asks for (and the trim)."""
        reachable = {i: n for i, n in needs.items() if n}
        # run counts only grow: a row already decided at fewer runs than now keeps today's count
        values = [
            sorted({self.now[k], *(n[k] for n in reachable.values() if k in n and n[k] > self.now[k])})
            for k in self.runs
        ]
        if math.prod(len(v) for v in values) > MAX_COMBINATIONS:
            raise ValueError(f"{self.name}: more than {MAX_COMBINATIONS} run combinations; give fewer run settings.")
        out = []
        for combo in itertools.product(*values):
            runs = dict(zip(self.runs, combo))
            gained = tuple(i for i, n in reachable.items() if all(runs.get(k, 0) >= v for k, v in n.items()))
            out.append((self.seconds(runs), gained, runs, False))
        if self.trim and decided_now == 0:
            out.append((float(self.trim["seconds"]), (), dict(self.now), True))
        return out


def _pareto(states: list) -> list:
    """States (gained, trims, seconds, choices) that no other beats on all three."""
    keep: list = []
    for s in sorted(states, key=lambda s: (-s[0], s[1], s[2])):
        if not any(k[0] >= s[0] and k[1] <= s[1] and k[2] <= s[2] + 1e-9 for k in keep):
            keep.append(s)
    return keep


def plan(
    budget_min: float,
    cores: int = MEASURED_CORES,
    profile: str = "default",
    slowdown: float = 1.0,
    *,
    also: tuple = (),
    claims_dir=None,
    units=None,
) -> Plan:
    """Runs per notebook that decide the most central rows of ``profile``'s ledgers in ``budget_min`` minutes.

    ``budget_min``: wall minutes of ``make reproduce`` (notebooks and virtual environment) on the planned machine;
    ``cores``: its CPU cores (run cells spread over them; fixed parts do not speed up); ``slowdown``: its minutes
    per measured minute (another machine of the same kind took 1.6–1.9x); ``also``: more ``(budget_min,
    slowdown)`` pairs the plan must fit too (e.g. ``((60, 1.75),)``). ``claims_dir`` (default
    ``results/<profile>/claims``) and ``units`` (default :data:`UNITS_FILE`) are for other ledgers and costs.
    Ties: fewer trimmed notebooks, then fewer minutes. ValueError when even the cheapest allocation does not fit.
    """
    from robeval.core.paths import check_profile

    check_profile(profile)
    if units is None and profile != UNITS_PROFILE:
        raise ValueError(
            f"robeval plan sizes the runs of the {UNITS_PROFILE} profile only: its cost model (plan_units.toml) is "
            f"anchored at the [{UNITS_PROFILE}] notebooks' measured minutes on {MEASURED_CORES} CPU cores, and the "
            f"{profile} profile's settings record no such minutes (grid core-hours, GPU estimates). Plan with "
            f"--profile {UNITS_PROFILE}, or pass a cost model of your own (plan(..., units=FILE) with measured_s per "
            "notebook)."
        )
    budget_min = _positive(budget_min, "budget_min", "pass the minutes you can spend, e.g. --budget-min 45")
    slowdown = _positive(slowdown, "slowdown", "pass 1.0 for the measuring machine, 1.75 for one 1.75x slower")
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be an integer >= 1, got {cores!r}; pass the CPU cores of the machine.")
    if cores > MAX_CORES:
        raise ValueError(
            f"cores must be at most {MAX_CORES} (the CPU cores of one machine), got {cores}: the plan spreads run "
            "cells over the cores, which beyond one machine's no notebook does; pass the CPU cores of the machine."
        )
    also = tuple((_positive(b, "also budget", "e.g. 60@1.75"), _positive(s, "also slowdown", "e.g. 60@1.75"))
                 for b, s in also)  # fmt: skip
    cap = min(b * 60 / s for b, s in ((budget_min, slowdown), *also))  # measured seconds
    spec = tomllib.loads(Path(units or UNITS_FILE).read_text(encoding="utf-8"))
    overhead = float(spec.get("overhead", {}).get("seconds", 0.0))
    ledgers = _ledgers(Path(claims_dir) if claims_dir else results_dir(profile) / "claims")
    exp_of = _experiment_of()
    books, per_book, extra = {}, {}, {}
    for ledger in ledgers:
        name = ledger["notebook"]
        book = _Notebook(name, spec.get("notebooks", {}).get(name, {}), exp_of.get(name), profile, cores)
        rows = ledger["claims"]
        children: dict = {}
        for r in rows:
            if r.get("part_of"):
                children.setdefault(r["part_of"], []).append(r)
        central = [r for r in rows if r.get("central")]
        needs = {r["id"]: _needs(r, children, book.keys_for) for r in central}
        decided_ids = tuple(i for i, n in needs.items() if n == {})
        books[name] = book
        per_book[name] = (len(central), len(decided_ids), book.options(needs, len(decided_ids)))
        extra[name] = (decided_ids, str(ledger.get("decided_by") or ""))
    cheapest = overhead + sum(min(o[0] for o in opts) for _, _, opts in per_book.values())
    if cheapest > cap + 1e-9:
        worst = max(((budget_min, slowdown), *also), key=lambda bs: cheapest * bs[1] - bs[0] * 60)
        need = math.ceil(cheapest / 60 * worst[1] * 10) / 10
        fix = (
            f"raise --budget-min to at least {need:g}"
            if worst == (budget_min, slowdown)
            else f"raise the --also budget {worst[0]:g}@{worst[1]:g} to at least {need:g}@{worst[1]:g} (or drop it)"
        )
        raise ValueError(
            f"a budget of {worst[0]:g} min at slowdown {worst[1]:g} holds {worst[0] / worst[1]:.1f} measured minutes, "
            f"less than the {cheapest / 60:.1f} make reproduce takes at the current runs (trimmed where the units "
            f"allow, virtual environment included); {fix} or run fewer "
            "notebooks (make reproduce NOTEBOOKS=...)."
        )
    states = [(0, 0, overhead, ())]
    for _, _, opts in per_book.values():
        states = _pareto(
            [(g + len(o[1]), t + o[3], s + o[0], (*c, o)) for g, t, s, c in states for o in opts if s + o[0] <= cap]
        )
    gained, _, seconds, chosen = min(states, key=lambda s: (-s[0], s[1], s[2]))
    out = []
    for (name, (n_central, decided, _)), (secs, gains, runs, trimmed) in zip(per_book.items(), chosen):
        book = books[name]
        out.append(
            NotebookPlan(
                name,
                book.experiment,
                book.seconds(book.now) * slowdown / 60,
                secs * slowdown / 60,
                dict(book.now),
                runs,
                trimmed,
                n_central,
                decided,
                gains,
                book.trim_changes,
                *extra[name],
            )  # fmt: skip
        )
    now_s = overhead + sum(books[n].seconds(books[n].now) for n in books)
    return Plan(
        budget_min, cores, profile, slowdown, also, overhead * slowdown / 60, tuple(out),
        sum(r.central for r in out), sum(r.decided_now for r in out), sum(r.decided_now for r in out) + gained,
        now_s * slowdown / 60, seconds * slowdown / 60,
    )  # fmt: skip


def plan_json(p: Plan) -> str:
    """The plan's final JSON line."""
    return json.dumps(p.as_json())


def parse_also(items) -> tuple:
    """``["60@1.75", ...]`` (the CLI's ``--also``) as ``((60.0, 1.75), ...)``; ValueError naming the form."""
    out = []
    for item in items:
        budget, _, slow = str(item).partition("@")
        try:
            out.append((float(budget), float(slow)))
        except ValueError:
            raise ValueError(
                f"--also {item!r} is not MIN@SLOWDOWN; write e.g. --also 60@1.75 (60 minutes on a 1.75x slower machine)."
            ) from None
    twice = [b for i, b in enumerate(out) if b in out[:i]]
    if twice:  # the same budget twice is a typo for another one more often than a wish
        raise ValueError(f"--also {twice[0][0]:g}@{twice[0][1]:g} is given twice; name each budget once.")
    return tuple(out)


_MARKED = re.compile(r"(<!-- plan:begin (?P<args>[^>]*?) -->\n)(?P<body>.*?)(<!-- plan:end -->)", re.S)


def render_marked(text: str, **kwargs) -> str:
    """``text`` with every ``<!-- plan:begin --budget-min 45 [--slowdown S] [--also MIN@S] -->`` … ``<!-- plan:end
    -->`` block replaced by :meth:`Plan.table` of those arguments (``kwargs`` go to :func:`plan`)."""

    def one(m) -> str:
        words = m.group("args").split()
        opts = {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}
        unknown = set(opts) - {"--budget-min", "--slowdown", "--also"}
        if "--budget-min" not in opts or unknown:
            raise ValueError(f"plan marker {m.group(0)[:60]!r}: write '<!-- plan:begin --budget-min 45 -->' "
                             "(optionally --slowdown S and --also MIN@S).")  # fmt: skip
        also = parse_also([words[i + 1] for i, w in enumerate(words[:-1]) if w == "--also"])
        p = plan(float(opts["--budget-min"]), slowdown=float(opts.get("--slowdown", 1.0)), also=also, **kwargs)
        return m.group(1) + p.table() + m.group(4)

    return _MARKED.sub(one, text)


def update_docs(path=None) -> Path:
    """Rewrite the plan tables of ``docs/running.md`` (or ``path``) from the committed ledgers (atomically)."""
    from robeval.core.io import atomic_write_text
    from robeval.core.paths import find_root

    path = Path(path) if path else Path(find_root() or ".") / "docs" / "running.md"
    return atomic_write_text(path, render_marked(path.read_text(encoding="utf-8")))
