"""The public Python API: every name the README shows, on a hand-drawn map."""

from __future__ import annotations

import pytest

import lineoffire as lof
from lineoffire.maps import BattleMap

# A . T : a pillar between A and T in the middle row; B stands in the open.
PILLAR = {
    "format": "lineoffire-map", "version": 1, "width": 5, "height": 3,
    "squares": [".....", "..#..", "....."],
    "creatures": [
        {"id": "A", "x": 0, "y": 1, "size": "medium", "team": "a", "evasion": 12},
        {"id": "T", "x": 4, "y": 1, "size": "medium", "team": "b", "evasion": 12},
        {"id": "B", "x": 2, "y": 0, "size": "medium", "team": "b", "evasion": 10},
    ],
}


def test_public_names_are_exported():
    for name in ("trace", "cover", "shots", "cover_matrix", "line_of_effect", "load_map",
                 "save_map", "BattleMap", "Creature", "Wall", "MapError", "RequestError"):
        assert name in lof.__all__
        assert hasattr(lof, name)


def test_cover_through_the_api_takes_a_dict_map():
    assert lof.cover(PILLAR, "A", "T", rules="pf2e")["cover"] == "standard"
    # pf1e: from every corner of A some line to T's square crosses the pillar
    assert lof.cover(PILLAR, "A", "T", rules="pf1e")["cover"] == "cover"


def test_trace_line_of_effect_and_shots():
    m = lof.load_map(PILLAR)
    assert isinstance(m, BattleMap)
    line = lof.trace(m, [[0.5, 1.5, 4.5, 1.5]], attacker="A", target="T")[0]
    assert line.stopped
    assert [b.square for b in line.blockers] == [(2, 1)]
    assert lof.line_of_effect(m, "A", "T") is True
    # the pillar is object cover (+4): Evasion 12, window (12, 16] hits the object
    answer = lof.shots(m, "A", "T", rolls=[5, 14, 20])
    assert [s["hit"] for s in answer["shots"]] == [None, "object", "T"]


def test_matrix_through_the_api():
    import lineoffire.matrix  # noqa: F401  (the module must not shadow the function)

    result = lof.cover_matrix(PILLAR, rules="pf2e")
    assert len(result) == 6  # every ordered pair of 3 creatures
    names = dict(zip(zip(result.pair_attacker.tolist(), result.pair_target.tolist()),
                     result.cover_names()))
    a, t = result.attackers.index("A"), result.targets.index("T")
    assert names[(a, t)] == "standard"


def test_unknown_rules_are_refused():
    with pytest.raises(ValueError, match="unknown rules 'pf3e'"):
        lof.cover(PILLAR, "A", "T", rules="pf3e")
