"""Turning or mirroring a map and its segments together changes no answer.

For each of the 7 non-trivial symmetries of the square grid, the traces of
the transformed segments on the transformed map have the same stopped / slit
/ low flags and the same blockers, piece by piece with the same t (square
refs turned with the map; wall and segment indices and creature ids stay).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from lineoffire.maps import BattleMap

from conftest import engine_traces
from reference import (SYMMETRIES, reference_traces, transform_map, transform_segment,
                       transform_square)
from test_trace_property import cases

IMPLS = [pytest.param(engine_traces, id="engine"), pytest.param(reference_traces, id="reference")]


def _pieces(trace, sym=None, w=0, h=0) -> list[tuple]:
    """The blockers as a sorted multiset of (kind, ref, t), square refs mapped by ``sym``."""
    out = []
    for b in trace.blockers:
        ref = b.ref
        if sym is not None and ref[0] == "square":
            ref = ("square", transform_square(sym, ref[1], w, h))
        out.append((b.kind, ref, round(b.t, 9)))
    return sorted(out, key=repr)


def assert_invariant(tracer, bmap: BattleMap, segments, **options) -> None:
    w, h = bmap.width, bmap.height
    base = tracer(bmap, segments, **options)
    for sym in SYMMETRIES[1:]:
        m = transform_map(sym, bmap)
        segs = [transform_segment(sym, s, w, h) for s in segments]
        for seg, before, after in zip(segments, base, tracer(m, segs, **options)):
            where = f"symmetry {sym} (turns, mirrored) of segment {seg}"
            assert (after.stopped, after.slit, after.low) == \
                (before.stopped, before.slit, before.low), where
            assert _pieces(after) == _pieces(before, sym, w, h), where


@pytest.mark.parametrize("tracer", IMPLS)
def test_hand_map_invariant(tracer):
    m = BattleMap.build(
        5, 4, squares=[".....", ".#=..", "#....", "....."],
        walls=[{"points": [[3, 0], [3, 1], [4.25, 1.75]]},
               {"kind": "slit", "points": [[0, 3], [2, 3]]},
               {"kind": "low", "points": [[4, 2], [4, 4]]},
               {"kind": "door", "points": [[1, 3], [1, 4]]}],
        creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 1, "y": 2},
                   {"id": "L", "x": 3, "y": 2, "size": "large"}])
    segments = [[0.5, 0.5, 4, 4], [0, 0, 5, 4], [1, 0, 1, 4], [0, 3, 5, 3], [0.5, 0.5, 4.5, 0.5],
                [2, 0, 5, 3], [0, 2, 5, 2], [1, 1, 3, 3], [2.5, 0.5, 2.5, 0.5]]
    assert_invariant(tracer, m, segments)
    assert_invariant(tracer, m, segments, attacker="A", target="L")


@pytest.mark.parametrize("tracer", IMPLS)
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=cases())
def test_random_maps_invariant(tracer, case):
    assert_invariant(tracer, case.build(), case.segments, **case.options)
