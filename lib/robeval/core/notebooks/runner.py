"""Execute the ordered notebooks with papermill, under one profile, and aggregate the claims."""

from __future__ import annotations

import contextlib
import os
import time
from numbers import Integral
from pathlib import Path

from robeval.core import paths as project
from robeval.core.catalog import (
    COMPUTE_TAG,
    has_compute_cells,
    notebook_file,
    notebooks_for_profile,
    settings_estimate,
)
from robeval.core.io import mark_owned_folder
from robeval.core.paths import check_profile, executed_notebooks_dir

KERNEL = "robeval"


class NotebookFailed(RuntimeError):
    """A notebook raised; the message names the notebook, the cell and the error."""


def _failing_cell(nb_path: Path) -> str:
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                src = cell.source.strip().splitlines()
                first = src[0] if src else ""
                return f"cell {i} (`{first[:80]}`): {out.get('ename')}: {out.get('evalue')}"
    return "unknown cell"


def replot_copy(path: Path, out_dir: Path) -> Path:
    """A copy of notebook ``path`` without its cells tagged ``compute``: it re-plots the figures and rebuilds
    the claims from the result files only (``make figures``, ``make verify``). ValueError when the copy would
    replace ``path`` itself (``out_dir`` its own folder): its compute cells would be lost; or a file robeval did not
    write (:func:`check_output_notebook`)."""
    import nbformat

    path = notebook_file(path, "path")
    out_dir = _output_folder(out_dir, "out_dir")
    out = out_dir / path.name
    _check_not_the_source(path, out, "out_dir")
    check_output_notebook(out_dir, [path.name], "out_dir")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises NotJSONError, jsonschema's ValidationError, KeyError ...
        why = " ".join(str(exc).split())[:160]
        raise ValueError(
            f"{path} is not a readable notebook ({type(exc).__name__}: {why}); pass an .ipynb file."
        ) from None
    nb.cells = [c for c in nb.cells if COMPUTE_TAG not in c.get("metadata", {}).get("tags", [])]
    mark_owned_folder(out_dir, OUTPUT_MARKER)
    nbformat.write(nb, out)
    return out


def _check_not_the_source(path: Path, out: Path, what: str) -> None:
    """ValueError naming ``what`` when writing ``out`` would replace the notebook ``path`` it is made from."""
    if out.exists() and out.resolve() == path.resolve():
        raise ValueError(
            f"{what} {str(out.parent)!r} is the folder of {path.name} itself: its copy would replace the notebook. "
            "Pass another folder (by default robeval writes under build/)."
        )


OUTPUT_MARKER = ".robeval-notebooks"  # in a folder robeval wrote notebooks into: it may replace them on a later run


def _output_folder(folder, what: str) -> Path:
    """``folder`` as a folder robeval may write notebooks into (created when missing); TypeError or ValueError
    naming ``what`` for anything else (a file, text that is no path)."""
    from robeval.core.io import check_output_folder

    if isinstance(folder, bool) or not isinstance(folder, (str, os.PathLike)) or str(folder) == "":
        raise TypeError(f"{what} must be a folder (a str or Path), got {type(folder).__name__} {folder!r:.60}.")
    return check_output_folder(Path(os.path.abspath(Path(folder).expanduser())), what)


def owns_folder(folder: Path) -> bool:
    """Whether robeval may replace the notebooks it writes in ``folder``: it carries :data:`OUTPUT_MARKER` (robeval
    wrote into it before), or it lies in the checkout's ``build/``, reached through no link."""
    from robeval.core.io import link_between

    marker = Path(folder) / OUTPUT_MARKER
    if marker.is_file() and not marker.is_symlink():
        return True
    try:
        return link_between(folder, project.BUILD_DIR) is None
    except RuntimeError:  # outside a checkout: no build/ of robeval's
        return False


def check_output_notebook(folder: Path, names: list[str], what: str, *, owned: bool | None = None) -> None:
    """ValueError naming ``what`` unless robeval may write each of ``names`` in ``folder``: a new file; or a regular
    file in a folder robeval owns (``owned``, else :func:`owns_folder`). Never a link (a write would land in the
    file it points to) nor a file robeval did not write there, such as a user's own notes of the notebook's name:
    those are left as they are."""
    folder = Path(folder)
    ours = owns_folder(folder) if owned is None else owned
    for name in names:
        target = folder / name
        if target.is_symlink():
            raise ValueError(
                f"{what} {folder} holds {name} as a link (to {os.readlink(target)}): robeval writes no file through a "
                "link; pass another folder, or remove the link."
            )
        if target.exists() and not target.is_file():
            raise ValueError(f"{what} {folder} holds {name}, which is not a regular file; pass another folder.")
        if target.exists() and not ours:
            raise ValueError(
                f"{what} {folder} holds {name}, a file robeval did not write there (the folder has no "
                f"{OUTPUT_MARKER} from an earlier run), and the run would replace it; pass another folder, or move "
                "the file."
            )


def check_run_parameters(parameters, profile: str) -> dict:
    """``parameters`` of :func:`run_notebook` / :func:`run_all` as a new dict of notebook parameters (``profile``
    left out): None for none, or a dict {name: value} whose names are text, e.g. {'seed': 1}. TypeError naming
    ``parameters`` otherwise (text, a list, a number would fail inside ``dict()`` or papermill with no name); a
    ``'profile'`` entry other than the ``profile`` argument is refused (ValueError) before any run, as the two would
    contradict each other (the notebook would run under the one given in ``parameters``)."""
    if parameters is None:
        return {}
    example = "a dict {name: value}, e.g. {'seed': 1}"
    if not isinstance(parameters, dict):
        raise TypeError(f"parameters must be {example}, got {type(parameters).__name__} {parameters!r:.60}.")
    names = [k for k in parameters if not isinstance(k, str)]
    if names:
        raise TypeError(f"parameters must be {example} with names as text, got the name {names[0]!r:.60}.")
    params = dict(parameters)
    if "profile" in params:
        given = params.pop("profile")
        if not isinstance(given, str) or given != profile:
            raise ValueError(
                f"parameters sets 'profile' to {given!r:.60}, but the profile argument is {profile!r}; pass the "
                "profile as the profile argument only, and leave 'profile' out of parameters."
            )
    return params


def check_timeout(timeout):
    """``timeout`` of :func:`run_notebook` (seconds each cell may run) as an int, or None for no limit: whole seconds
    > 0. TypeError / ValueError naming ``timeout`` otherwise; ``-1`` (jupyter's own "no limit") is refused too: pass
    None for no limit."""
    if timeout is None:
        return None
    fix = "timeout must be whole seconds > 0, or None (no limit)"
    if isinstance(timeout, bool) or not isinstance(timeout, Integral):  # numpy booleans are not Integral
        raise TypeError(f"{fix}, got {type(timeout).__name__} {timeout!r:.60}; pass e.g. timeout=600.")
    if timeout <= 0:
        raise ValueError(f"{fix}, got {int(timeout)}; pass e.g. timeout=600, or timeout=None for no limit.")
    return int(timeout)


def run_notebook(
    path: Path,
    profile: str,
    parameters: dict | None = None,
    output_dir: Path | None = None,
    timeout: int | None = None,
    progress: bool = False,
    replot: bool = False,
) -> Path:
    """Execute one notebook with papermill under ``profile``; returns the executed notebook's path.

    ``parameters`` is None or a dict {name: value} of the notebook's parameters, e.g. {'seed': 1} (a ``'profile'``
    entry must equal ``profile``); ``timeout`` is the whole seconds > 0 each cell may run, or None for no limit
    (``-1``, jupyter's spelling of no limit, is refused: pass None). Both are checked before any folder is written
    or kernel started (TypeError / ValueError naming the argument).

    With ``replot`` the cells tagged ``compute`` are left out: figures and claims are rebuilt from the
    stored result files without recomputing. With ``progress`` the cells' progress and outputs are shown in
    the terminal as they run.
    """
    check_profile(profile)
    parameters = check_run_parameters(parameters, profile)
    timeout = check_timeout(timeout)
    pm = require_papermill()
    path = notebook_file(path, "path")
    out_dir = _output_folder(output_dir, "output_dir") if output_dir is not None else executed_notebooks_dir(profile)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / path.name
    _check_not_the_source(Path(path), out, "output_dir")
    owned = owns_folder(out_dir)
    check_output_notebook(out_dir, [out.name, kernel_log(out).name], "output_dir", owned=owned)
    sources = out_dir / "replot-sources"  # replot_copy's folder: robeval's own when out_dir is
    if replot:
        check_output_notebook(sources, [path.name], "output_dir", owned=owned or owns_folder(sources))
    params = {"profile": profile, **parameters}
    declared = set(pm.inspect_notebook(str(path)))
    unknown = sorted(set(params) - declared)
    if unknown:  # papermill itself only warns, and the run would silently ignore them
        raise ValueError(f"{path.name} has no parameter(s) {unknown}; its parameters cell declares {sorted(declared)}.")
    mark_owned_folder(out_dir, OUTPUT_MARKER)
    if replot:
        sources.mkdir(exist_ok=True)
        mark_owned_folder(sources, OUTPUT_MARKER)
    source = replot_copy(path, sources) if replot else path
    try:
        with _kernel_environment(), _quiet_interrupt():
            pm.execute_notebook(
                str(source),
                str(out),
                parameters=params,
                kernel_name=KERNEL,
                cwd=str(path.parent),
                progress_bar=progress,
                log_output=progress,
                execution_timeout=timeout,
                request_save_on_cell_execute=True,
                kernel_manager_class=logged_kernel_manager(kernel_log(out)),
            )
    except pm.PapermillExecutionError as exc:
        raise NotebookFailed(
            f"Notebook {path.name} failed under profile '{profile}'{' (replot)' if replot else ''} at "
            f"{_failing_cell(out)}\nExecuted copy: {out}"
        ) from exc
    return out


@contextlib.contextmanager
def _quiet_interrupt():
    """Ctrl-C during a notebook run: the kernel is shut down while the interrupt unwinds papermill, and nbclient
    ("Kernel died while waiting for execute reply") and asyncio ("Task exception was never retrieved") then log
    what is no news; from the interrupt on, logging is off, so the command's own line is all the user sees. Only in
    the main thread (signal handlers live there); elsewhere, and after the run, nothing changes."""
    import logging
    import signal
    import threading

    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is signal.SIG_IGN:
        yield
        return

    def interrupted(signum, frame):
        logging.disable(logging.CRITICAL)
        if callable(previous):
            previous(signum, frame)  # Python's own handler: raises KeyboardInterrupt
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def kernel_log(executed: Path) -> Path:
    """Where the kernel process of the run that writes the executed notebook ``executed`` logs (its own stderr:
    the kernel's startup warnings, and after a Ctrl-C of robeval the traceback of the kernel's last reply)."""
    return executed.with_name(f"{executed.stem}.kernel.log")


def logged_kernel_manager(log: Path):
    """A jupyter_client kernel manager class whose kernels write their process stderr to ``log`` (truncated at
    each start) instead of the terminal: a Ctrl-C of ``robeval run``/``verify`` is then one line, not the kernel's
    traceback of a reply it could no longer send. Cell outputs are unaffected (they travel as messages)."""
    from jupyter_client.manager import AsyncKernelManager

    class LoggedKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "wb") as fh:  # the kernel holds its own copy of the descriptor
                kw.setdefault("stderr", fh)
                return await super().start_kernel(**kw)

    return LoggedKernelManager


def require_papermill():
    """The papermill module, or an ImportError naming the extra that installs it."""
    try:
        import papermill
    except ImportError:
        raise ImportError(
            'running notebooks needs papermill and a Jupyter kernel: pip install "robeval[notebooks]" '
            "(in a checkout: make venv)."
        ) from None
    return papermill


class _kernel_environment:
    """Within the block, ``os.environ`` holds the CPU-kernel pins (:func:`robeval.core.env.pin_cpu_kernels`),
    so a kernel started there inherits them before it imports numpy or torch; restored afterwards."""

    def __enter__(self):
        import os

        from robeval.core.env import PINNED_CPU_ENV

        self._added = [k for k in PINNED_CPU_ENV if k not in os.environ]
        for k in self._added:
            os.environ[k] = PINNED_CPU_ENV[k]

    def __exit__(self, *exc):
        import os

        for k in self._added:
            os.environ.pop(k, None)
        return False


def parse_parameter_value(text: str):
    """A ``-p NAME VALUE`` value: a Python literal (``ast.literal_eval``: int, float, str, list, tuple, dict), True,
    False or None (also in lower case), or else the string itself (``"0.5"`` → 0.5, ``"iid"`` → ``"iid"``, ``"[1, 2]"``
    → [1, 2]). Numbers read as papermill's own ``-p`` reads them, except Python's other integer literals
    (``"0x10"`` → 16, where papermill keeps the text) and the lists, tuples and dicts papermill leaves as text;
    ``"inf"``, ``"-inf"`` and ``"nan"`` are floats, as papermill reads them (and as ``"1e999"`` reads).
    Nothing is evaluated: a value that is not a literal stays a string, and the notebook's settings check it."""
    import ast

    if not isinstance(text, str):
        raise TypeError(f"a parameter value must be a str from the command line, got {type(text).__name__}.")
    if text in ("True", "False", "None", "true", "false", "none"):
        return {"true": True, "false": False, "none": None}[text.lower()]
    if text.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):  # as papermill's -p and "1e999" read them
        return float(text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, (int, float, str, list, tuple, dict)) else text


def check_parameters(paths: list[Path], profile: str, parameters: dict) -> None:
    """Validate ``parameters`` for each notebook before any runs: every name must be in its parameters cell,
    and every value must pass the settings' validators under ``profile`` (as the notebook's ``setup`` would
    check it). Raises ValueError naming the notebook, the parameter and the accepted names or values."""
    from robeval.core.profiles import experiments, load_table, resolve

    pm = require_papermill()
    by_notebook = {load_table(e).get("meta", {}).get("notebook"): e for e in experiments()}
    for path in _notebook_list(paths):
        declared = set(pm.inspect_notebook(str(path))) - {"profile"}
        unknown = sorted(set(parameters) - declared)
        if unknown:
            raise ValueError(
                f"{path.stem} has no parameter {', '.join(map(repr, unknown))}; its parameters are "
                f"{', '.join(sorted(declared))}. Fix the name, or select notebooks with --only."
            )
        exp = by_notebook.get(path.stem)
        if exp is not None and parameters:
            try:
                resolve(exp, profile, **parameters)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path.stem}: {exc}") from None


def _notebook_list(paths) -> list[Path]:
    """``paths`` as a list of checked notebook files (:func:`notebook_file`); TypeError naming ``paths`` unless it is
    a list of them."""
    if isinstance(paths, (str, bytes, os.PathLike)) or not hasattr(paths, "__iter__"):
        raise TypeError(f"paths must be a list of notebook files, got {type(paths).__name__} {paths!r:.60}.")
    return [notebook_file(p, "paths") for p in paths]


def check_stored_results(paths: list[Path], profile: str) -> None:
    """Before a replot: ValueError naming the notebooks of ``paths`` whose result folder under ``profile`` is missing
    or empty (a replot rebuilds figures and claims from those files only, and would fail deep inside a cell)."""
    from robeval.core.profiles import experiments, load_table

    by_notebook = {load_table(e).get("meta", {}).get("notebook"): e for e in experiments()}
    missing = []
    for path in _notebook_list(paths):
        exp = by_notebook.get(path.stem)
        if exp is None or not has_compute_cells(path):
            continue  # a notebook without compute cells (00) stores no results: its replot reads none
        folder = project.results_dir(profile) / exp
        if not folder.is_dir() or not any(folder.iterdir()):
            missing.append((path.stem, folder))
    if missing:
        names = ", ".join(stem for stem, _ in missing)
        numbers = ",".join(stem.split("_", 1)[0] for stem, _ in missing)
        raise ValueError(
            f"--replot rebuilds figures and claims from stored results, but {names} has none under profile "
            f"{profile!r} ({missing[0][1]} is missing or empty). Compute them first, without --replot: "
            f"robeval run --profile {profile} --only {numbers}"
        )


def run_all(
    profile: str,
    only=None,
    parameters: dict | None = None,
    keep_going: bool = False,
    replot: bool = False,
    progress: bool = True,
) -> list[dict]:
    """Run the selected notebooks in order, then write the claims and figures reports. Returns per-notebook
    timings. ``replot`` rebuilds figures and claims from stored results (see :func:`run_notebook`). ``parameters`` is
    None or a dict {name: value}, e.g. {'seed': 1}, checked (TypeError / ValueError naming it) before any run."""
    from robeval.core.publish.report import figures_report, report, update_readme

    check_profile(profile)
    parameters = check_run_parameters(parameters, profile)
    results, failures = [], []
    chosen = notebooks_for_profile(profile, only)
    check_parameters(chosen, profile, parameters)
    if replot:
        check_stored_results(chosen, profile)
    for k, path in enumerate(chosen, 1):
        t0 = time.perf_counter()
        est = "" if replot else settings_estimate(path, profile)
        print(
            f"[robeval] {k}/{len(chosen)} {path.name} (profile {profile}{', replot' if replot else ''})"
            + (f" — expected: {est}" if est else ""),
            flush=True,
        )
        try:
            run_notebook(path, profile, parameters, progress=progress, replot=replot)
            status = "ok"
        except NotebookFailed as exc:
            status = "failed"
            failures.append(str(exc))
            print(f"[robeval] FAILED: {exc}", flush=True)
            if not keep_going:
                break
        finally:
            dt = time.perf_counter() - t0
        results.append({"notebook": path.stem, "status": status, "seconds": round(dt, 1)})
        print(f"[robeval] {path.name}: {status} in {dt:.0f} s", flush=True)
    report(profile)
    figures_report(profile)
    if profile == "default":
        update_readme(profile)
    if failures:
        raise NotebookFailed("\n".join(failures))
    return results


@contextlib.contextmanager
def scratch_outputs(folder: Path, **env: str):
    """Within the block, notebooks started from this process write their ledgers to ``folder/claims`` and their
    figures to ``folder/figures`` (``ROBEVAL_LEDGER_DIR``, ``ROBEVAL_FIGURES_DIR``; ``env`` sets further
    variables). The previous values are restored on exit, also after an error, so a failed rebuild never
    redirects later ledgers of the process."""
    from robeval.core.env import temporary_env

    values = {"ROBEVAL_LEDGER_DIR": str(Path(folder) / "claims"), "ROBEVAL_FIGURES_DIR": str(Path(folder) / "figures")}
    with temporary_env({**values, **env}):
        yield


def verify(profile: str, only=None, write_manifest: bool = False) -> list[dict]:
    """Rebuild every ledger of ``profile`` from its stored result files (notebooks without their compute
    cells, writing into ``build/verify/<profile>``) and compare every field with the saved ledgers.

    First every saved ledger's manifest of its result files (:mod:`robeval.core.manifest`: sha256 and row count of
    each file) is checked: a result file truncated, extended, edited, added or removed since the ledger was saved
    raises ValueError naming it, before anything is rebuilt. A ledger without a manifest is refused too, unless
    ``write_manifest``: then its manifest of the files as they are now is written into it, but only when the
    verdicts rebuilt from those files agree with the saved ones (for ledgers saved before manifests existed).

    Every field of every row is compared, not only the verdict (:func:`robeval.core.publish.report.ledger_differences`):
    an edited estimate, ci, paper_value, rule, central or n_runs of a saved row is a difference too.

    Returns one dict per row that differs (empty: all agree): ``notebook``, ``id``, ``field`` (the first that
    differs; ``row`` for a row on one side only), ``saved`` and ``rebuilt`` (its two values), and ``reruns``: the
    other profiles' committed ledgers that rule 7 reads for that row and that can change its outcome
    (:func:`robeval.core.publish.report.rerun_sources`; an edit there changes the rebuilt verdict here).
    """

    from robeval.core.io import atomic_write_text, read_json, to_json
    from robeval.core.manifest import MANIFEST_KEY, check_manifest, results_manifest
    from robeval.core.paths import BUILD_DIR, results_dir
    from robeval.core.publish.report import LEDGER_LEVEL, ledger_differences, rerun_sources, rows_by_id

    check_profile(profile)
    if not isinstance(write_manifest, bool):
        raise TypeError(f"write_manifest must be True or False, got {write_manifest!r}.")
    saved_dir = results_dir(profile) / "claims"
    scratch = BUILD_DIR / "verify" / profile
    chosen = [p for p in notebooks_for_profile(profile, only) if (saved_dir / f"{p.stem}.json").is_file()]
    if not chosen:
        if only is not None:
            raise ValueError(f"no saved ledger of {only} under profile {profile!r} ({saved_dir}): nothing to verify.")
        return []  # a profile with no saved ledger yet (e.g. gpu before its first GPU run): nothing to compare
    unrecorded = {}
    for path in chosen:
        ledger_path = saved_dir / f"{path.stem}.json"
        try:
            saved = read_json(ledger_path)
        except ValueError as exc:
            raise ValueError(
                f"{ledger_path} is not readable JSON ({exc}); restore it (git checkout) or rebuild it."
            ) from None
        if not isinstance(saved, dict):
            raise ValueError(f"{ledger_path} is not a ledger (a JSON object); restore it (git checkout) or rebuild it.")
        if write_manifest and not isinstance(saved.get(MANIFEST_KEY), dict):
            unrecorded[path.stem] = (ledger_path, saved, results_manifest(profile, path.stem))
            continue
        check_manifest(saved, ledger_path, profile)
    with scratch_outputs(scratch):
        for path in chosen:
            (scratch / "claims" / f"{path.stem}.json").unlink(missing_ok=True)  # never compare an earlier rebuild
            run_notebook(path, profile, output_dir=scratch / "notebooks", replot=True)
    diffs = []
    for path in chosen:
        rebuilt_path = scratch / "claims" / f"{path.stem}.json"
        if not rebuilt_path.is_file():
            raise ValueError(
                f"the rebuild of {path.stem} wrote no ledger ({rebuilt_path}); its notebook must end with "
                f"ledger.save(): run it with `robeval run --profile {profile} --only {path.stem[:2]}` to see why."
            )
        saved_path = saved_dir / f"{path.stem}.json"
        saved = read_json(saved_path)
        found = ledger_differences(
            saved, read_json(rebuilt_path), path.stem, skip=(MANIFEST_KEY,), where=(saved_path, rebuilt_path)
        )
        for d in found:
            if d["id"] != LEDGER_LEVEL:  # rule 7's inputs: the other profiles' ledgers holding the row on more runs
                runs = [r.get("n_runs") for r in (rows_by_id(saved, saved_path).get(d["id"]),) if r]
                d["reruns"] = rerun_sources(profile, path.stem, d["id"], min([n or 0 for n in runs] or [0]))
            diffs.append(d)
    differing = {d["notebook"] for d in diffs}
    for stem, (ledger_path, saved, manifest) in unrecorded.items():
        if stem in differing or results_manifest(profile, stem) != manifest:
            continue  # verdicts differ (reported) or the files changed while rebuilding: no manifest is recorded
        saved[MANIFEST_KEY] = manifest
        atomic_write_text(ledger_path, to_json(saved))
        print(f"[robeval] recorded the manifest of {len(manifest)} result file(s) in {ledger_path}", flush=True)
    return diffs


def check_notebook_file(path) -> Path:
    """``path`` as a Path if it is a Jupyter notebook :func:`strip_outputs` can read (an ``.ipynb`` file of nbformat
    4 that validates); else ValueError naming it and what is accepted (TypeError for a path that is not a str or
    Path)."""
    import nbformat

    from robeval.core.io import check_regular_file
    from robeval.core.validation import check_path

    path = check_path(path, "path")
    accepts = "robeval strip takes Jupyter notebooks (.ipynb files of nbformat 4), e.g. notebooks/07_*.ipynb"
    if path.is_dir():
        raise ValueError(
            f"{path} is a folder, not a notebook: pass the notebooks in it ({path / '*.ipynb'}); {accepts}."
        )
    if path.suffix != ".ipynb":
        raise ValueError(f"{path} is not a notebook (not an .ipynb file); {accepts}.")
    if not path.exists():
        raise ValueError(f"no such notebook: {path}; {accepts}.")
    check_regular_file(path, "", accepts)  # a FIFO, socket or device: said as what it is, never opened
    try:
        with path.open(encoding="utf-8") as fh:  # the version the file holds, before any conversion
            version = nbformat.reader.read(fh).get("nbformat")
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises NotJSONError, jsonschema's ValidationError, KeyError ...
        why = " ".join(str(exc).split())[:200]
        raise ValueError(f"{path} is not a readable notebook ({type(exc).__name__}: {why}); {accepts}.") from None
    if version != 4:  # nbformat converts an older one, and writing it back would rewrite the file as version 4
        raise ValueError(f"{path} is a notebook of nbformat {version}; {accepts} (convert it with `jupyter nbconvert "
                         "--to notebook` first).")  # fmt: skip
    return path


def check_replaceable(path) -> int:
    """The permission bits of the notebook file ``path`` (a link followed) when stripping may write a new file in
    its place; ValueError naming it when it is read-only (the new file would override that) or has other hard
    links (they would keep the outputs). TypeError for a path that is not a str or Path."""
    from robeval.core.validation import check_path

    path = check_path(path, "path")
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a notebook: pass the notebooks in it ({path / '*.ipynb'}).")
    st = path.resolve().stat()
    mode = st.st_mode & 0o7777
    if not mode & 0o200:
        raise ValueError(
            f"{path} is read-only (mode {mode:04o}): stripping would replace it; make it writable (chmod u+w) to "
            "strip it, or strip a copy."
        )
    if st.st_nlink > 1:
        raise ValueError(
            f"{path} has {st.st_nlink} hard links: stripping writes a new file under this name, and the other names "
            "would keep the outputs; strip a copy, or remove the other links first."
        )
    return mode


def strip_outputs(path: Path, dry_run: bool = False) -> bool:
    """Strip a notebook in place with nbstripout (outputs, execution counts, execution metadata), as the
    pre-commit hook does; True if it changed. With ``dry_run`` nothing is written (``robeval strip --check``).
    ValueError naming ``path`` unless it is a notebook (:func:`check_notebook_file`), and, to strip it, one that
    can be replaced: a read-only notebook or one with other hard links (which would keep the outputs) is
    refused. TypeError unless ``dry_run`` is True or False."""
    import nbformat
    from nbstripout import strip_output

    from robeval.core.validation import check_bool

    check_bool(dry_run, "dry_run")
    path = check_notebook_file(path)
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    stripped = strip_output(
        nb, keep_output=False, keep_count=False, keep_id=True, extra_keys=["cell.metadata.execution"]
    )
    after = nbformat.writes(stripped)
    changed = after != before
    if changed and not dry_run:
        from robeval.core.io import atomic_write_text

        target = path.resolve()  # through a link, which stays a link
        mode = check_replaceable(target)
        try:  # a temporary file beside it, then a rename: a failed write (a full disk, Ctrl-C) leaves it whole
            atomic_write_text(target, after)
            os.chmod(target, mode)
        except OSError as exc:
            raise type(exc)(exc.errno, exc.strerror, str(path)) from exc
    return changed
