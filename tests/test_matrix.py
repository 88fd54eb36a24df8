"""The cover matrix: bulk answers equal the single-pair resolvers, filters, outputs, Dask."""

from __future__ import annotations

import csv
import functools
import io
import json

import numpy as np
import pytest

from lineoffire.cli import main
from lineoffire.errors import RequestError
from lineoffire.maps import BattleMap, save_map
from lineoffire.geometry.effect import line_of_effect
from lineoffire.matrix import BONUS_KEY, COVER_CODES, cover_matrix, pairs_in_range
from lineoffire.ops import run_op
from lineoffire.resolver import RULESETS, ruleset

# A yard with a solid pillar, a wall, an arrow slit, a low wall and a low
# square; a large ogre, two tiny rats sharing a square:
#
#     0 1 2 3 4 5 6 7 8 9
#   0 A . . . . | . . C .
#   1 . . # . . | . . . .
#   2 . . . O O . . = . .
#   3 . . . O O . . . . D
#   4 . r . . . : . . . .      (r: two rats, ':' a slit on x = 5)
#   5 . . . . . . . E . .
YARD = BattleMap.build(
    10, 6,
    squares=["..........", "..#.......", ".......=..", "..........", "..........",
             ".........."],
    walls=[{"kind": "wall", "points": [[5, 0], [5, 2]]},
           {"kind": "slit", "points": [[5, 4], [5, 5]]},
           {"kind": "low", "points": [[6, 5], [6, 6]], "height_ft": 2}],
    creatures=[{"id": "A", "x": 0, "y": 0, "evasion": 12},
               {"id": "C", "x": 8, "y": 0, "evasion": 11},
               {"id": "O", "x": 3, "y": 2, "size": "large", "evasion": 10},
               {"id": "D", "x": 9, "y": 3, "evasion": 13},
               {"id": "r1", "x": 1, "y": 4, "size": "tiny", "evasion": 15},
               {"id": "r2", "x": 1, "y": 4, "size": "tiny", "evasion": 15},
               {"id": "E", "x": 7, "y": 5, "evasion": 12}],
)
IDS = [c.id for c in YARD.creatures]


def _pairs(result):
    return [(p["attacker"], p["target"]) for p in result.to_json()["pairs"]]


# ----------------------------------------------------------- equals resolve
@pytest.mark.parametrize("rules", list(RULESETS))
def test_matrix_equals_per_pair_resolve_for_every_pair(rules):
    mod = ruleset(rules)
    result = cover_matrix(YARD, rules=rules, chunk_size=7)
    answers = result.to_json()["pairs"]
    assert len(answers) == len(IDS) * (len(IDS) - 1)
    for ans in answers:
        a, t = ans["attacker"], ans["target"]
        expected = {"attacker": a, "target": t, **mod.resolve(YARD, a, t)}
        assert ans == expected, (a, t)
    # the compact codes say the same as the answers
    names = COVER_CODES[rules]
    assert [names[c] for c in result.cover] == [p["cover"] for p in answers]


@pytest.mark.parametrize("attack", ["reach", "melee"])
def test_matrix_attacks_equal_resolve(attack):
    result = cover_matrix(YARD, rules="pf1e", attack=attack)
    got = {(p["attacker"], p["target"]): p for p in result.to_json()["pairs"]}
    for (a, t), ans in got.items():
        assert ans == {"attacker": a, "target": t,
                       **ruleset("pf1e").resolve(YARD, a, t, attack=attack)}
    if attack == "melee":
        # only adjacent pairs are evaluated: the rats share a square (not adjacent)
        assert set(got) == set()
    else:
        assert len(got) == len(IDS) * (len(IDS) - 1)


def test_melee_pairs_only_adjacent_creatures():
    #   . | . .
    #   A | B . C      a wall past both ends of A and B's shared edge: total cover
    #   . | . .
    m = BattleMap.build(5, 3, walls=[{"points": [[1, 0], [1, 3]]}], creatures=[
        {"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 1, "y": 1}, {"id": "C", "x": 4, "y": 1},
        {"id": "D", "x": 2, "y": 2}])
    result = cover_matrix(m, rules="pf1e", attack="melee")
    got = {(p["attacker"], p["target"]): p["cover"] for p in result.to_json()["pairs"]}
    assert got == {("A", "B"): "total", ("B", "A"): "total",
                   ("B", "D"): "none", ("D", "B"): "none"}


def test_hand_drawn_verdicts():
    #   A . # G .
    #   . . . . H
    m = BattleMap.build(5, 2, squares=["..#..", "....."], creatures=[
        {"id": "A", "x": 0, "y": 0}, {"id": "G", "x": 3, "y": 0}, {"id": "H", "x": 4, "y": 1}])
    result = cover_matrix(m, rules="pf1e")
    got = {(p["attacker"], p["target"]): p["cover"] for p in result.to_json()["pairs"]}
    assert got[("A", "G")] == "cover"
    assert got[("G", "A")] == "cover"
    assert got[("A", "H")] == "none"
    assert got[("G", "H")] == "none"


# ------------------------------------------------------ batched line of effect
# A vault: a column of solid squares with one gap, a sealed room (solid
# squares and the map edge) holding C and D, a closed door shutting E in:
#
#     0 1 2 3 4 5 6 7 8
#   0 A . . # . . . . .
#   1 . . . # . B . . .
#   2 . . . # . . # # #
#   3 . G . . . . # C .
#   4 . . . # . . # . D
#   5 . . . # . . # # #
#   6 . . . # E | . . .    (| a closed door on x = 5, from y = 5 to 7)
VAULT = BattleMap.build(
    9, 7,
    squares=["...#.....", "...#.....", "...#..###", "......#..", "...#..#..", "...#..###",
             "...#....."],
    walls=[{"kind": "door", "points": [[5, 5], [5, 7]], "open": False},
           {"kind": "wall", "points": [[4, 5], [5, 5]]}],
    creatures=[{"id": "A", "x": 0, "y": 0, "evasion": 12},
               {"id": "B", "x": 5, "y": 1, "evasion": 11},
               {"id": "G", "x": 1, "y": 3, "evasion": 10},
               {"id": "C", "x": 7, "y": 3, "evasion": 13},
               {"id": "D", "x": 8, "y": 4, "evasion": 12},
               {"id": "E", "x": 4, "y": 6, "evasion": 14}],
)
VAULT_IDS = [c.id for c in VAULT.creatures]


@pytest.mark.parametrize("rules", list(RULESETS))
def test_line_of_effect_searched_in_batches_once_per_unordered_pair(rules, monkeypatch):
    from lineoffire.geometry import effect

    searched = []
    batched = effect.line_of_effect_many

    def spy(bmap, pairs, **kw):
        searched.extend(pairs)
        return batched(bmap, pairs, **kw)

    def single(*args, **kw):
        raise AssertionError("the matrix ran a single-pair line of effect search")

    monkeypatch.setattr(effect, "line_of_effect_many", spy)
    monkeypatch.setattr(effect, "line_of_effect", single)
    result = cover_matrix(VAULT, rules=rules, chunk_size=4)
    monkeypatch.undo()
    mod = ruleset(rules)
    answers = result.to_json()["pairs"]
    assert len(answers) == len(VAULT_IDS) * (len(VAULT_IDS) - 1)
    for ans in answers:
        a, t = ans["attacker"], ans["target"]
        assert ans == {"attacker": a, "target": t, **mod.resolve(VAULT, a, t)}, (a, t)
    got = {(p["attacker"], p["target"]): p["cover"] for p in answers}
    # C and D are sealed in with each other; E is shut in by the door
    assert got["A", "C"] == got["C", "A"] == got["B", "D"] == got["E", "A"] == "total"
    assert got["C", "D"] != "total" and got["A", "G"] != "total"
    # every unordered pair searched at most once, and the sealed pairs were searched
    keys = [frozenset(p) for p in searched]
    assert len(keys) == len(set(keys))
    idx = {cid: i for i, cid in enumerate(VAULT_IDS)}
    assert frozenset((idx["A"], idx["C"])) in set(keys)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_decide_takes_the_line_of_effect_answer(rules):
    from lineoffire.resolver.common import trace_plan

    mod = ruleset(rules)
    p = mod.plan(VAULT, "A", "C")
    traces = list(trace_plan(VAULT, p))
    searched = mod.decide(VAULT, p, traces)
    assert searched["cover"] == "total"
    # the search decide would run: pf1e drew every corner-to-corner line
    assert mod.effect_search(VAULT, p, traces) == (0, 3, rules == "pf1e")
    assert mod.decide(VAULT, p, traces, line_of_effect=False) == searched
    # a bool is taken as the answer: nothing is searched
    assert mod.decide(VAULT, p, traces, line_of_effect=True)["cover"] != "total"
    with pytest.raises(TypeError, match="line_of_effect must be True, False or None, not str"):
        mod.decide(VAULT, p, traces, line_of_effect="no")
    # in plain view a drawn line proves line of effect: no search
    p = mod.plan(VAULT, "A", "G")
    assert mod.effect_search(VAULT, p, list(trace_plan(VAULT, p))) is None


# A close-quarters room for melee and reach: a wall between A and B (one edge
# long, so reachable around), a door between B and G, a slit, a low square:
#
#     0 1 2 3 4 5
#   0 . . . . . .
#   1 A|B G . # .      (| a wall on x = 1 from y = 1 to y = 2; a closed door on
#   2 . O O . . .       x = 2 from y = 1 to y = 2; ':' a slit on x = 4)
#   3 . O O : H ,      (',' a low square; O a large ogre)
#   4 . . . . . .
ROOM = BattleMap.build(
    6, 5,
    squares=["......", "....#.", "......", ".....=", "......"],
    walls=[{"kind": "wall", "points": [[1, 1], [1, 2]]},
           {"kind": "door", "points": [[2, 1], [2, 2]]},
           {"kind": "slit", "points": [[4, 3], [4, 4]]}],
    creatures=[{"id": "A", "x": 0, "y": 1, "evasion": 12},
               {"id": "B", "x": 1, "y": 1, "evasion": 11},
               {"id": "G", "x": 2, "y": 1, "evasion": 10},
               {"id": "O", "x": 1, "y": 2, "size": "large", "evasion": 9},
               {"id": "H", "x": 4, "y": 3, "evasion": 13}],
)

_COSTLY = ("providers", "lines")


def _summary_cases(rules):
    """(map, plan) for every ordered pair of YARD, ROOM and VAULT and every attack
    the ruleset draws differently, and area effects from a few origins."""
    from lineoffire.errors import RequestError as _RE

    mod = ruleset(rules)
    attacks = ["ranged", "reach", "melee"] if rules == "pf1e" else ["ranged"]
    for m in (YARD, ROOM, VAULT):
        ids = [c.id for c in m.creatures]
        for attack in attacks:
            for a in ids:
                for t in ids:
                    if a == t:
                        continue
                    try:
                        yield m, mod.plan(m, a, t, attack=attack)
                    except _RE:  # melee against a creature that is not adjacent
                        continue
        for origin in ([0, 0], [3.5, 1.5], [5, 5]):
            for t in ids:
                yield m, mod.plan(m, None, t, attack="area", origin=origin)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_summary_decide_is_the_full_answer_less_providers_and_lines(rules):
    from lineoffire.resolver.common import trace_plan

    mod = ruleset(rules)
    covers, melee = set(), 0
    for m, p in _summary_cases(rules):
        traces = list(trace_plan(m, p))
        full = mod.decide(m, p, traces)
        assert set(_COSTLY) <= set(full)
        short = mod.decide(m, p, traces, summary=True)
        assert short == {k: v for k, v in full.items() if k not in _COSTLY}, (p.meta, full)
        # with the matrix's line-of-effect answer too
        known = mod.effect_search(m, p, traces)
        if known is not None:
            loe = line_of_effect(m, known[0], known[1])
            assert mod.decide(m, p, traces, line_of_effect=loe, summary=True) == short
        covers.add(full["cover"])
        melee += p.meta.get("layout") == "melee"
    # the maps give every ruleset a spread of verdicts, total cover among them
    assert len(covers) >= 3 and "total" in covers, covers
    assert rules != "pf1e" or melee >= 4
    with pytest.raises(TypeError, match=r"summary must be True or False, not str \('yes'\)"):
        mod.decide(m, p, traces, summary="yes")


@pytest.mark.parametrize("rules", list(RULESETS))
def test_matrix_without_answers_asks_for_summaries(rules, monkeypatch):
    mod = ruleset(rules)
    kept = cover_matrix(ROOM, rules=rules, keep_answers=True)
    calls = []
    real = mod.decide

    @functools.wraps(real)  # keeps the signature the matrix reads
    def spy(*args, **kw):
        calls.append(kw.get("summary", False))
        return real(*args, **kw)

    monkeypatch.setattr(mod, "decide", spy)
    bare = cover_matrix(ROOM, rules=rules, keep_answers=False)
    assert calls and all(calls)
    assert bare.cover.tolist() == kept.cover.tolist()
    assert bare.bonus.tolist() == kept.bonus.tolist()
    assert bare.to_json()["pairs"] == [
        {k: p[k] for k in ("attacker", "target", "cover", BONUS_KEY[rules])}
        for p in kept.to_json()["pairs"]]
    calls.clear()
    cover_matrix(ROOM, rules=rules, keep_answers=True)
    assert calls and not any(calls)


def test_pf1e_searches_when_unstopped_lines_prove_nothing():
    # A # B  on a one-row map: the lines along the top and bottom edges graze the
    # solid square and are not stopped, but a straight axis line with both ends
    # on the creatures' edges proves no line of effect: the search runs (and
    # finds the segment along the edge, so cover, not total)
    from lineoffire.resolver import pf1e
    from lineoffire.resolver.common import trace_plan

    m = BattleMap.build(3, 1, squares=[".#."], creatures=[{"id": "A", "x": 0, "y": 0},
                                                           {"id": "B", "x": 2, "y": 0}])
    p = pf1e.plan(m, "A", "B")
    traces = list(trace_plan(m, p))
    assert not all(tr.stopped for tr in traces)
    assert pf1e.effect_search(m, p, traces) == (0, 1, True)
    result = cover_matrix(m, rules="pf1e")
    assert [x["cover"] for x in result.to_json()["pairs"]] == ["cover", "cover"]
    assert result.to_json()["pairs"][0] == {"attacker": "A", "target": "B",
                                            **pf1e.resolve(m, "A", "B")}


def test_pf1e_melee_search_keeps_the_fast_accept():
    #   . | .
    #   A | B      melee lines are not every corner-to-corner line
    #   . | .
    from lineoffire.resolver import pf1e
    from lineoffire.resolver.common import trace_plan

    m = BattleMap.build(2, 3, walls=[{"points": [[1, 0], [1, 3]]}],
                        creatures=[{"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 1, "y": 1}])
    p = pf1e.plan(m, "A", "B", attack="melee")
    assert pf1e.effect_search(m, p, list(trace_plan(m, p))) == (0, 1, False)
    assert pf1e.decide(m, p, list(trace_plan(m, p)))["cover"] == "total"


def test_result_order_kept_when_mirrored_pairs_are_chunked_together():
    # attackers and targets in a scrambled order: pairs come back in that order
    result = cover_matrix(VAULT, rules="pf2e", attackers=["E", "A", "C"],
                          targets=["D", "A", "B"], chunk_size=3)
    assert _pairs(result) == [(a, t) for a in ("E", "A", "C") for t in ("D", "A", "B") if a != t]
    for ans in result.to_json()["pairs"]:
        assert ans == {**ans, **ruleset("pf2e").resolve(VAULT, ans["attacker"], ans["target"])}


# ---------------------------------------------------------------- filters
def test_range_counts_nearest_squares_with_pf1e_diagonals():
    # A at (0, 0); B 2 squares right; C diagonal (2, 2): 2 + 1 = 3 squares;
    # L large at (5, 0): nearest square 5 away; F far at (9, 5): 9 + 2 = 11
    m = BattleMap.build(10, 6, creatures=[
        {"id": "A", "x": 0, "y": 0}, {"id": "B", "x": 2, "y": 0}, {"id": "C", "x": 2, "y": 2},
        {"id": "L", "x": 5, "y": 0, "size": "large"}, {"id": "F", "x": 9, "y": 5}])
    rows, cols = pairs_in_range(m, [0], [1, 2, 3, 4], range_ft=10)
    assert cols.tolist() == [0]
    rows, cols = pairs_in_range(m, [0], [1, 2, 3, 4], range_ft=15)
    assert cols.tolist() == [0, 1]
    rows, cols = pairs_in_range(m, [0], [1, 2, 3, 4], range_ft=25)
    assert cols.tolist() == [0, 1, 2]
    # L's nearest square (6, 1) to F (9, 5): 4 + 3 // 2 = 5 squares = 25 ft;
    # L's (5, 0) to A (0, 0): 5 squares = 25 ft; F to A: 9 + 5 // 2 = 11 squares
    result = cover_matrix(m, rules="pf2e", attackers=["L"], targets=["F", "A"], range_ft=25)
    assert _pairs(result) == [("L", "F"), ("L", "A")]
    result = cover_matrix(m, rules="pf2e", attackers=["L"], targets=["F", "A"], range_ft=24.9)
    assert _pairs(result) == []
    result = cover_matrix(m, rules="pf2e", attackers=["A"], targets=["F"], range_ft=55)
    assert _pairs(result) == [("A", "F")]
    result = cover_matrix(m, rules="pf2e", attackers=["A"], targets=["F"], range_ft=50)
    assert _pairs(result) == []
    m2 = m.with_creatures(m.creatures)
    m2.square_ft = 10  # the range is in feet: 10 ft squares double every distance
    assert _pairs(cover_matrix(m2, rules="pf2e", attackers=["A"], range_ft=20)) == [("A", "B")]


def test_attackers_and_targets_lists_keep_their_order():
    result = cover_matrix(YARD, rules="pf2e", attackers=["D", "A"], targets=["E", "A", "C"])
    assert _pairs(result) == [("D", "E"), ("D", "A"), ("D", "C"), ("A", "E"), ("A", "C")]
    assert result.attackers == ["D", "A"] and result.targets == ["E", "A", "C"]
    mat = result.matrix()
    assert mat.shape == (2, 3)
    assert mat[1, 1] == -1  # A against itself is not evaluated
    full = cover_matrix(YARD, rules="pf2e")
    fm = full.matrix()
    rows = [IDS.index(x) for x in ("D", "A")]
    cols = [IDS.index(x) for x in ("E", "A", "C")]
    assert np.array_equal(fm[np.ix_(rows, cols)], mat)


def test_chunk_size_one_equals_one_chunk():
    one = cover_matrix(YARD, rules="pf1e", chunk_size=1)
    big = cover_matrix(YARD, rules="pf1e", chunk_size=10_000)
    assert one.to_json() == big.to_json()
    assert np.array_equal(one.cover, big.cover) and np.array_equal(one.bonus, big.bonus)
    assert one.stats["chunks"] == len(one) and big.stats["chunks"] == 1


def test_lines_shared_by_a_pair_are_traced_once():
    # pf1e against the large ogre: its 4 squares share corners, so lines from
    # one shooter corner to a shared corner repeat
    result = cover_matrix(YARD, rules="pf1e", attackers=["A"], targets=["O"], keep_answers=False)
    assert result.lines_planned == 4 * 4 * 4
    assert result.lines_traced == 4 * 9  # 4 shooter corners x 9 distinct ogre corners


# ---------------------------------------------------------------- outputs
def test_op_answers_pairs():
    answer = run_op({"op": "matrix", "map": YARD_JSON, "rules": "pf1e",
                     "attackers": ["A"], "targets": ["C", "O"], "range_ft": 100})
    assert [p["target"] for p in answer["pairs"]] == ["C", "O"]
    assert list(answer["pairs"][0])[:3] == ["attacker", "target", "cover"]
    assert answer["pairs"][1] == {"attacker": "A", "target": "O",
                                  **ruleset("pf1e").resolve(YARD, "A", "O")}


def test_cli_json_csv_npz_parse_back(tmp_path, capsys):
    path = tmp_path / "yard.json"
    save_map(YARD, path)
    ref = cover_matrix(YARD, rules="pf1e", range_ft=30)

    assert main(["matrix", str(path), "--rules", "pf1e", "--range", "30", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out) == ref.to_json()

    out = tmp_path / "m.csv"
    assert main(["matrix", str(path), "--rules", "pf1e", "--range", "30", "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [(r["attacker"], r["target"]) for r in rows] == _pairs(ref)
    assert [r["cover"] for r in rows] == [p["cover"] for p in ref.to_json()["pairs"]]
    assert [int(r["bonus"]) if r["bonus"] else None for r in rows] == \
        [p["ac_bonus"] for p in ref.to_json()["pairs"]]

    npz = tmp_path / "m.npz"
    assert main(["matrix", str(path), "--rules", "pf1e", "--range", "30", "--out", str(npz)]) == 0
    with np.load(npz, allow_pickle=False) as d:
        assert d["attackers"].tolist() == IDS and d["targets"].tolist() == IDS
        assert d["codes"].tolist() == list(COVER_CODES["pf1e"])
        assert str(d["rules"]) == "pf1e" and float(d["range_ft"]) == 30
        cover = d["cover"]
        assert cover.dtype == np.int8 and cover.shape == (len(IDS), len(IDS))
        assert np.array_equal(cover, ref.matrix())
        assert (np.diag(cover) == -1).all()
        for p in ref.to_json()["pairs"]:
            i, j = IDS.index(p["attacker"]), IDS.index(p["target"])
            assert d["codes"][cover[i, j]] == p["cover"]
            assert d["bonus"][i, j] == (-1 if p["ac_bonus"] is None else p["ac_bonus"])
        far = [(IDS.index(a), IDS.index(t)) for a in IDS for t in IDS
               if a != t and (a, t) not in set(_pairs(ref))]
        assert far and all(cover[i, j] == -1 for i, j in far)


def test_cli_csv_attackers_targets(capsys):
    assert main(["matrix", "goblin-ambush", "--rules", "creature-cover", "--attackers",
                 "archer,knight", "--targets", "boss", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["attacker", "target", "cover", "bonus"]
    assert [r[:2] for r in rows[1:]] == [["archer", "boss"], ["knight", "boss"]]


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("kw, exc, match", [
    ({"rules": "pf9"}, RequestError, "unknown rules 'pf9'; expected one of pf1e"),
    ({"attackers": ["A", "Z"]}, RequestError, r"attackers\[1\]: unknown creature id 'Z'"),
    ({"targets": ["C", "C"]}, RequestError, r"targets\[1\]: creature 'C' is listed twice"),
    ({"attackers": "A"}, TypeError, "attackers must be a list of creature ids"),
    ({"targets": [3]}, TypeError, r"targets\[0\] must be a creature id"),
    ({"range_ft": -5}, RequestError, "range_ft must be a finite number >= 0"),
    ({"range_ft": "far"}, TypeError, "range_ft must be a number of feet"),
    ({"attack": "area"}, RequestError, "unknown attack 'area'.*area effects have no attacker"),
    ({"chunk_size": 0}, ValueError, "chunk_size must be a positive integer"),
    ({"options": {"partial": True}}, RequestError, "unknown option 'partial' for the pf1e"),
])
def test_bad_arguments(kw, exc, match):
    args = {"rules": "pf1e", **kw}
    with pytest.raises(exc, match=match):
        cover_matrix(YARD, **args)


def test_op_refuses_unknown_fields_and_missing_rules():
    with pytest.raises(RequestError, match="unknown field.*'range'"):
        run_op({"op": "matrix", "map": YARD_JSON, "rules": "pf1e", "range": 30})
    with pytest.raises(RequestError, match="matrix request has no 'rules'"):
        run_op({"op": "matrix", "map": YARD_JSON})
    with pytest.raises(RequestError, match="matrix request: range_ft must be a number"):
        run_op({"op": "matrix", "map": YARD_JSON, "rules": "pf1e", "range_ft": [1]})


def test_cli_errors(capsys):
    assert main(["matrix", "goblin-ambush", "--rules", "pf1e", "--format", "npz"]) == 2
    assert "--format npz writes a binary file: give --out FILE" in capsys.readouterr().err
    assert main(["matrix", "goblin-ambush", "--rules", "pf1e", "--attackers", "archer,,x"]) == 2
    assert "--attackers must be comma-separated creature ids" in capsys.readouterr().err
    assert main(["matrix", "goblin-ambush", "--rules", "pf1e", "--dask", "nowhere"]) == 2
    assert "--dask must be 'local' or a scheduler address" in capsys.readouterr().err


# -------------------------------------------------------------------- dask
# An in-process cluster (processes=False) keeps this light; it raises no warnings
# here, so none are silenced (filterwarnings=error stays in force).
def test_dask_run_equals_local_run():
    distributed = pytest.importorskip("distributed")
    local = cover_matrix(YARD, rules="pf1e", chunk_size=5)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = cover_matrix(YARD, rules="pf1e", chunk_size=5, client=client)
        codes_only = cover_matrix(YARD, rules="pf2e", range_ft=25, chunk_size=3,
                                  client=client, keep_answers=False)
    assert remote.to_json() == local.to_json()
    assert np.array_equal(remote.cover, local.cover)
    assert remote.stats["chunks"] == local.stats["chunks"] > 1
    ref = cover_matrix(YARD, rules="pf2e", range_ft=25, keep_answers=False)
    assert np.array_equal(codes_only.matrix(), ref.matrix())


def _yard_json():
    buf = {"format": "lineoffire-map", "version": 1, "width": 10, "height": 6,
           "squares": ["..........", "..#.......", ".......=..", "..........", "..........",
                       ".........."],
           "walls": [{"kind": "wall", "points": [[5, 0], [5, 2]]},
                     {"kind": "slit", "points": [[5, 4], [5, 5]]},
                     {"kind": "low", "points": [[6, 5], [6, 6]], "height_ft": 2}],
           "creatures": [{"id": c.id, "x": c.x, "y": c.y, "size": c.size, "evasion": c.evasion}
                         for c in YARD.creatures]}
    return buf


YARD_JSON = _yard_json()


# ------------------------------------------------- pairs proved cut off
# Three rooms: walls of solid squares, a wall with a closed door, a slit in
# the west wall; creatures in every room, a large one among them:
#
#     0 1 2 3 4 5 6 7 8 9 10 11
#   0 A . . # . . . . # . .  .
#   1 . . . # . B . . # . E  .
#   2 . . . : . . . . | . .  .     (: a slit on x = 3, | a closed door on x = 8)
#   3 . G . # . . O O # . .  F
#   4 . . . # . . O O # . .  .
#   5 # # # # # # # # # # #  #
#   6 . . H . . . . . . . J  .
ROOMS = BattleMap.build(
    12, 7,
    squares=["...#....#...", "...#....#...", "............", "...#....#...",
             "...#....#...", "############", "............"],
    walls=[{"kind": "slit", "points": [[3, 2], [4, 2]]},
           {"kind": "wall", "points": [[3, 2], [3, 3]]},
           {"kind": "door", "points": [[8, 2], [8, 3]]},
           {"kind": "wall", "points": [[9, 2], [9, 3]]}],
    creatures=[{"id": "A", "x": 0, "y": 0, "evasion": 12},
               {"id": "B", "x": 5, "y": 1, "evasion": 11},
               {"id": "E", "x": 10, "y": 1, "evasion": 13},
               {"id": "G", "x": 1, "y": 3, "evasion": 10},
               {"id": "O", "x": 6, "y": 3, "size": "large", "evasion": 9},
               {"id": "F", "x": 11, "y": 3, "evasion": 12},
               {"id": "H", "x": 2, "y": 6, "evasion": 14},
               {"id": "J", "x": 10, "y": 6, "evasion": 15}],
)


@pytest.mark.parametrize("rules, attack", [(r, "ranged") for r in RULESETS] + [("pf1e", "reach")])
def test_pairs_proved_cut_off_are_not_planned_and_answer_as_resolve(rules, attack, monkeypatch):
    from lineoffire.geometry import effect
    from lineoffire.geometry.seal import sealed_pairs

    mod = ruleset(rules)
    n = len(ROOMS.creatures)
    a, t = np.array([(i, j) for i in range(n) for j in range(n) if i != j]).T
    proved = sealed_pairs(ROOMS, a, t)
    assert proved.sum() >= 20  # the row below the wall is cut off from the rooms
    planned = []
    real = mod.plan

    @functools.wraps(real)
    def spy(bmap, attacker, target, **kw):
        planned.append((attacker, target))
        return real(bmap, attacker, target, **kw)

    monkeypatch.setattr(mod, "plan", spy)
    bare = cover_matrix(ROOMS, rules=rules, attack=attack, keep_answers=False, chunk_size=9)
    monkeypatch.undo()
    ids = [c.id for c in ROOMS.creatures]
    cut = {(ids[i], ids[j]) for i, j, p in zip(a.tolist(), t.tolist(), proved.tolist()) if p}
    # one pair is planned up front to check the request; no other proved pair
    assert len(cut & set(planned[1:])) == 0
    key = BONUS_KEY[rules]
    for p in bare.to_json()["pairs"]:
        full = mod.resolve(ROOMS, p["attacker"], p["target"], attack=attack)
        assert (p["cover"], p[key]) == (full["cover"], full[key]), p
        if (p["attacker"], p["target"]) in cut:
            assert full["cover"] == "total"
            # and the exact search, without the proof, agrees
            pair = (ROOMS.creature_index(p["attacker"]), ROOMS.creature_index(p["target"]))
            assert effect._search(ROOMS, [pair], exact=True)[0] is None
