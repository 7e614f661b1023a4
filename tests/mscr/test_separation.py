"""Tests for robeval.mscr.separation: hand-made point sets with known separations, brute-force agreement."""

import numpy as np
import pytest

from robeval.mscr.separation import eps_min, min_class_separation, nearest_other_class_distance


def _brute(X, y, p):
    X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
    diff = np.abs(X[:, None, :] - X[None, :, :])
    if p == np.inf:
        D = diff.max(-1)
    elif p == 1:
        D = diff.sum(-1)
    else:
        D = np.sqrt((diff**2).sum(-1))
    D[y[:, None] == y[None, :]] = np.inf
    return D.min(1)


# Points (0,0) class 0, (3,4) class 1: L_inf 4, L2 5, L1 7.
@pytest.mark.parametrize("norm,expected", [(np.inf, 4.0), (2, 5.0), (1, 7.0), ("linf", 4.0), ("l2", 5.0)])
def test_two_points_closed_form(norm, expected):
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    y = np.array([0, 1])
    np.testing.assert_allclose(nearest_other_class_distance(X, y, norm), [expected, expected])
    assert min_class_separation(X, y, norm) == pytest.approx(expected)
    assert eps_min(X, y, norm) == pytest.approx(expected / 2)


def test_hand_made_set_per_point_values():
    # class 0 at x = 0 and x = 10, class 1 at x = 1 and x = 4 (1-D embedded in 2-D)
    X = np.array([[0.0, 0.0], [10.0, 0.0], [1.0, 0.0], [4.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    np.testing.assert_allclose(nearest_other_class_distance(X, y, np.inf), [1.0, 6.0, 1.0, 4.0])


def test_same_class_duplicates_ignored_and_cross_class_duplicate_is_zero():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [2.0, 0.0]])
    y = np.array([0, 0, 1])
    np.testing.assert_allclose(nearest_other_class_distance(X, y, 2), [2.0, 2.0, 2.0])
    X2 = np.vstack([X, [[2.0, 0.0]]])
    y2 = np.array([0, 0, 1, 0])  # (2, 0) appears in classes 1 and 0
    np.testing.assert_allclose(nearest_other_class_distance(X2, y2, np.inf), [2.0, 2.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"points 2 and 3 \(labels 1 and 0\)"):  # issue 36: an error, not 0
        min_class_separation(X2, y2, np.inf)


def test_ties_give_the_common_distance():
    # class-1 point equidistant (L2 = 1) from four class-0 points
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0]])
    y = np.array([0, 0, 0, 0, 1])
    np.testing.assert_allclose(nearest_other_class_distance(X, y, 2), np.ones(5))
    # L_inf unit-square corners around the origin: all at distance 1
    np.testing.assert_allclose(nearest_other_class_distance(X, y, np.inf), np.ones(5))


@pytest.mark.parametrize("norm", [np.inf, 2, 1])
@pytest.mark.parametrize("dtype", [np.uint8, np.float64])
def test_high_dimensional_branch_and_bound_is_exact(norm, dtype):
    # d = 300 > 64 takes the pruned path; compare with brute force, with several chunks and 3 classes
    rng = np.random.default_rng(3)
    X = rng.integers(0, 256, size=(240, 3, 10, 10)).astype(dtype)
    if dtype == np.float64:
        X = X / 255.0
    y = rng.integers(0, 3, size=240)
    got = nearest_other_class_distance(X, y, norm, chunk_size=70, pixel_units=dtype == np.uint8)
    np.testing.assert_allclose(got, _brute(X, y, norm), rtol=1e-12, atol=1e-9)


def test_high_dim_near_duplicates_across_classes():
    rng = np.random.default_rng(0)
    X = rng.random((50, 100))
    X[7] = X[3] + 1e-3  # a near-duplicate of point 3 in the other class
    y = np.zeros(50, dtype=int)
    y[7] = 1
    y[25:] = 2
    got = nearest_other_class_distance(X, y, np.inf)
    assert got[3] == pytest.approx(1e-3, rel=1e-6) and got[7] == pytest.approx(1e-3, rel=1e-6)
    np.testing.assert_allclose(got, _brute(X, y, np.inf), rtol=1e-12)


def test_real_2d_dataset_B_table1():
    # Table 1 of the paper: dataset B, L_inf: 2r = 0.008026, eps_min = 0.004013
    path = __import__("pathlib").Path(__file__).resolve().parents[3] / "shared/data/mscr_2d/B_sep.npz"
    if not path.exists():
        pytest.skip("shared data mirror not present")
    with np.load(path) as f:
        X, y = f["x"], f["y"]
    assert X.shape == (4674, 2)
    assert min_class_separation(X, y, np.inf) == pytest.approx(0.008026, abs=5e-7)
    assert eps_min(X, y, np.inf) == pytest.approx(0.004013, abs=5e-7)


@pytest.mark.parametrize(
    "X,y,match",
    [
        (np.zeros((3, 2)), np.zeros(3), "single class"),
        (np.zeros((3, 2)), np.array([0, 1]), "shape"),
        (np.array([[0.0, np.nan], [1.0, 1.0]]), np.array([0, 1]), "NaN"),
        (np.array([[0.0, np.inf], [1.0, 1.0]]), np.array([0, 1]), "NaN or inf"),
        (np.zeros(4), np.array([0, 1, 0, 1]), "shape"),
    ],
)
def test_bad_input(X, y, match):
    with pytest.raises(ValueError, match=match):
        nearest_other_class_distance(X, y, np.inf)


@pytest.mark.parametrize("norm", [3, 0.5, "l3", None])
def test_unknown_norm(norm):
    with pytest.raises(ValueError, match="norm"):
        nearest_other_class_distance(np.eye(2), np.array([0, 1]), norm)


@pytest.mark.parametrize("norm", [np.inf, 2, 1])
@pytest.mark.parametrize("d", [1, 2, 5, 8])
def test_kdtree_path_is_bit_identical_to_the_brute_force(d, norm, monkeypatch):
    """Up to KDTREE_MAX_DIM dimensions a k-d tree proposes the candidates; every distance equals the brute force's
    to the bit, with ties and other-class duplicates (an integer grid, where the tie fallback runs) included."""
    from robeval.mscr import separation

    rng = np.random.default_rng(d)
    cases = [
        (rng.normal(size=(2000, d)), rng.integers(0, 3, 2000)),
        (np.round(rng.normal(size=(2000, d)), 1), rng.integers(0, 4, 2000)),  # duplicates across classes
        (rng.integers(0, 4, size=(2000, d)).astype(float), rng.integers(0, 2, 2000)),  # ties everywhere
    ]
    got = []
    for X, y in cases:
        fast = nearest_other_class_distance(X, y, norm)
        monkeypatch.setattr(separation, "KDTREE_MAX_DIM", 0)
        slow = nearest_other_class_distance(X, y, norm)
        monkeypatch.undo()
        np.testing.assert_array_equal(fast, slow)
        got.append(fast)
    assert (got[0] > 0).all() and (got[2] == 0).any()  # the grid case has other-class twins


def test_kdtree_tie_fallback_runs_for_fully_tied_points(monkeypatch):
    """A point whose K proposals are all at the same distance (a lattice) is measured by the brute force."""
    from robeval.mscr import separation

    calls = []
    real = separation._brute_chunk
    monkeypatch.setattr(separation, "_brute_chunk", lambda *a: calls.append(len(a[1])) or real(*a))
    # one point of class 1 at the centre of a ring of 12 class-0 points at distance 1 (L2): all proposals tie
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    X = np.vstack([[0.0, 0.0], np.c_[np.cos(angles), np.sin(angles)]])
    y = np.r_[1, np.zeros(12, dtype=int)]
    dist = nearest_other_class_distance(X, y, 2)
    assert calls == [1] and dist[0] == pytest.approx(1.0, abs=1e-15)
