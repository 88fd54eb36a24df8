"""Shot resolution under Creature Cover: the rule text's examples as tables.

Maps are drawn: ``.`` open, ``#`` solid, ``=`` low; an upper-case letter is a
creature's top-left square.  Rolls are attack totals.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lineoffire.errors import RequestError
from boards import board_from_rows
from lineoffire.maps import BattleMap
from lineoffire.ops import run_op
from lineoffire.ops import shots as shots_op
from lineoffire.resolver import creature_cover as cc
from lineoffire.resolver.shots import (
    LIMBS,
    FireLine,
    Window,
    classify,
    hit_location,
    probabilities,
    resolve_rolls,
)


def board(picture: str, walls=(), **specs) -> BattleMap:
    """A map from a picture; ``specs[letter]`` adds fields to that creature."""
    return board_from_rows(picture.split(), walls=walls, fields=specs)


def hits(answer):
    return [s["hit"] for s in answer["shots"]]


def fractions(answer):
    return {k: Fraction(v) for k, v in answer["probabilities"].items()}


#: The rule text's raiders: a raider shoots a player (Evasion 12) behind a melee raider.
RAID = dict(S={"team": "raiders"}, R={"id": "Melee raider", "team": "raiders"},
            P={"id": "Player", "evasion": 12, "team": "party"})


def raid(picture="S.RP.", **more):
    return board(picture, **{**RAID, **more})


# ------------------------------------------------------------ the rule text
@pytest.mark.parametrize("roll, result", [
    *[(r, None) for r in range(1, 13)],              # 1-12 miss
    *[(r, "Melee raider") for r in range(13, 17)],   # 13-16 friendly fire
    *[(r, "Player") for r in range(17, 26)],         # 17+ hits the player
])
def test_raider_example_table(roll, result):
    answer = cc.shots(raid(), "S", "Player", rolls=[roll])
    assert hits(answer) == [result]
    assert answer["shots"][0]["stray"] is False
    assert answer["windows"] == [{"creature": "Melee raider", "bonus": 4, "from": 12, "to": 16}]
    assert (answer["base_evasion"], answer["enhanced_evasion"]) == (12, 16)


def test_raider_has_exactly_one_in_five_friendly_fire():
    answer = cc.shots(raid(), "S", "Player", attack_bonus=0, seed=1)
    assert answer["probabilities"] == {"Player": "1/5", "Melee raider": "1/5", "miss": "3/5"}


@pytest.mark.parametrize("bonus, expected", [
    (0, {"Player": "1/5", "Melee raider": "1/5", "miss": "3/5"}),
    (5, {"Player": "9/20", "Melee raider": "1/5", "miss": "7/20"}),   # d20 12+ / 8-11 / 1-7
    (12, {"Player": "4/5", "Melee raider": "1/5"}),                   # no miss: left out
    (16, {"Player": "1/1"}),
    (-5, {"Melee raider": "3/20", "miss": "17/20"}),                  # d20 18-20 reach 13-15
    (-8, {"miss": "1/1"}),                                            # 12 at best
])
def test_raider_probabilities_by_attack_bonus(bonus, expected):
    answer = cc.shots(raid(), "S", "Player", attack_bonus=bonus, seed=0)
    assert answer["probabilities"] == expected
    assert sum(fractions(answer).values()) == 1


def test_burst_of_four_example():
    answer = cc.shots(raid(), "S", "Player", rolls=[11, 15, 18, 13], burst=4)
    table = [(i, s["roll"], s["hit"]) for i, s in enumerate(answer["shots"], 1)]
    assert table == [
        (1, 11, None),            # Miss
        (2, 15, "Melee raider"),  # Hits melee raider
        (3, 18, "Player"),        # Hits player
        (4, 13, "Melee raider"),  # Hits melee raider
    ]
    assert [s["stray"] for s in answer["shots"]] == [True, False, False, False]
    assert answer["summary"] == (
        "Player takes 1 hit. Melee raider takes 2 hits. 1 shot missed entirely.")


def test_two_creatures_in_front_nearest_first():
    m = board("S.AB.T", T={"evasion": 12})
    rolls = [12, 13, 16, 17, 20, 21]
    answer = cc.shots(m, "S", "T", rolls=rolls, attack_bonus=0)
    assert answer["enhanced_evasion"] == 20
    assert hits(answer) == [None, "A", "A", "B", "B", "T"]
    # d20 + 0 never beats 20: the target behind two creatures cannot be hit.
    assert answer["probabilities"] == {"A": "1/5", "B": "1/5", "miss": "3/5"}


# ------------------------------------------------------------ Trigger Discipline
TD = {"team": "party", "traits": ["trigger_discipline"]}


@pytest.mark.parametrize("front_team, trained, expected", [
    ("party", True, [None, None, None, "T"]),      # ally in front: those rolls miss
    ("raiders", True, [None, "F", "F", "T"]),      # enemy in front: hit as usual
    ("party", False, [None, "F", "F", "T"]),       # no trait: friendly fire
    (None, True, [None, "F", "F", "T"]),           # no team: nobody's ally
])
def test_trigger_discipline(front_team, trained, expected):
    m = board("S.FT", S=TD if trained else {"team": "party"}, F={"team": front_team},
              T={"team": "raiders", "evasion": 12})
    answer = cc.shots(m, "S", "T", rolls=[12, 13, 16, 17])
    assert hits(answer) == expected


def test_trigger_discipline_miss_is_not_a_stray():
    m = board("S.FT.B", S=TD, F={"team": "party"}, T={"evasion": 12}, B={"evasion": 5})
    answer = cc.shots(m, "S", "T", rolls=[12, 13, 16, 17], burst=4, attack_bonus=0)
    assert hits(answer) == ["B", None, None, "T"]
    assert [s["outcome"] for s in answer["shots"]] == ["stray", "held", "held", "hit"]
    assert [s["stray"] for s in answer["shots"]] == [True, False, False, False]
    # 6-12 stray into B (7/20), 13-16 held (1/5), 17-20 the target (1/5), 1-5 lost
    assert answer["probabilities"] == {"T": "1/5", "B": "7/20", "miss": "9/20"}


# ------------------------------------------------------------ stray shots
def test_stray_shot_hits_the_second_creature_behind():
    m = board("S.T.B.C", T={"evasion": 12}, B={"evasion": 15}, C={"evasion": 8})
    answer = cc.shots(m, "S", "T", rolls=[10, 12, 8, 5, 13], burst=5)
    assert answer["behind"] == ["B", "C"]
    assert hits(answer) == ["C", "C", None, None, "T"]  # 8 does not exceed C's 8
    assert [s["outcome"] for s in answer["shots"]] == ["stray", "stray", "lost", "lost", "hit"]
    assert answer["summary"] == "T takes 1 hit. C takes 2 hits. 2 shots missed entirely."


def test_stray_shot_hits_the_first_creature_it_beats():
    m = board("S.T.B.C", T={"evasion": 12}, B={"evasion": 9}, C={"evasion": 3})
    answer = cc.shots(m, "S", "T", rolls=[10, 9, 4, 3], burst=4)
    assert hits(answer) == ["B", "C", "C", None]


def test_single_fire_misses_do_not_stray():
    m = board("S.T.B", T={"evasion": 12}, B={"evasion": 2})
    answer = cc.shots(m, "S", "T", rolls=[10, 10])
    assert hits(answer) == [None, None]
    assert [s["stray"] for s in answer["shots"]] == [False, False]


def test_a_wall_stops_stray_shots():
    m = board("S.T.B.C", walls=[{"kind": "wall", "points": [[5, 0], [5, 1]]}],
              T={"evasion": 12}, B={"evasion": 9}, C={"evasion": 1})
    answer = cc.shots(m, "S", "T", rolls=[10, 5], burst=2)
    assert answer["behind"] == ["B"]
    assert hits(answer) == ["B", None]  # 5 would beat C, but C stands beyond the wall


def test_burst_probabilities_count_strays_exactly():
    m = board("S.RT.B.C", T={"evasion": 12}, B={"evasion": 10}, C={"evasion": 6})
    answer = cc.shots(m, "S", "T", burst=3, attack_bonus=0, seed=5)
    # 17-20 T, 13-16 R, 11-12 B, 7-10 C, 1-6 lost
    assert answer["probabilities"] == {"T": "1/5", "R": "1/5", "B": "1/10", "C": "1/5",
                                       "miss": "3/10"}
    assert sum(fractions(answer).values()) == Fraction(1)
    answer = cc.shots(m, "S", "T", burst=3, attack_bonus=-3, seed=5)
    # totals -2..17: 17 T, 13-16 R, 11-12 B, 7-10 C, -2..6 lost
    assert answer["probabilities"] == {"T": "1/20", "R": "1/5", "B": "1/10", "C": "1/5",
                                       "miss": "9/20"}
    assert sum(fractions(answer).values()) == Fraction(1)


# ------------------------------------------------------------ object cover, shield, blocked
def test_wall_and_ally_give_one_object_window():
    m = board("""
        ......
        S..A.T
        ......
    """, walls=[{"kind": "wall", "points": [[2, 1], [2, 2]]}], T={"evasion": 12})
    answer = cc.shots(m, "S", "T", rolls=[12, 13, 16, 17], attack_bonus=0)
    assert answer["windows"] == [{"creature": "object", "bonus": 4, "from": 12, "to": 16}]
    assert answer["object_bonus"] == 4 and answer["enhanced_evasion"] == 16
    assert hits(answer) == [None, "object", "object", "T"]
    assert answer["probabilities"] == {"T": "1/5", "object": "1/5", "miss": "3/5"}


def test_human_shield_takes_the_window():
    m = board("""
        ....G
        S..T.
    """, T={"grappling": "G", "evasion": 12}, S={"team": "raiders"}, G={"team": "raiders"})
    answer = cc.shots(m, "S", "T", rolls=[12, 14, 17])
    assert answer["windows"] == [{"creature": "G", "bonus": 4, "from": 12, "to": 16}]
    assert hits(answer) == [None, "G", "T"]


def test_no_line_of_effect_every_shot_hits_the_object():
    walls = [{"kind": "wall", "points": [[3, 0], [3, 3]]}]
    m = board("""
        ......
        S...T.
        ......
    """, walls=walls)  # no evasion needed: nothing is compared with it
    answer = cc.shots(m, "S", "T", rolls=[1, 15, 30], burst=3, attack_bonus=2)
    assert (answer["blocked"], answer["cover"], answer["windows"]) == (True, "total", [])
    assert hits(answer) == ["object"] * 3
    assert [s["stray"] for s in answer["shots"]] == [False] * 3
    assert answer["probabilities"] == {"object": "1/1"}


# ------------------------------------------------------------ called shots
@pytest.mark.parametrize("d20, limb", [
    (1, "head"), (2, "head"), *[(d, "torso") for d in range(3, 9)],
    (9, "left_arm"), (10, "left_arm"), (11, "left_arm"),
    (12, "right_arm"), (13, "right_arm"), (14, "right_arm"),
    (15, "left_leg"), (16, "left_leg"), (17, "left_leg"),
    (18, "right_leg"), (19, "right_leg"), (20, "right_leg"),
])
def test_hit_location_table(d20, limb):
    assert hit_location(d20) == limb


def test_called_shot_is_lost_on_the_creature_in_front():
    m = raid()
    answer = cc.shots(m, "S", "Player", rolls=[10, 14, 18], called_shot="head", seed=7)
    miss, front, target = answer["shots"]
    assert (miss["called_shot_lost"], miss["limb"], miss["location_roll"]) == (False, None, None)
    assert (target["called_shot_lost"], target["limb"], target["location_roll"]) == \
        (False, "head", None)
    assert front["hit"] == "Melee raider" and front["called_shot_lost"] is True
    # the location d20 comes from default_rng(seed), after no attack d20s
    expected = int(np.random.default_rng(7).integers(1, 21))
    assert front["location_roll"] == expected
    assert front["limb"] == hit_location(expected)


def test_called_shot_locations_follow_the_attack_dice():
    m = raid()
    answer = cc.shots(m, "S", "Player", burst=6, attack_bonus=5, called_shot="Left Arm", seed=3)
    rng = np.random.default_rng(3)
    d20 = rng.integers(1, 21, size=6).tolist()
    assert [s["d20"] for s in answer["shots"]] == d20
    for s in answer["shots"]:
        if s["hit"] == "Melee raider":
            loc = int(rng.integers(1, 21))
            assert (s["called_shot_lost"], s["location_roll"], s["limb"]) == \
                (True, loc, hit_location(loc))
        elif s["hit"] == "Player":
            assert (s["called_shot_lost"], s["limb"]) == (False, "left_arm")


def test_called_shot_lost_on_a_stray_and_on_the_object():
    m = board("S.T.B", T={"evasion": 12}, B={"evasion": 2})
    s, = cc.shots(m, "S", "T", rolls=[9], burst=1, called_shot="torso", seed=1)["shots"]
    assert (s["hit"], s["called_shot_lost"], s["limb"] in LIMBS) == ("B", True, True)
    m = board("S.=.T", T={"evasion": 12})
    s, = cc.shots(m, "S", "T", rolls=[13], called_shot="torso", seed=1)["shots"]
    assert (s["hit"], s["called_shot_lost"], s["location_roll"], s["limb"]) == \
        ("object", True, None, None)


# ------------------------------------------------------------ random rolls
def test_seeded_rolls_are_repeatable_and_are_d20_plus_bonus():
    m = board("S.T.B", T={"evasion": 12}, B={"evasion": 4})
    one = cc.shots(m, "S", "T", burst=8, attack_bonus=3, seed=42)
    two = cc.shots(m, "S", "T", burst=8, attack_bonus=3, seed=42)
    assert one == two
    d20 = np.random.default_rng(42).integers(1, 21, size=8).tolist()
    assert [s["d20"] for s in one["shots"]] == d20
    assert [s["roll"] for s in one["shots"]] == [d + 3 for d in d20]
    other = cc.shots(m, "S", "T", burst=8, attack_bonus=3, seed=43)
    assert [s["d20"] for s in other["shots"]] != d20


def test_one_shot_without_burst():
    answer = cc.shots(raid(), "S", "Player", attack_bonus=0, seed=9)
    assert len(answer["shots"]) == 1 and 1 <= answer["shots"][0]["roll"] <= 20


def test_evasion_override():
    answer = cc.shots(raid(), "S", "Player", rolls=[14], evasion=14)
    assert answer["base_evasion"] == 14 and hits(answer) == [None]


def test_natural_twenty_is_only_a_number():
    # d20 + 0 = 20 against Evasion 20 misses: a natural 20 means nothing special.
    answer = cc.shots(raid(), "S", "Player", rolls=[20], evasion=20)
    assert hits(answer) == [None]


# ------------------------------------------------------------ the engine against a reference
def slow_resolve(line: FireLine, r: int, burst: bool):
    """The rule text, read literally, one roll at a time."""
    if line.blocked:
        return "object"
    if r <= line.base_evasion:
        if burst:
            for cid, ev in zip(line.behind, line.behind_evasion):
                if r > ev:
                    return cid
        return None
    for w in line.windows:
        if w.low < r <= w.high:
            return None if w.creature in line.held else w.creature
    return line.target


@settings(max_examples=80, deadline=None)
@given(
    evasion=st.integers(-5, 25),
    bonuses=st.lists(st.sampled_from([2, 4]), max_size=4),
    held=st.lists(st.booleans(), min_size=4, max_size=4),
    behind=st.lists(st.integers(-5, 25), max_size=4),
    rolls=st.lists(st.integers(-10, 45), min_size=1, max_size=12),
    burst=st.booleans(),
    attack_bonus=st.integers(-10, 30),
)
def test_vectorised_resolution_matches_the_rule_text(evasion, bonuses, held, behind, rolls,
                                                     burst, attack_bonus):
    windows, low = [], evasion
    for i, b in enumerate(bonuses):
        windows.append(Window(f"W{i}", b, low, low + b))
        low += b
    line = FireLine("T", evasion, tuple(windows),
                    held=frozenset(f"W{i}" for i in range(len(bonuses)) if held[i]),
                    behind=tuple(f"B{i}" for i in range(len(behind))),
                    behind_evasion=tuple(behind))
    _, got = classify(line, rolls, burst=burst)
    assert got == [slow_resolve(line, r, burst) for r in rolls]
    probs = probabilities(line, attack_bonus, burst=burst)
    assert sum(probs.values()) == 1 and all(p > 0 for p in probs.values())
    for key, p in probs.items():
        count = sum((slow_resolve(line, d + attack_bonus, burst) or "miss") == key
                    for d in range(1, 21))
        assert p == Fraction(count, 20)


def test_resolve_rolls_records():
    line = FireLine("P", 12, (Window("R", 4, 12, 16),))
    assert resolve_rolls(line, [13]) == [{
        "roll": 13, "d20": None, "hit": "R", "outcome": "cover", "stray": False,
        "called_shot_lost": False, "location_roll": None, "limb": None}]


# ------------------------------------------------------------ the shots op
MAP_JSON = {
    "format": "lineoffire-map", "version": 1, "width": 6, "height": 1,
    "squares": ["......"], "walls": [],
    "creatures": [
        {"id": "S", "x": 0, "y": 0, "team": "raiders"},
        {"id": "Melee raider", "x": 2, "y": 0, "team": "raiders"},
        {"id": "Player", "x": 3, "y": 0, "evasion": 12},
        {"id": "B", "x": 5, "y": 0, "evasion": 9},
    ],
}


def test_shots_op_answers_a_request():
    answer = run_op({"op": "shots", "map": MAP_JSON, "attacker": "S", "target": "Player",
                     "rolls": [11, 15, 18, 13], "burst": 4, "attack_bonus": 0})
    for key in ("base_evasion", "enhanced_evasion", "object_bonus", "windows", "shots",
                "probabilities"):
        assert key in answer
    assert hits(answer) == ["B", "Melee raider", "Player", "Melee raider"]
    assert answer["probabilities"] == {"Player": "1/5", "Melee raider": "1/5", "B": "3/20",
                                       "miss": "9/20"}


def test_overwatch_is_an_ordinary_shots_request():
    request = {"op": "shots", "map": MAP_JSON, "attacker": "S", "target": "Player",
               "rolls": [14]}
    assert hits(shots_op.run(request)) == ["Melee raider"]


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("kw, error, match", [
    ({"rolls": [11, 15, 18], "burst": 4}, RequestError, "burst is 4 shots but 3 rolls"),
    ({"rolls": [11], "called_shot": "tail"}, RequestError,
     "unknown limb 'tail'; expected one of head, torso, left_arm"),
    ({}, RequestError, "shots need rolls .* or an attack_bonus"),
    ({"rolls": []}, RequestError, "rolls is empty"),
    ({"rolls": [11, True]}, TypeError, r"rolls\[1\] must be an integer"),
    ({"rolls": "11,15"}, TypeError, "rolls must be a list of attack totals"),
    ({"attack_bonus": 2, "burst": 0}, RequestError, "burst must be at least 1"),
    ({"attack_bonus": 2, "seed": -1}, RequestError, "seed must be a non-negative"),
    ({"attack_bonus": 2.5}, TypeError, "attack_bonus must be an integer"),
    ({"rolls": [11], "called_shot": 3}, TypeError, "called_shot must be a limb name"),
])
def test_bad_shot_requests(kw, error, match):
    with pytest.raises(error, match=match):
        cc.shots(raid(), "S", "Player", **kw)


def test_unknown_creature():
    with pytest.raises(RequestError, match="target: unknown creature id 'Nobody'"):
        cc.shots(raid(), "S", "Nobody", rolls=[12])


def test_missing_evasion_names_the_creature():
    m = board("S.RP.B", B={"evasion": None})
    with pytest.raises(RequestError, match="target 'P' has no evasion.*pass evasion") as info:
        cc.shots(m, "S", "P", rolls=[12])
    assert info.value.code == "missing_evasion"
    m = board("S.RP.B", P={"evasion": 12})
    assert hits(cc.shots(m, "S", "P", rolls=[12])) == [None]  # single fire: B not needed
    with pytest.raises(RequestError, match="creature behind the target 'B' has no evasion"):
        cc.shots(m, "S", "P", rolls=[12], burst=1)


def test_shots_op_refuses_bad_requests():
    base = {"op": "shots", "map": MAP_JSON, "attacker": "S", "target": "Player", "rolls": [3]}
    with pytest.raises(RequestError, match="unknown field.*'roll'"):
        shots_op.run({**base, "roll": 3})
    with pytest.raises(RequestError, match="creature-cover' rules only, not 'pf2e'"):
        shots_op.run({**base, "rules": "pf2e"})
    without = dict(base)
    del without["target"]
    with pytest.raises(RequestError, match="no 'target'"):
        shots_op.run(without)
