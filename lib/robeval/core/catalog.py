"""The compendium's notebooks: where they are, which experiment (settings file) each runs, which ones a profile
runs, and what their settings estimate. Read by the runner, the report and the site alike."""

from __future__ import annotations

from pathlib import Path

from robeval.core import paths as project
from robeval.core.paths import check_profile

COMPUTE_TAG = "compute"  # cells that compute results; every other cell must run from the result files alone
NOTEBOOK_MAX_BYTES = 256 * 2**20  # a notebook's file (the largest executed one, with its figures, is a few MB)


def notebook_file(path, what: str = "path") -> Path:
    """``path`` as a Path when it names a notebook file that may be opened: a regular file (a link to one is
    followed) of at most :data:`NOTEBOOK_MAX_BYTES`, checked before it is opened (a FIFO would block the reader for
    ever, ``/dev/zero`` never end). TypeError naming ``what`` for anything but a str or path; ValueError naming the
    file otherwise."""
    import os

    from robeval.core.io import check_regular_file

    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)) or str(path) == "":
        raise TypeError(f"{what} must name a notebook file (a str or Path), got {type(path).__name__} {path!r:.60}.")
    path = Path(path)
    if not path.exists():
        raise ValueError(f"no such notebook: {path} (from {what}); pass an .ipynb file, e.g. notebooks/07_*.ipynb.")
    return check_regular_file(path, "the notebook", "pass an .ipynb file", max_bytes=NOTEBOOK_MAX_BYTES)


def read_notebook_json(path, what: str = "path") -> dict:
    """The JSON object of the notebook file ``path`` (:func:`notebook_file` checks it first); ValueError naming the
    file when it is not a notebook's JSON (an object with a list of cells)."""
    import json

    path = notebook_file(path, what)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
        raise ValueError(f"{path} is not a readable notebook ({why}); pass an .ipynb file.") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError(f"{path} is not a notebook (a JSON object with a list of cells); pass an .ipynb file.")
    return nb


def notebook_paths(only: str | list[str] | None = None) -> list[Path]:
    """Notebooks ``NN_name.ipynb`` in order; ``only`` selects by number prefix or name (e.g. "01,03" or
    ["01_mscr_2d"])."""
    paths = sorted(p for p in project.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    if only is None:
        return paths
    if not isinstance(only, (str, list, tuple)):
        raise TypeError(f"only must be a comma-separated str or a list of str, got {type(only).__name__}.")
    odd = [w for w in ([] if isinstance(only, str) else only) if not isinstance(w, str)]
    if odd:
        raise TypeError(
            f"only must name notebooks as text (e.g. '07' or ['01', '08']), got {odd[0]!r} in {only!r:.60}."
        )
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
    cells = read_notebook_json(path)["cells"]
    return any(COMPUTE_TAG in (c.get("metadata", {}).get("tags", []) if isinstance(c, dict) else ()) for c in cells)


def settings_estimate(path: Path, profile: str) -> str:
    """The settings' time estimate of the notebook's experiment (for the terminal), or ''. ValueError for an unknown
    profile."""
    check_profile(profile)
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
