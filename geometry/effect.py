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
   A caller that has already traced every corner-to-corner line and found
   them all stopped skips this step (``drawn_stopped=True``): the exact
   search alone decides, so the answer is the same either way.
2. **Sealed.**  The cheap proof of :mod:`.seal` settles most cut-off
   pairs of a dungeon: when it shows every segment stopped, there is no
   line of effect and nothing is searched.
3. **Exact search.**  Otherwise a free segment can be slid and turned until
   it touches two *critical points*: corners of the two spaces, the corners
   where solid squares turn (a vertex with 1 or 3 solid squares around it, or
   2 meeting diagonally), endpoints of blocking walls, and the lattice points
   next to where a blocking wall crosses an edge of either space, all in the
   bounding box of the two spaces.  For every pair of them the line through
   both is clipped to its part from the shooter's space to the target's
   space, and all these segments are traced in one call (``stopped_only``;
   a pair's duplicate segments once; for many pairs, one call per
   :data:`MAX_SEGMENTS` segments, so memory stays bounded).  The critical
   points and candidates of many pairs are built together, each step one
   set of numpy operations over all of them (rows tagged with their pair),
   and lines missing either space are dropped before they are clipped.
   From an origin the candidate lines run through the origin and one
   critical point.

The blocking walls and the vertices where solid squares turn are found once
per map and kept with the trace kernel's tables (rebuilt with them).

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

from ._prep import prep_for
from .lines import corner_to_corner, centre_line, origin_lines, space_rect
from .seal import sealed_pairs
from .trace import as_point, trace

__all__ = ["MAX_SEGMENTS", "line_of_effect", "line_of_effect_many", "effect_witness"]

Rect = tuple[int, int, int, int]

#: Candidate segments traced per call of the exact search over many pairs.
MAX_SEGMENTS = 1 << 17


# ------------------------------------------------------------------ public
def line_of_effect(bmap: BattleMap, attacker: Creature | str | int | None,
                   target: Creature | str | int | None = None, *,
                   origin: npt.ArrayLike | None = None,
                   drawn_stopped: bool = False) -> bool:
    """Whether ``attacker`` (or an area's ``origin``) has line of effect to ``target``.

    Parameters
    ----------
    bmap : BattleMap
    attacker, target : Creature, id or creature index
        With ``origin`` given the attacker is ignored (may be None).
    origin : (x, y), optional
        An area effect's point of origin (a free point, snapped to 1/1024).
    drawn_stopped : bool
        The caller has traced every corner-to-corner line of the pair and
        none proved line of effect (all stopped, or running along the
        spaces' edges): skip the fast accept.  The exact search alone
        decides, so the answer is the same, for less work.  Not for area
        effects.

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
    return effect_witness(bmap, attacker, target, origin=origin,
                          drawn_stopped=drawn_stopped) is not None


def effect_witness(bmap: BattleMap, attacker: Creature | str | int | None,
                   target: Creature | str | int | None = None, *,
                   origin: npt.ArrayLike | None = None,
                   drawn_stopped: bool = False) -> np.ndarray | None:
    """A segment ``[x0, y0, x1, y1]`` that proves line of effect, or None (total cover).

    The segment starts in the attacker's closed space (or at ``origin``) and
    ends in the target's; traced with them attached it is not stopped.  When
    the two spaces overlap (tiny creatures sharing a square) the segment is
    the diagonal of the shared square.  Parameters as :func:`line_of_effect`.
    """
    _check_flag(drawn_stopped, "drawn_stopped")
    if target is None:
        raise TypeError("line_of_effect needs a target (a creature or its id)")
    ti = _creature_index(bmap, target, "target")
    trect = _units_rect(bmap.creatures[ti])
    if origin is not None:
        if drawn_stopped:
            raise ValueError("drawn_stopped applies to a shooter and a target, not to an "
                             "area effect's origin")
        o = as_point(origin, bmap, "origin")
        return _origin_witness(bmap, o, ti, trect)
    if attacker is None:
        raise TypeError("line_of_effect needs an attacker, or an origin for an area effect")
    ai = _creature_index(bmap, attacker, "attacker")
    if ai == ti:
        raise ValueError(f"attacker and target are the same creature "
                         f"({bmap.creatures[ai].id!r})")
    if not drawn_stopped:
        hit = _search(bmap, [(ai, ti)], exact=False)[0]
        if hit is not None:
            return hit
    if sealed_pairs(bmap, [ai], [ti])[0]:
        return None
    return _search(bmap, [(ai, ti)], exact=True)[0]


def line_of_effect_many(bmap: BattleMap,
                        pairs: Iterable[tuple[Creature | str | int, Creature | str | int]],
                        *, drawn_stopped: bool = False, prove: bool = True) -> np.ndarray:
    """Line of effect for many ``(attacker, target)`` pairs (indices, ids or creatures).

    The fast-accept lines of every pair are traced in one call, then the
    exact candidates of the undecided pairs together (one trace call per
    :data:`MAX_SEGMENTS` candidate segments).  The answers are those of
    :func:`line_of_effect` pair by pair.

    Parameters
    ----------
    bmap : BattleMap
    pairs : iterable of (attacker, target)
    drawn_stopped : bool
        Every pair's corner-to-corner lines were traced by the caller and
        none proved line of effect: skip the fast accept and run the exact
        search for all pairs at once (same answers).
    prove : bool
        Try the cheap proof of :mod:`.seal` before the exact search (same
        answers); a caller that has just tried it on these pairs passes
        False.

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
    >>> line_of_effect_many(m, [("A", "B"), (2, 0)], drawn_stopped=True).tolist()
    [False, False]
    """
    _check_flag(drawn_stopped, "drawn_stopped")
    _check_flag(prove, "prove")
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
    todo = np.arange(len(idx))
    if not drawn_stopped:
        out[:] = [w is not None for w in _search(bmap, idx, exact=False)]
        todo = np.flatnonzero(~out)
    if len(todo) and prove:
        who = np.array(idx, dtype=np.int64)[todo]
        todo = todo[~sealed_pairs(bmap, who[:, 0], who[:, 1])]
    if len(todo):
        found = _search(bmap, [idx[i] for i in todo.tolist()], exact=True)
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


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _check_flag(value: Any, name: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} ({value!r})")


def _search(bmap: BattleMap, pairs: Sequence[tuple[int, int]], *, exact: bool
            ) -> list[np.ndarray | None]:
    """Per pair the first unstopped candidate (squares), or None.

    ``exact=False`` traces the drawn lines (fast accept), ``exact=True`` the
    exact search's candidates, built for many pairs at once
    (:func:`_exact_batches`).  Each pair's candidates are distinct and
    sorted, and the first unstopped one in that order is its witness.  At
    most :data:`MAX_SEGMENTS` segments go to one trace call; a pair whose
    witness was found leaves its remaining candidates untraced.
    """
    out: list[np.ndarray | None] = [None] * len(pairs)
    if not len(pairs):
        return out
    who = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    found = np.zeros(len(pairs), dtype=bool)

    def flush(segs: np.ndarray, owners: np.ndarray) -> None:
        while len(segs):
            keep = ~found[owners]
            segs, owners = segs[keep], owners[keep]
            piece, own = segs[:MAX_SEGMENTS], owners[:MAX_SEGMENTS]
            segs, owners = segs[MAX_SEGMENTS:], owners[MAX_SEGMENTS:]
            if not len(piece):
                return
            batch = trace(bmap, piece / SCALE, attacker=who[own, 0], target=who[own, 1],
                          stopped_only=True)
            clear = np.flatnonzero(~np.asarray(batch.stopped, dtype=bool))
            # ``clear`` ascends: an owner's first row in it is its first clear candidate
            firsts, at = np.unique(own[clear], return_index=True)
            for o, k in zip(firsts.tolist(), clear[at].tolist()):
                out[o] = piece[k] / SCALE
            found[firsts] = True

    pending: list[tuple[np.ndarray, np.ndarray]] = []
    size = 0
    for segs, owners in (_exact_batches(bmap, who) if exact else _drawn_batches(bmap, who)):
        pending.append((segs, owners))
        size += len(segs)
        if size >= MAX_SEGMENTS:
            flush(np.concatenate([p[0] for p in pending]), np.concatenate([p[1] for p in pending]))
            pending, size = [], 0
    if pending:
        flush(np.concatenate([p[0] for p in pending]), np.concatenate([p[1] for p in pending]))
    return out


def _drawn_batches(bmap: BattleMap, who: np.ndarray):
    """The fast accept's segments (units, distinct and sorted per pair) and
    their owners, in batches of about :data:`MAX_SEGMENTS` segments."""
    segs: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    size = 0
    for n, (ai, ti) in enumerate(who.tolist()):
        s = _pair_segments(bmap, ai, ti)
        segs.append(s)
        owners.append(np.full(len(s), n, dtype=np.int64))
        size += len(s)
        if size >= MAX_SEGMENTS:
            yield np.concatenate(segs), np.concatenate(owners)
            segs, owners, size = [], [], 0
    if segs:
        yield np.concatenate(segs), np.concatenate(owners)


def _pair_segments(bmap: BattleMap, ai: int, ti: int) -> np.ndarray:
    """One pair's drawn lines (units, ``(M, 4)``, distinct, sorted): every
    corner-to-corner line and the centre line, or, for spaces that share
    interior, the diagonal of the shared part."""
    a, t = bmap.creatures[ai], bmap.creatures[ti]
    srect, trect = _units_rect(a), _units_rect(t)
    if _overlap(srect, trect):
        return _shared_diagonals(np.array([srect]), np.array([trect]))
    lines, _, _ = corner_to_corner(a, t)
    drawn = np.concatenate([lines.reshape(-1, 4), centre_line(a, t)[None, :]])
    segs = np.rint(drawn * SCALE).astype(np.int64)
    return _unique_rows(segs[_valid(segs, srect, trect)])


def _shared_diagonals(S: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Per pair of overlapping spaces the diagonal of the shared part (wholly
    inside both: never stopped)."""
    return np.concatenate([np.maximum(S[:, :2], T[:, :2]), np.minimum(S[:, 2:], T[:, 2:])],
                          axis=1)


def _exact_batches(bmap: BattleMap, who: np.ndarray):
    """The exact search's candidates of many pairs, built together.

    ``who`` holds ``(attacker, target)`` creature indices.  Yields
    ``(segments, owners)``: int64 ``(M, 4)`` segments in units and the row
    of ``who`` each belongs to, sorted by owner, then segment, each pair's
    segments distinct.  A batch holds the lines through pairs of critical
    points of whole pairs, about :data:`MAX_SEGMENTS` lines (more only for
    a single pair with more lines), so memory stays bounded.  Pairs whose
    spaces share interior get the shared part's diagonal (first batch).
    """
    prep = _effect_prep(bmap)
    used, at = np.unique(who, return_inverse=True)
    rects = np.array([_units_rect(bmap.creatures[c]) for c in used.tolist()],
                     dtype=np.int64).reshape(-1, 4)
    at = at.reshape(who.shape)
    S, T = rects[at[:, 0]], rects[at[:, 1]]
    shared = ((S[:, 0] < T[:, 2]) & (T[:, 0] < S[:, 2])
              & (S[:, 1] < T[:, 3]) & (T[:, 1] < S[:, 3]))
    if shared.any():
        yield _shared_diagonals(S[shared], T[shared]), np.flatnonzero(shared)
    rest = np.flatnonzero(~shared)
    if not len(rest):
        return
    S, T = S[rest], T[rest]
    pts, pown = _critical_points_many(prep, S, T)
    # Lines through every pair of distinct points of one owner: i < j in sorted order.
    count = np.bincount(pown, minlength=len(rest))
    first = np.concatenate([[0], np.cumsum(count)])
    cum = np.cumsum(count * (count - 1) // 2)
    lo = 0
    while lo < len(rest):
        # whole owners, about MAX_SEGMENTS lines (at least one owner)
        base = cum[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(cum, base + MAX_SEGMENTS, side="right")), lo + 1)
        i, j = _pairs_within(first, lo, hi)
        p, q, owner = pts[i], pts[j], pown[i]
        # A line that misses either closed space gives no segment: drop it early.
        meets = _line_meets(p, q - p, S[owner]) & _line_meets(p, q - p, T[owner])
        p, q, owner = p[meets], q[meets], owner[meets]
        segs, src = _line_segments(p, q, S[owner], T[owner], from_p=False)
        owner = owner[src]
        ok = _valid(segs, S[owner], T[owner])
        segs, owner = _unique_owned(segs[ok], owner[ok])
        yield segs, rest[owner]
        lo = hi


def _line_meets(p: np.ndarray, d: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Mask of the lines ``p + s d`` that meet the closed rectangle ``R`` (row
    by row, exact): the rectangle's corners are not all on one side."""
    k = d[:, 0] * p[:, 1] - d[:, 1] * p[:, 0]
    u0, u1 = d[:, 0] * R[:, 1], d[:, 0] * R[:, 3]
    v0, v1 = d[:, 1] * R[:, 0], d[:, 1] * R[:, 2]
    lo = np.minimum(u0, u1) - np.maximum(v0, v1)
    hi = np.maximum(u0, u1) - np.minimum(v0, v1)
    return (lo <= k) & (k <= hi)


def _pairs_within(first: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of every pair of points of the same owner
    for owners ``lo .. hi - 1`` (owner ``o`` holds points ``first[o] ..
    first[o + 1] - 1``), ordered by owner, then ``i``, then ``j``."""
    g = np.arange(first[lo], first[hi], dtype=np.int64)
    owner = np.repeat(np.arange(lo, hi), np.diff(first[lo:hi + 1]))
    after = first[owner + 1] - 1 - g  # points after g in its owner
    total = int(after.sum())
    i = np.repeat(g, after)
    starts = np.cumsum(after) - after
    j = i + 1 + (np.arange(total, dtype=np.int64) - np.repeat(starts, after))
    return i, j


def _unique_owned(segs: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``(owner, segment)`` rows, sorted by owner, then segment."""
    if len(segs) < 2:
        return segs, owner
    order = np.lexsort((segs[:, 3], segs[:, 2], segs[:, 1], segs[:, 0], owner))
    s, o = segs[order], owner[order]
    keep = np.ones(len(s), dtype=bool)
    keep[1:] = (s[1:] != s[:-1]).any(axis=1) | (o[1:] != o[:-1])
    return s[keep], o[keep]


def _unique_rows(segs: np.ndarray) -> np.ndarray:
    """The distinct rows of an int64 ``(M, 4)`` array, sorted."""
    if len(segs) < 2:
        return segs
    order = np.lexsort(segs.T[::-1])
    s = segs[order]
    keep = np.ones(len(s), dtype=bool)
    keep[1:] = (s[1:] != s[:-1]).any(axis=1)
    return s[keep]


# ------------------------------------------------------- per-map cache
class _EffectPrep:
    """What every search on one map reads: blocking walls and solid-square turns.

    ``walls``: segments (units, ``(W, 4)``) of walls and closed doors, with
    their bounding boxes ``wx0, wy0, wx1, wy1``; ``turns[y, x]``: the grid
    vertex ``(x, y)`` has 1 or 3 solid squares around it, or 2 meeting
    diagonally (squares off the map count as open).
    """

    def __init__(self, bmap: BattleMap):
        rows = [
            (*p, *q)
            for wall in bmap.walls if wall.obstacle_class == "blocking"
            for p, q in wall.segments
        ]
        if rows:
            self.walls = np.rint(np.array(rows, dtype=np.float64) * SCALE).astype(np.int64)
        else:
            self.walls = np.empty((0, 4), dtype=np.int64)
        w = self.walls
        self.wx0 = np.minimum(w[:, 0], w[:, 2])
        self.wx1 = np.maximum(w[:, 0], w[:, 2])
        self.wy0 = np.minimum(w[:, 1], w[:, 3])
        self.wy1 = np.maximum(w[:, 1], w[:, 3])
        pad = np.zeros((bmap.height + 2, bmap.width + 2), dtype=bool)
        pad[1:-1, 1:-1] = bmap.squares == SOLID
        nw, ne, sw, se = pad[:-1, :-1], pad[:-1, 1:], pad[1:, :-1], pad[1:, 1:]
        count = nw.astype(np.int8) + ne + sw + se
        self.turns = (count == 1) | (count == 3) | ((count == 2) & (nw == se))
        #: ``y * (width + 1) + x`` of every turn, ascending (row by row).
        self.turn_keys = np.flatnonzero(self.turns).astype(np.int64)


def _effect_prep(bmap: BattleMap) -> _EffectPrep:
    """The cached :class:`_EffectPrep` of ``bmap``, kept with the trace
    kernel's tables (:func:`lineoffire.geometry._prep.prep_for`) and rebuilt
    with them."""
    return prep_for(bmap).derived("effect", lambda: _EffectPrep(bmap))


# ------------------------------------------------------- critical points
def _solid_turns(prep: _EffectPrep, box: Rect) -> np.ndarray:
    """Grid vertices in ``box`` (units) where the solid squares turn, ``(K, 2)`` units."""
    h, w = prep.turns.shape
    X0, Y0 = max(box[0] // SCALE, 0), max(box[1] // SCALE, 0)
    X1, Y1 = min(-(-box[2] // SCALE), w - 1), min(-(-box[3] // SCALE), h - 1)
    ys, xs = np.nonzero(prep.turns[Y0:Y1 + 1, X0:X1 + 1])
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
                     origin: tuple[int, int] | None = None, *,
                     prep: _EffectPrep | None = None) -> np.ndarray:
    """Critical points (units, unique, ``(K, 2)``) in the closed convex hull of the spaces."""
    if prep is None:
        prep = _effect_prep(bmap)
    rects = [r for r in (srect, trect) if r is not None]
    xs = [r[0] for r in rects] + [r[2] for r in rects]
    ys = [r[1] for r in rects] + [r[3] for r in rects]
    if origin is not None:
        xs.append(origin[0])
        ys.append(origin[1])
    box = (min(xs), min(ys), max(xs), max(ys))
    pts = [np.array([[r[0], r[1]], [r[2], r[1]], [r[0], r[3]], [r[2], r[3]]], dtype=np.int64)
           for r in rects]
    pts.append(_solid_turns(prep, box))
    if len(prep.walls):
        near = ((prep.wx0 <= box[2]) & (box[0] <= prep.wx1)
                & (prep.wy0 <= box[3]) & (box[1] <= prep.wy1))
        walls = prep.walls[near]
        pts.append(walls.reshape(-1, 2))
        for r in rects:
            pts.append(_edge_crossings(walls, r))
    allpts = np.concatenate(pts)
    corners = np.concatenate(pts[: len(rects)])
    if origin is not None:
        corners = np.concatenate([corners, np.array([origin], dtype=np.int64)])
    return np.unique(allpts[_in_hull(allpts, corners)], axis=0)


#: Pairs times walls tested at once when finding the walls near many pairs.
_NEAR_BLOCK = 1 << 22


def _critical_points_many(prep: _EffectPrep, S: np.ndarray, T: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """The critical points of many pairs of spaces at once.

    ``S`` and ``T`` are ``(P, 4)`` rectangles in units (interiors disjoint).
    Returns ``(points, owner)``: int64 ``(K, 2)`` points and the pair each
    belongs to, sorted by owner, then x, then y, distinct per owner; per
    pair exactly the points of :func:`_critical_points` (corners of the two
    spaces, solid-square turns, ends of the blocking walls near the pair and
    the lattice points next to where they cross the spaces' edges, in the
    closed convex hull of the two spaces).
    """
    P = len(S)
    box = np.concatenate([np.minimum(S[:, :2], T[:, :2]), np.maximum(S[:, 2:], T[:, 2:])],
                         axis=1)
    pts = [S[:, [0, 1, 2, 1, 0, 3, 2, 3]].reshape(-1, 2),
           T[:, [0, 1, 2, 1, 0, 3, 2, 3]].reshape(-1, 2)]
    own = [np.repeat(np.arange(P), 4)] * 2
    tp, to = _turns_in_hulls(prep, S, T, box)
    pts.append(tp)
    own.append(to)
    if len(prep.walls):
        step = max(1, _NEAR_BLOCK // len(prep.walls))
        for s in range(0, P, step):
            b = box[s:s + step]
            near = ((prep.wx0[None, :] <= b[:, 2:3]) & (b[:, 0:1] <= prep.wx1[None, :])
                    & (prep.wy0[None, :] <= b[:, 3:4]) & (b[:, 1:2] <= prep.wy1[None, :]))
            pi, wi = np.nonzero(near)
            pi = pi + s
            w = prep.walls[wi]
            pts.append(w.reshape(-1, 2))
            own.append(np.repeat(pi, 2))
            for R in (S, T):
                ep, eo = _edge_crossings_many(w, R[pi])
                pts.append(ep)
                own.append(pi[eo])
    allpts = np.concatenate(pts)
    owner = np.concatenate(own)
    inside = _in_hulls(allpts, S[owner], T[owner])
    allpts, owner = allpts[inside], owner[inside]
    order = np.lexsort((allpts[:, 1], allpts[:, 0], owner))
    allpts, owner = allpts[order], owner[order]
    keep = np.ones(len(owner), dtype=bool)
    keep[1:] = (allpts[1:] != allpts[:-1]).any(axis=1) | (owner[1:] != owner[:-1])
    return allpts[keep], owner[keep]


def _turns_in_hulls(prep: _EffectPrep, S: np.ndarray, T: np.ndarray, box: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Solid-square turns of many pairs: ``(points, owner)`` (units).

    Per pair, the grid lines of its bounding box (clipped to the map, as
    :func:`_solid_turns`) are scanned between the hull's left and right ends
    on that line, widened by a unit (a superset: the exact hull test
    follows), and the turns in that range are read from the sorted
    ``turn_keys``.
    """
    h, w = prep.turns.shape
    X0 = np.maximum(box[:, 0] // SCALE, 0)
    Y0 = np.maximum(box[:, 1] // SCALE, 0)
    X1 = np.minimum(-(-box[:, 2] // SCALE), w - 1)
    Y1 = np.minimum(-(-box[:, 3] // SCALE), h - 1)
    nrow = np.maximum(Y1 - Y0 + 1, 0)
    owner = np.repeat(np.arange(len(S)), nrow)
    y = Y0[owner] + np.arange(len(owner)) - np.repeat(np.cumsum(nrow) - nrow, nrow)
    xl, xr = _hull_rows(y * SCALE, S[owner], T[owner])
    lo_x = np.maximum(np.floor((xl - 1) / SCALE), X0[owner]).astype(np.int64)
    hi_x = np.minimum(np.ceil((xr + 1) / SCALE), X1[owner]).astype(np.int64)
    keys = prep.turn_keys
    lo = np.searchsorted(keys, y * w + lo_x, side="left")
    hi = np.searchsorted(keys, y * w + hi_x, side="right")
    n = np.maximum(hi - lo, 0)
    at = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    k = keys[at]
    pts = np.stack([k % w, k // w], axis=1) * SCALE
    return pts, np.repeat(owner, n)


def _hull_rows(v: np.ndarray, S: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float left and right ends of the convex hull of ``S`` and ``T`` on the
    lines ``y = v`` (units; only a guide, see :func:`_turns_in_hulls`).

    The hull is ``{lam s + (1 - lam) t}``: on ``y = v`` the feasible
    ``lam`` form an interval, and the ends are the box's ends at its ends.
    """
    lam_lo = np.zeros(len(v))
    lam_hi = np.ones(len(v))
    for a, b in ((S[:, 1] - T[:, 1], v - T[:, 1]), (T[:, 3] - S[:, 3], T[:, 3] - v)):
        # a lam <= b
        safe = np.where(a == 0, 1, a)
        r = b / safe
        lam_hi = np.where(a > 0, np.minimum(lam_hi, r), lam_hi)
        lam_lo = np.where(a < 0, np.maximum(lam_lo, r), lam_lo)
    ends = []
    for lam in (lam_lo, lam_hi):
        ends.append((T[:, 0] + lam * (S[:, 0] - T[:, 0]), T[:, 2] + lam * (S[:, 2] - T[:, 2])))
    return np.minimum(ends[0][0], ends[1][0]), np.maximum(ends[0][1], ends[1][1])


def _in_hulls(pts: np.ndarray, S: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Mask of ``pts`` in the closed convex hull of the rectangles ``S`` and
    ``T`` (row by row; exact integers).

    A point ``v`` is in it when some ``lam`` in [0, 1] puts it in the box
    ``lam S + (1 - lam) T``: per axis ``a lam <= b`` twice, four
    constraints, each a lower bound (``a < 0``), an upper bound (``a > 0``)
    or a condition (``a == 0``, ``b >= 0``); feasible when every lower bound
    is at most 1 and at most every upper bound, and every upper bound is at
    least 0 (fractions compared by cross-multiplying).
    """
    cons = []
    for ax in (0, 1):
        v = pts[:, ax]
        cons.append((S[:, ax] - T[:, ax], v - T[:, ax]))
        cons.append((T[:, ax + 2] - S[:, ax + 2], T[:, ax + 2] - v))
    ok = np.ones(len(pts), dtype=bool)
    for a, b in cons:
        ok &= np.where(a == 0, b >= 0, True)
        ok &= np.where(a > 0, b >= 0, True)
        ok &= np.where(a < 0, b >= a, True)
    for ai, bi in cons:  # lower bounds b_i / a_i ...
        for aj, bj in cons:  # ... at most upper bounds b_j / a_j
            ok &= np.where((ai < 0) & (aj > 0), bi * aj >= bj * ai, True)
    return ok


def _edge_crossings_many(walls: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row by row, lattice points on the edges of ``R[k]`` next to where
    ``walls[k]`` crosses them (as :func:`_edge_crossings`): ``(points, k)``."""
    pts, rows = [], []
    n = np.arange(len(walls))
    for axis in (0, 1):
        a0, a1 = walls[:, axis], walls[:, axis + 2]  # coordinate across the edge line
        b0, b1 = walls[:, 1 - axis], walls[:, 3 - axis]  # coordinate along it
        den = a1 - a0
        lo, hi = R[:, 1 - axis], R[:, 3 - axis]
        for f in (R[:, axis], R[:, axis + 2]):
            ok = (den != 0) & (np.minimum(a0, a1) <= f) & (f <= np.maximum(a0, a1))
            if not ok.any():
                continue
            d, f_ok, a0k, b0k, b1k = den[ok], f[ok], a0[ok], b0[ok], b1[ok]
            num = b0k * d + (f_ok - a0k) * (b1k - b0k)
            sgn = np.sign(d)
            num, d = num * sgn, d * sgn
            for v in (np.floor_divide(num, d), -np.floor_divide(-num, d)):
                keep = (lo[ok] <= v) & (v <= hi[ok])
                p = np.empty((int(keep.sum()), 2), dtype=np.int64)
                p[:, axis] = f_ok[keep]
                p[:, 1 - axis] = v[keep]
                pts.append(p)
                rows.append(n[ok][keep])
    if not pts:
        return np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int64)
    return np.concatenate(pts), np.concatenate(rows)


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


def _rect_rows(rect: Any, n: int) -> np.ndarray:
    """A rectangle ``(x0, y0, x1, y1)`` or an ``(n, 4)`` array of them, as ``(n, 4)`` int64."""
    r = np.asarray(rect, dtype=np.int64)
    return np.broadcast_to(r, (n, 4)) if r.ndim == 1 else r


def _lattice_range(p: np.ndarray, e: np.ndarray, rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer ``k`` range ``[lo, hi]`` with ``p + k e`` in the closed ``rect`` (row by row).

    ``e`` is a primitive direction (never zero); empty ranges have lo > hi.
    """
    n = len(p)
    lo = np.full(n, np.iinfo(np.int64).min // 4, dtype=np.int64)
    hi = np.full(n, np.iinfo(np.int64).max // 4, dtype=np.int64)
    for ax in (0, 1):
        r0, r1 = rect[:, ax], rect[:, ax + 2]
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


def _chord_mid(p: np.ndarray, d: np.ndarray, rect: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Float chord ``[s0, s1]`` of ``p + s d`` in ``rect`` (row by row) and whether it is non-empty."""
    s0 = np.full(len(p), -np.inf)
    s1 = np.full(len(p), np.inf)
    ok = np.ones(len(p), dtype=bool)
    for ax in (0, 1):
        r0, r1 = rect[:, ax], rect[:, ax + 2]
        pa, da = p[:, ax].astype(np.float64), d[:, ax].astype(np.float64)
        still = da == 0
        ok &= ~still | ((pa >= r0) & (pa <= r1))
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (r0 - pa) / da
            v = (r1 - pa) / da
        s0 = np.where(still, s0, np.maximum(s0, np.minimum(u, v)))
        s1 = np.where(still, s1, np.minimum(s1, np.maximum(u, v)))
    return s0, s1, ok & (s0 <= s1)


def _clamp(pts: np.ndarray, rect: np.ndarray) -> np.ndarray:
    return np.stack([np.clip(pts[:, 0], rect[:, 0], rect[:, 2]),
                     np.clip(pts[:, 1], rect[:, 1], rect[:, 3])], axis=1)


def _lines_to_segments(p: np.ndarray, q: np.ndarray, srect: Any, trect: Any,
                       *, from_p: bool) -> np.ndarray:
    """Segments from ``srect`` to ``trect`` (or from ``p`` itself) on the lines ``pq``.

    The rectangles are tuples or ``(N, 4)`` arrays, one per line.  With
    ``from_p`` the segment starts at ``p`` (a free origin) and runs
    forwards only.  Lines with no lattice point in a space are approximated
    by rounding points of their chords (best effort, see the module notes).
    """
    return _line_segments(p, q, srect, trect, from_p=from_p)[0]


def _line_segments(p: np.ndarray, q: np.ndarray, srect: Any, trect: Any,
                   *, from_p: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lines_to_segments` and, per segment, the index of its line."""
    n = len(p)
    S, T = _rect_rows(srect, n), _rect_rows(trect, n)
    d = q - p
    g = np.gcd(d[:, 0], d[:, 1])
    src = np.flatnonzero(g > 0)
    p, d, g, S, T = p[src], d[src], g[src], S[src], T[src]
    e = d // g[:, None]
    out, lines = [], []
    # Exact: lattice points on the line in each space.
    tlo, thi = _lattice_range(p, e, T)
    if from_p:
        k_t = np.maximum(tlo, 1)
        ok = k_t <= thi
        out.append(np.concatenate([p[ok], p[ok] + k_t[ok, None] * e[ok]], axis=1))
        lines.append(src[ok])
        exact = ok
    else:
        slo, shi = _lattice_range(p, e, S)
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
        lines.append(src[ok])
        exact = has
    # Best effort for lines with no lattice point in a space.
    rest = ~exact
    if rest.any():
        pr, dr, Sr, Tr, sr = p[rest], d[rest], S[rest], T[rest], src[rest]
        t0, t1, tok = _chord_mid(pr, dr, Tr)
        if from_p:
            t0 = np.maximum(t0, 0.0)
            tok &= t0 <= t1
            a_real = pr.astype(np.float64)
            b_real = pr + ((t0 + t1) / 2)[:, None] * dr
            ok = tok
        else:
            s0, s1, sok = _chord_mid(pr, dr, Sr)
            a_real = pr + ((s0 + s1) / 2)[:, None] * dr
            b_real = pr + ((t0 + t1) / 2)[:, None] * dr
            ok = sok & tok
        a_real, b_real, dr, Sr, Tr, sr = a_real[ok], b_real[ok], dr[ok], Sr[ok], Tr[ok], sr[ok]
        normal = np.stack([-dr[:, 1], dr[:, 0]], axis=1).astype(np.float64)
        normal /= np.maximum(np.abs(normal).max(axis=1, keepdims=True), 1)
        for shift in (0.0, 1.0, -1.0):
            a = a_real if from_p else a_real + shift * normal
            b = b_real + shift * normal
            ai = np.rint(a).astype(np.int64)
            if not from_p:
                ai = _clamp(ai, Sr)
            bi = _clamp(np.rint(b).astype(np.int64), Tr)
            out.append(np.concatenate([ai, bi], axis=1))
            lines.append(sr)
    return np.concatenate(out), np.concatenate(lines)


def _valid(segs: np.ndarray, srect: Any, trect: Any) -> np.ndarray:
    """Mask of segments of positive length not lying wholly along the spaces' edges.

    The rectangles are tuples or ``(M, 4)`` arrays, one per segment;
    ``srect`` None (a free origin) leaves only the length test.
    """
    x0, y0, x1, y1 = segs.T
    ok = (x0 != x1) | (y0 != y1)
    if srect is None:
        return ok
    S, T = _rect_rows(srect, len(segs)), _rect_rows(trect, len(segs))
    along = np.zeros(len(segs), dtype=bool)
    for ax in (0, 1):
        # Segments lying on a line of constant coordinate ``ax``.
        c0, c1 = (x0, x1) if ax == 0 else (y0, y1)  # the constant coordinate
        v0, v1 = (y0, y1) if ax == 0 else (x0, x1)  # the running coordinate
        flat = c0 == c1
        lo, hi = np.minimum(v0, v1), np.maximum(v0, v1)
        cover = []
        for r in (S, T):
            e0, e1 = r[:, ax], r[:, ax + 2]  # the rect's range across
            f0, f1 = r[:, 1 - ax], r[:, 3 - ax]  # its range along
            on = (c0 == e0) | (c0 == e1)
            cover.append((on, f0, f1))
        (on_s, s0, s1), (on_t, t0, t1) = cover
        in_s = on_s & (s0 <= lo) & (hi <= s1)
        in_t = on_t & (t0 <= lo) & (hi <= t1)
        joined = (on_s & on_t & (s0 <= t1) & (t0 <= s1)
                  & (np.minimum(s0, t0) <= lo) & (hi <= np.maximum(s1, t1)))
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
        segs = _unique_rows(segs[_valid(segs, None, trect)])
        if len(segs) == 0:
            continue
        batch = trace(bmap, segs / SCALE, attacker=None, target=bmap.creatures[ti].id,
                      stopped_only=True)
        clear = np.flatnonzero(~np.asarray(batch.stopped, dtype=bool))
        if len(clear):
            return segs[clear[0]] / SCALE
    return None

