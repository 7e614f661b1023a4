"""Probe L on robeval.core.nn: masked arrays (L5); build options, tiny images, train hooks, a dangling link (L9)."""

import numpy as np
import pytest
import torch

from robeval.core import nn

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"


def test_accuracy_refuses_masked_labels_and_images(net):
    # L5: the masked labels were counted like any other
    m, x, y = net
    with pytest.raises(TypeError, match="^y" + MASKED):
        nn.accuracy(m, x, np.ma.masked_array(y, [0, 0, 0, 1]))
    with pytest.raises(TypeError, match="^x" + MASKED):
        nn.accuracy(m, np.ma.masked_array(x, np.zeros_like(x, dtype=bool)), y)
    assert nn.accuracy(m, x, y) == 1.0


@pytest.mark.parametrize(
    "arch, kw, kind, said",
    [
        ("cnn_small", {"width": -3}, ValueError, r"^width must be an integer >= 1, got -3"),
        ("cnn_small", {"width": 0}, ValueError, r"^width must be an integer >= 1, got 0"),
        ("cnn_small", {"width": 10**6}, ValueError, r"^width must be at most 1024 \(a larger network is a typo\)"),
        ("cnn_small", {"width": 2.5}, TypeError, r"^width must be an integer >= 1, got 2\.5"),
        ("cnn_small", {"width": True}, TypeError, r"^width must be an integer >= 1, got True"),
        ("mlp", {"in_features": 4, "hidden": "64"}, TypeError, r"^hidden must be a list of layer widths"),
        ("mlp", {"in_features": 4, "hidden": (-5,)}, ValueError, r"^hidden must list whole-number layer widths >= 1"),
        ("mlp", {"in_features": 0}, ValueError, r"^in_features must be an integer >= 1, got 0"),
        (
            "mlp",
            {"in_features": 10**6, "hidden": (10**5,)},
            ValueError,
            r"^build\(.mlp.\) with in_features=1,000,000 and hidden=\(100000,\) holds 100,001,100,000 weights, more than 2,147,483,648",
        ),
        ("wrn40_2", {"widen": 0}, ValueError, r"^widen must be an integer >= 1, got 0"),
        ("wrn28_10", {"widen": 101}, ValueError, r"^widen must be at most 100 \(a larger network is a typo\), got 101"),
        (
            "wrn40_2",
            {"dropout": float("nan")},
            ValueError,
            r"^dropout must be a probability in \[0, 1\), e\.g\. 0\.3, got nan",
        ),
        ("wrn40_2", {"dropout": "0.3"}, TypeError, r"^dropout must be a probability in \[0, 1\)"),
        (
            "resnet20",
            {"widen": 10},
            TypeError,
            r"^build\('resnet20'\) got the option\(s\) 'widen', which it does not take; it takes no options",
        ),
        ("resnet8", {"width": 999}, TypeError, r"^build\('resnet8'\) got the option\(s\) 'width'"),
    ],
)
def test_build_checks_its_size_options(arch, kw, kind, said):
    # L9: torch's negative-dimension / allocator / divisibility errors, and width=0, widen=0 (built with 2),
    # in_features=0, dropout=nan and resnet options accepted in silence
    with pytest.raises(kind, match=said):
        nn.build(arch, **kw)


def test_predict_on_images_too_small_for_the_model_says_so():
    # L9: RuntimeError: Output size is too small (torch functional.py)
    torch.manual_seed(0)
    m = nn.build("cnn_small", num_classes=4, width=4)
    with pytest.raises(
        ValueError, match=r"^x holds images of 1x1 pixels, too small for SmallCNN \(torch: .*e\.g\. 32x32\.$"
    ):
        nn.predict(m, np.zeros((1, 3, 1, 1), np.float32))


@pytest.fixture
def small():
    torch.manual_seed(0)
    x = np.random.default_rng(0).random((8, 3, 32, 32)).astype(np.float32)
    return nn.build("cnn_small", num_classes=4, width=4), x, np.arange(8) % 4


def test_train_checks_what_its_hooks_return(small):
    # L9: AttributeError ('numpy.ndarray' object has no attribute 'to'; 'NoneType' object has no attribute
    # 'backward') and torch's batch-size mismatch
    m, x, y = small
    shape = r"must return a torch tensor of the batch's shape \(8, 3, 32, 32\), got "
    with pytest.raises(TypeError, match=r"^batch_transform\(xb, generator\) " + shape + "a ndarray"):
        nn.train(m, x, y, epochs=1, batch_transform=lambda xb, g: xb.numpy(), progress=False)
    with pytest.raises(TypeError, match=r"^batch_transform\(xb, generator\) " + shape + r"\(1, 3, 32, 32\)"):
        nn.train(m, x, y, epochs=1, batch_transform=lambda xb, g: xb[:1], progress=False)
    with pytest.raises(
        TypeError,
        match=r"^step_fn\(model, xb, yb, epoch\) must return the batch's loss as a scalar torch tensor .*got a NoneType",
    ):
        nn.train(m, x, y, epochs=1, step_fn=lambda *a, **k: None, progress=False)


def test_train_refuses_masked_labels_and_images(small):
    # L5: the masked labels and images were trained on
    m, x, y = small
    with pytest.raises(TypeError, match="^y" + MASKED):
        nn.train(m, x, np.ma.masked_array(y, [0] * 7 + [1]), epochs=1, progress=False)
    with pytest.raises(TypeError, match="^x" + MASKED):
        nn.train(m, np.ma.masked_array(x, np.zeros_like(x, dtype=bool)), y, epochs=1, progress=False)


def test_load_from_config_of_a_dangling_link_names_it(tmp_path):
    # Minor: raw FileNotFoundError: [Errno 2]
    import os

    os.symlink(tmp_path / "gone.pt", tmp_path / "w.pt")
    with pytest.raises(
        FileNotFoundError,
        match=rf"^path '{tmp_path / 'w.pt'}': no such file \(a link to the missing {tmp_path / 'gone.pt'}\); delete it",
    ):
        nn.load_from_config({"arch": "cnn_small"}, tmp_path / "w.pt")
