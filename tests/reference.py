"""A slow, obviously correct reference tracer for SPEC section 3 (tests only).

Every value is a :class:`fractions.Fraction`; no numpy enters the logic.  The
method, for one segment ``P + t (Q - P)``:

1. Clip the attached ends: ``t0`` is where the segment leaves the attacker's
   closed space (if ``P`` lies in it), ``t1`` where it enters the target's
   closed space (if ``Q`` lies in it).  ``t0 > t1``: nothing lies outside the
   spaces, nothing is tested.  ``t0 == t1`` with both ends attached: the
   spaces touch there and only that point is tested.
2. Collect candidate parameters: every grid-line crossing, every meeting with
   a thin-wall segment, ``t0`` and ``t1``.  Between two consecutive candidates
   nothing changes, so testing every candidate point and the midpoint of
   every open interval between them tests the whole line exactly (extra
   candidates cannot change an answer, missing ones could).
3. At each tested point apply the two-sided rule (:func:`_sides`,
   :func:`_closes`), with directions measured by an exact pseudo-angle.

Decisions where SPEC section 3 is silent:

- A thin wall along the line's direction (either way) counts on neither side,
  also past an attached end (a wall on the target's edge that the line meets
  end-on, or one behind the line's start on the shooter's corner): only the
  part outside the attached spaces counts, so the part inside must not change
  the answer.
- ``t0 > t1`` (the segment lies wholly in the two closed spaces, e.g. along
  their shared edge, or they overlap): nothing is tested, no blockers.
- A free start inside a solid square or a creature's space: the line is
  stopped / passes through it at t = 0 (the open interval after the start).
- Blockers found on an open interval are listed at its lower end.

Also the symmetries of the square grid (:func:`transform_map` and friends),
for invariance tests: rotating or mirroring a map and its segments together
must not change any answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Iterable, Sequence

from lineoffire.geometry.types import KINDS, Blocker, LineTrace
from lineoffire.maps.model import LOW, SOLID, BattleMap, Wall, snap

__all__ = [
    "reference_trace",
    "trace_exact",
    "reference_line_of_effect",
    "reference_traces",
    "Arc",
    "SYMMETRIES",
    "transform_point",
    "transform_map",
    "transform_segment",
    "transform_square",
    "transformed_size",
    "blocker_key",
]

F = Fraction
#: The obstacle class of each blocker kind (creatures are not obstacles).
CLASS_OF = {"solid": "blocking", "wall": "blocking", "door": "blocking",
            "slit": "slit", "low": "low"}
WALL_KIND = {"wall": "wall", "door": "door", "slit": "slit", "low": "low"}


# ----------------------------------------------------------------- angles
def pseudo_angle(x: Fraction, y: Fraction) -> Fraction:
    """An exact monotone stand-in for the angle of direction ``(x, y)``, in [0, 4).

    +x is 0, +y is 1, -x is 2, -y is 3 (the "diamond angle"); the value
    grows with the true angle from +x towards +y.
    """
    if x == 0 and y == 0:
        raise ValueError("the zero vector has no direction")
    if y >= 0:
        return y / (x + y) if x >= 0 else 1 + (-x) / (-x + y)
    return 2 + (-y) / (-x - y) if x < 0 else 3 + x / (x - y)


@dataclass(frozen=True)
class Arc:
    """A set of directions: the pseudo-angles from ``lo`` turning up to ``hi``.

    ``lo_in`` / ``hi_in`` say whether the end rays belong to it; ``lo == hi``
    with both ends in is the single ray ``lo``; ``full`` is every direction.
    """

    lo: Fraction = F(0)
    hi: Fraction = F(0)
    lo_in: bool = False
    hi_in: bool = False
    full: bool = False

    def contains(self, theta: Fraction) -> bool:
        if self.full:
            return True
        rel = (theta - self.lo) % 4
        length = (self.hi - self.lo) % 4
        if rel == 0:
            return self.lo_in
        if rel < length:
            return True
        return rel == length and self.hi_in

    def ends(self) -> list[Fraction]:
        return [] if self.full else [self.lo % 4, self.hi % 4]


def arcs_meet(a: Arc, b: Arc) -> bool:
    """Whether two arcs share a direction.

    Membership is constant between consecutive end angles, so testing every
    end angle and every midpoint between neighbours decides it exactly.
    """
    ends = sorted(set(a.ends() + b.ends()))
    if not ends:
        return True  # two full circles
    samples = list(ends)
    for i, e in enumerate(ends):
        nxt = ends[i + 1] if i + 1 < len(ends) else ends[0] + 4
        samples.append(((e + nxt) / 2) % 4)
    return any(a.contains(s) and b.contains(s) for s in samples)


def open_cone(rect: tuple[Fraction, Fraction, Fraction, Fraction],
              p: tuple[Fraction, Fraction]) -> Arc | None:
    """Directions from ``p`` into the open interior of the rectangle, or None.

    ``rect`` is ``(x0, y0, x1, y1)``.  For a point inside: every direction;
    on an edge: the open half-plane; at a corner: the open quadrant.
    """
    x0, y0, x1, y1 = rect
    px, py = p
    if not (x0 <= px <= x1 and y0 <= py <= y1):
        return None
    sx = 0 if x0 < px < x1 else (1 if px == x0 else -1)   # required sign of dx
    sy = 0 if y0 < py < y1 else (1 if py == y0 else -1)   # required sign of dy
    if sx == 0 and sy == 0:
        return Arc(full=True)
    # open arcs of pseudo-angle: dx>0 (3, 5), dx<0 (1, 3), dy>0 (0, 2), dy<0 (2, 4)
    table = {
        (1, 0): (3, 1), (-1, 0): (1, 3), (0, 1): (0, 2), (0, -1): (2, 0),
        (1, 1): (0, 1), (-1, 1): (1, 2), (-1, -1): (2, 3), (1, -1): (3, 0),
    }
    lo, hi = table[(sx, sy)]
    return Arc(F(lo), F(hi))


# ----------------------------------------------------------------- pieces
@dataclass(frozen=True)
class _Piece:
    kind: str          # solid, wall, door, slit, low, creature
    ref: Any           # (c, r), (wall index, segment index) or creature id
    rect: tuple[Fraction, ...] | None = None                         # squares, creatures
    seg: tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]] | None = None  # walls


def _fr(v: float) -> Fraction:
    return F(v)  # map coordinates are multiples of 1/1024: exact


def _pieces(bmap: BattleMap, exclude: set[str], ignore_dead: bool,
            ignore_prone: bool) -> tuple[list[_Piece], list[_Piece]]:
    """Thin-wall pieces and creature pieces of the map (squares are looked up per point)."""
    walls = []
    for i, w in enumerate(bmap.walls):
        if w.kind == "door" and w.open:
            continue
        for j, (a, b) in enumerate(w.segments):
            walls.append(_Piece(WALL_KIND[w.kind], (i, j),
                                seg=((_fr(a[0]), _fr(a[1])), (_fr(b[0]), _fr(b[1])))))
    creatures = []
    for c in bmap.creatures:
        if c.id in exclude or (ignore_dead and c.dead) or (ignore_prone and c.prone):
            continue
        x0, y0, x1, y1 = c.rect
        creatures.append(_Piece("creature", c.id, rect=(F(x0), F(y0), F(x1), F(y1))))
    return walls, creatures


def _squares_at(bmap: BattleMap, p: tuple[Fraction, Fraction]) -> list[_Piece]:
    """Solid and low squares whose closed area contains ``p``."""
    out = []
    px, py = p
    for r in range(int(py // 1) - 1, int(py // 1) + 1):
        for c in range(int(px // 1) - 1, int(px // 1) + 1):
            if not (0 <= r < bmap.height and 0 <= c < bmap.width):
                continue
            if not (c <= px <= c + 1 and r <= py <= r + 1):
                continue
            code = int(bmap.squares[r, c])
            if code == SOLID:
                out.append(_Piece("solid", (c, r), rect=(F(c), F(r), F(c + 1), F(r + 1))))
            elif code == LOW:
                out.append(_Piece("low", (c, r), rect=(F(c), F(r), F(c + 1), F(r + 1))))
    return out


def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


def _wall_rays(seg, p) -> list[tuple[Fraction, Fraction]]:
    """Directions in which the wall segment runs from ``p`` (empty if it misses p)."""
    (ax, ay), (bx, by) = seg
    px, py = p
    if _cross(bx - ax, by - ay, px - ax, py - ay) != 0:
        return []
    if not (min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)):
        return []
    rays = []
    if (ax, ay) != (px, py):
        rays.append((ax - px, ay - py))
    if (bx, by) != (px, py):
        rays.append((bx - px, by - py))
    return rays


# ----------------------------------------------------------------- sides
def _sides(kind: str, d, cone_a: Arc | None, cone_t: Arc | None) -> tuple[Arc, Arc]:
    """The two sides of the line at a tested point, as arcs of directions.

    ``interior``: the open half-planes left and right of the line.
    ``leave``: the arcs between the shooter's interior and the outgoing ray;
    ``enter``: between the incoming ray (pointing back) and the target's
    interior; ``touch``: between the two interiors.  The rays bounding a
    space's interior belong to the arc they bound, the line's own ray does not.
    """
    ahead = pseudo_angle(d[0], d[1])
    back = pseudo_angle(-d[0], -d[1])
    if kind == "interior":
        return Arc(ahead, back), Arc(back, ahead)
    if kind == "leave":
        if cone_a.contains(ahead) or ahead in cone_a.ends():
            raise AssertionError("the line leaves the shooter's space into it")
        return Arc(cone_a.hi, ahead, True, False), Arc(ahead, cone_a.lo, False, True)
    if kind == "enter":
        if cone_t.contains(back) or back in cone_t.ends():
            raise AssertionError("the line enters the target's space from inside it")
        return Arc(cone_t.hi, back, True, False), Arc(back, cone_t.lo, False, True)
    if kind == "touch":
        return Arc(cone_a.hi, cone_t.lo, True, True), Arc(cone_t.hi, cone_a.lo, True, True)
    raise ValueError(kind)


def _closes(piece: _Piece, p, d, side: Arc) -> bool:
    """Whether ``piece`` closes ``side`` at point ``p`` of a line going ``d``.

    A square or creature closes it when its open interior touches p on that
    side; a thin wall when it runs from p into that side, unless it runs
    exactly along the line, either way (then it counts on neither side).

    "Along the line" means along the line's direction, also past an attached
    end: only the part outside the attached spaces counts, so whether the
    segment goes on inside a space along an edge wall must not matter.
    """
    if piece.rect is not None:
        cone = open_cone(piece.rect, p)
        return cone is not None and arcs_meet(cone, side)
    for rx, ry in _wall_rays(piece.seg, p):
        if _cross(rx, ry, d[0], d[1]) == 0:
            continue  # along the line: counts on neither side
        if side.contains(pseudo_angle(rx, ry)):
            return True
    return False


# ----------------------------------------------------------------- tracing
def _rect_of(bmap: BattleMap, cid: str | None):
    if cid is None:
        return None
    x0, y0, x1, y1 = bmap.creature(cid).rect
    return (F(x0), F(y0), F(x1), F(y1))


def _inside(rect, p) -> bool:
    return rect is not None and rect[0] <= p[0] <= rect[2] and rect[1] <= p[1] <= rect[3]


def _leave_t(rect, P, d) -> Fraction:
    """The largest t in [0, 1] with P + t d in the closed rect (P inside it)."""
    t = F(1)
    for axis in (0, 1):
        lo, hi = rect[axis], rect[axis + 2]
        if d[axis] > 0:
            t = min(t, (hi - P[axis]) / d[axis])
        elif d[axis] < 0:
            t = min(t, (lo - P[axis]) / d[axis])
    return t


def _enter_t(rect, P, d) -> Fraction:
    """The smallest t in [0, 1] with P + t d in the closed rect (P + d inside it)."""
    t = F(0)
    for axis in (0, 1):
        lo, hi = rect[axis], rect[axis + 2]
        if d[axis] > 0:
            t = max(t, (lo - P[axis]) / d[axis])
        elif d[axis] < 0:
            t = max(t, (hi - P[axis]) / d[axis])
    return t


def _candidates(P, d, walls: list[_Piece]) -> set[Fraction]:
    """Parameters in [0, 1] where the line meets a grid line or a thin wall."""
    ts = {F(0), F(1)}
    for axis in (0, 1):
        if d[axis] != 0:
            a, b = sorted((P[axis], P[axis] + d[axis]))
            k = -(-a // 1)  # ceil
            while k <= b:
                ts.add((k - P[axis]) / d[axis])
                k += 1
    for w in walls:
        (ax, ay), (bx, by) = w.seg
        ex, ey = bx - ax, by - ay
        den = _cross(d[0], d[1], ex, ey)
        wx, wy = ax - P[0], ay - P[1]
        if den != 0:
            t = _cross(wx, wy, ex, ey) / den
            s = _cross(wx, wy, d[0], d[1]) / den
            if 0 <= s <= 1:
                ts.add(t)
        elif _cross(wx, wy, d[0], d[1]) == 0:  # collinear: the overlap's ends
            dd = d[0] * d[0] + d[1] * d[1]
            ts.add((wx * d[0] + wy * d[1]) / dd)
            ts.add(((bx - P[0]) * d[0] + (by - P[1]) * d[1]) / dd)
    return {t for t in ts if 0 <= t <= 1}


def reference_trace(bmap: BattleMap, segment: Sequence[float], attacker: str | None = None,
                    target: str | None = None, ignore_dead: bool = False,
                    ignore_prone: bool = False) -> LineTrace:
    """Trace one segment ``[x0, y0, x1, y1]`` by SPEC section 3, exactly and slowly.

    ``attacker`` / ``target`` are creature ids (or None): left out of the
    creatures, and the start / end is attached when it lies in the space.
    """
    if len(segment) != 4:
        raise ValueError(f"segment must be [x0, y0, x1, y1], not {segment!r}")
    x0, y0, x1, y1 = (F(snap(v, "segment coordinate")) for v in segment)
    return trace_exact(bmap, (x0, y0), (x1, y1), attacker, target,
                       ignore_dead=ignore_dead, ignore_prone=ignore_prone)


def trace_exact(bmap: BattleMap, P: tuple[Fraction, Fraction], Q: tuple[Fraction, Fraction],
                attacker: str | None = None, target: str | None = None, *,
                ignore_dead: bool = False, ignore_prone: bool = False) -> LineTrace:
    """:func:`reference_trace` of the segment from ``P`` to ``Q``, any rational points."""
    for x, y in (P, Q):
        if not (0 <= x <= bmap.width and 0 <= y <= bmap.height):
            raise ValueError(f"point ({x}, {y}) lies outside the {bmap.width}x{bmap.height} map")
    d = (Q[0] - P[0], Q[1] - P[1])
    if d == (0, 0):
        return LineTrace(False, False, False, ())
    exclude = {c for c in (attacker, target) if c is not None}
    walls, creatures = _pieces(bmap, exclude, ignore_dead, ignore_prone)
    rect_a, rect_t = _rect_of(bmap, attacker), _rect_of(bmap, target)
    start_att, end_att = _inside(rect_a, P), _inside(rect_t, Q)
    t0 = _leave_t(rect_a, P, d) if start_att else F(0)
    t1 = _enter_t(rect_t, P, d) if end_att else F(1)

    def point(t):
        return (P[0] + t * d[0], P[1] + t * d[1])

    tests: list[tuple[Fraction, Fraction, str]] = []  # (t of the point, t to record, kind)
    if t0 == t1 and start_att and end_att:
        tests.append((t0, t0, "touch"))
    elif t0 < t1:
        ts = sorted(t for t in _candidates(P, d, walls) | {t0, t1} if t0 <= t <= t1)
        for t in ts:
            if t == t0 and start_att:
                tests.append((t, t, "leave"))
            elif t == t1 and end_att:
                tests.append((t, t, "enter"))
            elif 0 < t < 1:
                tests.append((t, t, "interior"))
            # else: a free endpoint, never tested
        for lo, hi in zip(ts, ts[1:]):
            tests.append(((lo + hi) / 2, lo, "interior"))

    found: dict[tuple[str, Any], Fraction] = {}
    flags = {"stopped": False, "slit": False, "low": False}
    cone_a = cone_t = None
    for t, t_rec, kind in tests:
        p = point(t)
        if start_att:
            cone_a = open_cone(rect_a, p)
        if end_att:
            cone_t = open_cone(rect_t, p)
        sides = _sides(kind, d, cone_a, cone_t)
        obstacles = _squares_at(bmap, p) + walls
        closers = [[pc for pc in obstacles if _closes(pc, p, d, s)] for s in sides]

        def closed(classes):
            return all(any(CLASS_OF[pc.kind] in classes for pc in side) for side in closers)

        deciding = None
        if closed({"blocking"}):
            deciding, flags["stopped"] = "blocking", True
        elif closed({"blocking", "slit"}):
            deciding, flags["slit"] = "slit", True
        elif closed({"blocking", "slit", "low"}):
            deciding, flags["low"] = "low", True
        listed = []
        if deciding is not None:
            listed = [pc for side in closers for pc in side if CLASS_OF[pc.kind] == deciding]
        by_creatures = [[pc for pc in creatures if _closes(pc, p, d, s)] for s in sides]
        if all(by_creatures):
            listed += by_creatures[0] + by_creatures[1]
        for pc in listed:
            if pc.kind == "creature":
                key = (pc.kind, "creature", pc.ref)
            else:
                key = (pc.kind, "square" if pc.rect is not None else "wall", pc.ref)
            if key not in found or t_rec < found[key]:
                found[key] = t_rec

    blockers = [Blocker(kind, float(t), **{reftype: ref})
                for (kind, reftype, ref), t in found.items()]
    exact = dict(zip(blockers, found.values()))
    blockers.sort(key=lambda b: (exact[b],) + blocker_key(b)[1:])
    return LineTrace(flags["stopped"], flags["slit"], flags["low"], tuple(blockers))


def blocker_key(b: Blocker) -> tuple:
    """Sort key of the blocker order: t, kind, then square (r, c) / wall / creature id
    (within a kind squares before walls before creatures)."""
    if b.square is not None:
        ref: tuple = (0, b.square[1], b.square[0])
    elif b.wall is not None:
        ref = (1,) + tuple(b.wall)
    else:
        ref = (2, b.creature)
    return (b.t, KINDS.index(b.kind)) + ref


def reference_traces(bmap: BattleMap, segments: Iterable[Sequence[float]], **kw: Any) -> list[LineTrace]:
    """:func:`reference_trace` of every segment."""
    return [reference_trace(bmap, s, **kw) for s in segments]


# ----------------------------------------------------------------- line of effect
def _chord(rect, A, e):
    """Parameters ``[s0, s1]`` of the line ``A + s e`` inside the closed rect, or None."""
    lo, hi = None, None
    for axis in (0, 1):
        a, b = rect[axis], rect[axis + 2]
        if e[axis] == 0:
            if not a <= A[axis] <= b:
                return None
            continue
        s0, s1 = sorted(((a - A[axis]) / e[axis], (b - A[axis]) / e[axis]))
        lo = s0 if lo is None else max(lo, s0)
        hi = s1 if hi is None else min(hi, s1)
    if lo is None or lo > hi:
        return None
    return lo, hi


def _on_boundary(rect, p) -> bool:
    return _inside(rect, p) and (p[0] in (rect[0], rect[2]) or p[1] in (rect[1], rect[3]))


def _critical_points(bmap: BattleMap, ra, rt) -> list[tuple[Fraction, Fraction]]:
    """Space corners, solid-square corners, blocking-wall ends, and the points
    where blocking walls cross the spaces' edges, in the two spaces' bounding box."""
    box = (min(ra[0], rt[0]), min(ra[1], rt[1]), max(ra[2], rt[2]), max(ra[3], rt[3]))
    pts = set()
    for r in (ra, rt):
        pts |= {(r[0], r[1]), (r[2], r[1]), (r[0], r[3]), (r[2], r[3])}
    for row in range(bmap.height):
        for col in range(bmap.width):
            if int(bmap.squares[row, col]) == SOLID:
                pts |= {(F(col + i), F(row + j)) for i in (0, 1) for j in (0, 1)}
    walls, _ = _pieces(bmap, set(), False, False)
    blocking = [w for w in walls if CLASS_OF[w.kind] == "blocking"]
    for w in blocking:
        pts |= set(w.seg)
        (ax, ay), (bx, by) = w.seg
        e = (bx - ax, by - ay)
        for r in (ra, rt):
            corners = [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])]
            for (px, py), (qx, qy) in zip(corners, corners[1:] + corners[:1]):
                f = (qx - px, qy - py)
                den = _cross(e[0], e[1], f[0], f[1])
                if den == 0:
                    continue
                s = _cross(px - ax, py - ay, f[0], f[1]) / den
                u = _cross(px - ax, py - ay, e[0], e[1]) / den
                if 0 <= s <= 1 and 0 <= u <= 1:
                    pts.add((ax + s * e[0], ay + s * e[1]))
    return sorted(p for p in pts if _inside(box, p))


def reference_line_of_effect(bmap: BattleMap, attacker: str, target: str
                             ) -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]] | None:
    """A segment from the attacker's space to the target's that is not stopped, or None.

    Exhaustive over SPEC section 4's finite test: every line through two
    critical points, clipped to run from the attacker's space to the target's,
    traced exactly (any rational points).  A segment lying wholly along the
    edges of the two spaces does not count.  Tiny creatures sharing a square
    are not handled (ValueError).
    """
    ra, rt = _rect_of(bmap, attacker), _rect_of(bmap, target)
    if ra[0] < rt[2] and rt[0] < ra[2] and ra[1] < rt[3] and rt[1] < ra[3]:
        raise ValueError(f"the spaces of {attacker!r} and {target!r} overlap")
    pts = _critical_points(bmap, ra, rt)
    for i, A in enumerate(pts):
        for B in pts[i + 1:]:
            e = (B[0] - A[0], B[1] - A[1])
            ca, ct = _chord(ra, A, e), _chord(rt, A, e)
            if ca is None or ct is None:
                continue
            if ca[1] <= ct[0]:
                s0, s1, gap = ca[0], ct[1], ca[1] < ct[0]
            elif ct[1] <= ca[0]:
                s0, s1, gap = ca[1], ct[0], ct[1] < ca[0]
            else:
                continue
            P = (A[0] + s0 * e[0], A[1] + s0 * e[1])
            Q = (A[0] + s1 * e[0], A[1] + s1 * e[1])
            if P == Q:
                continue
            mid_a = (A[0] + (ca[0] + ca[1]) / 2 * e[0], A[1] + (ca[0] + ca[1]) / 2 * e[1])
            mid_t = (A[0] + (ct[0] + ct[1]) / 2 * e[0], A[1] + (ct[0] + ct[1]) / 2 * e[1])
            if not gap and _on_boundary(ra, mid_a) and _on_boundary(rt, mid_t):
                continue  # wholly along the edges of the two spaces
            if not trace_exact(bmap, P, Q, attacker, target).stopped:
                return P, Q
    return None


# ----------------------------------------------------------------- symmetries
#: The 8 symmetries of the square: (number of quarter turns, mirror first).
SYMMETRIES: tuple[tuple[int, bool], ...] = tuple((k, m) for m in (False, True) for k in range(4))


def transform_point(sym: tuple[int, bool], x: float, y: float, w: int, h: int) -> tuple[float, float]:
    """Image of point ``(x, y)`` of a ``w x h`` map: mirror x first if asked, then
    turn ``k`` quarter turns, each ``(x, y) -> (h - y, x)`` (the map becomes ``h x w``)."""
    k, mirror = sym
    if mirror:
        x = w - x
    for _ in range(k):
        x, y, w, h = h - y, x, h, w
    return (x, y)


def transformed_size(sym: tuple[int, bool], w: int, h: int) -> tuple[int, int]:
    return (h, w) if sym[0] % 2 else (w, h)


def transform_square(sym, square: tuple[int, int], w: int, h: int) -> tuple[int, int]:
    """Image ``(c, r)`` of square ``(c, r)``: the square holding the image of its centre."""
    x, y = transform_point(sym, square[0] + 0.5, square[1] + 0.5, w, h)
    return (int(x), int(y))


def transform_segment(sym, seg: Sequence[float], w: int, h: int) -> list[float]:
    a = transform_point(sym, seg[0], seg[1], w, h)
    b = transform_point(sym, seg[2], seg[3], w, h)
    return [a[0], a[1], b[0], b[1]]


def transform_map(sym, bmap: BattleMap) -> BattleMap:
    """The map turned / mirrored; wall and segment indices and creature ids stay."""
    w, h = bmap.width, bmap.height
    nw, nh = transformed_size(sym, w, h)
    rows = [["."] * nw for _ in range(nh)]
    for r in range(h):
        for c in range(w):
            nc, nr = transform_square(sym, (c, r), w, h)
            rows[nr][nc] = {0: ".", SOLID: "#", LOW: "="}[int(bmap.squares[r, c])]
    walls = [Wall(wl.kind, tuple(transform_point(sym, x, y, w, h) for x, y in wl.points),
                  wl.open, wl.height_ft) for wl in bmap.walls]
    creatures = []
    for cr in bmap.creatures:
        x0, y0, x1, y1 = cr.rect
        a = transform_point(sym, x0, y0, w, h)
        b = transform_point(sym, x1, y1, w, h)
        creatures.append(replace(cr, x=int(min(a[0], b[0])), y=int(min(a[1], b[1]))))
    return BattleMap.build(nw, nh, squares=["".join(r) for r in rows], walls=walls,
                           creatures=creatures, square_ft=bmap.square_ft,
                           low_height_ft=bmap.low_height_ft)
