"""A small pure-Python exact traversal: the per-line baseline of the benchmarks.

One line at a time, exact rational arithmetic (:class:`fractions.Fraction`),
solid squares and thin walls lying on grid lines only, free endpoints (no
creature attachment, no creatures, no slit or low cover).  It answers
whether the blocking class stops the line (SPEC section 3):

- each open stretch between two grid crossings lies inside one square (it
  is stopped if the square is solid) or runs along a grid line (stopped if
  the squares on both sides are solid: a sealed seam);
- at each grid crossing p the two-sided rule: a side is closed by a solid
  square whose open interior touches p on that side, or by a wall running
  from p into that side (a wall along the line counts on neither side).

It is the obviously-correct-but-slow way; the benchmark times it and checks
that the engine's ``stopped`` agrees on the lines it samples.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from lineoffire.maps.model import SOLID, BattleMap

__all__ = ["GridWalker"]


def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


def _sign(v) -> int:
    return (v > 0) - (v < 0)


class GridWalker:
    """Exact per-line traversal of one map (solid squares and grid walls).

    Raises ValueError if a closed wall, door or slit does not lie on a grid
    line (the baseline does not handle those).
    """

    def __init__(self, bmap: BattleMap):
        self.w, self.h = bmap.width, bmap.height
        self.solid = [[bool(v == SOLID) for v in row] for row in bmap.squares.tolist()]
        self.walls: list[tuple[Fraction, Fraction, Fraction, Fraction]] = []
        for k, wall in enumerate(bmap.walls):
            if wall.obstacle_class != "blocking":
                continue
            for (ax, ay), (bx, by) in wall.segments:
                ax, ay, bx, by = (Fraction(v) for v in (ax, ay, bx, by))
                on_grid = (ax == bx and ax.denominator == 1) or (ay == by and ay.denominator == 1)
                if not on_grid:
                    raise ValueError(f"wall {k} segment ({ax}, {ay})-({bx}, {by}) is not on a grid "
                                     "line; the baseline handles grid walls only")
                self.walls.append((ax, ay, bx, by))
        # walls by grid line: ("v", x) or ("h", y) -> segments
        self.by_line: dict[tuple[str, int], list[tuple[Fraction, Fraction, Fraction, Fraction]]] = {}
        for seg in self.walls:
            ax, ay, bx, by = seg
            key = ("v", int(ax)) if ax == bx and ax.denominator == 1 else ("h", int(ay))
            self.by_line.setdefault(key, []).append(seg)

    # ------------------------------------------------------------ pieces
    def _is_solid(self, c: int, r: int) -> bool:
        return 0 <= c < self.w and 0 <= r < self.h and self.solid[r][c]

    def _wall_dirs(self, px: Fraction, py: Fraction):
        """Directions of the walls running from p (unit steps along x or y)."""
        out = []
        keys = []
        if px.denominator == 1:
            keys.append(("v", int(px)))
        if py.denominator == 1:
            keys.append(("h", int(py)))
        for key in keys:
            for ax, ay, bx, by in self.by_line.get(key, ()):
                if key[0] == "v":
                    lo, hi = min(ay, by), max(ay, by)
                    if lo <= py <= hi:
                        if py < hi:
                            out.append((0, 1))
                        if py > lo:
                            out.append((0, -1))
                else:
                    lo, hi = min(ax, bx), max(ax, bx)
                    if lo <= px <= hi:
                        if px < hi:
                            out.append((1, 0))
                        if px > lo:
                            out.append((-1, 0))
        return out

    def _closed_at(self, px: Fraction, py: Fraction, dx: Fraction, dy: Fraction) -> bool:
        left = right = False
        # solid squares whose closed area holds p: each is a union of quadrants at p
        cs = [int(px) - 1, int(px)] if px.denominator == 1 else [px.numerator // px.denominator]
        rs = [int(py) - 1, int(py)] if py.denominator == 1 else [py.numerator // py.denominator]
        for c in cs:
            for r in rs:
                if not self._is_solid(c, r):
                    continue
                # directions from p into the square's interior: x towards the
                # square's centre (or both ways if p is inside its x range)
                xs = [1 if c + 0.5 > px else -1] if px.denominator == 1 else [1, -1]
                ys = [1 if r + 0.5 > py else -1] if py.denominator == 1 else [1, -1]
                for sx in xs:
                    for sy in ys:
                        a = _sign(_cross(dx, dy, sx, 0))
                        b = _sign(_cross(dx, dy, 0, sy))
                        if a > 0 or b > 0:
                            left = True
                        if a < 0 or b < 0:
                            right = True
        for wx, wy in self._wall_dirs(px, py):
            s = _sign(_cross(dx, dy, wx, wy))
            if s > 0:
                left = True
            elif s < 0:
                right = True
        return left and right

    # ------------------------------------------------------------- trace
    def stopped(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        """Whether the blocking class stops the free segment ``(x0, y0) -> (x1, y1)``."""
        x0, y0, x1, y1 = (Fraction(v) for v in (x0, y0, x1, y1))
        dx, dy = x1 - x0, y1 - y0
        if dx == 0 and dy == 0:
            return False
        ts = {Fraction(0), Fraction(1)}
        if dx != 0:
            for k in range(int(min(x0, x1)), int(max(x0, x1)) + 2):
                t = (k - x0) / dx
                if 0 < t < 1:
                    ts.add(t)
        if dy != 0:
            for k in range(int(min(y0, y1)), int(max(y0, y1)) + 2):
                t = (k - y0) / dy
                if 0 < t < 1:
                    ts.add(t)
        order = sorted(ts)
        for a, b in zip(order, order[1:]):
            mx = x0 + dx * (a + b) / 2
            my = y0 + dy * (a + b) / 2
            if dx == 0 and mx.denominator == 1:  # along a vertical grid line
                r = my.numerator // my.denominator
                if self._is_solid(int(mx) - 1, r) and self._is_solid(int(mx), r):
                    return True
            elif dy == 0 and my.denominator == 1:  # along a horizontal grid line
                c = mx.numerator // mx.denominator
                if self._is_solid(c, int(my) - 1) and self._is_solid(c, int(my)):
                    return True
            elif self._is_solid(mx.numerator // mx.denominator, my.numerator // my.denominator):
                return True
            if b < 1 and self._closed_at(x0 + dx * b, y0 + dy * b, dx, dy):
                return True
        return False

    def stopped_many(self, segments: Iterable[Iterable[float]]) -> list[bool]:
        """:meth:`stopped` for each segment, one at a time."""
        return [self.stopped(*seg) for seg in segments]
