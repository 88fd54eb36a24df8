"""Line of effect for many pairs: batched search, symmetry, the per-map cache.

The batched search (:func:`line_of_effect_many`, with or without the fast
accept) must answer exactly as the single-pair :func:`line_of_effect`, and
line of effect must be symmetric, because the cover matrix searches each
unordered pair once and answers both orders with it.
"""

from __future__ import annotations

import numpy as np
import pytest

from lineoffire.geometry import effect, trace
from lineoffire.geometry.effect import effect_witness, line_of_effect, line_of_effect_many
from lineoffire.maps import BattleMap

from conftest import HAVE_KERNEL

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="no kernel yet")

SIZES = {"small": 1, "medium": 1, "large": 2, "huge": 3}


def _random_map(rng: np.random.Generator, n_creatures: int = 5) -> BattleMap | None:
    """A seeded small map: solid squares, thin walls on and off the grid
    (walls, doors open and closed, slits, low walls), creatures of mixed sizes."""
    w, h = int(rng.integers(6, 11)), int(rng.integers(5, 9))
    squares = np.where(rng.random((h, w)) < 0.2, 1, 0).astype(np.uint8)
    walls = []
    for _ in range(int(rng.integers(0, 7))):
        denom = int(rng.choice([1, 1, 2, 4]))
        p = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        q = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        if (p == q).all():
            continue
        kind = str(rng.choice(["wall", "wall", "door", "slit", "low"]))
        wall = {"kind": kind, "points": [p.tolist(), q.tolist()]}
        if kind == "door":
            wall["open"] = bool(rng.random() < 0.3)
        walls.append(wall)
    taken = squares.astype(bool).copy()
    creatures = []
    for i in range(n_creatures):
        for _ in range(60):
            size = str(rng.choice(list(SIZES)))
            s = SIZES[size]
            x, y = int(rng.integers(0, w - s + 1)), int(rng.integers(0, h - s + 1))
            if not taken[y:y + s, x:x + s].any():
                taken[y:y + s, x:x + s] = True
                creatures.append({"id": f"c{i}", "x": x, "y": y, "size": size})
                break
    if len(creatures) < 3:
        return None
    return BattleMap.build(w, h, squares=squares, walls=walls, creatures=creatures)


def _maps(seed: int, count: int):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        m = _random_map(rng)
        if m is not None:
            out.append(m)
    return out


def _ordered_pairs(m: BattleMap) -> list[tuple[int, int]]:
    n = len(m.creatures)
    return [(a, t) for a in range(n) for t in range(n) if a != t]


# ------------------------------------------------------- batched == single
def test_batched_search_equals_single_pair_on_random_maps():
    answers = []
    for m in _maps(314, 14):
        pairs = _ordered_pairs(m)
        single = [line_of_effect(m, a, t) for a, t in pairs]
        assert line_of_effect_many(m, pairs).tolist() == single
        # the exact search alone decides: skipping the fast accept changes nothing
        assert line_of_effect_many(m, pairs, drawn_stopped=True).tolist() == single
        assert [line_of_effect(m, a, t, drawn_stopped=True) for a, t in pairs] == single
        answers += single
    # both answers occur, or the comparison proves little
    assert answers.count(True) >= 20 and answers.count(False) >= 20


def test_batched_search_in_small_trace_calls_equals_one_call(monkeypatch):
    m = _maps(2718, 1)[0]
    pairs = _ordered_pairs(m)
    whole = line_of_effect_many(m, pairs, drawn_stopped=True)
    calls = []
    real = effect.trace

    def counting(bmap, segs, **kw):
        calls.append(len(segs))
        return real(bmap, segs, **kw)

    monkeypatch.setattr(effect, "trace", counting)
    monkeypatch.setattr(effect, "MAX_SEGMENTS", 7)
    assert line_of_effect_many(m, pairs, drawn_stopped=True).tolist() == whole.tolist()
    # bounded calls: at most MAX_SEGMENTS + one pair's piece (< MAX_SEGMENTS) each
    assert len(calls) > 1 and max(calls) < 2 * 7


def test_one_trace_call_for_all_pairs_exact_search(monkeypatch):
    #   . # .
    #   A # B
    #   . # .      a column of solid squares: every pair is searched exactly
    #   C # D
    #   . # .
    m = BattleMap.build(3, 5, squares=[".#."] * 5, creatures=[
        {"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 2, "y": 1},
        {"id": "C", "x": 0, "y": 3}, {"id": "D", "x": 2, "y": 3}])
    calls = []
    real = effect.trace

    def counting(bmap, segs, **kw):
        calls.append(kw)
        return real(bmap, segs, **kw)

    monkeypatch.setattr(effect, "trace", counting)
    got = line_of_effect_many(m, [("A", "B"), ("A", "D"), ("C", "B"), ("A", "C")],
                              drawn_stopped=True)
    assert got.tolist() == [False, False, False, True]
    assert len(calls) == 1 and calls[0]["stopped_only"] is True


# ------------------------------------------------------------- symmetry
def test_line_of_effect_is_symmetric_on_random_maps():
    """(a, t) and (t, a) agree, and a witness reversed, with the attachment
    swapped, is a clear segment from t to a by the engine's own trace."""
    seen = {True: 0, False: 0}
    for m in _maps(1618, 14):
        n = len(m.creatures)
        for a in range(n):
            for t in range(a + 1, n):
                fwd, back = line_of_effect(m, a, t), line_of_effect(m, t, a)
                assert fwd == back, (m, a, t)
                seen[fwd] += 1
                w = effect_witness(m, a, t)
                if w is not None:
                    rev = trace(m, [[w[2], w[3], w[0], w[1]]], attacker=np.array([t]),
                                target=np.array([a]))
                    assert not rev.stopped[0], (m, a, t, w)
    assert seen[True] >= 20 and seen[False] >= 20


def test_trace_is_symmetric_for_segments_between_two_creatures():
    """The engine stops a segment from a to t exactly when it stops the reversed
    segment from t to a (attachment swapped): the ground of searching once."""
    rng = np.random.default_rng(99)
    stopped_counts = [0, 0]
    for m in _maps(4242, 10):
        n = len(m.creatures)
        segs, att, tgt = [], [], []
        for a in range(n):
            for t in range(n):
                if a == t:
                    continue
                ra, rt = np.array(m.creatures[a].rect), np.array(m.creatures[t].rect)
                for _ in range(12):
                    p = rng.integers(ra[:2] * 4, ra[2:] * 4 + 1) / 4
                    q = rng.integers(rt[:2] * 4, rt[2:] * 4 + 1) / 4
                    if (p != q).any():
                        segs.append([*p, *q])
                        att.append(a)
                        tgt.append(t)
        segs, att, tgt = np.array(segs), np.array(att), np.array(tgt)
        fwd = trace(m, segs, attacker=att, target=tgt, stopped_only=True).stopped
        back = trace(m, segs[:, [2, 3, 0, 1]], attacker=tgt, target=att,
                     stopped_only=True).stopped
        assert np.array_equal(fwd, back)
        stopped_counts[0] += int(fwd.sum())
        stopped_counts[1] += int((~fwd).sum())
    assert min(stopped_counts) >= 100


# ------------------------------------------------------------ per-map cache
def test_per_map_data_cached_and_rebuilt_for_new_walls():
    m = BattleMap.build(4, 3, squares=["....", ".#..", "...."],
                        walls=[{"points": [[3, 0], [3, 3]]}],
                        creatures=[{"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 3, "y": 1}])
    prep = effect._effect_prep(m)
    assert effect._effect_prep(m) is prep
    assert prep.walls.tolist() == [[3072, 0, 3072, 3072]]
    assert line_of_effect(m, "A", "B") is False
    open_map = m.with_walls([])
    assert effect._effect_prep(open_map) is not prep
    assert line_of_effect(open_map, "A", "B") is True
    # the solid square at (1, 1) turns at its four corners
    assert sorted(map(tuple, np.argwhere(prep.turns).tolist())) == [(1, 1), (1, 2), (2, 1), (2, 2)]


def test_drawn_stopped_errors():
    m = BattleMap.build(3, 1, creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 2, "y": 0}])
    with pytest.raises(TypeError, match=r"drawn_stopped must be True or False, not str \('yes'\)"):
        line_of_effect_many(m, [("A", "B")], drawn_stopped="yes")
    with pytest.raises(TypeError, match="drawn_stopped must be True or False, not int"):
        line_of_effect(m, "A", "B", drawn_stopped=1)
    with pytest.raises(ValueError, match="drawn_stopped applies to a shooter and a target"):
        line_of_effect(m, None, "B", origin=(0.5, 0.5), drawn_stopped=True)
