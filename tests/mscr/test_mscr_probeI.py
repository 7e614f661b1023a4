"""Findings #1 and #2 of probe I (issue 62): centres outside ``sample_uniform_ball``'s clip box, and repeated or
near-equal ``eval_levels`` test levels."""

import numpy as np
import pytest

from robeval import mscr


def test_sample_uniform_ball_refuses_centres_outside_the_clip_box():
    """#1: a point at (3, 3) with clip=(0, 1) came back as k copies of the box corner (1, 1)."""
    X = np.array([[0.2, 0.3], [3.0, 3.0]])
    with pytest.raises(ValueError, match=r"^X\[1, 0\] = 3\.0 lies above clip's hi = 1\.0: every centre must lie"):
        mscr.sample_uniform_ball(X, 0.01, 3, np.inf, np.random.default_rng(0), clip=(0, 1))
    with pytest.raises(ValueError, match=r"^X\[0, 1\] = -0\.5 lies below clip's lo = 0\.0"):
        mscr.sample_uniform_ball(np.array([[0.2, -0.5]]), 0.01, 3, 2, np.random.default_rng(0), clip=(0, 1))
    images = np.full((2, 3, 4, 4), 0.5)
    images[1, 2, 3, 1] = 1.5
    with pytest.raises(ValueError, match=r"^X\[1, 2, 3, 1\] = 1\.5 lies above clip's hi = 1\.0"):
        mscr.sample_uniform_ball(images, 0.01, 2, np.inf, np.random.default_rng(0), clip=(0, 1))
    # centres on the box's faces, and the same call without clip, are unchanged
    edge = np.array([[0.0, 1.0], [0.5, 0.5]])
    out = mscr.sample_uniform_ball(edge, 0.01, 3, np.inf, np.random.default_rng(0), clip=(0, 1))
    assert out.shape == (2, 3, 2) and out.min() >= 0 and out.max() <= 1
    assert mscr.sample_uniform_ball(X, 0.01, 3, np.inf, np.random.default_rng(0)).shape == (2, 3, 2)


def test_evaluate_levels_refuses_repeated_and_near_equal_levels_before_evaluating():
    """#2: ``[0.3, 0.3]`` and ``[0.3, 0.1 + 0.2]`` were evaluated and refused only later by the summaries."""
    X = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [1.1, 1.0]])
    y = np.array([0, 0, 1, 1])
    calls = []

    def pred(Z):
        calls.append(len(Z))
        return (Z[:, 0] > 0.5).astype(int)

    with pytest.raises(ValueError, match=r"^eps_test lists 0\.3 more than once \(one test level would be evaluated"):
        mscr.evaluate_levels(pred, X, y, [0.3, 0.3], 2, np.inf, seed=0)
    with pytest.raises(
        ValueError, match=r"^eps_test lists 0\.3 and 0\.30000000000000004, equal but for their last digits"
    ):
        mscr.evaluate_levels(pred, X, y, [0.3, 0.1 + 0.2], 2, np.inf, seed=0)
    assert calls == []
    rows = mscr.evaluate_levels(pred, X, y, [0.3, 0.0], 2, np.inf, seed=0)
    assert [r["eps_test"] for r in rows] == [0.3, 0.0] and rows[1] == {"eps_test": 0.0, "acc": 1.0, "n_eval": 4}
