"""``lineoffire trace`` and ``lineoffire demo`` on the command line."""

from __future__ import annotations

import json
import sys

import pytest

import lineoffire.commands.demo as demo
from lineoffire.cli import main
from lineoffire.maps import example_names, load_map

# SPEC section 6, the trace example.
SPEC_MAP = {"format": "lineoffire-map", "version": 1, "width": 6, "height": 3,
            "squares": ["......", "..#...", "......"],
            "creatures": [{"id": "B", "x": 4, "y": 1, "size": "medium"}]}
SPEC_ANSWER = {"lines": [
    {"stopped": True, "blockers": [{"kind": "solid", "square": [2, 1], "t": 0.3},
                                   {"kind": "creature", "creature": "B", "t": 0.7}]},
    {"stopped": False, "blockers": []},
]}

# A walled yard, 7 x 3:
#   0 1 2 3 4 5 6
#   A . . M . . B     row 0: A and M (red) face B (blue) along the row
#   # # # # # # #     row 1: solid
#   . . . N . . D     row 2: D (blue) behind the wall; N has no team
# plus a thin wall on x = 5 across row 2, and D dead.
YARD = {"format": "lineoffire-map", "version": 1, "width": 7, "height": 3,
        "squares": [".......", "#######", "......."],
        "walls": [{"kind": "wall", "points": [[5, 2], [5, 3]]}],
        "creatures": [{"id": "A", "x": 0, "y": 0, "team": "red", "evasion": 10},
                      {"id": "M", "x": 3, "y": 0, "team": "red", "evasion": 10},
                      {"id": "B", "x": 6, "y": 0, "team": "blue", "evasion": 10},
                      {"id": "D", "x": 6, "y": 2, "team": "blue", "evasion": 10, "dead": True},
                      {"id": "N", "x": 3, "y": 2, "evasion": 10}]}


@pytest.fixture
def spec_map(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC_MAP))
    return str(path)


@pytest.fixture
def yard(tmp_path):
    path = tmp_path / "yard.json"
    path.write_text(json.dumps(YARD))
    return str(path)


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ trace
def test_spec_example_json(spec_map, capsys):
    code, out, err = cli(capsys, "trace", spec_map, "--from", "0.5,1.5", "--to", "5.5,1.5",
                         "--from", "0,1", "--to", "6,1", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == SPEC_ANSWER


def test_spec_example_for_people(spec_map, capsys):
    code, out, err = cli(capsys, "trace", spec_map, "--from", "0.5,1.5", "--to", "5.5,1.5",
                         "--from", "0,1", "--to", "6,1")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "line 1: (0.5, 1.5) -> (5.5, 1.5): stopped (passes through B)",
        "  solid     square (2, 1)        t=0.3     at (2, 1.5)",
        "  creature  B                    t=0.7     at (4, 1.5)",
        "line 2: (0, 1) -> (6, 1): clear",
    ]


def test_wall_blocker_and_its_point_from_t(yard, capsys):
    # Along row 2 from N's centre to D's: the thin wall on x = 5 at t = 1.5 / 3.
    code, out, err = cli(capsys, "trace", yard, "--from", "3.5,2.5", "--to", "6.5,2.5",
                         "--attacker", "N", "--target", "D")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "line 1: (3.5, 2.5) -> (6.5, 2.5): stopped",
        "  wall      wall 0 segment 0     t=0.5     at (5, 2.5)",
    ]


def test_coordinates_are_reported_as_snapped(yard, capsys):
    # 0.1 is snapped to 102/1024 = 0.099609375 square, printed to 4 places.
    code, out, _ = cli(capsys, "trace", yard, "--from", "0.1,0.5", "--to", "2.5,0.5")
    assert code == 0
    assert out.splitlines()[0] == "line 1: (0.0996, 0.5) -> (2.5, 0.5): clear (passes through A)"


@pytest.mark.parametrize("extra, blockers", [
    ([], ["A", "M", "B"]),
    (["--attacker", "A"], ["M", "B"]),
    (["--attacker", "A", "--target", "B"], ["M"]),
])
def test_attacker_and_target_are_attached(yard, capsys, extra, blockers):
    code, out, _ = cli(capsys, "trace", yard, "--from", "0.5,0.5", "--to", "6.5,0.5",
                       "--json", *extra)
    assert code == 0
    [line] = json.loads(out)["lines"]
    assert [b["creature"] for b in line["blockers"]] == blockers


def test_ignore_dead(yard, capsys):
    # Down column 6 from B's centre into D's space, through the solid square (6, 1).
    argv = ["trace", yard, "--from", "6.5,0.5", "--to", "6.5,2.9", "--attacker", "B", "--json"]
    _, out, _ = cli(capsys, *argv)
    assert [b.get("creature") for b in json.loads(out)["lines"][0]["blockers"]] == [None, "D"]
    _, out, _ = cli(capsys, *argv, "--ignore-dead")
    assert [b.get("creature") for b in json.loads(out)["lines"][0]["blockers"]] == [None]


@pytest.mark.parametrize("option, value, message", [
    ("--from", "3,x", "--from '3,x': expected X,Y (two numbers)"),
    ("--to", "3", "--to '3': expected X,Y (two numbers)"),
    ("--to", "1,2,3", "--to '1,2,3': expected X,Y (two numbers)"),
    ("--from", "nan,1", "--from 'nan,1': coordinates must be finite numbers"),
    ("--to", "1,inf", "--to '1,inf': coordinates must be finite numbers"),
    ("--to", "7.5,1", "--to '7.5,1': the point lies outside the 7x3 map"),
    ("--from", "1,3.01", "--from '1,3.01': the point lies outside the 7x3 map"),
])
def test_bad_coordinates_exit_2_naming_option_and_value(yard, capsys, option, value, message):
    points = {"--from": "0.5,0.5", "--to": "2.5,0.5", option: value}
    code, out, err = cli(capsys, "trace", yard, "--from", points["--from"],
                         "--to", points["--to"])
    assert code == 2 and out == ""
    assert err.startswith(f"lineoffire trace: error: {message}")
    assert err.count("\n") == 1


def test_from_and_to_must_pair_up(yard, capsys):
    code, out, err = cli(capsys, "trace", yard, "--from", "0.5,0.5", "--to", "2.5,0.5",
                         "--from", "1,1")
    assert code == 2 and out == ""
    assert err == ("lineoffire trace: error: --from is given 2 time(s) and --to 1; "
                   "give them in pairs\n")


def test_unknown_creature_and_missing_map(yard, capsys):
    code, _, err = cli(capsys, "trace", yard, "--from", "0.5,0.5", "--to", "2.5,0.5",
                       "--target", "Z")
    assert code == 2
    assert err.startswith("lineoffire trace: error: trace request: target: unknown creature id 'Z'")
    code, _, err = cli(capsys, "trace", "nowhere.json", "--from", "0,0", "--to", "1,1")
    assert (code, err) == (2, "lineoffire trace: error: nowhere.json: no such map file\n")


def test_trace_needs_from_and_to(yard, capsys):
    with pytest.raises(SystemExit) as info:
        main(["trace", yard, "--from", "0,0"])
    assert info.value.code == 2
    assert "the following arguments are required: --to" in capsys.readouterr().err


# ------------------------------------------------------------------ demo
def table_rows(out):
    """The demo's table rows as lists of cells: attacker, target, cover, bonus, providers."""
    lines = out.splitlines()
    start = next(i for i, s in enumerate(lines) if s.startswith("attacker")) + 2
    rows = []
    for s in lines[start:]:
        if not s or s.startswith("("):
            break
        rows.append(s.split(None, 4))
    return rows


@pytest.mark.parametrize("rules, bonus", [("pf1e", "+0"), ("pf2e", "+0"),
                                          ("creature-cover", "+0")])
def test_demo_on_a_hand_drawn_yard(yard, capsys, rules, bonus):
    code, out, err = cli(capsys, "demo", "--map", yard, "--rules", rules)
    assert (code, err) == (0, "")
    rows = {(r[0], r[1]): r for r in table_rows(out)}
    # Only opposing teams: red A, M against blue B, D, both ways; N has no team.
    assert sorted(rows) == sorted([(a, t) for a in "AM" for t in "BD"]
                                  + [(t, a) for a in "AM" for t in "BD"])
    assert "(no team, left out: N)" in out
    # M shoots B along the open row: no cover.  D is behind solid row 1: total.
    assert rows["M", "B"][2:4] == ["none", bonus]
    assert rows["B", "M"][2:4] == ["none", bonus]
    assert rows["A", "D"][2:4] == ["total", "-"]
    assert rows["D", "M"][2:4] == ["total", "-"]
    assert rows["A", "D"][4].startswith("solid square (")
    # The map is shown first, in the text format.
    assert "A..M..B\n#######\n...N..D\n" in out


def test_demo_soft_cover_from_a_creature_in_the_way(yard, capsys):
    code, out, _ = cli(capsys, "demo", "--map", yard)
    assert code == 0
    rows = {(r[0], r[1]): r for r in table_rows(out)}
    assert rows["A", "B"][2:] == ["soft", "+4", "creature M"]


def test_demo_default_example_matches_the_resolver(capsys):
    from lineoffire.resolver import resolve

    code, out, err = cli(capsys, "demo")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("== Crossroads: 20x14 squares of 5 ft ==")
    assert len(lines) < 100
    bmap = load_map("crossroads")
    rows = table_rows(out)
    pairs = [(a.id, t.id) for a in bmap.creatures for t in bmap.creatures
             if a.team and t.team and a.team != t.team]
    assert [(r[0], r[1]) for r in rows] == pairs
    for a, t, cover, *_ in rows:
        assert cover == resolve(bmap, a, t, rules="pf1e")["cover"], (a, t)


def test_demo_falls_back_to_the_first_example(monkeypatch, capsys):
    monkeypatch.setattr(demo, "DEFAULT_MAP", "no-such-example")
    first = load_map(example_names()[0])
    code, out, _ = cli(capsys, "demo")
    assert code == 0
    assert out.startswith(f"== {first.name or example_names()[0]}: {first.width}x{first.height}")


def test_demo_without_the_resolver_says_so(monkeypatch, yard, capsys):
    monkeypatch.setitem(sys.modules, "lineoffire.resolver.pf2e", None)  # import fails
    code, out, err = cli(capsys, "demo", "--map", yard, "--rules", "pf2e")
    assert code == 2 and out == ""
    assert err.startswith("lineoffire demo: the pf2e rules are not available in this build")
    assert err.count("\n") == 1


def test_demo_without_the_text_format_draws_a_plain_grid(monkeypatch, yard, capsys):
    monkeypatch.setitem(sys.modules, "lineoffire.maps.textfmt", None)
    code, out, _ = cli(capsys, "demo", "--map", yard)
    assert code == 0
    assert out.splitlines()[1:4] == ["A..M..B", "#######", "...N..D"]


def test_demo_unknown_map_and_rules(capsys):
    code, out, err = cli(capsys, "demo", "--map", "atlantis")
    assert code == 2 and out == ""
    assert err.startswith("lineoffire demo: error: unknown example map 'atlantis'")
    with pytest.raises(SystemExit) as info:
        main(["demo", "--rules", "dnd5e"])
    assert info.value.code == 2
    assert "invalid choice: 'dnd5e'" in capsys.readouterr().err
