"""robeval.mscr.waves computes notebook 01's grids ahead of it, in the notebook's own stores (issue #21)."""

import json
import re

import pytest

from robeval.core import runs
from robeval.core.catalog import notebook_paths
from robeval.core.profiles import resolve
from robeval.mscr import protocol, waves


def _notebook_store_templates() -> list[str]:
    nb = next(p for p in notebook_paths() if p.stem == "01_mscr_2d")
    src = "\n".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
    return re.findall(r'grid_store\(profile, f"([^"]+)"\)', src)


def test_the_waves_fill_the_notebooks_stores(tmp_results):
    """Smoke profile: after the waves, every cell of the notebook's four grids (same store names, cells and
    configs, hence the same identities) is finished, so the notebook only collects; the three Table 2a / Fig. 5
    grids hold the same runs after each wave."""
    cfg = resolve("mscr_2d", "smoke")
    levels = waves.eps_levels_of(cfg)
    assert levels[3] == pytest.approx(0.004012795259015489)  # eps_min of dataset B (Table 1) replaces 0.004
    plan = waves.grids(cfg, levels)
    fields = {"mode": cfg.noise_mode, "cfg.dataset": cfg.dataset, "norm_label": "Linf", "main": cfg.noise_mode}
    templates = _notebook_store_templates()
    assert len(templates) == 3  # RF and 1-NN (both modes, one template each), Fig. 4
    names = set()
    for t in templates:
        for mode in protocol.NOISE_MODES if "{mode}" in t else [None]:
            values = {**fields, "mode": mode}
            names.add(re.sub(r"\{([^}]+)\}", lambda m, v=values: str(v[m.group(1)]), t))
    assert names == set(plan)
    done = waves.run_waves("smoke", size=1, n_jobs=1, progress=False)
    per_run = len(levels)
    assert done == {
        "mscr_2d_rf_iid_B_Linf": cfg.runs * per_run * per_run,
        "mscr_2d_rf_shared_offsets_B_Linf": cfg.runs_shared * per_run * per_run,
        "mscr_2d_1nn_iid_B_Linf": cfg.runs_1nn * per_run * per_run,
        # the 1-NN under the other reading of the noise too (issue 38), paired with the forest's shared runs
        "mscr_2d_1nn_shared_offsets_B_Linf": min(cfg.runs_1nn, cfg.runs_shared) * per_run * per_run,
        "mscr_2d_k_effect_B_Linf": cfg.k_effect_runs * len(cfg.k_effect_ks),
    }
    for name, (cells, config, _) in plan.items():
        assert (
            runs.Grid(protocol.run_cell_2d, cells, store=runs.grid_store("smoke", name), config=config).pending() == []
        )


def test_bad_wave_size():
    with pytest.raises(ValueError, match="runs per wave"):
        waves.run_waves("smoke", size=0)
