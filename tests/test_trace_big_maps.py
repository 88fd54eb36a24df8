"""Big maps: exact keys for very long lines, and square or wall numbers past 2**21.

A line's parameters are integers over ``D = |dx| * |dy|`` (in 1/1024
square); on a 4,200 x 4,200 map a long diagonal has ``D`` above 2**44, and a
map over 2**21 squares wide numbers its squares past what fits in 21 bits.
Both once broke the kernel's packed sort keys.
"""

from __future__ import annotations

import numpy as np
import pytest

from lineoffire.geometry import trace
from lineoffire.maps import BattleMap

from conftest import HAVE_KERNEL
from reference import reference_trace

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="no kernel yet")


def _same(bmap: BattleMap, segs: list[list[float]]) -> None:
    got = trace(bmap, segs)
    for k, seg in enumerate(segs):
        want = reference_trace(bmap, seg)
        line = got[k]
        assert (line.stopped, line.slit, line.low) == (want.stopped, want.slit, want.low), seg
        assert [(b.kind, b.ref) for b in line.blockers] == [(b.kind, b.ref) for b in want.blockers], seg
        assert [b.t for b in line.blockers] == pytest.approx([b.t for b in want.blockers],
                                                             abs=1e-12), seg


def test_long_diagonals_on_a_big_map():
    n = 4200
    squares = np.zeros((n, n), np.uint8)
    for c, r in ((10, 10), (2999, 3000), (3000, 3000), (4100, 4100), (4101, 4102)):
        squares[r, c] = 1
    squares[2000, 2000] = 2  # low
    walls = [{"kind": "wall", "points": [[1000, 990], [1000, 1010]]},
             {"kind": "low", "points": [[3500.5, 3490], [3510, 3509.75]]},
             {"kind": "wall", "points": [[4000, 4000], [4001, 4000], [4001, 4001]]}]
    m = BattleMap.build(n, n, squares=squares, walls=walls)
    # D = |dx| * |dy| in 1/1024 square: about 2**44.1 for these
    segs = [[0.5, 0.25, n - 0.5, n - 0.125], [0, 0, n, n], [n - 1, 0.5, 0.5, n - 0.75],
            [3, 1, n - 2, n - 1]]
    dx = np.abs(np.array(segs)[:, 2] - np.array(segs)[:, 0]) * 1024
    dy = np.abs(np.array(segs)[:, 3] - np.array(segs)[:, 1]) * 1024
    assert (dx * dy > 2.0 ** 44).all()
    _same(m, segs)
    # in the stopped-only and flags-only modes too
    full = trace(m, segs)
    assert (trace(m, segs, stopped_only=True).stopped == full.stopped).all()
    flags = trace(m, segs, blockers=False)
    assert (flags.stopped == full.stopped).all() and (flags.low == full.low).all()


def test_square_and_wall_numbers_past_21_bits():
    w = (1 << 21) + 40
    squares = np.zeros((3, w), np.uint8)
    far = (1 << 21) + 5
    squares[1, far] = 1
    squares[0, far + 3] = 1
    # a low square numbered 2**21 past the low wall's index (2): packed
    # 21 bits wide, the two refs would collide
    squares[0, far - 3] = 2
    # a joint of two walls at a vertex: a point that gets the full two-sided rule
    walls = [{"kind": "wall", "points": [[far + 10, 0], [far + 10, 1]]},
             {"kind": "wall", "points": [[far + 10, 1], [far + 10, 3]]},
             {"kind": "low", "points": [[far + 1, 0], [far + 1, 3]]}]
    m = BattleMap.build(w, 3, squares=squares, walls=walls)
    segs = [[far - 2, 0, far + 12, 2], [far - 2.5, 0.5, far + 20, 2.5], [far, 1, far + 10, 1],
            [far + 20, 3, far - 1, 0], [far - 4, 0.25, far + 24, 1.75]]
    _same(m, segs)
