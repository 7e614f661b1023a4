"""Tests of robeval.acr.training: discard / reweight / noise-sphere attack and the training loop."""

import numpy as np
import pytest
import torch
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from robeval.acr.training import (
    ChannelsLastInference,
    RSTrainConfig,
    discard_hard,
    estimate_p_correct,
    gaussian_noise_loss,
    gradient_norms,
    noise_sphere_attack,
    radius_weights,
    rs_config,
    torch_seed,
    train_rs,
    trained_model,
    variant_flags,
    warmup_key,
)
from robeval.core.seeding import keyed


class LinearImage(torch.nn.Module):
    """Two-class linear classifier on images: class 1 iff <w, x> + b > 0."""

    def __init__(self, shape=(3, 4, 4), seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w = torch.nn.Parameter(torch.randn(int(np.prod(shape)), generator=g))
        self.b = torch.nn.Parameter(torch.tensor(0.0))

    def forward(self, x):
        s = x.reshape(len(x), -1) @ self.w + self.b
        return torch.stack([-s / 2, s / 2], dim=1)


class TinyConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.c(x))).mean((2, 3)))


def test_radius_weights_closed_form():
    w = radius_weights([1.0, 0.75, 0.2, 0.9375], 16, p_min=0.75, alpha=0.1)
    assert w[0] == pytest.approx(norm.ppf(0.1 ** (1 / 16)))
    lo = proportion_confint(12, 16, alpha=0.2, method="beta")[0]
    assert w[1] == pytest.approx(norm.ppf(lo)) and w[1] > 0
    assert w[2] == w[1]  # clipped at p_min
    assert w[1] < w[3] < w[0]
    with pytest.raises(ValueError):
        radius_weights([1.2], 16)


def test_discard_hard():
    np.testing.assert_array_equal(discard_hard([0.1, 0.4, 0.39, 1.0], 0.4), [1, 3])
    with pytest.raises(ValueError):
        discard_hard([0.5], 1.5)


def test_estimate_p_correct_linear_closed_form():
    model = LinearImage()
    w = model.w.detach().numpy()
    sigma = 0.5
    u = w / np.linalg.norm(w)
    # points at signed distance d from the hyperplane: p(label 1) = Phi(d / sigma)
    d = np.array([0.0, 0.25, 0.5, -0.5])
    x = (d[:, None] * u[None, :]).reshape(-1, 3, 4, 4).astype(np.float32)
    p = estimate_p_correct(model, x, np.ones(4, int), sigma, 4000, batch_size=4000, seed=0)
    np.testing.assert_allclose(p, norm.cdf(d / sigma), atol=4 * np.sqrt(0.25 / 4000))


def test_noise_sphere_attack_keeps_norm_and_first_error():
    torch.manual_seed(0)
    model = LinearImage()
    w = model.w.detach()
    u = (w / w.norm()).view(1, 3, 4, 4)
    x = torch.cat([0.2 * u, 0.2 * u, -1.0 * u])  # labels 1, 1, 1: last is already wrong
    y = torch.ones(3, dtype=torch.long)
    # small noise, the first two stay correct at the start (a seed other than w's: noise parallel to w is a fixed
    # point of the attack)
    noise = torch.randn((3, 3, 4, 4), generator=torch.Generator().manual_seed(1)) * 0.05
    assert bool(((x + noise).reshape(3, -1) @ w > 0)[:2].all())
    out = noise_sphere_attack(model, x, y, noise, steps=5, step_size=0.25)
    np.testing.assert_allclose(out.reshape(3, -1).norm(dim=1), noise.reshape(3, -1).norm(dim=1), rtol=1e-5)
    # the misclassified sample keeps its first (original) draw
    torch.testing.assert_close(out[2], noise[2])
    # the attack moves the draws against w: the margin of correctly classified samples decreases
    before = (x + noise).reshape(3, -1) @ w
    after = (x + out).reshape(3, -1) @ w
    assert torch.all(after[:2] < before[:2])
    assert model.w.requires_grad  # parameters restored


def test_gradient_norms_match_autograd():
    torch.manual_seed(0)
    model = TinyConv().eval()
    x = torch.rand(3, 3, 6, 6)
    y = np.array([0, 1, 2])
    g = gradient_norms(model, x.numpy(), y, 0.25, num_noise=2, seed=5)
    gen = torch.Generator().manual_seed(torch_seed(5, "gradient-norms"))
    noise = torch.randn((2, 3, 6, 6), generator=gen) * 0.25
    loss = gaussian_noise_loss(model, x[:1], torch.tensor([0]), noise)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    ref = float(torch.sqrt(sum((gg**2).sum() for gg in grads)))
    assert g[0] == pytest.approx(ref, rel=1e-5)
    assert np.all(g > 0)


def synthetic(n=96, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x = rng.random((n, 3, 8, 8)).astype(np.float32) * 0.3
    x[np.arange(n), y] += 0.6  # the label is the brightest channel
    return np.clip(x, 0, 1), y


def test_train_rs_discard_reweight_attack_and_determinism():
    x, y = synthetic()
    cfg = RSTrainConfig(
        sigma=0.25,
        epochs=3,
        batch_size=16,
        num_noise=2,
        milestones=(2,),
        discard=True,
        discard_epoch=1,
        discard_threshold=0.5,
        discard_draws=8,
        reweight=True,
        reweight_every=1,
        attack=True,
        attack_steps=1,
        flip_crop=False,
        seed=3,
    )
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model, hist = train_rs(TinyConv(), x, y, cfg, device="cpu", progress=False)
        runs.append(hist)
    assert runs[0]["loss"] == runs[1]["loss"]
    h = runs[0]
    assert h["n_kept"][0] == len(y) and h["n_kept"][1] == len(h["kept"]) <= len(y)
    assert h["reweight_epochs"] == [1, 2]
    assert h["weights"].shape == (len(h["kept"]),) and np.all(h["weights"] > 0)
    # the kept set is exactly the images whose estimate was >= the threshold
    torch.manual_seed(0)
    m0, _ = train_rs(TinyConv(), x, y, RSTrainConfig(**{**cfg.__dict__, "epochs": 1}), device="cpu", progress=False)
    p = estimate_p_correct(m0, x, y, 0.25, 8, cfg.eval_batch_size, seed=keyed(cfg.seed, "discard", 1), device="cpu")
    np.testing.assert_array_equal(h["kept"], np.flatnonzero(p >= 0.5))


def test_gaussian_training_learns_and_validation():
    x, y = synthetic(192, seed=1)
    torch.manual_seed(0)
    model, hist = train_rs(
        TinyConv(),
        x,
        y,
        RSTrainConfig(sigma=0.1, epochs=4, batch_size=16, num_noise=1, lr=0.05, milestones=(10,), flip_crop=False),
        device="cpu",
        progress=False,
    )
    assert hist["loss"][-1] < hist["loss"][0]
    assert variant_flags("all") == {"discard": True, "reweight": True, "attack": True}
    with pytest.raises(ValueError, match="variant"):
        variant_flags("nope")
    with pytest.raises(ValueError, match="sigma"):
        RSTrainConfig(sigma=0)
    with pytest.raises(ValueError, match="attack_norm"):
        RSTrainConfig(attack_norm="l1")
    with pytest.raises(ValueError, match="num_noise"):
        RSTrainConfig(num_noise=0)


def test_warm_up_is_shared_and_resuming_is_identical():
    x, y = synthetic()
    base = dict(sigma=0.25, epochs=3, batch_size=16, num_noise=2, milestones=(2,), discard_epoch=1, discard_draws=8)
    base.update(discard_threshold=0.3, reweight_every=1, attack_steps=1, flip_crop=True, seed=4)
    full = RSTrainConfig(**base, discard=True, reweight=True, attack=True)
    gauss = RSTrainConfig(**base)
    assert warmup_key(full) == warmup_key(gauss) and full.start_epoch == gauss.start_epoch == 1
    torch.manual_seed(0)
    ref, h_ref = train_rs(TinyConv(), x, y, full, device="cpu", progress=False)
    torch.manual_seed(0)
    _, h_warm = train_rs(TinyConv(), x, y, gauss, device="cpu", progress=False, stop_epoch=1)
    assert len(h_warm["loss"]) == 1
    resumed, h = train_rs(TinyConv(), x, y, full, device="cpu", progress=False, resume=h_warm["state"])
    assert h["loss"] == h_ref["loss"] and h["reweight_epochs"] == h_ref["reweight_epochs"] == [1, 2]
    np.testing.assert_array_equal(h["kept"], h_ref["kept"])
    for a, b in zip(ref.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    with pytest.raises(ValueError, match="warmup_key"):
        train_rs(TinyConv(), x, y, RSTrainConfig(**{**base, "seed": 5}), progress=False, resume=h_warm["state"])
    with pytest.raises(ValueError, match="stop_epoch"):
        train_rs(TinyConv(), x, y, gauss, progress=False, stop_epoch=2)


def test_derived_seeds_and_channels_last_inference():
    assert torch_seed(3, "noise") == torch_seed(3, "noise") != torch_seed(3, "order")
    assert torch_seed(3, "noise") != torch_seed(4, "noise") and 0 <= torch_seed(3, "noise") < 2**63
    torch.manual_seed(0)
    model = TinyConv().eval()
    x = torch.rand(5, 3, 6, 6)
    with torch.no_grad():
        torch.testing.assert_close(ChannelsLastInference(model)(x), model(x), rtol=1e-5, atol=1e-6)
    assert next(model.parameters()).is_contiguous()  # the original model is left as it is


def test_trained_model_is_cached_and_the_warm_up_shared(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (24, 3, 32, 32)).astype(np.uint8)
    y = rng.integers(0, 10, 24)
    config = dict(
        arch="cnn_small",
        width=2,
        n_train=24,
        sigmas=[0.5],
        epochs=2,
        batch_size=8,
        num_noise=[1],
        lr=0.05,
        momentum=0.9,
        weight_decay=0.0,
        milestones=[1],
        gamma=0.1,
        discard_epoch=[1],
        discard_threshold=[0.0],
        discard_draws=2,
        reweight_every=1,
        reweight_draws=4,
        attack_steps=[1],
        attack_step_size=[0.25],
        eval_batch_size=50,
    )
    cfg_g = rs_config({"variant": "gaussian", "sigma": 0.5, "seed": 1}, config)
    cfg_a = rs_config({"variant": "attack", "sigma": 0.5, "seed": 1}, config)
    assert cfg_a.attack and not cfg_a.discard and cfg_a.discard_epoch == 1
    m1, info1 = trained_model(cfg_g, config, x, y, "cpu")
    assert not info1["cached"] and info1["warmup_seconds"] > 0
    m2, info2 = trained_model(cfg_a, config, x, y, "cpu")  # shares the warm-up of seed 1
    assert not info2["cached"] and info2["warmup_seconds"] == 0
    assert len(list((tmp_path / "acr_rs_training" / "warmup").iterdir())) == 1
    m3, info3 = trained_model(cfg_g, config, x, y, "cpu")
    assert info3["cached"] and info3["train_seconds"] == 0 and info3["n_kept"] == 24
    for a, b in zip(m1.state_dict().values(), m3.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    # a model trained from scratch without the cached warm-up is the same model
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "fresh"))
    m4, _ = trained_model(cfg_a, config, x, y, "cpu")
    for a, b in zip(m2.state_dict().values(), m4.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_per_seed_table_refuses_a_certification_counted_twice():
    """Runs are units (issue 36): the same (sigma, variant, seed, test image) certified twice is refused."""
    import pandas as pd

    from robeval.acr.training_tables import per_seed_table

    cert = pd.DataFrame({"sigma": 0.5, "variant": "gaussian", "seed": 0, "idx": [0, 1], "label": [1, 2],
                         "predict": [1, 2], "radius": [0.3, 0.1], "correct": [1, 1]})  # fmt: skip
    assert len(per_seed_table(cert, [0.0, 0.25])) == 1
    with pytest.raises(ValueError, match="appear more than once, e.g. sigma=0.5, variant='gaussian', seed=0, idx=0"):
        per_seed_table(pd.concat([cert, cert]), [0.0, 0.25])
