"""Tests for robeval.msd: MMD/MSD identities and bounds, transform features on closed-form cases."""

import numpy as np
import pandas as pd
import pytest

from robeval.msd import nets
from robeval.msd.distance import (
    corruption_features,
    method_transform,
    mixture_transform,
    mmd,
    mmd_many,
    msd,
    msd_many,
    scheme_transform,
    transform_features,
)
from robeval.msd.powerset import powerset_cell, sample_powerset_schemes, toy_distances
from robeval.msd.tables import average_over_severities, inclusion_effect, spearman_table
from robeval.transforms import augmentations as A


# a simple seeded "corruption" for tests: brighten every pixel by an amount drawn per call
def brighten(images, rng):
    k = int(rng.integers(1, 40))
    return np.clip(images.astype(int) + k, 0, 255).astype(np.uint8)


def channel_means(images):
    """Linear feature extractor: per-channel mean, (N, 3) float."""
    return images.reshape(len(images), -1, images.shape[-1]).mean(1).astype(np.float64)


@pytest.fixture(scope="module")
def images():
    return np.random.default_rng(0).integers(0, 200, size=(10, 8, 8, 3)).astype(np.uint8)


# ---------------------------------------------------------------- distances
def test_mmd_of_identical_sets_is_zero():
    f = np.random.default_rng(0).normal(size=(50, 16))
    assert mmd(f, f) == 0.0
    assert mmd(f, f[::-1]) == pytest.approx(0.0, abs=1e-12)


def test_hand_case():
    a = np.array([[0.0, 0.0], [3.0, 4.0]])
    c = np.array([[3.0, 4.0], [3.0, 4.0]])
    assert msd(a, c) == 0.0
    assert mmd(a, c) == pytest.approx(2.5)
    # the schematic of Fig. 2a: samples on both sides of the corruption -> MMD 0 but MSD 1
    a = np.array([[-1.0, 0.0], [1.0, 0.0]])
    assert mmd(a, np.zeros((1, 2))) == 0.0 and msd(a, np.zeros((1, 2))) == 1.0


def test_msd_bounds_random():
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = rng.normal(size=(rng.integers(1, 60), 8)) * rng.uniform(0.1, 3)
        c = rng.normal(size=(rng.integers(1, 30), 8)) + rng.normal(size=8)
        mu_a, mu_c = a.mean(0), c.mean(0)
        d = np.linalg.norm(a - mu_c, axis=1)
        m_sd, m_md = msd(a, c), mmd(a, c)
        assert np.all(m_sd <= d + 1e-12)  # MSD <= distance of any single sample
        assert m_sd == pytest.approx(d.min())
        spread = np.linalg.norm(a - mu_a, axis=1)
        assert m_sd <= m_md + spread.min() + 1e-9  # triangle inequality via the sample nearest the mean
        assert m_sd >= m_md - spread.max() - 1e-9
        assert m_md <= d.mean() + 1e-9  # Jensen: MMD <= mean sample distance
    one = rng.normal(size=(1, 8))
    assert msd(one, c) == pytest.approx(mmd(one, c))


def test_many_versions_match_single():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(20000, 5))  # > one 8192 chunk
    centres = rng.normal(size=(7, 5)) * 3
    np.testing.assert_allclose(msd_many(a, centres), [msd(a, c[None]) for c in centres], rtol=1e-9)
    np.testing.assert_allclose(mmd_many(a, centres), [mmd(a, c[None]) for c in centres], rtol=1e-12)


def test_msd_many_keeps_its_digits_under_a_large_common_offset():
    """A fresh probe of issue 62: features sharing an offset of 1e8 gave msd_many 0.0 where msd gives 1.52 (the
    expansion |a|^2 - 2 a.c + |c|^2 cancelled every digit). Centred, it is msd's own distance, bit for bit."""
    rng = np.random.default_rng(0)
    for offset in (0.0, 1e6, 1e8, -1e12):
        a = offset + rng.normal(size=(50, 8))
        corr = offset + rng.normal(size=(40, 8)) + 0.5
        assert msd_many(a, corr.mean(0)[None])[0] == msd(a, corr)
        assert msd(a, corr) > 1.0  # the nearest of 50 samples to a mean 0.5 * sqrt(8) away
    # two samples 3 apart at 1e8, a centre ~1e-3 from the first: the distance is the (exact) difference of the
    # float64 numbers 1e8 + 1e-3 and 1e8
    two = np.array([[1e8, 1e8], [1e8 + 3, 1e8]])
    assert msd_many(two, np.array([[1e8 + 1e-3, 1e8]]))[0] == (1e8 + 1e-3) - 1e8 == pytest.approx(1e-3, rel=1e-5)


def test_distance_input_errors():
    with pytest.raises(ValueError, match="feature sizes"):
        msd(np.zeros((3, 4)), np.zeros((3, 5)))
    with pytest.raises(ValueError, match="NaN"):
        mmd(np.array([[np.nan, 0.0]]), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="n_samples, D"):
        msd(np.zeros((2, 3, 4)), np.zeros((1, 4)))


# ---------------------------------------------------------------- transform features
def test_transform_features_closed_form(images):
    # f(t) = mean f_hat(t(x)) - mean f_hat(x) = k on every channel for brightening by k (no clipping here)
    rng = np.random.default_rng(5)
    feats = transform_features(channel_means, images, brighten, rng, 25)
    ks = np.random.default_rng(5).integers(1, 40, size=25)
    assert feats.shape == (25, 3)
    np.testing.assert_allclose(feats, np.repeat(ks[:, None], 3, axis=1).astype(float), atol=1e-9)


def test_transform_features_identity_is_zero_and_batching_invariant(images):
    zero = transform_features(channel_means, images, lambda x, rng: x.copy(), np.random.default_rng(0), 4)
    np.testing.assert_array_equal(zero, 0.0)
    a = transform_features(channel_means, images, brighten, np.random.default_rng(9), 13, batch_size=10)
    b = transform_features(channel_means, images, brighten, np.random.default_rng(9), 13, batch_size=1000)
    np.testing.assert_allclose(a, b)


def test_scheme_transform_applies_one_instance_to_all_images(images):
    x = np.repeat(images[:1], 5, axis=0)
    out = scheme_transform({"rotate", "translate_x"})(x, np.random.default_rng(0))
    assert all(np.array_equal(o, out[0]) for o in out)
    assert not np.array_equal(out[0], x[0])


def test_msd_detects_a_similar_augmentation(images):
    # corruption = brightening; an augmentation scheme containing it gets a smaller MSD than one that
    # does not, although its MMD can be larger (broad scheme)
    corr = transform_features(channel_means, images, brighten, np.random.default_rng(0), 30)

    def broad(x, rng):  # half brightening, half rotation
        return brighten(x, rng) if rng.random() < 0.5 else A.apply_scheme(x, {"rotate"}, rng, same_instance=True)

    aug_similar = transform_features(channel_means, images, broad, np.random.default_rng(1), 60)
    aug_other = transform_features(channel_means, images, scheme_transform({"rotate"}), np.random.default_rng(1), 60)
    assert msd(aug_similar, corr) < 0.3 * msd(aug_other, corr)
    assert msd(aug_similar, corr) < mmd(aug_similar, corr)


def test_corruption_features_and_transform_with_custom_corrupt(images):
    def corrupt(x, name, severity, seed=None):
        k = 10 * severity + int(np.random.default_rng(seed).integers(0, 3))
        return np.clip(x.astype(int) + k, 0, 255).astype(np.uint8)

    f = corruption_features(channel_means, images, ["bright"], [1, 3], 6, seed=0, corrupt_fn=corrupt, progress=False)
    assert f.shape == (1, 2, 6, 3)
    assert np.all((f[0, 0] > 10 - 1e-9) & (f[0, 0] < 12 + 1e-9))
    assert np.all((f[0, 1] > 30 - 1e-9) & (f[0, 1] < 32 + 1e-9))
    mix = mixture_transform(("a", "b"), (1.0, 0.0), severities=(2,), corrupt_fn=corrupt)
    out = mix(images, np.random.default_rng(0))
    assert out.dtype == np.uint8 and np.all(out.astype(int) - images >= 20)


# ---------------------------------------------------------------- experiment helpers
def test_sample_powerset_schemes():
    s = sample_powerset_schemes(20, seed=0)
    assert len(s) == 20 and len(set(s)) == 20
    assert s[0] == frozenset() and all(len(x) == 1 for x in s[1:10])
    assert s == sample_powerset_schemes(20, seed=0)
    assert set(sample_powerset_schemes(512, 0)) == set(A.powerset_schemes())
    assert sample_powerset_schemes(3, 0) == [frozenset(), {"solarize"}, {"translate_x"}]


def test_toy_distances_mmd_linear_msd_flat():
    rng = np.random.default_rng(0)
    target = rng.normal(size=(2, 300, 4)) * 0.1 + 5.0
    other = rng.normal(size=(2, 300, 4)) * 0.1
    target_means = target.mean(1)
    rows = pd.DataFrame(toy_distances(target, other, target_means, [0.0, 0.05, 0.25, 0.5, 0.75, 1.0], 4000, 0))
    gap = np.linalg.norm(target_means.mean(0) - other.reshape(-1, 4).mean(0))
    # binomial noise of the mixture: sd of the realised fraction <= 0.008 at 4000 samples
    np.testing.assert_allclose(rows["mmd"], (1 - rows["fraction"]) * gap, atol=0.035 * gap)
    assert rows["msd"].iloc[0] > 0.9 * gap  # no target samples: far
    assert np.all(rows["msd"].iloc[1:] < 0.1 * gap)  # a few target samples suffice


def test_spearman_table_perfect_ranking():
    rows = []
    for i, scheme in enumerate(["a", "b", "c", "d"]):
        for c in ["x", "y"]:
            for s in [1, 2]:
                rows.append(
                    {
                        "scheme": scheme,
                        "corruption": c,
                        "severity": s,
                        "error": 0.1 * i + 0.01 * s,
                        "msd": float(i) if c == "x" else float(-i),
                        "mmd": 1.0 * (i % 2),
                    }
                )
    rows.append({"scheme": "a", "corruption": "clean", "severity": 0, "error": 0.1, "msd": np.nan, "mmd": np.nan})
    t = spearman_table(pd.DataFrame(rows))
    assert list(t.index) == ["x", "y"]
    assert t.loc["x", "rho_msd"] == pytest.approx(1.0) and t.loc["y", "rho_msd"] == pytest.approx(-1.0)
    assert t.loc["x", "n_schemes"] == 4


def _tiny_settings(**kw):
    return {
        "arch": "cnn_small",
        "width": 4,
        "epochs": 1,
        "batch_size": 32,
        "lr": 0.05,
        "weight_decay": 5e-4,
        "n_train": 64,
        "full_data": False,
        "train_threads": 1,
        "n_runs": 1,
        "seed": 0,
        "n_test": 10,
        "corruptions": ["impulse_noise", "brightness"],
        "n_feature_images": 2,
        "n_corruption_samples": 2,
        "toy_pool_samples": 2,
        "n_adapt": 16,
        "n_aug_samples": 4,
        "mode": "composite",
        "severity": 3.0,
        "retrain_init": "base",
        "retrain_epochs": 1,
        "toy_epochs": 1,
        **kw,
    }


def test_powerset_cell_end_to_end(tmp_path, monkeypatch):
    """A tiny real run: default-augmentation networks, features, batch-norm adaptation per scheme."""
    from robeval.msd import powerset

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    config = powerset.prepare_powerset(_tiny_settings(), tmp_path / "work", progress=False)
    assert set(config) >= {"base_key", "extractor_key", "test_path", "corr_features_path"}
    assert config["base_key"] != config["extractor_key"]  # the feature extractor is a separate network
    means = np.load(config["corr_features_path"])["means"]
    assert means.shape[:2] == (2, 5)
    # the empty scheme is the identity: its one transform feature is 0, so MSD = MMD = |mean corruption feature|
    empty = pd.DataFrame(powerset_cell({"scheme": "none", "seed": 1}, config))
    assert list(empty["corruption"]) == ["clean"] + ["impulse_noise"] * 5 + ["brightness"] * 5
    assert empty["severity"].tolist() == [0] + [1, 2, 3, 4, 5] * 2
    norms = np.linalg.norm(means, axis=-1).ravel()
    np.testing.assert_allclose(empty["msd"].iloc[1:], norms, rtol=1e-9)
    np.testing.assert_allclose(empty["mmd"].iloc[1:], norms, rtol=1e-9)
    assert (empty["family"] == "powerset").all() and (empty["n_ops"] == 0).all()
    # 10 test images: 2 per severity, so every error is 0, 0.5 or 1
    assert set(empty["error"].iloc[1:]) <= {0.0, 0.5, 1.0}
    rows = pd.DataFrame(powerset_cell({"scheme": "translate_x+solarize", "seed": 0}, config))
    assert (rows["scheme"] == "solarize+translate_x").all() and (rows["n_ops"] == 2).all()
    assert (rows["msd"].iloc[1:] > 0).all() and rows["error"].between(0, 1).all()
    again = pd.DataFrame(powerset_cell({"scheme": "solarize+translate_x", "seed": 0}, config))
    pd.testing.assert_frame_equal(rows, again)  # reruns are identical
    pg = pd.DataFrame(powerset_cell({"scheme": "patch_gaussian", "seed": 0}, config))
    assert (pg["family"] == "method").all() and (pg["n_ops"] == -1).all()
    toy = powerset.toy_distance_runs(config, [0.0, 1.0], 8, 2)
    assert toy.shape == (4, 4) and sorted(set(toy["run"])) == [0, 1]
    base = powerset.base_network_errors(config)
    assert len(base) == 11 and base["n"].iloc[1:].tolist() == [2] * 10


def test_adapt_batchnorm_re_estimates_the_statistics():
    import torch

    model = torch.nn.Sequential(torch.nn.BatchNorm2d(3))
    with torch.no_grad():
        model[0].weight.fill_(2.0)
    gen = torch.Generator().manual_seed(0)
    batches = [torch.rand(4, 3, 2, 2, generator=gen) + k for k in range(3)]
    adapted = nets.adapt_batchnorm(model, batches)
    bn = adapted[0]
    # equal batches: the cumulative average of the batch means is the mean over all data
    allx = torch.cat(batches)
    torch.testing.assert_close(bn.running_mean, allx.mean(dim=(0, 2, 3)))
    torch.testing.assert_close(bn.running_var, torch.stack([b.var(dim=(0, 2, 3)) for b in batches]).mean(0))
    assert not bn.training and torch.all(bn.weight == 2.0)  # weights untouched, eval mode
    assert torch.all(model[0].running_mean == 0)  # the original is not modified
    with pytest.raises(ValueError, match="no batches"):
        nets.adapt_batchnorm(model, [])
    with pytest.raises(ValueError, match="no batch-norm"):
        nets.adapt_batchnorm(torch.nn.Linear(2, 2), batches)


def test_inclusion_effect_and_severity_average():
    rows = []
    for scheme, m, e in [
        ("none", 3.0, 0.5),
        ("solarize", 1.0, 0.2),
        ("solarize+rotate", 2.0, 0.3),
        ("rotate", 4.0, 0.6),
    ]:
        for s, d in [(1, -0.5), (2, 0.5)]:  # severity offsets average out
            rows.append(
                {
                    "scheme": scheme,
                    "n_ops": len(A.parse_scheme(scheme)),
                    "corruption": "impulse_noise",
                    "severity": s,
                    "error": e + d / 10,
                    "msd": m + d,
                    "mmd": 0.0,
                }
            )
    df = pd.DataFrame(rows)
    avg = average_over_severities(df)
    assert len(avg) == 4 and np.allclose(avg["msd"], [3.0, 1.0, 2.0, 4.0])
    eff = inclusion_effect(df, "solarize", "impulse_noise")
    assert eff["msd_with"] == pytest.approx(1.5) and eff["msd_without"] == pytest.approx(3.5)
    assert eff["error_with"] == pytest.approx(0.25) and eff["n_with"] == 2 and eff["n_without"] == 2
    with pytest.raises(ValueError, match="no rows"):
        inclusion_effect(df, "solarize", "fog")


def test_diagonal_corruption_and_error_rates(tmp_path):
    import torch

    assert nets.diagonal_severities(7).tolist() == [1, 2, 3, 4, 5, 1, 2]
    x = np.random.default_rng(0).integers(0, 255, size=(10, 32, 32, 3)).astype(np.uint8)
    out = nets.corrupt_diagonal(x, "gaussian_noise", seed=3)
    # image i draws from its own keyed stream: the first 6 images come out the same from a shorter set
    np.testing.assert_array_equal(nets.corrupt_diagonal(x[:6], "gaussian_noise", seed=3), out[:6])
    noise = np.abs(out.astype(float) - x).mean(axis=(1, 2, 3))
    assert noise[4] > noise[0] and noise[9] > noise[5]  # severity 5 is noisier than severity 1
    # a constant classifier (always class 1): per severity, the error is the share of labels != 1
    y = np.array([1, 0, 1, 1, 1, 0, 0, 1, 1, 1])
    xs = np.stack([np.zeros((10, 3, 8, 8), np.uint8)])
    np.savez(tmp_path / "t.npz", x=xs, y=y, severity=nets.diagonal_severities(10), names=np.array(["c"]))

    class Const(torch.nn.Module):
        def forward(self, x):
            return torch.tensor([0.0, 1.0]).expand(x.shape[0], 2)

    rows = nets.error_rates(Const(), tmp_path / "t.npz", clean=xs[0])
    assert rows[0] == {"corruption": "clean", "severity": 0, "error": 0.3, "n": 10}
    # severity s holds images (s − 1, s + 4): labels (1, 0), (0, 0), (1, 1), (1, 1), (1, 1)
    assert [r["error"] for r in rows[1:]] == [0.5, 1.0, 0.0, 0.0, 0.0]
    assert {r["n"] for r in rows[1:]} == {2}


def test_predict_many_batches_across_arrays_and_error_rates_of_some_corruptions(tmp_path):
    """One pass over several arrays gives each array's own predictions (batches run across array boundaries; a
    model that sees its batches tells); error_rates of a subset of the corruptions."""
    import torch

    class ByMean(torch.nn.Module):  # class = the image's mean pixel (0..9), and it counts its batches
        calls: list = []

        def forward(self, x):
            ByMean.calls.append(len(x))
            k = (x.mean(dim=(1, 2, 3)) * 255).round().long()
            return torch.nn.functional.one_hot(k, 10).float()

    arrays = [np.full((n, 3, 4, 4), v, np.uint8) for n, v in ((3, 1), (0, 9), (5, 2), (4, 7))]
    got = nets.predict_many(ByMean(), arrays, batch_size=5)
    assert [g.tolist() for g in got] == [[1] * 3, [], [2] * 5, [7] * 4]
    assert ByMean.calls == [5, 5, 2] and all(g.dtype == np.int64 for g in got)
    ByMean.calls.clear()
    np.testing.assert_array_equal(nets.predict_fast(ByMean(), arrays[2], batch_size=2), [2] * 5)
    assert ByMean.calls == [2, 2, 1]
    # error_rates of two of three corruptions, the clean images first
    y = np.array([1, 2, 7, 1, 2])
    x = np.stack([np.full((5, 3, 4, 4), v, np.uint8) for v in (1, 2, 7)])
    np.savez(tmp_path / "t.npz", x=x, y=y, severity=nets.diagonal_severities(5), names=np.array(["a", "b", "c"]))
    rows = nets.error_rates(ByMean(), tmp_path / "t.npz", clean=x[2], corruptions=["c", "a"])
    assert [r["corruption"] for r in rows] == ["clean"] + ["a"] * 5 + ["c"] * 5  # the file's order
    assert rows[0]["error"] == pytest.approx(0.8)  # class 7 for all: only image 2 is right
    assert [r["error"] for r in rows if r["corruption"] == "a"] == [0.0, 1.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="no corruption"):
        nets.error_rates(ByMean(), tmp_path / "t.npz", corruptions=["fog"])


def test_cached_inference_model_and_feature_fn(tmp_path, monkeypatch):
    """One compiled network per process and model file (the severity scan's cells share it), with the outputs of
    a freshly compiled one; another cache folder is another network."""
    import torch

    from robeval.core.nn import models

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "a"))
    tcfg = {"arch": "cnn_small", "width": 4}
    torch.manual_seed(0)
    net = models.from_config(tcfg).eval()
    nets.models_dir().mkdir(parents=True)
    torch.save(net.state_dict(), nets.models_dir() / "k.pt")
    fast = nets.cached_inference_model(tcfg, "k")
    assert nets.cached_inference_model(dict(tcfg), "k") is fast
    x = np.random.default_rng(0).integers(0, 256, (6, 3, 32, 32), dtype=np.uint8)
    np.testing.assert_array_equal(nets.predict_fast(fast, x), nets.predict_fast(nets.inference_model(net), x))
    feats = nets.cached_feature_fn(tcfg, "k")
    assert nets.cached_feature_fn(tcfg, "k") is feats
    np.testing.assert_allclose(feats(x.transpose(0, 2, 3, 1)), nets.feature_fn(net)(x.transpose(0, 2, 3, 1)))
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "b"))
    with pytest.raises(ValueError, match="no cached model"):
        nets.cached_inference_model(tcfg, "k")


def test_msd_inference_runs_where_the_networks_train(monkeypatch):
    """Inference, features and batch-norm adaptation follow robeval.core.env.torch_device (the GPU when there is
    one) instead of always copying the network to the CPU: a paper run on a GPU machine had put its 5e9 feature
    evaluations on the CPU. Without a GPU here, the 'meta' device stands in for it (shapes, no values; batch-norm
    adaptation reads a count back, so benchmarks/gpu_units.py checks it on a GPU)."""
    import torch

    from robeval.core import env
    from robeval.core.nn import models, training

    assert nets.inference_batch("cpu") == nets.CPU_INFERENCE_BATCH == 50
    assert nets.inference_batch("cuda") == nets.CUDA_INFERENCE_BATCH == 1000  # launch-bound at 50 on an H200
    torch.manual_seed(0)
    net = models.from_config({"arch": "cnn_small", "width": 4}).eval()
    monkeypatch.setattr(env, "torch_device", lambda prefer=None: torch.device("meta"))
    assert nets.inference_device().type == "meta" and nets.inference_batch() == 1000
    fast = nets.inference_model(net)
    assert nets.model_device(fast).type == "meta" and not fast.training and fast._robeval_inference
    assert nets.model_device(net).type == "cpu"  # the original stays where it was
    x = np.random.default_rng(0).integers(0, 256, (3, 3, 32, 32), dtype=np.uint8)
    moved = nets._batch_to(x, torch.device("meta"))  # the bytes travel, then become float there
    assert moved.device.type == "meta" and moved.dtype == torch.float32 and moved.shape == (3, 3, 32, 32)
    monkeypatch.undo()
    # on the CPU: the TorchScript copy, exactly the float images of to_float_tensor, and batches of 50
    assert nets.inference_device().type == "cpu" and isinstance(nets.inference_model(net), torch.jit.ScriptModule)
    torch.testing.assert_close(nets._batch_to(x, torch.device("cpu")), training.to_float_tensor(x), rtol=0, atol=0)
    assert nets.model_device(torch.nn.ReLU()).type == "cpu"
    # the features in batches of 50 (default), of 2, and in one eager pass agree
    x = np.random.default_rng(1).integers(0, 256, (120, 32, 32, 3), dtype=np.uint8)
    with torch.no_grad():
        ref = net.features(training.to_float_tensor(x.transpose(0, 3, 1, 2))).double().numpy()
    np.testing.assert_allclose(nets.feature_fn(net)(x), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(nets.feature_fn(net, batch_size=2)(x[:5]), ref[:5], rtol=1e-5, atol=1e-5)
    labels = net(training.to_float_tensor(x.transpose(0, 3, 1, 2))).argmax(1).numpy()
    np.testing.assert_array_equal(nets.predict_fast(nets.inference_model(net), x.transpose(0, 3, 1, 2)), labels)


@pytest.mark.parametrize("name", ["autoaugment", "augmix", "patch_gaussian"])
def test_method_transforms_apply_one_instance(images, name):
    x = np.repeat(images[:1], 4, axis=0)
    out = method_transform(name)(x, np.random.default_rng(3))
    assert out.shape == x.shape and out.dtype == np.uint8
    if name != "patch_gaussian":  # patch noise is drawn per image; its patch and sigma are shared
        assert all(np.array_equal(o, out[0]) for o in out)
    with pytest.raises(ValueError, match="Unknown method"):
        method_transform("cutout")


def test_msd_summaries_refuse_duplicated_runs():
    """Runs are units (issue 36): a powerset frame or a Fig. 2b run concatenated twice is refused, naming the
    repeated keys, instead of being averaged in silently."""
    import pandas as pd

    from robeval.msd import tables

    rows = pd.DataFrame(
        {"scheme": ["a", "a", "b", "b"], "corruption": ["fog"] * 4, "severity": [1, 2, 1, 2],
         "error": [0.1, 0.2, 0.3, 0.4], "msd": [1.0, 2.0, 3.0, 4.0], "mmd": [1.0, 1.0, 1.0, 1.0]}
    )  # fmt: skip
    assert len(tables.average_over_severities(rows)) == 2
    with pytest.raises(ValueError, match="appear more than once, e.g. scheme='a'"):
        tables.average_over_severities(pd.concat([rows, rows]))
    errors = pd.DataFrame({"fraction": [0.0, 1.0], "run": [0, 0], "corruption": ["impulse_noise"] * 2,
                           "error": [0.5, 0.1]})  # fmt: skip
    dist = pd.DataFrame({"fraction": [0.0, 1.0], "run": [0, 0], "mmd": [1.0, 0.0], "msd": [1.0, 0.0]})
    assert tables.toy_per_run(errors, dist)["error"].shape == (1, 2)
    with pytest.raises(ValueError, match="errors hold"):
        tables.toy_per_run(pd.concat([errors, errors]), dist)
    with pytest.raises(ValueError, match="distances hold"):
        tables.toy_per_run(errors, pd.concat([dist, dist]))


def test_retrain_scheme_list_samples_uniformly_from_the_batch_norm_grid():
    """'sample:K' (issue 37): K of the batch-norm grid's schemes, so that every retrained scheme has an MSD; seeded,
    without repeats, a subset of the grid; over the whole powerset a uniform draw (not the grid's leading singles)."""
    from robeval.msd.powerset import retrain_scheme_list, sample_powerset_schemes

    grid = sample_powerset_schemes(512, seed=0)
    names = {A.scheme_name(s) for s in grid}
    pick = retrain_scheme_list(["sample:64"], grid, seed=0)
    assert len(pick) == len(set(pick)) == 64 and set(pick) <= names
    assert pick == retrain_scheme_list(["sample:64"], grid, seed=0) != retrain_scheme_list(["sample:64"], grid, seed=1)
    # uniform over 512: the number of ops of a scheme is Binomial(9, 1/2), mean 4.5, sd 1.5 (se of a mean of 64:
    # 0.19); the grid's head (empty, nine singles, full) would pull a leading-64 pick towards 1 op
    n_ops = [len(A.parse_scheme(s)) for s in pick]
    assert abs(np.mean(n_ops) - 4.5) < 4 * 1.5 / 8
    assert retrain_scheme_list(["none", "solarize"]) == ["none", "solarize"]
    assert len(retrain_scheme_list(["all"])) == 512
    with pytest.raises(ValueError, match="n_schemes to at least 64"):
        retrain_scheme_list(["sample:64"], grid[:40], seed=0)
    with pytest.raises(ValueError, match="'sample:K' with K a positive integer"):
        retrain_scheme_list(["sample:x"], grid, seed=0)
    with pytest.raises(ValueError, match="pass them as sampled="):
        retrain_scheme_list(["sample:3"])


def test_distances_refuse_integer_features_float64_cannot_hold():
    """Probe J, F11: mmd([[2**62, 0]], [[2**62 + 1, 0]]) gave 0.0 (the distance is 1): both rows round to one float64.
    Integer features beyond 2**53 are refused, naming the argument; smaller integers give what they gave before."""
    with pytest.raises(ValueError, match=r"aug_feats holds the integer 4611686018427387904, beyond 2\*\*53"):
        mmd(np.array([[2**62, 0]]), np.array([[2**62 + 1, 0]]))
    with pytest.raises(ValueError, match=r"corr_feats holds the integer -9223372036854775808, beyond 2\*\*53"):
        msd(np.zeros((2, 1), dtype=np.int64), np.array([[np.iinfo(np.int64).min]]))
    a, c = np.arange(6).reshape(3, 2) * 1000, np.arange(4).reshape(2, 2)
    assert mmd(a, c) == mmd(a.astype(float), c.astype(float)) and msd(a, c) == msd(a.astype(float), c.astype(float))
    assert mmd([[2**53, 0]], [[2**53 - 1, 0]]) == 1.0
