"""Probe K (K13, K15 for extract_features, K16): the inference inputs of robeval.core.nn.extract_features and the
labels of robeval.core.nn.accuracy are checked before anything runs, naming the argument and the fix."""

import numpy as np
import pandas as pd
import pytest
import torch

from robeval.core import nn


@pytest.mark.parametrize("device", ["mps", "meta"])
def test_extract_features_refuses_a_device_this_machine_cannot_use(net, device):
    # K13: 'mps' stopped inside torch ("PyTorch is not linked with support for mps devices")
    m, x, _ = net
    with pytest.raises(ValueError, match=rf"^device='{device}' .*pass 'cpu'"):
        nn.extract_features(m, x, device=device)


def test_extract_features_refuses_nan_255_floats_and_the_wrong_channels(net):
    # K15: NaN images gave NaN features, 0..255 floats were read as [0, 1], 1 channel was broadcast to 3
    m, x, _ = net
    bad = x.copy()
    bad[1, 0, 0, :2] = [np.nan, np.inf]
    with pytest.raises(ValueError, match=r"^x holds 2 NaN or infinite (pixel )?values; .*drop or repair those rows"):
        nn.extract_features(m, bad)
    with pytest.raises(ValueError, match=r"outside \[0, 1\] \(it looks like 0\.\.255: pass uint8 images or x / 255\)"):
        nn.extract_features(m, x * 255)
    with pytest.raises(
        ValueError, match=r"^x has shape \(4, 1, 32, 32\): 1 channel\(s\), but model takes 3 .*x\.repeat\(3, axis=1\)"
    ):
        nn.extract_features(m, x[:, :1])
    with pytest.raises(ValueError, match=r"^x has shape \(4, 3072\), a matrix, .*pass x\.reshape\(4, 3, 32, 32\)"):
        nn.extract_features(m, x.reshape(4, -1))


def test_extract_features_of_valid_input_is_unchanged(net):
    m, x, _ = net
    u8 = np.clip(np.rint(x * 255), 0, 255).astype(np.uint8)
    with torch.no_grad():
        want = m.features(torch.from_numpy(u8).float() / 255.0).numpy()
    np.testing.assert_array_equal(nn.extract_features(m, u8, device="cpu"), want)
    # an empty batch: no rows, of the model's feature width (probe M: (0,) before, which no (N, D) result stacks with)
    assert nn.extract_features(m, x[:0]).shape == (0, 128)
    mlp = nn.build("mlp", in_features=5, num_classes=2).eval()
    feats = np.random.default_rng(1).normal(size=(3, 5)).astype(np.float32) * 100  # tabular: any finite range
    assert nn.extract_features(mlp, feats).shape == (3, 256)


def test_accuracy_takes_the_label_contract_of_train(net):
    # K16: each of these returned 0.0 (or numpy's broadcast error for y[:3])
    m, x, y = net
    assert nn.accuracy(m, x, y) == 1.0 and nn.accuracy(m, x, y.astype(float)) == 1.0
    assert nn.accuracy(m, x, pd.Series(y)) == 1.0 and nn.accuracy(m, x, torch.as_tensor(y)) == 1.0
    wrong = (y + 1) % 10
    wrong[0] = y[0]
    assert nn.accuracy(m, x, wrong) == 0.25
    with pytest.raises(ValueError, match=r"^y must hold integer class indices, got the non-integer value"):
        nn.accuracy(m, x, y + 0.5)
    with pytest.raises(ValueError, match=r"^y holds the label 10, but the model scores 10 classes \(0\.\.9\)"):
        nn.accuracy(m, x, np.full(4, 10))
    with pytest.raises(ValueError, match=r"^y holds the label -1; labels must be class indices 0\.\.C-1"):
        nn.accuracy(m, x, np.full(4, -1))
    with pytest.raises(TypeError, match=r"^y must hold integer class indices, got dtype <U1"):
        nn.accuracy(m, x, np.array(list("abcd")))
    with pytest.raises(ValueError, match=r"^y has 3 labels for 4 inputs"):
        nn.accuracy(m, x, y[:3])
    with pytest.raises(ValueError, match=r"^y is a pandas Series with the index \[3, 2, 1, 0\], .*y\.to_numpy\(\)"):
        nn.accuracy(m, x, pd.Series(y, index=[3, 2, 1, 0]))
