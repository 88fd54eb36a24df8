"""Line generators, stray-shot extension and melee adjacency (geometry/lines.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lineoffire.geometry.lines import (
    LineMode,
    adjacent,
    centre_line,
    corner_lines,
    corner_to_corner,
    corners_of,
    extend_to_edge,
    origin_lines,
    square_corners,
    squares_of,
)
from lineoffire.maps import Creature


def C(x, y, size="medium", cid="X"):
    return Creature(cid, x, y, size=size)


# ------------------------------------------------------------ corners, squares
def test_corners_of_medium_and_large():
    assert corners_of(C(2, 1)).tolist() == [[2, 1], [3, 1], [2, 2], [3, 2]]
    assert corners_of(C(0, 0, "large")).tolist() == [
        [0, 0], [1, 0], [2, 0],
        [0, 1], [1, 1], [2, 1],
        [0, 2], [1, 2], [2, 2],
    ]


def test_corners_sorted_by_y_then_x_and_unique():
    for size, n in (("tiny", 4), ("huge", 16), ("colossal", 49)):
        pts = corners_of(C(3, 4, size))
        assert len(pts) == n
        assert len({tuple(p) for p in pts}) == n
        keys = [(y, x) for x, y in pts]
        assert keys == sorted(keys)


def test_squares_of_sorted_by_row_then_column():
    assert squares_of(C(3, 1, "large")).tolist() == [[3, 1], [4, 1], [3, 2], [4, 2]]
    sq = squares_of(C(0, 0, "huge"))
    assert [(r, c) for c, r in sq] == sorted((r, c) for c, r in sq)


def test_square_corners_order_tl_tr_bl_br():
    assert square_corners([[4, 7]]).tolist() == [[[4, 7], [5, 7], [4, 8], [5, 8]]]
    with pytest.raises(ValueError, match=r"squares must have shape \(N, 2\)"):
        square_corners([[1, 2, 3]])


def test_corner_lines_literal():
    expected = [[1, 2, 5, 0], [1, 2, 6, 0], [1, 2, 5, 1], [1, 2, 6, 1]]
    assert corner_lines((1, 2), (5, 0)).tolist() == expected
    with pytest.raises(ValueError, match="square must be a pair"):
        corner_lines((1, 2), (5, 0, 1))
    with pytest.raises(ValueError, match="corner must be a point"):
        corner_lines((1, 2, 3), (5, 0))


def test_corner_to_corner_shapes_and_values():
    lines, corners, squares = corner_to_corner(C(0, 0), C(2, 1, "large"))
    assert lines.shape == (4, 4, 4, 4)
    assert corners.tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert squares.tolist() == [[2, 1], [3, 1], [2, 2], [3, 2]]
    # corner (1, 0) to square (3, 2): its corners TL, TR, BL, BR
    assert lines[1, 3].tolist() == [[1, 0, 3, 2], [1, 0, 4, 2], [1, 0, 3, 3], [1, 0, 4, 3]]
    # every line starts at its corner and ends at a corner of its square
    np.testing.assert_array_equal(lines[..., :2], np.broadcast_to(
        corners[:, None, None, :], (4, 4, 4, 2)))
    np.testing.assert_array_equal(lines[..., 2:], np.broadcast_to(
        square_corners(squares)[None], (4, 4, 4, 2)))


def test_centre_line_odd_and_even_spaces():
    assert centre_line(C(0, 0), C(4, 0)).tolist() == [0.5, 0.5, 4.5, 0.5]
    # large: the centre is a grid vertex; huge: a square centre
    assert centre_line(C(0, 0, "large"), C(3, 3, "huge")).tolist() == [1, 1, 4.5, 4.5]


def test_origin_lines_modes():
    t = C(2, 0, "large")
    got = origin_lines((0.25, 3), t, "corners")
    assert got.shape == (4, 4, 4)
    assert got[0].tolist() == [[0.25, 3, 2, 0], [0.25, 3, 3, 0], [0.25, 3, 2, 1], [0.25, 3, 3, 1]]
    assert got[3, 3].tolist() == [0.25, 3, 4, 2]
    assert origin_lines((0.25, 3), t, LineMode.CENTRE).tolist() == [0.25, 3, 3, 1]
    # the origin is snapped to 1/1024
    assert origin_lines((0.1, 0), t, "centre")[0] == 102 / 1024


def test_origin_lines_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of 'corners', 'centre', not 'middle'"):
        origin_lines((0, 0), C(1, 1), "middle")


def test_non_creature_is_type_error():
    with pytest.raises(TypeError, match="creature must be a Creature"):
        corners_of((0, 0, 1, 1))


# ------------------------------------------------------------ extend_to_edge
@pytest.mark.parametrize("seg, expected", [
    # axis directions
    ([1.5, 1.5, 2.5, 1.5], [1.5, 1.5, 10, 1.5]),
    ([1.5, 1.5, 0.5, 1.5], [1.5, 1.5, 0, 1.5]),
    ([1.5, 1.5, 1.5, 2.5], [1.5, 1.5, 1.5, 6]),
    ([1.5, 1.5, 1.5, 1], [1.5, 1.5, 1.5, 0]),
    # diagonals: exact corner and exact edge hits
    ([1, 1, 2, 2], [1, 1, 6, 6]),
    ([4, 2, 3, 1], [4, 2, 2, 0]),
    ([6, 5, 7, 6], [6, 5, 7, 6]),  # the end point is already on the bottom edge
    ([0, 0, 1, 1], [0, 0, 6, 6]),
    # general: lands on the right edge at y = 0.5 + 9.5 / 2
    ([0.5, 0.5, 2.5, 1.5], [0.5, 0.5, 10, 5.25]),
    # general: the top edge at x = 10 / 3, rounded to 3413 / 1024
    ([2, 2, 2.5, 1.25], [2, 2, 3413 / 1024, 0]),
])
def test_extend_to_edge_cases(seg, expected):
    got = extend_to_edge(seg, 10, 6)
    assert got.tolist() == pytest.approx(expected, abs=0)


def test_extend_to_edge_general_rounding_is_documented_nearest():
    # direction (1, -0.75) from (2, 2): reaches y = 0 at x = 2 + 8/3 = 4.666...
    got = extend_to_edge([2, 2, 3, 1.25], 10, 6)
    assert got[3] == 0
    assert got[2] * 1024 == round((2 + 8 / 3) * 1024)
    assert abs(got[2] - (2 + 8 / 3)) <= 1 / 2048


def test_extend_to_edge_vectorised_and_stays_on_the_map():
    rng = np.random.default_rng(7)
    pts = rng.integers(0, 9 * 1024 + 1, size=(500, 4)) / 1024
    pts[:, [1, 3]] *= 5 / 9
    pts = np.rint(pts * 1024) / 1024
    pts = pts[(pts[:, :2] != pts[:, 2:]).any(axis=1)]
    got = extend_to_edge(pts, 9, 5)
    assert got.shape == pts.shape
    np.testing.assert_array_equal(got[:, :2], pts[:, :2])
    x, y = got[:, 2], got[:, 3]
    assert ((x >= 0) & (x <= 9) & (y >= 0) & (y <= 5)).all()
    on_edge = (x == 0) | (x == 9) | (y == 0) | (y == 5)
    assert on_edge.all()
    # the end lies on the lattice and near the true ray: cross product small
    d = pts[:, 2:] - pts[:, :2]
    e = got[:, 2:] - pts[:, :2]
    cross = d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]
    assert (np.abs(cross) <= np.hypot(d[:, 0], d[:, 1]) / 2048 + 1e-12).all()
    # and runs forwards, at least as far as the original end point
    assert ((d * e).sum(axis=1) >= (d * d).sum(axis=1) - 1e-9).all()
    np.testing.assert_array_equal(got * 1024, np.rint(got * 1024))


def test_extend_to_edge_errors():
    with pytest.raises(ValueError, match=r"segment 0 \[1.0, 1.0, 1.0, 1.0\] has zero length"):
        extend_to_edge([1, 1, 1, 1], 5, 5)
    with pytest.raises(ValueError, match="outside the 5x5 map"):
        extend_to_edge([1, 1, 6, 1], 5, 5)
    with pytest.raises(ValueError, match=r"shape \(4,\) or \(N, 4\)"):
        extend_to_edge([1, 1, 2], 5, 5)
    with pytest.raises(ValueError, match="width must be a positive integer"):
        extend_to_edge([1, 1, 2, 2], 0, 5)
    with pytest.raises(ValueError, match="must be finite"):
        extend_to_edge([1, 1, np.nan, 2], 5, 5)


# ------------------------------------------------------------ adjacency
#   0 1 2 3 4 5
# 0 A A . . . .
# 1 A A B . . .
# 2 . . C . . .      A large at (0, 0); B (2, 1) shares an edge, C (2, 2) a
# 3 . . . D . .      corner; D (3, 3) is a square away; E (1, 1) tiny overlaps.
@pytest.mark.parametrize("other, expected", [
    (C(2, 1), True),
    (C(2, 2), True),
    (C(3, 3), False),
    (C(1, 2), True),
    (C(0, 2), True),
    (C(2, 0), True),
    (C(3, 0), False),
    (C(1, 1, "tiny"), False),  # overlapping spaces are not adjacent
    (C(2, 2, "large"), True),  # corner to corner
    (C(0, 3), False),
])
def test_adjacency_truth_table(other, expected):
    a = C(0, 0, "large")
    assert adjacent(a, other) is expected
    assert adjacent(other, a) is expected
