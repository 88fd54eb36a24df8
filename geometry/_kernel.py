"""The vectorised trace kernel (SPEC section 3), in exact integer arithmetic.

Coordinates are int64 in units of 1/1024 square.  For one chunk of lines:

1. **Grid crossings.**  In a frame where the line runs along +u, +v with
   du >= dv >= 0 (mirrored, and the axes of steep lines swapped), column j
   of a line lies between its u-grid-line crossings j and j + 1; with slope
   at most 1 a column holds one or two squares, so each column gives two
   *slots*: the u-crossing entering it and the v-crossing inside it, if any.
   The valid slots, in slot order, are the line's crossings in parameter
   order: no ranks, no sorting.  Rows come from one division per column
   (``v * du`` is a per-line linear form in the column index, made as a
   running sum), done in float64 where a bound proves its floor exact, and
   each slot's square is a flat index into a padded byte grid of packed
   flags (solid, low, creature, off-grid wall, four walled edges).  Only a
   few passes run over all columns (rows, flat indices, the two flag
   gathers, the candidate points); a slot is then named by its column and
   x/y, and only slots whose square has flags get further arrays.  All
   parameters of a line are integers over one denominator
   ``D = |dx| * |dy|`` (zeros read as 1), so they compare exactly.
2. **Stretches.**  On an open stretch between crossings the line lies in one
   square's open interior, or runs along a grid line between two squares (a
   seam); the gathered flags decide it at once.
3. **Points.**  Only some points can add anything: vertices the line passes
   through, crossings of walled grid edges, the attached ends, and points on
   off-grid ("free") walls, found through per-square buckets and intersected
   exactly with Python integers.  The common cases are settled directly,
   without their positions: a crossing of an edge whose one wall runs on
   past the point both ways, and a vertex crossed diagonally, or along a
   seam, with no wall at it (only its four squares decide).  The rest are
   merged by exact parameter and get the full two-sided rule: every
   square, creature and wall direction at the point is tested against the
   two sides (half-planes, or at attached ends the angular arcs) with the
   exact predicates of :mod:`._arcs`.
4. **Blockers.**  Each piece is kept once at its least parameter and sorted
   by (t, kind, ref), through an exact integer key made with each row.  Most
   rows (squares a stretch enters, simple walled crossings, side squares of
   diagonal simple vertices) cannot repeat a piece, so only lines with other
   rows are searched for repeats.

Modes: ``blockers=False`` skips the blocker rows; ``stopped_only=True``
traces a window of columns of every line at a time and drops each line at
the first window where it is stopped.
"""

from __future__ import annotations

import math

import numpy as np

from lineoffire.maps.model import BattleMap

from . import _arcs as A
from ._prep import BLK, CRE, LOWC, SLT, S, Prep, prep_for
from .types import (
    CREATURE_K,
    LOW_K,
    REF_CREATURE,
    REF_SQUARE,
    REF_WALL,
    SOLID_K,
    TraceBatch,
)

CHUNK = 4096
# Lines per chunk in the stopped-only mode: its windows hold a few columns of
# each line, so bigger chunks cost little memory and save per-call overhead.
STOPPED_CHUNK = 16384

# point-event types
INTERIOR, START, END, TOUCH = 0, 1, 2, 3


def _key_shift(D) -> int:
    """Bits for ``floor(t * D)`` in the row keys ``(line << shift) + floor(t * D)``.

    ``D <= (w * 1024) * (h * 1024) < 2**47`` on any map the model accepts
    (at most 10**8 squares), so with at most 2**15 lines a chunk the keys fit
    in an int64.
    """
    shift = max(int(D.max()).bit_length(), 1) if len(D) else 1
    if shift + max(len(D), 1).bit_length() > 62:
        raise ValueError(f"segments too long for exact keys: D has {shift} bits for "
                         f"{len(D)} lines")
    return shift


def _ceil_div(a, b):
    return -((-a) // b)


class _Rows:
    """Accumulates blocker rows: sort key, t, kind, ref type, ref0, ref1 (kind
    and ref type as int8).

    A row's key is ``(line << shift) + floor(t * D)`` with ``D`` its line's
    common denominator (``shift`` from :func:`_key_shift`), exact for every grid event (see :func:`_finish`);
    rows at ``N / D`` get the key and ``t`` at once, without a division by an
    arbitrary denominator.

    Rows added with ``unique=True`` list pieces that no other row of their
    line lists (each square a stretch enters, each grid wall crossed at one
    simple crossing, each side square of a simple vertex: a line meets such a
    square or wall segment at one stretch or point only); :func:`_finish`
    looks for repeated pieces only in lines that have other rows.
    """

    def __init__(self, D, shift: int, keep: bool = True):
        self.D = D
        self.shift = shift
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.shared: list[np.ndarray] = []
        self.keep = keep

    def add(self, line, N, kind, rtype, r0, r1, unique=False):
        """Rows of lines ``line`` at t = N / D."""
        if len(line) == 0 or not self.keep:
            return
        self.add_keyed((line << self.shift) + N, N / self.D[line], kind, rtype, r0, r1, unique,
                       line)

    def add_frac(self, line, tn, td, kind, rtype, r0, r1):
        """Rows at t = tn / td (reduced; td divides D except at points on
        off-grid walls, whose keys are floored with Python integers)."""
        if len(line) == 0 or not self.keep:
            return
        Dl = self.D[line]
        scale, rem = np.divmod(Dl, td)
        N = tn * scale
        odd = np.flatnonzero(rem != 0)
        if len(odd):
            N[odd] = [a * b // c for a, b, c in zip(tn[odd].tolist(), Dl[odd].tolist(),
                                                      td[odd].tolist())]
        self.add_keyed((line << self.shift) + N, tn / td, kind, rtype, r0, r1, False, line)

    def add_keyed(self, key, t, kind, rtype, r0, r1, unique=False, line=None):
        """Rows with their keys and t already made (``line`` needed unless
        unique); the other columns may be scalars."""
        if len(key) == 0 or not self.keep:
            return
        self.parts.append((key, t, kind, rtype, r0, r1))
        if not unique:
            self.shared.append(line)

    def arrays(self):
        """The six row columns, and the lines of the rows not added as unique."""
        if not self.parts:
            z = np.zeros(0, np.int64)
            return [z, np.zeros(0), z.astype(np.int8), z.astype(np.int8), z, z, z]
        key = np.concatenate([p[0] for p in self.parts])
        t = np.concatenate([p[1] for p in self.parts])
        cols = _fill_cols([p[2:] for p in self.parts], [len(p[0]) for p in self.parts],
                          [np.int8, np.int8, np.int64, np.int64])
        shared = np.concatenate(self.shared) if self.shared else np.zeros(0, np.int64)
        return [key, t] + cols + [shared]


def _fill_cols(parts, lengths, dtypes):
    """The columns of ``parts`` (tuples of arrays or scalars, part i of
    ``lengths[i]`` rows) stacked, as arrays of ``dtypes``.  (Filling slices is
    cheaper than np.broadcast_to and np.concatenate for many small parts.)"""
    n = sum(lengths)
    cols = [np.empty(n, d) for d in dtypes]
    a = 0
    for p, m in zip(parts, lengths):
        for col, v in zip(cols, p):
            col[a:a + m] = v
        a += m
    return cols


def trace_units(bmap: BattleMap, units: np.ndarray, att: np.ndarray, tgt: np.ndarray, *,
                ignore_dead: bool = False, ignore_prone: bool = False,
                chunk: int | None = None, blockers: bool = True,
                stopped_only: bool = False, window: int = 12) -> TraceBatch:
    """Trace ``units`` (N x 4 int64, 1/1024 squares) and return a TraceBatch.

    With ``blockers=False`` only the per-line flags (stopped, slit, low) are
    computed and every blocker list is empty.  With ``stopped_only=True``
    only ``stopped`` is computed (``slit`` and ``low`` are left False), and
    lines are traced ``window`` columns at a time, each line dropping out at
    the first window where it is stopped.  ``chunk``: lines traced together
    (default ``CHUNK``, or ``STOPPED_CHUNK`` in the stopped-only mode).
    """
    if stopped_only:
        return _stopped_only(bmap, units, att, tgt, ignore_dead=ignore_dead,
                             ignore_prone=ignore_prone, window=window,
                             chunk=STOPPED_CHUNK if chunk is None else chunk)
    chunk = CHUNK if chunk is None else chunk
    prep = prep_for(bmap)
    ignore = np.zeros(max(len(bmap.creatures), 1), dtype=bool)
    if ignore_dead:
        ignore |= prep.dead
    if ignore_prone:
        ignore |= prep.prone
    n = len(units)
    stopped = np.zeros(n, bool)
    slit = np.zeros(n, bool)
    low = np.zeros(n, bool)
    counts = np.zeros(n, np.int64)
    cols: list[list[np.ndarray]] = [[] for _ in range(5)]
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        res = _trace_chunk(prep, units[a:b], att[a:b], tgt[a:b], ignore, blockers)[:4]
        stopped[a:b], slit[a:b], low[a:b] = res[0], res[1], res[2]
        line, t, kind, rtype, r0, r1 = res[3]
        counts[a:b] = np.bincount(line, minlength=b - a)
        for k, arr in enumerate((t, kind.astype(np.int8), rtype.astype(np.int8), r0, r1)):
            cols[k].append(arr)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    cat = [np.concatenate(c) if c else np.zeros(0) for c in cols]
    return TraceBatch(
        stopped=stopped, slit=slit, low=low, offsets=offsets,
        kind=cat[1].astype(np.int8, copy=False), t=cat[0].astype(np.float64, copy=False),
        ref0=cat[3].astype(np.int64, copy=False), ref1=cat[4].astype(np.int64, copy=False),
        ref_type=cat[2].astype(np.int8, copy=False),
        creature_ids=[c.id for c in bmap.creatures],
    )


def _stopped_only(bmap, units, att, tgt, *, ignore_dead, ignore_prone, chunk, window):
    """``stopped`` of every line, tracing window by window with early exit."""
    prep = prep_for(bmap)
    ignore = np.zeros(max(len(bmap.creatures), 1), dtype=bool)
    n = len(units)
    stopped = np.zeros(n, bool)
    for a in range(0, n, chunk):
        active = np.arange(a, min(n, a + chunk))
        ka = np.zeros(len(active), np.int64)
        while len(active):
            res = _trace_chunk(prep, units[active], att[active], tgt[active], ignore, False,
                               window=(ka, ka + window), blocking_only=True)
            hit = res[0]
            stopped[active[hit]] = True
            go = ~hit & ~res[4]
            active, ka = active[go], ka[go] + window
    z = np.zeros(0, np.int64)
    return TraceBatch(
        stopped=stopped, slit=np.zeros(n, bool), low=np.zeros(n, bool),
        offsets=np.zeros(n + 1, np.int64), kind=z.astype(np.int8), t=np.zeros(0),
        ref0=z, ref1=z, ref_type=z.astype(np.int8),
        creature_ids=[c.id for c in bmap.creatures],
    )


# --------------------------------------------------------------------------
def _trace_chunk(prep: Prep, seg, att, tgt, ignore, want_blockers=True, window=None,
                 blocking_only=False):
    """Trace one chunk.  ``window = (ka, kb)`` (per-line arrays) limits the
    work to the columns ``ka <= k < kb`` (see below) and, unless ``ka`` is 0,
    leaves out the attached ends; it also returns whether each line is done.
    ``blocking_only`` asks about the blocking class alone (only ``stopped``
    is then right): points are looked at only where solid squares, off-grid
    walls or walled edges are (not low squares, not creatures)."""
    relevant = 0xF9 if blocking_only else 0xFF
    n = len(seg)
    px, py, qx, qy = (seg[:, k].astype(np.int64) for k in range(4))
    dx, dy = qx - px, qy - py
    zero = (dx == 0) & (dy == 0)
    sx = np.where(dx < 0, -1, 1)
    sy = np.where(dy < 0, -1, 1)
    mpx, mpy, mqx, mqy = sx * px, sy * py, sx * qx, sy * qy
    mdx, mdy = np.abs(dx), np.abs(dy)
    Dx = np.where(mdx > 0, mdx, 1)
    Dy = np.where(mdy > 0, mdy, 1)
    D = Dx * Dy
    big = np.int64(1) << 62

    # ---- attachments: N0 = where the line leaves the attacker, N1 = enters target
    rects = prep.rects
    N0 = np.zeros(n, np.int64)
    N1 = D.copy()
    start_att = np.zeros(n, bool)
    end_att = np.zeros(n, bool)
    if len(rects):
        ra = np.take(rects, np.maximum(att, 0), axis=0)
        start_att = (att >= 0) & ~zero & (px >= ra[:, 0]) & (px <= ra[:, 2]) & \
            (py >= ra[:, 1]) & (py <= ra[:, 3])
        mx1 = np.where(sx > 0, ra[:, 2], -ra[:, 0])
        my1 = np.where(sy > 0, ra[:, 3], -ra[:, 1])
        nx_exit = np.where(mdx > 0, (mx1 - mpx) * Dy, big)
        ny_exit = np.where(mdy > 0, (my1 - mpy) * Dx, big)
        N0 = np.where(start_att, np.minimum(np.minimum(nx_exit, ny_exit), D), 0)
        rt = np.take(rects, np.maximum(tgt, 0), axis=0)
        end_att = (tgt >= 0) & ~zero & (qx >= rt[:, 0]) & (qx <= rt[:, 2]) & \
            (qy >= rt[:, 1]) & (qy <= rt[:, 3])
        mx0 = np.where(sx > 0, rt[:, 0], -rt[:, 2])
        my0 = np.where(sy > 0, rt[:, 1], -rt[:, 3])
        nx_ent = np.where(mdx > 0, (mx0 - mpx) * Dy, -big)
        ny_ent = np.where(mdy > 0, (my0 - mpy) * Dx, -big)
        N1 = np.where(end_att, np.maximum(np.maximum(nx_ent, ny_ent), 0), D)
    touch = start_att & end_att & (N0 == N1) & ~zero
    empty = zero | (N0 > N1) | ((N0 == N1) & ~touch)

    # ---- grid crossings, in a frame where the line runs along +u, +v with
    # du >= dv >= 0 (mirror, then swap the axes of steep lines).  Column j of
    # a line lies between u-grid-line crossings j and j + 1 (crossing 0 is P,
    # crossing nu + 1 is Q); with |slope| <= 1 a column holds one or two
    # squares, so each column gives two *slots*: the u-crossing that enters
    # it and the v-crossing inside it, if any.  Valid slots in slot order are
    # the line's events in parameter order, no sorting needed; the interval
    # after each slot is its square.  Arrays over all points are few and
    # cheap; a slot gets arrays of its own only when its square has flags.
    shift = _key_shift(D)
    rows = _Rows(D, shift, want_blockers)
    line_stop = np.zeros(n, bool)
    line_slit = np.zeros(n, bool)
    line_low = np.zeros(n, bool)
    W2 = prep.w + 2
    steep = mdy > mdx
    pu = np.where(steep, mpy, mpx)
    pv = np.where(steep, mpx, mpy)
    qu = np.where(steep, mqy, mqx)
    qv = np.where(steep, mqx, mqy)
    du = qu - pu
    dv = qv - pv
    dvp = np.where(dv > 0, dv, 1)
    fu = pu // S
    nu = np.where(empty, -1, np.maximum(_ceil_div(qu, S) - fu - 1, 0))
    # points k = 0 (P), 1..nu (crossings), nu + 1 (Q); none when empty.  A
    # window takes the points ka..ke (ke = min(kb, nu + 1)) and the slots of ka..ke-1.
    if window is None:
        ka = np.zeros(n, np.int64)
        ke = nu + 1
    else:
        ka = window[0]
        ke = np.minimum(window[1], nu + 1)
    M = np.where(empty | (ka >= ke), 0, ke - ka + 1)
    moff = np.zeros(n + 1, np.int64)
    np.cumsum(M, out=moff[1:])
    total = int(moff[-1])
    el = np.repeat(np.arange(n), M)  # the line of each point
    has = M > 0
    hl = np.flatnonzero(has)
    start = moff[:-1]  # where each line's points begin (at k = ka)
    k0 = start - ka  # point p of line l has k = p - k0[l]
    # v * du at u-grid line U = (fu + k) S is A + k B, per line constants.
    # Per-line linear forms in k are running sums of their slope, restarted at
    # each line's first point (int64 sums wrap, but every value they end at is
    # exact): one repeat and one cumsum, no array of k.
    A_ = pv * du + (fu * S - pu) * dv
    B_ = S * dv
    Vn = _linear_runs(A_, B_, M, ka, ke, start, hl)
    # the end points P (k = 0) and Q (k = nu + 1) are not on u-grid lines
    at_p = has & (ka == 0)
    first_pos = start[at_p]
    Vn[first_pos] = (pv * du)[at_p]
    lastq = has & (ke == nu + 1)
    Vn[moff[1:][lastq] - 1] = (qv * du)[lastq]
    last_pos = moff[1:][has] - 1  # the window's last point has no slots of its own
    # the row of the square after each point, floor(Vn / (S du)), and whether
    # the point is a vertex (the quotient is whole)
    ra, vert = _floor_div_runs(Vn, S * du, M, np.maximum(np.abs(pv), np.abs(qv)), hl)
    # column k has a y-slot iff the row before point k + 1 exceeds the row after
    # point k (before a vertex crossed diagonally, the row before is ra - 1)
    rb = ra - (vert & np.repeat(dv > 0, M))
    has_y = np.empty(total, bool)
    np.greater(rb[1:], ra[:-1], out=has_y[:-1])
    has_y[last_pos] = False
    del rb

    # Flat index in the padded flag grid of the square after each point's
    # x-slot, F0 + Fu k + Fv ra; a y-slot's square is one row further along v.
    # A slot is named by its point p and y (0 for the x-slot, 1 for the y-slot).
    cu_o = np.where(steep, sy, sx)  # original axis signs of u and v
    cv_o = np.where(steep, sx, sy)
    stride_u = np.where(steep, W2, 1) * cu_o
    stride_v = np.where(steep, 1, W2) * cv_o
    base = W2 + 1 + np.where(cu_o < 0, -1, 0) * np.where(steep, W2, 1) + \
        np.where(cv_o < 0, -1, 0) * np.where(steep, 1, W2)
    flat_el = _linear_runs(base + stride_u * fu, stride_u, M, ka, ke, start, hl)
    sv_el = np.repeat(stride_v, M)
    flat_el += ra * sv_el
    pf = prep.pflags.ravel()
    # packed flags of the squares after the x-slots (fx) and the y-slots (fy),
    # 0 where there is no such slot (the squares after a window's last point
    # may lie off the padded grid: clipped, then zeroed)
    fx = np.take(pf, flat_el, mode="clip")
    fx[last_pos] = 0
    sv_el += flat_el
    fy = np.take(pf, sv_el, mode="clip")
    fy *= has_y
    # (sv_el stays: the flat indices of the y-slots' squares)

    # Parameter numerators over D, from per-line constants: the x-slot of
    # point p (k = p - k0 > 0) is at ((fu + k) S - pu) dvp = X0 + p XS, the
    # y-slot of point p at ((ra + 1) S - pv) du = ra YS + Y1 (int64 wraps;
    # the values are exact, as when computed term by term).
    XS = S * dvp
    X0 = (fu * S - pu) * dvp - k0 * XS
    YS = S * du
    Y1 = YS - pv * du

    def x_numerators(p, li):
        """Numerators of the x-slots of points ``p`` of lines ``li`` (0 at P)."""
        N = X0[li] + p * XS[li]
        N[p == k0[li]] = 0
        return N

    def y_numerators(p, li):
        """Numerators of the y-slots of points ``p`` of lines ``li``."""
        return ra[p] * YS[li] + Y1[li]

    # Stretches that can add anything: the square after the slot is solid,
    # low, holds a creature or meets a free wall; on a seam also the square
    # across the seam, one step back along v (seam lines have dv = 0: x-slots
    # only).  (nonzero of bool arrays is several times faster than of uint8.)
    hx = (fx & 15) != 0
    line_seam = (dv == 0) & (pv % S == 0) & has
    any_seam = bool(line_seam.any())
    if any_seam:
        sm = np.flatnonzero(line_seam)
        cnt = M[sm] - 1
        sp = np.repeat(moff[sm] - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        hx[sp] |= (pf[flat_el[sp] - np.repeat(stride_v[sm], cnt)] & 15) != 0
    selx = np.flatnonzero(hx)
    sely = np.flatnonzero((fy & 15) != 0)
    del hx
    # the stretches after the x-slots selx, then after the y-slots sely (their
    # order does not matter: rows are sorted exactly in _finish): line, flags
    # and flat index of the square, and (if wanted) the start parameter
    lx, ly = el[selx], el[sely]
    il = np.concatenate([lx, ly])
    fB = np.concatenate([fx[selx], fy[sely]])
    flat = np.concatenate([flat_el[selx], sv_el[sely]])
    attached = bool((start_att | end_att).any())
    # the stretches' parameters are needed only for blocker rows and attached ends
    i_start = np.concatenate([x_numerators(selx, lx), y_numerators(sely, ly)]) \
        if want_blockers or attached else None
    if attached:
        inside = (i_start >= N0[il]) & (i_start < N1[il])
        il, fB, flat, i_start = (a[inside] for a in (il, fB, flat, i_start))

    # Points that need the two-sided rule: crossings of walled grid edges
    # (the entry edge bit of the square after the slot) and vertices, not at
    # P, and strictly inside the traced part.
    entry_bit_x = np.where(steep, np.where(sy > 0, 64, 128), np.where(sx > 0, 16, 32))
    entry_bit_y = np.where(steep, np.where(sx > 0, 16, 32), np.where(sy > 0, 64, 128))
    cand = (fx & np.repeat(entry_bit_x.astype(np.uint8), M)) != 0
    cand |= vert
    cand[first_pos] = False
    cand[last_pos] = False
    cx = np.flatnonzero(cand)
    del cand
    wy = np.flatnonzero((fy & np.repeat(entry_bit_y.astype(np.uint8), M)) != 0)
    pe = np.concatenate([cx, wy])
    ye = np.zeros(len(pe), bool)
    ye[len(cx):] = True
    lcx, lwy = el[cx], el[wy]
    el_ = np.concatenate([lcx, lwy])
    N_ = np.concatenate([x_numerators(cx, lcx), y_numerators(wy, lwy)])
    flat_e = np.concatenate([flat_el[cx], sv_el[wy]])  # the square after each
    if attached:
        inside = (N_ > N0[el_]) & (N_ < N1[el_])
        pe, ye, el_, N_, flat_e = (a[inside] for a in (pe, ye, el_, N_, flat_e))

    def position(i):
        """Exact positions (xn, yn) / pd of the candidates ``i``."""
        p, li, y = pe[i], el_[i], ye[i]
        pd = np.where(y, dvp[li], du[li])
        Vy = (ra[p] + 1) * S  # a y-slot's v-grid line
        # in the frame: (u, v) = (un, vn) / pd
        un = np.where(y, pu[li] * dv[li] + (Vy - pv[li]) * du[li],
                      (fu[li] + p - k0[li]) * S * du[li])
        vn = np.where(y, Vy * dv[li], Vn[p])
        st = steep[li]
        return sx[li] * np.where(st, vn, un), sy[li] * np.where(st, un, vn), pd

    pts = _Points()
    if len(pe):
        vert_e = vert[pe]
        keep = np.ones(len(pe), bool)
        # The common case needs no general point: a crossing (not a vertex) of a
        # grid edge carrying exactly one wall that runs on past the point both
        # ways, with no off-grid wall in the two squares.  That wall closes
        # both sides; the squares either side close both sides only if solid.
        ci = np.flatnonzero(ye | ~vert_e)  # the crossings (not vertices)
        yc, lc, fc = ye[ci], el_[ci], flat_e[ci]
        f_after = np.where(yc, fy[pe[ci]], fx[pe[ci]])
        f_before = pf[fc - np.where(yc, stride_v[lc], stride_u[lc])]
        ok = np.flatnonzero(((f_after | f_before) & 8) == 0)
        if len(ok):
            ci, yc, lc, fc, f_after, f_before = (
                a[ok] for a in (ci, yc, lc, fc, f_after, f_before))
            # the crossing lies on the edge the line enters the square after
            # through: on a vertical grid line, the left edge of square (c, r)
            # (line c, unit edge r) or, moving towards -x, its right edge
            # (line c + 1); likewise on a horizontal one
            on_x = yc == steep[lc]
            c, r = _cr(fc, W2)
            gline = np.where(on_x, c + (sx[lc] < 0), r + (sy[lc] < 0))
            unit = np.where(on_x, r, c)
            si, j, stop_e, slit_e, low_e = _simple_crossings(
                prep, on_x, gline, unit, f_after, f_before, lambda i: position(ci[i]))
            ls = lc[si]
            line_stop[ls[stop_e]] = True
            line_slit[ls[slit_e]] = True
            line_low[ls[low_e]] = True
            if want_blockers:
                row = np.flatnonzero(stop_e | slit_e | low_e)
                wsg = np.take(prep.wall_seg, j[row], axis=0)
                rows.add(ls[row], N_[ci[si[row]]], wsg[:, 5], REF_WALL, wsg[:, 6], wsg[:, 7],
                         unique=True)
            keep[ci[si]] = False
        # Likewise a vertex crossed diagonally with no wall on any of its four
        # edges and no off-grid wall in its four squares: only the squares
        # decide; and the same on a seam line, with no wall across the line.
        vxe = ~ye & vert_e
        diag = dv[el_] > 0
        for vx, seam_line in ((np.flatnonzero(vxe & diag), False),
                              (np.flatnonzero(vxe & ~diag), True)):
            if len(vx):
                lv = el_[vx]
                entry = entry_bit_x[lv] if seam_line else (entry_bit_x | entry_bit_y)[lv]
                settle = _simple_seam_vertices if seam_line else _simple_vertices
                keep[vx[settle(prep, lv, N_[vx], flat_e[vx], stride_u[lv], stride_v[lv],
                               entry, att, tgt, ignore, rows, line_stop, line_low,
                               want_blockers)]] = False
        # the rest get the general rule, at their exact positions
        rest = np.flatnonzero(keep)
        xn, yn, pd = position(rest)
        el_, N_ = el_[rest], N_[rest]
        # a point with nothing in or on the squares around it cannot close the line
        gi, gj = xn // (S * pd) + 1, yn // (S * pd) + 1
        pf2 = prep.pflags
        near = pf2[gj - 1, gi - 1] | pf2[gj - 1, gi] | pf2[gj, gi - 1] | pf2[gj, gi]
        ok = (near & relevant) > 0
        pts.add(el_[ok], N_[ok], D[el_[ok]], xn[ok], yn[ok], pd[ok], 1)
    if any_seam:
        # the other side of a seam: one step back along v
        two = line_seam[il]
        on_seam = np.flatnonzero(two)
        flat_across = flat[on_seam] - stride_v[il[on_seam]]
        fA = fB.copy()
        fA[on_seam] = pf[flat_across]
    else:
        fA = fB
        two = np.zeros(len(il), bool)
    stop = (fA & fB & 1) > 0
    lowx = ~stop & ((fA & 3) > 0) & ((fB & 3) > 0)
    line_stop[il[stop]] = True
    line_low[il[lowx]] = True
    # squares (c, r) after the slots and (cA, rA) across a seam (the same
    # elsewhere), wanted for blocker rows and free-wall buckets only
    if want_blockers or len(prep.free):
        c, r = _cr(flat, W2)
        cA, rA = c, r
        if any_seam:
            cA, rA = c.copy(), r.copy()
            cA[on_seam], rA[on_seam] = _cr(flat_across, W2)
    if want_blockers:
        # keys and t of every stretch at once; its rows take subsets
        skey = (il << shift) + i_start
        st = i_start / D[il]
        for m, cc, rr in ((stop, cA, rA), (stop & two, c, r)):
            i = np.flatnonzero(m)
            rows.add_keyed(skey[i], st[i], SOLID_K, REF_SQUARE, cc[i], rr[i], unique=True)
        for m, cc, rr, ff in ((lowx, cA, rA, fA), (lowx & two, c, r, fB)):
            i = np.flatnonzero(m & ((ff & 3) == 2))
            rows.add_keyed(skey[i], st[i], LOW_K, REF_SQUARE, cc[i], rr[i], unique=True)
        # creatures on intervals: only stretches with a creature either side can pass one
        ci = np.flatnonzero(((fA | fB) & 4) != 0)
        if len(ci):
            lc = il[ci]
            crA = _creatures(prep, cA[ci], rA[ci], att[lc], tgt[lc], ignore, fA[ci])
            crB = crA if not two.any() else \
                _creatures(prep, c[ci], r[ci], att[lc], tgt[lc], ignore, fB[ci])
            passes = (crA >= 0).any(axis=0) & (crB >= 0).any(axis=0)
            kc, tc = skey[ci], st[ci]
            for cr in (crA, crB):
                for layer in cr:
                    sel = passes & (layer >= 0)
                    rows.add_keyed(kc[sel], tc[sel], CREATURE_K, REF_CREATURE, layer[sel], -1,
                                   line=lc[sel])

    # ---- point events
    # attached ends (in the first window only)
    end_cells = []
    first = ka == 0
    for Nw, on in ((N0, start_att & ~empty & first), (N1, end_att & ~empty & first)):
        li = np.nonzero(on)[0]
        xn, yn, pdd = _point_at(li, Nw, px, py, qx, qy, dx, dy, mdx, mdy, Dx, Dy, D)
        pts.add(li, Nw[li], D[li], xn, yn, pdd, 1)
        for oc in (-1, 0):
            for orr in (-1, 0):
                end_cells.append((li, _ceil_div(xn, S * pdd) + oc, _ceil_div(yn, S * pdd) + orr))
    # free walls
    free_dirs = []
    if len(prep.free):
        free_dirs = _free_wall_events(prep, pts, [(il, c, r), (il, cA, rA)] + end_cells,
                                      px, py, qx, qy, dx, dy, N0, N1, D, start_att, end_att)

    ev = pts.merge(D, shift)
    if ev is not None:
        ev["free_dirs"] = [(ev["group_of"][i], j, x, y) for i, j, x, y in free_dirs]
        _evaluate_points(prep, ev, rows, px, py, dx, dy, N0, N1, D, start_att, end_att, touch,
                         att, tgt, ignore, line_stop, line_slit, line_low, relevant=relevant)

    key, t, kind, rtype, r0, r1, shared = rows.arrays()
    done = empty | (ke >= nu + 1)
    return (line_stop, line_slit, line_low,
            _finish(prep, D, shift, key, t, kind, rtype, r0, r1, shared),
            done)


def _linear_runs(a, b, M, ka, ke, start, hl):
    """``a + k b`` (per-line int64 constants) at the points ``k = ka..ke`` of
    each line (``M`` of them, from ``start``; ``hl`` the lines that have
    any), as one array: a running sum of ``b`` that jumps at each line's first
    point.  Int64 arithmetic wraps, so every value is the exact one whenever
    that fits, as with ``a + k * b`` directly."""
    inc = np.repeat(b, M)
    if len(hl):
        first = a[hl] + ka[hl] * b[hl]
        jump = first.copy()
        jump[1:] -= (a[hl] + ke[hl] * b[hl])[:-1]  # from the previous line's last point
        inc[start[hl]] = jump
    return np.cumsum(inc, out=inc)


#: Bound on the numerators below which :func:`_floor_div_runs` divides in
#: float64 (exact there, with a factor 2 to spare); tests set it to 0 to run
#: the integer path.
FLOAT_DIV_LIMIT = 2.0 ** 52


def _floor_div_runs(num, den, M, vmax, hl):
    """``floor(num / den)`` and whether it is exact, for ``den`` a positive
    per-line int64 repeated ``M`` times; ``|num| <= vmax * den / S`` per line.

    Integer division is slow; float64 division is exact enough whenever
    ``|num| < 2**53``: ``num`` and ``den`` convert exactly, and the correctly
    rounded quotient ``x (1 + e)``, ``|e| <= 2**-53``, is off ``x`` by less
    than ``|num| 2**-53 / den < 1 / den``, while a quotient that is not whole
    lies at least ``1 / den`` from every integer.  So the float quotient has
    the same floor, and is whole exactly when ``x`` is.  The bound is checked
    (in float64, with a factor 2 to spare) and integer division used if it fails.
    """
    if len(hl) == 0 or (np.maximum(vmax[hl], S).astype(np.float64) *
                        (den[hl] // S).astype(np.float64)).max() < FLOAT_DIV_LIMIT:
        q = num.astype(np.float64)
        q /= np.repeat(den.astype(np.float64), M)
        fl = np.floor(q)
        return fl.astype(np.int64), fl == q
    d = np.repeat(den, M)
    r = num // d
    return r, num == r * d


def _simple_vertices(prep: Prep, line, t, after, su, sv, entry, att, tgt, ignore, rows,
                     line_stop, line_low, want_blockers):
    """Settle the vertices (of lines ``line``, at parameters ``t``) crossed
    diagonally that only squares touch; return the indices of those settled.

    In the frame the line enters the square ``after`` from the one diagonally
    behind it; the other two squares lie one on each side.  The blocking class
    closes the point if the squares behind or after are solid, or both side
    squares are; the low class likewise with solid-or-low squares; creatures
    likewise with their squares.

    Only walls at the vertex matter: off-grid walls meeting any of the four
    squares, and walls on the four unit edges that end at the vertex.  Those
    are the two edges the line enters ``after`` through (``entry``, its edge
    bits) and the two opposite ones it leaves the square behind through.
    """
    pf = prep.pflags.ravel()
    cells = (after - su - sv, after, after - su, after - sv)  # before, after, sides
    f = [pf[cl] for cl in cells]
    simple = np.flatnonzero((((f[0] | f[1] | f[2] | f[3]) & 8) |
                             (f[1] & entry) | (f[0] & (entry ^ 0xF0))) == 0)
    f = np.stack([fi[simple] for fi in f])
    line, t = line[simple], t[simple]
    solid = (f & 1) > 0
    lowish = (f & 3) > 0
    stop = solid[0] | solid[1] | (solid[2] & solid[3])
    low = ~stop & (lowish[0] | lowish[1] | (lowish[2] & lowish[3]))
    line_stop[line[stop]] = True
    line_low[line[low]] = True
    if not want_blockers:
        return simple
    W2 = prep.w + 2
    # the squares behind and after are listed by their own stretches (at this
    # t or before), so only the side squares can add rows here
    sides = np.stack(cells[2:])[:, simple]
    for sel, kind in ((stop & solid[2:], SOLID_K), (low & ((f[2:] & 3) == 2), LOW_K)):
        i, j = np.nonzero(sel)
        c, r = _cr(sides[i, j], W2)
        rows.add(line[j], t[j], kind, REF_SQUARE, c, r, unique=True)
    has_cre = (f & 4) > 0
    if has_cre.any():
        cre = [_creatures(prep, *_cr(cells[i][simple], W2), att[line], tgt[line], ignore, f[i])
               for i in range(4)]
        occ = [(cr >= 0).any(axis=0) for cr in cre]
        passes = occ[0] | occ[1] | (occ[2] & occ[3])
        for cr in cre[2:]:
            for layer in cr:
                sel = passes & (layer >= 0)
                rows.add(line[sel], t[sel], CREATURE_K, REF_CREATURE, layer[sel], -1)
    return simple


def _simple_seam_vertices(prep: Prep, line, t, after, su, sv, entry, att, tgt, ignore, rows,
                          line_stop, line_low, want_blockers):
    """Settle the vertices of seam lines (along a grid line) that only
    squares touch, as :func:`_simple_vertices` does for diagonal ones.

    In the frame the line runs along the grid line between the row of
    ``after`` (side S) and the row across, one step back along v (side A);
    of the four squares at the vertex two lie behind and two ahead, each
    with its cone on one side only.  A class closes a side if a square of
    that side is in it, and the point if it closes both.  Walls along the
    line count on neither side, so only the two edges across the line at the
    vertex (the edges ``entry`` that the line enters the squares ahead
    through) and off-grid walls meeting the four squares matter.  Every
    deciding square is listed (the stretches list some of them too, at this
    t or before; duplicates go in :func:`_finish`).
    """
    pf = prep.pflags.ravel()
    cells = (after, after - su, after - sv, after - su - sv)  # side S ahead, behind; side A
    f = [pf[cl] for cl in cells]
    simple = np.flatnonzero((((f[0] | f[1] | f[2] | f[3]) & 8) | ((f[0] | f[2]) & entry)) == 0)
    f = np.stack([fi[simple] for fi in f])
    line, t = line[simple], t[simple]
    solid = (f & 1) > 0
    lowish = (f & 3) > 0
    stop = (solid[0] | solid[1]) & (solid[2] | solid[3])
    low = ~stop & (lowish[0] | lowish[1]) & (lowish[2] | lowish[3])
    line_stop[line[stop]] = True
    line_low[line[low]] = True
    if not want_blockers:
        return simple
    W2 = prep.w + 2
    sq = np.stack(cells)[:, simple]
    for sel, kind in ((stop & solid, SOLID_K), (low & ((f & 3) == 2), LOW_K)):
        i, j = np.nonzero(sel)
        c, r = _cr(sq[i, j], W2)
        rows.add(line[j], t[j], kind, REF_SQUARE, c, r)
    has_cre = (f & 4) > 0
    if has_cre.any():
        cre = [_creatures(prep, *_cr(cells[i][simple], W2), att[line], tgt[line], ignore, f[i])
               for i in range(4)]
        occ = [(cr >= 0).any(axis=0) for cr in cre]
        passes = (occ[0] | occ[1]) & (occ[2] | occ[3])
        for cr in cre:
            for layer in cr:
                sel = passes & (layer >= 0)
                rows.add(line[sel], t[sel], CREATURE_K, REF_CREATURE, layer[sel], -1)
    return simple


def _cr(flat, W2):
    """(c, r) of flat indices into the padded grid.

    The row is ``flat // W2``, taken in float64: the indices are not
    negative and below 2**31 (maps hold at most 10**8 squares), so the float
    quotient truncates to the exact floor (see :func:`_floor_div_runs`);
    integer division is several times slower.
    """
    r = (flat / W2).astype(np.int64)
    c = flat - r * W2
    return c - 1, r - 1


def _simple_crossings(prep: Prep, on_x, gline, unit, f_after, f_before, position):
    """Settle the simple walled crossings among crossings of grid edges (not
    vertices, no off-grid wall in the squares either side): on a vertical
    grid line or not, its index ``gline``, the unit edge ``unit`` along it,
    flags of the squares after and before, and ``position(i)`` giving the
    exact positions of crossings ``i`` (needed only where a wall covers
    part of its unit edge).

    Returns ``(settled, wall, stopped, slit, low)``: the indices of the
    crossings settled, the wall segment of each, and what each one does.
    """
    j = np.full(len(on_x), -1, np.int64)
    for vertical, table in ((True, prep.vedge), (False, prep.hedge)):
        m = np.flatnonzero(on_x == vertical)
        ok = (gline[m] >= 0) & (gline[m] < table.nlines) & (unit[m] >= 0) & \
            (unit[m] < table.nunits)
        m = m[ok]
        j[m] = table.single[gline[m] * table.nunits + unit[m]]
    cand = np.flatnonzero(j >= 0)
    j = j[cand]
    on_x = on_x[cand]
    # (np.take gathers rows of a 2-D array several times faster than indexing)
    ws = np.take(prep.wall_seg, j, axis=0)
    lo = np.where(on_x, np.minimum(ws[:, 1], ws[:, 3]), np.minimum(ws[:, 0], ws[:, 2]))
    hi = np.where(on_x, np.maximum(ws[:, 1], ws[:, 3]), np.maximum(ws[:, 0], ws[:, 2]))
    # The crossing lies strictly inside its unit edge, so a wall covering the
    # whole unit edge runs on past it both ways; one covering part of it is
    # tested at the exact position.
    u = unit[cand] * S
    settled = (lo <= u) & (hi >= u + S)
    part = np.flatnonzero(~settled)
    if len(part):
        xn, yn, d = position(cand[part])
        pos = np.where(on_x[part], yn, xn)
        settled[part] = (lo[part] * d < pos) & (pos < hi[part] * d)
    cand, j, cls = cand[settled], j[settled], ws[settled, 4]
    solid_cells = ((f_after[cand] | f_before[cand]) & 1) > 0
    stopped = cls == BLK
    slit = (cls == SLT) & ~solid_cells
    low = (cls == LOWC) & ~solid_cells
    return cand, j, stopped, slit, low


def _flags(prep: Prep, c, r):
    """Packed flags of squares (c, r), which may lie one square off the map."""
    return prep.pflags[r + 1, c + 1]


def _creatures(prep: Prep, c, r, att, tgt, ignore, flags=None):
    """(layers, n) creature indices at squares, -1 where none or excluded."""
    if flags is None:
        flags = _flags(prep, c, r)
    out = np.full((prep.pcre.shape[0], len(c)), -1, np.int64)
    k = np.nonzero(flags & 4)[0]
    if len(k):
        got = prep.pcre[:, r[k] + 1, c[k] + 1].astype(np.int64)
        bad = (got == att[k]) | (got == tgt[k]) | ((got >= 0) & ignore[np.maximum(got, 0)])
        got[bad] = -1
        out[:, k] = got
    return out


def _point_at(li, Nw, px, py, qx, qy, dx, dy, mdx, mdy, Dx, Dy, D):
    """Exact position (xn / pd, yn / pd) of the point at parameter Nw / D of lines li."""
    N = Nw[li]
    # t = N / D; when mdx > 0: x * mdx = px * mdx + t * dx * mdx = px*mdx + N*dx/Dy
    # N is a multiple of Dy when the point is an x-crossing, of Dx when a y-crossing.
    xn = np.zeros(len(li), np.int64)
    yn = np.zeros(len(li), np.int64)
    pd = np.ones(len(li), np.int64)
    at0 = N == 0
    at1 = N == D[li]
    via_x = ~at0 & ~at1 & (N % Dy[li] == 0) & (mdx[li] > 0)
    via_y = ~at0 & ~at1 & ~via_x
    xn[at0], yn[at0] = px[li][at0], py[li][at0]
    xn[at1], yn[at1] = qx[li][at1], qy[li][at1]
    # via x: t = (N / Dy) / mdx, so p = P + (N / Dy) * d / mdx
    k = N // Dy[li]
    m = mdx[li]
    sel = via_x
    pd[sel] = m[sel]
    xn[sel] = px[li][sel] * m[sel] + k[sel] * dx[li][sel]
    yn[sel] = py[li][sel] * m[sel] + k[sel] * dy[li][sel]
    k = N // Dx[li]
    m = mdy[li]
    sel = via_y
    pd[sel] = m[sel]
    xn[sel] = px[li][sel] * m[sel] + k[sel] * dx[li][sel]
    yn[sel] = py[li][sel] * m[sel] + k[sel] * dy[li][sel]
    return xn, yn, pd


class _Points:
    """Point events before merging: line, t = tn / td, position (xn, yn) / pd."""

    def __init__(self):
        self.parts = []

    def count(self) -> int:
        return sum(len(p[0]) for p in self.parts)

    def add(self, line, tn, td, xn, yn, pd, grid):
        n = len(line)
        if n == 0:
            return
        self.parts.append([np.asarray(line, np.int64), np.asarray(tn, np.int64),
                           np.broadcast_to(np.asarray(td, np.int64), (n,)).copy(),
                           np.asarray(xn, np.int64), np.asarray(yn, np.int64),
                           np.asarray(pd, np.int64), np.full(n, grid, bool)])

    def merge(self, D, shift: int):
        if not self.parts:
            return None
        cat = [np.concatenate([p[k] for p in self.parts]) for k in range(7)]
        line, tn, td, xn, yn, pd, grid = cat
        g = np.gcd(tn, td)
        g[g == 0] = 1
        tn, td = tn // g, td // g
        # Grid points (added first) have td dividing their line's D, so
        # (line, tn * D / td) orders and identifies them exactly; a stable sort
        # keeps grid members first within a group (the group's representative).
        if grid.all():
            order = np.argsort((line << shift) + tn * (D[line] // td), kind="stable")
        else:
            order = np.lexsort((~grid, td, tn, line))
        line, tn, td, xn, yn, pd, grid = (a[order] for a in (line, tn, td, xn, yn, pd, grid))
        first = np.ones(len(line), bool)
        first[1:] = (line[1:] != line[:-1]) | (tn[1:] != tn[:-1]) | (td[1:] != td[:-1])
        gid = np.cumsum(first) - 1
        ev = dict(line=line[first], tn=tn[first], td=td[first], xn=xn[first], yn=yn[first],
                  pd=pd[first], grid=grid[first], n=int(first.sum()))
        group_of = np.empty(len(order), np.int64)
        group_of[order] = gid
        ev["group_of"] = group_of
        return ev


def _free_wall_events(prep: Prep, pts: _Points, cell_lists, px, py, qx, qy, dx, dy,
                      N0, N1, D, start_att, end_att):
    """Intersections with walls off the grid lines, exact with Python integers.

    Adds point events to ``pts`` and returns the wall directions at them as
    ``[(point index, wall segment, wx, wy), ...]`` (point indices before merging).
    """
    if len(prep.free) == 0:
        return []
    w, h = prep.w, prep.h
    L = np.concatenate([a for a, _, _ in cell_lists])
    CC = np.concatenate([b for _, b, _ in cell_lists])
    RR = np.concatenate([c for _, _, c in cell_lists])
    ok = (CC >= 0) & (CC < w) & (RR >= 0) & (RR < h)
    L, key = L[ok], RR[ok] * w + CC[ok]
    a = prep.bucket_start[key]
    nn = prep.bucket_start[key + 1] - a
    rep = np.repeat(np.arange(len(key)), nn)
    pos = np.arange(int(nn.sum())) - np.repeat(np.cumsum(nn) - nn, nn) + a[rep]
    pairs = np.unique(L[rep] * (len(prep.wall_seg) + 1) + prep.bucket_wall[pos])
    if len(pairs) == 0:
        return []
    li = pairs // (len(prep.wall_seg) + 1)
    wj = pairs % (len(prep.wall_seg) + 1)
    ws = np.take(prep.wall_seg, wj, axis=0)
    Ax, Ay, Bx, By = ws[:, 0], ws[:, 1], ws[:, 2], ws[:, 3]
    Px, Py, ddx, ddy = px[li], py[li], dx[li], dy[li]
    oA = A.cross(ddx, ddy, Ax - Px, Ay - Py)
    oB = A.cross(ddx, ddy, Bx - Px, By - Py)
    ex, ey = Bx - Ax, By - Ay
    # the wall's line against the segment's end points
    wP = A.cross(ex, ey, Px - Ax, Py - Ay)
    wQ = A.cross(ex, ey, qx[li] - Ax, qy[li] - Ay)
    hit = ~((oA == 0) & (oB == 0)) & ~(np.sign(oA) * np.sign(oB) > 0) & \
        ~(np.sign(wP) * np.sign(wQ) > 0)
    li, wj, oA, oB = li[hit], wj[hit], oA[hit], oB[hit]
    Ax, Ay, ex, ey, Px, Py, ddx, ddy = (v[hit] for v in (Ax, Ay, ex, ey, Px, Py, ddx, ddy))
    den = A.cross(ddx, ddy, ex, ey)
    tn = A.cross(Ax - Px, Ay - Py, ex, ey)
    sgn = np.where(den < 0, -1, 1)
    tn, td = tn * sgn, den * sgn
    g = np.gcd(tn, td)
    g[g == 0] = 1
    tn, td = tn // g, td // g
    # keep t in [t0, t1] (exact, Python integers: products exceed int64)
    n0, n1, DD = N0[li], N1[li], D[li]
    keep = np.array([tn_i * d_i >= a_i * td_i and tn_i * d_i <= b_i * td_i
                     for tn_i, td_i, a_i, b_i, d_i in zip(tn.tolist(), td.tolist(), n0.tolist(),
                                                          n1.tolist(), DD.tolist())], dtype=bool)
    # free ends are never tested
    keep &= ~((tn == 0) & ~start_att[li]) & ~((tn == td) & ~end_att[li])
    li, wj, oA, oB, ex, ey, tn, td = (v[keep] for v in (li, wj, oA, oB, ex, ey, tn, td))
    Px, Py, ddx, ddy = Px[keep], Py[keep], ddx[keep], ddy[keep]
    if len(li) == 0:
        return []
    # exact position: p = P + (tn / td) d, in Python integers, reduced to int64
    xs, ys, pds = [], [], []
    for Pxi, Pyi, dxi, dyi, t_n, t_d in zip(Px.tolist(), Py.tolist(), ddx.tolist(),
                                             ddy.tolist(), tn.tolist(), td.tolist()):
        xn = Pxi * t_d + t_n * dxi
        yn = Pyi * t_d + t_n * dyi
        g = math.gcd(math.gcd(xn, yn), t_d)
        xn, yn, pdv = xn // g, yn // g, t_d // g
        if abs(xn) >= 1 << 62 or abs(yn) >= 1 << 62 or pdv >= 1 << 40:
            # the position only serves to find squares; keep the square exactly
            fxq, fyq = xn // (S * pdv), yn // (S * pdv)
            on_x, on_y = xn % (S * pdv) == 0, yn % (S * pdv) == 0
            # represent by a nearby exact grid-equivalent point of small size
            xn = fxq * S * 2 + (0 if on_x else S)
            yn = fyq * S * 2 + (0 if on_y else S)
            pdv = 2
        xs.append(xn)
        ys.append(yn)
        pds.append(pdv)
    offset = pts.count()
    pts.add(li, tn, td, np.array(xs, np.int64), np.array(ys, np.int64),
            np.array(pds, np.int64), 0)
    # wall directions at the point: both ways inside the wall, one way at an end
    dirs = []
    both = (oA != 0) & (oB != 0)
    at_a = oA == 0
    at_b = (oB == 0) & ~at_a
    idx = np.arange(len(li))
    for sel, fxv, fyv in ((both | at_a, ex, ey), (both | at_b, -ex, -ey)):
        dirs.append((idx[sel], wj[sel], fxv[sel], fyv[sel]))
    return [(offset + i, w_, x_, y_) for i, w_, x_, y_ in dirs]


def _evaluate_points(prep, ev, rows, px, py, dx, dy, N0, N1, D, start_att, end_att, touch,
                     att, tgt, ignore, line_stop, line_slit, line_low, relevant=0xFF):
    ne = ev["n"]
    line, tn, td = ev["line"], ev["tn"], ev["td"]
    xn, yn, pd = ev["xn"], ev["yn"], ev["pd"]
    # event types from the exact parameter
    g0 = np.gcd(N0[line], D[line])
    g1 = np.gcd(N1[line], D[line])
    is_t0 = start_att[line] & (tn == N0[line] // g0) & (td == D[line] // g0)
    is_t1 = end_att[line] & (tn == N1[line] // g1) & (td == D[line] // g1)
    etype = np.where(is_t0 & is_t1, TOUCH, np.where(is_t0, START, np.where(is_t1, END, INTERIOR)))
    # position on the grid
    gx = xn % (S * pd) == 0
    gy = yn % (S * pd) == 0
    ix = xn // (S * pd)
    iy = yn // (S * pd)
    # Only points with something around them can be closed: a piece at the
    # point lies in, or on an edge of, one of the (up to four) squares there:
    # (ix - 1, iy - 1), (ix, iy - 1), (ix - 1, iy), (ix, iy), flags fa..fd.
    W2 = prep.w + 2
    pf = prep.pflags.ravel()
    sq = (iy + 1) * W2 + ix + 1
    fa, fb, fc, fd = pf[sq - W2 - 1], pf[sq - W2], pf[sq - 1], pf[sq]
    near = fa | fb | fc | fd
    live = (near & relevant) > 0
    # A grid wall at the point lies on a unit edge ending or lying there:
    # vertical (ix, iy) = the left edge of (ix, iy), and at a vertex also
    # (ix, iy - 1) = the left edge of (ix, iy - 1); horizontal (ix, iy) = the
    # top edge of (ix, iy), and at a vertex (ix - 1, iy) = the top edge of
    # (ix - 1, iy).  (Edge bits 16 = left, 64 = top.)
    walled = (gx & (((fd & 16) > 0) | (gy & ((fb & 16) > 0)))) | \
        (gy & (((fd & 64) > 0) | (gx & ((fc & 64) > 0))))
    # sides as arcs
    ddx, ddy = dx[line], dy[line]
    k1x, k1y, k2x, k2y = _rect_cone(prep.rects, att[line], xn, yn, pd)
    j1x, j1y, j2x, j2y = _rect_cone(prep.rects, tgt[line], xn, yn, pd)
    # arcs only for the attached ends; interior points use the half-planes directly
    special = np.flatnonzero((etype != INTERIOR) & live)
    arcs = None
    if len(special):
        sp = special
        T = np.ones(len(sp), bool)
        F = np.zeros(len(sp), bool)
        et = etype[sp]
        ax, ay = ddx[sp], ddy[sp]
        arcs = (sp, _pick(et, [
            (ax, ay, F, -ax, -ay, F),                        # interior (unused here)
            (ax, ay, F, k1x[sp], k1y[sp], T),                # start: from d to the shooter
            (-ax, -ay, F, j1x[sp], j1y[sp], T),              # end: incoming ray to the target
            (k2x[sp], k2y[sp], T, j1x[sp], j1y[sp], T),      # touch: between the interiors
        ]), _pick(et, [
            (-ax, -ay, F, ax, ay, F),
            (k2x[sp], k2y[sp], T, ax, ay, F),
            (j2x[sp], j2y[sp], T, -ax, -ay, F),
            (j2x[sp], j2y[sp], T, k1x[sp], k1y[sp], T),
        ]))
    is_special = etype != INTERIOR

    # contributions: (event, class, kind, rtype, r0, r1, closesA, closesB)
    contrib = []
    # squares (and creatures) touching the point: up to four slots per event
    # slot (oc, orr) is the square (ix + oc, iy + orr); its cone seen from the point
    es, ocs, ors = [], [], []
    for oc, orr in ((-1, -1), (0, -1), (-1, 0), (0, 0)):
        # slot (-1, .) exists only on a vertical grid line, (., -1) on a horizontal one
        sel = (gx | (oc == 0)) & (gy | (orr == 0)) & live
        e = np.flatnonzero(sel)
        es.append(e)
        ocs.append(np.full(len(e), oc))
        ors.append(np.full(len(e), orr))
    e = np.concatenate(es)
    oc, orr = np.concatenate(ocs), np.concatenate(ors)
    cc, rr = ix[e] + oc, iy[e] + orr
    f = _flags(prep, cc, rr)
    # squares that can close a side: solid, low, or holding a creature (the
    # stopped-only windows ask about the blocking class alone: solid)
    has = (f & (7 if relevant == 0xFF else 1)) > 0
    has = np.flatnonzero(has)
    e, cc, rr, f, oc, orr = e[has], cc[has], rr[has], f[has], oc[has], orr[has]
    if len(e):
        egx, egy = gx[e], gy[e]
        qsx = np.where(egx, np.where(oc == 0, 1, -1), 0)  # 0: this axis unconstrained
        qsy = np.where(egy, np.where(orr == 0, 1, -1), 0)
        c1x, c1y, c2x, c2y = _cone(qsx, qsy)
        full = ~egx & ~egy
        mA, mB = _cone_sides(e, full, c1x, c1y, c2x, c2y, ddx, ddy, arcs, is_special)
        solid = (f & 1) > 0
        lowf = (f & 3) == 2
        for s_, cls, kind in ((solid, BLK, SOLID_K), (lowf, LOWC, LOW_K)):
            if s_.any():
                contrib.append((e[s_], cls, kind, REF_SQUARE, cc[s_], rr[s_], mA[s_], mB[s_]))
        if relevant == 0xFF:
            cre = _creatures(prep, cc, rr, att[line[e]], tgt[line[e]], ignore, f)
            for layer in cre:
                s_ = layer >= 0
                if s_.any():
                    contrib.append((e[s_], CRE, CREATURE_K, REF_CREATURE, layer[s_], -1,
                                    mA[s_], mB[s_]))
    # grid walls at the point
    wall_ev, wall_j, wdx, wdy = _grid_walls_at(prep, ev, gx, gy, ix, iy, walled)
    # free walls at the point
    walls = [(wall_ev, wall_j, wdx, wdy)] + ev["free_dirs"]
    for we, wj, wx, wy in walls:
        if len(we) == 0:
            continue
        ws = np.take(prep.wall_seg, wj, axis=0)
        mA, mB = _dir_sides(we, wx, wy, ddx, ddy, arcs, is_special)
        contrib.append((we, ws[:, 4], ws[:, 5], REF_WALL, ws[:, 6], ws[:, 7], mA, mB))

    if not contrib:
        return
    ce, ccls, ckind, crt, cr0, cr1, cmA, cmB = _fill_cols(
        contrib, [len(cn[0]) for cn in contrib], [np.int64] * 6 + [bool] * 2)
    closed = np.zeros((2, ne, 4), bool)
    for side, m in ((0, cmA), (1, cmB)):
        np.logical_or.at(closed[side], (ce[m], ccls[m]), True)
    blk = closed[:, :, BLK]
    sl = blk | closed[:, :, SLT]
    lw = sl | closed[:, :, LOWC]
    stop = blk[0] & blk[1]
    slit = ~stop & sl[0] & sl[1]
    low = ~stop & ~slit & lw[0] & lw[1]
    crea = closed[0, :, CRE] & closed[1, :, CRE]
    line_stop[line[stop]] = True
    line_slit[line[slit]] = True
    line_low[line[low]] = True
    anyside = cmA | cmB
    deciding = np.stack([stop, slit, low, crea])[ccls, ce]  # (classes BLK, SLT, LOWC, CRE)
    # low pieces also decide a low crossing when the blocking class helps: only low ones kept
    keep = np.flatnonzero(anyside & deciding)
    ek = ce[keep]
    rows.add_frac(line[ek], tn[ek], td[ek], ckind[keep], crt[keep], cr0[keep], cr1[keep])


def _cone_sides(e, full, c1x, c1y, c2x, c2y, ddx, ddy, arcs, is_special):
    """Whether the open cones of squares at events ``e`` meet side A / side B.

    At interior points the sides are the open half-planes cross(d, w) > 0
    and < 0: an open quadrant (positive combinations of its rays c1, c2)
    meets a side iff one of its rays is strictly on that side; an open
    half-plane meets it unless it is exactly the other side.
    """
    dx, dy = ddx[e], ddy[e]
    a = A.cross(dx, dy, c1x, c1y)
    b = A.cross(dx, dy, c2x, c2y)
    half = (c1x == -c2x) & (c1y == -c2y) & ~full
    mx, my = -c1y, c1x  # centre of a half-plane cone
    along = (dx * mx + dy * my) == 0
    cm = A.cross(dx, dy, mx, my)
    mA = np.where(half, ~(along & (cm < 0)), (a > 0) | (b > 0)) | full
    mB = np.where(half, ~(along & (cm > 0)), (a < 0) | (b < 0)) | full
    if arcs is not None:
        k = np.flatnonzero(is_special[e])
        if len(k):
            pos = np.searchsorted(arcs[0], e[k])
            for m, arc in ((mA, arcs[1]), (mB, arcs[2])):
                sub = tuple(v[pos] for v in arc)
                m[k] = A.cone_meets_arc(full[k], c1x[k], c1y[k], c2x[k], c2y[k], sub)
    return mA, mB


def _dir_sides(e, wx, wy, ddx, ddy, arcs, is_special):
    """Whether wall directions (wx, wy) at events ``e`` run into side A / side B.

    A wall running along the line, either way, counts on neither side.
    """
    c = A.cross(ddx[e], ddy[e], wx, wy)
    mA = c > 0
    mB = c < 0
    if arcs is not None:
        k = np.flatnonzero(is_special[e])
        if len(k):
            pos = np.searchsorted(arcs[0], e[k])
            along = c[k] == 0
            for m, arc in ((mA, arcs[1]), (mB, arcs[2])):
                sub = tuple(v[pos] for v in arc)
                m[k] = A.in_arc(wx[k], wy[k], sub) & ~along
    return mA, mB


def _cone(qsx, qsy):
    """Open cone (c1, c2) of the quadrant / half-plane with axis signs (0 = free)."""
    quad = (qsx != 0) & (qsy != 0)
    ccw = qsx * qsy > 0
    # quadrant: rays (qsx, 0) and (0, qsy), ordered ccw
    c1x = np.where(quad, np.where(ccw, qsx, 0), 0)
    c1y = np.where(quad, np.where(ccw, 0, qsy), 0)
    c2x = np.where(quad, np.where(ccw, 0, qsx), 0)
    c2y = np.where(quad, np.where(ccw, qsy, 0), 0)
    # half-plane around m = (qsx, qsy) (one of them 0): c1 = (my, -mx), c2 = -c1
    half = ~quad & ((qsx != 0) | (qsy != 0))
    c1x = np.where(half, qsy, c1x)
    c1y = np.where(half, -qsx, c1y)
    c2x = np.where(half, -qsy, c2x)
    c2y = np.where(half, qsx, c2y)
    return c1x, c1y, c2x, c2y


def _pick(etype, options):
    out = []
    for k in range(6):
        vals = [np.broadcast_to(np.asarray(o[k]), etype.shape) for o in options]
        out.append(np.choose(etype, vals))
    return tuple(out)


def _rect_cone(rects, idx, xn, yn, pd):
    """Interior cone (k1, k2) of creature rect ``idx`` seen from a point on its boundary."""
    n = len(idx)
    k1x = np.zeros(n, np.int64)
    k1y = np.zeros(n, np.int64)
    k2x = np.zeros(n, np.int64)
    k2y = np.zeros(n, np.int64)
    if len(rects) == 0:
        return k1x, k1y, k2x, k2y
    rc = np.take(rects, np.maximum(idx, 0), axis=0)
    onx0 = xn == rc[:, 0] * pd
    onx1 = xn == rc[:, 2] * pd
    ony0 = yn == rc[:, 1] * pd
    ony1 = yn == rc[:, 3] * pd
    sxv = np.where(onx0, 1, -1)
    syv = np.where(ony0, 1, -1)
    onx = onx0 | onx1
    ony = ony0 | ony1
    corner = onx & ony
    ccw = sxv * syv > 0
    # quadrant
    k1x = np.where(corner, np.where(ccw, sxv, 0), k1x)
    k1y = np.where(corner, np.where(ccw, 0, syv), k1y)
    k2x = np.where(corner, np.where(ccw, 0, sxv), k2x)
    k2y = np.where(corner, np.where(ccw, syv, 0), k2y)
    # half-plane around (sx, 0): k1 = (0, -sx)
    ex = onx & ~ony
    k1x = np.where(ex, 0, k1x)
    k1y = np.where(ex, -sxv, k1y)
    k2x = np.where(ex, 0, k2x)
    k2y = np.where(ex, sxv, k2y)
    # half-plane around (0, sy): k1 = (sy, 0)
    ey = ony & ~onx
    k1x = np.where(ey, syv, k1x)
    k1y = np.where(ey, 0, k1y)
    k2x = np.where(ey, -syv, k2x)
    k2y = np.where(ey, 0, k2y)
    return k1x, k1y, k2x, k2y


def _grid_walls_at(prep: Prep, ev, gx, gy, ix, iy, walled):
    """Grid-wall directions at grid event points: (event, wall seg, wx, wy).
    Only points with a walled unit edge there (``walled``) need the lookups."""
    xn, yn, pd = ev["xn"], ev["yn"], ev["pd"]
    grid = ev["grid"] & walled
    out_e, out_j, out_x, out_y = [], [], [], []
    ws = prep.wall_seg
    if not grid.any():
        z = np.zeros(0, np.int64)
        return z, z, z, z
    for vertical in (True, False):
        table = prep.vedge if vertical else prep.hedge
        on = np.flatnonzero((gx if vertical else gy) & grid)
        if len(on) == 0:
            continue
        lineidx = (ix if vertical else iy)[on]
        along = (iy if vertical else ix)[on]
        at_vertex = (gy if vertical else gx)[on]
        # the unit edge the point lies on, and at a vertex also the one before it
        q_ev = np.concatenate([on, on[at_vertex]])
        q_line = np.concatenate([lineidx, lineidx[at_vertex]])
        q_unit = np.concatenate([along, along[at_vertex] - 1])
        q, wj = table.lookup(q_line, q_unit)
        e = q_ev[q]
        c0, c1 = (1, 3) if vertical else (0, 2)
        lo = np.minimum(ws[wj, c0], ws[wj, c1])
        hi = np.maximum(ws[wj, c0], ws[wj, c1])
        p = (yn if vertical else xn)[e]
        d = pd[e]
        inside = (p >= lo * d) & (p <= hi * d)
        e, wj, lo, hi, p, d = e[inside], wj[inside], lo[inside], hi[inside], p[inside], d[inside]
        for s_, sgn in ((p < hi * d, 1), (p > lo * d, -1)):  # runs towards larger / smaller
            n_ = int(s_.sum())
            out_e.append(e[s_])
            out_j.append(wj[s_])
            out_x.append(np.zeros(n_, np.int64) if vertical else np.full(n_, sgn, np.int64))
            out_y.append(np.full(n_, sgn, np.int64) if vertical else np.zeros(n_, np.int64))
    if not out_e:
        z = np.zeros(0, np.int64)
        return z, z, z, z
    e = np.concatenate(out_e)
    j = np.concatenate(out_j)
    wx = np.concatenate(out_x)
    wy = np.concatenate(out_y)
    # a wall found through two unit edges (at a vertex) appears twice: harmless,
    # sides are or-ed and pieces kept once
    return e, j, wx, wy


def _finish(prep: Prep, D, shift: int, key, t, kind, rtype, r0, r1, shared):
    """Keep each piece once at its least t; sort by (line, t, kind, ref).

    Rows are ordered by an exact integer key: the line, then ``floor(t * D)``
    with ``D`` the line's common denominator (exact for every grid event; a
    point on an off-grid wall between two grid events falls between them), and
    rows with equal keys by (t, kind, ref).  ``shared``: the lines of the rows
    not added as unique (see :class:`_Rows`).
    """
    if len(key) == 0:
        z = np.zeros(0, np.int64)
        return z, np.zeros(0), z, z, z, z
    order = np.argsort(key, kind="stable")
    # keep the first occurrence, in that order, of each piece of a line (its
    # least t); only lines with rows not added as unique can repeat a piece.
    # Rows with equal keys keep the order they were added in (stable sorts):
    # stretch rows come before point rows, and that is what makes the first
    # of a piece's rows with one key also its least t.
    if len(shared):
        in_shared = np.zeros(len(D), bool)
        in_shared[shared] = True
        cand = np.flatnonzero(in_shared[key >> shift][order])  # positions in order
        o = order[cand]
        lo, hi = min(int(r0[o].min()), int(r1[o].min())), max(int(r0[o].max()), int(r1[o].max()))
        if lo >= -1 and hi < (1 << 21) - 1:
            # (line, kind, ref type, ref0, ref1) packed in one int64
            piece = ((((key[o] >> shift) * 8 + kind[o]) * 4 + rtype[o]) << 42) + \
                ((r0[o] + 1) << 21) + (r1[o] + 1)
            by_piece = np.argsort(piece, kind="stable")
            ps = piece[by_piece]
            dup = np.flatnonzero(ps[1:] == ps[:-1]) + 1
        else:  # refs too large to pack (a map or wall list of millions)
            cols = (r1[o], r0[o], rtype[o], kind[o], key[o] >> shift)
            by_piece = np.lexsort(cols)
            same = np.ones(len(o) - 1, bool)
            for c in cols:
                cs = c[by_piece]
                same &= cs[1:] == cs[:-1]
            dup = np.flatnonzero(same) + 1
        if len(dup):
            keep = np.ones(len(order), bool)
            keep[cand[by_piece[dup]]] = False
            order = order[keep]
    key, t, kind, rtype, r0, r1 = (np.take(a, order) for a in (key, t, kind, rtype, r0, r1))
    line = key >> shift
    # rows with the same key: by t, then kind, then ref (squares (r, c), walls, creature ids)
    same = key[1:] == key[:-1]
    if same.any():
        tied = np.zeros(len(line), bool)
        tied[1:] |= same
        tied[:-1] |= same
        idx = np.nonzero(tied)[0]
        k0 = np.where(rtype[idx] == REF_SQUARE, r1[idx], r0[idx])
        k1 = np.where(rtype[idx] == REF_SQUARE, r0[idx],
                      np.where(rtype[idx] == REF_WALL, r1[idx], 0))
        if len(prep.id_rank):
            cre = rtype[idx] == REF_CREATURE
            k0 = np.where(cre, prep.id_rank[np.clip(r0[idx], 0, len(prep.id_rank) - 1)], k0)
        # Tied rows come in runs of one key each.  Usually every row of a run
        # has the same t (only points on off-grid walls have t off the key)
        # and the runs of a line have increasing t; then one stable sort of
        # (run, kind, ref type, k0, k1) packed in an int64 does what the lexsort does
        # (np.lexsort is several times slower).
        ki = key[idx]
        new_run = np.concatenate([[True], ki[1:] != ki[:-1]])
        run = np.cumsum(new_run) - 1
        starts = np.flatnonzero(new_run)
        ti, ts, ls = t[idx], t[idx[starts]], line[idx[starts]]
        lim = (1 << 21) - 1
        # Within a kind, squares come before walls before creatures
        # (REF_SQUARE < REF_WALL < REF_CREATURE): a low square and a low wall
        # may tie on t and on (k0, k1).
        if run[-1] < (1 << 16) and k0.min() >= -1 and k1.min() >= -1 and \
                k0.max() < lim and k1.max() < lim and (ti == ts[run]).all() and \
                ((ts[1:] > ts[:-1]) | (ls[1:] != ls[:-1])).all():
            packed = (((((run << 3) + kind[idx]) << 2) + rtype[idx]) << 42) + \
                ((k0 + 1) << 21) + (k1 + 1)
            sub = idx[np.argsort(packed, kind="stable")]
        else:
            sub = idx[np.lexsort((k1, k0, rtype[idx], kind[idx], t[idx], line[idx]))]
        for a in (line, t, kind, rtype, r0, r1):
            a[idx] = a[sub]
    return line, t, kind, rtype, r0, r1
