"""Exact angular predicates on integer direction vectors (vectorised).

Directions are int64 arrays ``(x, y)`` of magnitude below 2**30, so every
cross and dot product is exact.  "ccw" means increasing angle in the sense of
``cross(a, b) > 0``; with y pointing down that is clockwise on screen, which
does not matter: only consistency does.

An *arc* is ``(s, s_inc, e, e_inc)``: the directions from ``s`` to ``e``
going ccw, each end included or not; when ``s`` and ``e`` are the same
direction the arc is that single direction (both ends are then included).
A *cone* is an open arc ``(c1, c2)`` (an open quadrant or half-plane seen
from a point) or the full circle.
"""

from __future__ import annotations

import numpy as np


def cross(ax, ay, bx, by):
    return ax * by - ay * bx


def same_dir(ax, ay, bx, by):
    return (cross(ax, ay, bx, by) == 0) & (ax * bx + ay * by > 0)


def _half(ax, ay, xx, xy):
    """0 if the ccw angle from a to x is in [0, pi), else 1."""
    c = cross(ax, ay, xx, xy)
    return ~((c > 0) | ((c == 0) & (ax * xx + ay * xy > 0)))


def ccw_lt(ax, ay, xx, xy, yx, yy):
    """Angle from a to x (ccw, in [0, 2 pi)) is less than the angle from a to y."""
    hx = _half(ax, ay, xx, xy)
    hy = _half(ax, ay, yx, yy)
    return np.where(hx != hy, ~hx & hy, cross(xx, xy, yx, yy) > 0)


def between_open(wx, wy, ax, ay, bx, by):
    """w lies strictly inside the ccw arc from a to b."""
    return ~same_dir(wx, wy, ax, ay) & ccw_lt(ax, ay, wx, wy, bx, by)


def in_halfopen(wx, wy, ax, ay, bx, by):
    """w lies in the ccw arc [a, b)."""
    return same_dir(wx, wy, ax, ay) | between_open(wx, wy, ax, ay, bx, by)


def in_arc(wx, wy, arc):
    """Direction w lies in the arc."""
    sx, sy, s_inc, ex, ey, e_inc = arc
    deg = same_dir(sx, sy, ex, ey)
    at_s = same_dir(wx, wy, sx, sy)
    at_e = same_dir(wx, wy, ex, ey)
    general = (at_s & s_inc) | (at_e & e_inc) | between_open(wx, wy, sx, sy, ex, ey)
    return np.where(deg, at_s & s_inc & e_inc, general)


def cone_meets_arc(full, c1x, c1y, c2x, c2y, arc):
    """The open cone (c1, c2) (or the full circle where ``full``) meets the arc."""
    sx, sy, s_inc, ex, ey, e_inc = arc
    deg = same_dir(sx, sy, ex, ey)
    nondeg = in_halfopen(c1x, c1y, sx, sy, ex, ey) | in_halfopen(sx, sy, c1x, c1y, c2x, c2y)
    single = between_open(sx, sy, c1x, c1y, c2x, c2y) & s_inc & e_inc
    return full | np.where(deg, single, nondeg)
