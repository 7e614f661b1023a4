"""The compendium's notebooks: where they are, which experiment (settings file) each runs, which ones a profile
runs, and what their settings estimate. Read by the runner, the report and the site alike."""

from __future__ import annotations

from pathlib import Path

from robeval.core import paths as project
from robeval.core.paths import check_profile

COMPUTE_TAG = "compute"  # cells that compute results; every other cell must run from the result files alone


def notebook_paths(only: str | list[str] | None = None) -> list[Path]:
    """Notebooks ``NN_name.ipynb`` in order; ``only`` selects by number prefix or name (e.g. "01,03" or
    ["01_mscr_2d"])."""
    paths = sorted(p for p in project.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    if only is None:
        return paths
    if not isinstance(only, (str, list, tuple)):
        raise TypeError(f"only must be a comma-separated str or a list of str, got {type(only).__name__}.")
    wanted = [w.strip() for w in (only.split(",") if isinstance(only, str) else only) if w.strip()]
    if not wanted:
        raise ValueError(f"--only {only!r} selects no notebook; name numbers or names, e.g. --only 01,08.")
    chosen = []
    for w in wanted:
        match = [p for p in paths if p.stem == w or p.stem.split("_", 1)[0] == w.zfill(2) or p.name == w]
        if not match:
            raise ValueError(f"No notebook matches {w!r}; available: {', '.join(p.stem for p in paths)}.")
        chosen += [m for m in match if m not in chosen]
    return chosen


def has_compute_cells(path: Path) -> bool:
    """Whether the notebook at ``path`` has a cell tagged ``compute`` (one that a replot leaves out)."""
    import json

    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    return any(COMPUTE_TAG in c.get("metadata", {}).get("tags", []) for c in cells)


def settings_estimate(path: Path, profile: str) -> str:
    """The settings' time estimate of the notebook's experiment (for the terminal), or ''."""
    from robeval.core.profiles import load_table

    exp = notebook_experiment(path)
    return "" if exp is None else str(load_table(exp).get(profile, {}).get("estimate", ""))


def notebook_experiment(path: Path) -> str | None:
    """The experiment (settings file) whose ``[meta] notebook`` is this notebook, or None (no settings)."""
    from robeval.core.profiles import experiments, load_table

    for exp in experiments():
        if load_table(exp).get("meta", {}).get("notebook") == Path(path).stem:
            return exp
    return None


def notebooks_for_profile(profile: str, only=None) -> list[Path]:
    """The notebooks ``robeval run --profile <profile> [--only ...]`` executes: for an optional profile (``gpu``)
    the notebooks whose experiment defines it (:func:`robeval.core.profiles.defines`); a notebook named in
    ``only`` that does not define it is a clear error."""
    from robeval.core.profiles import OPTIONAL_PROFILES, defines

    check_profile(profile)
    chosen = notebook_paths(only)
    if profile not in OPTIONAL_PROFILES:
        return chosen
    ok = [p for p in chosen if (e := notebook_experiment(p)) is not None and defines(e, profile)]
    if only is not None and len(ok) < len(chosen):
        missing = [p.stem for p in chosen if p not in ok]
        raise ValueError(
            f"the {profile} profile is not defined for {', '.join(missing)} (no [{profile}] table in its settings); "
            f"it runs {', '.join(p.stem for p in notebooks_for_profile(profile)) or 'no notebook yet'}."
        )
    return ok
