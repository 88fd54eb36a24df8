"""SPEC section 3 on hand-drawn maps: the six consequences, thin walls, creatures.

Every case runs against both tracers (the ``tracer`` fixture: engine and
reference) and in all 8 orientations of the map (4 turns, mirrored or not).
Expected blockers are written for the map as drawn: ``(kind, ref, t)`` with
``ref`` one of ``sq(c, r)``, ``wl(wall, segment)``, ``cr(id)``; in the other
orientations square refs are turned with the map and the expected list is put
back into blocker order (t, kind, square (r, c) / wall / id).
"""

from __future__ import annotations

import pytest

from lineoffire.geometry.types import KINDS
from lineoffire.maps import BattleMap

from reference import SYMMETRIES, transform_map, transform_segment, transform_square


def sq(c, r):
    return ("square", (c, r))


def wl(i, j=0):
    return ("wall", (i, j))


def cr(cid):
    return ("creature", cid)


def _order(kind, ref, t):
    reftype, value = ref
    key = (value[1], value[0]) if reftype == "square" else (value if reftype == "wall" else (value,))
    # within a kind: squares, then walls, then creatures
    return (t, KINDS.index(kind), ("square", "wall", "creature").index(reftype)) + tuple(key)


def check(tracer, bmap, seg, *, stopped=False, slit=False, low=False, blockers=(), **options):
    """Trace ``seg`` on ``bmap`` in every orientation and compare with the hand answer."""
    w, h = bmap.width, bmap.height
    for sym in SYMMETRIES:
        m = transform_map(sym, bmap)
        s = transform_segment(sym, seg, w, h)
        want = []
        for kind, (reftype, value), t in blockers:
            if reftype == "square":
                value = transform_square(sym, value, w, h)
            want.append((kind, (reftype, value), t))
        want.sort(key=lambda b: _order(*b))
        got = tracer(m, [s], **options)[0]
        where = f"orientation {sym} (turns, mirrored), segment {s}"
        assert (got.stopped, got.slit, got.low) == (stopped, slit, low), where
        assert [(b.kind, b.ref) for b in got.blockers] == [(k, r) for k, r, _ in want], where
        assert [b.t for b in got.blockers] == pytest.approx([t for *_, t in want], abs=1e-9), where


def test_blocker_ties_list_a_square_before_a_wall_of_its_kind(tracer):
    # the line enters the low square (0, 0) where it crosses the low wall
    # under it: both at t = 1/2, same kind; the square comes first
    m = BattleMap.build(4, 4, squares=["=...", "....", "....", "...."],
                        walls=[{"kind": "low", "points": [[0, 1], [1, 1]]}])
    check(tracer, m, [0, 2, 1, 0], low=True,
          blockers=[("low", sq(0, 0), 0.5), ("low", wl(0), 0.5)])


# ------------------------------------------------------------ SPEC section 6
def test_spec_section6_trace_example(tracer):
    m = BattleMap.build(6, 3, squares=["......", "..#...", "......"],
                        creatures=[{"id": "B", "x": 4, "y": 1, "size": "medium"}])
    first, second = tracer(m, [[0.5, 1.5, 5.5, 1.5], [0, 1, 6, 1]])
    assert first.stopped
    assert first.to_json()["blockers"] == [
        {"kind": "solid", "square": [2, 1], "t": 0.3},
        {"kind": "creature", "creature": "B", "t": 0.7},
    ]
    assert first.creatures == ["B"]
    assert second.to_json() == {"stopped": False, "blockers": []}


def test_spec_section6_example_all_orientations(tracer):
    m = BattleMap.build(6, 3, squares=["......", "..#...", "......"],
                        creatures=[{"id": "B", "x": 4, "y": 1}])
    check(tracer, m, [0.5, 1.5, 5.5, 1.5], stopped=True,
          blockers=[("solid", sq(2, 1), 0.3), ("creature", cr("B"), 0.7)])
    check(tracer, m, [0, 1, 6, 1])


# ------------------------------------------------------------ consequence 1
SOLID_1 = BattleMap.build(5, 3, squares=[".....", "..#..", "....."])


@pytest.mark.parametrize("seg, t", [
    ([0.5, 1.5, 4.5, 1.5], 0.375),        # straight through the middle
    ([1, 0, 3, 2], 0.5),                  # in at a corner, on through the interior
    ([1, 0, 4, 2], 0.5),                  # slanting in through the top edge
    ([0.5, 0.25, 4.5, 2.25], 0.375),      # in at a corner, slanting
    ([2.5, 1.5, 4.5, 1.5], 0.0),          # starts inside it
])
def test_1_entering_a_solid_square_stops(tracer, seg, t):
    check(tracer, SOLID_1, seg, stopped=True, blockers=[("solid", sq(2, 1), t)])


# ------------------------------------------------------------ consequence 2
@pytest.mark.parametrize("seg", [
    [0, 1, 5, 1],          # along the top edge
    [0, 2, 5, 2],          # along the bottom edge
    [2, 0, 2, 3],          # along the left edge
    [0, 3, 3, 0],          # through the top-left corner only
    [2, 3, 5, 0],          # through the bottom-right corner only
    [0, 0, 2, 1],          # ending on the corner
    [0, 1.5, 2, 1.5],      # ending on the edge
    [2, 1, 3, 1],          # exactly the top edge
])
def test_2_grazing_a_solid_square_is_clear(tracer, seg):
    check(tracer, SOLID_1, seg)


# ------------------------------------------------------------ consequence 3
def test_3_seam_between_two_solid_squares_stops(tracer):
    m = BattleMap.build(4, 3, squares=["....", ".##.", "...."])
    check(tracer, m, [2, 0, 2, 3], stopped=True,
          blockers=[("solid", sq(1, 1), 1 / 3), ("solid", sq(2, 1), 1 / 3)])
    # along their common top edge: grazing both
    check(tracer, m, [0, 1, 4, 1])
    # a seam that ends at the line's end point (free): still sealed before it
    check(tracer, m, [2, 0, 2, 1.5], stopped=True,
          blockers=[("solid", sq(1, 1), 2 / 3), ("solid", sq(2, 1), 2 / 3)])


def test_3_vertex_between_diagonal_solid_squares_stops(tracer):
    m = BattleMap.build(3, 3, squares=[".#.", "#..", "..."])
    check(tracer, m, [0, 0, 2, 2], stopped=True,
          blockers=[("solid", sq(1, 0), 0.5), ("solid", sq(0, 1), 0.5)])
    check(tracer, m, [0.5, 0.5, 1.5, 1.5], stopped=True,
          blockers=[("solid", sq(1, 0), 0.5), ("solid", sq(0, 1), 0.5)])
    # along the grid line through the vertex: it still passes between them
    check(tracer, m, [0, 1, 3, 1], stopped=True,
          blockers=[("solid", sq(1, 0), 1 / 3), ("solid", sq(0, 1), 1 / 3)])
    # along the grid line up to the vertex and no further: grazing
    check(tracer, m, [0, 1, 1, 1])


def test_3_vertex_with_one_solid_square_is_clear(tracer):
    m = BattleMap.build(3, 3, squares=[".#.", "...", "..."])
    check(tracer, m, [0, 0, 2, 2])


# ------------------------------------------------------------ consequence 4
def test_4_crossing_a_thin_wall_stops(tracer):
    m = BattleMap.build(4, 3, walls=[{"points": [[2, 0], [2, 3]]}])
    check(tracer, m, [0.5, 1.5, 3.5, 1.5], stopped=True, blockers=[("wall", wl(0), 0.5)])
    check(tracer, m, [0, 0, 4, 2], stopped=True, blockers=[("wall", wl(0), 0.5)])
    # along the wall, or ending on it: nothing
    check(tracer, m, [2, 0, 2, 3])
    check(tracer, m, [0.5, 1.5, 2, 1.5])


def test_4_free_end_of_a_wall_is_clear(tracer):
    m = BattleMap.build(4, 3, walls=[{"points": [[2, 0], [2, 1]]}])
    check(tracer, m, [0.5, 1, 3.5, 1])
    check(tracer, m, [1, 2, 3, 0])
    # just past the end, through the wall: stopped
    check(tracer, m, [0.5, 0.75, 3.5, 0.75], stopped=True, blockers=[("wall", wl(0), 0.5)])


def test_4_joint_continuing_to_both_sides_stops(tracer):
    straight = BattleMap.build(4, 3, walls=[{"points": [[2, 0], [2, 1], [2, 3]]}])
    check(tracer, straight, [0.5, 1, 3.5, 1], stopped=True,
          blockers=[("wall", wl(0, 0), 0.5), ("wall", wl(0, 1), 0.5)])
    check(tracer, straight, [0.5, 1.5, 3.5, 1.5], stopped=True,
          blockers=[("wall", wl(0, 1), 0.5)])
    bent = BattleMap.build(4, 3, walls=[{"points": [[1, 0], [2, 1], [2, 3]]}])
    check(tracer, bent, [0.5, 1, 3.5, 1], stopped=True,
          blockers=[("wall", wl(0, 0), 0.5), ("wall", wl(0, 1), 0.5)])
    # two walls meeting end to end count like one polyline
    two = BattleMap.build(4, 3, walls=[{"points": [[2, 0], [2, 1]]},
                                       {"points": [[2, 1], [2, 3]]}])
    check(tracer, two, [0.5, 1, 3.5, 1], stopped=True,
          blockers=[("wall", wl(0), 0.5), ("wall", wl(1), 0.5)])


def test_4_joint_turning_back_to_one_side_is_clear(tracer):
    vee = BattleMap.build(4, 3, walls=[{"points": [[1, 0], [2, 1], [3, 0]]}])
    check(tracer, vee, [0.5, 1, 3.5, 1])
    check(tracer, vee, [0.5, 0.5, 3.5, 0.5], stopped=True,
          blockers=[("wall", wl(0, 0), 1 / 3), ("wall", wl(0, 1), 2 / 3)])


def test_4_off_grid_diagonal_wall(tracer):
    m = BattleMap.build(4, 3, walls=[{"points": [[1.25, 0.25], [2.25, 2.75]]}])
    check(tracer, m, [0.5, 1.5, 3.5, 1.5], stopped=True, blockers=[("wall", wl(0), 1.25 / 3)])
    # through its free ends
    check(tracer, m, [0, 2.75, 4, 2.75])
    check(tracer, m, [0, 0, 2.5, 0.5])
    # along it: grazing
    check(tracer, m, [1.25, 0.25, 2.25, 2.75])
    # 1/1024 coordinates
    fine = BattleMap.build(4, 3, walls=[{"points": [[1 + 1 / 1024, 0], [3 - 3 / 1024, 3]]}])
    check(tracer, fine, [0, 1.5, 4, 1.5], stopped=True, blockers=[("wall", wl(0), 0.5 - 1 / 4096)])


def test_4_doors_closed_stop_open_do_not(tracer):
    closed = BattleMap.build(4, 3, walls=[{"kind": "door", "points": [[2, 0], [2, 3]]}])
    check(tracer, closed, [0.5, 1.5, 3.5, 1.5], stopped=True, blockers=[("door", wl(0), 0.5)])
    opened = BattleMap.build(4, 3, walls=[{"kind": "door", "points": [[2, 0], [2, 3]],
                                           "open": True}])
    check(tracer, opened, [0.5, 1.5, 3.5, 1.5])
    # a closed door in a wall's gap seals the joint; an open one leaves a free end
    for is_open, stopped, blockers in [
        (False, True, [("wall", wl(0), 0.5), ("door", wl(1), 0.5)]),
        (True, False, []),
    ]:
        m = BattleMap.build(4, 3, walls=[{"points": [[2, 0], [2, 1]]},
                                         {"kind": "door", "points": [[2, 1], [2, 2]],
                                          "open": is_open}])
        check(tracer, m, [0.5, 1, 3.5, 1], stopped=stopped, blockers=blockers)


def test_4_slit_and_low_crossings(tracer):
    slit = BattleMap.build(4, 3, walls=[{"kind": "slit", "points": [[2, 0], [2, 3]]}])
    check(tracer, slit, [0.5, 1.5, 3.5, 1.5], slit=True, blockers=[("slit", wl(0), 0.5)])
    low = BattleMap.build(4, 3, walls=[{"kind": "low", "points": [[2, 0], [2, 3]]}])
    check(tracer, low, [0.5, 1.5, 3.5, 1.5], low=True, blockers=[("low", wl(0), 0.5)])
    low_sq = BattleMap.build(5, 3, squares=[".....", "..=..", "....."])
    check(tracer, low_sq, [0.5, 1.5, 4.5, 1.5], low=True, blockers=[("low", sq(2, 1), 0.375)])
    check(tracer, low_sq, [0, 1, 5, 1])  # grazing a low square


def test_4_joints_of_mixed_classes(tracer):
    seg = [0.5, 1, 3.5, 1]

    def joint(upper, lower):
        return BattleMap.build(4, 3, walls=[{"kind": upper, "points": [[2, 0], [2, 1]]},
                                            {"kind": lower, "points": [[2, 1], [2, 3]]}])

    # a wall and a low wall: low cover, and only the low piece is listed
    check(tracer, joint("wall", "low"), seg, low=True, blockers=[("low", wl(1), 0.5)])
    check(tracer, joint("wall", "slit"), seg, slit=True, blockers=[("slit", wl(1), 0.5)])
    check(tracer, joint("slit", "low"), seg, low=True, blockers=[("low", wl(1), 0.5)])
    # a wall and a solid square meeting at a vertex seal it
    m = BattleMap.build(4, 3, squares=["....", "..#.", "...."],
                        walls=[{"points": [[2, 0], [2, 1]]}])
    check(tracer, m, seg, stopped=True, blockers=[("solid", sq(2, 1), 0.5), ("wall", wl(0), 0.5)])
    # a wall and a low square: low cover from the square
    m = BattleMap.build(4, 3, squares=["....", "..=.", "...."],
                        walls=[{"points": [[2, 0], [2, 1]]}])
    check(tracer, m, seg, low=True, blockers=[("low", sq(2, 1), 0.5)])


def test_4_wall_drawn_over_a_slit_is_a_wall(tracer):
    m = BattleMap.build(4, 3, walls=[{"kind": "slit", "points": [[2, 0], [2, 3]]},
                                     {"kind": "wall", "points": [[2, 0], [2, 3]]}])
    check(tracer, m, [0.5, 1.5, 3.5, 1.5], stopped=True, blockers=[("wall", wl(1), 0.5)])


def test_stopped_line_lists_later_cover_too(tracer):
    m = BattleMap.build(6, 3, squares=["......", "....=.", "......"],
                        walls=[{"points": [[1, 0], [1, 3]]},
                               {"kind": "slit", "points": [[3, 0], [3, 3]]}])
    check(tracer, m, [0.5, 1.5, 5.5, 1.5], stopped=True, slit=True, low=True,
          blockers=[("wall", wl(0), 0.1), ("slit", wl(1), 0.5), ("low", sq(4, 1), 0.7)])


# ------------------------------------------------------------ consequence 5
def test_5_wall_along_the_shooters_edge_stops_lines_leaving_through_it(tracer):
    m = BattleMap.build(5, 4, creatures=[{"id": "A", "x": 1, "y": 1}],
                        walls=[{"points": [[2, 0], [2, 4]]}])
    # from the centre through the edge
    check(tracer, m, [1.5, 1.5, 4.5, 1.5], attacker="A", stopped=True,
          blockers=[("wall", wl(0), 1 / 6)])
    # from a far corner out through the near corner
    check(tracer, m, [1, 2, 3, 0], attacker="A", stopped=True, blockers=[("wall", wl(0), 0.5)])
    # from a corner on that edge
    check(tracer, m, [2, 2, 4, 3], attacker="A", stopped=True, blockers=[("wall", wl(0), 0.0)])
    # leaving through another edge: clear
    check(tracer, m, [1.5, 1.5, 1.5, 4], attacker="A")
    # along the edge, over the wall: grazing
    check(tracer, m, [2, 1, 2, 4], attacker="A")


def test_5_wall_one_edge_long_can_be_passed_at_its_ends(tracer):
    m = BattleMap.build(5, 4, creatures=[{"id": "A", "x": 1, "y": 1}],
                        walls=[{"points": [[2, 1], [2, 2]]}])
    check(tracer, m, [1.5, 1.5, 4.5, 1.5], attacker="A", stopped=True,
          blockers=[("wall", wl(0), 1 / 6)])
    check(tracer, m, [1, 2, 3, 0], attacker="A")
    check(tracer, m, [1.5, 1.5, 3, 0], attacker="A")


def test_5_wall_on_the_targets_far_edge_does_not_stop(tracer):
    m = BattleMap.build(5, 3, creatures=[{"id": "T", "x": 3, "y": 1}],
                        walls=[{"points": [[4, 0], [4, 3]]}])
    check(tracer, m, [0.5, 1.5, 4, 1.5], target="T")
    check(tracer, m, [0.5, 0.5, 4, 2], target="T")
    # on the near edge it does
    near = BattleMap.build(5, 3, creatures=[{"id": "T", "x": 3, "y": 1}],
                           walls=[{"points": [[3, 0], [3, 3]]}])
    check(tracer, near, [0.5, 1.5, 3.5, 1.5], target="T", stopped=True,
          blockers=[("wall", wl(0), 5 / 6)])


def test_5_shooter_on_a_low_square_gets_no_cover_from_it(tracer):
    m = BattleMap.build(5, 3, squares=[".....", ".=...", "....."],
                        creatures=[{"id": "A", "x": 1, "y": 1}])
    for seg in ([1.5, 1.5, 4.5, 1.5], [2, 2, 4, 0], [1, 1, 4, 2.5]):
        check(tracer, m, seg, attacker="A")
    # with no attacker named, the line starts on the low square and in A's space
    check(tracer, m, [1.5, 1.5, 4.5, 1.5], low=True,
          blockers=[("low", sq(1, 1), 0.0), ("creature", cr("A"), 0.0)])


def test_5_target_on_a_low_square_gets_no_cover_from_it(tracer):
    m = BattleMap.build(5, 3, squares=[".....", "...=.", "....."],
                        creatures=[{"id": "T", "x": 3, "y": 1}])
    check(tracer, m, [0.5, 1.5, 3.5, 1.5], target="T")


def test_5_low_square_next_to_the_shooter_is_crossed(tracer):
    m = BattleMap.build(5, 3, squares=[".....", "..=..", "....."],
                        creatures=[{"id": "A", "x": 1, "y": 1}])
    check(tracer, m, [1.5, 1.5, 4.5, 1.5], attacker="A", low=True,
          blockers=[("low", sq(2, 1), 1 / 6)])


def test_touching_spaces_test_only_the_crossing_point(tracer):
    # diagonal neighbours: the crossing point is their shared corner
    creatures = [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 1, "y": 1}]
    both = BattleMap.build(2, 2, squares=[".#", "#."], creatures=creatures)
    check(tracer, both, [0.5, 0.5, 1.5, 1.5], attacker="A", target="T", stopped=True,
          blockers=[("solid", sq(1, 0), 0.5), ("solid", sq(0, 1), 0.5)])
    one = BattleMap.build(2, 2, squares=[".#", ".."], creatures=creatures)
    check(tracer, one, [0.5, 0.5, 1.5, 1.5], attacker="A", target="T")
    crowd = BattleMap.build(2, 2, creatures=creatures + [{"id": "B", "x": 1, "y": 0},
                                                         {"id": "C", "x": 0, "y": 1}])
    check(tracer, crowd, [0.5, 0.5, 1.5, 1.5], attacker="A", target="T",
          blockers=[("creature", cr("B"), 0.5), ("creature", cr("C"), 0.5)])


def test_touching_spaces_wall_on_the_shared_edge(tracer):
    creatures = [{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 1, "y": 0}]
    short = BattleMap.build(2, 2, creatures=creatures, walls=[{"points": [[1, 0], [1, 1]]}])
    check(tracer, short, [0.5, 0.5, 1.5, 0.5], attacker="A", target="T", stopped=True,
          blockers=[("wall", wl(0), 0.5)])
    # around its end: along the bottom edges through the shared corner
    check(tracer, short, [0, 1, 2, 1], attacker="A", target="T")
    long = BattleMap.build(2, 2, creatures=creatures, walls=[{"points": [[1, 0], [1, 2]]}])
    check(tracer, long, [0, 1, 2, 1], attacker="A", target="T", stopped=True,
          blockers=[("wall", wl(0), 0.5)])


def test_lines_wholly_inside_the_spaces_pass_nothing(tracer):
    m = BattleMap.build(3, 2, creatures=[{"id": "A", "x": 0, "y": 0},
                                         {"id": "T", "x": 1, "y": 0}],
                        walls=[{"points": [[1, 0], [1, 1]]}])
    check(tracer, m, [1, 0, 1, 1], attacker="A", target="T")
    check(tracer, m, [0.25, 0.5, 0.75, 0.5], attacker="A", target="T")


# ------------------------------------------------------------ consequence 6
def test_6_seam_between_two_creatures_passes_through_both(tracer):
    m = BattleMap.build(5, 3, creatures=[{"id": "B", "x": 2, "y": 0},
                                         {"id": "C", "x": 2, "y": 1}])
    check(tracer, m, [0, 1, 5, 1], blockers=[("creature", cr("B"), 0.4),
                                             ("creature", cr("C"), 0.4)])
    # along the outer edge of one: grazing
    check(tracer, m, [0, 2, 5, 2])


def test_6_diagonal_seam_between_creatures(tracer):
    m = BattleMap.build(3, 3, creatures=[{"id": "B", "x": 1, "y": 0},
                                         {"id": "C", "x": 0, "y": 1}])
    check(tracer, m, [0, 0, 2, 2], blockers=[("creature", cr("B"), 0.5),
                                             ("creature", cr("C"), 0.5)])


def test_creature_interior_and_sizes(tracer):
    m = BattleMap.build(6, 4, creatures=[{"id": "L", "x": 2, "y": 1, "size": "large"},
                                         {"id": "t", "x": 5, "y": 0, "size": "tiny"},
                                         {"id": "u", "x": 5, "y": 0, "size": "fine"}])
    check(tracer, m, [0, 2.5, 6, 2.5], blockers=[("creature", cr("L"), 1 / 3)])
    # along the large creature's middle line: inside it
    check(tracer, m, [0, 2, 6, 2], blockers=[("creature", cr("L"), 1 / 3)])
    # two tiny creatures sharing a square: both
    check(tracer, m, [5, 0, 6, 1], blockers=[("creature", cr("t"), 0.0),
                                             ("creature", cr("u"), 0.0)])


@pytest.mark.parametrize("flag, option", [("dead", "ignore_dead"), ("prone", "ignore_prone")])
def test_ignored_creatures_leave_the_seam(tracer, flag, option):
    m = BattleMap.build(5, 3, creatures=[{"id": "B", "x": 2, "y": 0},
                                         {"id": "C", "x": 2, "y": 1, flag: True}])
    both = [("creature", cr("B"), 0.4), ("creature", cr("C"), 0.4)]
    check(tracer, m, [0, 1, 5, 1], blockers=both)
    check(tracer, m, [0, 1, 5, 1], blockers=[], **{option: True})
    check(tracer, m, [0, 1.5, 5, 1.5], blockers=[], **{option: True})
    check(tracer, m, [0, 0.5, 5, 0.5], blockers=[("creature", cr("B"), 0.4)], **{option: True})


def test_attacker_and_target_are_not_creatures_on_the_line(tracer):
    m = BattleMap.build(5, 1, creatures=[{"id": "A", "x": 0, "y": 0},
                                         {"id": "B", "x": 2, "y": 0},
                                         {"id": "T", "x": 4, "y": 0}])
    check(tracer, m, [0.5, 0.5, 4.5, 0.5], attacker="A", target="T",
          blockers=[("creature", cr("B"), 0.375)])
    # B as the target, the line going on past it (free end outside B's space)
    check(tracer, m, [0.5, 0.5, 4.5, 0.5], attacker="A", target="B",
          blockers=[("creature", cr("T"), 0.875)])


def test_zero_length_line_passes_nothing(tracer):
    m = BattleMap.build(3, 3, squares=["...", ".#.", "..."],
                        creatures=[{"id": "B", "x": 0, "y": 0}])
    for seg in ([1.5, 1.5, 1.5, 1.5], [0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1]):
        check(tracer, m, seg)


def test_only_the_part_outside_the_spaces_counts(tracer):
    """Decision: a wall along the line's direction counts nowhere, also past an
    attached end, so where inside the shooter's space the segment starts does
    not matter (SPEC: "only the part outside the attached spaces counts")."""
    m = BattleMap.build(3, 6, squares=["...", "#..", "...", "...", "...", "..."],
                        creatures=[{"id": "A", "x": 0, "y": 0, "size": "small"}],
                        walls=[{"points": [[1, 0], [1, 3]]}])
    for start in ([1, 0.5], [1, 0], [1, 1]):
        check(tracer, m, start + [1, 6], attacker="A")
    # the same at the target's end, arriving along its edge's wall
    t = BattleMap.build(4, 2,
                        creatures=[{"id": "T", "x": 3, "y": 1}],
                        walls=[{"points": [[3, 1], [3, 2]]}, {"points": [[3, 1], [4, 1]]}])
    for end in ([3, 1], [4, 1]):
        check(tracer, t, [0, 1] + end, target="T")
    # a line crossing into that corner is stopped
    check(tracer, t, [0, 0, 3, 1.5], target="T", stopped=True,
          blockers=[("wall", wl(0), 1.0)])


def test_reference_line_of_effect_spec_examples():
    """SPEC section 4's examples for the reference's exhaustive line-of-effect search."""
    from reference import reference_line_of_effect

    pair = [{"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 1, "y": 1}]
    past_both_ends = BattleMap.build(2, 3, creatures=pair, walls=[{"points": [[1, 0], [1, 3]]}])
    assert reference_line_of_effect(past_both_ends, "A", "B") is None
    one_edge = BattleMap.build(2, 3, creatures=pair, walls=[{"points": [[1, 1], [1, 2]]}])
    assert reference_line_of_effect(one_edge, "A", "B") is not None
    diagonal = [{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 1, "y": 1}]
    sealed = BattleMap.build(2, 2, squares=[".#", "#."], creatures=diagonal)
    assert reference_line_of_effect(sealed, "A", "B") is None
    half = BattleMap.build(2, 2, squares=[".#", ".."], creatures=diagonal)
    assert reference_line_of_effect(half, "A", "B") is not None
    # creatures, slits and low walls never block line of effect
    soft = BattleMap.build(3, 1, creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 2, "y": 0},
                                            {"id": "C", "x": 1, "y": 0}],
                           walls=[{"kind": "slit", "points": [[1, 0], [1, 1]]},
                                  {"kind": "low", "points": [[2, 0], [2, 1]]}])
    assert reference_line_of_effect(soft, "A", "B") is not None
