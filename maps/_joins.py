"""Shared wall clean-up of the importers: snapping, clipping to the map, joins.

Imported formats (Universal VTT, Foundry scenes, traced images) hand over thin
walls as polylines in map coordinates (squares, x right, y down).  Before
they become :class:`~lineoffire.maps.model.Wall` objects every importer runs
them through :func:`finish_walls`, which

1. snaps every coordinate to the nearest multiple of 1/1024 square and drops
   repeated points (so zero-length segments vanish);
2. clips each polyline to the map rectangle ``[0, width] x [0, height]``,
   splitting it where it leaves and re-enters, and drops what lies wholly
   outside (a cropped export keeps its walls outside the picture);
3. applies the join rule of SPEC section 2: each gap of at most
   ``join_tolerance`` square between the *free end* of a blocking wall and
   another blocking wall is closed with a short wall to the nearest point of
   it.

A *free end* is the first or last point of an open polyline that touches no
other blocking segment.  Blocking means walls and closed doors (SPEC section
2); open doors, slits and low walls take no part.  Segments of the same
polyline within ``join_tolerance`` of the end, measured along the polyline,
are its own continuation and are not joined to.  The join's far end is a grid
point (a multiple of 1/1024) chosen next to the exact nearest point such that
the join touches or crosses the other wall, checked in exact integer
arithmetic, so no hairline gap survives the snapping.  Joins are added one end
at a time, in wall order, and each join counts as a wall for the ends after
it: two ends facing each other get one join, not two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .model import SCALE, Wall

__all__ = ["RawWall", "snap_points", "clip_polyline", "add_joins", "finish_walls"]

#: Wall kinds that take part in joins when blocking (doors only while closed):
#: SPEC section 2 joins "the free end of a blocking wall and another blocking wall".
JOIN_KINDS = frozenset({"wall", "door"})


@dataclass(frozen=True)
class RawWall:
    """A wall as an importer read it: a polyline in squares, not yet snapped."""

    kind: str
    points: Sequence[tuple[float, float]]
    open: bool = False
    height_ft: float | None = None


def snap_points(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Snap points to multiples of 1/1024 and drop consecutive repeats.

    Examples
    --------
    >>> snap_points([(0.1, 0), (0.10001, 0.0), (1, 2)])
    [(0.099609375, 0.0), (1.0, 2.0)]
    """
    out: list[tuple[float, float]] = []
    for x, y in points:
        p = (round(float(x) * SCALE) / SCALE, round(float(y) * SCALE) / SCALE)
        if not out or out[-1] != p:
            out.append(p)
    return out


def _clip_segment(
    a: tuple[float, float], b: tuple[float, float], width: float, height: float
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Liang-Barsky clip of segment ``a``-``b`` to the closed map rectangle."""
    x0, y0 = a
    dx, dy = b[0] - x0, b[1] - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0), (dx, width - x0), (-dy, y0), (dy, height - y0)):
        if p == 0:
            if q < 0:
                return None  # parallel to this edge and outside it
            continue
        r = q / p
        if p < 0:
            if r > t1:
                return None
            t0 = max(t0, r)
        else:
            if r < t0:
                return None
            t1 = min(t1, r)
    if t0 > t1:
        return None

    def at(t: float) -> tuple[float, float]:
        if t == 0.0:
            return a
        if t == 1.0:
            return b
        x = min(max(x0 + t * dx, 0.0), width)
        y = min(max(y0 + t * dy, 0.0), height)
        return (round(x * SCALE) / SCALE, round(y * SCALE) / SCALE)

    return at(t0), at(t1)


def clip_polyline(
    points: Sequence[tuple[float, float]], width: float, height: float
) -> list[list[tuple[float, float]]]:
    """Clip a snapped polyline to ``[0, width] x [0, height]``.

    Returns the pieces inside (each with at least two distinct points); a
    polyline that leaves and re-enters the map gives several pieces.

    Examples
    --------
    >>> clip_polyline([(-1.0, 1.0), (3.0, 1.0), (3.0, 5.0), (1.0, 5.0), (1.0, 2.5)], 4, 3)
    [[(0.0, 1.0), (3.0, 1.0), (3.0, 3.0)], [(1.0, 3.0), (1.0, 2.5)]]
    """
    pieces: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    for i in range(len(points) - 1):
        clipped = _clip_segment(points[i], points[i + 1], width, height)
        if clipped is None or clipped[0] == clipped[1]:
            # Outside, or touching the map at one point: the piece ends here.
            if len(current) >= 2:
                pieces.append(current)
            current = []
            continue
        a, b = clipped
        if current and current[-1] == a:
            current.append(b)
        else:
            if len(current) >= 2:
                pieces.append(current)
            current = [a, b]
    if len(current) >= 2:
        pieces.append(current)
    return pieces


# ------------------------------------------------------------------ joins
def _cross(ax: int, ay: int, bx: int, by: int) -> int:
    return ax * by - ay * bx


def _orient(p: tuple[int, int], q: tuple[int, int], r: tuple[int, int]) -> int:
    v = _cross(q[0] - p[0], q[1] - p[1], r[0] - p[0], r[1] - p[1])
    return (v > 0) - (v < 0)


def _on_segment(p: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> bool:
    return (
        _orient(a, b, p) == 0
        and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
        and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])
    )


def _segments_meet(
    p: tuple[int, int], q: tuple[int, int], a: tuple[int, int], b: tuple[int, int]
) -> bool:
    """Exact test: do the closed segments p-q and a-b share a point?"""
    o1, o2 = _orient(p, q, a), _orient(p, q, b)
    o3, o4 = _orient(a, b, p), _orient(a, b, q)
    if o1 != o2 and o3 != o4 and o1 * o2 <= 0 and o3 * o4 <= 0:
        return True
    return (
        _on_segment(a, p, q)
        or _on_segment(b, p, q)
        or _on_segment(p, a, b)
        or _on_segment(q, a, b)
    )


def _join_end(
    p: tuple[int, int],
    a: tuple[int, int],
    b: tuple[int, int],
    nearest: tuple[float, float],
    limits: tuple[int, int],
) -> tuple[int, int]:
    """A grid point next to ``nearest`` (in units) whose join from ``p`` meets a-b."""
    fx, fy = math.floor(nearest[0]), math.floor(nearest[1])
    candidates = {
        (min(max(x, 0), limits[0]), min(max(y, 0), limits[1]))
        for x in (fx, fx + 1)
        for y in (fy, fy + 1)
    }
    good = [c for c in candidates if c != p and _segments_meet(p, c, a, b)]
    pool = good or [
        (min(max(round(nearest[0]), 0), limits[0]), min(max(round(nearest[1]), 0), limits[1]))
    ]
    return min(pool, key=lambda c: ((c[0] - nearest[0]) ** 2 + (c[1] - nearest[1]) ** 2, c))


def _point_segment_d2(P: np.ndarray, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squared distances from points ``P`` to segments ``A``-``B`` and the nearest points."""
    d = B - A
    l2 = np.einsum("ij,ij->i", d, d)
    rel = P - A
    safe = np.where(l2 > 0, l2, 1.0)
    t = np.where(l2 > 0, np.einsum("ij,ij->i", rel, d) / safe, 0.0)
    t = np.clip(t, 0.0, 1.0)
    near = A + t[:, None] * d
    diff = near - P
    return np.einsum("ij,ij->i", diff, diff), near


def _segment_segment_d2(p: np.ndarray, q: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared distances between segment ``p``-``q`` and each segment ``A``-``B``."""
    n = len(A)
    P = np.broadcast_to(p, (n, 2))
    Q = np.broadcast_to(q, (n, 2))
    d2 = np.minimum.reduce([
        _point_segment_d2(P, A, B)[0],
        _point_segment_d2(Q, A, B)[0],
        _point_segment_d2(A, P, Q)[0],
        _point_segment_d2(B, P, Q)[0],
    ])

    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        return np.sign((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                       - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))

    crossing = (orient(P, Q, A) * orient(P, Q, B) < 0) & (orient(A, B, P) * orient(A, B, Q) < 0)
    d2[crossing] = 0.0
    return d2


def _end_zone(
    pts: Sequence[tuple[float, float]], at_start: bool, tolerance: float
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The last ``tolerance`` of a polyline, measured along it from one end."""
    seq = list(pts) if at_start else list(reversed(pts))
    zone = []
    left = tolerance
    for k in range(len(seq) - 1):
        a, b = np.asarray(seq[k], float), np.asarray(seq[k + 1], float)
        length = float(np.hypot(*(b - a)))
        if length >= left:
            zone.append((a, a + (b - a) * (left / length) if length > 0 else b))
            break
        zone.append((a, b))
        left -= length
    return zone


def add_joins(
    walls: Sequence[Wall], *, tolerance: float, width: int, height: int
) -> tuple[list[Wall], int]:
    """Close gaps of at most ``tolerance`` at the free ends of blocking walls.

    ``walls`` must be snapped and inside the map.  Returns the walls followed
    by the added joins (kind ``"wall"``, two points each) and their number.

    An end is *free* when nothing blocking touches the wall within
    ``tolerance`` of it (measured along the wall): an end that overshoots a
    crossing wall a little, or whose gap an earlier join closed, is not free.

    Examples
    --------
    >>> a = Wall("wall", ((0.0, 1.0), (2.0, 1.0)))
    >>> b = Wall("wall", ((2.03125, 0.0), (2.03125, 2.0)))
    >>> out, n = add_joins([a, b], tolerance=0.05, width=3, height=3)
    >>> n, out[-1].points
    (1, ((2.0, 1.0), (2.03125, 1.0)))
    """
    if not math.isfinite(tolerance) or tolerance < 0:
        raise ValueError(f"join_tolerance must be a number >= 0, not {tolerance!r}")
    out = list(walls)
    if tolerance == 0:
        return out, 0
    blocking = [i for i, w in enumerate(out)
                if w.kind in JOIN_KINDS and not (w.kind == "door" and w.open)]
    if not blocking:
        return out, 0
    # Flat arrays of every blocking segment: start, end, owner wall, segment index.
    starts: list[tuple[float, float]] = []
    ends: list[tuple[float, float]] = []
    owner: list[int] = []
    segidx: list[int] = []
    for i in blocking:
        for j, (p, q) in enumerate(out[i].segments):
            starts.append(p)
            ends.append(q)
            owner.append(i)
            segidx.append(j)
    A = np.array(starts, dtype=np.float64)
    B = np.array(ends, dtype=np.float64)
    own = np.array(owner, dtype=np.int64)
    sidx = np.array(segidx, dtype=np.int64)
    limits = (width * SCALE, height * SCALE)
    tol2 = float(tolerance) ** 2
    touch2 = (0.25 / SCALE) ** 2  # closer than a quarter snap step: touching
    added = 0
    for i in blocking:
        pts = out[i].points
        if pts[0] == pts[-1]:
            continue  # a closed ring has no free end
        seglen = [math.dist(pts[k], pts[k + 1]) for k in range(len(pts) - 1)]
        cum = np.concatenate([[0.0], np.cumsum(seglen)])
        total = float(cum[-1])
        nseg = len(seglen)
        for at_start in (True, False):
            p = pts[0] if at_start else pts[-1]
            # Own segments within `tolerance` of this end, along the wall, are
            # the end's own continuation: never joined to, never "touching".
            safe_idx = np.minimum(sidx, nseg - 1)
            if at_start:
                along = cum[safe_idx]
            else:
                along = total - cum[np.minimum(safe_idx + 1, nseg)]
            skip = (own == i) & (along <= tolerance)
            dist2, near = _point_segment_d2(np.broadcast_to(np.asarray(p, float), A.shape), A, B)
            dist2[skip] = np.inf
            k = int(np.argmin(dist2))
            if not dist2[k] <= tol2:
                continue
            # Free?  Nothing else may touch the wall's last `tolerance`.
            others = np.flatnonzero(~skip)
            if any(
                (_segment_segment_d2(za, zb, A[others], B[others]) <= touch2).any()
                for za, zb in _end_zone(pts, at_start, tolerance)
            ):
                continue
            pu = (round(p[0] * SCALE), round(p[1] * SCALE))
            au = (round(A[k, 0] * SCALE), round(A[k, 1] * SCALE))
            bu = (round(B[k, 0] * SCALE), round(B[k, 1] * SCALE))
            qu = _join_end(pu, au, bu, (near[k, 0] * SCALE, near[k, 1] * SCALE), limits)
            if qu == pu:
                continue
            q = (qu[0] / SCALE, qu[1] / SCALE)
            out.append(Wall("wall", (p, q)))
            added += 1
            A = np.vstack([A, [p]])
            B = np.vstack([B, [q]])
            own = np.append(own, len(out) - 1)
            sidx = np.append(sidx, 0)
    return out, added


def finish_walls(
    raw: Sequence[RawWall], *, width: int, height: int, join_tolerance: float = 0.05
) -> tuple[list[Wall], int]:
    """Snap, clip and join imported walls; return the walls and the join count.

    Examples
    --------
    >>> walls, joins = finish_walls(
    ...     [RawWall("wall", [(-2, 1), (1, 1), (1, 1), (1, 9)]),
    ...      RawWall("wall", [(1.02, 2), (3, 2)])], width=4, height=3)
    >>> [w.points for w in walls]
    [((0.0, 1.0), (1.0, 1.0), (1.0, 3.0)), ((1.01953125, 2.0), (3.0, 2.0)), ((1.01953125, 2.0), (1.0, 2.0))]
    >>> joins
    1
    """
    jt = float(join_tolerance)
    if isinstance(join_tolerance, bool) or not math.isfinite(jt) or jt < 0:
        raise ValueError(f"join_tolerance must be a number >= 0, not {join_tolerance!r}")
    walls: list[Wall] = []
    for rw in raw:
        pts = snap_points(rw.points)
        if len(pts) < 2:
            continue
        for piece in clip_polyline(pts, width, height):
            piece = snap_points(piece)
            if len(piece) >= 2:
                walls.append(Wall(rw.kind, tuple(piece), open=rw.open, height_ft=rw.height_ft))
    return add_joins(walls, tolerance=jt, width=width, height=height)
