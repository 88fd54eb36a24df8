"""A cheap, sound proof of total cover between two spaces, for many pairs at once.

:func:`sealed` answers True for a pair of spaces only when *every* segment
from one to the other is stopped (SPEC sections 3 and 4): then there is no
line of effect.  False means "not proved", never "there is line of effect":
callers fall back on the exact search of :mod:`.effect`.  In a dungeon most
distant pairs are cut off, and this proof replaces their exact search (a
few thousand traced candidates each) by a few array operations.

Method
------
Take the axis along which the two spaces are further apart (the *major*
axis; the spaces must have a gap along it), A before B.  Every segment from
A to B crosses the two facing sides' lines ``x = X0`` (A's far side) and
``x = X1`` (B's near side), so it lies on a line ``y(x)`` given by its
heights ``u = y(X0)`` and ``v = y(X1)``; all its points with ``X0 < x < X1``
lie strictly outside both spaces, inside the traced part, where the
two-sided rule uses the half-planes of the line.  The heights of all such
segments lie in a box ``[umin, umax] x [vmin, vmax]`` (convex combinations
of the spaces' edges, see :func:`_line_box`).  The box is cut into cells;
the lines of one cell cross each *slice* ``x = const`` in an interval of
heights (``y`` is increasing in ``u`` and ``v``), and a cell is proved when
at some slice that interval lies inside an open run of obstacles that stops
every line meeting it:

- at a column centre ``x = c + 1/2``: a run of solid squares of column ``c``,
  heights ``(r0, r1)``.  A line there lies in a solid square's open
  interior, or crosses the seam between two solid squares away from any
  vertex, which closes both sides; either way it is stopped;
- on a grid line ``x = k``: a run of unit edges each wholly covered by one
  blocking thin wall (wall or closed door) lying on that grid line, or
  beside a solid square.  A line (never parallel to the grid line) crosses
  such an edge at an interior point of a wall, or enters the solid square
  at once; at a vertex where two such edges meet, the wall or square of the
  edge above closes one side of the line and that of the edge below the
  other.

Cells that no slice proves are cut in four, down to :data:`MAX_LEVEL`
halvings; a pair is proved when all its cells are.  A pair apart along
both axes that the first axis does not prove gets a second try along the
other one (walls along the first axis are slices there).  Anything the
proof does not model (off-grid walls, partly walled edges, lines through a
single point where obstacles meet) only makes it prove less, never wrongly.

Heights are floats, widened by a margin far larger than their rounding
error, so an interval that touches a run's end is never taken as inside it.
"""

from __future__ import annotations

import numpy as np

from lineoffire.maps.model import SOLID, BattleMap

from ._prep import BLK, S, prep_for

__all__ = ["sealed", "sealed_pairs", "MAX_LEVEL"]

#: Halvings of a pair's starting cells (1/2 square) before giving up on it.
MAX_LEVEL = 3
#: A pair with more unproved cells than this at a level is given up (it
#: most likely has line of effect; the exact search decides).
MAX_OPEN_CELLS = 16
#: Pairs proved together (their cells are the arrays of one pass).
PAIRS_PER_PASS = 2048
#: Slices tried per cell in one numpy pass.
WINDOW = 8
#: The second try, along the other axis, skips pairs needing more starting cells.
SECOND_CELLS = 36
#: Maps with more squares get no proof (its tables take about 8 bytes a
#: square): the exact search decides every pair there.
MAX_PROOF_SQUARES = 1 << 24


class _Frame:
    """Obstacle runs of one orientation of a map.

    Slices interleave grid lines and columns along the major axis: slice
    ``2k`` is grid line ``k``, slice ``2c + 1`` the centre of column ``c``.
    Unit ``r`` of a slice is blocked when it is a solid square of the column,
    or a unit edge of the grid line walled whole or beside a solid square.
    ``end[i * n + r]`` (``n`` squares along the minor axis) is the height
    where the run of blocked units holding unit ``r`` of slice ``i`` ends,
    or -1 where the unit is not blocked (no height is below it).
    """

    def __init__(self, solid: np.ndarray, walled: np.ndarray):
        self.n = solid.shape[1]  # squares along the minor axis
        # interleaved: grid line k at slice 2k, column c at slice 2c + 1
        both = np.zeros((2 * solid.shape[0] + 1, self.n), dtype=bool)
        both[0::2] = walled
        # a line crossing a unit edge beside a solid square enters the square
        both[2:-1:2] |= solid[:-1] | solid[1:]
        both[1::2] = solid
        self.end = _run_ends(both).ravel()
        self.last = len(self.end) - 1


def _run_ends(blocked: np.ndarray) -> np.ndarray:
    """Where the run of True holding each cell ends (exclusive index) along
    axis 1, -1 for a False cell; the smallest integer type that holds it."""
    n = blocked.shape[1]
    dtype = np.int16 if n < (1 << 15) - 1 else np.int32
    nxt = np.zeros_like(blocked)
    nxt[:, :-1] = blocked[:, 1:]
    end = np.where(blocked & ~nxt, np.arange(1, n + 1, dtype=dtype), n + 1).astype(dtype)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    return np.where(blocked, end, -1).astype(dtype)


def _walled_edges(bmap: BattleMap) -> tuple[np.ndarray, np.ndarray]:
    """Unit edges wholly covered by one blocking wall segment on a grid line.

    Returns ``(vertical[k, r], horizontal[k, c])``: edge ``x = k, y in [r, r+1]``
    and edge ``y = k, x in [c, c+1]``.
    """
    w, h = bmap.width, bmap.height
    seg = prep_for(bmap).wall_seg
    ax, ay, bx, by, cls = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3], seg[:, 4]
    blocking = cls == BLK
    out = []
    for along_y, nlines, nunits in ((True, w + 1, h), (False, h + 1, w)):
        line, a, b = (ax, ay, by) if along_y else (ay, ax, bx)
        other = bx if along_y else by
        on = blocking & (line == other) & (line % S == 0)
        k = line[on] // S
        lo, hi = np.minimum(a, b)[on], np.maximum(a, b)[on]
        first = np.clip(-(-lo // S), 0, nunits)          # first unit edge wholly covered
        last = np.clip(hi // S, 0, nunits)               # one past the last
        keep = (k >= 0) & (k < nlines) & (last > first)
        diff = np.zeros((nlines, nunits + 1), dtype=np.int32)
        np.add.at(diff, (k[keep], first[keep]), 1)
        np.add.at(diff, (k[keep], last[keep]), -1)
        out.append(np.cumsum(diff, axis=1)[:, :nunits] > 0)
    return out[0], out[1]


class _SealPrep:
    """The two frames of a map: ``x`` major (columns) and ``y`` major (rows)."""

    def __init__(self, bmap: BattleMap):
        solid = np.asarray(bmap.squares) == SOLID
        vert, horiz = _walled_edges(bmap)
        self.frames = (_Frame(solid.T, vert), _Frame(solid, horiz))
        self.size = (bmap.width, bmap.height)


def _seal_prep(bmap: BattleMap) -> _SealPrep:
    """Cached alongside the trace kernel's tables (rebuilt with them)."""
    return prep_for(bmap).derived("seal", lambda: _SealPrep(bmap))


# ------------------------------------------------------------------ public
def sealed(bmap: BattleMap, rect_a: np.ndarray, rect_b: np.ndarray) -> np.ndarray:
    """Per pair of spaces, whether every segment between them is proved stopped.

    Parameters
    ----------
    bmap : BattleMap
    rect_a, rect_b : array_like, shape (N, 4)
        Closed spaces ``[x0, y0, x1, y1]`` in squares, on whole squares
        inside the map (other rows are never proved).

    Returns
    -------
    ndarray of bool, shape (N,)
        True: total cover between the two spaces (no line of effect).  False:
        not proved (the exact search decides); always so on maps of more
        than :data:`MAX_PROOF_SQUARES` squares.

    Examples
    --------
    ::

        . . # . .
        A . # . B      solid squares from edge to edge: sealed
        . . # . .      with the bottom one gone, a line gets round:
                       not proved (and in fact open)

    >>> m = BattleMap.build(5, 3, squares=["..#..", "..#..", "..#.."])
    >>> sealed(m, [[0, 1, 1, 2]], [[4, 1, 5, 2]]).tolist()
    [True]
    >>> m = BattleMap.build(5, 3, squares=["..#..", "..#..", "....."])
    >>> sealed(m, [[0, 1, 1, 2]], [[4, 1, 5, 2]]).tolist()
    [False]
    """
    a = np.asarray(rect_a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(rect_b, dtype=np.float64).reshape(-1, 4)
    if a.shape != b.shape:
        raise ValueError(f"rect_a and rect_b must have the same shape, not {a.shape} and {b.shape}")
    out = np.zeros(len(a), dtype=bool)
    if not len(a):
        return out
    if len(a) > PAIRS_PER_PASS:  # bounded memory, however many pairs
        for s in range(0, len(a), PAIRS_PER_PASS):
            out[s:s + PAIRS_PER_PASS] = sealed(bmap, a[s:s + PAIRS_PER_PASS],
                                               b[s:s + PAIRS_PER_PASS])
        return out
    if bmap.width * bmap.height > MAX_PROOF_SQUARES:
        return out
    sp = _seal_prep(bmap)
    gap_x = np.maximum(b[:, 0] - a[:, 2], a[:, 0] - b[:, 2])
    gap_y = np.maximum(b[:, 1] - a[:, 3], a[:, 1] - b[:, 3])
    # spaces on whole squares inside the map (anything else: not proved)
    w, h = sp.size
    whole = np.ones(len(a), dtype=bool)
    for r in (a, b):
        whole &= (np.floor(r) == r).all(axis=1) & (r[:, 0] >= 0) & (r[:, 1] >= 0) & \
            (r[:, 2] <= w) & (r[:, 3] <= h) & (r[:, 0] < r[:, 2]) & (r[:, 1] < r[:, 3])
    # first along the axis of the larger gap, then the other one if apart along it too
    for second in (False, True):
        for axis, frame in enumerate(sp.frames):
            # equal gaps: both axes come first (the answer keeps the map's symmetries)
            mine = (gap_x >= gap_y) if axis == 0 else (gap_y >= gap_x)
            if second:
                mine = ~mine & ((gap_y if axis == 1 else gap_x) >= 1)
            todo = np.flatnonzero(mine & whole & ~out & (np.maximum(gap_x, gap_y) >= 1))
            if len(todo):
                out[todo] = _sealed_in_frame(frame, sp.size[1 - axis], a[todo], b[todo], axis,
                                             max_cells=SECOND_CELLS if second else None)
    return out


def sealed_pairs(bmap: BattleMap, attackers: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """:func:`sealed` for pairs of creatures given by their indices in ``bmap.creatures``."""
    rects = prep_for(bmap).rects / S  # cached with the map's tables, in squares
    return sealed(bmap, rects[np.asarray(attackers, dtype=np.int64)],
                  rects[np.asarray(targets, dtype=np.int64)])


# --------------------------------------------------------------- the proof
def _sealed_in_frame(frame: _Frame, n_minor: int, a: np.ndarray, b: np.ndarray,
                     axis: int, *, max_cells: int | None = None) -> np.ndarray:
    """:func:`sealed` for pairs that are apart along ``axis`` (0: x, 1: y);
    with ``max_cells``, pairs needing more starting cells are not tried."""
    if axis == 1:  # swap to (major, minor) coordinates
        a, b = a[:, [1, 0, 3, 2]], b[:, [1, 0, 3, 2]]
    swap = a[:, 0] > b[:, 0]
    a, b = np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)
    umin, umax, vmin, vmax = _line_box(a, b, n_minor)
    x0, span = a[:, 2], b[:, 0] - a[:, 2]
    # starting cells: at most 1/2 square on a side
    nu = np.maximum(np.ceil((umax - umin) * 2), 1).astype(np.int64)
    nv = np.maximum(np.ceil((vmax - vmin) * 2), 1).astype(np.int64)
    per = nu * nv
    if max_cells is not None:
        per[per > max_cells] = 0
    pair = np.repeat(np.arange(len(a)), per)
    k = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    hu = ((umax - umin) / nu)[pair]
    hv = ((vmax - vmin) / nv)[pair]
    cu = umin[pair] + (k // nv[pair]) * hu
    cv = vmin[pair] + (k % nv[pair]) * hv
    pad = 1e-9 * max(n_minor, float(b[:, 2].max()), 1.0)
    alive = per > 0
    for level in range(MAX_LEVEL + 1):
        ok = _cells_proved(frame, x0[pair], span[pair], cu, cv, hu, hv, pad)
        pair, cu, cv, hu, hv = pair[~ok], cu[~ok], cv[~ok], hu[~ok], hv[~ok]
        if not len(pair):
            break
        left = np.bincount(pair, minlength=len(a))
        alive &= left <= (0 if level == MAX_LEVEL else np.maximum(per, MAX_OPEN_CELLS))
        keep = alive[pair]
        pair, cu, cv, hu, hv = pair[keep], cu[keep], cv[keep], hu[keep], hv[keep]
        if level == MAX_LEVEL or not len(pair):
            break
        # cut every open cell in four
        hu, hv = np.repeat(hu / 2, 4), np.repeat(hv / 2, 4)
        quarter = np.tile(np.arange(4), len(pair))
        cu = np.repeat(cu, 4) + (quarter // 2) * hu
        cv = np.repeat(cv, 4) + (quarter % 2) * hv
        pair = np.repeat(pair, 4)
    return alive


def _line_box(a: np.ndarray, b: np.ndarray, n_minor: int):
    """Bounds of the heights ``u = y(X0)`` and ``v = y(X1)`` of every segment
    from space ``a`` to space ``b`` (major coordinates of ``a`` before ``b``).

    A segment from ``P`` in A to ``Q`` in B meets ``x = X0`` at
    ``u = (1 - l) Py + l Qy`` with ``0 <= l <= (X0 - a.x0) / (X1 - a.x0)``,
    and ``x = X1`` likewise; segments lie within the map, ``0 <= y <= n``.
    """
    lam = (a[:, 2] - a[:, 0]) / (b[:, 0] - a[:, 0])
    mu = (b[:, 2] - b[:, 0]) / (b[:, 2] - a[:, 2])
    umin = np.minimum(a[:, 1], a[:, 1] + lam * (b[:, 1] - a[:, 1]))
    umax = np.maximum(a[:, 3], a[:, 3] + lam * (b[:, 3] - a[:, 3]))
    vmin = np.minimum(b[:, 1], b[:, 1] + mu * (a[:, 1] - b[:, 1]))
    vmax = np.maximum(b[:, 3], b[:, 3] + mu * (a[:, 3] - b[:, 3]))
    return (np.clip(umin, 0, n_minor), np.clip(umax, 0, n_minor),
            np.clip(vmin, 0, n_minor), np.clip(vmax, 0, n_minor))


def _cells_proved(frame: _Frame, x0: np.ndarray, span: np.ndarray, cu: np.ndarray,
                  cv: np.ndarray, hu: np.ndarray, hv: np.ndarray, pad: float) -> np.ndarray:
    """Whether some slice strictly between the spaces stops every line of each cell.

    Cell ``i`` holds the lines with ``u`` in ``[cu, cu + hu]`` and ``v`` in
    ``[cv, cv + hv]``; the pair's gap runs from ``x0`` to ``x0 + span``.
    Its slices are the ``span`` column centres and the ``span - 1`` grid
    lines inside the gap, slice ``j`` at ``x0 + (j + 1) / 2``: its index in
    the frame's interleaved tables is ``2 * x0 + j + 1``.  The slices are
    tried :data:`WINDOW` at a time, and a cell leaves once one proves it
    (most are proved within a few windows).
    """
    out = np.zeros(len(cu), dtype=bool)
    count = (2 * span - 1).astype(np.int64)
    first = (2 * x0 + 1).astype(np.int64)
    # the heights at slice j are lo0 + j * dlo and hi0 + j * dhi
    step = 0.5 / span
    lo0 = cu - pad
    dlo = (cv - cu) * step
    hi0 = cu + hu + pad
    dhi = ((cv + hv) - (cu + hu)) * step
    live = np.arange(len(cu))
    w = np.arange(1, WINDOW + 1, dtype=np.float64)
    n = frame.n
    for j0 in range(0, int(count.max()) if len(count) else 0, WINDOW):
        if not len(live):
            break
        j = j0 + w  # (WINDOW,) slice numbers + 1
        lo = lo0[live, None] + dlo[live, None] * j
        hi = hi0[live, None] + dhi[live, None] * j
        row = np.floor(lo)
        np.clip(row, 0, n - 1, out=row)
        r = row.astype(np.int64)
        idx = (first[live, None] + (j0 - 1 + w).astype(np.int64)) * n + r
        inside = j <= count[live, None]
        np.minimum(idx, frame.last, out=idx)
        # inside the open run holding unit r: it ends above hi, and it starts
        # below lo (lo is past r, or unit r - 1 belongs to the run too)
        before = np.where(r > 0, frame.end.take(np.maximum(idx - 1, 0)), -1)
        hit = (hi < frame.end.take(idx)) & ((lo > row) | (before >= 0)) & inside
        done = hit.any(axis=1)
        out[live[done]] = True
        live = live[~done & (count[live] > j0 + WINDOW)]
    return out
