"""Universal VTT import: walls, portals, origin shift, cropping, joins, errors."""

from __future__ import annotations

import base64
import copy
import json
import math
import time
from dataclasses import replace
from pathlib import Path

import pytest

from lineoffire.maps import MapError, load_map
from lineoffire.maps.uvtt import load_uvtt

DATA = Path(__file__).parent / "data"
CHAMBER = DATA / "mbround18_chamber-of-echoing-grief.dd2vtt"
HEADMASTER = DATA / "mbround18_headmasters-quarters.dd2vtt"
RED_TOWER = DATA / "mbround18_red-tower-base_cropped.dd2vtt"
LITCH = DATA / "mbround18_the-litch-and-his-tomb.dd2vtt"
IMAGIX = DATA / "imagix_sampleMap_origin.dd2vtt"
CAVE = DATA / "oganm_test_cave.dd2vtt"
ALL = [CHAMBER, HEADMASTER, RED_TOWER, LITCH, IMAGIX, CAVE]


def kinds(bmap):
    out: dict[str, int] = {}
    for w in bmap.walls:
        key = "open door" if w.kind == "door" and w.open else w.kind
        out[key] = out.get(key, 0) + 1
    return out


def stopped(bmap, segment):
    from lineoffire.geometry import trace

    return trace(bmap, [segment])[0].stopped


def set_door(bmap, index, is_open):
    walls = list(bmap.walls)
    assert walls[index].kind == "door"
    walls[index] = replace(walls[index], open=is_open)
    return bmap.with_walls(walls)


def p(x, y):
    return {"x": x, "y": y}


def uvtt(lines=(), portals=(), objects=(), size=(4, 3), origin=(0, 0), **extra):
    data = {
        "format": 0.3,
        "resolution": {"map_origin": p(*origin), "map_size": p(*size), "pixels_per_grid": 64},
        "line_of_sight": [[p(*pt) for pt in line] for line in lines],
        "objects_line_of_sight": [[p(*pt) for pt in line] for line in objects],
        "portals": [
            {"position": p(0, 0), "bounds": [p(*a), p(*b)], "rotation": 0, "closed": c,
             "freestanding": False}
            for a, b, c in portals
        ],
    }
    data.update(extra)
    return data


# ------------------------------------------------------------ real files
@pytest.mark.parametrize("path", ALL, ids=lambda q: q.stem)
def test_every_file_loads_inside_its_map(path):
    m = load_map(path)
    assert m.meta["source"] == "uvtt"
    assert m.name == path.stem
    for w in m.walls:
        for x, y in w.points:
            assert 0 <= x <= m.width and 0 <= y <= m.height
            assert x * 1024 == int(x * 1024) and y * 1024 == int(y * 1024)
        for a, b in w.segments:
            assert a != b


def test_chamber_is_one_closed_room():
    m = load_uvtt(CHAMBER)
    assert (m.width, m.height) == (10, 10)
    assert [w.points for w in m.walls] == [
        ((10.0, 10.0), (0.0, 10.0), (0.0, 0.0), (10.0, 0.0), (10.0, 10.0))
    ]
    assert m.joins_added == 0
    assert m.image is None


def test_headmasters_quarters_portals_close_the_wall_gaps():
    m = load_uvtt(HEADMASTER)
    assert kinds(m) == {"wall": 6, "door": 6}
    assert m.joins_added == 0  # every portal's bounds meet the wall ends exactly
    doors = [w for w in m.walls if w.kind == "door"]
    # The first portal is diagonal: bounds (9.233454, 2.233454)-(9.766546, 2.766546).
    assert doors[0].points == ((9.2333984375, 2.2333984375), (9.7666015625, 2.7666015625))
    ends = {pt for w in m.walls if w.kind == "wall" for pt in (w.points[0], w.points[-1])}
    for d in doors:
        assert set(d.points) <= ends


def test_origin_shift_and_object_and_window():
    m = load_uvtt(IMAGIX)  # map_origin (2, 1)
    assert (m.width, m.height) == (10, 10)
    assert m.meta["map_origin"] == [2, 1]
    # line_of_sight[0] is (7, 2)-(7, 2.5) in editor squares.
    assert m.walls[0].points == ((5.0, 1.0), (5.0, 1.5))
    # The outer ring (11,10) (3,10) (3,2) (11,2) (11,10) moves by (-2, -1).
    assert m.walls[3].points == ((9.0, 9.0), (1.0, 9.0), (1.0, 1.0), (9.0, 1.0), (9.0, 9.0))
    # 4 wall polylines + 1 object outline + 1 join closing the outline;
    # a closed door and a window (closed: false) -> an open door.
    assert kinds(m) == {"wall": 6, "door": 1, "open door": 1}
    door = next(w for w in m.walls if w.kind == "door" and not w.open)
    window = next(w for w in m.walls if w.kind == "door" and w.open)
    assert door.points == ((5.0, 1.5), (5.0, 2.5))
    assert window.points == ((5.0, 7.619140625), (5.0, 8.380859375))


def test_object_outline_is_closed_by_one_join():
    m = load_uvtt(IMAGIX)
    # The object outline ends 0.0039 square short of its start: one join.
    assert m.joins_added == 1
    outline = m.walls[4]
    join = m.walls[-1]
    assert join.points[0] == outline.points[0]
    assert math.dist(*join.points) <= 0.05
    assert load_uvtt(IMAGIX, join_tolerance=0).joins_added == 0


@pytest.mark.parametrize(
    "objects, expected",
    [
        ("block", {"wall": 6, "door": 1, "open door": 1}),
        ("low", {"wall": 4, "low": 1, "door": 1, "open door": 1}),
        ("ignore", {"wall": 4, "door": 1, "open door": 1}),
    ],
)
def test_objects_option(objects, expected):
    assert kinds(load_uvtt(IMAGIX, objects=objects)) == expected


@pytest.mark.parametrize(
    "windows, expected",
    [
        ("open", {"door": 1, "open door": 1}),
        ("slit", {"door": 1, "slit": 1}),
        ("low", {"door": 1, "low": 1}),
        ("wall", {"door": 1, "wall": 1}),
        ("ignore", {"door": 1}),
    ],
)
def test_windows_option(windows, expected):
    m = load_uvtt(IMAGIX, windows=windows, objects="ignore")
    got = kinds(m)
    got["wall"] = got.get("wall", 0) - 4  # the four line_of_sight walls
    if got["wall"] == 0:
        del got["wall"]
    assert got == expected


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="objects must be one of 'block', 'low', 'ignore'"):
        load_uvtt(IMAGIX, objects="solid")
    with pytest.raises(ValueError, match="windows must be one of"):
        load_uvtt(IMAGIX, windows="glass")
    with pytest.raises(ValueError, match="join_tolerance"):
        load_uvtt(IMAGIX, join_tolerance=-1)
    with pytest.raises(TypeError, match="image must be True or False"):
        load_uvtt(IMAGIX, image="yes")


def test_cropped_map_clips_walls_to_the_picture():
    m = load_uvtt(RED_TOWER)  # map_origin (2, 12), map_size 10 x 12
    assert (m.width, m.height) == (10, 12)
    assert kinds(m) == {"wall": 6, "door": 4}
    # Editor (7, 12)-(7, 14) lies inside: it moves to (5, 0)-(5, 2).
    assert m.walls[0].points == ((5.0, 0.0), (5.0, 2.0))
    # Editor (2, 17)-(4, 17): on the left edge of the crop.
    assert m.walls[1].points == ((0.0, 5.0), (2.0, 5.0))
    # The long curtain wall (164 points) enters the crop at its bottom edge.
    long_wall = m.walls[5]
    assert long_wall.points[:3] == ((2.0, 12.0), (4.0, 12.0), (4.0, 9.890625))
    # Walls wholly outside (e.g. editor x = 46..56) are gone; the zero-length
    # wall at editor (12, 16) (map (10, 4)) is dropped, not an error.
    assert all(len(w.points) >= 2 for w in m.walls)
    assert not any(w.points == ((10.0, 4.0),) for w in m.walls)


def test_point_above_the_map_is_clipped():
    m = load_uvtt(LITCH)  # line_of_sight[27] ends at (5.11718, -0.191664)
    assert (m.width, m.height) == (48, 27)
    on_top = [pt for w in m.walls for pt in w.points if pt[1] == 0]
    assert len(on_top) == 1 and 5.0 < on_top[0][0] < 5.2
    assert kinds(m)["door"] == 5


def test_litch_joins_are_short_and_start_at_wall_ends():
    m = load_uvtt(LITCH)
    n = m.joins_added
    assert n == 7
    joins = m.walls[-n:]
    ends = {pt for w in m.walls[:-n] for pt in (w.points[0], w.points[-1])}
    for j in joins:
        assert j.kind == "wall" and len(j.points) == 2
        assert j.points[0] in ends
        assert math.dist(*j.points) <= 0.05 + 2 / 1024
    assert load_uvtt(LITCH, join_tolerance=0).joins_added == 0
    assert len(load_uvtt(LITCH, join_tolerance=0).walls) == len(m.walls) - n


def test_cave_objects_are_closed_rings():
    m = load_uvtt(CAVE)
    assert (m.width, m.height) == (20, 20)
    # 9 wall polylines + 2 object outlines, 3 closed doors, and one join
    # closing each object outline (each ends 0.004-0.008 short of its start).
    assert kinds(m) == {"wall": 13, "door": 3}
    assert m.joins_added == 2
    big = max(m.walls, key=lambda w: len(w.points))
    assert len(big.points) == 135
    assert load_uvtt(CAVE, objects="ignore").joins_added == 0


# ------------------------------------------------------------ join rule
@pytest.mark.parametrize(
    "lines, joins, join_points",
    [
        # End to end, 0.03 apart along the line: one join between the ends.
        ([[(0, 1), (2, 1)], [(2.03125, 1), (4, 1)]], 1, ((2.0, 1.0), (2.03125, 1.0))),
        # 0.0625 apart: beyond the default tolerance.
        ([[(0, 1), (2, 1)], [(2.0625, 1), (4, 1)]], 0, None),
        # A T short of its stem: joined to the nearest point, square on.
        ([[(0, 1), (2, 1)], [(2.03125, 0), (2.03125, 2)]], 1, ((2.0, 1.0), (2.03125, 1.0))),
        # Diagonal gap to the end of another wall.
        ([[(0, 1), (2, 1)], [(2.03125, 1.03125), (3, 2)]], 1, ((2.0, 1.0), (2.03125, 1.03125))),
        # Overshooting a crossing wall is already connected: no join.
        ([[(0, 1), (2.03125, 1)], [(2, 0), (2, 2)]], 0, None),
        # Touching exactly: no join.
        ([[(0, 1), (2, 1)], [(2, 0), (2, 2)]], 0, None),
        # A ring left open by 0.03: closed once, not twice.
        ([[(1, 1), (3, 1), (3, 2), (1, 2), (1, 1.03125)]], 1, ((1.0, 1.0), (1.0, 1.03125))),
        # A short first segment is the wall's own continuation, not a gap.
        ([[(1, 1), (1.03125, 1), (1.03125, 2)]], 0, None),
    ],
)
def test_join_rule(lines, joins, join_points):
    m = load_uvtt(uvtt(lines=lines))
    assert m.joins_added == joins
    assert len(m.walls) == len(lines) + joins
    if join_points is not None:
        assert m.walls[-1].points == join_points


def test_join_to_an_off_grid_wall_meets_it():
    # The nearest point on the slanted wall is not a multiple of 1/1024: the
    # join's far end is a grid point on or just past the wall.
    m = load_uvtt(uvtt(lines=[[(0, 1), (2, 1)], [(2.02, 0.1), (2.05, 1.9)]], size=(4, 3)))
    assert m.joins_added == 1
    (a, b) = m.walls[-1].points
    assert a == (2.0, 1.0)
    (c, d) = m.walls[1].points

    def side(pt):
        return (d[0] - c[0]) * (pt[1] - c[1]) - (d[1] - c[1]) * (pt[0] - c[0])

    assert side(a) * side(b) <= 0  # the join reaches the wall


def test_joins_reach_doors_but_not_low_walls():
    door = uvtt(lines=[[(0, 1), (2, 1)]], portals=[((2.03125, 1), (3, 1), True)])
    assert load_uvtt(door).joins_added == 1
    low = uvtt(lines=[[(0, 1), (2, 1)]], objects=[[(2.03125, 0), (2.03125, 2)]])
    assert load_uvtt(low, objects="low").joins_added == 0
    assert load_uvtt(low, objects="block").joins_added == 1


def test_zero_length_segments_and_repeated_points_are_dropped():
    m = load_uvtt(uvtt(lines=[[(1, 1), (1, 1), (2, 1), (2, 1), (2, 2)], [(3, 1), (3, 1)]]))
    assert [w.points for w in m.walls] == [((1.0, 1.0), (2.0, 1.0), (2.0, 2.0))]


def test_coordinates_are_snapped():
    m = load_uvtt(uvtt(lines=[[(0.1, 0.2), (1.0001, 2)]]))
    assert m.walls[0].points == ((0.099609375, 0.2001953125), (1.0, 2.0))


def test_wall_leaving_and_reentering_is_split():
    m = load_uvtt(uvtt(lines=[[(1, 1), (1, 5), (2, 5), (2, 1)]], size=(4, 3)))
    assert [w.points for w in m.walls] == [
        ((1.0, 1.0), (1.0, 3.0)),
        ((2.0, 3.0), (2.0, 1.0)),
    ]


def test_format_as_number_or_string():
    assert load_uvtt(uvtt(format="0.3")).meta["format"] == "0.3"
    assert load_uvtt(uvtt(format=1)).meta["format"] == 1
    no_objects = uvtt(lines=[[(0, 1), (2, 1)]], format=0.2)
    del no_objects["objects_line_of_sight"]  # 0.2 files lack it
    assert len(load_uvtt(no_objects).walls) == 1


def test_dispatch_by_suffix_passes_options(tmp_path):
    for suffix in (".uvtt", ".df2vtt"):
        path = tmp_path / f"room{suffix}"
        path.write_text(json.dumps(uvtt(lines=[[(0, 1), (2, 1)]], objects=[[(1, 2), (3, 2)]])))
        assert kinds(load_map(path)) == {"wall": 2}
        assert kinds(load_map(path, objects="low")) == {"wall": 1, "low": 1}


# ------------------------------------------------------------ the picture
def test_image_is_not_decoded_unless_asked(monkeypatch):
    calls: list[int] = []
    real = base64.b64decode

    def counting(s, *args, **kwargs):
        calls.append(len(s))
        return real(s, *args, **kwargs)

    monkeypatch.setattr(base64, "b64decode", counting)
    m = load_uvtt(CHAMBER)
    assert m.image is None and calls == []
    m = load_uvtt(CHAMBER, image=True)
    assert max(calls) <= 32  # only a few characters, to name the format
    decode, ext = m.image
    assert ext == "png"
    data = decode()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    encoded = json.loads(CHAMBER.read_text())["image"]
    assert len(data) == len(real(encoded))


def test_large_file_loads_fast(tmp_path):
    data = json.loads(IMAGIX.read_text())
    data["image"] = base64.b64encode(bytes(range(256)) * 12_000).decode()  # ~4 MB
    path = tmp_path / "big.dd2vtt"
    path.write_text(json.dumps(data))
    assert path.stat().st_size > 4_000_000
    start = time.perf_counter()
    m = load_map(path)
    assert time.perf_counter() - start < 1.0
    assert kinds(m) == {"wall": 6, "door": 1, "open door": 1}


# ------------------------------------------------------------ broken files
def write(tmp_path, data, name="broken.dd2vtt"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_truncated_json_names_the_file(tmp_path):
    text = IMAGIX.read_text()
    path = write(tmp_path, text[: len(text) // 2])
    with pytest.raises(MapError, match=r"broken\.dd2vtt: not valid JSON .*line \d+, column \d+"):
        load_map(path)


def test_top_level_must_be_an_object(tmp_path):
    with pytest.raises(MapError, match=r"broken\.dd2vtt: the top level must be a JSON object"):
        load_map(write(tmp_path, "[1, 2]"))


def test_missing_resolution(tmp_path):
    data = uvtt(lines=[[(0, 1), (2, 1)]])
    del data["resolution"]
    with pytest.raises(MapError, match=r"broken\.dd2vtt: resolution is missing"):
        load_map(write(tmp_path, data))
    data = uvtt()
    del data["resolution"]["map_size"]
    with pytest.raises(MapError, match=r"resolution\.map_size is missing"):
        load_uvtt(data)


def good_lines():
    return [[(0, 1), (2, 1)], [(0, 2), (2, 2)], [(3, 0), (3, 3)], [(1, 0), (1, 3)]]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["line_of_sight"][3].pop(), r"line_of_sight\[3\] has 1 point\(s\); a wall needs at least 2"),
        (lambda d: d["line_of_sight"][3][0].update(x=float("nan")), r"line_of_sight\[3\]\[0\]\.x must be a finite number"),
        (lambda d: d["line_of_sight"][3][0].update(x="1.5"), r"line_of_sight\[3\]\[0\]\.x must be a number, not str"),
        (lambda d: d["line_of_sight"][3][1].update(y=None), r"line_of_sight\[3\]\[1\]\.y must be a number, not NoneType"),
        (lambda d: d["line_of_sight"][3][1].update(y=True), r"line_of_sight\[3\]\[1\]\.y must be a number, not bool"),
        (lambda d: d["line_of_sight"][3][1].pop("y"), r"line_of_sight\[3\]\[1\]\.y is missing"),
        (lambda d: d["line_of_sight"].__setitem__(2, "wall"), r"line_of_sight\[2\] must be a list of points"),
        (lambda d: d["line_of_sight"][2].__setitem__(0, 7), r"line_of_sight\[2\]\[0\] must be a point"),
        (lambda d: d.__setitem__("line_of_sight", {}), r"line_of_sight must be a list of polylines"),
        (lambda d: d["objects_line_of_sight"].append([p(1, 1)]), r"objects_line_of_sight\[0\] has 1 point"),
        (lambda d: d["resolution"]["map_size"].update(x=-4), r"resolution\.map_size\.x must be positive"),
        (lambda d: d["resolution"]["map_size"].update(y="big"), r"resolution\.map_size\.y must be a number"),
        (lambda d: d["resolution"]["map_origin"].update(x=[]), r"resolution\.map_origin\.x must be a number"),
        (lambda d: d.__setitem__("resolution", 5), r"resolution must be an object"),
        (lambda d: d["portals"][0].update(closed="yes"), r"portals\[0\]\.closed must be true or false"),
        (lambda d: d["portals"][0].pop("bounds"), r"portals\[0\]\.bounds is missing"),
        (lambda d: d["portals"][0].update(bounds=[p(1, 1)]), r"portals\[0\]\.bounds must be a list of 2 points"),
        (lambda d: d["portals"][0]["bounds"][1].update(x="a"), r"portals\[0\]\.bounds\[1\]\.x must be a number"),
        (lambda d: d.__setitem__("portals", [3]), r"portals\[0\] must be an object"),
        (lambda d: d.__setitem__("format", {"v": 1}), r"format must be a number or a string"),
        (lambda d: d.__setitem__("format", "new"), r"format must be a version number"),
        (lambda d: d.__setitem__("image", 12), r"image must be a base64 string"),
    ],
)
def test_broken_fields_are_named(tmp_path, mutate, message):
    data = uvtt(lines=good_lines(), portals=[((3, 1), (3, 2), True)], image="iVBORw0KGgo=")
    data = copy.deepcopy(data)
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(MapError, match=r"broken\.dd2vtt: " + message):
        load_map(path, image=True)


def test_not_a_path_or_dict():
    with pytest.raises(TypeError, match="must be a path or a dict"):
        load_uvtt(42)


# ------------------------------------------------------------ tracing
def test_door_opened_and_closed_changes_whether_a_line_is_stopped():
    m = load_uvtt(IMAGIX)
    door = next(i for i, w in enumerate(m.walls) if w.kind == "door" and not w.open)
    across_door = [4.0, 2.0, 6.0, 2.0]  # the door is (5, 1.5)-(5, 2.5)
    assert stopped(m, across_door)
    assert not stopped(set_door(m, door, True), across_door)
    window = next(i for i, w in enumerate(m.walls) if w.kind == "door" and w.open)
    across_window = [4.5, 8.0, 6.0, 8.0]  # the window is (5, 7.62)-(5, 8.38)
    assert not stopped(m, across_window)
    assert stopped(set_door(m, window, False), across_window)
    assert stopped(m, [4.0, 5.0, 6.0, 5.0])  # the wall itself


def test_a_joined_gap_stops_lines_through_it():
    data = uvtt(lines=[[(0, 1), (2, 1)], [(2.03125, 1), (4, 1)]])
    through_gap = [2.015625, 0.5, 2.015625, 1.5]
    assert stopped(load_uvtt(data), through_gap)
    assert not stopped(load_uvtt(data, join_tolerance=0), through_gap)


def test_cropped_map_traces_in_map_coordinates():
    m = load_uvtt(RED_TOWER)
    assert stopped(m, [4.5, 1.0, 5.5, 1.0])  # crosses (5, 0)-(5, 2)
    assert not stopped(m, [4.5, 2.5, 5.5, 2.5])  # below it: the doorway (4,2)-(6,2) is above
