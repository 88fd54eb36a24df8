"""Pictures of the lines of fire: pixels of hand-drawn maps (lineoffire.render)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lineoffire.cli import main
from lineoffire.maps import BattleMap, Creature
from lineoffire.render import (
    COLOURS,
    HEAT_COLOURS,
    HEAT_TIER,
    NO_TEAM_COLOUR,
    TEAM_COLOURS,
    draw_map,
    heatmap,
    line_class,
    render_lines,
    save_png,
    team_colours,
    to_pixel,
)
from lineoffire.resolver import resolve

PPS = 32
MARGIN = 8


def pixel(img: np.ndarray, x: float, y: float, pps: int = PPS, margin: int = MARGIN) -> tuple:
    """The RGB colour at point (x, y) in squares."""
    row, col = to_pixel(x, y, pixels_per_square=pps, margin=margin)
    return tuple(int(v) for v in img[int(np.floor(row + 0.5)), int(np.floor(col + 0.5))])


def on_line(line: dict, t: float) -> tuple[float, float]:
    (x0, y0), (x1, y1) = line["from"], line["to"]
    return x0 + t * (x1 - x0), y0 + t * (y1 - y0)


# A 6x4 map: a wall from top to bottom at x = 3 between A and T, a solid
# square, a low square, A's ally C below it and a bystander B.
#
#     . . . | . .
#     A . . | . T
#     . . . | . .
#     C . # | B =
@pytest.fixture
def walled() -> BattleMap:
    return BattleMap.build(
        6, 4,
        squares=["......", "......", "......", "..#..="],
        walls=[{"kind": "wall", "points": [[3, 0], [3, 4]]}],
        creatures=[
            {"id": "A", "x": 0, "y": 1, "team": "party"},
            {"id": "T", "x": 5, "y": 1, "team": "foes"},
            {"id": "C", "x": 0, "y": 3, "team": "party"},
            {"id": "B", "x": 4, "y": 3, "team": "foes"},
        ],
    )


# ------------------------------------------------------------------ the map
def test_image_shape_follows_the_pixel_convention(walled):
    img = render_lines(walled, "A", "T", pixels_per_square=PPS)
    assert img.dtype == np.uint8
    assert img.shape == (2 * MARGIN + 4 * PPS + 1, 2 * MARGIN + 6 * PPS + 1, 3)
    small = render_lines(walled, "A", "T", pixels_per_square=10, margin=0)
    assert small.shape == (41, 61, 3)


def test_map_pixels(walled):
    img = render_lines(walled, "A", "T", labels=False)
    assert pixel(img, 2.5, 3.5) == COLOURS["solid"]        # centre of the solid square
    assert pixel(img, 5.5, 3.5) == COLOURS["low"]          # centre of the low square
    assert pixel(img, 3, 3.5) == COLOURS["wall"]           # on the wall, away from the lines
    assert pixel(img, 3.05, 3.3) == COLOURS["wall"]        # walls are thick
    assert pixel(img, 1.5, 0.5) == COLOURS["background"]   # an open square
    assert pixel(img, 1.0, 0.2) == COLOURS["grid"]         # a grid line


def test_creatures_in_their_team_colours(walled):
    img = render_lines(walled, "A", "T", labels=False)
    party, foes = TEAM_COLOURS[0], TEAM_COLOURS[1]
    assert team_colours(walled) == {None: NO_TEAM_COLOUR, "party": party, "foes": foes}
    assert pixel(img, 0.5, 1.5) == party   # A
    assert pixel(img, 0.5, 3.5) == party   # C
    assert pixel(img, 4.5, 3.5) == foes    # B
    assert pixel(img, 4.5, 3.05) == COLOURS["background"]  # outside B's disk


def test_creature_without_team_is_grey():
    m = BattleMap.build(2, 1, creatures=[{"id": "Z", "x": 1, "y": 0}])
    img = draw_map(m, labels=False)
    assert pixel(img, 1.5, 0.5) == NO_TEAM_COLOUR


@pytest.mark.parametrize(
    "wall, colour",
    [
        ({"kind": "wall", "points": [[1, 0], [1, 2]]}, "wall"),
        ({"kind": "door", "points": [[1, 0], [1, 2]]}, "door"),
        ({"kind": "slit", "points": [[1, 0], [1, 2]]}, "slit"),
        ({"kind": "low", "points": [[1, 0], [1, 2]]}, "low_wall"),
        ({"kind": "door", "points": [[1, 0], [1, 2]], "open": True}, "open_door"),
    ],
)
def test_wall_kinds(wall, colour):
    m = BattleMap.build(2, 2, walls=[wall])
    img = draw_map(m)
    # (1, 0.1) is at the start of the first dash of an open door
    assert pixel(img, 1, 0.1) == COLOURS[colour]


def test_off_grid_wall_is_drawn_where_it_lies():
    m = BattleMap.build(4, 4, walls=[{"kind": "wall", "points": [[0.5, 0.5], [3.5, 2.0]]}])
    img = draw_map(m)
    assert pixel(img, 2.0, 1.25) == COLOURS["wall"]
    assert pixel(img, 2.2, 2.2) == COLOURS["background"]


def test_labels_write_the_ids(walled):
    bare = render_lines(walled, "A", "T", labels=False)
    labelled = render_lines(walled, "A", "T", labels=True)
    # the label of B sits at the top-left of its square
    r0, c0 = (int(v) for v in to_pixel(4, 3))
    patch = labelled[r0: r0 + 12, c0: c0 + 12]
    assert (patch == COLOURS["label"]).all(axis=2).any()
    assert not (bare[r0: r0 + 12, c0: c0 + 12] == COLOURS["label"]).all(axis=2).any()


# ------------------------------------------------------------------ lines
def test_stopped_lines_are_red(walled):
    answer: dict = {}
    img = render_lines(walled, "A", "T", labels=False, answer=answer)
    assert answer["cover"] == "total"
    assert len(answer["lines"]) == 4
    for line in answer["lines"]:
        assert line_class(line) == "stopped"
        for t in (0.3, 0.45, 0.5, 0.6):
            assert pixel(img, *on_line(line, t)) == COLOURS["stopped"], (line, t)


def test_clear_lines_are_green(walled):
    answer: dict = {}
    img = render_lines(walled, "A", "C", labels=False, answer=answer)
    assert answer["cover"] == "none"
    for line in answer["lines"]:
        assert line_class(line) == "clear"
        for t in (0.4, 0.5, 0.6):
            assert pixel(img, *on_line(line, t)) == COLOURS["clear"], (line, t)


#     A . B . T .
@pytest.fixture
def crowd() -> BattleMap:
    return BattleMap.build(6, 1, creatures=[
        {"id": "A", "x": 0, "y": 0, "team": "p"},
        {"id": "B", "x": 2, "y": 0, "team": "p"},
        {"id": "T", "x": 4, "y": 0, "team": "q", "evasion": 12},
    ])


def test_soft_line_through_a_creature_is_yellow(crowd):
    answer: dict = {}
    img = render_lines(crowd, "A", "T", rules="pf2e", labels=False, answer=answer)
    assert answer["cover"] == "lesser"
    assert pixel(img, 1.5, 0.5) == COLOURS["soft"]
    assert pixel(img, 3.2, 0.5) == COLOURS["soft"]


def test_creature_cover_line_and_its_stray(crowd):
    answer: dict = {}
    img = render_lines(crowd, "A", "T", rules="creature-cover", labels=False, answer=answer)
    assert answer["cover"] == "full"
    assert pixel(img, 1.5, 0.5) == COLOURS["cover"]
    # the stray extension from T's centre to the map edge, dashed grey
    assert pixel(img, 4.55, 0.5) == COLOURS["stray"]


def test_stray_stops_at_the_first_wall():
    m = BattleMap.build(8, 1, walls=[{"kind": "wall", "points": [[6, 0], [6, 1]]}],
                        creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 2, "y": 0}])
    img = render_lines(m, "A", "T", rules="creature-cover", labels=False)
    dashes = [pixel(img, x, 0.5) == COLOURS["stray"] for x in np.arange(3.5, 6.0, 0.05)]
    beyond = [pixel(img, x, 0.5) == COLOURS["stray"] for x in np.arange(6.2, 8.0, 0.05)]
    assert any(dashes) and not any(beyond)


def test_cover_line_is_orange():
    # A low wall next to the target gives pf1e cover; the line crossing it is orange.
    m = BattleMap.build(6, 1, walls=[{"kind": "low", "points": [[4, 0], [4, 1]]}],
                        creatures=[{"id": "A", "x": 0, "y": 0}, {"id": "T", "x": 4, "y": 0}])
    m = replace(m, walls=[replace(m.walls[0], points=((3.5, 0.0), (3.5, 1.0)))])
    answer: dict = {}
    img = render_lines(m, "A", "T", labels=False, answer=answer)
    assert answer["cover"] == "cover"
    crossing = [ln for ln in answer["lines"] if ln["verdict"] == "cover"]
    assert crossing and all(line_class(ln) == "cover" for ln in crossing)
    assert pixel(img, *on_line(crossing[0], 0.5)) == COLOURS["cover"]


def test_all_lines_draws_every_corner(walled):
    # (2, 2) lies on the line from A's corner (1, 2) to T's corner (5, 2),
    # which is not in the chosen pair: only --all-lines draws it (stopped).
    chosen = render_lines(walled, "A", "T", labels=False)
    every = render_lines(walled, "A", "T", labels=False, all_lines=True)
    assert pixel(chosen, 2, 2) == COLOURS["grid"]
    assert pixel(every, 2, 2) == COLOURS["stopped"]


def near(img: np.ndarray, x: float, y: float, colour: tuple, pps: int = PPS) -> bool:
    """Whether a pixel within one of point (x, y) has ``colour`` (for 1-pixel lines)."""
    row, col = (int(np.floor(v + 0.5)) for v in to_pixel(x, y, pixels_per_square=pps))
    patch = img[row - 1: row + 2, col - 1: col + 2]
    return bool((patch == colour).all(axis=2).any())


def test_all_lines_judges_each_pair_with_the_ruleset():
    # Every pair has a line through B's interior (soft); the corner (1, 0)
    # has only one, so pf1e picks it.  Every other line is drawn thin, with
    # the verdict the ruleset gives it.
    #   A . .
    #   . B T
    m = BattleMap.build(3, 2, creatures=[{"id": "A", "x": 0, "y": 0},
                                         {"id": "B", "x": 1, "y": 1},
                                         {"id": "T", "x": 2, "y": 1}])
    answer: dict = {}
    chosen = render_lines(m, "A", "T", labels=False, pixels_per_square=64, answer=answer)
    every = render_lines(m, "A", "T", labels=False, all_lines=True, pixels_per_square=64)
    assert answer["cover"] == "soft" and answer["corner"] == [1, 0]
    # (0, 0) -> (3, 1) is clear, over A's disk
    assert near(every, 0.6, 0.2, COLOURS["clear"], pps=64)
    assert not near(chosen, 0.6, 0.2, COLOURS["clear"], pps=64)
    # (0, 0) -> (3, 2) runs through B's square
    assert near(every, 1.8, 1.2, COLOURS["soft"], pps=64)
    assert not near(chosen, 1.8, 1.2, COLOURS["soft"], pps=64)


def test_area_effect_lines():
    m = BattleMap.build(5, 3, walls=[{"kind": "wall", "points": [[2, 0], [2, 3]]}],
                        creatures=[{"id": "T", "x": 3, "y": 1}])
    answer: dict = {}
    img = render_lines(m, None, "T", attack="area", origin=[0.5, 1.5], labels=False,
                       answer=answer)
    assert answer["cover"] == "total"
    assert pixel(img, *on_line(answer["lines"][0], 0.5)) == COLOURS["stopped"]


# ------------------------------------------------------------------ background
def _png_bytes(colour, shape=(20, 30)) -> bytes:
    import imageio.v3 as iio

    arr = np.empty(shape + (3,), np.uint8)
    arr[...] = colour
    return iio.imwrite("<bytes>", arr, extension=".png")


def test_background_picture_from_lazy_bytes_and_from_a_path(tmp_path):
    colour = (10, 120, 200)
    data = _png_bytes(colour)
    m = BattleMap.build(3, 2, squares=["#..", "..."],
                        image=(lambda: data, "png"))
    img = draw_map(m)
    assert pixel(img, 1.5, 1.5) == colour
    assert pixel(img, 0.5, 0.5) == COLOURS["solid"]   # squares are drawn over it
    path = tmp_path / "bg.png"
    path.write_bytes(data)
    img2 = draw_map(replace(m, image=(path, "png")))
    assert pixel(img2, 2.5, 0.5) == colour
    plain = draw_map(m, background=False)
    assert pixel(plain, 1.5, 1.5) == COLOURS["background"]


@pytest.mark.parametrize(
    "picture, colour",
    [
        (np.full((5, 5, 3), 1, np.uint8), (1, 1, 1)),          # dark, not rescaled
        (np.full((5, 5), 0.5), (128, 128, 128)),               # grey floats in [0, 1]
        (np.full((5, 5, 4), (200, 0, 0, 0), np.uint8), (255, 255, 255)),  # transparent
    ],
)
def test_background_arrays(picture, colour):
    m = BattleMap.build(2, 2, image=picture)
    assert pixel(draw_map(m), 0.5, 1.5) == colour


def test_missing_background_file_is_an_error(tmp_path):
    m = BattleMap.build(2, 2, image=(tmp_path / "nope.png", "png"))
    with pytest.raises(OSError, match="nope.png"):
        draw_map(m)


# ------------------------------------------------------------------ heatmap
#     . . | . .
#     A . | . .
#     . . | . .
@pytest.fixture
def half_walled() -> BattleMap:
    return BattleMap.build(5, 3, walls=[{"kind": "wall", "points": [[2, 0], [2, 3]]}],
                           creatures=[{"id": "A", "x": 0, "y": 1, "team": "p"}])


def test_heatmap_behind_a_wall(half_walled):
    cover, img = heatmap(half_walled, "A")
    # beside the wall the squares on the map's edge are reached around the
    # wall's free end (cover), the rest behind it have total cover
    assert cover.tolist() == [
        ["none", "none", "cover", "total", "total"],
        [None, "none", "total", "total", "total"],
        ["none", "none", "cover", "total", "total"],
    ]
    for (r, c), name in np.ndenumerate(cover):
        if name is not None:
            assert pixel(img, c + 0.5, r + 0.5) == HEAT_COLOURS[HEAT_TIER[name]], (c, r, name)
    assert pixel(img, 0.5, 1.5) == TEAM_COLOURS[0]


def test_heatmap_creature_gives_soft_cover():
    #   A . B . .
    m = BattleMap.build(5, 1, creatures=[{"id": "A", "x": 0, "y": 0},
                                         {"id": "B", "x": 2, "y": 0}])
    cover, _ = heatmap(m, "A", rules="pf1e")
    assert cover.tolist() == [[None, "none", None, "soft", "soft"]]
    cover2, _ = heatmap(m, "A", rules="pf2e")
    assert cover2.tolist() == [[None, "none", None, "lesser", "lesser"]]
    cover3, _ = heatmap(m, "A", rules="creature-cover")
    assert cover3.tolist() == [[None, "none", None, "full", "full"]]
    tiny, _ = heatmap(m, "A", rules="creature-cover", size="small")
    assert tiny.tolist() == [[None, "none", None, "full", "full"]]


# A map with a bit of everything: walls, a door, a slit, low squares and a
# low wall, solid squares, a dead creature and a prone one, tiny creatures.
#
#     . . . . . . .
#     A . # . = . .
#     . . . D . | .
#     . = . . P | .
#     . . t . . . .
@pytest.fixture
def busy() -> BattleMap:
    return BattleMap.build(
        7, 5,
        squares=[".......", "..#.=..", ".......", ".=.....", "......."],
        walls=[
            {"kind": "wall", "points": [[5, 2], [5, 3]]},
            {"kind": "slit", "points": [[5, 3], [5, 4]]},
            {"kind": "door", "points": [[5, 1], [5, 2]]},
            {"kind": "low", "points": [[1.5, 4.5], [3.0, 4.0]]},
        ],
        creatures=[
            {"id": "A", "x": 0, "y": 1, "team": "p"},
            {"id": "D", "x": 3, "y": 2, "dead": True},
            {"id": "P", "x": 4, "y": 3, "prone": True},
            {"id": "t", "x": 2, "y": 4, "size": "tiny"},
        ],
    )


@pytest.mark.parametrize("rules", ["pf1e", "pf2e", "creature-cover"])
@pytest.mark.parametrize("options", [None, {"ignore_dead": True}, {"ignore_prone": True}])
def test_heatmap_equals_resolve_with_a_creature_on_each_square(busy, rules, options):
    """The heatmap says exactly what resolve says with a creature standing there."""
    cover, _ = heatmap(busy, "A", rules=rules, options=options)
    checked = 0
    for r in range(busy.height):
        for c in range(busy.width):
            taken = busy.squares[r, c] == 1 or any(
                x0 <= c < x1 and y0 <= r < y1 for x0, y0, x1, y1 in (k.rect for k in busy.creatures))
            if taken:
                assert cover[r, c] is None
                continue
            m = busy.with_creatures(list(busy.creatures) + [Creature("Z", c, r)])
            want = resolve(m, "A", "Z", rules=rules, options=options)["cover"]
            assert cover[r, c] == want, (c, r)
            checked += 1
    assert checked == 7 * 5 - 1 - 4
    assert len(set(cover.ravel()) - {None}) >= 3  # the map gives several levels


def test_heatmap_dead_creature_counts_unless_ignored():
    #   A . D . .
    m = BattleMap.build(5, 1, creatures=[{"id": "A", "x": 0, "y": 0},
                                         {"id": "D", "x": 2, "y": 0, "dead": True}])
    assert heatmap(m, "A")[0].tolist() == [[None, "none", None, "soft", "soft"]]
    ignored = heatmap(m, "A", options={"ignore_dead": True})[0]
    assert ignored.tolist() == [[None, "none", None, "none", "none"]]


def test_heatmap_full_map_no_candidates():
    m = BattleMap.build(1, 1, creatures=[{"id": "A", "x": 0, "y": 0}])
    cover, img = heatmap(m, "A")
    assert cover.tolist() == [[None]]
    assert img.shape == (2 * MARGIN + PPS + 1, 2 * MARGIN + PPS + 1, 3)


# ------------------------------------------------------------------ errors
def test_bad_arguments(walled):
    with pytest.raises(ValueError, match="pixels_per_square must be between 4 and 512, not 2"):
        render_lines(walled, "A", "T", pixels_per_square=2)
    with pytest.raises(TypeError, match="pixels_per_square must be an integer, not str"):
        render_lines(walled, "A", "T", pixels_per_square="32")
    with pytest.raises(ValueError, match="margin must be 0 or more pixels, not -1"):
        draw_map(walled, margin=-1)
    with pytest.raises(ValueError, match="unknown rules 'pf3e'"):
        render_lines(walled, "A", "T", rules="pf3e")
    with pytest.raises(TypeError, match="all_lines must be True or False"):
        render_lines(walled, "A", "T", all_lines="yes")
    with pytest.raises(TypeError, match="bmap must be a BattleMap, not dict"):
        draw_map({})
    with pytest.raises(ValueError, match="unknown creature id 'Q'"):
        render_lines(walled, "A", "Q")


def test_heatmap_bad_arguments(walled):
    with pytest.raises(ValueError, match="size must be a size of one square .* not 'large'"):
        heatmap(walled, "A", size="large")
    with pytest.raises(ValueError, match="unknown size 'giant'"):
        heatmap(walled, "A", size="giant")
    with pytest.raises(ValueError, match="unknown creature id 'Q'"):
        heatmap(walled, "Q")
    with pytest.raises(ValueError, match="unknown option 'lean'"):
        heatmap(walled, "A", rules="pf1e", options={"lean": True})


def test_line_class_and_save_png_errors(tmp_path):
    with pytest.raises(ValueError, match="line verdict 'maybe' is unknown"):
        line_class({"verdict": "maybe", "blockers": []})
    with pytest.raises(ValueError, match="uint8 array, not float64"):
        save_png(np.zeros((4, 4, 3)), tmp_path / "x.png")
    with pytest.raises(ValueError, match="must end in .png, not 'x.jpg'"):
        save_png(np.zeros((4, 4, 3), np.uint8), tmp_path / "x.jpg")


# ------------------------------------------------------------------ CLI
@pytest.fixture
def walled_file(walled, tmp_path) -> Path:
    from lineoffire.maps import save_map

    path = tmp_path / "walled.json"
    save_map(walled, path)
    return path


def test_cli_render_writes_a_png(walled_file, tmp_path, capsys):
    from skimage import io as skio

    out = tmp_path / "lines.png"
    code = main(["render", str(walled_file), "--attacker", "A", "--target", "T",
                 "--rules", "pf1e", "-o", str(out), "--pps", "16", "--all-lines"])
    assert code == 0
    assert "total" in capsys.readouterr().out
    img = skio.imread(out)
    assert img.shape == (2 * MARGIN + 4 * 16 + 1, 2 * MARGIN + 6 * 16 + 1, 3)
    assert pixel(img, 2.5, 3.5, pps=16) == COLOURS["solid"]


def test_cli_render_area_with_origin(walled_file, tmp_path):
    out = tmp_path / "area.png"
    code = main(["render", str(walled_file), "--target", "T", "--attack", "area",
                 "--origin", "4.5,0.5", "-o", str(out)])
    assert code == 0 and out.is_file()


def test_cli_heatmap_json_and_png(walled_file, tmp_path, capsys):
    from skimage import io as skio

    out = tmp_path / "cover.png"
    code = main(["heatmap", str(walled_file), "--attacker", "A", "--rules", "pf2e",
                 "-o", str(out), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "pf2e" and data["attacker"] == "A"
    grid = data["cover"]
    assert len(grid) == 4 and all(len(row) == 6 for row in grid)
    assert grid[1][0] is None and grid[3][2] is None   # A, and the solid square
    assert grid[0][1] == "none" and grid[0][4] == "total"
    img = skio.imread(out)
    assert img.shape == (2 * MARGIN + 4 * PPS + 1, 2 * MARGIN + 6 * PPS + 1, 3)
    assert pixel(img, 4.5, 0.5) == HEAT_COLOURS["total"]


def test_cli_heatmap_summary(walled_file, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["heatmap", str(walled_file), "-a", "A"]) == 0
    assert "cover.png" in capsys.readouterr().out
    assert (tmp_path / "cover.png").is_file()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["render", "{map}", "-a", "A", "-t", "T", "--pps", "2"], "pixels_per_square must be between"),
        (["render", "{map}", "-a", "A", "-t", "T", "-o", "x.jpg"], "must end in .png"),
        (["render", "{map}", "-a", "A", "-t", "Q"], "unknown creature id 'Q'"),
        (["render", "{map}", "-a", "A", "-t", "T", "--origin", "1"], "--origin must be X,Y"),
        (["heatmap", "{map}", "-a", "Q"], "unknown creature id 'Q'"),
        (["heatmap", "{map}", "-a", "A", "--option", "lean=true"], "unknown option 'lean'"),
    ],
)
def test_cli_errors_exit_2(walled_file, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code = main([a.replace("{map}", str(walled_file)) for a in argv])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.png"))
