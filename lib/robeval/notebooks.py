"""Execute the ordered notebooks with papermill, under one profile, and aggregate the claims."""
from __future__ import annotations

import re
import time
from pathlib import Path

from .paths import NOTEBOOKS_DIR, check_profile, executed_notebooks_dir

KERNEL = "robeval"


def notebook_paths(only: str | list[str] | None = None) -> list[Path]:
    """Notebooks ``NN_name.ipynb`` in order; ``only`` selects by number prefix or name (e.g. "01,03" or
    ["01_mscr_2d"])."""
    paths = sorted(p for p in NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    if not only:
        return paths
    wanted = [w.strip() for w in (only.split(",") if isinstance(only, str) else only) if w.strip()]
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


def run_notebook(path: Path, profile: str, parameters: dict | None = None, output_dir: Path | None = None,
                 timeout: int | None = None, progress: bool = False) -> Path:
    """Execute one notebook with papermill under ``profile``; returns the executed notebook's path."""
    import papermill as pm

    check_profile(profile)
    out = (output_dir or executed_notebooks_dir(profile)) / path.name
    params = {"profile": profile, **(parameters or {})}
    try:
        pm.execute_notebook(str(path), str(out), parameters=params, kernel_name=KERNEL,
                            cwd=str(path.parent), progress_bar=progress, execution_timeout=timeout,
                            request_save_on_cell_execute=True)
    except pm.PapermillExecutionError as exc:
        raise NotebookFailed(f"Notebook {path.name} failed under profile '{profile}' at "
                             f"{_failing_cell(out)}\nExecuted copy: {out}") from exc
    return out


def run_all(profile: str, only=None, parameters: dict | None = None, keep_going: bool = False) -> list[dict]:
    """Run the selected notebooks in order, then write the claims report. Returns per-notebook timings."""
    from .claims import report

    check_profile(profile)
    results, failures = [], []
    for path in notebook_paths(only):
        t0 = time.perf_counter()
        print(f"[robeval] {path.name} (profile {profile}) …", flush=True)
        try:
            run_notebook(path, profile, parameters)
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
    if failures:
        raise NotebookFailed("\n".join(failures))
    return results


def strip_outputs(path: Path) -> bool:
    """Remove outputs and execution counts from a notebook in place; True if it changed."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count = [], None
            changed = True
        if "execution" in cell.get("metadata", {}):
            del cell.metadata["execution"]
            changed = True
    if changed:
        nbformat.write(nb, path)
    return changed


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
