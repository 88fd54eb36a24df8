"""Per-map lookup tables for the trace kernel, built once per map and cached.

All coordinates are integers in units of 1/1024 square (``SCALE``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from lineoffire.maps.model import LOW, SCALE, SOLID, BattleMap

from .types import DOOR_K, LOW_K, SLIT_K, WALL_K

S = SCALE

# obstacle classes
BLK, SLT, LOWC, CRE = 0, 1, 2, 3

_KIND_OF = {"wall": WALL_K, "door": DOOR_K, "slit": SLIT_K, "low": LOW_K}
_CLASS_OF = {"wall": BLK, "door": BLK, "slit": SLT, "low": LOWC}


class Prep:
    """Lookup tables of one map.

    ``flags[r, c]``: bit 0 solid, bit 1 low.  ``pflags`` (padded) adds bit 2
    (a creature stands there), bit 3 (a free wall meets the square) and bits
    4-7 (its left, right, top, bottom edge carries a grid wall).  ``cre[layer, r, c]``: creature
    index or -1 (several layers only where tiny creatures share a square).

    Thin-wall segments (open doors left out) are split in two families:
    *grid walls* lie on a grid line (x or y a whole number of squares) and
    are found through unit-edge tables; *free walls* (any other segment) are
    found through per-square buckets.
    """

    def __init__(self, bmap: BattleMap):
        self.w, self.h = bmap.width, bmap.height
        self.flags = np.zeros((self.h, self.w), dtype=np.uint8)
        self.flags[bmap.squares == SOLID] |= 1
        self.flags[bmap.squares == LOW] |= 2
        self._creatures(bmap)
        self._walls(bmap)
        # Padded copies (one square of border all round, open) so that lookups
        # of squares just off the map need no bounds masks: index [r + 1, c + 1].
        self.pflags = np.zeros((self.h + 2, self.w + 2), dtype=np.uint8)
        self.pflags[1:-1, 1:-1] = self.flags
        self.pflags[1:-1, 1:-1][(self.cre >= 0).any(axis=0)] |= 4
        # bit 3: a free wall meets the square (the kernel looks for walls there)
        has_free = np.diff(self.bucket_start) > 0
        self.pflags[1:-1, 1:-1][has_free.reshape(self.h, self.w)] |= 8
        self.pcre = np.full((self.cre.shape[0], self.h + 2, self.w + 2), -1, dtype=np.int32)
        self.pcre[:, 1:-1, 1:-1] = self.cre
        # walled unit edges: vertical edge (k, r) at [r + 1, k + 1]; horizontal (c, k) at [k + 1, c + 1]
        self.pvwall = np.zeros((self.h + 2, self.w + 3), dtype=bool)
        self.pvwall[1:-1, 1:-1] = self.vedge.count.T > 0
        self.phwall = np.zeros((self.h + 3, self.w + 2), dtype=bool)
        self.phwall[1:-1, 1:-1] = self.hedge.count > 0
        self.any_vwall = bool(self.pvwall.any())
        self.any_hwall = bool(self.phwall.any())
        # bits 4-7: the square's left / right / top / bottom edge carries a grid wall
        inner = self.pflags[1:-1, 1:-1]
        inner |= (self.pvwall[1:-1, 1:-2] * 16).astype(np.uint8)
        inner |= (self.pvwall[1:-1, 2:-1] * 32).astype(np.uint8)
        inner |= (self.phwall[1:-2, 1:-1] * 64).astype(np.uint8)
        inner |= (self.phwall[2:-1, 1:-1] * 128).astype(np.uint8)
        # the padding squares just off the map see the map's boundary edges
        self.pflags[1:-1, 0] |= (self.pvwall[1:-1, 1] * 32).astype(np.uint8)
        self.pflags[1:-1, -1] |= (self.pvwall[1:-1, -2] * 16).astype(np.uint8)
        self.pflags[0, 1:-1] |= (self.phwall[1, 1:-1] * 128).astype(np.uint8)
        self.pflags[-1, 1:-1] |= (self.phwall[-2, 1:-1] * 64).astype(np.uint8)

    def derived(self, name: str, build: Callable[[], Any]) -> Any:
        """Another per-map table, made once by ``build()`` and kept with these
        (so it is rebuilt whenever they are, see :func:`prep_for`)."""
        got = self.__dict__.get(name)
        if got is None:
            got = self.__dict__[name] = build()
        return got

    # ------------------------------------------------------------ creatures
    def _creatures(self, bmap: BattleMap) -> None:
        layers = [np.full((self.h, self.w), -1, dtype=np.int32)]
        for i, c in enumerate(bmap.creatures):
            x0, y0, x1, y1 = c.rect
            for layer in layers:
                if (layer[y0:y1, x0:x1] < 0).all():
                    layer[y0:y1, x0:x1] = i
                    break
            else:
                layer = np.full((self.h, self.w), -1, dtype=np.int32)
                layer[y0:y1, x0:x1] = i
                layers.append(layer)
        self.cre = np.stack(layers)
        n = len(bmap.creatures)
        self.dead = np.array([c.dead for c in bmap.creatures] + [False], dtype=bool)[:max(n, 1)]
        self.prone = np.array([c.prone for c in bmap.creatures] + [False], dtype=bool)[:max(n, 1)]
        self.rects = np.array([c.rect for c in bmap.creatures], dtype=np.int64).reshape(-1, 4) * S
        ids = [c.id for c in bmap.creatures]
        order = sorted(range(n), key=lambda i: ids[i])
        self.id_rank = np.empty(n, dtype=np.int64)
        self.id_rank[order] = np.arange(n)

    # ---------------------------------------------------------------- walls
    def _walls(self, bmap: BattleMap) -> None:
        rows = []
        for wi, wall in enumerate(bmap.walls):
            if wall.kind == "door" and wall.open:
                continue
            for si, ((ax, ay), (bx, by)) in enumerate(wall.segments):
                rows.append((round(ax * S), round(ay * S), round(bx * S), round(by * S),
                             _CLASS_OF[wall.kind], _KIND_OF[wall.kind], wi, si))
        arr = np.array(rows, dtype=np.int64).reshape(-1, 8)
        self.wall_seg = arr  # ax ay bx by cls kind wall seg
        ax, ay, bx, by = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]
        vert = (ax == bx) & (ax % S == 0)
        horiz = (ay == by) & (ay % S == 0) & ~vert
        self.grid_wall = vert | horiz
        # Unit-edge tables: vertical edge (k, r) is x = k, y in [r, r+1];
        # horizontal edge (c, k) is y = k, x in [c, c+1].
        self.vedge = _edge_table(np.nonzero(vert)[0], ax[vert] // S,
                                 np.minimum(ay, by)[vert], np.maximum(ay, by)[vert],
                                 self.w + 1, self.h)
        self.hedge = _edge_table(np.nonzero(horiz)[0], ay[horiz] // S,
                                 np.minimum(ax, bx)[horiz], np.maximum(ax, bx)[horiz],
                                 self.h + 1, self.w)
        # Buckets of free walls by every square whose closed area the segment meets.
        free = np.nonzero(~self.grid_wall)[0]
        self.free = free
        cells = [np.stack([cl, np.full(len(cl), j)], axis=1)
                 for j in free
                 for cl in [_segment_cells(ax[j], ay[j], bx[j], by[j], self.w, self.h)]]
        if cells:
            cw = np.concatenate(cells).astype(np.int64)
            order = np.argsort(cw[:, 0], kind="stable")
            cw = cw[order]
            self.bucket_wall = cw[:, 1]
            self.bucket_start = np.searchsorted(cw[:, 0], np.arange(self.w * self.h + 1))
        else:
            self.bucket_wall = np.zeros(0, dtype=np.int64)
            self.bucket_start = np.zeros(self.w * self.h + 1, dtype=np.int64)


class _EdgeTable:
    """Walls per unit edge on the grid lines of one orientation (CSR)."""

    def __init__(self, start: np.ndarray, walls: np.ndarray, nlines: int, nunits: int):
        self.start = start  # (nlines * nunits + 1,)
        self.walls = walls
        self.nlines = nlines
        self.nunits = nunits
        count = np.diff(start)
        self.count = count.reshape(nlines, nunits)
        # the one wall of an edge that has exactly one (most walled edges), -1 otherwise
        self.single = np.where(count == 1, walls[np.minimum(start[:-1], max(len(walls) - 1, 0))]
                               if len(walls) else -1, -1)

    def lookup(self, line: np.ndarray, unit: np.ndarray):
        """(query index, wall segment index) pairs for unit edges; out of range -> none."""
        ok = (line >= 0) & (line < self.nlines) & (unit >= 0) & (unit < self.nunits)
        q = np.nonzero(ok)[0]
        key = line[q] * self.nunits + unit[q]
        one = self.single[key]
        many = np.flatnonzero((one < 0) & (self.start[key + 1] - self.start[key] > 1))
        q1 = np.flatnonzero(one >= 0)
        if len(many) == 0:
            return q[q1], one[q1]
        qm, wm = self._expand(q[many], key[many])
        return np.concatenate([q[q1], qm]), np.concatenate([one[q1], wm])

    def _expand(self, q: np.ndarray, key: np.ndarray):
        a = self.start[key]
        n = self.start[key + 1] - a
        has = n > 0
        q, a, n = q[has], a[has], n[has]
        rep = np.repeat(np.arange(len(q)), n)
        pos = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n) + a[rep]
        return q[rep], self.walls[pos]


def _edge_table(idx, line, lo, hi, nlines, nunits) -> _EdgeTable:
    pairs = []
    for j, k, a, b in zip(idx.tolist(), line.tolist(), lo.tolist(), hi.tolist()):
        # the unit edges the wall overlaps with positive length; a wall ending
        # at a vertex is found there through the unit edge it runs along
        for u in range(max(a // S, 0), min(-(-b // S), nunits)):
            pairs.append((k * nunits + u, j))
    if pairs:
        arr = np.array(sorted(pairs), dtype=np.int64)
        start = np.searchsorted(arr[:, 0], np.arange(nlines * nunits + 1))
        walls = arr[:, 1]
    else:
        start = np.zeros(nlines * nunits + 1, dtype=np.int64)
        walls = np.zeros(0, dtype=np.int64)
    return _EdgeTable(start, walls, nlines, nunits)


def _segment_cells(ax: int, ay: int, bx: int, by: int, w: int, h: int) -> np.ndarray:
    """Squares ``r * w + c`` whose closed area the closed segment meets (exact)."""
    ax, ay, bx, by = int(ax), int(ay), int(bx), int(by)
    c0 = max(min(ax, bx) // S - 1, 0)
    c1 = min(max(ax, bx) // S + 1, w - 1)
    r0 = max(min(ay, by) // S - 1, 0)
    r1 = min(max(ay, by) // S + 1, h - 1)
    if c1 < c0 or r1 < r0:
        return np.zeros(0, np.int64)
    rr, cc = np.mgrid[r0:r1 + 1, c0:c1 + 1]
    rr, cc = rr.ravel().astype(np.int64), cc.ravel().astype(np.int64)
    x0, y0, x1, y1 = cc * S, rr * S, (cc + 1) * S, (rr + 1) * S
    inside = (np.maximum(ax, bx) >= x0) & (np.minimum(ax, bx) <= x1) & \
        (np.maximum(ay, by) >= y0) & (np.minimum(ay, by) <= y1)
    dx, dy = bx - ax, by - ay
    sides = [np.sign(dx * (yy - ay) - dy * (xx - ax))
             for xx, yy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    sides = np.stack(sides)
    separated = (sides > 0).all(axis=0) | (sides < 0).all(axis=0)
    keep = inside & ~separated
    return rr[keep] * w + cc[keep]


def prep_for(bmap: BattleMap) -> Prep:
    """The cached :class:`Prep` of ``bmap``.

    The cache lives on the map object and is rebuilt when its squares array,
    wall list or creature list is replaced or a list changes length; maps are
    meant to be treated as immutable (``with_creatures`` / ``with_walls``
    return new maps).
    """
    key = (bmap.squares, bmap.walls, bmap.creatures, len(bmap.walls), len(bmap.creatures))
    cached = getattr(bmap, "_lof_prep", None)
    if cached is not None and all(a is b for a, b in zip(cached[0][:3], key[:3])) \
            and cached[0][3:] == key[3:]:
        return cached[1]
    prep = Prep(bmap)
    try:
        object.__setattr__(bmap, "_lof_prep", (key, prep))
    except AttributeError:
        pass
    return prep
