"""Line of effect (SPEC section 4): hand-drawn maps and a brute-force cross-check.

Every verdict is checked with the engine's trace and, by swapping the tracer
line of effect calls, with the slow exact reference tracer of the tests.
"""

from __future__ import annotations


import numpy as np
import pytest

from lineoffire.geometry import effect
from lineoffire.geometry.effect import effect_witness, line_of_effect, line_of_effect_many
from hypothesis import given, settings
from hypothesis import strategies as st

from lineoffire.maps import BattleMap, MapError

from conftest import HAVE_KERNEL
from reference import reference_trace


class _Stopped:
    def __init__(self, stopped):
        self.stopped = np.asarray(stopped, dtype=bool)


def _reference_batch(bmap, segments, *, attacker=None, target=None, **options):
    """Drop-in for :func:`trace` inside line of effect, by the reference tracer."""
    segs = np.asarray(segments, dtype=np.float64).reshape(-1, 4)
    # speed-only switches of the engine: the reference always computes everything
    options.pop("stopped_only", None)
    options.pop("blockers", None)

    def ids(x):
        if x is None or isinstance(x, str):
            return [x] * len(segs)
        return [None if i < 0 else bmap.creatures[i].id for i in np.asarray(x).tolist()]

    return _Stopped([reference_trace(bmap, s.tolist(), a, t, **options).stopped
                     for s, a, t in zip(segs, ids(attacker), ids(target))])


@pytest.fixture(params=[
    pytest.param("engine", marks=pytest.mark.skipif(not HAVE_KERNEL, reason="no kernel yet")),
    "reference",
])
def tracer(request, monkeypatch):
    """Which tracer line of effect uses: the engine, or the slow reference."""
    if request.param == "reference":
        monkeypatch.setattr(effect, "trace", _reference_batch)
    return request.param


def _engine_stopped(bmap, segs, attacker=None, target=None):
    from lineoffire.geometry import trace

    return np.asarray(trace(bmap, segs, attacker=attacker, target=target).stopped, dtype=bool)


def _check_witness(bmap, a, t, origin=None):
    """The witness starts in a's space (or at origin), ends in t's, and is clear."""
    w = effect_witness(bmap, a, t, origin=origin)
    assert w is not None
    tx0, ty0, tx1, ty1 = bmap.creature(t).rect
    assert tx0 <= w[2] <= tx1 and ty0 <= w[3] <= ty1
    if origin is None:
        ax0, ay0, ax1, ay1 = bmap.creature(a).rect
        assert ax0 <= w[0] <= ax1 and ay0 <= w[1] <= ay1
    else:
        assert (w[0], w[1]) == tuple(origin)
    assert (w[:2] != w[2:]).any()
    att = None if origin is not None else a
    assert not reference_trace(bmap, w.tolist(), att, t).stopped
    return w


def mk(rows, walls=(), creatures=()):
    return BattleMap.build(len(rows[0]), len(rows), squares=list(rows), walls=list(walls),
                           creatures=list(creatures))


def cre(cid, x, y, size="medium"):
    return {"id": cid, "x": x, "y": y, "size": size}


# -------------------------------------------------------- SPEC section 4 cases
#   0 1 2 3 4
# 0 . . | . .
# 1 . A | B .       A wall along the shared edge of A and B that runs past both
# 2 . . | . .       of its ends: total cover.  Exactly one edge long: reachable.
# 3 . . . . .
@pytest.mark.parametrize("wall, expected", [
    ([[2, 0], [2, 3]], False),    # past both ends
    ([[2, 1], [2, 2]], True),     # exactly one edge long
    ([[2, 0], [2, 2]], True),     # past the top end only
    ([[2, 1], [2, 4]], True),     # past the bottom end only
    ([[2, 0.5], [2, 2.5]], False),
])
def test_wall_along_shared_edge(tracer, wall, expected):
    m = mk(["....."] * 4, walls=[{"points": wall}], creatures=[cre("A", 1, 1), cre("B", 2, 1)])
    assert line_of_effect(m, "A", "B") is expected
    assert line_of_effect(m, "B", "A") is expected
    if expected:
        _check_witness(m, "A", "B")
    else:
        assert effect_witness(m, "A", "B") is None


def test_door_blocks_only_when_closed(tracer):
    walls = [{"kind": "door", "points": [[2, 0], [2, 3]], "open": False}]
    m = mk(["....."] * 4, walls=walls, creatures=[cre("A", 1, 1), cre("B", 2, 1)])
    assert line_of_effect(m, "A", "B") is False
    walls[0]["open"] = True
    m = mk(["....."] * 4, walls=walls, creatures=[cre("A", 1, 1), cre("B", 2, 1)])
    assert line_of_effect(m, "A", "B") is True


@pytest.mark.parametrize("kind", ["slit", "low"])
def test_slits_and_low_walls_never_stop_line_of_effect(tracer, kind):
    m = mk(["....."] * 4, walls=[{"kind": kind, "points": [[2, 0], [2, 4]]}],
           creatures=[cre("A", 0, 1), cre("B", 4, 1)])
    assert line_of_effect(m, "A", "B") is True


#   0 1 2 3 4 5 6 7 8 9
# 0 . . . . . | . . . .
# 1 . . . . . | . . . .
# 2 A . . . . : . . . T      a gap in the wall at x = 5 between y = 2.3125 and
# 3 . . . . . | . . . .      2.375: every corner-to-corner and the centre line
# 4 . . . . . | . . . .      hits the wall, but a line at y = 2.34 gets through
NARROW = mk(["." * 10] * 5,
            walls=[{"points": [[5, 0], [5, 2.3125]]}, {"points": [[5, 2.375], [5, 5]]}],
            creatures=[cre("A", 0, 2), cre("T", 9, 2)])


def test_narrow_gap_needs_the_exact_search(tracer):
    from lineoffire.geometry.lines import centre_line, corner_to_corner

    a, t = NARROW.creature("A"), NARROW.creature("T")
    lines, _, _ = corner_to_corner(a, t)
    drawn = np.concatenate([lines.reshape(-1, 4), centre_line(a, t)[None]])
    assert all(reference_trace(NARROW, s.tolist(), "A", "T").stopped for s in drawn)
    assert not reference_trace(NARROW, [0.5, 2.34375, 9.5, 2.34375], "A", "T").stopped
    assert line_of_effect(NARROW, "A", "T") is True
    assert line_of_effect(NARROW, "T", "A") is True
    w = _check_witness(NARROW, "A", "T")
    # the witness passes through the gap
    y5 = w[1] + (5 - w[0]) * (w[3] - w[1]) / (w[2] - w[0])
    assert 2.3125 <= y5 <= 2.375


def test_narrow_gap_closed_is_total_cover(tracer):
    m = NARROW.with_walls([NARROW.walls[0], NARROW.walls[1].__class__(
        "wall", ((5.0, 2.3125), (5.0, 5.0)))])
    assert line_of_effect(m, "A", "T") is False


#   0 1 2 3 4 5 6
# 0 . . . . . . .
# 1 . +-----+ . .      T inside a room sealed by a closed polyline of walls.
# 2 . | T . D . A      D: the wall or a door, closed or open.
# 3 . | . B | . .      (A line from a space corner lying on a wall's line
# 4 . +-----+ . .       could graze along the wall, so A stands clear of them.)
# 5 . . . . . . .
@pytest.mark.parametrize("door, expected", [
    (None, False), ({"kind": "door", "open": False}, False),
    ({"kind": "door", "open": True}, True), ({"kind": "slit"}, True)])
def test_sealed_room_of_walls(tracer, door, expected):
    if door is None:
        walls = [{"points": [[1, 1], [4, 1], [4, 4], [1, 4], [1, 1]]}]
    else:
        walls = [{"points": [[4, 3], [4, 4], [1, 4], [1, 1], [4, 1], [4, 2]]},
                 {**door, "points": [[4, 2], [4, 3]]}]
    m = mk(["......."] * 6, walls=walls,
           creatures=[cre("A", 6, 2), cre("T", 2, 2), cre("B", 3, 3)])
    assert line_of_effect(m, "A", "T") is expected
    assert line_of_effect(m, "T", "A") is expected
    assert line_of_effect(m, "B", "T") is True  # B is inside the room with T
    assert line_of_effect_many(m, [("A", "T"), ("A", "B"), ("B", "T")]).tolist() == [
        expected, expected, True]


def test_a_wall_line_through_a_space_corner_can_be_grazed(tracer):
    # A's corner (1, 3) lies on the room's bottom wall: the segment from it
    # along the wall to T's corner (3, 3) runs exactly along a wall (grazing).
    m = mk(["......."] * 5, walls=[{"points": [[1, 1], [4, 1], [4, 3], [1, 3], [1, 1]]}],
           creatures=[cre("A", 0, 2), cre("T", 3, 2)])
    assert line_of_effect(m, "A", "T") is True
    w = _check_witness(m, "A", "T")
    assert w[1] == w[3] == 3 or w[1] == w[3] == 1


def test_sealed_room_of_solid_squares(tracer):
    # T at (2, 2) inside, A at (6, 3) or (6, 4) outside
    m = mk(["######.",
            "#....#.",
            "#....#.",
            "#....#.",
            "######."], creatures=[cre("T", 2, 2), cre("A", 6, 3)])
    assert line_of_effect(m, "A", "T") is False


#   0 1 2 3 4 5
# 0 A . . . # .      a diagonal chain of solid squares meeting only at their
# 1 . . . # . .      corners seals like a solid wall (seams are sealed); with
# 2 . . # . . .      (2, 2) removed the gap lets lines through.
# 3 . # . . . .
# 4 # . . . T .
# 5 . . . . . .
@pytest.mark.parametrize("middle, expected", [("#", False), (".", True)])
def test_diagonal_chain_of_solids(tracer, middle, expected):
    m = mk(["....#.", "...#..", ".." + middle + "...", ".#....", "#.....", "......"],
           creatures=[cre("A", 0, 0), cre("T", 4, 4)])
    assert line_of_effect(m, "A", "T") is expected


#   0 1 2 3
# 0 . . . .
# 1 . A # .     A and B share only the corner (2, 2); with both squares next to
# 2 . # B .     that corner solid, the seam is sealed: the shared corner alone
# 3 . . . .     does not give line of effect.
def test_shared_corner_alone_does_not_count(tracer):
    sealed = mk(["....", "..#.", ".#..", "...."], creatures=[cre("A", 1, 1), cre("B", 2, 2)])
    assert line_of_effect(sealed, "A", "B") is False
    half = mk(["....", "..#.", "....", "...."], creatures=[cre("A", 1, 1), cre("B", 2, 2)])
    assert line_of_effect(half, "A", "B") is True
    _check_witness(half, "A", "B")
    walls = mk(["...."] * 4, walls=[{"points": [[2, 0], [2, 2], [4, 2]]},
                                    {"points": [[0, 2], [2, 2], [2, 4]]}],
               creatures=[cre("A", 1, 1), cre("B", 2, 2)])
    assert line_of_effect(walls, "A", "B") is False


def test_solid_between_and_grazing(tracer):
    # A and T in a row with a solid square between: lines along the top and
    # bottom edges of the solid graze it, so line of effect exists ...
    m = mk([".....", "..#..", "....."], creatures=[cre("A", 0, 1), cre("T", 4, 1)])
    assert line_of_effect(m, "A", "T") is True
    # ... unless the grazed edges are sealed by more solids
    m = mk(["..#..", "..#..", "..#.."], creatures=[cre("A", 0, 1), cre("T", 4, 1)])
    assert line_of_effect(m, "A", "T") is False


def test_large_creatures_and_overlap(tracer):
    #   0 1 2 3 4 5 6
    # 0 L L . # . . .
    # 1 L L . # . H H H    a wall of solids with one open square (3, 2)
    # 2 . . . . . H H H
    # 3 . . . # . H H H
    m = mk(["...#....", "...#....", "........", "...#...."],
           creatures=[cre("L", 0, 0, "large"), cre("H", 5, 1, "huge")])
    assert line_of_effect(m, "L", "H") is True
    m = mk(["...#....", "...#....", "...#....", "...#...."],
           creatures=[cre("L", 0, 0, "large"), cre("H", 5, 1, "huge")])
    assert line_of_effect(m, "L", "H") is False
    # tiny creatures sharing a square always see each other
    m = mk(["#.#", "###"], creatures=[cre("a", 1, 0, "tiny"), cre("b", 1, 0, "tiny")])
    assert line_of_effect(m, "a", "b") is True


# ---------------------------------------------------------------- area origin
#   0 1 2 3 4
# 0 . . | . .     origin (0.5, 1.5) beyond the wall x = 2: no line of effect to
# 1 o . | T .     T; from (2.5, 0.5) on T's side it has; an origin on the wall
# 2 . . | . .     itself reaches both sides of it.
def test_area_origin(tracer):
    m = mk(["....."] * 3, walls=[{"points": [[2, 0], [2, 3]]}],
           creatures=[cre("A", 0, 0), cre("T", 3, 1)])
    assert line_of_effect(m, "A", "T", origin=(0.5, 1.5)) is False
    assert line_of_effect(m, None, "T", origin=(2.5, 0.5)) is True
    assert line_of_effect(m, None, "T", origin=(2, 1.5)) is True
    assert line_of_effect(m, None, "T", origin=(3.5, 1.5)) is True  # inside T's space
    # the attacker is ignored: A's own side of the wall does not matter
    assert line_of_effect(m, "A", "T", origin=(2.5, 0.5)) is True
    _check_witness(m, None, "T", origin=(2.5, 0.5))
    _check_witness(m, None, "T", origin=(2.0, 1.5))


def test_area_origin_narrow_gap(tracer):
    # from (1.5, 2.34375) the lines to T's corners and centre all hit the
    # wall; the ray through the gap reaches T
    assert line_of_effect(NARROW, None, "T", origin=(1.5, 2.34375)) is True
    assert line_of_effect(NARROW, None, "T", origin=(3, 2.25)) is True
    # from (4.5, 0.5) the rays through the gap are too steep to reach T
    assert line_of_effect(NARROW, None, "T", origin=(4.5, 0.5)) is False
    closed = NARROW.with_walls([NARROW.walls[0].__class__("wall", ((5.0, 0.0), (5.0, 5.0)))])
    assert line_of_effect(closed, None, "T", origin=(1.5, 2.34375)) is False


# ---------------------------------------------------------------- many pairs
def test_line_of_effect_many_matches_single(tracer):
    m = mk(["..#.....", "..#..#..", "..#..#..", ".....#.."],
           walls=[{"points": [[4, 0], [4, 2]]}],
           creatures=[cre("A", 0, 0), cre("B", 3, 0), cre("C", 7, 1), cre("D", 1, 3)])
    ids = [c.id for c in m.creatures]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    many = line_of_effect_many(m, pairs)
    single = [line_of_effect(m, a, b) for a, b in pairs]
    assert many.tolist() == single
    assert many.any() and not many.all()
    idx = [(ids.index(a), ids.index(b)) for a, b in pairs]
    assert line_of_effect_many(m, idx).tolist() == single
    assert line_of_effect_many(m, []).tolist() == []


# ---------------------------------------------------------------- errors
def test_errors():
    m = mk(["...."], creatures=[cre("A", 0, 0), cre("B", 2, 0)])
    with pytest.raises(ValueError, match="attacker and target are the same creature \\('A'\\)"):
        line_of_effect(m, "A", "A")
    with pytest.raises(TypeError, match="needs a target"):
        line_of_effect(m, "A")
    with pytest.raises(TypeError, match="needs an attacker, or an origin"):
        line_of_effect(m, None, "B")
    with pytest.raises(MapError, match="unknown creature id 'Z'"):
        line_of_effect(m, "A", "Z")
    with pytest.raises(MapError, match="creature index 5 outside 0..1"):
        line_of_effect(m, 5, "B")
    with pytest.raises(TypeError, match="attacker must be a Creature, an id or an index"):
        line_of_effect(m, 1.5, "B")
    with pytest.raises(MapError, match=r"origin \(5, 0\) lies outside the 4x1 map"):
        line_of_effect(m, None, "B", origin=(5, 0))
    with pytest.raises(ValueError, match="origin must be a finite point"):
        line_of_effect(m, None, "B", origin=(1, 2, 3))
    with pytest.raises(ValueError, match=r"pairs\[1\]: attacker and target are the same"):
        line_of_effect_many(m, [("A", "B"), ("B", "B")])
    with pytest.raises(TypeError, match=r"pairs\[0\] must be an \(attacker, target\) pair"):
        line_of_effect_many(m, ["AB"])


# ------------------------------------------------------ brute-force cross-check
def _random_map(rng):
    w, h = int(rng.integers(5, 9)), int(rng.integers(4, 7))
    squares = np.where(rng.random((h, w)) < 0.18, 1, 0).astype(np.uint8)
    walls = []
    for _ in range(int(rng.integers(0, 5))):
        denom = int(rng.choice([1, 2, 4, 1024]))
        p = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        q = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        if (p != q).any():
            walls.append({"kind": str(rng.choice(["wall", "wall", "door", "low"])),
                          "points": [p.tolist(), q.tolist()]})
    sizes = ["medium", "medium", "large", "small"]
    placed = []
    for cid in ("A", "T"):
        for _ in range(50):
            size = str(rng.choice(sizes))
            s = 2 if size == "large" else 1
            x, y = int(rng.integers(0, w - s + 1)), int(rng.integers(0, h - s + 1))
            if squares[y:y + s, x:x + s].any():
                continue
            if any(not (x + s <= px or px + ps <= x or y + s <= py or py + ps <= y)
                   for px, py, ps in placed):
                continue
            placed.append((x, y, s))
            break
        else:
            return None
    return BattleMap.build(w, h, squares=squares, walls=walls,
                           creatures=[cre(c, x, y, "large" if s == 2 else "medium")
                                      for c, (x, y, s) in zip("AT", placed)])


def _random_segments(rng, a, t, n):
    """n segments from points of a's space to points of t's (1/8 lattice, corners too)."""
    def pts(rect):
        x0, y0, x1, y1 = rect
        u = rng.integers(0, (x1 - x0) * 8 + 1, n) / 8 + x0
        v = rng.integers(0, (y1 - y0) * 8 + 1, n) / 8 + y0
        return np.stack([u, v], axis=1)
    segs = np.concatenate([pts(a.rect), pts(t.rect)], axis=1)
    units = np.rint(segs * 1024).astype(np.int64)
    ok = effect._valid(units, tuple(np.array(a.rect) * 1024), tuple(np.array(t.rect) * 1024))
    return segs[ok]


@pytest.mark.skipif(not HAVE_KERNEL, reason="no kernel yet")
def test_brute_force_cross_check_with_the_engine():
    rng = np.random.default_rng(20240601)
    checked = positives = 0
    for _ in range(60):
        m = _random_map(rng)
        if m is None:
            continue
        a, t = m.creature("A"), m.creature("T")
        segs = _random_segments(rng, a, t, 400)
        stopped = _engine_stopped(m, segs, "A", "T")
        got = line_of_effect(m, "A", "T")
        if not stopped.all():
            positives += 1
            assert got, (m, segs[~stopped][0])
        if got:
            w = effect_witness(m, "A", "T")
            assert not _engine_stopped(m, w[None], "A", "T")[0]
        checked += 1
    assert checked >= 40 and positives >= 10


def test_brute_force_cross_check_with_the_reference(monkeypatch):
    monkeypatch.setattr(effect, "trace", _reference_batch)
    rng = np.random.default_rng(77)
    checked = 0
    for _ in range(6):
        m = _random_map(rng)
        if m is None:
            continue
        a, t = m.creature("A"), m.creature("T")
        segs = _random_segments(rng, a, t, 40)
        clear = [not reference_trace(m, s.tolist(), "A", "T").stopped for s in segs]
        got = line_of_effect(m, "A", "T")
        if any(clear):
            assert got
        if got:
            _check_witness(m, "A", "T")
        checked += 1
    assert checked >= 4


def test_narrow_gap_between_a_large_and_a_huge_creature():
    # every drawn line is stopped, so the exact search runs; a 1/16-square gap lets it through
    m = mk(["." * 12] * 8,
           walls=[{"points": [[5, 0], [5, 3.3125]]}, {"points": [[5, 3.375], [5, 8]]},
                  {"points": [[7, 1], [8, 2], [8, 5]]}, {"kind": "door", "points": [[3, 6], [4, 7]]}],
           creatures=[cre("A", 1, 2, "large"), cre("T", 8, 2, "huge")])
    assert line_of_effect(m, "A", "T") is True


# ------------------------------------------------- candidate segments are sound
rect_st = st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from([1, 2, 3]))
point_st = st.tuples(st.integers(0, 9 * 1024), st.integers(0, 9 * 1024))


@settings(max_examples=60, deadline=None)
@given(rect_st, rect_st, st.lists(st.tuples(point_st, point_st), min_size=1, max_size=30))
def test_every_candidate_runs_from_one_space_to_the_other(a, b, pairs):
    """Whatever the critical points, each traced candidate starts in the
    shooter's closed space and ends in the target's, with positive length: so
    an unstopped candidate is a genuine witness (no false line of effect)."""
    srect = (a[0] * 1024, a[1] * 1024, (a[0] + a[2]) * 1024, (a[1] + a[2]) * 1024)
    trect = (b[0] * 1024, b[1] * 1024, (b[0] + b[2]) * 1024, (b[1] + b[2]) * 1024)
    p = np.array([u for u, _ in pairs], dtype=np.int64)
    q = np.array([v for _, v in pairs], dtype=np.int64)
    for from_p in (False, True):
        segs = effect._lines_to_segments(p, q, srect, trect, from_p=from_p)
        segs = segs[effect._valid(segs, None if from_p else srect, trect)]
        if not from_p:
            assert ((segs[:, 0] >= srect[0]) & (segs[:, 0] <= srect[2])
                    & (segs[:, 1] >= srect[1]) & (segs[:, 1] <= srect[3])).all()
        else:
            starts = {tuple(r) for r in p.tolist()}
            assert all(tuple(r) in starts for r in segs[:, :2].tolist())
        assert ((segs[:, 2] >= trect[0]) & (segs[:, 2] <= trect[2])
                & (segs[:, 3] >= trect[1]) & (segs[:, 3] <= trect[3])).all()
        assert ((segs[:, :2] != segs[:, 2:]).any(axis=1)).all()


@pytest.mark.parametrize("seg, expected", [
    ([1024, 1024, 3072, 1024], False),   # along the top edges of S = [0,2]x[1,2] and T
    ([1024, 1024, 2048, 1024], False),   # along S's top edge to T's corner
    ([2048, 1536, 2048, 2048], False),   # on the shared edge
    ([2048, 1024, 2048, 1024], False),   # zero length at a shared corner
    ([1024, 1536, 3072, 1536], True),    # through both interiors
    ([2048, 1024, 2560, 1536], True),    # from the shared corner into T
    ([0, 1024, 2048, 1024], False),      # along S's top edge only
])
def test_valid_filter(seg, expected):
    srect, trect = (0, 1024, 2048, 2048), (2048, 1024, 3072, 2048)
    assert effect._valid(np.array([seg], dtype=np.int64), srect, trect)[0] is np.bool_(expected)
