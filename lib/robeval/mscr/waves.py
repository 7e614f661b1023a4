"""Notebook 01's grids computed ahead of the notebook, in waves of runs (for the paper profile's ~18 core-hours).

The paper profile of notebook 01 runs four grids: the random forest in both noise modes, the 1-NN, and Fig. 4's
k-effect grid. Computed by the notebook, each grid finishes before the next starts, so a job stopped after a few
hours leaves the first grid nearly done and the others empty. :func:`run_waves` computes them in *waves* of runs
instead: wave ``w`` computes runs ``[w * size, (w + 1) * size)`` of each of the three Table 2a / Fig. 5 grids
(paired by run), and Fig. 4's grid after all of them. At any moment the three grids hold the same runs, so an
interim look compares the noise modes and models on the same splits. The cells land in the very stores the
notebook reads (:func:`robeval.core.runs.grid_store`, same cells, same config, same identity): the notebook then
only collects them.

Command line (resumable: a rerun skips finished cells; it runs under the notebooks' CPU pins,
:data:`robeval.core.env.PINNED_CPU_ENV`, so its cells are those the notebook would compute)::

    python -m robeval.mscr.waves --profile paper --size 50

On a machine that is not kept, ``robeval grids --profile paper --pack FILE.tar.xz`` saves the finished cells
and ``robeval adopt --profile paper --from FILE.tar.xz NAME...`` takes them back after a check.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from robeval.core import io
from robeval.core.profiles import resolve
from robeval.core.runs import grid_store, run_grid
from robeval.mscr import protocol, separation, tables

_NORM_LABELS = {"linf": "Linf", "l2": "L2"}


def eps_levels_of(cfg) -> list[float]:
    """The noise levels of notebook 01 for the settings ``cfg``: eps_min measured on the dataset and passed
    through Table 1's CSV exactly as the notebook reads it back, then placed by :func:`protocol.resolve_eps_levels`."""
    from robeval.core.data import load_mscr_2d

    X, y = load_mscr_2d(cfg.dataset)
    sep = {p: separation.nearest_other_class_distance(X, y, p) for p in (np.inf, 2, 1)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table1.csv"
        io.save_frame(tables.separation_table(sep), path)
        eps_min = float(io.load_frame(path).set_index("norm").loc[_NORM_LABELS[cfg.norm], "eps_min"])
    return protocol.resolve_eps_levels(cfg.eps_levels, eps_min, replace_nearest=cfg.eps_min_replaces_nearest)


def grids(cfg, eps_levels) -> dict[str, tuple[list[dict], dict, int]]:
    """Notebook 01's grids: store name -> ``(cells, config, cells per run)``, in the notebook's store names."""
    label = _NORM_LABELS[cfg.norm]
    out = {}
    for mode, (cells, config) in protocol.rf_grids_2d(cfg, eps_levels).items():
        out[f"mscr_2d_rf_{mode}_{cfg.dataset}_{label}"] = (cells, config, len(eps_levels))
    for mode, (cells, config) in protocol.nn_grids_2d(cfg, eps_levels).items():
        out[f"mscr_2d_1nn_{mode}_{cfg.dataset}_{label}"] = (cells, config, len(eps_levels))
    cells, config = protocol.k_effect_grid_2d(cfg)
    out[f"mscr_2d_k_effect_{cfg.dataset}_{label}"] = (cells, config, len(cfg.k_effect_ks))
    return out


def run_waves(profile: str = "paper", size: int = 50, *, n_jobs: int | None = None, progress: bool = True) -> dict:
    """Compute notebook 01's grids of ``profile`` in waves of ``size`` runs (module docstring); resumable.

    Returns ``{store name: finished cells}`` after the last wave.
    """
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an int >= 1 (runs per wave), got {size!r}.")
    cfg = resolve("mscr_2d", profile)
    plan = grids(cfg, eps_levels_of(cfg))
    n_jobs = n_jobs or cfg.n_jobs
    waved = {name: spec for name, spec in plan.items() if "_k_effect_" not in name}
    longest = max(len(cells) // per for cells, _, per in waved.values())
    for start in range(0, longest, size):
        for name, (cells, config, per) in waved.items():
            part = cells[start * per : (start + size) * per]
            if part:
                stop = start + len(part) // per
                run_grid(
                    protocol.run_cell_2d,
                    part,
                    store=grid_store(profile, name),
                    config=config,
                    n_jobs=n_jobs,
                    desc=f"{name} runs {start}-{stop - 1}",
                    progress=progress,
                )
    done = {}
    for name, (cells, config, _) in plan.items():
        df = run_grid(
            protocol.run_cell_2d,
            cells,
            store=grid_store(profile, name),
            config=config,
            n_jobs=n_jobs,
            desc=name,
            progress=progress,
        )
        done[name] = len(df)
    return done


def main(argv=None) -> int:
    import os
    import sys

    from robeval.core.env import PINNED_CPU_ENV

    if argv is None and any(k not in os.environ for k in PINNED_CPU_ENV):
        # the notebooks' kernel runs under the CPU pins (bit-identical cells across machines): so do the waves;
        # numpy is imported already, so the pins need a fresh process
        env = {**PINNED_CPU_ENV, **os.environ}
        os.execve(sys.executable, [sys.executable, "-m", "robeval.mscr.waves", *sys.argv[1:]], env)
    parser = argparse.ArgumentParser(prog="python -m robeval.mscr.waves", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--size", type=int, default=50, help="runs per wave (default 50)")
    parser.add_argument("--n-jobs", type=int, default=None, help="parallel cells (default: the settings' n_jobs)")
    args = parser.parse_args(argv)
    for name, rows in run_waves(args.profile, args.size, n_jobs=args.n_jobs).items():
        print(f"{name}: {rows} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
