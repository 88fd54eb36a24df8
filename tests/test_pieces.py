"""Grid distances and the squares pieces occupy (geometry/pieces.py)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from lineoffire.geometry.pieces import (
    creature_piece_distance,
    grid_distance,
    piece_squares,
    point_piece_distance,
    wall_squares,
)
from lineoffire.geometry.types import Blocker
from lineoffire.maps import BattleMap, MapError


# --------------------------------------------------------------- grid distance
# SPEC section 1: d = max + floor(min / 2); hand-counted 1-2-1-2 diagonals.
@pytest.mark.parametrize("dc, dr, d", [
    (0, 0, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1), (2, 1, 2), (2, 2, 3), (3, 3, 4),
    (4, 4, 6), (5, 2, 6), (-5, 2, 6), (6, 0, 6), (6, 1, 6), (6, 2, 7), (-3, -3, 4),
])
def test_grid_distance_table(dc, dr, d):
    assert grid_distance(dc, dr) == d
    assert isinstance(grid_distance(dc, dr), int)


def test_grid_distance_vectorised():
    dc = np.array([[0, 1, 2], [3, 4, 5]])
    dr = np.array([[0, 1, 2], [3, 4, 5]])
    assert grid_distance(dc, dr).tolist() == [[0, 1, 3], [4, 6, 7]]
    assert grid_distance(np.arange(4), 2).tolist() == [2, 2, 3, 4]


# --------------------------------------------------------------- wall squares
def _brute_wall_squares(w, h, p, q):
    """Squares whose closed area meets the open segment, by exact Fractions.

    The open segment meets a closed convex square iff some parameter in (0, 1)
    lies in the clipped interval; sample the interval's midpoint and ends.
    """
    (px, py), (qx, qy) = [(Fraction(x), Fraction(y)) for x, y in (p, q)]
    out = []
    for r in range(h):
        for c in range(w):
            lo, hi = Fraction(0), Fraction(1)
            ok = True
            for a, d, b0 in ((px, qx - px, c), (py, qy - py, r)):
                if d == 0:
                    ok &= b0 <= a <= b0 + 1
                    continue
                t0, t1 = (b0 - a) / d, (b0 + 1 - a) / d
                lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
            if ok and lo <= hi and lo < 1 and hi > 0:
                out.append([c, r])
    return sorted(out, key=lambda s: (s[1], s[0]))


MAP = BattleMap.build(6, 5)


@pytest.mark.parametrize("p, q, expected", [
    # on a vertical grid line: both neighbouring columns, rows it spans openly
    ((2, 1), (2, 3), [[1, 1], [2, 1], [1, 2], [2, 2]]),
    # on a horizontal grid line
    ((0, 2), (2, 2), [[0, 1], [1, 1], [0, 2], [1, 2]]),
    # on the map's outer edge: only the squares inside the map
    ((0, 0), (0, 2), [[0, 0], [0, 1]]),
    # diagonal through grid vertices: the vertex (1, 1) is in the open segment
    ((0, 0), (2, 2), [[0, 0], [1, 0], [0, 1], [1, 1]]),
    # diagonal ending on a vertex: that vertex's other squares are not met
    ((0, 0), (1, 1), [[0, 0]]),
    # inside one square
    ((3.25, 1.5), (3.75, 1.75), [[3, 1]]),
    # ending exactly on a grid line: the square beyond is not met
    ((3.5, 1.5), (4, 1.5), [[3, 1]]),
    # general slope 1/3, which passes the vertex (2, 1) on its way
    ((0.5, 0.5), (3.5, 1.5), [[0, 0], [1, 0], [2, 0], [1, 1], [2, 1], [3, 1]]),
    # general slope 1/4, crossing y = 1 at x = 2.5: no vertex
    ((0.5, 0.5), (4.5, 1.5), [[0, 0], [1, 0], [2, 0], [2, 1], [3, 1], [4, 1]]),
])
def test_wall_squares_table(p, q, expected):
    got = wall_squares(MAP, p, q).tolist()
    assert sorted(got, key=lambda s: (s[1], s[0])) == sorted(expected, key=lambda s: (s[1], s[0]))
    assert got == sorted(got, key=lambda s: (s[1], s[0]))
    assert got == _brute_wall_squares(6, 5, p, q)


def test_wall_squares_match_exact_brute_force_on_random_walls():
    rng = np.random.default_rng(11)
    for _ in range(150):
        # quarter and 1/1024 coordinates, many on grid lines and vertices
        denom = rng.choice([1, 2, 4, 1024])
        p = rng.integers(0, 6 * denom + 1, size=2) / denom
        q = rng.integers(0, 5 * denom + 1, size=2) / denom
        p[1] = min(p[1], 5)
        q[0] = min(q[0], 6)
        if (p == q).all():
            continue
        assert wall_squares(MAP, p, q).tolist() == _brute_wall_squares(6, 5, p, q), (p, q)


def test_wall_squares_zero_length():
    with pytest.raises(ValueError, match="has zero length"):
        wall_squares(MAP, (1, 1), (1, 1))


# --------------------------------------------------------------- piece squares
#   0 1 2 3 4 5 6 7
# 0 A . . . . | . .      A medium (0, 0); L large (5, 3)
# 1 . . = . . | . .      low square (2, 1); wall 0 on x = 5 from y = 0 to 2
# 2 . . . . . . . .      wall 1: low, diagonal (1, 3) -> (3, 5) -> (3, 6)
# 3 . = . . . L L .
# 4 . . . . . L L .
PIECES = BattleMap.build(
    8, 6,
    squares=["........", "..=.....", "........", ".=......", "........", "........"],
    walls=[{"points": [[5, 0], [5, 2]]},
           {"kind": "low", "points": [[1, 3], [3, 5], [3, 6]]}],
    creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "L", "x": 5, "y": 3, "size": "large"}],
)


def test_piece_squares_kinds():
    assert piece_squares(PIECES, ("square", (2, 1))).tolist() == [[2, 1]]
    assert piece_squares(PIECES, Blocker("low", 0.5, square=(2, 1))).tolist() == [[2, 1]]
    assert piece_squares(PIECES, ("wall", (0, 0))).tolist() == [[4, 0], [5, 0], [4, 1], [5, 1]]
    # through the vertex (2, 4): all four squares there meet the open segment
    assert piece_squares(PIECES, Blocker("low", 0.2, wall=(1, 0))).tolist() == [
        [1, 3], [2, 3], [1, 4], [2, 4]]
    assert piece_squares(PIECES, ("wall", (1, 1))).tolist() == [[2, 5], [3, 5]]
    assert piece_squares(PIECES, ("creature", "L")).tolist() == [[5, 3], [6, 3], [5, 4], [6, 4]]


def test_piece_squares_errors():
    with pytest.raises(MapError, match="wall index 7 out of range: the map has 2 walls"):
        piece_squares(PIECES, ("wall", (7, 0)))
    with pytest.raises(MapError, match="wall 0 has no segment 1: it has 1"):
        piece_squares(PIECES, ("wall", (0, 1)))
    with pytest.raises(MapError, match=r"square \(8, 0\) lies outside the 8x6 map"):
        piece_squares(PIECES, ("square", (8, 0)))
    with pytest.raises(MapError, match="unknown creature id 'Z'"):
        piece_squares(PIECES, ("creature", "Z"))
    with pytest.raises(ValueError, match="blocker kind must be 'square', 'wall' or 'creature'"):
        piece_squares(PIECES, ("door", (0, 0)))
    with pytest.raises(TypeError, match="blocker must be a Blocker or a"):
        piece_squares(PIECES, 3)


# --------------------------------------------------------- creature distances
@pytest.mark.parametrize("cid, piece, d", [
    ("A", ("square", (2, 1)), 2),     # (0, 0) -> (2, 1): dc 2, dr 1
    ("A", ("square", (1, 3)), 3),     # dc 1, dr 3
    ("A", ("wall", (0, 0)), 4),       # nearest wall square (4, 0)
    ("A", ("wall", (1, 0)), 3),       # (0, 0) -> (1, 3)
    ("L", ("wall", (0, 0)), 2),       # (5, 3) -> (5, 1)
    ("L", ("square", (2, 1)), 4),     # (5, 3) -> (2, 1): dc 3, dr 2 -> 3 + 1
    ("L", ("square", (1, 3)), 4),     # (5, 3) -> (1, 3)
    ("L", ("wall", (1, 0)), 3),       # (5, 4) -> (2, 4)
    ("L", ("wall", (1, 1)), 2),       # (5, 4) -> (3, 5): dc 2, dr 1
])
def test_creature_piece_distance_table(cid, piece, d):
    assert creature_piece_distance(PIECES, cid, piece) == d
    assert creature_piece_distance(PIECES, PIECES.creature(cid), piece) == d


def test_wall_on_a_creatures_edge_is_at_distance_zero():
    m = BattleMap.build(4, 3, walls=[{"kind": "slit", "points": [[2, 0], [2, 3]]}],
                        creatures=[{"id": "S", "x": 1, "y": 1}, {"id": "T", "x": 3, "y": 1}])
    assert creature_piece_distance(m, "S", ("wall", (0, 0))) == 0
    assert creature_piece_distance(m, "T", ("wall", (0, 0))) == 1


def test_point_piece_distance():
    # a point inside a square, on a grid line, and on a grid vertex
    assert point_piece_distance(PIECES, (0.5, 0.5), ("square", (2, 1))) == 2
    assert point_piece_distance(PIECES, (1, 0.5), ("square", (2, 1))) == 1
    assert point_piece_distance(PIECES, (2, 1), ("square", (2, 1))) == 0
    assert point_piece_distance(PIECES, (8, 6), ("wall", (0, 0))) == 5
    with pytest.raises(MapError, match=r"point \(9, 0\) lies outside the 8x6 map"):
        point_piece_distance(PIECES, (9, 0), ("square", (2, 1)))
    with pytest.raises(ValueError, match="point must be a finite"):
        point_piece_distance(PIECES, (1, 2, 3), ("square", (2, 1)))
