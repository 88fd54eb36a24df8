"""Creature Cover verdicts (SPEC section 5, creature-cover; rules/creature-cover.txt).

Maps are drawn: ``.`` open, ``#`` solid, ``=`` low; an upper-case letter is a
creature's top-left square (lower-case letters mark the rest of a big
creature's space, for the eye only).  Points are ``(x, y)`` in squares.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineoffire.errors import RequestError
from boards import board_from_rows
from lineoffire.maps import SIZES, BattleMap, Creature, MapError
from lineoffire.resolver import creature_cover as cc


def board(picture: str, walls=(), **specs) -> BattleMap:
    """A map from a picture; ``specs[letter]`` adds fields to that creature."""
    return board_from_rows(picture.split(), walls=walls, fields=specs)


def window_table(v):
    return [(w["creature"], w["bonus"], w["from"], w["to"]) for w in v["windows"]]


# ------------------------------------------------------------ the rule text
def test_raider_behind_melee_raider_has_full_cover():
    # A raider shoots at a player (Evasion 12) behind a melee raider of the same size.
    m = board("S.RP.", S={"team": "raiders"}, R={"id": "Melee raider", "team": "raiders"},
              P={"id": "Player", "evasion": 12})
    v = cc.resolve(m, "S", "Player")
    assert list(v)[0] == "cover"
    assert (v["cover"], v["bonus"], v["blocked"]) == ("full", 4, False)
    assert (v["base_evasion"], v["enhanced_evasion"]) == (12, 16)
    assert window_table(v) == [("Melee raider", 4, 12, 16)]
    assert v["providers"] == [{"kind": "creature", "creature": "Melee raider"}]
    assert v["lines"][0]["from"] == [0.5, 0.5] and v["lines"][0]["to"] == [3.5, 0.5]


def test_human_behind_super_mutant_is_full_and_mutant_behind_human_is_half():
    # Medium behind Large: full (+4).
    m = board("""
        ..mm...
        S.MmH..
    """, M={"id": "Super Mutant", "size": "large", "y": 0}, H={"id": "Human", "evasion": 10})
    v = cc.resolve(m, "S", "Human")
    assert (v["cover"], v["bonus"]) == ("full", 4)
    assert window_table(v) == [("Super Mutant", 4, 10, 14)]
    # Large behind Medium: half (+2).
    m = board("""
        .....m.
        S.H..Mm
        .......
    """, H={"id": "Human"}, M={"id": "Super Mutant", "size": "large", "y": 0, "evasion": 11})
    v = cc.resolve(m, "S", "Super Mutant")
    assert [f["creature"] for f in v["in_front"]] == ["Human"]
    assert (v["cover"], v["bonus"]) == ("half", 2)
    assert window_table(v) == [("Human", 2, 11, 13)]


@pytest.mark.parametrize("front", ["tiny", "small", "medium", "large", "huge"])
@pytest.mark.parametrize("target", ["small", "medium", "large"])
def test_size_table(front, target):
    # S shoots T (at (8, 2)) past F (at (4, 2), a huge one at (4, 1)).
    specs = {"F": {"size": front, "y": 1 if front == "huge" else 2},
             "T": {"size": target, "evasion": 12}}
    m = board("""
        ...........
        ...........
        S...F...T..
        ...........
        ...........
    """, **specs)
    v = cc.resolve(m, "S", "T")
    assert [f["creature"] for f in v["in_front"]] == ["F"]
    diff = SIZES.index(front) - SIZES.index(target)
    expected = 4 if diff >= 0 else 2 if diff == -1 else 0
    assert v["in_front"][0]["bonus"] == expected
    assert v["bonus"] == expected
    assert v["cover"] == {4: "full", 2: "half", 0: "none"}[expected]
    # Two or more sizes smaller: too small to block, and no window.
    assert window_table(v) == ([("F", expected, 12, 12 + expected)] if expected else [])


def test_two_creatures_in_front_stack_nearest_first():
    m = board("S.AB.T", T={"evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["cover"], v["bonus"], v["enhanced_evasion"]) == ("full", 8, 20)
    assert window_table(v) == [("A", 4, 12, 16), ("B", 4, 16, 20)]


def test_half_then_full_windows_keep_line_order():
    # Behind a large target: a medium (half) nearer the shooter, then a large (full).
    m = board("""
        ....b..t.
        S.A.Bb.Tt
    """, B={"size": "large", "y": 0}, T={"size": "large", "y": 0, "evasion": 10})
    v = cc.resolve(m, "S", "T")
    assert window_table(v) == [("A", 2, 10, 12), ("B", 4, 12, 16)]
    assert v["bonus"] == 6 and v["cover"] == "full"


def test_no_creature_no_cover():
    v = cc.resolve(board("S...T", T={"evasion": 9}), "S", "T")
    assert (v["cover"], v["bonus"], v["windows"], v["in_front"]) == ("none", 0, [], [])
    assert v["enhanced_evasion"] == 9


def test_windows_without_evasion_have_no_bounds():
    v = cc.resolve(board("S.AT"), "S", "T")
    assert window_table(v) == [("A", 4, None, None)]
    assert v["base_evasion"] is None and v["enhanced_evasion"] is None


# ------------------------------------------------------------ object cover
# A wall one edge long across the centre line at x = 2 (S sees T around it):
# the line is stopped, line of effect exists, the target peeks: +4.
WALL_AT_2 = {"kind": "wall", "points": [[2, 1], [2, 2]]}
WALL_AT_4 = {"kind": "wall", "points": [[4, 1], [4, 2]]}


def test_wall_peek_is_plus_four_object_cover():
    m = board("""
        ......
        S....T
        ......
    """, walls=[WALL_AT_2], T={"evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["cover"], v["bonus"], v["blocked"], v["counted"]) == ("full", 4, False, "object")
    assert window_table(v) == [("object", 4, 12, 16)]
    assert v["providers"] == [{"kind": "wall", "wall": [0, 0]}]


@pytest.mark.parametrize("wall, ally_x, provider", [
    (WALL_AT_2, 3, "object"),  # the wall is nearer the shooter
    (WALL_AT_4, 2, "A"),       # the ally is nearer the shooter
])
def test_wall_and_ally_give_four_not_eight(wall, ally_x, provider):
    m = board("""
        ......
        S....T
        ......
    """, walls=[wall], T={"evasion": 12})
    m = m.with_creatures(m.creatures + [Creature("A", ally_x, 1)])
    v = cc.resolve(m, "S", "T")
    assert [f["creature"] for f in v["in_front"]] == ["A"]
    assert (v["object_bonus"], v["creature_bonus"]) == (4, 4)
    assert (v["bonus"], v["enhanced_evasion"]) == (4, 16)
    assert window_table(v) == [(provider, 4, 12, 16)]


def test_two_allies_beat_a_wall():
    m = board("""
        .......
        S..AB.T
        .......
    """, walls=[WALL_AT_2], T={"evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["counted"], v["bonus"], v["object_bonus"]) == ("creatures", 8, 4)
    assert window_table(v) == [("A", 4, 12, 16), ("B", 4, 16, 20)]


def test_low_square_is_half_cover_and_an_ally_beats_it():
    m = board("S.=.T", T={"evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["cover"], v["bonus"], v["counted"]) == ("half", 2, "object")
    assert window_table(v) == [("object", 2, 12, 14)]
    assert v["providers"] == [{"kind": "low", "square": [2, 0]}]
    v = cc.resolve(board("S.=AT", T={"evasion": 12}), "S", "T")
    assert (v["counted"], window_table(v)) == ("creatures", [("A", 4, 12, 16)])


def test_arrow_slit_is_plus_four_unless_the_shooter_stands_at_it():
    slit = {"kind": "slit", "points": [[3, 0], [3, 3]]}
    m = board("""
        ......
        S....T
        ......
    """, walls=[slit], T={"evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["cover"], v["bonus"], v["counted"]) == ("full", 4, "object")
    assert v["providers"] == [{"kind": "slit", "wall": [0, 0]}]
    m = board("""
        ......
        ..S..T
        ......
    """, walls=[slit], T={"evasion": 12})
    v = cc.resolve(m, "S", "T")  # S's space touches the slit: distance 0
    assert (v["cover"], v["bonus"], v["windows"]) == ("none", 0, [])


def test_no_line_of_effect_is_total_cover():
    # T is walled in on every side.
    box = {"kind": "wall", "points": [[4, 0], [4, 3], [6, 3]]}
    m = board("""
        ......
        S...T.
        ......
    """, walls=[box, {"kind": "wall", "points": [[4, 0], [6, 0]]}], T={"evasion": 12})
    v = cc.resolve(m, "S", "T", attack_total=30)
    assert (v["cover"], v["bonus"], v["blocked"], v["windows"]) == ("total", None, True, [])
    assert (v["outcome"], v["hit"]) == ("hit_cover", "object")


# ------------------------------------------------------------ human shield
def test_human_shield_off_the_line_is_last_in_front():
    m = board("""
        ......G
        S.A..T.
    """, T={"grappling": "G", "evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert [(f["creature"], f["shield"]) for f in v["in_front"]] == [("A", False), ("G", True)]
    assert window_table(v) == [("A", 4, 12, 16), ("G", 4, 16, 20)]


def test_human_shield_already_on_the_line_keeps_its_place():
    m = board("S.G.AT", T={"grappling": "G", "evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert [(f["creature"], f["shield"]) for f in v["in_front"]] == [("G", False), ("A", False)]
    assert window_table(v) == [("G", 4, 12, 16), ("A", 4, 16, 20)]


def test_human_shield_behind_is_held_in_front():
    m = board("S..TGB", T={"grappling": "G", "evasion": 12}, G={"size": "small"})
    v = cc.resolve(m, "S", "T")
    assert window_table(v) == [("G", 2, 12, 14)]
    assert v["behind"] == ["B"]


# ------------------------------------------------------------ behind the target
def test_creatures_behind_nearest_first_and_walls_stop_strays():
    m = board("S.T.B.C.D", walls=[{"kind": "wall", "points": [[7, 0], [7, 1]]}])
    v = cc.resolve(m, "S", "T")
    assert v["behind"] == ["B", "C"]  # D stands beyond the wall
    assert v["lines"][1]["role"] == "stray"
    assert v["lines"][1]["from"] == [2.5, 0.5] and v["lines"][1]["to"] == [9, 0.5]


def test_low_and_slit_do_not_stop_strays():
    m = board("S.T=B.C", walls=[{"kind": "slit", "points": [[6, 0], [6, 1]]}])
    assert cc.resolve(m, "S", "T")["behind"] == ["B", "C"]


def test_ignore_dead_leaves_the_dead_out():
    m = board("S.AT.B", A={"dead": True}, B={"dead": True}, T={"evasion": 12})
    assert window_table(cc.resolve(m, "S", "T")) == [("A", 4, 12, 16)]
    v = cc.resolve(m, "S", "T", options={"ignore_dead": True})
    assert (v["windows"], v["behind"]) == ([], [])


# ------------------------------------------------------------ attack_total
@pytest.mark.parametrize("total, outcome, hit", [
    (5, "miss", None), (12, "miss", None), (13, "hit_cover", "R"), (16, "hit_cover", "R"),
    (17, "hit", "P"), (30, "hit", "P"),
])
def test_attack_total_resolves_one_shot(total, outcome, hit):
    m = board("S.RP.", P={"evasion": 12})
    v = cc.resolve(m, "S", "P", attack_total=total)
    assert (v["outcome"], v["hit"]) == (outcome, hit)


def test_defence_overrides_the_map_evasion():
    v = cc.resolve(board("S.RP.", P={"evasion": 12}), "S", "P", attack_total=15, defence=15)
    assert (v["outcome"], v["hit"], window_table(v)) == ("miss", None, [("R", 4, 15, 19)])


# ------------------------------------------------------------ stray segment
def test_stray_segment_reaches_the_edge_along_grid_and_diagonal_lines():
    m = BattleMap.build(10, 6)
    assert cc.stray_segment(m, (0.5, 0.5), (2.5, 0.5)) == [2.5, 0.5, 10.0, 0.5]
    assert cc.stray_segment(m, (0.5, 0.5), (1.5, 1.5)) == [1.5, 1.5, 6.0, 6.0]
    assert cc.stray_segment(m, (9.5, 5.5), (8.5, 5.5)) == [8.5, 5.5, 0.0, 5.5]



def test_stray_segment_on_a_huge_map_rounds_the_edge_point():
    # Direction (599, 1) squares: the line's next 1/1024 point lies past the edge,
    # so the edge point is rounded to 1/1024 (1.5 + 0.5/599 -> 1.5 + 1/1024).
    m = BattleMap.build(600, 3)
    assert cc.stray_segment(m, (0.5, 0.5), (599.5, 1.5)) == [599.5, 1.5, 600.0, 1.5 + 1 / 1024]

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.data())
def test_stray_segment_is_collinear_and_maximal(w, h, data):
    m = BattleMap.build(w, h)
    # centres of spaces: odd halves (odd spaces) or inner integers (even spaces)
    a = [data.draw(st.integers(1, 2 * w - 1)) / 2, data.draw(st.integers(1, 2 * h - 1)) / 2]
    b = [data.draw(st.integers(1, 2 * w - 1)) / 2, data.draw(st.integers(1, 2 * h - 1)) / 2]
    seg = cc.stray_segment(m, a, b)
    if a == b:
        assert seg is None
        return
    ux, uy, vx, vy = (round(v * 1024) for v in seg)
    dx, dy = round((b[0] - a[0]) * 1024), round((b[1] - a[1]) * 1024)
    assert (ux, uy) == (round(b[0] * 1024), round(b[1] * 1024))
    assert (vx - ux) * dy == (vy - uy) * dx                # on the line
    assert (vx - ux) * dx + (vy - uy) * dy > 0             # beyond the target
    assert 0 <= vx <= w * 1024 and 0 <= vy <= h * 1024     # on the map
    g = math.gcd(dx, dy)
    nx, ny = vx + dx // g, vy + dy // g                    # one lattice step further
    assert not (0 <= nx <= w * 1024 and 0 <= ny <= h * 1024)


# ------------------------------------------------------------ area effects
# One line from the origin (a free point) to the target's centre, no stray
# extension.  Row 1 is the line y = 1.5 from the origin (0.5, 1.5).
ORIGIN = [0.5, 1.5]
SEALED = {"kind": "wall", "points": [[2, 0], [2, 3]]}


def area(m, target="T", caster=None, origin=ORIGIN, **kw):
    return cc.resolve(m, caster, target, attack="area", origin=origin, **kw)


def test_area_same_size_creature_in_front_is_full_and_has_the_window():
    m = board("""
        ........
        ..R..T.B
        ........
    """, T={"evasion": 12})
    v = area(m)
    assert (v["cover"], v["bonus"], v["blocked"], v["counted"]) == ("full", 4, False, "creatures")
    assert (v["base_evasion"], v["enhanced_evasion"]) == (12, 16)
    assert window_table(v) == [("R", 4, 12, 16)]
    assert v["providers"] == [{"kind": "creature", "creature": "R"}]
    # one line, from the origin; B behind T is no one's business: no strays
    assert v["behind"] == []
    assert [(ln["role"], ln["from"], ln["to"]) for ln in v["lines"]] == [
        ("front", [0.5, 1.5], [5.5, 1.5])]


@pytest.mark.parametrize("size, cover, window", [
    ("tiny", "none", []),
    ("small", "half", [("R", 2, 12, 14)]),
    ("medium", "full", [("R", 4, 12, 16)]),
    ("large", "full", [("R", 4, 12, 16)]),
])
def test_area_cover_by_the_relative_size_of_the_creature_in_front(size, cover, window):
    m = board("""
        ......
        ..R..T
        ......
    """, R={"size": size, "y": 0 if size == "large" else 1}, T={"evasion": 12})
    v = area(m)
    assert [f["creature"] for f in v["in_front"]] == ["R"]
    assert (v["cover"], window_table(v)) == (cover, window)


def test_area_creatures_stack_nearest_the_origin_first():
    # origin at the right end: B is nearer it than A
    m = board("""
        .......
        T.A.B..
        .......
    """, A={"size": "small"}, T={"evasion": 10})
    v = area(m, origin=[6.5, 1.5])
    assert window_table(v) == [("B", 4, 10, 14), ("A", 2, 14, 16)]
    assert (v["cover"], v["bonus"]) == ("full", 6)


def test_area_origin_behind_a_sealed_wall_is_total_cover():
    m = board("""
        ......
        .....T
        ......
    """, walls=[SEALED], T={"evasion": 12})
    v = area(m)
    assert (v["cover"], v["bonus"], v["blocked"], v["windows"]) == ("total", None, True, [])
    assert v["providers"] == [{"kind": "wall", "wall": [0, 0]}]
    # from the target's side of the wall the effect reaches it
    assert area(m, origin=[3.5, 0.5])["cover"] == "none"


def test_area_peek_past_a_wall_and_low_cover_are_object_cover():
    m = board("""
        ......
        .....T
        ......
    """, walls=[{"kind": "wall", "points": [[2, 1.4], [2, 1.6]]}], T={"evasion": 12})
    # the centre line is stopped; the line to T's corner (5, 1) passes x = 2 at y = 4/3
    v = area(m)
    assert (v["cover"], v["bonus"], v["blocked"], v["counted"]) == ("full", 4, False, "object")
    assert window_table(v) == [("object", 4, 12, 16)]
    v = area(board("..=..T", T={"evasion": 12}), origin=[0.5, 0.5])
    assert (v["cover"], window_table(v)) == ("half", [("object", 2, 12, 14)])


def test_area_line_of_effect_is_from_the_origin_point_not_a_space():
    # a wall one edge long across row 1: a shooter's space sees around it (a
    # peek), but every line from the point (0.5, 1.5) to T's space crosses it
    m = board("""
        ......
        S....T
        ......
    """, walls=[WALL_AT_2], T={"evasion": 12})
    assert (cc.resolve(m, "S", "T")["cover"], cc.resolve(m, "S", "T")["counted"]) == ("full", "object")
    for caster in (None, "S"):
        v = area(m, caster=caster)
        assert (v["cover"], v["blocked"]) == ("total", True)


@pytest.mark.parametrize("caster", [None, "C"])
def test_area_slit_counts_even_where_the_caster_stands_at_it(caster):
    # C's space touches the slit: its own shots ignore it, its area effects do not
    slit = {"kind": "slit", "points": [[3, 0], [3, 3]]}
    m = board("""
        ..C...
        .....T
        ......
    """, walls=[slit], T={"evasion": 12})
    assert cc.resolve(m, "C", "T")["cover"] == "none"
    v = area(m, caster=caster)
    assert (v["cover"], v["bonus"], v["counted"]) == ("full", 4, "object")
    assert v["providers"] == [{"kind": "slit", "wall": [0, 0]}]


CASTER_CASES = {
    # the caster between the origin and the target is a creature on the line
    "caster in front": (board("""
        ......
        ..C..T
        ......
    """, T={"evasion": 12}), ORIGIN, "full", [("C", 4, 12, 16)]),
    # a disciplined caster's ally in front still gives cover (no shooter, no trait)
    "disciplined caster": (board("""
        C.....
        ..A..T
        ......
    """, C={"team": "party", "traits": ["trigger_discipline"]}, A={"team": "party"},
        T={"evasion": 12}), ORIGIN, "full", [("A", 4, 12, 16)]),
    # the target grapples the caster: a human shield for every effect
    "grappled caster": (board("""
        .....C
        .....T
        ......
    """, T={"grappling": "C", "evasion": 12}), ORIGIN, "full", [("C", 4, 12, 16)]),
    # a wall through the caster's square: the origin is beyond it, sealed off
    "caster across a wall": (board("""
        ......
        .C...T
        ......
    """, walls=[{"kind": "wall", "points": [[1.5, 0], [1.5, 3]]}], T={"evasion": 12}),
        [1.25, 1.5], "total", []),
    # an origin on a wall and on the caster's edge reaches the far side
    "origin on the caster's edge": (board("""
        ......
        .C..T.
        ......
    """, walls=[SEALED], T={"evasion": 12}), [2, 1.5], "none", []),
    # the line starts inside the caster's space: it passes the caster, as any creature
    "origin in the caster": (board("""
        ......
        C...T.
        ......
    """, T={"evasion": 12}), ORIGIN, "full", [("C", 4, 12, 16)]),
}


@pytest.mark.parametrize("case", list(CASTER_CASES))
def test_area_origin_is_free_whoever_casts(case):
    m, origin, cover, windows = CASTER_CASES[case]
    anonymous = area(m, origin=origin)
    assert (anonymous["cover"], window_table(anonymous)) == (cover, windows)
    assert area(m, caster="C", origin=origin) == anonymous


def test_area_decide_summary_effect_search_and_given_line_of_effect():
    from lineoffire.resolver.common import trace_plan

    m = board("""
        ......
        .....T
        ......
    """, walls=[SEALED], T={"evasion": 12})
    p = cc.plan(m, None, "T", attack="area", origin=ORIGIN)
    assert (p.attacker.tolist(), p.target.tolist()) == ([-1], [0])
    traces = list(trace_plan(m, p))
    assert cc.effect_search(m, p, traces) is None  # decide searches from the origin itself
    full = cc.decide(m, p, traces)
    assert full["cover"] == "total"
    short = cc.decide(m, p, traces, summary=True)
    assert short == {k: v for k, v in full.items() if k not in ("providers", "lines")}
    assert cc.decide(m, p, traces, line_of_effect=False, summary=True) == short
    # the caller's answer is used as it is: line of effect makes the wall a peek
    seen = cc.decide(m, p, traces, line_of_effect=True)
    assert (seen["cover"], seen["counted"], seen["bonus"]) == ("full", "object", 4)


def test_area_requests_are_checked():
    m = board("S.R.T", T={"evasion": 12})
    with pytest.raises(RequestError, match="an area attack needs an origin point"):
        cc.resolve(m, None, "T", attack="area")
    with pytest.raises(RequestError, match="origin applies to area attacks only"):
        cc.resolve(m, "S", "T", origin=[0.5, 0.5])
    with pytest.raises(RequestError, match="a ranged attack needs an attacker"):
        cc.resolve(m, None, "T")
    with pytest.raises(RequestError, match=r"origin \(9, 0.5\) lies outside the 5x1 map"):
        area(m, origin=[9, 0.5])
    with pytest.raises(RequestError, match="same creature 'T'"):
        area(m, caster="T", origin=[0.5, 0.5])
    with pytest.raises(RequestError, match="attack_total does not apply to an area effect"):
        area(m, origin=[0.5, 0.5], attack_total=15)
    with pytest.raises(RequestError, match="attacker: unknown creature id 'X'"):
        area(m, caster="X", origin=[0.5, 0.5])


def test_cover_op_answers_area_requests():
    from lineoffire.ops import run_op

    request = {"op": "cover", "rules": "creature-cover", "target": "T", "attack": "area",
               "origin": [1.5, 0.5],
               "map": {"width": 5, "height": 1,
                       "creatures": [{"id": "S", "x": 0, "y": 0}, {"id": "R", "x": 2, "y": 0},
                                     {"id": "T", "x": 4, "y": 0, "evasion": 12}]}}
    answer = run_op(request)
    assert (answer["cover"], answer["bonus"]) == ("full", 4)
    assert window_table(answer) == [("R", 4, 12, 16)]
    assert run_op(dict(request, attacker="S")) == answer
    # past R the effect meets no one
    assert run_op(dict(request, attacker="S", origin=[3.5, 0.5]))["cover"] == "none"


def test_shots_refuse_area_effects():
    from lineoffire.ops import run_op

    m = board("S.R.T", T={"evasion": 12})
    with pytest.raises(RequestError, match="an area effect makes no attack roll") as err:
        cc.shots(m, "S", "T", rolls=[14], attack="area")
    assert err.value.code == "bad_attack"
    with pytest.raises(RequestError, match="an area effect makes no attack roll"):
        cc.fire_line(m, "S", "T", attack="area")
    request = {"op": "shots", "map": {"width": 5, "height": 1, "creatures": [
        {"id": "S", "x": 0, "y": 0}, {"id": "T", "x": 4, "y": 0, "evasion": 12}]},
        "attacker": "S", "target": "T", "rolls": [14], "attack": "area", "origin": [1.5, 0.5]}
    with pytest.raises(RequestError, match="an area effect makes no attack roll") as err:
        run_op(request)
    assert err.value.code == "bad_attack"
    # the attacks that roll draw the same line
    del request["origin"]
    answers = [run_op(dict(request, attack=a)) for a in ("ranged", "melee", "reach")]
    assert [a["shots"][0]["hit"] for a in answers] == ["T", "T", "T"]
    with pytest.raises(RequestError, match="unknown attack 'burst'.*ranged, melee, reach"):
        run_op(dict(request, attack="burst"))


# ------------------------------------------------------------ bad input
def test_unknown_creature_is_an_error():
    m = board("S.RP.")
    with pytest.raises(RequestError, match="target: unknown creature id 'Q'"):
        cc.resolve(m, "S", "Q")
    with pytest.raises(RequestError, match="attacker: unknown creature id 'X'"):
        cc.plan(m, "X", "P")


def test_bad_requests_name_the_problem():
    m = board("S.RP.")
    with pytest.raises(RequestError, match="same creature 'S'"):
        cc.resolve(m, "S", "S")
    with pytest.raises(RequestError, match="unknown attack 'burst' for the creature-cover rules"):
        cc.resolve(m, "S", "P", attack="burst")
    with pytest.raises(RequestError, match="unknown option 'lean'.*ignore_dead, ignore_prone"):
        cc.resolve(m, "S", "P", options={"lean": True})
    with pytest.raises(RequestError, match="target 'P' has no evasion"):
        cc.resolve(m, "S", "P", attack_total=14)
    with pytest.raises(TypeError, match="attack_total must be an integer"):
        cc.resolve(m, "S", "P", attack_total="14")
    with pytest.raises(MapError, match="grappling names unknown creature 'Z'"):
        board("S.RP.", P={"grappling": "Z"})


def test_decide_refuses_traces_of_another_plan():
    m = board("S.RP.")
    p = cc.plan(m, "S", "P")
    with pytest.raises(ValueError, match="the plan has 2 lines but 0 traces"):
        cc.decide(m, p, [])


def test_a_grappled_shooter_is_no_shield_against_itself():
    m = board("S.T", T={"grappling": "S", "evasion": 12})
    v = cc.resolve(m, "S", "T")
    assert (v["cover"], v["in_front"]) == ("none", [])


def test_attack_total_with_trigger_discipline_misses_the_ally():
    m = board("S.AT", S={"team": "party", "traits": ["trigger_discipline"]},
              A={"team": "party"}, T={"evasion": 12})
    v = cc.resolve(m, "S", "T", attack_total=14)
    assert (v["outcome"], v["hit"]) == ("miss", None)


def test_cover_op_answers_creature_cover_requests():
    from lineoffire.ops import run_op

    request = {
        "op": "cover", "rules": "creature-cover", "attacker": "S", "target": "P",
        "map": {"format": "lineoffire-map", "version": 1, "width": 5, "height": 1,
                "squares": ["....."], "walls": [],
                "creatures": [{"id": "S", "x": 0, "y": 0}, {"id": "R", "x": 2, "y": 0},
                              {"id": "P", "x": 3, "y": 0, "evasion": 12}]},
    }
    answer = run_op(request)
    assert list(answer)[:2] == ["cover", "bonus"]
    assert (answer["cover"], answer["bonus"]) == ("full", 4)
    assert window_table(answer) == [("R", 4, 12, 16)]
