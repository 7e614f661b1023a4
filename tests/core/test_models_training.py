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
