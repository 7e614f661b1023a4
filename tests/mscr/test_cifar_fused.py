"""Opt-in fused training of notebook 02's CIFAR networks (robeval.mscr.cifar.train_cifar_models_fused): the networks
of several grid cells trained as one module are those trained alone (up to float32 rounding), cached under their own
names, and found by run_cell_cifar."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from robeval.core.nn import fused
from robeval.mscr import cifar
from robeval.mscr.protocol import run_seeds

MIRROR = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.fixture
def cached(monkeypatch, tmp_path):
    if not (MIRROR / "cifar10_subset").exists():
        pytest.skip("shared data mirror not present")
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(MIRROR))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))


CONFIG = dict(
    arch="cnn_small",
    width=4,
    epochs=1,
    batch_size=64,
    lr=0.05,
    milestones=[1],
    n_train=128,
    n_test=32,
    full_data=False,
    eps_test=[0.0, 0.05],
    train_threads=1,
    torch_threads=1,
    eval_batch_size=32,
)


def test_fused_cells_equal_separate_training_and_are_cached(cached, monkeypatch):
    s0, s1 = run_seeds(0, 2)
    cells = [{"seed": s0, "eps_train": 0.0}, {"seed": s0, "eps_train": 0.03}, {"seed": s1, "eps_train": 0.03}]
    config = dict(CONFIG, fused_group=2)
    assert cifar.model_file(cells[1], config) != cifar.model_file(cells[1], CONFIG)  # own cache names
    out = cifar.train_cifar_models_fused(cells, config, device="cpu")
    assert (out["trained"], out["cached"], out["groups"]) == (3, 0, 2)
    assert all(cifar.model_file(c, config).is_file() for c in cells)
    again = cifar.train_cifar_models_fused(cells, config, device="cpu")
    assert (again["trained"], again["cached"], again["groups"]) == (0, 3, 0)
    for cell in cells:
        alone, was_cached = cifar.train_cifar_model(cell, CONFIG)  # trained alone with training.train
        assert not was_cached
        together, was_cached = cifar.train_cifar_model(cell, config)
        assert was_cached
        a, b = alone.state_dict(), together.state_dict()
        assert max(float((a[k].double() - b[k].double()).abs().max()) for k in a) <= 1e-4
    assert float((a["head.weight"] - cifar._build(CONFIG).state_dict()["head.weight"]).abs().max()) > 1e-3

    def no_training(*args, **kwargs):
        raise AssertionError("a cached network was trained again")

    monkeypatch.setattr(fused, "train_fused", no_training)
    rows = cifar.run_cell_cifar(cells[2], config)
    assert [r["eps_test"] for r in rows] == [0.0, 0.05] and all(0 <= r["acc"] <= 1 for r in rows)


def test_a_missing_network_trains_as_a_group_of_one(cached):
    cell = {"seed": run_seeds(0, 1)[0], "eps_train": 0.05}
    config = dict(CONFIG, fused_group=4)
    assert not cifar.model_file(cell, config).is_file()
    rows = cifar.run_cell_cifar(cell, config)
    assert cifar.model_file(cell, config).is_file() and len(rows) == 2
    with pytest.raises(ValueError, match="fused_group"):
        cifar.model_file(cell, dict(CONFIG, fused_group=-1))
    with pytest.raises(ValueError, match="fused_group"):
        cifar.train_cifar_models_fused([cell], CONFIG)
    torch.manual_seed(0)  # the grid functions seed torch's global generator; leave it in a known state
