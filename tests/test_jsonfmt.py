"""The native JSON map format (SPEC section 6, version 1) and the bundled examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lineoffire.maps import MapError, example_names, example_path, load_map, save_map
from lineoffire.maps.jsonfmt import dumps_json, from_json_dict, load_json, save_json, to_json_dict
from lineoffire.maps.model import SOLID, MapTypeError, snap
from lineoffire.maps.textfmt import load_text

#: The SPEC section 6 example map, written out.
SPEC_MAP = {
    "format": "lineoffire-map", "version": 1,
    "width": 8, "height": 5, "square_ft": 5, "low_height_ft": 3,
    "squares": ["........", "..#.....", "..=.....", "........", "........"],
    "walls": [{"kind": "wall", "points": [[5, 0], [5, 3]]},
              {"kind": "door", "points": [[5, 3], [5, 4]], "open": False},
              {"kind": "low", "points": [[6.5, 1.2], [7.5, 2.0]], "height_ft": 2}],
    "creatures": [{"id": "A", "x": 0, "y": 0, "size": "medium", "team": "party",
                   "evasion": 12, "traits": ["trigger_discipline"]},
                  {"id": "T", "x": 6, "y": 3, "size": "large", "team": "raiders"}],
}

#: A map that uses every field.
FULL_MAP = {
    "format": "lineoffire-map", "version": 1, "name": "Every field",
    "width": 7, "height": 4, "square_ft": 1.5, "low_height_ft": 2.5,
    "meta": {"author": "test", "tags": ["a", "b"], "nested": {"n": None}},
    "squares": [".#.....", "..=....", ".......", "......#"],
    "walls": [{"kind": "wall", "points": [[0, 0], [0.125, 3.5], [2, 4]]},
              {"kind": "door", "points": [[3, 0], [3, 1]], "open": True},
              {"kind": "slit", "points": [[4, 1], [5, 1]]},
              {"kind": "low", "points": [[6.5, 0.25], [7, 1.75]]},
              {"kind": "low", "points": [[5, 3], [6, 3]], "height_ft": 4.25}],
    "creatures": [{"id": "A", "x": 0, "y": 1, "size": "small", "team": "party", "evasion": 12,
                   "height_ft": 2.5, "traits": ["trigger_discipline", "lucky"],
                   "taken_cover": True, "grappling": "s"},
                  {"id": "s", "x": 1, "y": 1, "size": "medium", "prone": True, "dead": True},
                  {"id": "r1", "x": 4, "y": 3, "size": "tiny", "evasion": 15},
                  {"id": "r2", "x": 4, "y": 3, "size": "fine", "evasion": 16},
                  {"id": "ogre", "x": 4, "y": 1, "size": "large", "team": "raiders", "evasion": 9}],
}


def write(tmp_path: Path, text: str, name: str = "m.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ reading
def test_the_spec_example_loads():
    m = load_json(SPEC_MAP)
    assert (m.width, m.height) == (8, 5)
    assert m.squares[1, 2] == SOLID
    assert [w.kind for w in m.walls] == ["wall", "door", "low"]
    assert m.walls[2].points == ((6.5, snap(1.2)), (7.5, 2.0))
    assert m.wall_height(m.walls[2]) == 2.0
    assert m.creature("A").traits == ("trigger_discipline",)
    assert m.creature("T").rect == (6, 3, 8, 5)


def test_inline_objects_may_leave_out_the_header():
    inline = {k: v for k, v in SPEC_MAP.items() if k not in ("format", "version")}
    assert load_json(inline) == load_json(SPEC_MAP)
    assert load_map(inline) == load_json(SPEC_MAP)


def test_a_minimal_inline_object_is_an_open_map():
    m = from_json_dict({"width": 3, "height": 2})
    assert m.squares.tolist() == [[0, 0, 0], [0, 0, 0]]
    assert (m.walls, m.creatures, m.square_ft, m.low_height_ft) == ([], [], 5.0, 3.0)


def test_files_need_the_header(tmp_path):
    body = {k: v for k, v in SPEC_MAP.items() if k != "format"}
    path = write(tmp_path, json.dumps(body))
    with pytest.raises(MapError, match=r'm.json: missing field "format": "lineoffire-map"'):
        load_json(path)
    body = {k: v for k, v in SPEC_MAP.items() if k != "version"}
    with pytest.raises(MapError, match=r'm.json: missing field "version": 1'):
        load_json(write(tmp_path, json.dumps(body)))


@pytest.mark.parametrize(
    ("header", "error", "pattern"),
    [
        ({"format": "foundry-scene"}, MapError, r"format is 'foundry-scene', expected 'lineoffire-map'"),
        ({"version": 2}, MapError, r"unsupported map version 2; this engine reads version 1"),
        ({"version": "1"}, MapTypeError, r"version must be an integer, not '1'"),
        ({"version": True}, MapTypeError, r"version must be an integer, not True"),
    ],
)
def test_a_wrong_header_is_refused_in_files_and_inline(tmp_path, header, error, pattern):
    with pytest.raises(error, match="m.json: " + pattern):
        load_json(write(tmp_path, json.dumps({**SPEC_MAP, **header})))
    with pytest.raises(error, match="map: " + pattern):
        load_json({**SPEC_MAP, **header})


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (lambda d: d.update(colour="red"), r"unknown field colour; expected one of format, version"),
        (lambda d: d.update(widht=8), r"unknown field widht; did you mean 'width'\?"),
        (lambda d: d.update(a=1, b=2), r"unknown field a \(and 1 more\)"),
        (lambda d: d["walls"][1].update(opne=True), r"unknown field walls\[1\]\.opne; did you mean 'open'\?"),
        (lambda d: d["creatures"][1].update(sise="huge"), r"unknown field creatures\[1\]\.sise; did you mean 'size'\?"),
        (lambda d: d["creatures"][0].update(hp=10), r"unknown field creatures\[0\]\.hp; expected one of id, x, y"),
    ],
)
def test_unknown_fields_name_the_file_and_key_path(tmp_path, change, pattern):
    obj = json.loads(json.dumps(SPEC_MAP))
    change(obj)
    with pytest.raises(MapError, match=r"m.json: " + pattern):
        load_json(write(tmp_path, json.dumps(obj)))


def test_malformed_json_reports_line_and_column(tmp_path):
    text = '{"format": "lineoffire-map", "version": 1,\n "width": 8,\n "height" 5}\n'
    path = write(tmp_path, text, "broken.json")
    with pytest.raises(MapError, match=r"broken.json: line 3, column 11: invalid JSON: Expecting ':' delimiter"):
        load_json(path)
    with pytest.raises(MapError, match=r"broken.json: line 3, column 11: invalid JSON"):
        load_map(path)


def test_trailing_comma_and_empty_file(tmp_path):
    with pytest.raises(MapError, match=r"m.json: line 2, column 1: invalid JSON"):
        load_json(write(tmp_path, '{"width": 8,\n}'))
    with pytest.raises(MapError, match=r"e.json: line 1, column 1: invalid JSON: Expecting value"):
        load_json(write(tmp_path, "", "e.json"))


def test_duplicate_keys_are_refused(tmp_path):
    text = '{"format": "lineoffire-map", "version": 1, "width": 8, "height": 5, "width": 9}'
    with pytest.raises(MapError, match=r"m.json: duplicate key 'width' in one JSON object"):
        load_json(write(tmp_path, text))


def test_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "m.json"
    path.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(MapError, match=r"m.json: not UTF-8 text \(byte 10\)"):
        load_json(path)


@pytest.mark.parametrize(
    ("obj", "pattern"),
    [
        ([1, 2], r"m.json: a map must be a JSON object, not a list"),
        ({**SPEC_MAP, "width": "8"}, r"m.json: width must be an integer, not str"),
        ({**SPEC_MAP, "walls": {"kind": "wall"}}, r"m.json: walls must be a list, not an object"),
        ({**SPEC_MAP, "creatures": None}, r"m.json: creatures must be a list, not null"),
        ({**SPEC_MAP, "squares": "........"}, r"m.json: squares must be a list of 5 row strings"),
        ({**SPEC_MAP, "image": 5}, r"m.json: image must be a path string, not a number \(5\)"),
        ({**SPEC_MAP, "name": ["x"]}, r"m.json: name must be a string, not list"),
    ],
)
def test_wrong_types_are_type_errors_naming_the_file(tmp_path, obj, pattern):
    path = write(tmp_path, json.dumps(obj))
    with pytest.raises(MapTypeError, match=pattern):
        load_json(path)


def test_missing_size_and_non_finite_numbers(tmp_path):
    obj = {k: v for k, v in SPEC_MAP.items() if k != "height"}
    with pytest.raises(MapError, match=r"m.json: missing field 'height'"):
        load_json(write(tmp_path, json.dumps(obj)))
    text = json.dumps(SPEC_MAP).replace("[6.5, 1.2]", "[NaN, 1.2]")
    with pytest.raises(MapError, match=r"m.json: walls\[2\]: points\[0\] x must be finite, not nan"):
        load_json(write(tmp_path, text))


def test_load_json_refuses_other_sources():
    with pytest.raises(MapTypeError, match=r"a JSON map must be a path or an object, not int"):
        load_json(5)
    with pytest.raises(MapError, match=r"join_tolerance must be a finite number >= 0, not -1"):
        load_json(SPEC_MAP, join_tolerance=-1)
    assert load_json(SPEC_MAP, join_tolerance=0.05) == load_json(SPEC_MAP)


def test_where_overrides_the_name_in_messages():
    with pytest.raises(MapError, match=r"^request 3 map: unknown field colour"):
        load_json({"width": 1, "height": 1, "colour": 1}, where="request 3 map")


# ------------------------------------------------------------------ writing
def test_to_json_dict_of_a_canonical_object_is_that_object():
    assert to_json_dict(load_json(FULL_MAP)) == FULL_MAP


def test_defaults_are_left_out_but_doors_say_open():
    out = to_json_dict(load_json(SPEC_MAP))
    assert out["walls"][1] == {"kind": "door", "points": [[5, 3], [5, 4]], "open": False}
    assert out["creatures"][1] == {"id": "T", "x": 6, "y": 3, "size": "large", "team": "raiders"}
    assert out["walls"][2]["points"][0] == [6.5, snap(1.2)]


@pytest.mark.parametrize("obj", [SPEC_MAP, FULL_MAP], ids=["spec", "full"])
def test_round_trip_through_a_file_is_lossless(tmp_path, obj):
    m = load_json(obj)
    path = tmp_path / "out.json"
    save_json(m, path)
    again = load_json(path)
    assert again == m
    assert to_json_dict(again) == to_json_dict(m)
    save_json(again, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == path.read_text()


def test_saved_files_are_one_item_per_line():
    text = dumps_json(load_json(SPEC_MAP))
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '    "..#.....",' in lines
    assert '    {"kind": "wall", "points": [[5, 0], [5, 3]]},' in lines
    assert json.loads(text) == to_json_dict(load_json(SPEC_MAP))


def test_save_map_picks_json_by_suffix(tmp_path):
    m = load_json(FULL_MAP)
    save_map(m, tmp_path / "x.json")
    assert json.loads((tmp_path / "x.json").read_text())["format"] == "lineoffire-map"
    assert load_map(tmp_path / "x.json") == m


def test_image_is_relative_to_the_map_file(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "bg.png").write_bytes(b"png")
    path = write(tmp_path / "maps", json.dumps({**SPEC_MAP, "image": "bg.png"}))
    m = load_json(path)
    assert m.image == (tmp_path / "maps" / "bg.png", "png")
    save_json(m, tmp_path / "copy.json")
    assert json.loads((tmp_path / "copy.json").read_text())["image"] == "maps/bg.png"
    assert load_json(tmp_path / "copy.json").image[0].resolve() == (tmp_path / "maps" / "bg.png").resolve()


@pytest.mark.parametrize(
    ("image", "sidecar"),
    [((b"\x89PNG...", "png"), "scene.png"), ((lambda: b"\x89PNG...", "webp"), "scene.webp")],
    ids=["bytes", "lazy"],
)
def test_image_bytes_are_written_beside_the_map(tmp_path, image, sidecar):
    m = load_json(SPEC_MAP)
    m.image = image
    save_json(m, tmp_path / "scene.json")
    assert (tmp_path / sidecar).read_bytes() == b"\x89PNG..."
    assert json.loads((tmp_path / "scene.json").read_text())["image"] == sidecar
    assert load_json(tmp_path / "scene.json").image == (tmp_path / sidecar, sidecar[-4:].lstrip("."))


# ------------------------------------------------------------------ examples
def test_there_are_at_least_three_examples_including_the_demo_default():
    names = example_names()
    assert len(names) >= 3
    assert {"crossroads", "arrow-slit-keep", "goblin-ambush"} <= set(names)


@pytest.mark.parametrize("name", example_names())
def test_every_example_loads_round_trips_and_gives_every_creature_evasion(name, tmp_path):
    path = example_path(name)
    m = load_map(name)
    assert m == load_json(path)
    assert m.name and m.creatures and m.walls
    assert all(c.evasion is not None for c in m.creatures), name
    assert len({c.team for c in m.creatures if c.team}) >= 2
    save_json(m, tmp_path / "x.json")
    assert (tmp_path / "x.json").read_text() == path.read_text()  # written by save_json


@pytest.mark.parametrize("name", example_names())
def test_text_twins_of_the_examples_are_the_same_map(name):
    twin = example_path(name).with_suffix(".txt")
    if not twin.exists():
        pytest.skip(f"{name} has no text twin")
    assert load_text(twin) == load_map(name)


def test_crossroads_shows_every_obstacle():
    m = load_map("crossroads")
    kinds = [w.kind for w in m.walls]
    assert {"wall", "door", "slit", "low"} <= set(kinds)
    doors = [w.open for w in m.walls if w.kind == "door"]
    assert True in doors and False in doors
    assert (m.squares == SOLID).any() and (m.squares == 2).any()
    assert {c.size for c in m.creatures} >= {"tiny", "small", "medium", "large"}
    assert (m.width, m.height) == (20, 14)


def test_goblin_ambush_has_a_human_shield_and_trigger_discipline():
    m = load_map("goblin-ambush")
    boss = m.creature("boss")
    shield = m.creature(boss.grappling)
    assert shield.team != boss.team
    assert any(c.has_trait("trigger_discipline") for c in m.creatures)
    rats = [c for c in m.creatures if c.size == "tiny"]
    assert len(rats) == 2 and rats[0].rect == rats[1].rect
    assert any(c.dead for c in m.creatures) and any(c.prone for c in m.creatures)


def test_arrow_slit_keep_has_archers_at_slits():
    m = load_map("arrow-slit-keep")
    slits = [w for w in m.walls if w.kind == "slit"]
    assert len(slits) >= 2
    archer = m.creature("archer1")
    x0, y0, x1, y1 = archer.rect
    # the archer's east edge is the slit
    assert ((x1, y0), (x1, y1)) in [s.segments[0] for s in slits]
