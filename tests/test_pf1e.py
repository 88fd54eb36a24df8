"""Pathfinder 1e cover: one hand-drawn map per sentence of the rule text.

Maps are drawn as rows of text: ``#`` a solid square, ``=`` a low square,
``.`` open, and a capital letter a medium creature with that id standing on
that square.  Larger creatures and thin walls are added by hand.  Squares are
``(c, r)``, points ``(x, y)``; a medium creature at square ``(c, r)`` has the
corners ``(c, r) (c+1, r) (c, r+1) (c+1, r+1)``.
"""

from __future__ import annotations

import pytest

from lineoffire.errors import RequestError
from boards import board_from_rows
from lineoffire.maps import BattleMap
from lineoffire.resolver import pf1e, ruleset


def board(*rows, walls=(), creatures=(), sizes=None, **kw):
    """A map from text rows; capital letters are creatures (medium unless ``sizes``)."""
    fields = {k: {"size": v} for k, v in (sizes or {}).items()}
    return board_from_rows(rows, walls=walls, creatures=creatures, fields=fields, **kw)


def wall(kind, *points, **kw):
    return {"kind": kind, "points": [list(p) for p in points], **kw}


def cover(bmap, a="A", t="T", **kw):
    return pf1e.resolve(bmap, a, t, **kw)


# ---------------------------------------------------------------- ranged
def test_ruleset_registry_names_this_module():
    assert ruleset("pf1e") is pf1e


def test_cover_from_a_wall_square():
    # The corner (1, 1) sees the top of T's square along the top edge of the
    # wall square (grazing is clear), but its lines to T's lower corners go
    # through the wall: every corner has 2 lines through it.
    m = board(".....",
              "A.#.T",
              ".....")
    r = cover(m)
    assert r["cover"] == "cover"
    assert (r["ac_bonus"], r["reflex_bonus"]) == (4, 2)
    assert r["corner"] == [0, 1] and r["square"] == [4, 1]
    assert r["providers"] == [{"kind": "solid", "square": [2, 1]}]
    assert [ln["verdict"] for ln in r["lines"]] == ["none", "none", "cover", "cover"]
    assert [ln["to"] for ln in r["lines"]] == [[4, 1], [5, 1], [4, 2], [5, 2]]
    assert r["lines"][2]["blockers"] == [{"kind": "solid", "square": [2, 1], "t": 0.5}]


def test_output_keys_in_spec_order():
    m = board(".....", "A.#.T", ".....")
    assert list(cover(m)) == ["cover", "ac_bonus", "reflex_bonus", "stealth", "stealth_bonus",
                              "attack_of_opportunity", "corner", "square", "providers", "lines"]


def test_open_ground_is_no_cover():
    r = cover(board("A...T"))
    assert r["cover"] == "none" and r["providers"] == []
    assert r["corner"] == [0, 0] and r["square"] == [4, 0]
    assert all(ln["verdict"] == "none" for ln in r["lines"])


def test_cover_from_a_thin_wall():
    # A wall on x = 2.5 from y = 1.25 down: the lines along y = 1 pass above
    # it, the others from the top corners cross it.
    m = board(".....",
              "A...T",
              ".....", walls=[wall("wall", (2.5, 1.25), (2.5, 3))])
    r = cover(m)
    assert r["cover"] == "cover"
    assert r["corner"] == [0, 1] and r["square"] == [4, 1]
    assert r["providers"] == [{"kind": "wall", "wall": [0, 0]}]
    assert [ln["verdict"] for ln in r["lines"]] == ["none", "none", "cover", "cover"]


def test_creature_gives_soft_cover():
    m = board(".....",
              "A.B.T",
              ".....")
    r = cover(m)
    assert r["cover"] == "soft"
    assert (r["ac_bonus"], r["reflex_bonus"], r["stealth"]) == (4, 0, False)
    assert r["providers"] == [{"kind": "creature", "creature": "B"}]
    assert [ln["verdict"] for ln in r["lines"]] == ["none", "none", "soft", "soft"]


def test_dead_creature_ignored_by_option():
    m = board(".....", "A...T", ".....",
              creatures=[{"id": "B", "x": 2, "y": 1, "dead": True}])
    assert cover(m)["cover"] == "soft"
    assert cover(m, options={"ignore_dead": True})["cover"] == "none"


# ---------------------------------------------------------------- low cover
LOW_WALL_RANGE = [
    # (row, why, expected): the low square is 3 ft high, not more than half
    # of a medium target's 6 ft, so the 30 ft rule applies.
    ("A.......=.....T", "target 6 squares (30 ft) from the low wall", "cover"),
    ("A.......=......T", "target 7 squares (35 ft) from the low wall", "none"),
    ("A..=..T", "shooter and target both 3 squares from it (tie)", "cover"),
    ("A=...T", "shooter 1 square from it, target 4: shooter closer", "none"),
    ("A...=T", "target beside it, shooter 4 squares away", "cover"),
]


@pytest.mark.parametrize("row, why, expected", LOW_WALL_RANGE, ids=[w for _, w, _ in LOW_WALL_RANGE])
def test_low_wall_within_30_ft_and_closer_shooter(row, why, expected):
    blank = "." * len(row)
    r = cover(board(blank, row, blank))
    assert r["cover"] == expected, why
    low = {"kind": "low", "square": [row.index("="), 1]}
    assert r["providers"] == ([low] if expected == "cover" else [])


def test_low_wall_30_ft_counts_in_map_feet():
    # At 10 ft squares, 4 squares are 40 ft: too far.
    row = "A.......=...T"
    blank = "." * len(row)
    assert cover(board(blank, row, blank))["cover"] == "cover"
    assert cover(board(blank, row, blank, square_ft=10))["cover"] == "none"


def test_low_wall_taller_than_half_a_small_target_is_plain_cover():
    # 3 ft is more than half of a small creature's 3 ft: plain cover although
    # the target is 8 squares away and the shooter stands beside the wall.
    row = "A=........T"
    blank = "." * len(row)
    small = board(blank, row, blank, sizes={"T": "small"})
    medium = board(blank, row, blank)
    assert cover(small)["cover"] == "cover"
    assert cover(medium)["cover"] == "none"


def test_low_thin_wall_height_against_target_height():
    # A low thin wall 4 ft high is more than half of 6 ft: plain cover even for
    # a shooter standing next to it; at 3 ft that shooter ignores it, and so
    # at 4 ft against a 9 ft target (4 is not more than 4.5).
    rows = ("........", "A.....T.", "........")
    tall = board(*rows, walls=[wall("low", (1.5, 0), (1.5, 3), height_ft=4)])
    short = board(*rows, walls=[wall("low", (1.5, 0), (1.5, 3), height_ft=3)])
    giant = BattleMap.build(8, 3, walls=[wall("low", (1.5, 0), (1.5, 3), height_ft=4)],
                            creatures=[{"id": "A", "x": 0, "y": 1},
                                       {"id": "T", "x": 6, "y": 1, "height_ft": 9}])
    assert cover(tall)["cover"] == "cover"
    assert cover(tall)["providers"] == [{"kind": "low", "wall": [0, 0]}]
    assert cover(short)["cover"] == "none"
    assert cover(giant)["cover"] == "none"


# ---------------------------------------------------------------- melee
def test_melee_through_a_low_wall_is_cover():
    # A low wall on the shared edge, longer than it: melee cover at any
    # distance, and no attack of opportunity.
    m = board("..", "AT", "..", walls=[wall("low", (1, 0), (1, 3))])
    r = cover(m, attack="melee")
    assert r["cover"] == "cover"
    assert r["attack_of_opportunity"] is False
    assert r["providers"] == [{"kind": "low", "wall": [0, 0]}]
    assert len(r["lines"]) == 16 and r["square"] == [1, 1]


def test_melee_ignores_creatures_between():
    # A and T are diagonal; B and C fill the other two squares of the 2x2.
    m = board("AB", "CT")
    r = cover(m, attack="melee")
    assert r["cover"] == "none"
    assert r["attack_of_opportunity"] is True
    assert r["providers"] == []


def test_melee_in_the_open_allows_attack_of_opportunity():
    r = cover(board("AT"), attack="melee")
    assert (r["cover"], r["attack_of_opportunity"]) == ("none", True)


def test_melee_against_a_target_not_adjacent_is_an_error():
    with pytest.raises(RequestError, match="not adjacent") as info:
        cover(board("A.T"), attack="melee")
    assert info.value.code == "not_adjacent"


def test_melee_wall_one_edge_long_is_cover_not_total():
    # The wall runs exactly along the shared edge: it can be reached around.
    m = board("AT.", "...", walls=[wall("wall", (1, 0), (1, 1))])
    r = cover(m, attack="melee")
    assert r["cover"] == "cover"
    assert r["attack_of_opportunity"] is False


def test_big_creatures_pick_any_square_in_melee():
    # The wall covers the top half of the edge x = 2.  Medium against medium
    # the only pair of squares is behind it: cover.  A large attacker or a
    # large target can use its lower squares instead.
    w = [wall("wall", (2, 0), (2, 1))]
    medium = BattleMap.build(5, 3, walls=w, creatures=[{"id": "A", "x": 1, "y": 0},
                                                      {"id": "T", "x": 2, "y": 0}])
    big_both = BattleMap.build(5, 3, walls=w, creatures=[
        {"id": "A", "x": 0, "y": 0, "size": "large"}, {"id": "T", "x": 2, "y": 0, "size": "large"}])
    big_target = BattleMap.build(5, 3, walls=w, creatures=[
        {"id": "A", "x": 1, "y": 1}, {"id": "T", "x": 2, "y": 0, "size": "large"}])
    assert cover(medium, attack="melee")["cover"] == "cover"
    r = cover(big_both, attack="melee")
    assert r["cover"] == "none" and r["attack_of_opportunity"] is True
    # The attacker's square (1, 1) against the target's square (2, 1).
    assert r["corner"] == [1, 1] and r["square"] == [2, 1]
    r = cover(big_target, attack="melee")
    assert r["cover"] == "none" and r["square"] == [2, 1]


def test_attack_of_opportunity_is_null_when_not_adjacent():
    assert cover(board("A.T"))["attack_of_opportunity"] is None


def test_ranged_against_adjacent_target_reports_melee_aoo():
    m = board("..", "AT", "..", walls=[wall("low", (1, 0), (1, 3))])
    r = cover(m)
    assert r["cover"] == "cover"  # the low wall is beside both
    assert r["attack_of_opportunity"] is False
    assert cover(board("AT"))["attack_of_opportunity"] is True


# ---------------------------------------------------------------- reach
def test_reach_uses_ranged_lines_and_soft_cover_per_option():
    m = board("...", "ABT", "...")
    assert cover(m, attack="reach")["cover"] == "soft"
    off = cover(m, attack="reach", options={"soft_cover_vs_reach": False})
    assert off["cover"] == "none" and off["providers"] == []
    # The option changes nothing for ranged attacks.
    assert cover(m, options={"soft_cover_vs_reach": False})["cover"] == "soft"


# ---------------------------------------------------------------- total cover
def test_total_cover_behind_a_sealed_wall():
    m = board(".....", "A...T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))])
    r = cover(m)
    assert r["cover"] == "total"
    assert (r["ac_bonus"], r["reflex_bonus"], r["stealth"]) == (None, None, True)
    assert r["providers"] == [{"kind": "wall", "wall": [0, 0]}]


def test_total_cover_adjacent_behind_a_wall_past_both_ends():
    m = board("..", "AT", "..", walls=[wall("wall", (1, 0), (1, 3))])
    for attack in ("ranged", "melee"):
        r = cover(m, attack=attack)
        assert r["cover"] == "total"
        assert r["attack_of_opportunity"] is False


def test_narrow_gap_all_corner_lines_stopped_but_line_of_effect():
    # The wall x = 2.5 has a gap for 1.40 < y < 1.45; every corner line
    # crosses x = 2.5 at y in {1, 1.375, 1.5, 1.625, 2}, so all are stopped,
    # yet the line y = 1.42 passes: cover, not total.
    m = board(".....", "A...T", ".....",
              walls=[wall("wall", (2.5, 0), (2.5, 1.40)), wall("wall", (2.5, 1.45), (2.5, 3))])
    r = cover(m)
    assert all(ln["verdict"] == "cover" for ln in r["lines"])
    assert r["cover"] == "cover"
    assert r["ac_bonus"] == 4


# ---------------------------------------------------------------- arrow slit
def test_arrow_slit_from_both_sides():
    # The slit runs along A's right edge: A shoots out freely, T shooting in
    # faces improved cover.
    m = board(".....", "A...T", ".....", walls=[wall("slit", (1, 0), (1, 3))])
    out = cover(m, "A", "T")
    assert out["cover"] == "none"
    back = cover(m, "T", "A")
    assert back["cover"] == "improved"
    assert (back["ac_bonus"], back["reflex_bonus"], back["stealth_bonus"]) == (8, 4, 10)
    assert back["providers"] == [{"kind": "slit", "wall": [0, 0]}]


def test_arrow_slit_a_square_away_still_counts():
    m = board("......", "A....T", "......", walls=[wall("slit", (2, 0), (2, 3))])
    assert cover(m, "A", "T")["cover"] == "improved"
    assert cover(m, "T", "A")["cover"] == "improved"


# ---------------------------------------------------------------- big creatures
def test_large_shooter_and_huge_target_choose_corner_and_square():
    # Solid squares (4, 0) and (4, 1) hide the top of the huge target from
    # the large shooter; the lines along and below y = 2 are clear.
    m = BattleMap.build(9, 4, squares=["....#....", "....#....", ".........", "........."],
                        creatures=[{"id": "A", "x": 0, "y": 0, "size": "large"},
                                   {"id": "T", "x": 6, "y": 0, "size": "huge"}])
    r = cover(m)
    assert r["cover"] == "none"
    assert r["corner"] == [0, 2] and r["square"] == [6, 2]
    assert [ln["from"] for ln in r["lines"]] == [[0, 2]] * 4


def test_big_target_behind_partial_wall_picks_the_visible_square():
    # A wall hides the top row of the large target; its bottom squares are clear.
    m = BattleMap.build(7, 3, squares=["...#...", ".......", "......."],
                        creatures=[{"id": "A", "x": 0, "y": 1},
                                   {"id": "T", "x": 5, "y": 0, "size": "large"}])
    r = cover(m)
    assert r["cover"] == "none"
    assert r["corner"] == [0, 1] and r["square"] == [5, 1]


# ---------------------------------------------------------------- area
def test_area_effect_from_an_origin():
    # From (0.5, 0.5) the lines to the top corners of T pass above the wall
    # square, those to the bottom corners through it: cover, Reflex +2.
    m = board(".....", "..#.T", ".....")
    r = pf1e.resolve(m, None, "T", attack="area", origin=(0.5, 0.5))
    assert r["cover"] == "cover" and r["reflex_bonus"] == 2
    assert r["corner"] == [0.5, 0.5] and r["square"] == [4, 1]
    assert r["attack_of_opportunity"] is None
    assert [ln["verdict"] for ln in r["lines"]] == ["none", "none", "cover", "cover"]


def test_area_low_cover_only_the_30_ft_test():
    # A ranged shooter beside the low square ignores it; an area effect from
    # the same place does not (there is no shooter to be closer).
    m = board(".....", "A=..T", ".....")
    assert cover(m)["cover"] == "none"
    assert pf1e.resolve(m, "A", "T", attack="area", origin=(0.5, 1.5))["cover"] == "cover"


def test_area_total_cover_is_from_the_origin():
    m = board(".....", "A...T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))])
    assert cover(m)["cover"] == "total"
    near = pf1e.resolve(m, "A", "T", attack="area", origin=(3.5, 1.5))
    assert near["cover"] == "none"
    far = pf1e.resolve(m, None, "T", attack="area", origin=(1.5, 0.5))
    assert far["cover"] == "total"


# ---------------------------------------------------------------- partial
PARTIAL_WALL = wall("wall", (3.75, 2.25), (3.9375, 1.875))


def test_partial_cover_option():
    # A short wall just in front of T's lower-left corner stops one line of
    # the best pair: one cover and three none.
    m = board(".....", "A...T", ".....", walls=[PARTIAL_WALL])
    r = cover(m)
    assert r["cover"] == "cover"
    assert [ln["verdict"] for ln in r["lines"]] == ["none", "none", "cover", "none"]
    p = cover(m, options={"partial_cover": True})
    assert p["cover"] == "partial"
    assert (p["ac_bonus"], p["reflex_bonus"], p["stealth"]) == (2, 1, True)
    assert p["providers"] == [{"kind": "wall", "wall": [0, 0]}]


# ---------------------------------------------------------------- table
#: Every output field for every cover level: SPEC section 5.
TABLE = {
    "none": (0, 0, False, 0),
    "soft": (4, 0, False, 0),
    "partial": (2, 1, True, 0),
    "cover": (4, 2, True, 0),
    "improved": (8, 4, True, 10),
    "total": (None, None, True, 0),
}

LEVEL_MAPS = {
    "none": (lambda: board("A...T"), "A", "T", {}),
    "soft": (lambda: board(".....", "A.B.T", "....."), "A", "T", {}),
    "partial": (lambda: board(".....", "A...T", ".....", walls=[PARTIAL_WALL]), "A", "T",
                {"options": {"partial_cover": True}}),
    "cover": (lambda: board(".....", "A.#.T", "....."), "A", "T", {}),
    "improved": (lambda: board(".....", "A...T", ".....", walls=[wall("slit", (1, 0), (1, 3))]),
                 "T", "A", {}),
    "total": (lambda: board(".....", "A.#.T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))]),
              "A", "T", {}),
}


@pytest.mark.parametrize("level", list(TABLE))
def test_lookup_table_of_every_output_field(level):
    make, a, t, kw = LEVEL_MAPS[level]
    r = cover(make(), a, t, **kw)
    assert r["cover"] == level
    assert (r["ac_bonus"], r["reflex_bonus"], r["stealth"], r["stealth_bonus"]) == TABLE[level]
    assert r["attack_of_opportunity"] is None  # none of these pairs is adjacent
    assert len(r["corner"]) == 2 and len(r["square"]) == 2
    assert len(r["lines"]) == 4
    assert all(set(ln) == {"from", "to", "verdict", "blockers"} for ln in r["lines"])
    assert (r["providers"] == []) == (level == "none")


def test_table_matches_module_outputs():
    assert pf1e.OUTPUTS == TABLE


# ---------------------------------------------------------------- plan/decide
def test_plan_and_decide_split_matches_resolve():
    from lineoffire.geometry import trace

    m = board(".....", "A.B.T", ".....")
    p = pf1e.plan(m, "A", "T")
    assert p.segments.shape == (16, 4)
    batch = trace(m, p.segments, attacker=p.attacker, target=p.target, **p.trace_options)
    assert pf1e.decide(m, p, batch) == cover(m)


def test_decide_needs_one_trace_per_line():
    m = board("A...T")
    p = pf1e.plan(m, "A", "T")
    with pytest.raises(ValueError, match="needs 16 traces"):
        pf1e.decide(m, p, [])


# ---------------------------------------------------------------- errors
def test_unknown_option_lists_valid_ones():
    with pytest.raises(RequestError, match="unknown option 'partial'.*partial_cover"):
        cover(board("A...T"), options={"partial": True})


def test_option_of_wrong_type():
    with pytest.raises(TypeError, match="'partial_cover' of the pf1e rules must be bool"):
        cover(board("A...T"), options={"partial_cover": "yes"})


def test_unknown_attack_and_creature():
    m = board("A...T")
    with pytest.raises(RequestError, match="unknown attack 'thrown'.*ranged, melee, reach, area"):
        cover(m, attack="thrown")
    with pytest.raises(RequestError, match="unknown creature id 'Z'"):
        cover(m, "Z", "T")
    with pytest.raises(RequestError, match="attacker and target are both 'A'"):
        cover(m, "A", "A")


def test_origin_rules():
    m = board("A...T")
    with pytest.raises(RequestError, match="needs an origin"):
        pf1e.resolve(m, "A", "T", attack="area")
    with pytest.raises(RequestError, match="origin applies to area attacks only"):
        pf1e.resolve(m, "A", "T", origin=(1, 0))
    with pytest.raises(RequestError, match=r"origin \(9, 0\) lies outside the 5x1 map"):
        pf1e.resolve(m, "A", "T", attack="area", origin=(9, 0))
    with pytest.raises(RequestError, match="a ranged attack needs an attacker"):
        pf1e.resolve(m, None, "T")


def test_attack_numbers_are_pf2e_only():
    with pytest.raises(RequestError, match="pf2e rules only"):
        pf1e.resolve(board("A...T"), "A", "T", attack_total=15, defence=12)
