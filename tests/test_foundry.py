"""Foundry VTT scene import (v9 and v10+ layouts)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from lineoffire.maps import MapError, load_map
from lineoffire.maps.foundry import load_foundry

DATA = Path(__file__).parent / "data"
V9 = DATA / "foundry_v9_guard_post.json"
V12 = DATA / "foundry_v12_guard_post.json"

# The guard post, as drawn in squares (see tests/data/LICENSES.md): a wall at
# x = 4 with a closed door, a wall at x = 7 with an open door and a locked
# secret door, a limited-sight (low) wall, an invisible wall (ignored), two
# walls 0.03 apart (joined), and a wall running out into the padding (clipped).
EXPECTED_WALLS = [
    ("wall", ((4.0, 0.0), (4.0, 3.0)), False),
    ("door", ((4.0, 3.0), (4.0, 4.0)), False),
    ("wall", ((4.0, 4.0), (4.0, 7.0)), False),
    ("wall", ((7.0, 0.0), (7.0, 2.0)), False),
    ("door", ((7.0, 2.0), (7.0, 3.0)), True),
    ("door", ((7.0, 3.0), (7.0, 4.0)), False),
    ("wall", ((7.0, 4.0), (7.0, 7.0)), False),
    ("low", ((1.0, 5.0), (3.0, 5.0)), False),
    ("wall", ((5.0, 5.0), (6.0, 5.0)), False),
    ("wall", ((6.0302734375, 4.5), (6.0302734375, 6.0)), False),
    ("wall", ((0.0, 2.0), (2.0, 2.0)), False),
    ("wall", ((6.0, 5.0), (6.0302734375, 5.0)), False),  # the join
]
EXPECTED_CREATURES = [
    ("Fighter", 1, 1, "medium", "friendly"),
    ("Goblin (tokt2abcdefghijk)", 5, 1, "medium", "hostile"),
    ("Goblin (tokt3abcdefghijk)", 6, 1, "medium", "hostile"),
    ("Ogre", 8, 5, "large", "neutral"),
    ("Cat", 2, 3, "tiny", "neutral"),
]


def walls_of(m):
    return [(w.kind, w.points, w.open) for w in m.walls]


def creatures_of(m):
    return [(c.id, c.x, c.y, c.size, c.team) for c in m.creatures]


def stopped(bmap, segment):
    from lineoffire.geometry import trace

    return trace(bmap, [segment])[0]


def scene(**extra):
    """A minimal v10+ scene: 4 x 3 squares of 50 px, no padding."""
    data = {
        "name": "Test",
        "width": 200,
        "height": 150,
        "padding": 0,
        "grid": {"type": 1, "size": 50, "distance": 5, "units": "ft"},
        "walls": [{"c": [100, 0, 100, 150], "sight": 20, "move": 20, "door": 0, "ds": 0}],
        "tokens": [{"_id": "a1", "name": "A", "x": 0, "y": 0, "width": 1, "height": 1,
                    "disposition": 1}],
    }
    data.update(extra)
    return data


@pytest.mark.parametrize("path, layout, padding", [(V9, "v9", [300, 300]), (V12, "v10+", [300, 200])])
def test_guard_post(path, layout, padding):
    m = load_map(path)  # detected as a Foundry scene by its content
    assert m.meta["source"] == "foundry"
    assert m.meta["layout"] == layout
    assert m.meta["padding_px"] == padding
    assert (m.width, m.height) == (10, 7)
    assert m.square_ft == 5
    assert walls_of(m) == EXPECTED_WALLS
    assert m.joins_added == 1
    assert creatures_of(m) == EXPECTED_CREATURES
    assert m.meta["tokens_outside"] == ["Spare"]


def test_both_layouts_give_the_same_map():
    a, b = load_foundry(V9), load_foundry(V12)
    assert walls_of(a) == walls_of(b)
    assert creatures_of(a) == creatures_of(b)


def test_padding_is_whole_squares_per_axis_in_v10():
    # 1000 x 700 px, grid 100, padding 0.25: 2.5 -> 3 squares left and right,
    # 1.75 -> 2 squares above and below.  A wall at canvas (300, 200) is the
    # scene's top-left corner.
    data = json.loads(V12.read_text())
    data["walls"] = [{"c": [300, 200, 400, 300], "sight": 20}]
    assert load_foundry(data).walls[0].points == ((0.0, 0.0), (1.0, 1.0))
    data["padding"] = 0.1  # 1 square and 0.7 -> 1 square
    data["walls"] = [{"c": [100, 100, 200, 200], "sight": 20}]
    assert load_foundry(data).walls[0].points == ((0.0, 0.0), (1.0, 1.0))


def test_v9_pads_both_axes_by_the_width():
    data = json.loads(V9.read_text())
    data["walls"] = [{"c": [300, 300, 400, 400], "sense": 1}]
    assert load_foundry(data).walls[0].points == ((0.0, 0.0), (1.0, 1.0))


@pytest.mark.parametrize(
    "limited, expected",
    [("low", ["low"]), ("wall", ["wall"]), ("ignore", [])],
)
def test_limited_sight_option(limited, expected):
    for sight in ({"sight": 10}, {"sense": 2}):
        data = scene(walls=[{"c": [100, 0, 100, 150], **sight}])
        assert [w.kind for w in load_foundry(data, limited=limited).walls] == expected


@pytest.mark.parametrize(
    "wall, expected",
    [
        ({"sight": 0}, []),
        ({"sense": 0}, []),
        ({"sight": 20}, [("wall", False)]),
        ({"sight": 30}, [("wall", False)]),  # proximity: blocks
        ({"sight": 40}, [("wall", False)]),  # distance: blocks
        ({"sense": 1}, [("wall", False)]),
        ({}, [("wall", False)]),
        ({"sight": 20, "door": 1, "ds": 0}, [("door", False)]),
        ({"sight": 20, "door": 1, "ds": 1}, [("door", True)]),
        ({"sight": 20, "door": 1, "ds": 2}, [("door", False)]),
        ({"sight": 20, "door": 2, "ds": 0}, [("door", False)]),
        ({"sense": 1, "door": 2, "ds": 1}, [("door", True)]),
        ({"sight": 10, "door": 1, "ds": 0}, [("low", False)]),
        ({"sight": 10, "door": 1, "ds": 1}, []),
        ({"sight": 0, "door": 1, "ds": 0}, []),
    ],
)
def test_wall_table(wall, expected):
    data = scene(walls=[{"c": [100, 0, 100, 150], **wall}])
    assert [(w.kind, w.open) for w in load_foundry(data).walls] == expected


@pytest.mark.parametrize(
    "width, size",
    [(0.5, "tiny"), (0.25, "tiny"), (1, "medium"), (2, "large"), (3, "huge"),
     (4, "gargantuan")],
)
def test_token_sizes(width, size):
    data = scene(width=400, height=300, walls=[],
                 tokens=[{"name": "T", "x": 0, "y": 0, "width": width, "height": width}])
    assert load_foundry(data).creatures[0].size == size


def test_colossal_and_non_square_tokens():
    data = scene(width=400, height=400, walls=[],
                 tokens=[{"name": "Wyrm", "x": 50, "y": 50, "width": 6, "height": 6},
                         {"name": "Cart", "x": 0, "y": 0, "width": 1, "height": 0.5}])
    sizes = [(c.id, c.size) for c in load_foundry(data).creatures]
    assert sizes == [("Wyrm", "colossal"), ("Cart", "medium")]


@pytest.mark.parametrize("disposition, team", [(-2, "secret"), (-1, "hostile"), (0, "neutral"),
                                               (1, "friendly"), (None, None)])
def test_disposition_gives_the_team(disposition, team):
    token = {"name": "T", "x": 0, "y": 0, "width": 1, "height": 1}
    if disposition is not None:
        token["disposition"] = disposition
    assert load_foundry(scene(tokens=[token])).creatures[0].team == team


def test_token_ids():
    tokens = [
        {"_id": "x1", "name": "Orc", "x": 0, "y": 0},
        {"_id": "x2", "name": "Orc", "x": 0, "y": 50},
        {"_id": "x3", "x": 0, "y": 100},
        {"name": "object", "x": 150, "y": 0},  # a reserved id
        {"x": 150, "y": 50},
    ]
    ids = [c.id for c in load_foundry(scene(tokens=tokens)).creatures]
    assert ids == ["Orc (x1)", "Orc (x2)", "x3", "object #2", "token4"]


def test_token_positions_are_rounded_to_squares():
    tokens = [{"name": "A", "x": 60, "y": 40}]  # 1.2, 0.8 squares
    c = load_foundry(scene(tokens=tokens)).creatures[0]
    assert (c.x, c.y) == (1, 1)


def test_tokens_outside_the_scene():
    tokens = [{"name": "In", "x": 0, "y": 0}, {"name": "Out", "x": 200, "y": 0}]
    m = load_foundry(scene(tokens=tokens))
    assert [c.id for c in m.creatures] == ["In"]
    assert m.meta["tokens_outside"] == ["Out"]
    with pytest.raises(MapError, match=r"tokens\[1\] \('Out'\) at square \(4, 0\) lies outside the 4x3 scene"):
        load_foundry(scene(tokens=tokens), tokens_outside="error")
    assert load_foundry(scene(tokens=tokens), tokens=False).creatures == []


def test_square_ft_from_the_grid():
    data = scene()
    data["grid"]["distance"] = 10
    assert load_foundry(data).square_ft == 10
    data["grid"]["units"] = "m"
    assert load_foundry(data).square_ft == 5
    assert load_foundry(data, square_ft=1.5).square_ft == 1.5


def test_walls_are_clipped_to_the_scene():
    data = scene(walls=[{"c": [-100, 75, 300, 75], "sight": 20},
                        {"c": [-100, 0, -50, 150], "sight": 20}])
    assert walls_of(load_foundry(data)) == [("wall", ((0.0, 1.5), (4.0, 1.5)), False)]


def test_bad_options():
    with pytest.raises(ValueError, match="limited must be one of 'low', 'wall', 'ignore'"):
        load_foundry(scene(), limited="half")
    with pytest.raises(ValueError, match="tokens_outside must be 'skip' or 'error'"):
        load_foundry(scene(), tokens_outside="drop")


# ------------------------------------------------------------ broken files
@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("grid"), r"grid is missing"),
        (lambda d: d["grid"].pop("size"), r"grid\.size is missing"),
        (lambda d: d["grid"].update(size=0), r"grid\.size must be positive"),
        (lambda d: d["grid"].update(type=2), r"grid\.type is 2; only square grids"),
        (lambda d: d.update(grid=50, gridType=0), r"gridType is 0; only square grids"),
        (lambda d: d.update(grid="50"), r"grid must be a number"),
        (lambda d: d.pop("width"), r"width is missing"),
        (lambda d: d.update(height=-3), r"height must be positive"),
        (lambda d: d.update(padding="a"), r"padding must be a number"),
        (lambda d: d.update(walls={}), r"walls must be a list"),
        (lambda d: d["walls"].append(3), r"walls\[1\] must be an object"),
        (lambda d: d["walls"][0].pop("c"), r"walls\[0\]\.c is missing"),
        (lambda d: d["walls"][0].update(c=[1, 2, 3]), r"walls\[0\]\.c must be \[x0, y0, x1, y1\]"),
        (lambda d: d["walls"][0]["c"].__setitem__(2, "x"), r"walls\[0\]\.c\[2\] must be a number"),
        (lambda d: d["walls"][0]["c"].__setitem__(3, float("nan")), r"walls\[0\]\.c\[3\] must be a finite number"),
        (lambda d: d["walls"][0].update(sight=15), r"walls\[0\]\.sight must be one of 0, 10, 20, 30, 40"),
        (lambda d: (d["walls"][0].pop("sight"), d["walls"][0].update(sense=5)), r"walls\[0\]\.sense must be one of 0, 1, 2"),
        (lambda d: d["walls"][0].update(door=3), r"walls\[0\]\.door must be one of 0, 1, 2"),
        (lambda d: d["walls"][0].update(ds=True), r"walls\[0\]\.ds must be one of 0, 1, 2"),
        (lambda d: d["tokens"][0].pop("x"), r"tokens\[0\]\.x is missing"),
        (lambda d: d["tokens"][0].update(y="top"), r"tokens\[0\]\.y must be a number"),
        (lambda d: d["tokens"][0].update(width=5, height=5), r"tokens\[0\]\.width: no creature size spans 5 squares"),
        (lambda d: d["tokens"][0].update(height=-1), r"tokens\[0\]\.height must be positive"),
        (lambda d: d["tokens"][0].update(disposition=7), r"tokens\[0\]\.disposition must be one of -2, -1, 0, 1"),
        (lambda d: d["tokens"][0].update(name=12), r"tokens\[0\]\.name must be a string"),
        (lambda d: d.update(tokens=[1]), r"tokens\[0\] must be an object"),
    ],
)
def test_broken_fields_are_named(tmp_path, mutate, message):
    data = copy.deepcopy(scene())
    mutate(data)
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MapError, match=r"scene\.json: " + message):
        load_foundry(path)


def test_truncated_json(tmp_path):
    text = V12.read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 3])
    with pytest.raises(MapError, match=r"cut\.json: not valid JSON .*line \d+, column \d+"):
        load_foundry(path)


def test_not_a_path_or_dict():
    with pytest.raises(TypeError, match="must be a path or a dict"):
        load_foundry(3.5)


# ------------------------------------------------------------ tracing
def test_doors_open_and_close():
    m = load_foundry(V12)
    closed_door = [3.5, 3.5, 4.5, 3.5]  # door (4, 3)-(4, 4)
    assert stopped(m, closed_door).stopped
    walls = list(m.walls)
    walls[1] = replace(walls[1], open=True)
    assert not stopped(m.with_walls(walls), closed_door).stopped

    open_door = [6.5, 2.5, 7.5, 2.5]  # door (7, 2)-(7, 3), open
    assert not stopped(m, open_door).stopped
    walls = list(m.walls)
    walls[4] = replace(walls[4], open=False)
    assert stopped(m.with_walls(walls), open_door).stopped

    secret = [6.5, 3.5, 7.5, 3.5]  # locked secret door: closed
    assert stopped(m, secret).stopped


def test_limited_wall_is_low_cover_and_joined_gap_stops():
    m = load_foundry(V12)
    over_low = stopped(m, [2.0, 4.5, 2.0, 5.5])
    assert not over_low.stopped and over_low.low
    through_gap = [6.015625, 4.75, 6.015625, 5.25]
    assert stopped(m, through_gap).stopped
    assert not stopped(load_foundry(V12, join_tolerance=0), through_gap).stopped
