"""The ``lineoffire cover`` command and the ``cover`` request op."""

from __future__ import annotations

import json

import pytest

from lineoffire.cli import main
from lineoffire.errors import RequestError
from lineoffire.ops import cover as cover_op
from lineoffire.ops import run_op

#: A wall square between A and T, a creature B beside T, a low wall on T's edge::
#:
#:     . . . . .
#:     A . # B T      low wall along x = 4, the edge between B and T
#:     . . . . .
MAP = {
    "format": "lineoffire-map", "version": 1, "width": 5, "height": 3,
    "squares": [".....", "..#..", "....."],
    "walls": [{"kind": "low", "points": [[4, 0], [4, 3]]}],
    "creatures": [{"id": "A", "x": 0, "y": 1}, {"id": "B", "x": 3, "y": 1},
                  {"id": "T", "x": 4, "y": 1}],
}


@pytest.fixture
def map_path(tmp_path):
    path = tmp_path / "room.json"
    path.write_text(json.dumps(MAP))
    return str(path)


def run(capsys, *argv):
    code = main(["cover", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_human_output_shows_verdict_corner_lines_and_providers(capsys, map_path):
    code, out, err = run(capsys, map_path, "--attacker", "A", "--target", "T", "--rules", "pf1e")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "T against A (pf1e, ranged): cover"
    assert "AC +4, Reflex +2" in lines[1]
    assert "attack of opportunity: n/a (not adjacent)" in lines[1]
    assert "chosen corner (0, 1) -> target square (4, 1)" in out
    assert "cover given by: low wall 0 segment 0, solid square (2, 1)" in out
    assert "(0, 1) -> (4, 2)  cover     solid square (2, 1) at t=0.5; creature B at t=0.75" in out


def test_json_output_is_the_op_answer(capsys, map_path):
    code, out, _ = run(capsys, map_path, "-a", "A", "-t", "T", "-r", "pf1e", "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer == cover_op.run({"op": "cover", "map": MAP, "rules": "pf1e",
                                   "attacker": "A", "target": "T"})
    assert next(iter(answer)) == "cover"


def test_melee_human_output_reports_attack_of_opportunity(capsys, map_path):
    code, out, _ = run(capsys, map_path, "-a", "B", "-t", "T", "-r", "pf1e", "--attack", "melee")
    assert code == 0
    assert out.splitlines()[0] == "T against B (pf1e, melee): cover"
    assert "attack of opportunity: not allowed" in out


def test_options_and_area_origin(capsys, map_path):
    code, out, _ = run(capsys, map_path, "-t", "T", "-r", "pf1e", "--attack", "area",
                       "--origin", "0.5,0.5", "--option", "partial_cover=true", "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer["corner"] == [0.5, 0.5]
    assert answer["attack_of_opportunity"] is None


def test_pf2e_attack_resolution(capsys, map_path):
    code, out, _ = run(capsys, map_path, "-a", "A", "-t", "T", "-r", "pf2e",
                       "--attack-total", "16", "--defence", "15")
    assert code == 0
    assert out.splitlines()[0] == "T against A (pf2e, ranged): standard"
    assert "attack 16 vs defence 15: hit_cover -> object" in out
    code, out, _ = run(capsys, map_path, "-a", "A", "-t", "T", "-r", "pf2e", "--json",
                       "--attack-total", "17", "--defence", "15")
    assert (json.loads(out)["outcome"], json.loads(out)["hit"]) == ("hit", "T")


@pytest.mark.parametrize("argv, message", [
    (["-a", "A", "-t", "T", "-r", "pf1e", "--attack", "melee"], "not adjacent"),
    (["-a", "A", "-t", "T", "-r", "pf1e", "-o", "foo=1"], "unknown option 'foo'"),
    (["-a", "A", "-t", "T", "-r", "pf1e", "-o", "partial_cover"], "must have the form name=value"),
    (["-a", "A", "-t", "T", "-r", "pf1e", "--attack", "area", "--origin", "1;2"],
     "--origin must be X,Y"),
    (["-a", "A", "-t", "T", "-r", "pf1e", "--attack", "area"], "needs an origin"),
    (["-a", "A", "-t", "Z", "-r", "pf2e"], "unknown creature id 'Z'"),
    (["-a", "A", "-t", "T", "-r", "pf2e", "--attack-total", "12"], "defence is missing"),
    (["-t", "T", "-r", "pf2e"], "no 'attacker'"),
])
def test_bad_requests_exit_2_with_one_line(capsys, map_path, argv, message):
    code, out, err = run(capsys, map_path, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert err.startswith("lineoffire cover: error: ")


def test_unknown_rules_rejected_by_the_parser(capsys, map_path):
    with pytest.raises(SystemExit) as info:
        main(["cover", map_path, "-a", "A", "-t", "T", "-r", "dnd5e"])
    assert info.value.code == 2
    assert "invalid choice: 'dnd5e'" in capsys.readouterr().err


def test_missing_map_file(capsys, tmp_path):
    code, _, err = run(capsys, str(tmp_path / "nowhere.json"), "-a", "A", "-t", "T", "-r", "pf1e")
    assert code == 2 and "no such map file" in err


# ---------------------------------------------------------------- the op
def request(**kw):
    return {"op": "cover", "map": MAP, "rules": "pf1e", "attacker": "A", "target": "T", **kw}


def test_op_dispatches_by_rules():
    assert run_op(request())["cover"] == "cover"
    answer = run_op(request(rules="pf2e"))
    assert list(answer)[:2] == ["cover", "defence_bonus"] and answer["cover"] == "standard"


def test_op_passes_attack_numbers_and_options():
    answer = run_op(request(rules="pf2e", attack_total=15, defence=15))
    assert (answer["outcome"], answer["hit"]) == ("hit_cover", "object")
    melee = run_op(request(attacker="B", attack="melee"))
    assert melee["attack_of_opportunity"] is False


@pytest.mark.parametrize("req, code, message", [
    (request(rules="gurps"), "unknown_rules", "unknown rules 'gurps'"),
    (request(rule="pf1e"), "bad_request", "unknown field\\(s\\) 'rule'"),
    ({"op": "cover", "map": MAP, "attacker": "A", "target": "T"}, "bad_request", "no 'rules'"),
    ({"op": "cover", "map": MAP, "rules": "pf1e", "attacker": "A"}, "bad_request", "no 'target'"),
    (request(attack="melee"), "not_adjacent", "not adjacent"),
    (request(options={"partial_cover": 1}), "bad_request", "must be bool"),
    (request(options=["partial_cover"]), "bad_request", "options must be an object"),
    (request(attacker=7), "bad_request", "attacker must be a creature id"),
    (request(origin=[1, 1]), "bad_request", "origin applies to area attacks only"),
])
def test_op_errors_have_codes(req, code, message):
    with pytest.raises(RequestError, match=message) as info:
        run_op(req)
    assert info.value.code == code
