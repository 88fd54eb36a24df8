"""Grid distances between creatures, points and obstacle pieces (SPEC sections 1, 5).

A *piece* is what a blocker list names: a square ``(c, r)``, one segment
``(wall index, segment index)`` of a thin wall, or a creature.  The squares a
piece occupies are: the square itself; for a thin-wall segment, every map
square whose closed area meets the segment's open interior (so a wall on a
grid line occupies the squares on both sides of it, and a wall through a grid
vertex also the squares meeting there at that vertex); for a creature, its
space.  Distances are PF1e grid distances in squares between squares.

All wall tests are exact: coordinates are multiples of 1/1024 square and the
arithmetic is on integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from lineoffire.maps.model import SCALE, BattleMap, Creature, MapError

from .trace import as_point
from .types import Blocker

__all__ = [
    "grid_distance",
    "piece_squares",
    "wall_squares",
    "creature_piece_distance",
    "point_piece_distance",
]


def grid_distance(dc: npt.ArrayLike, dr: npt.ArrayLike) -> Any:
    """PF1e grid distance in squares: ``max + floor(min / 2)`` of ``|dc|, |dr|``.

    Broadcasts over arrays; returns an int for scalar input.

    Examples
    --------
    >>> grid_distance(3, 0), grid_distance(1, 1), grid_distance(2, 2), grid_distance(-3, 5)
    (3, 1, 3, 6)
    >>> grid_distance([1, 2, 3], [1, 2, 3]).tolist()
    [1, 3, 4]
    """
    a = np.abs(np.asarray(dc, dtype=np.int64))
    b = np.abs(np.asarray(dr, dtype=np.int64))
    d = np.maximum(a, b) + np.minimum(a, b) // 2
    if d.ndim == 0:
        return int(d)
    return d


def _map_squares_in(bmap: BattleMap, c0: int, r0: int, c1: int, r1: int) -> np.ndarray:
    """Squares ``[c, r]`` with ``c0 <= c <= c1``, ``r0 <= r <= r1``, clipped to the map."""
    c0, r0 = max(c0, 0), max(r0, 0)
    c1, r1 = min(c1, bmap.width - 1), min(r1, bmap.height - 1)
    if c1 < c0 or r1 < r0:
        return np.empty((0, 2), dtype=np.int64)
    rs, cs = np.mgrid[r0 : r1 + 1, c0 : c1 + 1]
    return np.stack([cs.ravel(), rs.ravel()], axis=1).astype(np.int64)


def wall_squares(bmap: BattleMap, p: npt.ArrayLike, q: npt.ArrayLike) -> np.ndarray:
    """Map squares whose closed area meets the open segment from ``p`` to ``q``.

    Returns
    -------
    ndarray, shape (K, 2)
        ``[c, r]`` sorted by ``(r, c)``.

    Examples
    --------
    A wall on the grid line x = 2 from y = 0 to y = 2 occupies the squares on
    both sides; a diagonal one through the vertex (1, 1) also the two squares
    that only touch that vertex::

        . A B .        A B = (1, 0) (2, 0), and (1, 1) (2, 1)
        . A B .

    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(4, 3)
    >>> wall_squares(m, (2, 0), (2, 2)).tolist()
    [[1, 0], [2, 0], [1, 1], [2, 1]]
    >>> wall_squares(m, (0, 0), (2, 2)).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    pu = np.rint(np.asarray(p, dtype=np.float64) * SCALE).astype(np.int64)
    qu = np.rint(np.asarray(q, dtype=np.float64) * SCALE).astype(np.int64)
    if pu.shape != (2,) or qu.shape != (2,):
        raise ValueError(f"wall end points must be (x, y) pairs, not {p!r} and {q!r}")
    if (pu == qu).all():
        raise ValueError(f"wall segment from {tuple(p)} to {tuple(q)} has zero length")
    lo = np.minimum(pu, qu)
    hi = np.maximum(pu, qu)
    # Candidate squares: every square whose closed area meets the bounding box.
    c0, r0 = (-(-lo // SCALE) - 1).tolist()  # ceil(lo) - 1
    c1, r1 = (hi // SCALE).tolist()
    cand = _map_squares_in(bmap, c0, r0, c1, r1)
    if len(cand) == 0:
        return cand
    d = qu - pu
    # Clip the line p + s d, s in [0, 1], against each closed square, axis by
    # axis (Liang-Barsky).  Along an axis with d != 0, the square gives the
    # interval [a / |d|, b / |d|] of s; with d == 0 it gives everything or
    # nothing.  The open segment meets the square iff the intersection of the
    # axis intervals [L, U] is non-empty, L < 1 and U > 0.
    lows, highs, dens, ok = [], [], [], np.ones(len(cand), dtype=bool)
    for ax in (0, 1):
        e0 = cand[:, ax] * SCALE - pu[ax]
        e1 = e0 + SCALE
        if d[ax] == 0:
            ok &= (e0 <= 0) & (e1 >= 0)
            continue
        if d[ax] > 0:
            lo_num, hi_num = e0, e1
        else:
            lo_num, hi_num = -e1, -e0
        den = abs(int(d[ax]))
        lows.append(lo_num)
        highs.append(hi_num)
        dens.append(den)
    for lo_num, den in zip(lows, dens):
        ok &= lo_num < den  # L < 1
    for hi_num in highs:
        ok &= hi_num > 0  # U > 0
    if len(lows) == 2:  # cross terms: each lower bound <= the other upper bound
        ok &= lows[0] * dens[1] <= highs[1] * dens[0]
        ok &= lows[1] * dens[0] <= highs[0] * dens[1]
    return cand[ok]


def piece_squares(bmap: BattleMap, blocker: Blocker | tuple[str, Any]) -> np.ndarray:
    """The squares ``[c, r]`` a piece occupies, sorted by ``(r, c)``.

    Parameters
    ----------
    bmap : BattleMap
    blocker : Blocker or (kind, value)
        A :class:`Blocker`, or its ``ref``: ``("square", (c, r))``,
        ``("wall", (wall index, segment index))`` or ``("creature", id)``.

    Raises
    ------
    MapError
        If the piece does not exist on the map.

    Examples
    --------
    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(4, 3, walls=[{"points": [[1, 1], [3, 1], [3, 3]]}])
    >>> piece_squares(m, ("wall", (0, 1))).tolist()
    [[2, 1], [3, 1], [2, 2], [3, 2]]
    >>> piece_squares(m, ("square", (0, 2))).tolist()
    [[0, 2]]
    """
    if isinstance(blocker, Blocker):
        key, value = blocker.ref
    else:
        try:
            key, value = blocker
        except (TypeError, ValueError):
            raise TypeError(
                f"blocker must be a Blocker or a (kind, value) pair, not {blocker!r}"
            ) from None
    if key == "square":
        c, r = (int(v) for v in value)
        if not (0 <= c < bmap.width and 0 <= r < bmap.height):
            raise MapError(f"square ({c}, {r}) lies outside the {bmap.width}x{bmap.height} map")
        return np.array([[c, r]], dtype=np.int64)
    if key == "wall":
        i, j = (int(v) for v in value)
        if not 0 <= i < len(bmap.walls):
            raise MapError(f"wall index {i} out of range: the map has {len(bmap.walls)} walls")
        segs = bmap.walls[i].segments
        if not 0 <= j < len(segs):
            raise MapError(f"wall {i} has no segment {j}: it has {len(segs)}")
        p, q = segs[j]
        return wall_squares(bmap, p, q)
    if key == "creature":
        c = bmap.creature(value)
        x0, y0, x1, y1 = c.rect
        return _map_squares_in(bmap, x0, y0, x1 - 1, y1 - 1)
    raise ValueError(f"blocker kind must be 'square', 'wall' or 'creature', not {key!r}")


def _least_distance(a: np.ndarray, b: np.ndarray) -> int:
    if len(a) == 0 or len(b) == 0:
        raise ValueError("a piece that occupies no square has no distance")
    diff = a[:, None, :] - b[None, :, :]
    return int(grid_distance(diff[..., 0], diff[..., 1]).min())


def creature_piece_distance(bmap: BattleMap, creature: Creature | str,
                            blocker: Blocker | tuple[str, Any]) -> int:
    """Least grid distance (squares) between a square of the creature and one of the piece.

    0 when the creature stands on or beside (for a wall on its edge) the piece.

    Examples
    --------
    ::

        A . . = .      A at (0, 0); low square (3, 0): 3 squares away.
        . . . . .

    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(5, 2, squares=["...=.", "....."],
    ...                     creatures=[{"id": "A", "x": 0, "y": 0}])
    >>> creature_piece_distance(m, "A", ("square", (3, 0)))
    3
    """
    c = creature if isinstance(creature, Creature) else bmap.creature(creature)
    x0, y0, x1, y1 = c.rect
    rs, cs = np.mgrid[y0:y1, x0:x1]
    mine = np.stack([cs.ravel(), rs.ravel()], axis=1)
    return _least_distance(mine, piece_squares(bmap, blocker))


def point_piece_distance(bmap: BattleMap, point: npt.ArrayLike,
                         blocker: Blocker | tuple[str, Any]) -> int:
    """Least grid distance between a square containing ``point`` and one of the piece.

    A point on a grid line or vertex lies in every map square whose closed area
    contains it (2 or 4 squares), and the least distance over them counts.

    Examples
    --------
    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(6, 2)
    >>> point_piece_distance(m, (0.5, 0.5), ("square", (4, 0)))
    4
    >>> point_piece_distance(m, (1, 1), ("square", (4, 0)))
    3
    """
    u = np.array(as_point(point, bmap, "point"), dtype=np.int64)
    c0, r0 = (-(-u // SCALE) - 1).tolist()
    c1, r1 = (u // SCALE).tolist()
    mine = _map_squares_in(bmap, c0, r0, c1, r1)
    return _least_distance(mine, piece_squares(bmap, blocker))
