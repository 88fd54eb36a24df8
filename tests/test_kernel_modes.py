"""The kernel's faster modes give the same answers as the full trace.

``blockers=False`` (flags only) and ``stopped_only=True`` (window-by-window
tracing with early exit) are checked against the full blocker-list trace on
seeded random maps, with free and attached segments of every kind, and at
several chunk and window sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

from lineoffire.geometry import trace
from lineoffire.geometry._kernel import trace_units
from lineoffire.geometry.trace import as_segments, creature_indices
from lineoffire.maps import BattleMap

from boards import place_space


def random_map(seed: int) -> BattleMap:
    rng = np.random.default_rng(seed)
    w, h = 24, 18
    squares = np.where(rng.random((h, w)) < 0.12, 1, np.where(rng.random((h, w)) < 0.06, 2, 0))
    walls = []
    kinds = ["wall", "wall", "door", "slit", "low"]
    for _ in range(25):
        x, y = int(rng.integers(1, w - 1)), int(rng.integers(1, h - 1))
        n = int(rng.integers(1, 4))
        if rng.random() < 0.5:
            pts = [[x, y], [x, min(h, y + n)]]
        else:
            pts = [[x, y], [min(w, x + n), y]]
        walls.append({"kind": kinds[int(rng.integers(len(kinds)))], "points": pts})
    for _ in range(8):  # off-grid walls
        p = rng.integers(0, 4 * w, 2) / 4
        q = np.clip(p + rng.integers(-12, 13, 2) / 4, 0, [w, h])
        if (p != q).any() and (p <= [w, h]).all():
            walls.append({"kind": "wall", "points": [p.tolist(), q.tolist()]})
    creatures = []
    taken = squares.astype(bool).copy()
    for i in range(10):
        size = ["medium", "medium", "large", "small", "huge"][i % 5]
        s = {"medium": 1, "small": 1, "large": 2, "huge": 3}[size]
        at = place_space(rng, taken, s, 50)
        if at is not None:
            creatures.append({"id": f"c{i}", "x": at[0], "y": at[1], "size": size})
    return BattleMap.build(w, h, squares=squares.astype(np.uint8), walls=walls,
                           creatures=creatures)


def random_segments(bmap: BattleMap, seed: int, n: int = 600):
    rng = np.random.default_rng(seed)
    w, h = bmap.width, bmap.height
    segs, att, tgt = [], [], []
    cs = bmap.creatures
    for _ in range(n):
        kind = rng.integers(4)
        if kind == 0:  # free, anywhere on the 1/4 lattice
            seg = (rng.integers(0, 4 * np.array([w, h, w, h]) + 1) / 4).tolist()
            a = t = None
        else:  # attached: corners and centres of two creatures
            i, j = rng.choice(len(cs), 2, replace=False)
            A, T = cs[i], cs[j]
            def point(c):
                x0, y0, x1, y1 = c.rect
                if rng.random() < 0.5:
                    return [float(rng.integers(x0, x1 + 1)), float(rng.integers(y0, y1 + 1))]
                return list(c.centre)
            seg = point(A) + point(T)
            a, t = A.id, T.id
        segs.append(seg)
        att.append(a)
        tgt.append(t)
    return segs, att, tgt


@pytest.mark.parametrize("seed", range(6))
def test_fast_modes_agree_with_the_full_trace(seed):
    m = random_map(seed)
    segs, att, tgt = random_segments(m, seed + 100)
    full = trace(m, segs, attacker=att, target=tgt)
    flags = trace(m, segs, attacker=att, target=tgt, blockers=False)
    assert np.array_equal(flags.stopped, full.stopped)
    assert np.array_equal(flags.slit, full.slit)
    assert np.array_equal(flags.low, full.low)
    assert len(flags.kind) == 0
    units = as_segments(segs, m)
    a = creature_indices(m, att, len(segs), "attacker")
    t = creature_indices(m, tgt, len(segs), "target")
    for window in (1, 2, 5, 12):
        for chunk in (7, 4096):
            fast = trace_units(m, units, a, t, stopped_only=True, window=window, chunk=chunk)
            assert np.array_equal(fast.stopped, full.stopped), (window, chunk)
    # the suite must actually exercise both answers
    assert full.stopped.any() and (~full.stopped).any()


def test_chunk_size_does_not_change_blocker_lists():
    m = random_map(11)
    segs, att, tgt = random_segments(m, 12, n=300)
    units = as_segments(segs, m)
    a = creature_indices(m, att, len(segs), "attacker")
    t = creature_indices(m, tgt, len(segs), "target")
    big = trace_units(m, units, a, t)
    small = trace_units(m, units, a, t, chunk=5)
    assert big.to_json() == small.to_json()


@pytest.mark.parametrize("seed", range(4))
def test_integer_division_path_answers_as_the_float_path(seed, monkeypatch):
    """The kernel divides in float64 when the numerators are small enough to
    keep the floor exact (always on maps this size), in int64 otherwise; both
    must give the same traces."""
    from lineoffire.geometry import _kernel

    m = random_map(seed + 40)
    segs, att, tgt = random_segments(m, seed + 140, n=400)
    want = trace(m, segs, attacker=att, target=tgt)
    monkeypatch.setattr(_kernel, "FLOAT_DIV_LIMIT", 0.0)
    got = trace(m, segs, attacker=att, target=tgt)
    assert got.to_json() == want.to_json()
    assert np.array_equal(got.stopped, want.stopped) and np.array_equal(got.low, want.low)
    fast = trace(m, segs, attacker=att, target=tgt, stopped_only=True)
    assert np.array_equal(fast.stopped, want.stopped)
