import numpy as np
import pytest
import torch

from robeval.core.nn import models, training


@pytest.mark.parametrize("arch,dim", [("cnn_small", 128), ("resnet8", 64), ("resnet20", 64), ("wrn40_2", 128)])
def test_models_shapes_and_features(arch, dim):
    torch.manual_seed(0)
    m = models.build(arch).eval()
    x = torch.rand(2, 3, 32, 32)
    assert m(x).shape == (2, 10)
    f = m.features(x)
    assert f.shape == (2, dim)
    torch.testing.assert_close(m.head(f), m(x))


def test_model_errors_and_mlp():
    with pytest.raises(ValueError, match="Unknown architecture"):
        models.build("vgg")
    with pytest.raises(ValueError, match="6n\\+2"):
        models.CifarResNet(10)
    mlp = models.build("mlp", num_classes=2, in_features=32, hidden=(256, 256))
    # probe J, F18: without in_features, Python's "missing 1 required positional argument" became a robeval message
    with pytest.raises(TypeError, match=r"build\('mlp'\) needs in_features.*in_features=3 \* 32 \* 32"):
        models.build("mlp", num_classes=2)
    assert mlp(torch.zeros(5, 32)).shape == (5, 2) and mlp.features(torch.zeros(5, 32)).shape == (5, 256)


def test_flip_crop_keeps_content_and_is_seeded():
    x = torch.arange(2 * 3 * 8 * 8, dtype=torch.float32).reshape(2, 3, 8, 8)
    a = training.flip_crop(x, torch.Generator().manual_seed(0), pad=2)
    b = training.flip_crop(x, torch.Generator().manual_seed(0), pad=2)
    assert torch.equal(a, b) and a.shape == x.shape
    # with pad=0 the crop is the identity up to the flip
    c = training.flip_crop(x, torch.Generator().manual_seed(1), pad=0)
    for i in range(2):
        assert torch.equal(c[i], x[i]) or torch.equal(c[i], x[i].flip(2))


def test_to_float_tensor():
    u = np.array([[[[0, 255]]]], dtype=np.uint8)
    assert training.to_float_tensor(u).tolist() == [[[[0.0, 1.0]]]]
    with pytest.raises(ValueError, match="uint8"):
        training.to_float_tensor(np.zeros((1, 1, 1, 1), dtype=np.int32))


def _fit(seed):
    rng = np.random.default_rng(0)
    # two linearly separable blobs of "images": class = brightness of the image
    y = rng.integers(0, 2, 256)
    x = (rng.random((256, 3, 8, 8)) * 0.3 + 0.6 * y[:, None, None, None]).astype(np.float32)
    torch.manual_seed(seed)
    m = models.build("cnn_small", num_classes=2, width=4)
    training.train(m, x, y, epochs=3, batch_size=32, lr=0.05, seed=seed, progress=False)
    return m, x, y


def test_training_learns_and_is_deterministic():
    m1, x, y = _fit(0)
    m2, _, _ = _fit(0)
    assert training.accuracy(m1, x, y) > 0.95
    np.testing.assert_array_equal(training.predict_logits(m1, x), training.predict_logits(m2, x))
    p = training.predict_proba(m1, x[:4])
    np.testing.assert_allclose(p.sum(1), 1, rtol=1e-5)
    assert training.extract_features(m1, x[:4]).shape == (4, 16)


def test_training_does_not_depend_on_the_machines_thread_count(monkeypatch):
    """Weight gradients are reduced in a thread-count-dependent order on CPU, so train() fixes the number of
    threads: the same seed gives bit-identical weights whatever the process was started with."""
    import numpy as np
    import torch

    from robeval.core.nn import models, training

    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (128, 3, 32, 32), dtype=np.uint8)
    y = rng.integers(0, 10, 128)
    weights = []
    old = torch.get_num_threads()
    try:
        for outer in (1, 2):
            torch.set_num_threads(outer)
            torch.manual_seed(0)
            m = models.build("cnn_small", width=8)
            training.train(m, x, y, epochs=1, batch_size=32, lr=0.05, seed=0, progress=False)
            weights.append(torch.cat([p.detach().flatten() for p in m.parameters()]).numpy())
            assert torch.get_num_threads() == outer, "train() restores the caller's thread count"
    finally:
        torch.set_num_threads(old)
    np.testing.assert_array_equal(weights[0], weights[1])
    monkeypatch.setenv("ROBEVAL_TRAIN_THREADS", "0")
    with pytest.raises(ValueError, match="ROBEVAL_TRAIN_THREADS"):
        training.train_threads()


def _tiny_images(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8), rng.integers(0, 10, n)


def test_training_loop_never_waits_for_the_device_without_a_progress_bar(monkeypatch):
    """Issue 44, item 4: no per-step synchronisation. Reading a tensor's value (``.item()``, the old progress text)
    waits for a GPU; with ``progress=False`` the loop reads none, and with a bar it reads one loss every
    ``PROGRESS_EVERY`` steps."""
    x, y = _tiny_images()
    calls = []
    real_item = torch.Tensor.item
    monkeypatch.setattr(torch.Tensor, "item", lambda self: calls.append(1) or real_item(self))
    noise = lambda xb, gen: xb + 0.01 * torch.rand(xb.shape, generator=gen, device=xb.device)
    torch.manual_seed(0)
    training.train(models.build("cnn_small", width=4), x, y, epochs=2, batch_size=8, batch_transform=noise,
                   seed=0, progress=False, threads=1)  # fmt: skip
    assert calls == []  # 16 steps, no value read
    monkeypatch.setattr(training, "PROGRESS_EVERY", 4)
    training.train(models.build("cnn_small", width=4), x, y, epochs=2, batch_size=8, seed=0, progress=True, threads=1)
    assert len(calls) == 4  # one loss reading every 4 of the 16 steps


def test_batch_transforms_draw_on_the_device_generator_unless_marked(monkeypatch):
    """The device path, exercised on the CPU: an unmarked transform draws from the device generator (on a GPU a
    generator of the GPU; here a separate CPU generator stands in for it), a transform marked
    ``needs_host_generator`` from the loop's CPU generator; on the CPU itself both are the one generator."""
    x, y = _tiny_images(16)
    seen = {}
    stand_in = torch.Generator().manual_seed(99)
    monkeypatch.setattr(training, "device_generator", lambda seed, device, host: stand_in)

    def unmarked(xb, gen):
        seen["unmarked"] = gen
        return xb

    @training.needs_host_generator
    def marked(xb, gen):
        seen["marked"] = gen
        return xb

    for fn in (unmarked, marked):
        training.train(models.build("cnn_small", width=4), x, y, epochs=1, batch_size=8, batch_transform=fn,
                       seed=0, progress=False, threads=1)  # fmt: skip
    assert seen["unmarked"] is stand_in and seen["marked"] is not stand_in
    monkeypatch.undo()
    host = torch.Generator()
    assert training.device_generator(0, "cpu", host) is host  # the CPU keeps its single stream
    with pytest.raises(TypeError, match="callable"):
        training.needs_host_generator(3)


def test_numpy_augmentations_are_marked_for_the_host_generator():
    from robeval.transforms import augmentations as aug

    assert getattr(aug.make_batch_transform("autoaugment"), "needs_host_generator", False)
    assert getattr(aug.make_batch_transform("patch_gaussian"), "needs_host_generator", False)
    assert getattr(aug.make_batch_transform(["autocontrast", "shear_x"]), "needs_host_generator", False)


def test_widen_narrows_a_wide_resnet_only_when_set(monkeypatch):
    """``widen`` (the dry run of notebook 02) replaces the widening factor of a Wide ResNet's name: WRN-28-1 has
    features of 64 * 1 channels and 1/100 of WRN-28-10's convolution weights; 0 or absent keeps the name's."""
    from robeval.core.profiles import resolve
    from robeval.mscr.cifar import config_cifar

    def n_params(m):
        return sum(p.numel() for p in m.parameters())

    narrow = models.from_config({"arch": "wrn28_10", "widen": 1, "dropout": 0.3})
    assert narrow.features(torch.rand(1, 3, 32, 32)).shape == (1, 64)
    assert n_params(narrow) == n_params(models.WideResNet(28, 1))
    wide = models.from_config({"arch": "wrn28_10", "widen": 0, "dropout": 0.3})
    assert n_params(wide) == n_params(models.build("wrn28_10")) and 90 < n_params(wide) / n_params(narrow) < 100
    assert models.from_config({"arch": "cnn_small", "widen": 3}).features(torch.rand(1, 3, 32, 32)).shape == (1, 128)
    # the settings: only the dry run sets it, and a config without it is the config it always was
    monkeypatch.delenv("ROBEVAL_DRY_RUN", raising=False)
    paper = resolve("mscr_cifar10", "paper")
    assert paper.widen == 0 and "widen" not in config_cifar(paper, [0.0])
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    dry = resolve("mscr_cifar10", "paper")
    assert dry.arch == "wrn28_10" and config_cifar(dry, [0.0])["widen"] == 1


# ------------------------------------------------------------------ issue 62, probe J F1: train()'s input contract
@pytest.mark.parametrize(
    "change, error, said",
    [
        ("nan_images", ValueError, r"x holds 1 NaN or infinite pixel values"),
        (
            "float_0_255",
            ValueError,
            r"x holds float pixel values in \[0, 255\], outside \[0, 1\] \(it looks like 0\.\.255",
        ),
        ("float_above_1", ValueError, r"x holds float pixel values in \[0, 1\.01\], outside \[0, 1\]"),
        ("nhwc", ValueError, r"x has shape \(8, 8, 8, 3\), which looks channels-last .*x\.transpose\(0, 3, 1, 2\)"),
        ("nan_features", ValueError, r"x holds 1 NaN or infinite feature values"),
        ("int_features", TypeError, r"x must hold float features, got dtype int64"),
        ("3d_images", ValueError, r"x must be an image batch of shape \(N, C, H, W\) images or \(N, F\) features"),
        ("fractional_labels", ValueError, r"y must hold integer class indices, got the non-integer value 1\.9"),
        (
            "labels_beyond_classes",
            ValueError,
            r"y holds the label 12, but the model scores 10 classes .*num_classes=13",
        ),
        ("negative_labels", ValueError, r"y holds the label -1; labels must be class indices"),
        ("2d_labels", ValueError, r"y must be one-dimensional \(n,\), got shape \(8, 1\)"),
        ("bool_labels", TypeError, r"y holds booleans; a trainer takes class indices"),
        ("short_labels", ValueError, r"y has 7 labels for 8 inputs"),
        ("lr_nan", ValueError, r"lr must be a finite number > 0, got nan"),
        ("lr_inf", ValueError, r"lr must be a finite number > 0, got inf"),
        ("lr_1e300", ValueError, r"lr must be at most 3\.403e\+38 \(float32's largest number"),
        ("weight_decay_nan", ValueError, r"weight_decay must be a finite number >= 0, got nan"),
        ("momentum_negative", ValueError, r"momentum must be a finite number >= 0, got -0\.5"),
        ("momentum_2", ValueError, r"momentum must be in \[0, 1\), got 2"),
        (
            "seed_2_64",
            ValueError,
            r"seed must be an integer in 0 \.\. 2\*\*64 - 1 \(a torch\.Generator seed\), got 18446744073709551616",
        ),
        ("seed_negative", ValueError, r"seed must be an integer in 0 \.\. 2\*\*64 - 1"),
        ("seed_text", TypeError, r"seed must be an integer in 0 \.\. 2\*\*64 - 1, got '1'"),
        ("threads_0", ValueError, r"threads must be an integer >= 1, got 0; pass e\.g\. threads=2"),
        ("epochs_float", TypeError, r"epochs must be an integer >= 0, got 1\.0; pass e\.g\. epochs=10"),
        ("batch_size_0", ValueError, r"batch_size must be an integer >= 1, got 0"),
    ],
)
def test_train_refuses_inputs_outside_its_contract(change, error, said):
    """Probe J, F1: train() took NaN images, lr = nan, labels 1.9 (as class 1) and float images in 0..255, and
    stopped inside torch (IndexError, RuntimeError) on labels out of range, channels-last batches, seed 2**64,
    threads 0. It now has the fused trainer's contract (robeval.core.nn.checks): each is refused before any
    step, naming the argument and the fix, and the model is left untouched."""
    rng = np.random.default_rng(0)
    x = rng.random((8, 3, 8, 8)).astype(np.float32)
    y = np.arange(8)
    kw = {"epochs": 1, "batch_size": 4, "progress": False, "threads": 1}
    torch.manual_seed(0)
    model = models.build("cnn_small", width=4)
    if change == "nan_images":
        x[3, 1, 2, 2] = np.nan
    elif change == "float_0_255":
        x = x * 255
        x[0, 0, 0, 0], x[0, 0, 0, 1] = 0, 255
    elif change == "float_above_1":
        x[0, 0, 0, 0], x[0, 0, 0, 1] = 0, 1.01
    elif change == "nhwc":
        x = x.transpose(0, 2, 3, 1).copy()
    elif change in ("nan_features", "int_features"):
        model = models.build("mlp", num_classes=8, in_features=5, hidden=(4,))
        x = rng.standard_normal((8, 5))
        if change == "nan_features":
            x[2, 2] = np.nan
        else:
            x = np.arange(40).reshape(8, 5)
    elif change == "3d_images":
        x = x[:, 0]
    elif change == "fractional_labels":
        y = np.full(8, 1.9)
    elif change == "labels_beyond_classes":
        y = np.arange(8) + 5
    elif change == "negative_labels":
        y = np.arange(8) - 1
    elif change == "2d_labels":
        y = y[:, None]
    elif change == "bool_labels":
        y = np.arange(8) % 2 == 0
    elif change == "short_labels":
        y = y[:7]
    else:
        name, _, value = change.partition("_")
        if name in ("weight", "batch"):
            name, value = change.rsplit("_", 1)
        kw[name] = {"nan": float("nan"), "inf": float("inf"), "1e300": 1e300, "negative": -0.5, "2": 2, "0": 0,
                    "2_64": 2**64, "text": "1", "float": 1.0}[value]  # fmt: skip
        if change == "seed_negative":
            kw["seed"] = -1
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(error, match=said):
        training.train(model, x, y, **kw)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # nothing trained


def test_train_contract_takes_what_the_papers_pass():
    """The contract's good inputs still train: uint8 and [0, 1] float images, integer-valued float labels, a
    tensor, numpy integer settings, an MLP on standardised features (negative values) and the largest seed."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (8, 3, 8, 8), dtype=np.uint8)
    y = np.arange(8)
    kw = {"batch_size": 4, "progress": False, "threads": 1}
    for xx, yy in ((x, y), (x / 255.0, y.astype(float)), (torch.from_numpy(x), torch.from_numpy(y))):
        training.train(models.build("cnn_small", width=4), xx, yy, epochs=np.int64(1), seed=2**64 - 1, **kw)
    mlp = models.build("mlp", num_classes=2, in_features=5, hidden=(4,))
    training.train(mlp, rng.standard_normal((8, 5)) * 100, y % 2, epochs=1, flip_crop_aug=False, **kw)
    with pytest.raises(ValueError, match=r"threads must be an integer >= 1, got 0"):
        training.fixed_threads(0)
