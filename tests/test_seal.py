"""The cheap total-cover proof (geometry.seal): sound on random maps, and what it proves.

``sealed`` may only say True where the exact line-of-effect search finds no
line of effect; the search here runs without the proof (``effect._search``
straight), so the two are independent.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineoffire.geometry import effect, seal
from lineoffire.geometry.seal import sealed, sealed_pairs
from lineoffire.maps import BattleMap

from boards import place_space
from conftest import HAVE_KERNEL

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="no kernel yet")

SPACE = {"medium": 1, "large": 2, "huge": 3}


def _exact_line_of_effect(m: BattleMap, ai: int, ti: int) -> bool:
    """The fast accept and the exact search of geometry.effect, without the proof."""
    if effect._search(m, [(ai, ti)], exact=False)[0] is not None:
        return True
    return effect._search(m, [(ai, ti)], exact=True)[0] is not None


def _grid_map(rng: np.random.Generator) -> BattleMap | None:
    """A small map made to catch a proof that claims too much: solid squares,
    runs of walls and doors (open and closed) on grid lines, some ending in
    mid-edge, walls off the grid, slits and low walls, creatures of mixed
    sizes.  End points lie on the lattice of 1/2 so that lines graze ends,
    corners and seams exactly."""
    w, h = int(rng.integers(6, 14)), int(rng.integers(5, 12))
    squares = np.where(rng.random((h, w)) < rng.uniform(0.05, 0.35), 1, 0).astype(np.uint8)
    walls = []
    for _ in range(int(rng.integers(0, 12))):
        kind = str(rng.choice(["wall", "wall", "wall", "door", "slit", "low"]))
        if rng.random() < 0.8:  # on a grid line
            length = rng.integers(1, 9) / (2 if rng.random() < 0.3 else 1)
            if rng.random() < 0.5:
                x = int(rng.integers(0, w + 1))
                y = rng.integers(0, 2 * h) / 2
                pts = [[x, y], [x, min(y + length, h)]]
            else:
                y = int(rng.integers(0, h + 1))
                x = rng.integers(0, 2 * w) / 2
                pts = [[x, y], [min(x + length, w), y]]
        else:
            p = rng.integers(0, [2 * w + 1, 2 * h + 1]) / 2
            q = rng.integers(0, [2 * w + 1, 2 * h + 1]) / 2
            pts = [p.tolist(), q.tolist()]
        if pts[0] == pts[1]:
            continue
        wall = {"kind": kind, "points": pts}
        if kind == "door":
            wall["open"] = bool(rng.random() < 0.4)
        walls.append(wall)
    taken = squares.astype(bool).copy()
    creatures = []
    for i in range(int(rng.integers(3, 9))):
        size = str(rng.choice(["medium", "medium", "large", "huge"]))
        at = place_space(rng, taken, SPACE[size], 40)
        if at is not None:
            creatures.append({"id": f"c{i}", "x": at[0], "y": at[1], "size": size})
    if len(creatures) < 2:
        return None
    return BattleMap.build(w, h, squares=squares, walls=walls, creatures=creatures)


def _grid_maps(seed: int):
    """An endless stream of :func:`_grid_map` maps (those with two creatures)."""
    rng = np.random.default_rng(seed)
    while True:
        m = _grid_map(rng)
        if m is not None:
            yield m


def _all_pairs(m: BattleMap) -> tuple[np.ndarray, np.ndarray]:
    n = len(m.creatures)
    a, t = np.triu_indices(n, 1)
    return a, t


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_sealed_only_where_there_is_no_line_of_effect(seed):
    m = _grid_map(np.random.default_rng(seed))
    if m is None:
        return
    a, t = _all_pairs(m)
    proved = sealed_pairs(m, a, t)
    for ai, ti in zip(a[proved].tolist(), t[proved].tolist()):
        assert not _exact_line_of_effect(m, ai, ti), (seed, m.creatures[ai], m.creatures[ti])
    # symmetric in the two spaces
    assert (sealed_pairs(m, t, a) == proved).all()


def test_proves_most_cut_off_pairs_of_random_maps():
    """Not a soundness test: the proof must also be worth having."""
    cut = proved = 0
    for m in _grid_maps(7):
        if cut >= 300:
            break
        a, t = _all_pairs(m)
        got = sealed_pairs(m, a, t)
        for ai, ti, g in zip(a.tolist(), t.tolist(), got.tolist()):
            if not _exact_line_of_effect(m, ai, ti):
                cut += 1
                proved += g
    assert proved >= 0.5 * cut, (proved, cut)


# ------------------------------------------------------------ hand-drawn
def _pair(rows: list[str], walls=(), a=(0, 0), b=None, size_a="medium", size_b="medium"):
    h, w = len(rows), len(rows[0])
    b = (w - 1, 0) if b is None else b
    m = BattleMap.build(w, h, squares=rows, walls=list(walls), creatures=[
        {"id": "A", "x": a[0], "y": a[1], "size": size_a},
        {"id": "B", "x": b[0], "y": b[1], "size": size_b}])
    got = bool(sealed_pairs(m, [0], [1])[0])
    assert got == bool(sealed_pairs(m, [1], [0])[0])
    return m, got


def _wall(x0, y0, x1, y1, kind="wall", **kw):
    return {"kind": kind, "points": [[x0, y0], [x1, y1]], **kw}


@pytest.mark.parametrize("rows, walls, a, b, expected", [
    # a column of solid squares from edge to edge
    (["..#..", "..#..", "..#.."], [], (0, 1), (4, 1), True),
    # the column leaves a gap at the bottom: lines get round
    (["..#..", "..#..", "....."], [], (0, 0), (4, 2), False),
    # a wall on x = 2 from edge to edge; a closed door; an open door
    (["....."] * 3, [_wall(2, 0, 2, 3)], (0, 1), (4, 1), True),
    (["....."] * 3, [_wall(2, 0, 2, 3, "door")], (0, 1), (4, 1), True),
    (["....."] * 3, [_wall(2, 0, 2, 3, "door", open=True)], (0, 1), (4, 1), False),
    # two walls meeting end to end on the line: a joint stops lines
    (["....."] * 3, [_wall(2, 0, 2, 1), _wall(2, 1, 2, 3)], (0, 1), (4, 1), True),
    # slits and low walls stop nothing
    (["....."] * 3, [_wall(2, 0, 2, 3, "slit")], (0, 1), (4, 1), False),
    (["....."] * 3, [_wall(2, 0, 2, 3, "low")], (0, 1), (4, 1), False),
    # a wall stopping half an edge short of the map's edge: lines pass
    (["....."] * 3, [_wall(2, 0.5, 2, 3)], (0, 0), (4, 0), False),
    # cuts made of solid squares and a wall, meeting at a vertex or not
    ([".#...", ".#...", "....."], [_wall(2, 2, 2, 3)], (0, 1), (4, 1), True),
    ([".#...", ".#...", "....."], [_wall(1, 2, 1, 3)], (0, 0), (4, 1), True),
    # solid squares meeting diagonally at a vertex close the gap
    (["..#..", "...#.", "...#."], [], (0, 1), (4, 0), True),
    # a large creature behind a wall and solid squares
    (["...#..", "...#..", "......", "......"], [_wall(3, 2, 3, 4)], (0, 1), (4, 1), True),
])
def test_hand_drawn(rows, walls, a, b, expected):
    size_b = "large" if len(rows[0]) == 6 else "medium"
    m, got = _pair(rows, walls, a, b, size_b=size_b)
    assert got is expected
    if expected:
        assert not _exact_line_of_effect(m, 0, 1)


def test_sealed_off_cases_it_leaves_to_the_exact_search():
    """Cut off, but not proved: each needs what the proof does not model."""
    cases = [
        # a wall off the grid, from edge to edge
        (["....."] * 3, [_wall(1.5, 0, 2.5, 3)], (0, 1), (4, 1)),
        # adjacent spaces (no gap between them) behind a wall past both ends
        (["..", "..", ".."], [_wall(1, 0, 1, 3)], (0, 1), (1, 1)),
        # two walls meeting in the middle of an edge (neither covers it whole)
        (["....."] * 3, [_wall(2, 0, 2, 1.5), _wall(2, 1.5, 2, 3)], (0, 1), (4, 1)),
    ]
    for rows, walls, a, b in cases:
        m, got = _pair(rows, walls, a, b)
        assert not _exact_line_of_effect(m, 0, 1)
        assert got is False


def _remap(m: BattleMap, width: int, height: int, squares: np.ndarray, point) -> BattleMap:
    walls = [{"kind": wl.kind, "points": [list(point(x, y)) for x, y in wl.points],
              **({"open": wl.open} if wl.kind == "door" else {})} for wl in m.walls]
    return BattleMap.build(width, height, squares=squares.copy(), walls=walls)


def test_rotations_and_mirrors_prove_the_same():
    for m, _ in zip(_grid_maps(11), range(20)):
        a, t = _all_pairs(m)
        base = sealed_pairs(m, a, t)
        r = np.array([c.rect for c in m.creatures], dtype=np.float64)
        sq = np.asarray(m.squares)
        w, h = m.width, m.height
        # transposed (x <-> y), mirrored left to right, turned half round
        variants = [
            (_remap(m, h, w, sq.T, lambda x, y: (y, x)), r[:, [1, 0, 3, 2]]),
            (_remap(m, w, h, sq[:, ::-1], lambda x, y: (w - x, y)),
             np.column_stack([w - r[:, 2], r[:, 1], w - r[:, 0], r[:, 3]])),
            (_remap(m, w, h, sq[::-1, ::-1], lambda x, y: (w - x, h - y)),
             np.column_stack([w - r[:, 2], h - r[:, 3], w - r[:, 0], h - r[:, 1]])),
        ]
        for mv, rv in variants:
            assert (sealed(mv, rv[a], rv[t]) == base).all()


def test_spaces_not_on_whole_squares_and_empty_input():
    m = BattleMap.build(5, 3, squares=["..#.."] * 3)
    assert sealed(m, [[0, 1, 1, 2]], [[4, 1, 5, 2]]).tolist() == [True]
    assert sealed(m, [[0.5, 1, 1, 2]], [[4, 1, 5, 2]]).tolist() == [False]
    # along the map's border a line grazes the solid squares: not sealed
    assert sealed(m, [[0, 0, 1, 1]], [[4, 0, 5, 1]]).tolist() == [False]
    assert sealed(m, np.zeros((0, 4)), np.zeros((0, 4))).shape == (0,)
    # off the map, empty or not finite: never proved
    for bad in ([-1, 1, 0, 2], [0, 1, 1, 2.5], [4, 1, 6, 2], [0, 1, 0, 2], [np.nan, 1, 1, 2]):
        assert sealed(m, [bad], [[4, 1, 5, 2]]).tolist() == [False], bad
    with pytest.raises(ValueError, match="same shape"):
        sealed(m, [[0, 0, 1, 1]], np.zeros((2, 4)))


def test_many_pairs_in_passes_answer_as_one(monkeypatch):
    for m, _ in zip(_grid_maps(5), range(12)):
        a, t = _all_pairs(m)
        whole = sealed_pairs(m, a, t)
        monkeypatch.setattr(seal, "PAIRS_PER_PASS", 3)
        assert (sealed_pairs(m, a, t) == whole).all()
        monkeypatch.undo()


def test_no_proof_on_maps_over_the_size_limit(monkeypatch):
    m = BattleMap.build(5, 3, squares=["..#.."] * 3)
    assert sealed(m, [[0, 1, 1, 2]], [[4, 1, 5, 2]]).tolist() == [True]
    monkeypatch.setattr(seal, "MAX_PROOF_SQUARES", 14)
    assert sealed(m, [[0, 1, 1, 2]], [[4, 1, 5, 2]]).tolist() == [False]
