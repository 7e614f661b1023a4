"""Probe O on robeval.msd, redone: corruption_features refuses a corruption listed twice (naming it) and an entry that
cannot be a name (a list inside the list) naming ``corruptions``, instead of computing it twice or failing deep in
numpy (O7)."""

import re

import numpy as np
import pytest

from robeval.msd.distance import corruption_features

IMAGES = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)


def _features(images):
    return images.reshape(len(images), -1)[:, :4].astype(float)


def _corrupt(images, name, severity, *, seed):  # a picklable stand-in for robeval's corruptions
    return images


@pytest.mark.parametrize("corrupt_fn", [None, _corrupt])
@pytest.mark.parametrize(
    "names, repeated",
    [(["fog", "fog"], "'fog'"), (["snow", "fog", "snow", "fog", "frost"], "'snow', 'fog'"), (("fog", "fog"), "'fog'")],
)
def test_a_corruption_listed_twice_is_refused_by_name(names, repeated, corrupt_fn):
    said = f"corruptions lists {repeated} more than once; pass each corruption once"
    with pytest.raises(ValueError, match="^" + re.escape(said)):
        corruption_features(_features, IMAGES, names, [1], 1, 0, corrupt_fn=corrupt_fn, progress=False)


@pytest.mark.parametrize("corrupt_fn", [None, _corrupt])
@pytest.mark.parametrize(
    "names, said",
    [
        ([["fog"], "snow"], "corruptions[0] is list ['fog'], not a corruption name"),
        (["fog", ["snow"]], "corruptions[1] is list ['snow'], not a corruption name"),
        (("fog", {"a": 1}), "corruptions[1] is dict {'a': 1}, not a corruption name"),
        (np.array(["fog", ["snow"]], dtype=object), "corruptions[1] is list ['snow'], not a corruption name"),
    ],
)
def test_an_unhashable_corruption_name_is_refused_naming_corruptions(names, said, corrupt_fn):
    # O7: numpy's "setting an array element with a sequence ... inhomogeneous shape" naming nothing
    with pytest.raises(TypeError, match="^" + re.escape(said)):
        corruption_features(_features, IMAGES, names, [1], 1, 0, corrupt_fn=corrupt_fn, progress=False)


def test_distinct_names_are_computed_as_before():
    out = corruption_features(_features, IMAGES, ["a", "b"], [1, 2], 2, 0, corrupt_fn=_corrupt, progress=False)
    assert out.shape == (2, 2, 2, 4) and not out.any()  # the identity corruption moves no feature
