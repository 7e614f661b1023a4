"""Execute the ordered notebooks with papermill, under one profile, and aggregate the claims."""

from __future__ import annotations

import time
from pathlib import Path

from robeval.core import paths as project
from robeval.core.paths import check_profile, executed_notebooks_dir

KERNEL = "robeval"


def notebook_paths(only: str | list[str] | None = None) -> list[Path]:
    """Notebooks ``NN_name.ipynb`` in order; ``only`` selects by number prefix or name (e.g. "01,03" or
    ["01_mscr_2d"])."""
    paths = sorted(p for p in project.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    if not only:
        return paths
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


COMPUTE_TAG = "compute"  # cells that compute results; every other cell must run from the result files alone


def replot_copy(path: Path, out_dir: Path) -> Path:
    """A copy of notebook ``path`` without its cells tagged ``compute``: it re-plots the figures and rebuilds
    the claims from the result files only (``make figures``, ``make verify``)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if COMPUTE_TAG not in c.get("metadata", {}).get("tags", [])]
    out = Path(out_dir) / path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


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

    With ``replot`` the cells tagged ``compute`` are left out: figures and claims are rebuilt from the
    stored result files without recomputing. With ``progress`` the cells' progress and outputs are shown in
    the terminal as they run.
    """
    import papermill as pm

    check_profile(profile)
    out_dir = Path(output_dir) if output_dir is not None else executed_notebooks_dir(profile)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / path.name
    params = {"profile": profile, **(parameters or {})}
    declared = set(pm.inspect_notebook(str(path)))
    unknown = sorted(set(params) - declared)
    if unknown:  # papermill itself only warns, and the run would silently ignore them
        raise ValueError(f"{path.name} has no parameter(s) {unknown}; its parameters cell declares {sorted(declared)}.")
    source = replot_copy(path, out_dir / "replot-sources") if replot else path
    try:
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
        )
    except pm.PapermillExecutionError as exc:
        raise NotebookFailed(
            f"Notebook {path.name} failed under profile '{profile}'{' (replot)' if replot else ''} at "
            f"{_failing_cell(out)}\nExecuted copy: {out}"
        ) from exc
    return out


def _estimate(path: Path, profile: str) -> str:
    """The settings' time estimate of the notebook's experiment (for the terminal), or ''."""
    from robeval.core.profiles import experiments, load_table

    for exp in experiments():
        table = load_table(exp)
        if table.get("meta", {}).get("notebook") == path.stem:
            return str(table.get(profile, {}).get("estimate", ""))
    return ""


def run_all(
    profile: str,
    only=None,
    parameters: dict | None = None,
    keep_going: bool = False,
    replot: bool = False,
    progress: bool = True,
) -> list[dict]:
    """Run the selected notebooks in order, then write the claims and figures reports. Returns per-notebook
    timings. ``replot`` rebuilds figures and claims from stored results (see :func:`run_notebook`)."""
    from robeval.core.report import figures_report, report, update_readme

    check_profile(profile)
    results, failures = [], []
    chosen = notebook_paths(only)
    for k, path in enumerate(chosen, 1):
        t0 = time.perf_counter()
        est = "" if replot else _estimate(path, profile)
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


def verify(profile: str, only=None) -> list[dict]:
    """Rebuild every ledger of ``profile`` from its stored result files (notebooks without their compute
    cells, writing into ``build/verify/<profile>``) and compare the verdicts with the saved ledgers.

    Returns one dict per claim whose verdict changed, or that exists on one side only (empty: all agree).
    """
    import os

    from robeval.core.paths import BUILD_DIR, results_dir
    from robeval.core.report import compare_ledgers

    check_profile(profile)
    saved_dir = results_dir(profile) / "claims"
    scratch = BUILD_DIR / "verify" / profile
    os.environ["ROBEVAL_LEDGER_DIR"] = str(scratch / "claims")  # read by Ledger.path in the kernels
    os.environ["ROBEVAL_FIGURES_DIR"] = str(scratch / "figures")
    chosen = [p for p in notebook_paths(only) if (saved_dir / f"{p.stem}.json").is_file()]
    try:
        for path in chosen:
            run_notebook(path, profile, output_dir=scratch / "notebooks", replot=True)
    finally:
        os.environ.pop("ROBEVAL_LEDGER_DIR", None)
        os.environ.pop("ROBEVAL_FIGURES_DIR", None)
    return [
        {"notebook": d["notebook"], "id": d["id"], "saved": d["ours"], "rebuilt": d["other"]}
        for d in compare_ledgers(saved_dir, scratch / "claims", notebooks=[p.stem for p in chosen])
    ]


def strip_outputs(path: Path, dry_run: bool = False) -> bool:
    """Strip a notebook in place with nbstripout (outputs, execution counts, execution metadata), as the
    pre-commit hook does; True if it changed. With ``dry_run`` nothing is written (``robeval strip --check``)."""
    import nbformat
    from nbstripout import strip_output

    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    stripped = strip_output(
        nb, keep_output=False, keep_count=False, keep_id=True, extra_keys=["cell.metadata.execution"]
    )
    after = nbformat.writes(stripped)
    changed = after != before
    if changed and not dry_run:
        path.write_text(after, encoding="utf-8")
    return changed


def setup(experiment: str, profile: str, **params):
    """The first call of every notebook: ``cfg, out_dir, ledger = setup("mscr_2d", profile, **params)``.

    Resolves the experiment's settings under ``profile`` with the notebook's papermill parameters
    (``None`` values are ignored, unknown names raise), prints them with the time estimate and what the
    profile scales down, applies the plotting style, creates the experiment's result folder
    (``results_dir(profile) / experiment``) and opens the notebook's claims ledger.

    Returns ``(settings, result folder, ledger)``.
    """
    from robeval.core import plotting
    from robeval.core.ledger import Ledger, is_scaled
    from robeval.core.paths import results_dir
    from robeval.core.profiles import describe, resolve

    cfg = resolve(experiment, profile, **params)
    meta = cfg.meta
    if "paper" not in meta or "notebook" not in meta:
        raise ValueError(f"settings/{experiment}.toml needs [meta] paper = ... and notebook = ... entries.")
    describe(cfg)
    plotting.apply_style()
    plotting.CONTEXT["notebook"] = meta["notebook"]
    out_dir = results_dir(profile) / experiment
    out_dir.mkdir(parents=True, exist_ok=True)
    scaled_down = str(getattr(cfg, "scaled_down", "") or "")
    ledger = Ledger(
        paper=meta["paper"],
        notebook=meta["notebook"],
        profile=profile,
        scaling=scaled_down if is_scaled(profile, scaled_down) else "",
        mechanism=str(getattr(cfg, "mechanism", "") or ""),
    )
    return cfg, out_dir, ledger
