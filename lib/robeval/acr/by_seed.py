"""Notebook 09's per-model grids in parallel by seed: one worker process per (sigma, seed).

Notebook 09 trains and certifies one model per (variant, sigma, seed) in two grids: the Table 5 grid
(:func:`robeval.acr.training.run_variant`: training, the fixed-N screening certification, the Table 2 gradients) and
the sequential Table 5 grid (:func:`robeval.acr.sequential.table_cell`: :func:`~robeval.acr.sequential.certify_table`
up to ``seq_n_max`` on the model the first grid trained). Run serially, the gpu profile's ~71,000 small training steps
queue in one process and leave the GPU mostly idle; :func:`run_by_seed` computes the cells of both grids in
``n_jobs`` processes instead (sharing the GPU, or the CPU cores).

**No race, nothing trained twice.** The variants of a seed share its warm-up (the first ``T`` epochs,
:func:`robeval.acr.training.trained_model`); two processes training the same warm-up at once would both train it,
and on a GPU their two results need not be bit-identical, so the variants of a seed could start from different
warm-ups. Here the unit of work is a *seed group*: every cell of one (sigma, seed), of both grids, in one process,
in order (the variants first: the first trains the warm-up and caches it, the others resume from it; then the
Table 5 cells, which load the models the variants cached). Different groups share no cache file.

**Through the grids' own stores.** A worker computes a group's cells with the very :class:`robeval.core.runs.Grid`
the notebook runs (same function, store, config and so the same sub-store and cell files; checked), serially, each
cell claimed with the grid's lock before it is computed. So resuming after a kill, ``robeval grids --pack``,
``adopt`` and ``collect`` work unchanged, a cell another process holds is waited for, not recomputed, and the
notebook's own ``run_grid`` calls afterwards find every cell finished and only collect them. Rows do not depend on
``n_jobs``: every cell is computed by the same code from its own seeds (tests/acr/test_by_seed.py compares the
collected rows of a parallel and a serial run).
"""

from __future__ import annotations

import os
import sys
import time

from robeval.core import runs

__all__ = ["model_grids", "seed_groups", "run_by_seed"]

VARIANT_STORE = "acr_rs_training"  # run_variant: training, fixed-N screening, gradients
TABLE_STORE = "acr_sequential_table5"  # table_cell: certify_table on every trained model


def model_grids(cfg, out_dir, profile: str) -> dict[str, runs.Grid]:
    """Notebook 09's two grids over its trained models, as the notebook runs them.

    Parameters
    ----------
    cfg : robeval.core.profiles.Settings — the resolved ``acr_rs_training`` settings.
    out_dir : path — the experiment's result folder (:func:`robeval.acr.training.grid_config`'s ``tsv_dir``).
    profile : str — names the grid stores (:func:`robeval.core.runs.grid_store`).

    Returns
    -------
    dict
        ``"variants"``: the :func:`~robeval.acr.training.run_variant` grid; ``"table"``: the
        :func:`~robeval.acr.sequential.table_cell` grid.
    """
    from robeval.acr import sequential, training

    return {
        "variants": runs.Grid(
            training.run_variant,
            training.variant_cells(cfg),
            store=runs.grid_store(profile, VARIANT_STORE),
            config=training.grid_config(cfg, out_dir),
        ),
        "table": runs.Grid(
            sequential.table_cell,
            sequential.table_cells(cfg),
            store=runs.grid_store(profile, TABLE_STORE),
            config=sequential.table_config(cfg),
        ),
    }


def seed_groups(grids: dict[str, runs.Grid]) -> dict[tuple, list[tuple[str, list[dict]]]]:
    """The cells of ``grids`` grouped by the warm-up they share: ``{(sigma, seed): [(grid name, cells), ...]}``, the
    groups in the order of the cells, within a group the grids in the order of ``grids`` (the variants before the
    Table 5 cells that read their models)."""
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for name, grid in grids.items():
        for cell in grid.cells:
            key = (float(cell["sigma"]), int(cell["seed"]))
            groups.setdefault(key, {}).setdefault(name, []).append(cell)
    return {key: [(name, by_grid[name]) for name in grids if name in by_grid] for key, by_grid in groups.items()}


def _spec(grid: runs.Grid, cells: list[dict]) -> dict:
    """What a worker needs to rebuild ``grid`` on ``cells`` (a Grid of a subset of the cells has the same sub-store
    and cell files: neither depends on which cells a grid holds)."""
    return {
        "fn": grid.fn,
        "cells": cells,
        "store": str(grid.root.parent),
        "config": grid.config,
        "root": str(grid.root),
    }


def _run_group(specs: list[dict], slot: int, threads: int) -> dict:
    """Worker: compute one seed group's cells, grid after grid, serially and claimed (``Grid.run``), with ``threads``
    torch threads (training fixes its own, :func:`robeval.core.nn.training.train_threads`). Returns the group's wall
    seconds and its number of cells."""
    import torch

    torch.set_num_threads(threads)
    if torch.cuda.is_available():
        torch.cuda.set_device(slot % torch.cuda.device_count())  # groups spread over the GPUs there are
    t0 = time.perf_counter()
    for spec in specs:
        grid = runs.Grid(spec["fn"], spec["cells"], store=spec["store"], config=spec["config"])
        if str(grid.root) != spec["root"]:
            raise RuntimeError(
                f"the worker's grid store {grid.root} is not the notebook's {spec['root']}: its code or settings "
                "differ from the parent process's (a changed checkout?); rerun the notebook."
            )
        grid.run(backend="serial", progress=False)
    return {"seconds": time.perf_counter() - t0, "cells": sum(len(s["cells"]) for s in specs)}


def run_by_seed(grids: dict[str, runs.Grid], n_jobs: int, *, progress: bool = True) -> dict:
    """Compute every unfinished cell of ``grids`` (:func:`model_grids`) in up to ``n_jobs`` worker processes, one
    seed group (:func:`seed_groups`) per task.

    Workers are spawned (a fresh interpreter each: safe with CUDA and from a notebook kernel) and inherit the
    environment (``ROBEVAL_*`` paths, the data and cache folders). On a machine with GPUs seed group ``k`` runs on
    GPU ``k mod count``. Each worker computes with ``cores // workers`` torch threads (one on a 2-core CPU with 2
    workers; training keeps its fixed :func:`robeval.core.nn.training.train_threads`). A group whose cells are all
    finished is not started. A failed group leaves the others running; every finished cell is kept, and the failure
    is raised afterwards as :class:`robeval.core.errors.IncompleteResult` (rerun: only what is missing is computed).

    Returns
    -------
    dict
        ``groups`` (groups computed), ``workers``, ``seconds`` (wall) and ``group_seconds`` (``{"sigma=.., seed=..":
        wall seconds of that group in its worker}``).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from robeval.core.errors import IncompleteResult

    n_jobs = int(n_jobs)
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}.")
    todo = {
        key: [_spec(grids[name], cells) for name, cells in group]
        for key, group in seed_groups(grids).items()
        if any(not grids[name].path(c).is_file() for name, cells in group for c in cells)
    }
    out = {"groups": len(todo), "workers": min(n_jobs, len(todo)), "seconds": 0.0, "group_seconds": {}}
    if not todo:
        return out
    t0 = time.perf_counter()
    failed = []
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=out["workers"], mp_context=ctx) as pool:
        threads = max(1, (os.cpu_count() or 1) // out["workers"])  # the cores shared out: no oversubscription
        futures = {pool.submit(_run_group, specs, slot, threads): key for slot, (key, specs) in enumerate(todo.items())}
        for fut in as_completed(futures):
            label = "sigma={:g}, seed={}".format(*futures[fut])
            try:
                got = fut.result()
            except Exception as exc:  # the other groups go on; raised below
                failed.append((label, exc))
                print(f"by seed: {label} failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                continue
            out["group_seconds"][label] = round(got["seconds"], 1)
            if progress:
                print(f"by seed: {label}: {got['cells']} cells in {got['seconds']:.0f} s", flush=True)
    out["seconds"] = time.perf_counter() - t0
    if failed:
        done = sum(len(g.done()) for g in grids.values())
        total = sum(len(g.cells) for g in grids.values())
        label, exc = failed[0]
        if all(isinstance(e, runs.DeadlineReached) for _, e in failed):  # no failure: the rest is for a later run
            raise runs.DeadlineReached(
                f"{len(failed)} of {len(todo)} seed groups stopped before the deadline (first: {label}: {exc}). {done} "
                f"of {total} cells are finished and kept in their grid stores; run again to compute the rest.",
                done=done,
                total=total,
            )
        raise IncompleteResult(
            f"{len(failed)} of {len(todo)} seed groups failed (first: {label}: {type(exc).__name__}: {exc}). {done} of "
            f"{total} cells are finished and kept in their grid stores; fix the cause and rerun: finished cells are "
            "not recomputed.",
            done=done,
            total=total,
        ) from exc
    if progress:
        print(
            f"by seed: {len(todo)} seed groups in {out['workers']} processes ({os.cpu_count()} cores): "
            f"{out['seconds']:.0f} s",
            flush=True,
        )
    return out
