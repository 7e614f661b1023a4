"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.msd."""

import numpy as np
import pytest

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
