"""Pathfinder 2e-style cover (lesser / standard / greater) on hand-drawn maps.

Rows of text: ``#`` solid, ``=`` low, ``.`` open, a capital letter a medium
creature on that square.  The centre of a medium creature at ``(c, r)`` is
``(c + 0.5, r + 0.5)``.
"""

from __future__ import annotations

import pytest

from lineoffire.errors import RequestError
from boards import board_from_rows
from lineoffire.maps import BattleMap
from lineoffire.resolver import pf2e, ruleset


def board(*rows, walls=(), creatures=(), flags=None, **kw):
    """A map from text rows; capital letters are medium creatures; ``flags``
    adds fields to creatures by id."""
    return board_from_rows(rows, walls=walls, creatures=creatures, fields=flags, **kw)


def wall(kind, *points):
    return {"kind": kind, "points": [list(p) for p in points]}


def cover(bmap, a="A", t="T", **kw):
    return pf2e.resolve(bmap, a, t, **kw)


WALL = (".....", "A.#.T", ".....")
CREATURE = (".....", "A.B.T", ".....")
SLIT = [wall("slit", (1, 0), (1, 3))]


def huge_between(shooter_size="medium"):
    """A huge creature H between A and the medium target T::

        . . H H H . .
        A . H H H . T      (a large A stands at (0, 1) and takes rows 1-2)
        . . H H H . .
    """
    return BattleMap.build(7, 3, creatures=[
        {"id": "A", "x": 0, "y": 1, "size": shooter_size},
        {"id": "H", "x": 2, "y": 0, "size": "huge"},
        {"id": "T", "x": 6, "y": 1}])


def test_ruleset_registry_names_this_module():
    assert ruleset("pf2e") is pf2e


def test_wall_between_is_standard():
    r = cover(board(*WALL))
    assert list(r) == ["cover", "defence_bonus", "stealth_bonus", "can_hide", "providers", "lines"]
    assert r["cover"] == "standard"
    assert (r["defence_bonus"], r["stealth_bonus"], r["can_hide"]) == (2, 2, True)
    assert r["providers"] == [{"kind": "solid", "square": [2, 1]}]
    assert r["lines"] == [{"from": [0.5, 1.5], "to": [4.5, 1.5], "verdict": "standard",
                           "blockers": [{"kind": "solid", "square": [2, 1], "t": 0.375}]}]


def test_open_ground_is_none():
    r = cover(board("A...T"))
    assert (r["cover"], r["defence_bonus"], r["stealth_bonus"], r["can_hide"]) == ("none", 0, 0, False)
    assert r["providers"] == []


def test_creature_between_is_lesser():
    r = cover(board(*CREATURE))
    assert (r["cover"], r["defence_bonus"], r["stealth_bonus"], r["can_hide"]) == ("lesser", 1, 0, False)
    assert r["providers"] == [{"kind": "creature", "creature": "B"}]


def test_low_obstacle_is_standard_at_any_distance():
    assert cover(board(".......", "A.=...T", "......."))["cover"] == "standard"
    assert cover(board(".......", "A=....T", "......."))["cover"] == "standard"


def test_huge_creature_between_medium_creatures_is_standard():
    r = cover(huge_between())
    assert r["cover"] == "standard"
    assert r["providers"] == [{"kind": "creature", "creature": "H"}]


def test_huge_creature_between_large_shooter_and_medium_target_is_lesser():
    r = cover(huge_between("large"))
    assert r["lines"][0]["from"] == [1, 2]
    assert r["cover"] == "lesser"


def test_large_creature_between_medium_creatures_is_lesser():
    m = BattleMap.build(6, 3, creatures=[{"id": "A", "x": 0, "y": 1},
                                         {"id": "L", "x": 2, "y": 1, "size": "large"},
                                         {"id": "T", "x": 5, "y": 1}])
    assert cover(m)["cover"] == "lesser"


def test_take_cover_upgrades_standard_to_greater():
    m = board(*WALL, flags={"T": {"taken_cover": True}})
    r = cover(m)
    assert (r["cover"], r["defence_bonus"], r["stealth_bonus"], r["can_hide"]) == ("greater", 4, 4, True)
    assert r["lines"][0]["verdict"] == "standard"  # the line itself gives standard


def test_take_cover_does_not_upgrade_lesser():
    m = board(*CREATURE, flags={"T": {"taken_cover": True}})
    assert cover(m)["cover"] == "lesser"


def test_take_cover_in_the_open_gives_nothing():
    assert cover(board("A...T", flags={"T": {"taken_cover": True}}))["cover"] == "none"


def test_arrow_slit_both_ways():
    m = board(".....", "A...T", ".....", walls=SLIT)
    assert cover(m, "A", "T")["cover"] == "none"  # A stands at the slit
    back = cover(m, "T", "A")
    assert back["cover"] == "greater"
    assert back["providers"] == [{"kind": "slit", "wall": [0, 0]}]


def test_area_origin_on_the_far_side_of_a_wall():
    sealed = board(".....", "A...T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))])
    assert cover(sealed)["cover"] == "total"
    far = pf2e.resolve(sealed, None, "T", attack="area", origin=(1.5, 1.5))
    assert far["cover"] == "total" and far["defence_bonus"] is None
    near = pf2e.resolve(sealed, "A", "T", attack="area", origin=(3.5, 1.5))
    assert near["cover"] == "none"
    assert near["lines"][0]["from"] == [3.5, 1.5]
    # Behind a wall square, seen past its top: the centre line is stopped but
    # the origin has line of effect.
    pillar = board(".....", "..#.T", ".....")
    r = pf2e.resolve(pillar, None, "T", attack="area", origin=(0.5, 0.5))
    assert r["cover"] == "standard"
    assert r["lines"][0]["to"] == [4.5, 1.5]


def test_centre_line_through_vertex_of_diagonal_solid_squares_is_sealed():
    # Two huge creatures; their centre line (1.5, 1.5) -> (6.5, 2.5) passes
    # exactly through the vertex (4, 2) where the solid squares (4, 1) and
    # (3, 2) meet diagonally: a sealed seam.  Line of effect runs above them.
    rows = ["........", "....#...", "...#....", "........"]
    huge = [{"id": "A", "x": 0, "y": 0, "size": "huge"}, {"id": "T", "x": 5, "y": 1, "size": "huge"}]
    m = BattleMap.build(8, 4, squares=rows, creatures=huge)
    r = cover(m)
    assert r["lines"][0]["from"] == [1.5, 1.5] and r["lines"][0]["to"] == [6.5, 2.5]
    assert r["cover"] == "standard"
    assert r["providers"] == [{"kind": "solid", "square": [4, 1]}, {"kind": "solid", "square": [3, 2]}]
    # One of the two alone only touches the line at its corner: clear.
    one = BattleMap.build(8, 4, squares=["........", "....#...", "........", "........"],
                          creatures=huge)
    assert cover(one)["cover"] == "none"


def test_leaning_around_a_corner():
    # The wall x = 3 from y = 0 to 1.25 stops the centre line; leaning out to
    # the corner (1, 2) the line passes below its end.
    m = board(".....T", "A.....", "......", walls=[wall("wall", (3, 0), (3, 1.25))])
    assert cover(m)["cover"] == "standard"
    r = cover(m, options={"lean": True})
    assert r["cover"] == "none"
    assert r["lines"][0]["from"] == [1, 2]


def test_lean_takes_the_first_best_corner():
    r = cover(board("A...T"), options={"lean": True})
    assert r["cover"] == "none" and r["lines"][0]["from"] == [0, 0]


def test_total_cover_behind_a_sealed_wall():
    r = cover(board(".....", "A...T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))]))
    assert (r["cover"], r["defence_bonus"], r["stealth_bonus"]) == ("total", None, None)


def test_plan_and_decide_split_matches_resolve():
    from lineoffire.geometry import trace

    m = board(*CREATURE)
    p = pf2e.plan(m, "A", "T", options={"lean": True})
    assert p.segments.shape == (4, 4)
    batch = trace(m, p.segments, attacker=p.attacker, target=p.target, **p.trace_options)
    assert pf2e.decide(m, p, batch) == cover(m, options={"lean": True})


# ---------------------------------------------------------------- attacks
D = 15

#: name -> (map maker, attacker, target, expected cover, bonus, who the cover hit takes)
SCENES = {
    "none": (lambda: board("A...T"), "A", "T", "none", 0, None),
    "lesser": (lambda: board(*CREATURE), "A", "T", "lesser", 1, "B"),
    "standard wall": (lambda: board(*WALL), "A", "T", "standard", 2, "object"),
    "standard huge": (huge_between, "A", "T", "standard", 2, "H"),
    "greater slit": (lambda: board(".....", "A...T", ".....", walls=SLIT), "T", "A", "greater", 4,
                     "object"),
    "greater huge": (lambda: BattleMap.build(7, 3, creatures=[
        {"id": "A", "x": 0, "y": 1}, {"id": "H", "x": 2, "y": 0, "size": "huge"},
        {"id": "T", "x": 6, "y": 1, "taken_cover": True}]), "A", "T", "greater", 4, "H"),
}


def _expected(total, bonus, target, cover_hit):
    if total < D:
        return ("miss", None)
    if total >= D + bonus:
        return ("hit", target)
    return ("hit_cover", cover_hit)


@pytest.mark.parametrize("scene", list(SCENES))
def test_attack_resolution_truth_table(scene):
    make, a, t, level, b, who = SCENES[scene]
    m = make()
    rows = {D - 1: None, D: None, D + b - 1: None, D + b: None}
    for total in rows:
        r = cover(m, a, t, attack_total=total, defence=D)
        assert r["cover"] == level and r["defence_bonus"] == b
        rows[total] = (r["outcome"], r["hit"])
    assert rows == {total: _expected(total, b, t, who) for total in rows}
    # The table by hand, so the rule above cannot drift from SPEC.
    assert rows[D - 1] == ("miss", None)
    assert rows[D + b] == ("hit", t)
    if b:
        assert rows[D] == ("hit_cover", who) and rows[D + b - 1] == ("hit_cover", who)


def test_attack_against_total_cover_misses():
    m = board(".....", "A...T", ".....", walls=[wall("wall", (2.5, 0), (2.5, 3))])
    for total in (1, 15, 40):
        r = cover(m, attack_total=total, defence=D)
        assert (r["outcome"], r["hit"]) == ("miss", None)


def test_answer_has_no_outcome_without_attack_numbers():
    assert "outcome" not in cover(board(*WALL))


# ---------------------------------------------------------------- errors
def test_attack_numbers_go_together():
    with pytest.raises(RequestError, match="defence is missing"):
        cover(board(*WALL), attack_total=15)
    with pytest.raises(RequestError, match="attack_total is missing"):
        cover(board(*WALL), defence=15)
    with pytest.raises(TypeError, match="attack_total must be an integer"):
        cover(board(*WALL), attack_total=True, defence=15)


def test_unknown_option_lists_valid_ones():
    with pytest.raises(RequestError, match="unknown option 'partial_cover' for the pf2e rules; "
                                           "valid options: ignore_dead, ignore_prone, lean"):
        cover(board(*WALL), options={"partial_cover": True})


def test_lean_does_not_apply_to_area():
    with pytest.raises(RequestError, match="'lean' does not apply to area"):
        pf2e.resolve(board(*WALL), None, "T", attack="area", origin=(0, 0), options={"lean": True})


def test_unknown_target():
    with pytest.raises(RequestError, match="target: unknown creature id 'Q'"):
        cover(board(*WALL), "A", "Q")


# ------------------------------------------------ area effects ignore the caster
def test_area_origin_is_free_whoever_casts():
    from lineoffire.resolver import pf1e

    # a wall on x = 2; the origin lies on it and on the caster's right edge
    m = BattleMap.build(6, 3, walls=[{"kind": "wall", "points": [[2, 0], [2, 3]]}],
                        creatures=[{"id": "C", "x": 1, "y": 1}, {"id": "T", "x": 4, "y": 1}])
    for caster in (None, "C"):
        assert pf1e.resolve(m, caster, "T", attack="area", origin=[2, 1.5])["cover"] == "none"
        assert pf2e.resolve(m, caster, "T", attack="area", origin=[2, 1.5])["cover"] == "none"
    # a wall splitting the map through the caster's square: the origin is on the far side
    m = BattleMap.build(6, 3, walls=[{"kind": "wall", "points": [[1.5, 0], [1.5, 3]]}],
                        creatures=[{"id": "C", "x": 1, "y": 1}, {"id": "T", "x": 4, "y": 1}])
    for caster in (None, "C"):
        assert pf1e.resolve(m, caster, "T", attack="area", origin=[1.25, 1.5])["cover"] == "total"
        assert pf2e.resolve(m, caster, "T", attack="area", origin=[1.25, 1.5])["cover"] == "total"


def test_area_slit_counts_even_if_the_caster_stands_at_it():
    from lineoffire.resolver import pf1e

    m = BattleMap.build(6, 3, walls=[{"kind": "slit", "points": [[2, 0], [2, 3]]}],
                        creatures=[{"id": "C", "x": 1, "y": 0}, {"id": "T", "x": 4, "y": 1}])
    for caster in (None, "C"):
        assert pf1e.resolve(m, caster, "T", attack="area", origin=[0.5, 2.5])["cover"] == "improved"
        assert pf2e.resolve(m, caster, "T", attack="area", origin=[0.5, 2.5])["cover"] == "greater"


def test_lean_measures_from_the_corners_of_the_space():
    # large shooter S; the lines from its four corners are stopped, the centre line too
    m = BattleMap.build(6, 3, squares=["..#...", "......", "..#..."],
                        creatures=[{"id": "S", "x": 0, "y": 0, "size": "large"},
                                   {"id": "T", "x": 3, "y": 2}])
    r = pf2e.resolve(m, "S", "T", options={"lean": True})
    assert r["cover"] == "standard"
    assert r["lines"][0]["from"] in ([0, 0], [2, 0], [0, 2], [2, 2])
