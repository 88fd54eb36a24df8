"""Line of effect (SPEC section 4): is any segment between two spaces not stopped?

The shooter has line of effect to the target when some segment of positive
length from a point of the shooter's space to a point of the target's space,
attached at both ends (SPEC section 3), is not stopped by the blocking class
(solid squares, walls, closed doors).  Creatures, slits and low obstacles
never matter.  A segment lying wholly along the edges of the two spaces does
not count, nor does the single point where two spaces share a corner.  For an
area effect the segments run from the effect's origin, a free point.

Method
------
1. **Fast accept.**  The drawn lines (pf1e corner-to-corner and the
   centre-to-centre line; from an origin, the lines to the target's corners
   and centre) are traced in one call; one that is not stopped decides.
2. **Exact search.**  Otherwise a free segment can be slid and turned until
   it touches two *critical points*: corners of the two spaces, the corners
   where solid squares turn (a vertex with 1 or 3 solid squares around it, or
   2 meeting diagonally), endpoints of blocking walls, and the lattice points
   next to where a blocking wall crosses an edge of either space, all in the
   bounding box of the two spaces.  For every pair of them the line through
   both is clipped to its part from the shooter's space to the target's
   space, and all these segments are traced in one call.  From an origin the
   candidate lines run through the origin and one critical point.

The trace engine reads coordinates on the 1/1024 lattice, so a candidate line
is traced exactly when it has a lattice point in each space (always so for
lines through two points on whole squares, and for the others unless the line
only clips a corner of a space); otherwise its segment is approximated by
lattice points in the two spaces (best effort).  Every traced segment is a
genuine segment from one space to the other, so a ``True`` answer is always
proved by a witness (:func:`effect_witness` returns it); only a ``False``
answer can, in those rare off-lattice cases, be wrong.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from lineoffire.maps.model import SCALE, SOLID, BattleMap, Creature, MapError

from .lines import corner_to_corner, centre_line, origin_lines, space_rect
from .trace import trace

__all__ = ["line_of_effect", "line_of_effect_many", "effect_witness"]

Rect = tuple[int, int, int, int]


# ------------------------------------------------------------------ public
def line_of_effect(bmap: BattleMap, attacker: Creature | str | int | None,
                   target: Creature | str | int | None = None, *,
                   origin: npt.ArrayLike | None = None) -> bool:
    """Whether ``attacker`` (or an area's ``origin``) has line of effect to ``target``.

    Parameters
    ----------
    bmap : BattleMap
    attacker, target : Creature, id or creature index
        With ``origin`` given the attacker is ignored (may be None).
    origin : (x, y), optional
        An area effect's point of origin (a free point, snapped to 1/1024).

    Returns
    -------
    bool
        False means total cover.

    Raises
    ------
    TypeError
        If ``target`` is missing.
    ValueError
        If attacker and target are the same creature, or a creature is unknown
        (:class:`MapError`).

    Examples
    --------
    A wall along the shared edge of A and B that runs past both its ends cuts
    them off; a wall exactly one edge long can be reached around::

        . | .        . . .
        A | B        A | B
        . | .        . . .

    >>> from lineoffire.maps import BattleMap
    >>> walls = [{"points": [[1, 0], [1, 3]]}]
    >>> m = BattleMap.build(2, 3, walls=walls, creatures=[{"id": "A", "x": 0, "y": 1},
    ...                                                   {"id": "B", "x": 1, "y": 1}])
    >>> line_of_effect(m, "A", "B")
    False
    >>> line_of_effect(m.with_walls([]), "A", "B")
    True
    """
    return effect_witness(bmap, attacker, target, origin=origin) is not None


def effect_witness(bmap: BattleMap, attacker: Creature | str | int | None,
                   target: Creature | str | int | None = None, *,
                   origin: npt.ArrayLike | None = None) -> np.ndarray | None:
    """A segment ``[x0, y0, x1, y1]`` that proves line of effect, or None (total cover).

    The segment starts in the attacker's closed space (or at ``origin``) and
    ends in the target's; traced with them attached it is not stopped.  When
    the two spaces overlap (tiny creatures sharing a square) the segment is
    the diagonal of the shared square.  Parameters as :func:`line_of_effect`.
    """
    if target is None:
        raise TypeError("line_of_effect needs a target (a creature or its id)")
    ti = _creature_index(bmap, target, "target")
    trect = _units_rect(bmap.creatures[ti])
    if origin is not None:
        o = _origin_units(bmap, origin)
        return _origin_witness(bmap, o, ti, trect)
    if attacker is None:
        raise TypeError("line_of_effect needs an attacker, or an origin for an area effect")
    ai = _creature_index(bmap, attacker, "attacker")
    if ai == ti:
        raise ValueError(f"attacker and target are the same creature "
                         f"({bmap.creatures[ai].id!r})")
    segs, owners = _pair_segments(bmap, [(ai, ti)], exact=False)
    hit = _first_clear(bmap, segs, owners, [(ai, ti)])
    if hit[0] is not None:
        return hit[0]
    segs, owners = _pair_segments(bmap, [(ai, ti)], exact=True)
    return _first_clear(bmap, segs, owners, [(ai, ti)])[0]


def line_of_effect_many(bmap: BattleMap,
                        pairs: Iterable[tuple[Creature | str | int, Creature | str | int]]
                        ) -> np.ndarray:
    """Line of effect for many ``(attacker, target)`` pairs (indices, ids or creatures).

    The fast-accept lines of every pair are traced in one call, then the
    exact candidates of the undecided pairs in one more.

    Returns
    -------
    ndarray of bool, shape (len(pairs),)

    Examples
    --------
    ::

        . # . . .
        A # B . C      a column of solid squares cuts A off from B and C
        . # . . .

    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(5, 3, squares=[".#...", ".#...", ".#..."],
    ...                     creatures=[{"id": "A", "x": 0, "y": 1},
    ...                                {"id": "B", "x": 2, "y": 1},
    ...                                {"id": "C", "x": 4, "y": 1}])
    >>> line_of_effect_many(m, [("A", "B"), ("B", "C"), (2, 0)]).tolist()
    [False, True, False]
    """
    idx: list[tuple[int, int]] = []
    for n, pair in enumerate(pairs):
        try:
            if isinstance(pair, (str, bytes)):
                raise TypeError
            a, t = pair
        except (TypeError, ValueError):
            raise TypeError(f"pairs[{n}] must be an (attacker, target) pair, not {pair!r}") from None
        ai = _creature_index(bmap, a, f"pairs[{n}] attacker")
        ti = _creature_index(bmap, t, f"pairs[{n}] target")
        if ai == ti:
            raise ValueError(f"pairs[{n}]: attacker and target are the same creature "
                             f"({bmap.creatures[ai].id!r})")
        idx.append((ai, ti))
    out = np.zeros(len(idx), dtype=bool)
    if not idx:
        return out
    segs, owners = _pair_segments(bmap, idx, exact=False)
    found = _first_clear(bmap, segs, owners, idx)
    out[:] = [w is not None for w in found]
    todo = np.flatnonzero(~out)
    if len(todo):
        sub = [idx[i] for i in todo]
        segs, owners = _pair_segments(bmap, sub, exact=True)
        found = _first_clear(bmap, segs, owners, sub)
        out[todo] = [w is not None for w in found]
    return out


# --------------------------------------------------------------- plumbing
def _creature_index(bmap: BattleMap, c: Any, where: str) -> int:
    if isinstance(c, Creature):
        i = bmap.creature_index(c.id)
        if bmap.creatures[i] != c:
            raise MapError(f"{where}: creature {c.id!r} differs from the map's creature "
                           "of that id")
        return i
    if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
        if not 0 <= c < len(bmap.creatures):
            raise MapError(f"{where}: creature index {c} outside 0..{len(bmap.creatures) - 1}")
        return int(c)
    if isinstance(c, str):
        return bmap.creature_index(c)
    raise TypeError(f"{where} must be a Creature, an id or an index, not "
                    f"{type(c).__name__} ({c!r})")


def _units_rect(c: Creature) -> Rect:
    x0, y0, x1, y1 = space_rect(c)
    return (x0 * SCALE, y0 * SCALE, x1 * SCALE, y1 * SCALE)


def _origin_units(bmap: BattleMap, origin: Any) -> tuple[int, int]:
    try:
        p = np.asarray(origin, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"origin must be a point (x, y), not {origin!r}") from None
    if p.shape != (2,) or not np.isfinite(p).all():
        raise ValueError(f"origin must be a finite point (x, y), not {origin!r}")
    u = np.rint(p * SCALE).astype(np.int64)
    if (u < 0).any() or u[0] > bmap.width * SCALE or u[1] > bmap.height * SCALE:
        raise MapError(f"origin ({p[0]:g}, {p[1]:g}) lies outside the "
                       f"{bmap.width}x{bmap.height} map")
    return int(u[0]), int(u[1])


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _first_clear(bmap: BattleMap, segs: np.ndarray, owners: np.ndarray,
                 pairs: Sequence[tuple[int, int]]) -> list[np.ndarray | None]:
    """Trace ``segs`` (units) in one call; per pair the first unstopped one (squares)."""
    out: list[np.ndarray | None] = [None] * len(pairs)
    if len(segs) == 0:
        return out
    att = np.array([pairs[o][0] for o in owners], dtype=np.int64)
    tgt = np.array([pairs[o][1] for o in owners], dtype=np.int64)
    batch = trace(bmap, segs / SCALE, attacker=att, target=tgt, stopped_only=True)
    clear = ~np.asarray(batch.stopped, dtype=bool)
    for k in np.flatnonzero(clear):
        o = int(owners[k])
        if out[o] is None:
            out[o] = segs[k] / SCALE
    return out


def _pair_segments(bmap: BattleMap, pairs: Sequence[tuple[int, int]], *, exact: bool
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Candidate segments (units, shape (M, 4)) of every pair and their pair index."""
    chunks, owners = [], []
    for n, (ai, ti) in enumerate(pairs):
        a, t = bmap.creatures[ai], bmap.creatures[ti]
        srect, trect = _units_rect(a), _units_rect(t)
        if _overlap(srect, trect):
            # Shared interior: the diagonal of the shared part is wholly inside both.
            x0, y0 = max(srect[0], trect[0]), max(srect[1], trect[1])
            x1, y1 = min(srect[2], trect[2]), min(srect[3], trect[3])
            segs = np.array([[x0, y0, x1, y1]], dtype=np.int64)
        elif not exact:
            lines, _, _ = corner_to_corner(a, t)
            drawn = np.concatenate([lines.reshape(-1, 4), centre_line(a, t)[None, :]])
            # neighbouring target squares share corners: trace each line once
            segs = np.unique(np.rint(drawn * SCALE).astype(np.int64), axis=0)
        else:
            pts = _critical_points(bmap, srect, trect)
            segs = _pair_lines(pts, srect, trect)
        segs = segs[_valid(segs, srect, trect)]
        chunks.append(segs)
        owners.append(np.full(len(segs), n, dtype=np.int64))
    return np.concatenate(chunks), np.concatenate(owners)


# ------------------------------------------------------- critical points
def _blocking_segments(bmap: BattleMap) -> np.ndarray:
    """Segments (units, (W, 4)) of walls and closed doors."""
    rows = [
        (*p, *q)
        for wall in bmap.walls if wall.obstacle_class == "blocking"
        for p, q in wall.segments
    ]
    if not rows:
        return np.empty((0, 4), dtype=np.int64)
    return np.rint(np.array(rows, dtype=np.float64) * SCALE).astype(np.int64)


def _solid_turns(bmap: BattleMap, box: Rect) -> np.ndarray:
    """Grid vertices in ``box`` (units) where the solid squares turn, ``(K, 2)`` units."""
    X0, Y0 = box[0] // SCALE, box[1] // SCALE
    X1, Y1 = -(-box[2] // SCALE), -(-box[3] // SCALE)
    X0, Y0 = max(X0, 0), max(Y0, 0)
    X1, Y1 = min(X1, bmap.width), min(Y1, bmap.height)
    # Solid flags of squares (X0 - 1 .. X1, Y0 - 1 .. Y1), off-map squares open.
    pad = np.zeros((bmap.height + 2, bmap.width + 2), dtype=bool)
    pad[1:-1, 1:-1] = bmap.squares == SOLID
    win = pad[Y0 : Y1 + 2, X0 : X1 + 2]
    nw, ne, sw, se = win[:-1, :-1], win[:-1, 1:], win[1:, :-1], win[1:, 1:]
    count = nw.astype(np.int8) + ne + sw + se
    turn = (count == 1) | (count == 3) | ((count == 2) & (nw == se))
    ys, xs = np.nonzero(turn)
    return np.stack([xs + X0, ys + Y0], axis=1).astype(np.int64) * SCALE


def _edge_crossings(walls: np.ndarray, rect: Rect) -> np.ndarray:
    """Lattice points on the edges of ``rect`` next to where walls cross them."""
    out = []
    x0, y0, x1, y1 = rect
    if len(walls) == 0:
        return np.empty((0, 2), dtype=np.int64)
    for axis, fixed_values, lo, hi in ((0, (x0, x1), y0, y1), (1, (y0, y1), x0, x1)):
        a0, a1 = walls[:, axis], walls[:, axis + 2]  # coordinate across the edge line
        b0, b1 = walls[:, 1 - axis], walls[:, 3 - axis]  # coordinate along it
        for f in fixed_values:
            den = a1 - a0
            ok = (den != 0) & (np.minimum(a0, a1) <= f) & (f <= np.maximum(a0, a1))
            if not ok.any():
                continue
            den_ok, a0k, b0k, b1k = den[ok], a0[ok], b0[ok], b1[ok]
            num = b0k * den_ok + (f - a0k) * (b1k - b0k)
            sgn = np.sign(den_ok)
            num, den_ok = num * sgn, den_ok * sgn
            for v in (np.floor_divide(num, den_ok), -np.floor_divide(-num, den_ok)):
                keep = (lo <= v) & (v <= hi)
                v = v[keep]
                pts = np.empty((len(v), 2), dtype=np.int64)
                pts[:, axis] = f
                pts[:, 1 - axis] = v
                out.append(pts)
    if not out:
        return np.empty((0, 2), dtype=np.int64)
    return np.concatenate(out)


def _critical_points(bmap: BattleMap, srect: Rect, trect: Rect | None,
                     origin: tuple[int, int] | None = None) -> np.ndarray:
    """Critical points (units, unique, ``(K, 2)``) in the closed convex hull of the spaces."""
    rects = [r for r in (srect, trect) if r is not None]
    xs = [r[0] for r in rects] + [r[2] for r in rects]
    ys = [r[1] for r in rects] + [r[3] for r in rects]
    if origin is not None:
        xs.append(origin[0])
        ys.append(origin[1])
    box = (min(xs), min(ys), max(xs), max(ys))
    pts = [np.array([[r[0], r[1]], [r[2], r[1]], [r[0], r[3]], [r[2], r[3]]], dtype=np.int64)
           for r in rects]
    pts.append(_solid_turns(bmap, box))
    walls = _blocking_segments(bmap)
    if len(walls):
        wx0 = np.minimum(walls[:, 0], walls[:, 2])
        wx1 = np.maximum(walls[:, 0], walls[:, 2])
        wy0 = np.minimum(walls[:, 1], walls[:, 3])
        wy1 = np.maximum(walls[:, 1], walls[:, 3])
        near = (wx0 <= box[2]) & (box[0] <= wx1) & (wy0 <= box[3]) & (box[1] <= wy1)
        walls = walls[near]
        ends = walls.reshape(-1, 2)
        pts.append(ends)
        for r in rects:
            pts.append(_edge_crossings(walls, r))
    allpts = np.concatenate(pts)
    corners = np.concatenate(pts[: len(rects)])
    if origin is not None:
        corners = np.concatenate([corners, np.array([origin], dtype=np.int64)])
    return np.unique(allpts[_in_hull(allpts, corners)], axis=0)


def _in_hull(pts: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Mask of ``pts`` in the closed convex hull of ``corners`` (exact integers)."""
    c = np.unique(corners, axis=0)  # sorted by x, then y
    if len(c) < 3:
        return (pts[:, None, :] == c[None]).all(axis=2).any(axis=1)

    def chain(seq):
        out: list = []
        for q in seq:
            while len(out) >= 2 and _cross(out[-2], out[-1], q) <= 0:
                out.pop()
            out.append(q)
        return out

    pl = [tuple(int(v) for v in row) for row in c]
    hull = chain(pl)[:-1] + chain(pl[::-1])[:-1]  # counter-clockwise in (x, y)
    ok = np.ones(len(pts), dtype=bool)
    for i in range(len(hull)):
        (ax, ay), (bx, by) = hull[i], hull[(i + 1) % len(hull)]
        ok &= (bx - ax) * (pts[:, 1] - ay) - (by - ay) * (pts[:, 0] - ax) >= 0
    return ok


def _cross(o, a, b) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


# ----------------------------------------------------- candidate segments
def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return -np.floor_divide(-a, b)


def _lattice_range(p: np.ndarray, e: np.ndarray, rect: Rect) -> tuple[np.ndarray, np.ndarray]:
    """Integer ``k`` range ``[lo, hi]`` with ``p + k e`` in the closed ``rect``.

    ``e`` is a primitive direction (never zero); empty ranges have lo > hi.
    """
    n = len(p)
    lo = np.full(n, np.iinfo(np.int64).min // 4, dtype=np.int64)
    hi = np.full(n, np.iinfo(np.int64).max // 4, dtype=np.int64)
    for ax, (r0, r1) in enumerate(((rect[0], rect[2]), (rect[1], rect[3]))):
        pa, ea = p[:, ax], e[:, ax]
        still = ea == 0
        outside = still & ((pa < r0) | (pa > r1))
        lo = np.where(outside, 1, lo)
        hi = np.where(outside, 0, hi)
        mov = ~still
        em = np.where(mov, np.abs(ea), 1)
        # p + k e in [r0, r1]  <=>  k |e| in [a, b]
        a = np.where(ea > 0, r0 - pa, pa - r1)
        b = np.where(ea > 0, r1 - pa, pa - r0)
        lo = np.where(mov, np.maximum(lo, _ceil_div(a, em)), lo)
        hi = np.where(mov, np.minimum(hi, np.floor_divide(b, em)), hi)
    return lo, hi


def _chord_mid(p: np.ndarray, d: np.ndarray, rect: Rect) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float chord ``[s0, s1]`` of ``p + s d`` in ``rect`` and whether it is non-empty."""
    s0 = np.full(len(p), -np.inf)
    s1 = np.full(len(p), np.inf)
    ok = np.ones(len(p), dtype=bool)
    for ax, (r0, r1) in enumerate(((rect[0], rect[2]), (rect[1], rect[3]))):
        pa, da = p[:, ax].astype(np.float64), d[:, ax].astype(np.float64)
        still = da == 0
        ok &= ~still | ((pa >= r0) & (pa <= r1))
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (r0 - pa) / da
            v = (r1 - pa) / da
        s0 = np.where(still, s0, np.maximum(s0, np.minimum(u, v)))
        s1 = np.where(still, s1, np.minimum(s1, np.maximum(u, v)))
    return s0, s1, ok & (s0 <= s1)


def _clamp(pts: np.ndarray, rect: Rect) -> np.ndarray:
    return np.stack([np.clip(pts[:, 0], rect[0], rect[2]),
                     np.clip(pts[:, 1], rect[1], rect[3])], axis=1)


def _lines_to_segments(p: np.ndarray, q: np.ndarray, srect: Rect, trect: Rect,
                       *, from_p: bool) -> np.ndarray:
    """Segments from ``srect`` to ``trect`` (or from ``p`` itself) on the lines ``pq``.

    With ``from_p`` the segment starts at ``p`` (a free origin) and runs
    forwards only.  Lines with no lattice point in a space are approximated
    by rounding points of their chords (best effort, see the module notes).
    """
    d = q - p
    g = np.gcd(d[:, 0], d[:, 1])
    keep = g > 0
    p, q, d, g = p[keep], q[keep], d[keep], g[keep]
    e = d // g[:, None]
    out = []
    # Exact: lattice points on the line in each space.
    tlo, thi = _lattice_range(p, e, trect)
    if from_p:
        k_t = np.maximum(tlo, 1)
        ok = k_t <= thi
        out.append(np.concatenate([p[ok], p[ok] + k_t[ok, None] * e[ok]], axis=1))
        exact = ok
    else:
        slo, shi = _lattice_range(p, e, srect)
        has = (slo <= shi) & (tlo <= thi)
        ks = np.zeros(len(p), dtype=np.int64)
        kt = np.zeros(len(p), dtype=np.int64)
        # (mask, k in the shooter's space, k in the target's space); the cases
        # exclude each other.  Chords meeting at one lattice point step off it
        # on the side that has room; two single equal points are a shared
        # corner alone and give nothing.
        cases = (
            (shi < tlo, shi, tlo),                               # S before T
            (thi < slo, slo, thi),                               # T before S
            ((shi == tlo) & (tlo < thi), shi, tlo + 1),          # touch, T longer
            ((shi == tlo) & (tlo == thi) & (slo < shi), shi - 1, tlo),
            ((thi == slo) & (slo < shi), slo + 1, thi),          # touch, S longer
            ((thi == slo) & (slo == shi) & (tlo < thi), slo, thi - 1),
        )
        ok = np.zeros(len(p), dtype=bool)
        for mask, k_s, k_t in cases:
            mask = mask & has & ~ok
            ks[mask] = k_s[mask]
            kt[mask] = k_t[mask]
            ok |= mask
        a = p[ok] + ks[ok, None] * e[ok]
        b = p[ok] + kt[ok, None] * e[ok]
        out.append(np.concatenate([a, b], axis=1))
        exact = has
    # Best effort for lines with no lattice point in a space.
    rest = ~exact
    if rest.any():
        pr, dr = p[rest], d[rest]
        t0, t1, tok = _chord_mid(pr, dr, trect)
        if from_p:
            t0 = np.maximum(t0, 0.0)
            tok &= t0 <= t1
            a_real = pr.astype(np.float64)
            b_real = pr + ((t0 + t1) / 2)[:, None] * dr
            ok = tok
        else:
            s0, s1, sok = _chord_mid(pr, dr, srect)
            a_real = pr + ((s0 + s1) / 2)[:, None] * dr
            b_real = pr + ((t0 + t1) / 2)[:, None] * dr
            ok = sok & tok
        a_real, b_real, dr = a_real[ok], b_real[ok], dr[ok]
        normal = np.stack([-dr[:, 1], dr[:, 0]], axis=1).astype(np.float64)
        normal /= np.maximum(np.abs(normal).max(axis=1, keepdims=True), 1)
        for shift in (0.0, 1.0, -1.0):
            a = a_real if from_p else a_real + shift * normal
            b = b_real + shift * normal
            ai = np.rint(a).astype(np.int64)
            if not from_p:
                ai = _clamp(ai, srect)
            bi = _clamp(np.rint(b).astype(np.int64), trect)
            out.append(np.concatenate([ai, bi], axis=1))
    return np.concatenate(out) if out else np.empty((0, 4), dtype=np.int64)


def _pair_lines(pts: np.ndarray, srect: Rect, trect: Rect) -> np.ndarray:
    """Segments on the lines through every pair of distinct critical points."""
    i, j = np.triu_indices(len(pts), k=1)
    return _lines_to_segments(pts[i], pts[j], srect, trect, from_p=False)


def _valid(segs: np.ndarray, srect: Rect | None, trect: Rect) -> np.ndarray:
    """Mask of segments of positive length not lying wholly along the spaces' edges."""
    x0, y0, x1, y1 = segs.T
    ok = (x0 != x1) | (y0 != y1)
    if srect is None:
        return ok
    along = np.zeros(len(segs), dtype=bool)
    for ax in (0, 1):
        # Segments lying on a line of constant coordinate ``ax``.
        c0, c1 = (x0, x1) if ax == 0 else (y0, y1)  # the constant coordinate
        v0, v1 = (y0, y1) if ax == 0 else (x0, x1)  # the running coordinate
        flat = c0 == c1
        lo, hi = np.minimum(v0, v1), np.maximum(v0, v1)
        cover = []
        for r in (srect, trect):
            e0, e1 = (r[ax], r[ax + 2])  # the rect's range across
            f0, f1 = (r[1 - ax], r[3 - ax])  # its range along
            on = (c0 == e0) | (c0 == e1)
            cover.append((on, f0, f1))
        (on_s, s0, s1), (on_t, t0, t1) = cover
        in_s = on_s & (s0 <= lo) & (hi <= s1)
        in_t = on_t & (t0 <= lo) & (hi <= t1)
        joined = (on_s & on_t & (s0 <= t1) & (t0 <= s1)
                  & (min(s0, t0) <= lo) & (hi <= max(s1, t1)))
        along |= flat & (in_s | in_t | joined)
    return ok & ~along


# ------------------------------------------------------------ area origin
def _origin_witness(bmap: BattleMap, o: tuple[int, int], ti: int, trect: Rect
                    ) -> np.ndarray | None:
    ox, oy = o
    if trect[0] <= ox <= trect[2] and trect[1] <= oy <= trect[3]:
        # The origin is in the target's space: a segment inside it is never stopped.
        cx, cy = (trect[0] + trect[2]) // 2, (trect[1] + trect[3]) // 2
        end = (cx, cy) if (cx, cy) != (ox, oy) else (trect[0], trect[1])
        return np.array([ox, oy, *end], dtype=np.float64) / SCALE
    t = bmap.creatures[ti]
    drawn = np.concatenate([origin_lines((ox / SCALE, oy / SCALE), t, "corners").reshape(-1, 4),
                            origin_lines((ox / SCALE, oy / SCALE), t, "centre")[None, :]])
    segs = np.rint(drawn * SCALE).astype(np.int64)
    for attempt in range(2):
        if attempt == 1:
            pts = _critical_points(bmap, trect, None, origin=o)
            pts = pts[(pts[:, 0] != ox) | (pts[:, 1] != oy)]
            p = np.broadcast_to(np.array(o, dtype=np.int64), pts.shape)
            segs = _lines_to_segments(p, pts, trect, trect, from_p=True)
        segs = segs[_valid(segs, None, trect)]
        if len(segs) == 0:
            continue
        batch = trace(bmap, segs / SCALE, attacker=None, target=bmap.creatures[ti].id)
        clear = np.flatnonzero(~np.asarray(batch.stopped, dtype=bool))
        if len(clear):
            return segs[clear[0]] / SCALE
    return None

