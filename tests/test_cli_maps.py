"""The validate, show and convert commands, run in-process through ``lineoffire.cli.main``."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from lineoffire.cli import main
from lineoffire.maps import load_map
from lineoffire.maps.textfmt import loads_text


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ validate
def test_validate_an_example_prints_a_summary(capsys):
    code, out, err = run(capsys, "validate", "crossroads")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "crossroads: valid map 'Crossroads'",
        "  size: 20 x 14 squares of 5 ft",
        "  squares: 33 solid, 6 low (3 ft)",
        "  walls: 3 wall, 2 door, 1 slit, 2 low (13 segments)",
        "  doors: 1 open, 1 closed",
        "  creatures: 9 (party 4, raiders 4, no team 1)",
        "  joins added: 0",
    ]


def test_validate_json_summary(capsys, tmp_path):
    path = tmp_path / "m.txt"
    path.write_text(
        "grid\n#A.=\n..##\n\ncreature A team=red\ncreature z 2,0 tiny evasion=4\n"
        "door 0,2 1,2 open\ndoor 1,2 2,2\nlow 3,0 4,1 4,2\n"
    )
    code, out, err = run(capsys, "validate", str(path), "--json")
    assert (code, err) == (0, "")
    s = json.loads(out)
    assert s["valid"] is True and s["map"] == str(path)
    assert (s["width"], s["height"]) == (4, 2)
    assert s["squares"] == {"solid": 3, "low": 1}
    assert s["walls"] == {"wall": 0, "door": 2, "slit": 0, "low": 1}
    assert s["wall_segments"] == {"wall": 0, "door": 2, "slit": 0, "low": 2}
    assert s["doors"] == {"open": 1, "closed": 1}
    assert (s["creatures"], s["teams"], s["without_team"]) == (2, {"red": 1}, 1)
    assert s["sizes"] == {"tiny": 1, "medium": 1}
    assert s["without_evasion"] == ["A"]
    assert s["joins_added"] == 0


def test_validate_reports_joins_added_by_an_importer(capsys, monkeypatch):
    from lineoffire.commands import validate

    imported = load_map("crossroads")
    imported.joins_added = 3
    monkeypatch.setattr(validate, "load_map", lambda source, fmt=None: imported)
    code, out, _ = run(capsys, "validate", "whatever.dd2vtt", "--json")
    assert code == 0 and json.loads(out)["joins_added"] == 3


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("sise.json",
         '{"format": "lineoffire-map", "version": 1, "width": 2, "height": 1,\n'
         ' "creatures": [{"id": "A", "x": 0, "y": 0, "sise": "tiny"}]}',
         r"sise.json: unknown field creatures\[0\]\.sise; did you mean 'size'\?"),
        ("broken.json", '{"format": "lineoffire-map",\n  "version": 1\n  "width": 2}',
         r"broken.json: line 3, column 3: invalid JSON: Expecting ',' delimiter"),
        ("types.json", '{"format": "lineoffire-map", "version": 1, "width": "2", "height": 1}',
         r"types.json: width must be an integer, not str"),
        ("overlap.txt", "size 3x3\ncreature A 0,0\ncreature B 0,0\n",
         r"overlap.txt: creature 'B' \(line 3\): overlaps creature 'A' at square \(0, 0\)"),
        ("grid.map", "grid\n..\n.%\n", r"grid.map: line 3, column 2: unknown square code '%'"),
        ("scene.xyz", "", r"scene.xyz: unknown map file type '.xyz'"),
    ],
)
def test_validate_a_bad_map_exits_2_with_one_line(capsys, tmp_path, name, content, pattern):
    path = tmp_path / name
    path.write_text(content)
    code, out, err = run(capsys, "validate", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("lineoffire validate: error: ")
    assert re.search(pattern, err), err


def test_validate_a_missing_file_or_example(capsys, tmp_path):
    code, _, err = run(capsys, "validate", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: no such map file" in err
    code, _, err = run(capsys, "validate", "atlantis")
    assert code == 2 and "unknown example map 'atlantis'; the examples are " in err
    assert "crossroads" in err


def test_validate_json_on_error_prints_valid_false(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "lineoffire-map", "version": 2, "width": 1, "height": 1}')
    code, out, err = run(capsys, "validate", str(path), "--json")
    assert code == 2
    assert json.loads(out) == {
        "valid": False,
        "error": f"{path}: unsupported map version 2; this engine reads version 1",
    }
    assert err == f"lineoffire validate: error: {path}: unsupported map version 2; this engine reads version 1\n"


def test_validate_with_a_forced_format(capsys, tmp_path):
    path = tmp_path / "keep.data"
    path.write_text("size 2x2\ncreature A 1,1\n")
    code, out, _ = run(capsys, "validate", str(path), "--format", "text")
    assert code == 0 and "creatures: 1 (no team 1)" in out


def test_python_dash_m_validate():
    done = subprocess.run(
        [sys.executable, "-m", "lineoffire", "validate", "goblin-ambush"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "goblin-ambush: valid map 'Goblin ambush'" in done.stdout
    assert "creatures: 13 (goblins 6, party 4, villagers 1, no team 2)" in done.stdout


# ------------------------------------------------------------------ show
@pytest.mark.parametrize("name", ["crossroads", "arrow-slit-keep", "goblin-ambush"])
def test_show_prints_the_text_format_of_the_same_map(capsys, name):
    code, out, err = run(capsys, "show", name)
    assert (code, err) == (0, "")
    assert loads_text(out) == load_map(name)


def test_show_draws_letters_unless_told_not_to(capsys):
    _, out, _ = run(capsys, "show", "crossroads")
    assert "...F.#......K.####.." in out.splitlines()
    _, out, _ = run(capsys, "show", "crossroads", "--no-marks")
    assert "...F.#......K.####.." not in out.splitlines()
    assert "creature F 3,4 medium team=party evasion=13" in out.splitlines()


def test_show_as_json(capsys):
    code, out, _ = run(capsys, "show", "arrow-slit-keep", "--as", "json")
    assert code == 0
    assert json.loads(out)["name"] == "Arrow-slit keep"


def test_show_a_bad_map_exits_2(capsys, tmp_path):
    path = tmp_path / "m.txt"
    path.write_text("size 2x2\ncreature A\n")
    code, out, err = run(capsys, "show", str(path))
    assert code == 2 and out == ""
    assert err == f"lineoffire show: error: {path}: line 2: creature 'A' has no position: give X,Y after the id or a grid letter\n"


# ------------------------------------------------------------------ convert
def test_convert_json_to_text_and_back(capsys, tmp_path):
    code, out, _ = run(capsys, "convert", "goblin-ambush", str(tmp_path / "a.txt"))
    assert code == 0 and out == f"wrote {tmp_path / 'a.txt'} (text, 16x10, 13 creatures)\n"
    code, _, _ = run(capsys, "convert", str(tmp_path / "a.txt"), str(tmp_path / "b.json"))
    assert code == 0
    assert json.loads((tmp_path / "b.json").read_text())["format"] == "lineoffire-map"
    assert load_map(tmp_path / "b.json") == load_map("goblin-ambush")
    code, _, _ = run(capsys, "convert", str(tmp_path / "b.json"), str(tmp_path / "c.MAP"))
    assert code == 0 and load_map(tmp_path / "c.MAP", fmt="text") == load_map("goblin-ambush")


def test_convert_refuses_an_unknown_output_type(capsys, tmp_path):
    code, out, err = run(capsys, "convert", "crossroads", str(tmp_path / "x.png"))
    assert code == 2 and out == ""
    assert "cannot write map file type '.png'; expected one of .json, .txt, .map, .lof" in err
    assert not (tmp_path / "x.png").exists()


def test_convert_a_bad_input_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("grid\n.#\n#\n")
    code, _, err = run(capsys, "convert", str(bad), str(tmp_path / "out.json"))
    assert code == 2 and "bad.txt: line 3: grid row 1 has 1 squares, the first row has 2" in err
    assert not (tmp_path / "out.json").exists()
