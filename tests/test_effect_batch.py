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


def _random_map(rng: np.random.Generator, n_creatures: int = 5, *,
                denominators=(1, 1, 2, 4), n_walls=(0, 7), door_states: bool = True,
                tiny_pairs: bool = False) -> BattleMap | None:
    """A seeded small map: solid squares, thin walls on and off the grid
    (walls, doors open and closed, slits, low walls) with end points on the
    lattice of ``1 / denominators``, creatures of mixed sizes; with
    ``tiny_pairs``, now and then two tiny creatures sharing a square."""
    w, h = int(rng.integers(6, 11)), int(rng.integers(5, 9))
    squares = np.where(rng.random((h, w)) < 0.2, 1, 0).astype(np.uint8)
    walls = []
    for _ in range(int(rng.integers(*n_walls))):
        denom = int(rng.choice(list(denominators)))
        p = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        q = rng.integers(0, [w * denom + 1, h * denom + 1]) / denom
        if (p == q).all():
            continue
        kind = str(rng.choice(["wall", "wall", "door", "slit", "low"]))
        wall = {"kind": kind, "points": [p.tolist(), q.tolist()]}
        if kind == "door" and door_states:
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
                if tiny_pairs and size == "small" and rng.random() < 0.5:
                    creatures[-1]["size"] = "tiny"
                    creatures.append({"id": f"d{i}", "x": x, "y": y, "size": "tiny"})
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


# ------------------------------------------ batched candidates == per pair
# A frozen copy of the per-pair candidate builder the batched one replaced
# (one pair at a time, scalar rectangles, numpy per pair): critical points,
# the lines through every two of them clipped to the part from one space to
# the other, the validity filter, distinct rows sorted.
_U = 1024


def _old_edge_crossings(walls, rect):
    out = []
    x0, y0, x1, y1 = rect
    for axis, fixed, lo, hi in ((0, (x0, x1), y0, y1), (1, (y0, y1), x0, x1)):
        a0, a1 = walls[:, axis], walls[:, axis + 2]
        b0, b1 = walls[:, 1 - axis], walls[:, 3 - axis]
        for f in fixed:
            den = a1 - a0
            ok = (den != 0) & (np.minimum(a0, a1) <= f) & (f <= np.maximum(a0, a1))
            d, a0k, b0k, b1k = den[ok], a0[ok], b0[ok], b1[ok]
            num = b0k * d + (f - a0k) * (b1k - b0k)
            num, d = num * np.sign(d), d * np.sign(d)
            for v in (np.floor_divide(num, d), -np.floor_divide(-num, d)):
                v = v[(lo <= v) & (v <= hi)]
                pts = np.empty((len(v), 2), dtype=np.int64)
                pts[:, axis] = f
                pts[:, 1 - axis] = v
                out.append(pts)
    return np.concatenate(out) if out else np.empty((0, 2), dtype=np.int64)


def _old_in_hull(pts, corners):
    c = [tuple(int(v) for v in row) for row in np.unique(corners, axis=0)]

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def chain(seq):
        out = []
        for q in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], q) <= 0:
                out.pop()
            out.append(q)
        return out

    hull = chain(c)[:-1] + chain(c[::-1])[:-1]
    ok = np.ones(len(pts), dtype=bool)
    for i in range(len(hull)):
        (ax, ay), (bx, by) = hull[i], hull[(i + 1) % len(hull)]
        ok &= (bx - ax) * (pts[:, 1] - ay) - (by - ay) * (pts[:, 0] - ax) >= 0
    return ok


def _old_critical_points(prep, srect, trect):
    box = (min(srect[0], trect[0]), min(srect[1], trect[1]),
           max(srect[2], trect[2]), max(srect[3], trect[3]))
    pts = [np.array([[r[0], r[1]], [r[2], r[1]], [r[0], r[3]], [r[2], r[3]]], dtype=np.int64)
           for r in (srect, trect)]
    corners = np.concatenate(pts)
    h, w = prep.turns.shape
    X0, Y0 = max(box[0] // _U, 0), max(box[1] // _U, 0)
    X1, Y1 = min(-(-box[2] // _U), w - 1), min(-(-box[3] // _U), h - 1)
    ys, xs = np.nonzero(prep.turns[Y0:Y1 + 1, X0:X1 + 1])
    pts.append(np.stack([xs + X0, ys + Y0], axis=1).astype(np.int64) * _U)
    if len(prep.walls):
        near = ((prep.wx0 <= box[2]) & (box[0] <= prep.wx1)
                & (prep.wy0 <= box[3]) & (box[1] <= prep.wy1))
        walls = prep.walls[near]
        pts.append(walls.reshape(-1, 2))
        for r in (srect, trect):
            pts.append(_old_edge_crossings(walls, r))
    allpts = np.concatenate(pts)
    return np.unique(allpts[_old_in_hull(allpts, corners)], axis=0)


def _old_lattice_range(p, e, rect):
    lo = np.full(len(p), np.iinfo(np.int64).min // 4, dtype=np.int64)
    hi = np.full(len(p), np.iinfo(np.int64).max // 4, dtype=np.int64)
    for ax, (r0, r1) in enumerate(((rect[0], rect[2]), (rect[1], rect[3]))):
        pa, ea = p[:, ax], e[:, ax]
        still = ea == 0
        outside = still & ((pa < r0) | (pa > r1))
        lo, hi = np.where(outside, 1, lo), np.where(outside, 0, hi)
        em = np.where(still, 1, np.abs(ea))
        a = np.where(ea > 0, r0 - pa, pa - r1)
        b = np.where(ea > 0, r1 - pa, pa - r0)
        lo = np.where(still, lo, np.maximum(lo, -np.floor_divide(-a, em)))
        hi = np.where(still, hi, np.minimum(hi, np.floor_divide(b, em)))
    return lo, hi


def _old_chord_mid(p, d, rect):
    s0, s1 = np.full(len(p), -np.inf), np.full(len(p), np.inf)
    ok = np.ones(len(p), dtype=bool)
    for ax, (r0, r1) in enumerate(((rect[0], rect[2]), (rect[1], rect[3]))):
        pa, da = p[:, ax].astype(np.float64), d[:, ax].astype(np.float64)
        still = da == 0
        ok &= ~still | ((pa >= r0) & (pa <= r1))
        with np.errstate(divide="ignore", invalid="ignore"):
            u, v = (r0 - pa) / da, (r1 - pa) / da
        s0 = np.where(still, s0, np.maximum(s0, np.minimum(u, v)))
        s1 = np.where(still, s1, np.minimum(s1, np.maximum(u, v)))
    return s0, s1, ok & (s0 <= s1)


def _old_clamp(pts, rect):
    return np.stack([np.clip(pts[:, 0], rect[0], rect[2]),
                     np.clip(pts[:, 1], rect[1], rect[3])], axis=1)


def _old_lines_to_segments(p, q, srect, trect):
    d = q - p
    g = np.gcd(d[:, 0], d[:, 1])
    keep = g > 0
    p, d, g = p[keep], d[keep], g[keep]
    e = d // g[:, None]
    tlo, thi = _old_lattice_range(p, e, trect)
    slo, shi = _old_lattice_range(p, e, srect)
    has = (slo <= shi) & (tlo <= thi)
    ks, kt = np.zeros(len(p), dtype=np.int64), np.zeros(len(p), dtype=np.int64)
    cases = (
        (shi < tlo, shi, tlo),
        (thi < slo, slo, thi),
        ((shi == tlo) & (tlo < thi), shi, tlo + 1),
        ((shi == tlo) & (tlo == thi) & (slo < shi), shi - 1, tlo),
        ((thi == slo) & (slo < shi), slo + 1, thi),
        ((thi == slo) & (slo == shi) & (tlo < thi), slo, thi - 1),
    )
    ok = np.zeros(len(p), dtype=bool)
    for mask, k_s, k_t in cases:
        mask = mask & has & ~ok
        ks[mask], kt[mask] = k_s[mask], k_t[mask]
        ok |= mask
    out = [np.concatenate([p[ok] + ks[ok, None] * e[ok], p[ok] + kt[ok, None] * e[ok]], axis=1)]
    rest = ~has
    if rest.any():
        pr, dr = p[rest], d[rest]
        t0, t1, tok = _old_chord_mid(pr, dr, trect)
        s0, s1, sok = _old_chord_mid(pr, dr, srect)
        a_real = pr + ((s0 + s1) / 2)[:, None] * dr
        b_real = pr + ((t0 + t1) / 2)[:, None] * dr
        ok = sok & tok
        a_real, b_real, dr = a_real[ok], b_real[ok], dr[ok]
        normal = np.stack([-dr[:, 1], dr[:, 0]], axis=1).astype(np.float64)
        normal /= np.maximum(np.abs(normal).max(axis=1, keepdims=True), 1)
        for shift in (0.0, 1.0, -1.0):
            a = _old_clamp(np.rint(a_real + shift * normal).astype(np.int64), srect)
            b = _old_clamp(np.rint(b_real + shift * normal).astype(np.int64), trect)
            out.append(np.concatenate([a, b], axis=1))
    return np.concatenate(out), int(rest.sum())


def _old_valid(segs, srect, trect):
    x0, y0, x1, y1 = segs.T
    ok = (x0 != x1) | (y0 != y1)
    along = np.zeros(len(segs), dtype=bool)
    for ax in (0, 1):
        c0, c1 = (x0, x1) if ax == 0 else (y0, y1)
        v0, v1 = (y0, y1) if ax == 0 else (x0, x1)
        lo, hi = np.minimum(v0, v1), np.maximum(v0, v1)
        (on_s, s0, s1), (on_t, t0, t1) = [
            ((c0 == r[ax]) | (c0 == r[ax + 2]), r[1 - ax], r[3 - ax]) for r in (srect, trect)]
        in_s = on_s & (s0 <= lo) & (hi <= s1)
        in_t = on_t & (t0 <= lo) & (hi <= t1)
        joined = (on_s & on_t & (s0 <= t1) & (t0 <= s1)
                  & (min(s0, t0) <= lo) & (hi <= max(s1, t1)))
        along |= (c0 == c1) & (in_s | in_t | joined)
    return ok & ~along


def _old_candidates(m: BattleMap, ai: int, ti: int) -> tuple[np.ndarray, int]:
    """One pair's exact-search candidates (units, distinct, sorted) and how
    many of its lines took the best-effort path."""
    srect = tuple(v * _U for v in m.creatures[ai].rect)
    trect = tuple(v * _U for v in m.creatures[ti].rect)
    if srect[0] < trect[2] and trect[0] < srect[2] and srect[1] < trect[3] and trect[1] < srect[3]:
        x0, y0 = max(srect[0], trect[0]), max(srect[1], trect[1])
        x1, y1 = min(srect[2], trect[2]), min(srect[3], trect[3])
        return np.array([[x0, y0, x1, y1]], dtype=np.int64), 0
    pts = _old_critical_points(effect._effect_prep(m), srect, trect)
    i, j = np.triu_indices(len(pts), k=1)
    segs, rough = _old_lines_to_segments(pts[i], pts[j], srect, trect)
    segs = np.unique(segs[_old_valid(segs, srect, trect)], axis=0)
    return segs, rough


def _fine_map(rng: np.random.Generator) -> BattleMap | None:
    """A random map as :func:`_random_map`, but with walls and doors that also
    end anywhere on the 1/1024 lattice (so that some candidate lines have no
    lattice point in a space), and two tiny creatures sharing a square now
    and then."""
    return _random_map(rng, 6, denominators=(1, 2, 1024, 1024), n_walls=(1, 8),
                       door_states=False, tiny_pairs=True)


def _batched_candidates(m: BattleMap, pairs: list[tuple[int, int]]) -> dict[int, np.ndarray]:
    got: dict[int, list[np.ndarray]] = {}
    for segs, owners in effect._exact_batches(m, np.array(pairs, dtype=np.int64)):
        assert len(segs) == len(owners)
        for o in np.unique(owners).tolist():
            got.setdefault(o, []).append(segs[owners == o])
    return {o: np.concatenate(v) for o, v in got.items()}


@pytest.mark.parametrize("max_segments", [effect.MAX_SEGMENTS, 40])
def test_batched_candidates_equal_the_per_pair_builder(monkeypatch, max_segments):
    """Per pair the same candidate segments, in the same order, as the frozen
    per-pair builder, whether a batch holds all pairs or only a few."""
    monkeypatch.setattr(effect, "MAX_SEGMENTS", max_segments)
    rng = np.random.default_rng(8128)
    checked = rough = shared = 0
    maps = 0
    while maps < 10:
        m = _fine_map(rng)
        if m is None:
            continue
        maps += 1
        pairs = _ordered_pairs(m)
        got = _batched_candidates(m, pairs)
        for n, (a, t) in enumerate(pairs):
            want, r = _old_candidates(m, a, t)
            rough += r
            shared += m.creatures[a].rect == m.creatures[t].rect
            have = got.get(n, np.empty((0, 4), dtype=np.int64))
            assert np.array_equal(have, want), (m, a, t)
            checked += len(want)
        # the critical points too, pair by pair
        prep = effect._effect_prep(m)
        rects = np.array([[v * _U for v in c.rect] for c in m.creatures], dtype=np.int64)
        ok = [(a, t) for a, t in pairs
              if not (rects[a][0] < rects[t][2] and rects[t][0] < rects[a][2]
                      and rects[a][1] < rects[t][3] and rects[t][1] < rects[a][3])]
        who = np.array(ok, dtype=np.int64)
        pts, owner = effect._critical_points_many(prep, rects[who[:, 0]], rects[who[:, 1]])
        for n, (a, t) in enumerate(ok):
            want = _old_critical_points(prep, tuple(rects[a]), tuple(rects[t]))
            assert np.array_equal(pts[owner == n], want), (m, a, t)
    # the comparison covered many segments, the best-effort path and shared squares
    assert checked > 10_000 and rough > 0 and shared > 0


def test_line_of_effect_answers_and_witnesses_unchanged():
    """The batched search answers as tracing the frozen builder's candidates
    does, and its witness is the first clear one of them."""
    rng = np.random.default_rng(5040)
    seen = {True: 0, False: 0}
    maps = 0
    while maps < 8:
        m = _fine_map(rng)
        if m is None:
            continue
        maps += 1
        pairs = _ordered_pairs(m)
        got = line_of_effect_many(m, pairs, drawn_stopped=True).tolist()
        for (a, t), answer in zip(pairs, got):
            segs, _ = _old_candidates(m, a, t)
            stopped = trace(m, segs / _U, attacker=np.full(len(segs), a),
                            target=np.full(len(segs), t), stopped_only=True).stopped
            clear = np.flatnonzero(~np.asarray(stopped, dtype=bool))
            assert answer == bool(len(clear)), (m, a, t)
            w = effect_witness(m, a, t, drawn_stopped=True)
            if answer:
                assert np.array_equal(w, segs[clear[0]] / _U), (m, a, t)
            else:
                assert w is None
            seen[answer] += 1
    assert seen[True] >= 20 and seen[False] >= 20


def test_without_the_proof_the_answers_are_the_same():
    for m in _maps(23, 12):
        pairs = _ordered_pairs(m)
        for drawn in (False, True):
            assert (line_of_effect_many(m, pairs, drawn_stopped=drawn, prove=False)
                    == line_of_effect_many(m, pairs, drawn_stopped=drawn)).all()
    with pytest.raises(TypeError, match="prove must be True or False"):
        line_of_effect_many(m, pairs, prove=1)
