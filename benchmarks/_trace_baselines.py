"""Baselines for ``benchmarks/trace.py`` (not part of the package).

Coordinates here are *doubled* integers: ``X = 2 x``, so square centres are
odd, corners even, and grid lines sit at even values.  Every comparison is an
integer cross-multiplication.

- :func:`visited_counts`: the number of squares a segment steps through, in
  closed form, for whole arrays of segments.
- :func:`traverse`: a per-segment, pure-Python exact integer traversal that
  visits those squares one by one and tests each one's solid flag and each
  crossed edge's wall flag.
- :func:`skimage_line`: ``skimage.draw.line`` between the endpoint squares
  with the same per-square flag test (not exact: Bresenham's squares).

"Squares visited" follows one convention throughout: a step crosses a
vertical grid line, a horizontal one, or both at once through a grid vertex
(an exact corner pass, one diagonal step), so a segment visits
``1 + x-crossings + y-crossings - corner passes`` squares.  A segment lying
along a grid line crosses only the lines perpendicular to it (and makes no
corner pass); the traversal then walks the squares on its right/lower side
(left/upper on the map's right/bottom border).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FlagGrid", "visited_counts", "traverse", "traverse_many", "skimage_lines"]


class FlagGrid:
    """Flat Python lists of a map's flags, for the pure-Python baseline.

    ``solid[r * w + c]``: square ``(c, r)`` is solid.  ``vwall[r * (w + 1) + k]``:
    a wall on the unit edge of line ``x = k`` beside row ``r``.
    ``hwall[k * w + c]``: a wall on the unit edge of line ``y = k`` beside column ``c``.
    """

    def __init__(self, solid: np.ndarray, vwall: np.ndarray, hwall: np.ndarray):
        h, w = solid.shape
        if vwall.shape != (h, w + 1) or hwall.shape != (h + 1, w):
            raise ValueError(
                f"edge arrays must have shapes {(h, w + 1)} and {(h + 1, w)}, "
                f"not {vwall.shape} and {hwall.shape}"
            )
        self.w, self.h = w, h
        self.solid = solid.astype(bool).ravel().tolist()
        self.vwall = vwall.astype(bool).ravel().tolist()
        self.hwall = hwall.astype(bool).ravel().tolist()
        self.array = solid.astype(bool)


def _between_even(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How many even integers lie strictly between ``lo`` and ``hi`` (``lo <= hi``)."""
    return np.maximum((hi - 1) // 2 - lo // 2, 0)


def visited_counts(seg2: np.ndarray) -> np.ndarray:
    """Squares visited by each segment, in closed form.

    Parameters
    ----------
    seg2 : (N, 4) int64 array
        ``[X0, Y0, X1, Y1]`` in doubled coordinates.

    Examples
    --------
    >>> visited_counts(np.array([[1, 1, 7, 5],    # centre (0,0) -> centre (3,2)
    ...                          [0, 0, 4, 4],    # corner diagonal: 2 squares
    ...                          [0, 2, 6, 2]]))  # along the line y = 1: 3 squares
    array([6, 2, 3])
    """
    x0, y0, x1, y1 = (seg2[:, i].astype(np.int64) for i in range(4))
    dx, dy = x1 - x0, y1 - y0
    xc = np.where(dx == 0, 0, _between_even(np.minimum(x0, x1), np.maximum(x0, x1)))
    yc = np.where(dy == 0, 0, _between_even(np.minimum(y0, y1), np.maximum(y0, y1)))
    # Lattice points of the segment: P + k (sx, sy), k = 0..g.  A corner pass is
    # one with k in 1..g-1 whose both coordinates are even.
    g = np.gcd(np.abs(dx), np.abs(dy))
    gs = np.maximum(g, 1)
    sx, sy = dx // gs, dy // gs
    # Parity of k needed by each coordinate: 0 or 1, or "any" (-1) or "never" (-2).
    need_x = np.where(sx % 2 == 1, x0 % 2, np.where(x0 % 2 == 0, -1, -2))
    need_y = np.where(sy % 2 == 1, y0 % 2, np.where(y0 % 2 == 0, -1, -2))
    never = (need_x == -2) | (need_y == -2) | ((need_x >= 0) & (need_y >= 0) & (need_x != need_y))
    parity = np.maximum(need_x, need_y)  # -1: any k
    odd_k = g // 2          # odd k in 1..g-1
    even_k = (g - 1) // 2   # even k in 1..g-1
    cp = np.where(parity == -1, np.maximum(g - 1, 0), np.where(parity == 1, odd_k, even_k))
    cp = np.where(never | (dx == 0) | (dy == 0) | (g == 0), 0, cp)
    return 1 + xc + yc - cp


def traverse(x0: int, y0: int, x1: int, y1: int, grid: FlagGrid) -> tuple[bool, int]:
    """Walk the squares of one segment (doubled coordinates) in order.

    Returns ``(hit, visited)``: whether a visited square is solid or a crossed
    unit edge has a wall, and how many squares were visited.  At a corner pass
    the walk steps diagonally and tests the two edges of the x-first path
    round the vertex.  This is the per-square work of a traversal, not the
    full two-sided rule of SPEC section 3.

    Examples
    --------
    >>> g = FlagGrid(np.zeros((3, 4), bool), np.zeros((3, 5), bool), np.zeros((4, 4), bool))
    >>> traverse(1, 1, 7, 5, g)
    (False, 6)
    """
    w = grid.w
    solid, vwall, hwall = grid.solid, grid.vwall, grid.hwall
    dx, dy = x1 - x0, y1 - y0
    sx = 1 if dx > 0 else -1
    sy = 1 if dy > 0 else -1
    adx, ady = abs(dx), abs(dy)
    # Starting square: on a grid line, the side the segment moves into (the
    # right / lower side when it runs along the line, unless that is off the map).
    c = min(x0 // 2 if (x0 % 2 or dx >= 0) else x0 // 2 - 1, w - 1)
    r = min(y0 // 2 if (y0 % 2 or dy >= 0) else y0 // 2 - 1, grid.h - 1)
    # Distance (doubled units) from the start to the next line crossed, per axis.
    nx = (2 * (c + 1) - x0) if dx > 0 else (x0 - 2 * c)
    ny = (2 * (r + 1) - y0) if dy > 0 else (y0 - 2 * r)
    hit = solid[r * w + c]
    visited = 1
    # A crossing at distance n along x happens at t = n / adx (before the end iff n < adx).
    while True:
        cross_x = dx != 0 and nx < adx
        cross_y = dy != 0 and ny < ady
        if not (cross_x or cross_y):
            break
        if cross_x and cross_y:
            lhs, rhs = nx * ady, ny * adx  # compare nx/adx with ny/ady
        else:
            lhs, rhs = (0, 1) if cross_x else (1, 0)
        if lhs <= rhs:  # x-line first (or together)
            k = c + 1 if dx > 0 else c
            if lhs < rhs:
                hit = hit or vwall[r * (w + 1) + k]
            c += sx
            nx += 2
        if lhs >= rhs:  # y-line first (or together)
            k = r + 1 if dy > 0 else r
            hit = hit or hwall[k * w + c]
            if lhs == rhs:
                hit = hit or vwall[r * (w + 1) + (c if dx > 0 else c + 1)]
            r += sy
            ny += 2
        hit = hit or solid[r * w + c]
        visited += 1
    return bool(hit), visited


def traverse_many(seg2: np.ndarray, grid: FlagGrid) -> tuple[np.ndarray, np.ndarray]:
    """:func:`traverse` over every row of ``seg2``: (hit flags, visited counts)."""
    hits = np.zeros(len(seg2), bool)
    counts = np.zeros(len(seg2), np.int64)
    for i, (x0, y0, x1, y1) in enumerate(seg2.tolist()):
        hits[i], counts[i] = traverse(x0, y0, x1, y1, grid)
    return hits, counts


def skimage_lines(seg2: np.ndarray, grid: FlagGrid) -> tuple[np.ndarray, np.ndarray]:
    """``skimage.draw.line`` from the start square to the end square of each
    segment, testing the solid flag of each pixel: (hit flags, pixel counts)."""
    from skimage.draw import line

    solid = grid.array
    h, w = solid.shape
    # The square containing each endpoint (a corner belongs to the square to its lower right).
    cells = np.minimum(seg2 // 2, [w - 1, h - 1, w - 1, h - 1])
    hits = np.zeros(len(seg2), bool)
    counts = np.zeros(len(seg2), np.int64)
    for i, (c0, r0, c1, r1) in enumerate(cells.tolist()):
        rr, cc = line(r0, c0, r1, c1)
        hits[i] = solid[rr, cc].any()
        counts[i] = len(rr)
    return hits, counts
