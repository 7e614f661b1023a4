"""Probe H #5 and #8.

#5: a certification frame with ``label = -1`` got two contradicting messages (recompute correct; then set correct
= 0), and other negative labels were accepted. A label must be a class index >= 0; -1 is an abstention only in
``predict``.
#8: ``Smooth(num_classes=10**10 and up)`` tried to allocate 80 GB of vote counts at ``certify`` and failed with raw
torch errors; it is now refused when ``Smooth`` is built.
"""

import numpy as np
import pandas as pd
import pytest

from robeval import acr

FRAME = pd.DataFrame(
    {
        "idx": [0, 1, 2, 3],
        "label": [-1, 1, 1, 0],
        "predict": [-1, 1, -1, 1],
        "radius": [0.0, 0.25, 0.0, 0.1],
        "correct": [0, 1, 0, 0],
        "time": [0.1] * 4,
    }
)
MESSAGE = r"^df\['label'\] must be a class index >= 0, but row 0 holds {}; -1 is reserved for abstentions in predict"


@pytest.mark.parametrize("correct", [[0, 1, 0, 0], [1, 1, 0, 0]])
def test_label_minus_one_gets_one_message_naming_label(correct):
    with pytest.raises(ValueError, match=MESSAGE.format(-1)):
        acr.acr(FRAME.assign(correct=correct))


def test_other_negative_labels_refused():
    with pytest.raises(ValueError, match=MESSAGE.format(-5)):
        acr.acr(FRAME.assign(label=[-5, 1, 1, 0], predict=[0, 1, -1, 1]))


def test_valid_frame_unchanged():
    ok = FRAME.assign(label=[2, 1, 1, 0])
    assert acr.acr(ok) == 0.25 / 4


def test_write_certification_tsv_refuses_negative_label(tmp_path):
    with pytest.raises(ValueError, match=r"^df\['label'\] must be a class index >= 0, but row 0 holds -1"):
        acr.files.write_certification_tsv(FRAME, tmp_path / "c.tsv")
    assert not (tmp_path / "c.tsv").exists()


@pytest.mark.parametrize("k", [2**30 + 1, 10**10, 2**62, 10**30, np.int64(2**62)])
def test_smooth_refuses_uncountable_num_classes(k):
    with pytest.raises(ValueError, match=rf"^num_classes={int(k)} would need [0-9.e+]+ GiB of vote counts per input"):
        acr.Smooth(lambda Z: np.zeros(len(Z), int), k, 0.25)


def test_smooth_largest_num_classes_accepted():
    s = acr.Smooth(lambda Z: np.zeros(len(Z), int), 2**30, 0.25)
    assert s.num_classes == 2**30
