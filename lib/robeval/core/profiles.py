"""Profiles: one place where ``smoke`` / ``default`` / ``paper`` resolve to concrete settings.

Each experiment has one TOML file ``robeval/settings/<experiment>.toml``::

    [meta]      title = "...", notebook = "01_mscr_2d"
    [common]    settings shared by all profiles
    [smoke]     overrides for CI (≤ 3 min per notebook on 2 cores)
    [default]   overrides for ``make reproduce`` on a laptop CPU
    [paper]     the published protocol

``ROBEVAL_DRY_RUN=1`` (see :func:`dry_run`) turns the ``paper`` profile into a *dry run*: the experiment's
``[dry_run]`` table is applied on top of ``[paper]``. It cuts every loop short (a few training steps, tiny
certification budgets, a few dozen images) and keeps the rest of the paper profile (architectures, full
CIFAR-10 loading, schedules, result files, ledger rows); results go to ``build/dry_run/``. A CPU-only end-to-end
check of the paper code paths before anyone rents GPUs for them.

Reserved string keys in a profile table: ``estimate`` (honest wall-time estimate, naming the hardware)
and ``scaled_down`` (what differs from the paper's protocol).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

import tomllib

from robeval.core.paths import DRY_RUN_ENV, DRY_RUN_PROFILES, PROFILES, check_profile, dry_run

if TYPE_CHECKING:
    import pandas

RESERVED = ("estimate", "scaled_down", "mechanism")
DRY_RUN_TABLE = "dry_run"


class Settings(Mapping):
    """Immutable, attribute-accessible settings of one experiment under one profile."""

    def __init__(
        self, experiment: str, profile: str, values: dict[str, Any], meta: dict[str, Any], dry_run: bool = False
    ):
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "dry_run", bool(dry_run))  # the paper profile cut short (ROBEVAL_DRY_RUN=1)
        object.__setattr__(self, "experiment", experiment)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "meta", dict(meta))

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(
                f"Experiment {self.experiment!r} has no setting {key!r}; known: {', '.join(sorted(self._values))}"
            ) from None

    def __setattr__(self, key, value):
        raise AttributeError("Settings are immutable; pass overrides to robeval.core.profiles.resolve().")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        dry = ", dry run" if self.dry_run else ""
        return f"Settings({self.experiment!r}, {self.profile!r}{dry}: {body})"


def experiments() -> list[str]:
    """Names of all experiments that have a settings file."""
    root = resources.files("robeval.core") / "settings"
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".toml"))


def load_table(experiment: str) -> dict[str, Any]:
    """The raw TOML table of ``experiment``: one of :func:`experiments` (a name, never a path: ValueError)."""
    if not isinstance(experiment, str):
        raise TypeError(f"experiment must be a name such as 'mscr_2d', got {type(experiment).__name__} {experiment!r}.")
    path = resources.files("robeval.core") / "settings" / f"{experiment}.toml"
    if experiment not in experiments() or not path.is_file():
        raise ValueError(f"Unknown experiment {experiment!r}; known experiments: {', '.join(experiments())}.")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _coerce(key: str, value: Any, reference: Any, experiment: str) -> Any:
    if reference is None or isinstance(value, type(reference)):
        return value
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:  # np.int64(3) is the int 3
        return _coerce(key, value.item(), reference, experiment)
    if isinstance(reference, bool) or isinstance(value, bool):
        raise ValueError(f"{experiment}: setting {key!r} must be a bool, got {value!r}.")
    if isinstance(reference, float) and isinstance(value, int):
        return float(value)
    if isinstance(reference, list) and isinstance(value, tuple):
        return list(value)
    raise ValueError(
        f"{experiment}: setting {key!r} must be of type {type(reference).__name__} "
        f"(like {reference!r}), got {value!r} of type {type(value).__name__}."
    )


# ------------------------------------------------------------------------------------------- validators
_CMP = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside brackets and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [x.strip() for x in out + [cur] if x.strip()]


def check_value(value: Any, spec: Any, name: str, *, allow_large: bool = False) -> Any:
    """Check one setting against its validator ``spec`` from the ``[validate]`` table; returns the value.

    A spec is a list of allowed values (``["linf", "l2"]``) or a string: a type — ``int``, ``float``, ``bool``,
    ``str``, ``list[<spec>]`` (each element checked), ``choice(a, b, ...)`` — optionally followed by bounds
    (``"int >= 1"``, ``"float > 0, < 1"``) and a size cap ``max N`` (``"int >= 1, max 10000000"``): a value above
    it is almost surely a typo that would run for days, so it raises unless ``allow_large``. A list's bounds after
    the ``]`` are on its length, and ``distinct`` there refuses a repeated entry (``"list[int >= 0] >= 1,
    distinct"``: seeds, grid axes). TypeError for a wrong type, ValueError for a value out of range.
    """
    if isinstance(spec, list):
        if value not in spec:
            raise ValueError(f"setting {name!r} must be one of {spec}, got {value!r}.")
        return value
    spec = str(spec).strip()
    head, _, rest = spec.partition(" ")
    if spec.startswith("list["):
        inner, tail = spec[5:].rsplit("]", 1)
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"setting {name!r} must be a list ({spec}), got {value!r}.")
        for i, v in enumerate(value):
            check_value(v, inner, f"{name}[{i}]", allow_large=allow_large)
        conds = _split_top(tail)
        if "distinct" in conds:  # a grid axis or a list of seeds: a repeated entry would run (or count) twice
            conds.remove("distinct")
            seen = []
            for v in value:
                if v in seen:
                    raise ValueError(f"setting {name!r} lists {v!r} twice; pass each value once.")
                seen.append(v)
        if conds:
            check_value(len(value), "int " + ", ".join(conds), f"{name} (length)")
        return value
    if spec.startswith("choice("):
        options = [o.strip() for o in spec[7:].rstrip(")").split(",")]
        if str(value) not in options:
            raise ValueError(f"setting {name!r} must be one of {options}, got {value!r}.")
        return value
    kinds = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}
    if head not in kinds:
        raise ValueError(f"bad validator {spec!r} for {name!r} in a settings file.")
    if isinstance(value, bool) != (head == "bool") or not isinstance(value, kinds[head]):
        raise TypeError(f"setting {name!r} must be {head} ({spec}), got {value!r} of type {type(value).__name__}.")
    if head == "float" and not math.isfinite(value):
        raise ValueError(f"setting {name!r} must be finite, got {value!r}.")
    for cond in _split_top(rest):
        if cond.startswith("max "):
            cap = float(cond[4:])
            if value > cap and not allow_large:
                raise ValueError(
                    f"setting {name!r} = {value!r} exceeds its size cap {cond[4:].strip()}: at that size the run "
                    "would take days or more (the paper profile's value is far below it). Check for a typo, or "
                    "pass allow_large=True to resolve() to run it anyway."
                )
            continue
        op = next((o for o in (">=", "<=", ">", "<") if cond.startswith(o)), None)
        if op is None:
            raise ValueError(f"bad validator {spec!r} for {name!r} in a settings file.")
        bound = cond[len(op) :].strip()  # an integer bound compares exactly (2**63 is not below float(2**63 - 1))
        if not _CMP[op](value, int(bound) if re.fullmatch(r"-?\d+", bound) else float(bound)):
            raise ValueError(f"setting {name!r} must be {spec.replace(head, '').strip()}, got {value!r}.")
    return value


def validators(experiment: str) -> dict[str, Any]:
    """The ``[validate]`` table of ``experiment``: one spec per setting (see :func:`check_value`)."""
    return dict(load_table(experiment).get("validate", {}))


def known_settings(experiment: str) -> set[str]:
    """Every setting name of ``experiment`` under any profile (without the reserved keys)."""
    table = load_table(experiment)
    names = set(table.get("common", {}))
    for other in PROFILES:
        names |= set(table.get(other, {}))
    return names - set(RESERVED)


def resolve(experiment: str, profile: str, *, allow_large: bool = False, **overrides: Any) -> Settings:
    """Concrete settings of ``experiment`` under ``profile`` with ``overrides`` applied.

    Overrides whose value is ``None`` are ignored, so a notebook can pass its papermill parameters
    straight through. Unknown keys and values of the wrong type raise ``ValueError``, and so do sizes above
    their ``max`` cap in the ``[validate]`` table (e.g. ``n_samples=10**15``) unless ``allow_large=True``. Under
    ``paper`` with :func:`dry_run` on, the experiment's ``[dry_run]`` table is applied after ``[paper]`` (before
    ``overrides``); an experiment without one raises ``ValueError``.
    """
    if not isinstance(allow_large, bool):
        raise TypeError(f"allow_large must be True or False, got {allow_large!r}.")
    check_profile(profile)
    table = load_table(experiment)
    if not defines(experiment, profile):
        raise ValueError(
            f"{experiment} has no [{profile}] table: the {profile} profile is defined for "
            f"{', '.join(e for e in experiments() if defines(e, profile)) or 'no experiment yet'}. Run this one with "
            f"--profile default or paper, or add a [{profile}] table to settings/{experiment}.toml."
        )
    values: dict[str, Any] = dict(table.get("common", {}))
    values.update(table.get(profile, {}))
    if profile in DRY_RUN_PROFILES and dry_run():
        if DRY_RUN_TABLE not in table:
            raise ValueError(
                f"{experiment} has no [{DRY_RUN_TABLE}] table, so its paper profile cannot run as a dry run; "
                f"unset {DRY_RUN_ENV} or add the table to settings/{experiment}.toml."
            )
        extra = table[DRY_RUN_TABLE]
        unknown = sorted(set(extra) - set(values) - set(RESERVED))
        for other in PROFILES:
            unknown = [k for k in unknown if k not in table.get(other, {})]
        if unknown:
            raise ValueError(f"settings/{experiment}.toml: [{DRY_RUN_TABLE}] sets unknown settings {unknown}.")
        values.update(extra)
    known = set(values)
    for other in PROFILES:
        known |= set(table.get(other, {}))
    for key, value in overrides.items():
        if value is None:
            continue
        if key in RESERVED or key not in known:
            raise ValueError(
                f"{experiment}: unknown setting {key!r}. Settings you can override: "
                f"{', '.join(sorted(k for k in known if k not in RESERVED))}."
            )
        reference = values.get(key)
        values[key] = _coerce(key, value, reference, experiment)
    specs = table.get("validate", {})
    for key, spec in specs.items():
        if key in values:
            try:
                check_value(values[key], spec, key, allow_large=allow_large)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{experiment}: {exc}") from None
    return Settings(
        experiment, profile, values, table.get("meta", {}), dry_run=profile in DRY_RUN_PROFILES and dry_run()
    )


OPTIONAL_PROFILES = ("long", "gpu")  # defined only by the experiments whose settings have a table for them


def defines(experiment: str, profile: str) -> bool:
    """Whether ``experiment`` runs under ``profile``: smoke, default and paper always; an optional profile
    (:data:`OPTIONAL_PROFILES`: ``long`` and ``gpu``) only where ``settings/<experiment>.toml`` has its table."""
    check_profile(profile)
    return profile not in OPTIONAL_PROFILES or profile in load_table(experiment)


def describe(settings: Settings, file=None) -> None:
    """Print the resolved settings, what the profile scales down, and the time estimate, to ``file`` (an open text
    file; None: standard output; TypeError otherwise, e.g. for a file name)."""
    import sys

    if not isinstance(settings, Settings):
        raise TypeError(
            f"settings must be resolved settings (resolve(experiment, profile)), got {type(settings).__name__}."
        )
    if file is not None and not callable(getattr(file, "write", None)):
        raise TypeError(
            f"file must be an open text file (or None for standard output), got {type(file).__name__} {file!r:.60}; "
            "to write to a file by name: with open(name, 'w') as fh: describe(settings, file=fh)."
        )
    out = file or sys.stdout
    title = settings.meta.get("title", settings.experiment)
    dry = " — DRY RUN (every loop cut short; results in build/dry_run)" if settings.dry_run else ""
    print(f"{title} — profile '{settings.profile}'{dry}", file=out)
    if "estimate" in settings:
        print(f"  estimated time: {settings['estimate']}", file=out)
    if "scaled_down" in settings:
        print(f"  scaled down:    {settings['scaled_down']}", file=out)
    if "mechanism" in settings:
        print(f"  mechanism:      {settings['mechanism']}", file=out)
    for key, value in settings.items():
        if key not in RESERVED:
            print(f"  {key} = {value!r}", file=out)


def overview() -> pandas.DataFrame:
    """Every experiment's settings under every profile (one row per experiment × setting; an optional profile
    the experiment does not define shows "—")."""
    import pandas as pd

    rows = []
    for exp in experiments():
        resolved = {p: resolve(exp, p) for p in PROFILES if defines(exp, p)}
        keys = list(dict.fromkeys(k for p in resolved for k in resolved[p]))
        for key in keys:
            values = {p: resolved[p].as_dict().get(key) if p in resolved else "—" for p in PROFILES}
            rows.append({"experiment": exp, "setting": key, **values})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------ the table of profiles
# What a profile is for and what it needs; its times come from the experiments' `estimate` strings and whether it
# ran from the committed ledgers (profile_table), so that the README, the rerun page and docs/running.md cannot
# disagree (issue 47, item 5).
PROFILE_PURPOSE = {
    "smoke": (
        "CI's regression test: the whole pipeline on tiny sizes (a few images, runs and epochs); every replication "
        "row *not comparable*",
        "2 CPU cores",
    ),
    "default": (
        "a laptop CPU: real data and decisive tests, scaled down where each notebook states (the CIFAR-10 subset "
        "of 5000/1000 images, small CNNs, 2–24 runs instead of 10–1200)",
        "2 CPU cores",
    ),
    "long": (
        "a scaled replication of the image notebooks on the CPUs we have: the `default` profile's CIFAR-10 subset, "
        "ResNets trained for hours, run in resumable chunks of at most 2.5 h (`benchmarks/cpu_chunks.py`, docs/running.md)",
        "2 CPU cores, in chunks",
    ),
    "gpu": (
        "the image notebooks only, sized for one GPU: ResNets on the `default` profile's CIFAR-10 subset, 10 runs "
        "or seeds per variant; needs a CUDA GPU (H100/H200 class) with 16 CPU cores and torch built for CUDA",
        "one H100/H200",
    ),
    "paper": (
        "the published protocol, same code; notebooks 02, 03, 04 and 09 need GPUs and full CIFAR-10",
        "2 CPU cores; GPU notebooks in H200-hours",
    ),
}
# measured once for the whole command (the notebooks' own times are in their [default] estimates)
REPRODUCE_WITH_VENV = (
    "`make reproduce` with its virtual environment from a fresh clone: **44.8 min** (2685 s) on 2026-11-28 at b77874b, "
    "the cores idle but for the run, on a 2-core Intel Xeon (AVX-512); the same notebooks at their former sizes took "
    "60.3 min on a slower machine of the same kind (1.07-1.16x these minutes for 01, 03 and 05) and 44.6 min on a "
    "faster one (2026-11-27)"
)
PROFILES_START = "<!-- profiles:start (generated from the settings by `robeval report`; do not edit) -->"
PROFILES_END = "<!-- profiles:end -->"

_SECONDS = re.compile(r"measured (?:[\d.]+ min \((\d+) s\)|(\d+) s)")
_COST = (
    re.compile(r"~?[\d.,]+ H200-hours"),
    re.compile(r"[\d.,]+ core-hours"),
    re.compile(r"(?:measured |estimate: )~?[\d.]+ (?:h|min|s)\b"),
)


def notebook_cost(experiment: str, profile: str) -> str:
    """The headline cost of ``experiment`` under ``profile`` read from its ``estimate``: H200-hours, else
    core-hours, else the measured or estimated minutes or seconds ("" when it states none). ValueError for a
    profile not in :data:`robeval.core.paths.PROFILES`."""
    check_profile(profile)
    text = str(load_table(experiment).get(profile, {}).get("estimate", ""))
    for pattern in _COST:
        m = pattern.search(text)
        if m:
            return m.group().replace("measured ", "").replace("estimate: ", "")
    return ""


def measured_seconds(experiment: str, profile: str = "default") -> int | None:
    """The measured seconds of ``experiment``'s notebook under ``profile`` (its ``estimate``: "measured 6.1 min
    (367 s)" or "measured 14 s"), or None when it states no measurement. ValueError for an unknown profile."""
    check_profile(profile)
    m = _SECONDS.search(str(load_table(experiment).get(profile, {}).get("estimate", "")))
    return int(m.group(1) or m.group(2)) if m else None


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def profile_table(executed: Mapping[str, list[str]] | None = None) -> str:
    """The Markdown table of the profiles: the command, what it scales down, its time on named hardware and
    whether it ran here. ``executed``: per profile the notebooks with a committed ledger (default: read from
    ``results/<profile>/claims``)."""
    from robeval.core.paths import RESULTS_DIR

    if executed is not None and not isinstance(executed, Mapping):
        raise TypeError(f"executed must map a profile to its notebooks (or be None), got {type(executed).__name__}.")
    by_nb = {str(load_table(e).get("meta", {}).get("notebook", e)): e for e in experiments()}
    order = sorted(by_nb)
    if executed is None:
        executed = {p: sorted(f.stem for f in (RESULTS_DIR / p / "claims").glob("*.json")) for p in PROFILES}
    rows = [
        "| profile | command | what it scales down | time (hardware) | executed here |",
        "|---|---|---|---|---|",
    ]
    for profile in PROFILES:
        purpose, hardware = PROFILE_PURPOSE[profile]
        defined = [nb for nb in order if defines(by_nb[nb], profile)]
        ran = [nb for nb in defined if nb in executed.get(profile, [])]
        if profile == "default":
            secs = {nb[:2]: measured_seconds(by_nb[nb]) for nb in defined}
            total = sum(s for s in secs.values() if s)
            per = ", ".join(f"{k} {_minutes(s)}" for k, s in secs.items() if s)
            time = f"**measured {_minutes(total)}** ({total} s) on {hardware} for the {len(defined)} notebooks ({per}); {REPRODUCE_WITH_VENV}"
        elif profile == "gpu":
            mins = {nb[:2]: notebook_cost(by_nb[nb], profile) for nb in defined}
            total = sum(float(re.sub(r"[^\d.]", "", v)) for v in mins.values() if v)
            per = ", ".join(f"{k} {v}" for k, v in mins.items())
            time = f"**estimated ~{total:.0f} min** on {hardware} for {', '.join(mins)} ({per}): extrapolated from units measured on an H200, not yet measured"
        elif profile == "smoke":
            time = f"≤ 3 min per notebook on {hardware} (CI's budget)"
        elif profile == "long":
            per = ", ".join(f"{nb[:2]} {notebook_cost(by_nb[nb], profile)}" for nb in defined)
            time = f"per notebook ({hardware}): {per}"
        else:
            per = ", ".join(f"{nb[:2]} {notebook_cost(by_nb[nb], profile)}" for nb in defined)
            time = f"per notebook ({hardware}): {per}"
        if profile == "smoke":
            status = "in CI only (`make test`; results in build/smoke, not committed)"
        elif not ran:
            status = f"no (defined for {', '.join(nb[:2] for nb in defined)})"
        elif len(ran) == len(defined):
            status = f"yes: all {len(ran)} notebooks (`results/{profile}/`)"
        else:
            status = f"notebooks {', '.join(nb[:2] for nb in ran)} of {len(defined)} (`results/{profile}/`)"
        command = f"`make reproduce PROFILE={profile}`" if profile != "default" else "`make reproduce`"
        if profile == "long":
            command = f"`python benchmarks/cpu_chunks.py next`, chunk by chunk ({command} at once)"
        rows.append(f"| `{profile}` | {command} | {purpose} | {time} | {status} |")
    return "\n".join(rows) + "\n"


def profile_block(executed: Mapping[str, list[str]] | None = None) -> str:
    """:func:`profile_table` between its markers, as the README and docs/running.md hold it."""
    return f"{PROFILES_START}\n{profile_table(executed)}{PROFILES_END}"
