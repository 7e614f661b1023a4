"""Probe K: core.nn's inference functions, build / from_config / load_from_config refuse what they cannot use
(by argument, with the fix) before touching the caller's model; valid inputs give the same results as before."""

import numpy as np
import pytest
import torch

from feature_nets import feature_net
from robeval.core import nn as cnn
from robeval.core.nn import models, training


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    return models.build("cnn_small", width=4).eval()


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(0).random((4, 3, 16, 16)).astype(np.float32)


# K1: a device the machine cannot use is refused before the model moves; the model's mode is restored
@pytest.mark.parametrize("fn", [cnn.predict, cnn.predict_logits, cnn.predict_proba, cnn.extract_features])
def test_k1_meta_device_refused_model_kept(fn, x):
    torch.manual_seed(1)
    m = models.build("cnn_small", width=4).eval()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(ValueError, match=r"device='meta' holds no data.*pass 'cpu'"):
        fn(m, x, device="meta")
    assert not any(p.is_meta for p in m.parameters())
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())


def test_k1_mps_device_refused(net, x):
    if torch.backends.mps.is_available():
        pytest.skip("this machine has an MPS backend")
    with pytest.raises(ValueError, match=r"device='mps' cannot be used on this machine.*pass 'cpu'"):
        cnn.extract_features(net, x, device="mps")
    assert next(net.parameters()).device.type == "cpu"


def test_k1_train_mode_restored_results_unchanged(x):
    torch.manual_seed(2)
    m = models.build("cnn_small", width=4)
    m.train()
    m.body[1].eval()  # a mixed module (a frozen batch norm) keeps each module's own mode
    got = cnn.predict_logits(m, x, device="cpu")
    assert m.training and not m.body[1].training and m.body[4].training
    m.eval()
    np.testing.assert_array_equal(got, cnn.predict_logits(m, x, device="cpu"))  # inference always in eval mode
    assert not m.training


# K6: channels-last, 5-D and non-module inputs
def test_k6_nhwc_refused(net, x):
    with pytest.raises(ValueError, match=r"looks channels-last.*pass x\.transpose\(0, 3, 1, 2\)"):
        cnn.predict(net, x.transpose(0, 2, 3, 1))


def test_k6_five_dims_refused(net, x):
    with pytest.raises(
        ValueError, match=r"x must be an image batch of shape \(N, C, H, W\), got shape \(4, 1, 3, 16, 16\)"
    ):
        cnn.predict(net, x[:, None])


def test_k6_function_model_refused(x):
    with pytest.raises(TypeError, match=r"model must be a torch nn.Module.*got function"):
        cnn.predict(lambda z: z, x)
    with pytest.raises(TypeError, match=r"model must be a torch nn.Module"):
        cnn.extract_features(lambda z: z, x)


# K14: flattened images
def test_k14_flat_images_refused(net, x):
    with pytest.raises(ValueError, match=r"x has shape \(4, 768\), a matrix.*pass x\.reshape\(4, 3, 16, 16\)"):
        cnn.predict(net, x.reshape(4, -1))


def test_k14_mlp_still_takes_rows():
    torch.manual_seed(3)
    mlp = models.build("mlp", num_classes=2, in_features=5, hidden=(4,))
    rows = np.random.default_rng(1).normal(size=(6, 5)).astype(np.float32)
    assert cnn.predict(mlp, rows, device="cpu").shape == (6,)
    with pytest.raises(ValueError, match=r"x has 4 features per row, but model's first layer takes 5"):
        cnn.predict(mlp, rows[:, :4])


def test_k14_linear_first_model_still_takes_images():
    imgs = np.random.default_rng(2).integers(0, 256, (3, 3, 32, 32), dtype=np.uint8)
    assert cnn.extract_features(feature_net(), imgs, device="cpu").shape == (3, 4)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        cnn.extract_features(feature_net(), imgs.astype(np.float32))


# K15: NaN / inf, 0..255 floats, one channel
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_k15_non_finite_refused(net, x, bad):
    y = x.copy()
    y[0, 0, 0, 0] = bad
    with pytest.raises(
        ValueError, match=r"x holds 1 NaN or infinite pixel values; drop or repair those rows before prediction"
    ):
        cnn.predict_proba(net, y)


def test_k15_float_0_255_refused(net, x):
    with pytest.raises(ValueError, match=r"outside \[0, 1\] \(it looks like 0\.\.255: pass uint8 images or x / 255\)"):
        cnn.predict_logits(net, x * 255)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        cnn.extract_features(net, torch.from_numpy(x * 255))


def test_k15_one_channel_refused(net, x):
    with pytest.raises(ValueError, match=r"1 channel\(s\), but model takes 3.*x\.repeat\(3, axis=1\)"):
        cnn.predict(net, x[:, :1])


def test_k15_valid_inputs_agree(net, x):
    u8 = np.round(x * 255).astype(np.uint8)
    a = cnn.predict_logits(net, u8, device="cpu")
    np.testing.assert_array_equal(a, cnn.predict_logits(net, u8.astype(np.float32) / 255, device="cpu"))
    np.testing.assert_array_equal(a, cnn.predict_logits(net, training.to_float_tensor(u8), device="cpu"))
    assert cnn.predict(net, u8[:0]).shape == (0,)


# K28: batch_size
@pytest.mark.parametrize("bad,err", [(0, ValueError), (-3, ValueError), (2.0, TypeError), (True, TypeError)])
def test_k28_batch_size_refused(net, x, bad, err):
    with pytest.raises(err, match=r"batch_size must be an integer >= 1.*pass e\.g\. batch_size=500"):
        cnn.predict(net, x, batch_size=bad)


# K7: load_from_config on a wrong file
def test_k7_wrong_files(tmp_path):
    cfg = {"arch": "cnn_small", "width": 4}
    ok = tmp_path / "ok.pt"
    torch.save(models.from_config(cfg).state_dict(), ok)
    assert not models.load_from_config(cfg, ok).training
    with pytest.raises(
        ValueError, match=r"holds a head of 10 classes, but num_classes=5 was asked; pass num_classes=10"
    ):
        models.load_from_config(cfg, ok, num_classes=5)
    with pytest.raises(ValueError, match=r"holds SmallCNN weights of other sizes.*another width"):
        models.load_from_config({"arch": "cnn_small", "width": 8}, ok)
    with pytest.raises(ValueError, match=r"holds the weights of another architecture than CifarResNet"):
        models.load_from_config({"arch": "resnet8"}, ok)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match=r"junk\.pt' is not a torch state dict of plain tensors.*delete it") as info:
        models.load_from_config(cfg, junk)
    assert "weights_only" not in str(info.value)
    pickled = tmp_path / "pickled.pt"
    torch.save({"net": object.__new__(torch.nn.Identity)}, pickled)
    with pytest.raises(ValueError, match=r"is not a torch state dict of plain tensors") as info:
        models.load_from_config(cfg, pickled)
    assert "weights_only" not in str(info.value)
    odd = tmp_path / "odd.pt"
    torch.save({"x": 1}, odd)
    with pytest.raises(ValueError, match=r"'x' maps to a int, not a tensor"):
        models.load_from_config(cfg, odd)
    with pytest.raises(ValueError, match=r"is a folder, not a regular file; delete it"):
        models.load_from_config(cfg, tmp_path)


# K8: from_config / build
def test_k8_from_config_refusals():
    with pytest.raises(
        ValueError, match=r"config has no 'arch' key \(it has 'width'\); it needs 'arch': one of cnn_small"
    ):
        models.from_config({"width": 4})
    with pytest.raises(TypeError, match=r"config must be a mapping such as \{'arch': 'cnn_small'\}, got str"):
        models.from_config("cnn_small")


@pytest.mark.parametrize("n,err", [(0, ValueError), (1, ValueError), (10**9, ValueError), (2.0, TypeError)])
def test_k8_num_classes_refused(n, err):
    with pytest.raises(err, match=r"num_classes must be"):
        models.build("cnn_small", num_classes=n)


def test_k8_build_options_and_arch():
    with pytest.raises(TypeError, match=r"build\('cnn_small'\) got the option\(s\) 'depth'.*its options are width"):
        models.build("cnn_small", depth=5)
    with pytest.raises(TypeError, match=r"arch must be an architecture name"):
        models.build(5)
    assert models.build("resnet8", num_classes=models.MAX_CLASSES).head.out_features == models.MAX_CLASSES
