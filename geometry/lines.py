"""Line generators: the lines each ruleset draws, stray-shot extension, adjacency.

Every line is a row ``[x0, y0, x1, y1]`` in squares (x right, y down), float64,
ready for :func:`lineoffire.geometry.trace`.  Corners are integers and centres
half-integers, so every generated value is exact in binary floating point.

Fixed orders, relied on by the rulesets:

- corners of a space: sorted by ``(y, x)`` (row by row, left to right);
- squares of a space: sorted by ``(r, c)``;
- the 4 corners of square ``(c, r)``: ``(c, r)``, ``(c + 1, r)``, ``(c, r + 1)``,
  ``(c + 1, r + 1)`` (top-left, top-right, bottom-left, bottom-right).

A "creature" argument is anything with a ``rect`` ``(x0, y0, x1, y1)``, in
practice a :class:`lineoffire.maps.Creature`.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
import numpy.typing as npt

from lineoffire.maps.model import SCALE

__all__ = [
    "LineMode",
    "space_rect",
    "corners_of",
    "squares_of",
    "square_corners",
    "corner_lines",
    "corner_to_corner",
    "centre_of",
    "centre_line",
    "origin_lines",
    "extend_to_edge",
    "adjacent",
]

#: Offsets of the 4 corners of a square, in the documented order.
_CORNER_OFFSETS = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float64)


class LineMode(str, enum.Enum):
    """Which lines :func:`origin_lines` draws to each target."""

    #: To the 4 corners of each square of the target (pf1e).
    CORNERS = "corners"
    #: To the centre of the target's space (pf2e, creature-cover).
    CENTRE = "centre"


def space_rect(creature: Any, where: str = "creature") -> tuple[int, int, int, int]:
    """The closed space ``(x0, y0, x1, y1)`` of a creature, in squares.

    Raises
    ------
    TypeError
        If ``creature`` has no ``rect`` of 4 integers.
    """
    rect = getattr(creature, "rect", None)
    if rect is None:
        raise TypeError(
            f"{where} must be a Creature (anything with a rect), not "
            f"{type(creature).__name__} ({creature!r})"
        )
    try:
        x0, y0, x1, y1 = (int(v) for v in rect)
    except (TypeError, ValueError):
        raise TypeError(f"{where}.rect must be 4 integers, not {rect!r}") from None
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"{where}.rect {rect!r} is empty")
    return x0, y0, x1, y1


def corners_of(creature: Any) -> np.ndarray:
    """Every corner of every square of the creature's space, sorted by ``(y, x)``.

    These are pf1e's shooter corners: ``(space + 1) ** 2`` points.

    Returns
    -------
    ndarray, shape (K, 2)
        ``[x, y]`` per corner.

    Examples
    --------
    A medium creature at (2, 1) occupies one square, so it has 4 corners::

        . . . .
        . . A .      corners (2, 1) (3, 1) (2, 2) (3, 2)

    >>> from lineoffire.maps import Creature
    >>> corners_of(Creature("A", 2, 1)).tolist()
    [[2.0, 1.0], [3.0, 1.0], [2.0, 2.0], [3.0, 2.0]]
    >>> len(corners_of(Creature("L", 0, 0, size="large")))
    9
    """
    x0, y0, x1, y1 = space_rect(creature)
    return _lattice(x0, y0, x1 + 1, y1 + 1)


def squares_of(creature: Any) -> np.ndarray:
    """The squares ``[c, r]`` of the creature's space, sorted by ``(r, c)``.

    Examples
    --------
    >>> from lineoffire.maps import Creature
    >>> squares_of(Creature("L", 3, 1, size="large")).tolist()
    [[3, 1], [4, 1], [3, 2], [4, 2]]
    """
    x0, y0, x1, y1 = space_rect(creature)
    return _lattice(x0, y0, x1, y1, np.int64)


def _lattice(x0: int, y0: int, x1: int, y1: int, dtype: Any = np.float64) -> np.ndarray:
    """The points ``[x, y]`` with ``x0 <= x < x1`` and ``y0 <= y < y1``, sorted by
    ``(y, x)`` (cheaper than ``np.mgrid`` for the few points of one space)."""
    out = np.empty((y1 - y0, x1 - x0, 2), dtype=dtype)
    out[..., 0] = np.arange(x0, x1)
    out[..., 1] = np.arange(y0, y1)[:, None]
    return out.reshape(-1, 2)


def square_corners(squares: npt.ArrayLike) -> np.ndarray:
    """The 4 corners of each square ``[c, r]``, shape ``(N, 4, 2)``, in the fixed order.

    Examples
    --------
    >>> square_corners([[2, 5]]).tolist()
    [[[2.0, 5.0], [3.0, 5.0], [2.0, 6.0], [3.0, 6.0]]]
    """
    sq = np.asarray(squares, dtype=np.float64)
    if sq.ndim == 1:
        sq = sq[None, :]
    if sq.ndim != 2 or sq.shape[1] != 2:
        raise ValueError(f"squares must have shape (N, 2), not {np.shape(squares)}")
    return sq[:, None, :] + _CORNER_OFFSETS[None, :, :]


def _point(point: Any, where: str) -> np.ndarray:
    """A point ``(x, y)`` as a float array, snapped to 1/1024 square."""
    try:
        p = np.asarray(point, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where} must be a point (x, y), not {point!r}") from None
    if p.shape != (2,):
        raise ValueError(f"{where} must be a point (x, y), not an array of shape {p.shape}")
    if not np.isfinite(p).all():
        raise ValueError(f"{where} must be finite, not {point!r}")
    return np.rint(p * SCALE) / SCALE


def corner_lines(corner: npt.ArrayLike, square: npt.ArrayLike) -> np.ndarray:
    """The 4 lines from a point to the 4 corners of square ``(c, r)``.

    The corners are in the fixed order top-left, top-right, bottom-left,
    bottom-right.

    Returns
    -------
    ndarray, shape (4, 4)

    Examples
    --------
    >>> corner_lines((0, 0), (2, 1)).tolist()  # doctest: +NORMALIZE_WHITESPACE
    [[0.0, 0.0, 2.0, 1.0], [0.0, 0.0, 3.0, 1.0],
     [0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 3.0, 2.0]]
    """
    p = _point(corner, "corner")
    sq = np.asarray(square)
    if sq.shape != (2,):
        raise ValueError(f"square must be a pair (c, r), not an array of shape {sq.shape}")
    ends = square_corners(sq[None, :])[0]
    return np.concatenate([np.broadcast_to(p, (4, 2)), ends], axis=1)


def corner_to_corner(shooter: Any, target: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All pf1e lines: each shooter corner to the 4 corners of each target square.

    Returns
    -------
    lines : ndarray, shape (n_corners, n_squares, 4, 4)
        ``lines[i, j, k]`` runs from ``corners[i]`` to corner ``k`` (fixed order)
        of ``squares[j]``.
    corners : ndarray, shape (n_corners, 2)
        The shooter's corners ``[x, y]``, sorted by ``(y, x)``.
    squares : ndarray, shape (n_squares, 2)
        The target's squares ``[c, r]``, sorted by ``(r, c)``.

    Examples
    --------
    >>> from lineoffire.maps import Creature
    >>> lines, corners, squares = corner_to_corner(Creature("A", 0, 0),
    ...                                            Creature("T", 3, 0))
    >>> lines.shape, squares.tolist()
    ((4, 1, 4, 4), [[3, 0]])
    >>> lines[1, 0].tolist()  # doctest: +NORMALIZE_WHITESPACE
    [[1.0, 0.0, 3.0, 0.0], [1.0, 0.0, 4.0, 0.0],
     [1.0, 0.0, 3.0, 1.0], [1.0, 0.0, 4.0, 1.0]]
    """
    corners = corners_of(shooter)
    squares = squares_of(target)
    ends = square_corners(squares)  # (S, 4, 2)
    nc, ns = len(corners), len(squares)
    lines = np.empty((nc, ns, 4, 4), dtype=np.float64)
    lines[..., :2] = corners[:, None, None, :]
    lines[..., 2:] = ends[None, :, :, :]
    return lines, corners, squares


def centre_of(creature: Any) -> np.ndarray:
    """The centre ``[x, y]`` of the creature's space (a grid vertex for even spaces)."""
    x0, y0, x1, y1 = space_rect(creature)
    return np.array([(x0 + x1) / 2, (y0 + y1) / 2], dtype=np.float64)


def centre_line(shooter: Any, target: Any) -> np.ndarray:
    """The line from the centre of the shooter's space to the centre of the target's.

    Returns
    -------
    ndarray, shape (4,)

    Examples
    --------
    >>> from lineoffire.maps import Creature
    >>> centre_line(Creature("A", 0, 0), Creature("T", 3, 1, size="large")).tolist()
    [0.5, 0.5, 4.0, 2.0]
    """
    return np.concatenate([centre_of(shooter), centre_of(target)])


def origin_lines(origin: npt.ArrayLike, target: Any, mode: LineMode | str = LineMode.CORNERS
                 ) -> np.ndarray:
    """The lines of an area effect from its origin point to the target.

    Parameters
    ----------
    origin : (x, y)
        The effect's point of origin, snapped to 1/1024 square.
    target : Creature
    mode : {"corners", "centre"}
        ``"corners"``: to the 4 corners of each target square (pf1e), shape
        ``(n_squares, 4, 4)``, squares sorted by ``(r, c)`` as in
        :func:`squares_of`.  ``"centre"``: to the centre of the target's space,
        shape ``(4,)``.

    Examples
    --------
    >>> from lineoffire.maps import Creature
    >>> origin_lines((0, 0), Creature("T", 2, 0), "centre").tolist()
    [0.0, 0.0, 2.5, 0.5]
    >>> origin_lines((0, 0), Creature("T", 2, 0)).shape
    (1, 4, 4)
    """
    try:
        mode = LineMode(mode)
    except ValueError:
        raise ValueError(
            f"mode must be one of {', '.join(repr(m.value) for m in LineMode)}, not {mode!r}"
        ) from None
    p = _point(origin, "origin")
    if mode is LineMode.CENTRE:
        return np.concatenate([p, centre_of(target)])
    ends = square_corners(squares_of(target))
    out = np.empty(ends.shape[:2] + (4,), dtype=np.float64)
    out[..., :2] = p
    out[..., 2:] = ends
    return out


def _round_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` rounded to the nearest integer, halves up; ``den > 0``."""
    return np.floor_divide(2 * num + den, 2 * den)


def extend_to_edge(segment: npt.ArrayLike, width: int, height: int) -> np.ndarray:
    """Extend segments past their end point, along their direction, to the map edge.

    Used for stray shots: the returned segment keeps the start point and ends
    where the ray from the start through the end point leaves the
    ``[0, width] x [0, height]`` map; the stray part is ``[x1, y1, xe, ye]``.

    Exactness: inputs are snapped to 1/1024 square.  The boundary coordinate of
    the edge point is exact (it lies on the boundary); the other coordinate,
    a rational number, is rounded to the nearest multiple of 1/1024 (halves
    towards +infinity), which is exact whenever the true point is on that
    lattice and otherwise moves the end by at most 1/2048 square along the
    boundary.  Because 0, ``width`` and ``height`` are lattice values the
    rounded point never leaves the map.  An end point already on the edge it
    heads for is returned unchanged.

    Parameters
    ----------
    segment : array_like, shape (4,) or (N, 4)
    width, height : int
        The map's size in squares.

    Returns
    -------
    ndarray of the input's shape

    Raises
    ------
    ValueError
        For a zero-length segment (no direction) or a point outside the map.

    Examples
    --------
    ::

        A . . . .      (0.5, 0.5) -> (1.5, 1.0) heads right and a little down:
        . . . . .      it leaves the 5x3 map at its right edge, x = 5.
        . . . . .

    >>> extend_to_edge([0.5, 0.5, 1.5, 1.0], 5, 3).tolist()
    [0.5, 0.5, 5.0, 2.75]
    >>> extend_to_edge([[1, 1, 2, 2]], 5, 3).tolist()
    [[1.0, 1.0, 3.0, 3.0]]
    """
    arr = np.asarray(segment, dtype=np.float64)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"segment must have shape (4,) or (N, 4), not {np.shape(segment)}")
    if not np.isfinite(arr).all():
        i = int(np.argwhere(~np.isfinite(arr))[0, 0])
        raise ValueError(f"segment {i} must be finite, not {arr[i].tolist()}")
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, not {v!r}")
    u = np.rint(arr * SCALE).astype(np.int64)
    lim = np.array([width, height], dtype=np.int64) * SCALE
    outside = (u < 0) | (u > np.tile(lim, 2))
    if outside.any():
        i = int(np.argwhere(outside)[0, 0])
        raise ValueError(f"segment {i} {arr[i].tolist()} has a point outside the "
                         f"{width}x{height} map")
    p = u[:, 2:]
    d = u[:, 2:] - u[:, :2]
    zero = (d == 0).all(axis=1)
    if zero.any():
        i = int(np.argmax(zero))
        raise ValueError(f"segment {i} {arr[i].tolist()} has zero length: no direction to extend")
    # Per axis: the distance to the boundary ahead, and the speed towards it.
    ahead = np.where(d > 0, lim - p, p)  # >= 0
    speed = np.abs(d)
    # Exit parameter s = ahead / speed, minimised over the moving axes; compare
    # fractions by cross-multiplication (all values are integers).
    moving = speed > 0
    # Choose the axis whose boundary is reached first (x on ties: same point).
    x_first = ~moving[:, 1] | (moving[:, 0] & (ahead[:, 0] * speed[:, 1] <= ahead[:, 1] * speed[:, 0]))
    axis = np.where(x_first, 0, 1)
    other = 1 - axis
    rows = np.arange(len(u))
    num = ahead[rows, axis]
    den = speed[rows, axis]
    end = np.empty_like(p)
    end[rows, axis] = np.where(d[rows, axis] > 0, lim[axis], 0)
    end[rows, other] = p[rows, other] + _round_div(num * d[rows, other], den)
    end = np.clip(end, 0, lim)
    out = np.concatenate([u[:, :2], end], axis=1).astype(np.float64) / SCALE
    return out[0] if single else out


def adjacent(a: Any, b: Any) -> bool:
    """Whether two creatures' spaces are adjacent (melee adjacency).

    Adjacent means the closed spaces share an edge or a corner but do not
    overlap (their interiors are disjoint).

    Examples
    --------
    ::

        A B .      A-B share an edge, A-C a corner; A-D are a square apart.
        . C D

    >>> from lineoffire.maps import Creature
    >>> A, B, C, D = (Creature("A", 0, 0), Creature("B", 1, 0), Creature("C", 1, 1),
    ...               Creature("D", 2, 1))
    >>> adjacent(A, B), adjacent(A, C), adjacent(A, D)
    (True, True, False)
    """
    ax0, ay0, ax1, ay1 = space_rect(a, "a")
    bx0, by0, bx1, by1 = space_rect(b, "b")
    touch = ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1
    overlap = ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1
    return bool(touch and not overlap)

