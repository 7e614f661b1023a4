"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.msd."""

import numpy as np
import pytest
import torch

from feature_nets import feature_net
from robeval import msd

IMAGES = np.random.default_rng(0).integers(0, 255, (2, 32, 32, 3), dtype=np.uint8)


def _features(x):
    return x.reshape(len(x), -1)[:, :5].astype(float)


def test_mmd_refuses_complex_features():
    F = np.random.default_rng(0).random((4, 3))
    with pytest.raises(ValueError, match="aug_feats must be real-valued"):
        msd.mmd(F + 1j, F)
    with pytest.raises(ValueError, match="corr_feats must be real-valued"):
        msd.mmd(F, F + 1j)


@pytest.mark.parametrize(
    ("kw", "exc", "fragment"),
    [
        (dict(corruptions=[]), ValueError, "corruptions is empty"),
        (dict(corruptions=["nosuch"]), ValueError, "corruptions must name a corruption"),
        (dict(batch_size=0), ValueError, "batch_size"),
        (dict(n_jobs=0), ValueError, "n_jobs"),
        (dict(chunk=0), ValueError, "chunk"),
        (dict(progress="no"), TypeError, "progress"),
        (dict(feature_fn=lambda x: _features(x)[:, 0]), ValueError, "feature_fn must return one feature row"),
        (dict(feature_fn=lambda x: _features(x)[:1]), ValueError, "feature_fn must return one feature row"),
    ],
)
def test_corruption_features_refusals(kw, exc, fragment):
    args = dict(feature_fn=_features, images=IMAGES, corruptions=["fog"], severities=[1], n_samples=2, seed=0)
    args["progress"] = False
    args.update(kw)
    with pytest.raises(exc, match=fragment) as err:
        msd.corruption_features(**args)
    assert "name " not in str(err.value).split("must")[0]


def test_transform_features_refusals():
    def same(images, rng):
        return images

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="batch_size"):
        msd.transform_features(_features, IMAGES, same, rng, 2, batch_size=0)
    with pytest.raises(TypeError, match="progress"):
        msd.transform_features(_features, IMAGES, same, rng, 2, progress="no")
    with pytest.raises(ValueError, match="feature_fn must return"):
        msd.transform_features(lambda x: _features(x)[:, 0], IMAGES, same, rng, 2)
    assert msd.transform_features(_features, IMAGES, same, rng, 2).shape == (2, 5)


def test_mixture_transform_checks_every_name_up_front():
    with pytest.raises(ValueError, match="names must name a corruption.*'nosuch'"):
        msd.mixture_transform(["nosuch", "fog"], [0.5, 0.5])
    with pytest.raises(TypeError, match="names must be a sequence"):
        msd.mixture_transform("fog", [1.0])


def test_scheme_transform_checks_its_keywords_when_made():
    """A second probe: a misspelt keyword (``severty=9``) was accepted and failed only when the transform ran."""
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['severty'\]; it takes mode, severity"):
        msd.scheme_transform({"rotate"}, severty=9)
    with pytest.raises(ValueError, match="width"):
        msd.scheme_transform({"rotate"}, width=0)
    out = msd.scheme_transform({"rotate"}, width=2, max_depth=1)(IMAGES, np.random.default_rng(0))
    assert out.shape == IMAGES.shape and out.dtype == np.uint8


def test_augmix_keywords_refuse_booleans_and_fractions():
    """S3: ``width=True``, ``width=2.5`` and ``alpha=True`` were accepted (as 1, 2 and 1)."""
    from robeval import transforms

    g = np.random.default_rng(0)
    with pytest.raises(TypeError, match="width must be an integer, got 2.5"):
        transforms.apply_scheme(IMAGES, ["autocontrast"], g, width=2.5)
    with pytest.raises(TypeError, match="width must be an integer, got True"):
        transforms.apply_scheme(IMAGES, ["autocontrast"], g, width=True)
    with pytest.raises(TypeError, match="width must be an integer, got True"):
        msd.scheme_transform(["autocontrast"], width=True)
    with pytest.raises(TypeError, match="max_depth must be an integer, got True"):
        msd.scheme_transform(["autocontrast"], max_depth=True)
    with pytest.raises(TypeError, match="alpha must be a number, got True"):
        msd.scheme_transform(["autocontrast"], alpha=True)
    with pytest.raises(ValueError, match="width must be > 0, got 0"):
        msd.scheme_transform(["autocontrast"], width=0)
    assert transforms.apply_scheme(IMAGES, ["autocontrast"], g, width=np.int64(2), alpha=0.5).shape == IMAGES.shape


def test_mixture_transform_refuses_repeated_names_and_severities():
    """S4: severities (1, 1, 2) drew severity 1 twice as often as 2; names ['fog', 'fog'] were accepted."""
    with pytest.raises(ValueError, match=r"severities lists 1 more than once \(it would be drawn twice as often"):
        msd.mixture_transform(["fog"], [1.0], severities=(1, 1, 2))
    with pytest.raises(ValueError, match="names lists 'fog' more than once"):
        msd.mixture_transform(["fog", "fog"], [0.5, 0.5])
    assert callable(msd.mixture_transform(["fog", "snow"], [0.5, 0.5], severities=(1, 2)))


def test_distances_refuse_booleans():
    """S5: boolean feature arrays were read as 1 and 0."""
    with pytest.raises(TypeError, match="aug_feats must hold numbers.*got booleans"):
        msd.mmd(np.ones((3, 2)) > 0, np.zeros((2, 2)))
    with pytest.raises(TypeError, match="corr_feats must hold numbers.*got booleans"):
        msd.msd(np.ones((3, 2)), np.zeros((2, 2)) > 0)


def test_distances_that_overflow_are_refused_and_normal_ones_unchanged():
    """S6: features of magnitude 1e200 gave inf (the squares overflow)."""
    big, zero = np.full((2, 3), 1e200), np.zeros((2, 3))
    with pytest.warns(RuntimeWarning):
        for fn in (msd.msd, msd.mmd):
            with pytest.raises(
                ValueError, match=r"(msd|mmd) is not finite although aug_feats and corr_feats are.*Scale"
            ):
                fn(big, zero)
        with pytest.raises(ValueError, match="msd_many is not finite although aug_feats and corr_means are"):
            msd.msd_many(big, zero)
    F = np.random.default_rng(1).normal(size=(5, 4))
    C = np.random.default_rng(2).normal(size=(3, 4))
    assert msd.msd(F, C) == float(np.min(np.linalg.norm(F - C.mean(0), axis=1)))
    assert msd.mmd(F, C) == float(np.linalg.norm(F.mean(0) - C.mean(0)))
    assert msd.msd(big / 1e200, zero) == float(np.sqrt(3.0))


def test_mmd_of_features_near_1e_170_does_not_underflow_to_0():
    """probeE #13: the squares of the norm underflowed and the distance read 0 (identical distributions)."""
    a, c = np.array([[1e-170, 0.0], [3e-170, 0.0]]), np.array([[2.1e-170, 0.0]])
    assert msd.mmd(a, c) == pytest.approx(0.1e-170, rel=1e-12)  # |2e-170 - 2.1e-170|
    np.testing.assert_allclose(msd.mmd_many(a, c), [0.1e-170], rtol=1e-12)
    F, G = np.random.default_rng(0).normal(size=(2, 6, 3))
    assert msd.mmd(F, G) == float(np.linalg.norm(F.mean(0) - G.mean(0)))  # ordinary features: as before
    # msd and msd_many likewise (they reach 04's grid cells: fixed with that notebook's packs rebound): the nearest
    # sample to the mean 2.1e-170 is 3e-170, 0.9e-170 away; msd_many of the mean is msd, bit for bit
    assert msd.msd(a, c) == pytest.approx(0.9e-170, rel=1e-12)
    assert msd.msd_many(a, c)[0] == msd.msd(a, c)
    assert msd.msd(F, G) == float(np.min(np.linalg.norm(F - G.mean(0), axis=1)))  # ordinary features: as before


def test_corruption_and_mixture_transforms_take_an_int_seed():
    """probeE #17: an int rng gave AttributeError ('int' object has no attribute 'choice' / 'integers')."""
    for make in (lambda: msd.mixture_transform(["fog"], [1.0]), lambda: msd.corruption_transform("fog", 3)):
        np.testing.assert_array_equal(make()(IMAGES, 0), make()(IMAGES, np.random.default_rng(0)))


def test_mixture_transform_normalises_probabilities_beyond_choices_tolerance():
    """probeE #22: a sum of 1.0000001 passed np.isclose, then Generator.choice refused it at the first call."""
    fn = msd.mixture_transform(["fog", "snow"], [0.5, 0.5000001])
    assert fn(IMAGES, np.random.default_rng(0)).shape == IMAGES.shape


def test_model_feature_fn_refuses_float_images_and_unusable_devices_and_keeps_the_models_mode():
    """Probe F #4, #6: float images in 0..255 were taken as if in [0, 1] (features off by ~117), the model was left
    in eval mode, and a device torch cannot use here failed at the first call with torch's own error."""
    net = feature_net().train()
    f = msd.model_feature_fn(net)
    a = f(IMAGES)
    assert a.shape == (len(IMAGES), 4) and net.training  # the model's own mode is kept
    with pytest.raises(ValueError, match="images must have dtype uint8"):
        f(IMAGES.astype(np.float32))
    for device, error in (("gpu", ValueError), ("meta", ValueError), (1.5, TypeError)):
        with pytest.raises(error, match=rf"^device(={device!r}| must be a torch device name)"):
            msd.model_feature_fn(net, device=device)
    np.testing.assert_array_equal(msd.model_feature_fn(net, device="cpu")(IMAGES), a)
    # probe F #4: a float64 or float16 network failed at the first call with torch's dtype error
    for cast in (torch.nn.Module.double, torch.nn.Module.half):
        with pytest.raises(ValueError, match=r"^model's parameters are torch.float(64|16), .*model.float\(\) first"):
            msd.model_feature_fn(cast(feature_net()))


def test_a_feature_function_returning_text_or_a_varying_width_is_named():
    """Probe F #14: text features gave numpy's 'could not convert string to float', ragged rows its 'setting an array
    element with a sequence', and a width that grows from call to call a broadcast error."""
    calls = [0]

    def widening(z):
        calls[0] += 1
        return np.zeros((len(z), 2 + calls[0]))

    def ragged(z):
        return [[0.0] * (1 + i % 2) for i in range(len(z))]

    cases = {
        "text": (lambda z: np.array([["a"] * 3] * len(z)), r"^feature_fn must return numbers, .*got ndarray of text"),
        "ragged": (ragged, r"^feature_fn must return numbers, .*rows of different lengths"),
        "widening": (widening, r"^feature_fn returned 4 features per image, 3 in its earlier calls"),
    }
    for fn, message in cases.values():
        with pytest.raises(ValueError, match=message):
            msd.corruption_features(fn, IMAGES, ["gaussian_noise"], [1], n_samples=2, seed=0, progress=False)
    # a width that changes between corruptions, each consistent on its own: 2 calls per corruption (clean images,
    # then the 2 realisations in one batch), so calls 1-2 give 3 features and calls 3-4 give 5
    calls[0] = 0

    def per_corruption(z):
        calls[0] += 1
        return np.zeros((len(z), 3 if calls[0] <= 2 else 5))

    with pytest.raises(ValueError, match=r"^feature_fn returned 5 features per image for snow at severity 1, 3 before"):
        msd.corruption_features(per_corruption, IMAGES, ["fog", "snow"], [1], 2, 0, progress=False)
