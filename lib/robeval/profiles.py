"""Profiles: one place where ``smoke`` / ``default`` / ``paper`` resolve to concrete settings.

Each experiment has one TOML file ``robeval/settings/<experiment>.toml``::

    [meta]      title = "...", notebook = "01_mscr_2d"
    [common]    settings shared by all profiles
    [smoke]     overrides for CI (≤ 3 min per notebook on 2 cores)
    [default]   overrides for ``make reproduce`` on a laptop CPU
    [paper]     the published protocol

Reserved string keys in a profile table: ``estimate`` (honest wall-time estimate, naming the hardware)
and ``scaled_down`` (what differs from the paper's protocol).
"""
from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any, Iterator

from .paths import PROFILES, check_profile  # noqa: F401  (re-exported)

RESERVED = ("estimate", "scaled_down")


class Settings(Mapping):
    """Immutable, attribute-accessible settings of one experiment under one profile."""

    def __init__(self, experiment: str, profile: str, values: dict[str, Any], meta: dict[str, Any]):
        object.__setattr__(self, "_values", dict(values))
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
        raise AttributeError("Settings are immutable; pass overrides to robeval.profiles.resolve().")

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
        return f"Settings({self.experiment!r}, {self.profile!r}: {body})"


def experiments() -> list[str]:
    """Names of all experiments that have a settings file."""
    root = resources.files("robeval") / "settings"
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".toml"))


def load_table(experiment: str) -> dict[str, Any]:
    """The raw TOML table of ``experiment``."""
    path = resources.files("robeval") / "settings" / f"{experiment}.toml"
    if not path.is_file():
        raise ValueError(
            f"Unknown experiment {experiment!r}; known experiments: {', '.join(experiments())}."
        )
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _coerce(key: str, value: Any, reference: Any, experiment: str) -> Any:
    if reference is None or isinstance(value, type(reference)):
        return value
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


def resolve(experiment: str, profile: str, **overrides: Any) -> Settings:
    """Concrete settings of ``experiment`` under ``profile`` with ``overrides`` applied.

    Overrides whose value is ``None`` are ignored, so a notebook can pass its papermill parameters
    straight through. Unknown keys and values of the wrong type raise ``ValueError``.
    """
    check_profile(profile)
    table = load_table(experiment)
    values: dict[str, Any] = dict(table.get("common", {}))
    values.update(table.get(profile, {}))
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
    return Settings(experiment, profile, values, table.get("meta", {}))


def describe(settings: Settings, file=None) -> None:
    """Print the resolved settings, what the profile scales down, and the time estimate."""
    import sys

    out = file or sys.stdout
    title = settings.meta.get("title", settings.experiment)
    print(f"{title} — profile '{settings.profile}'", file=out)
    if "estimate" in settings:
        print(f"  estimated time: {settings['estimate']}", file=out)
    if "scaled_down" in settings:
        print(f"  scaled down:    {settings['scaled_down']}", file=out)
    for key, value in settings.items():
        if key not in RESERVED:
            print(f"  {key} = {value!r}", file=out)


def overview() -> "pandas.DataFrame":  # noqa: F821
    """Every experiment's settings under every profile (one row per experiment × setting)."""
    import pandas as pd

    rows = []
    for exp in experiments():
        resolved = {p: resolve(exp, p) for p in PROFILES}
        keys = list(dict.fromkeys(k for p in PROFILES for k in resolved[p]))
        for key in keys:
            rows.append({"experiment": exp, "setting": key,
                         **{p: resolved[p].as_dict().get(key) for p in PROFILES}})
    return pd.DataFrame(rows)
