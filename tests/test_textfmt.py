"""The typed text map format: reading, writing, round trips and errors with line numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineoffire.maps import BattleMap, Creature, MapError, Wall, load_map, save_map
from lineoffire.maps.jsonfmt import from_json_dict, to_json_dict
from lineoffire.maps.model import SIZE_SPACE, SIZES, snap
from lineoffire.maps.textfmt import dumps_text, load_text, loads_text, save_text

#: The example of docs/text-format.md, read from the document itself so that
#: the document cannot drift from what the loader accepts.
_DOC = (Path(__file__).resolve().parent.parent / "docs" / "text-format.md").read_text()
DOC_EXAMPLE = _DOC.split("## An example", 1)[1].split("```\n", 2)[1]


def test_the_documented_example():
    m = loads_text(DOC_EXAMPLE, "back-room.txt")
    assert m.name == "Back room"
    assert (m.width, m.height, m.square_ft, m.low_height_ft) == (6, 3, 5.0, 3.0)
    assert m.squares.tolist() == [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 0, 0]]
    assert m.creatures == [
        Creature(id="A", x=2, y=1, team="party", evasion=12, traits=("trigger_discipline",)),
        Creature(id="ogre", x=3, y=0, size="large", team="raiders", evasion=10, prone=True),
    ]
    assert m.walls == [
        Wall("wall", ((5.0, 0.0), (5.0, 1.0))),
        Wall("door", ((5.0, 1.0), (5.0, 2.0)), open=False),
        Wall("slit", ((0.0, 3.0), (1.0, 3.0))),
        Wall("low", ((3.5, 0.25), (4.5, 1.0)), height_ft=2.0),
    ]


def test_it_reads_the_same_map_as_json():
    json_map = from_json_dict({
        "width": 4, "height": 2, "squares": ["..#.", "=..."], "name": "Same",
        "walls": [{"kind": "door", "points": [[1, 0], [1, 1]], "open": True},
                  {"kind": "low", "points": [[0.1, 2], [3, 0.3]], "height_ft": 1}],
        "creatures": [{"id": "A", "x": 0, "y": 0, "team": "party", "evasion": 12},
                      {"id": "b", "x": 3, "y": 0, "size": "tiny", "grappling": "A", "dead": True}],
    })
    text = """
    name Same
    grid
      A.#.
      =...

    creature b 3,0 tiny grappling=A dead
    door 1,0 1,1 open
    low 0.1,2 3,0.3 height_ft=1   # a stump
    creature A team=party evasion=12
    """
    m = loads_text(text)
    # creatures come in the order of their lines
    assert [c.id for c in m.creatures] == ["b", "A"]
    assert m.with_creatures(list(reversed(m.creatures))) == json_map
    assert m.walls[1].points[0] == (snap(0.1), 2.0)


def test_grid_letters_without_lines_are_medium_creatures_in_reading_order():
    m = loads_text("grid\n.b.\nA.c\n\ncreature c evasion=3\n")
    assert [(c.id, c.x, c.y, c.size, c.team) for c in m.creatures] == [
        ("c", 2, 1, "medium", None), ("b", 1, 0, "medium", None), ("A", 0, 1, "medium", None)]
    assert m.creature("c").evasion == 3
    assert not m.squares.any()


def test_size_line_makes_an_open_map_and_quotes_work():
    m = loads_text(
        "size 5x3\nname \"  spaced \\\"name\\\"  \"\n"
        "creature 'Big Bob' 1,1 size=large team='Red Hand' traits='sharp eyes,brave'\n"
    )
    assert (m.width, m.height) == (5, 3) and not m.squares.any()
    assert m.name == '  spaced "name"  '
    bob = m.creature("Big Bob")
    assert (bob.size, bob.team, bob.traits) == ("large", "Red Hand", ("sharp eyes", "brave"))


def test_meta_and_image(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text('size 2x2\nmeta {"author": "me", "n": [1, 2]}\nimage art/bg.webp\n')
    m = load_text(path)
    assert m.meta == {"author": "me", "n": [1, 2]}
    assert m.image == (tmp_path / "art" / "bg.webp", "webp")
    save_text(m, tmp_path / "copy.map")
    assert "image art/bg.webp" in (tmp_path / "copy.map").read_text().splitlines()


# ------------------------------------------------------------------ writing
def test_dumps_draws_letters_and_writes_every_creature_line():
    m = BattleMap.build(
        4, 2, squares=["..=.", "...."],
        creatures=[
            {"id": "A", "x": 0, "y": 0},
            {"id": "B", "x": 2, "y": 0},  # on a low square: no letter
            {"id": "t", "x": 3, "y": 1, "size": "tiny"},
            {"id": "u", "x": 3, "y": 1, "size": "tiny"},  # shares t's square
        ],
    )
    text = dumps_text(m)
    assert "A.=.\n...t\n" in text
    assert "creature A medium\ncreature B 2,0 medium\ncreature t tiny\ncreature u 3,1 tiny\n" in text
    assert loads_text(text) == m
    plain = dumps_text(m, marks=False)
    assert "..=.\n....\n" in plain and "creature A 0,0 medium" in plain
    assert loads_text(plain) == m


def test_traits_with_commas_and_words_with_line_breaks_cannot_be_written():
    m = BattleMap.build(2, 1, creatures=[{"id": "A", "x": 0, "y": 0, "traits": ["a,b"]}])
    with pytest.raises(MapError, match=r"creature 'A': trait 'a,b' cannot be written in the text format"):
        dumps_text(m)
    m = BattleMap.build(2, 1, creatures=[{"id": "A", "x": 0, "y": 0, "team": "red\nteam"}])
    with pytest.raises(MapError, match=r"creature 'A': team 'red\\nteam' cannot be written .* \(a line break\)"):
        dumps_text(m)
    m = BattleMap.build(2, 1, creatures=[{"id": "A\r", "x": 0, "y": 0}], name="line\nbreak")
    with pytest.raises(MapError, match=r"creature id 'A\\r' cannot be written"):
        dumps_text(m)
    # names may hold anything: they are written as JSON strings when needed
    m = BattleMap.build(2, 1, name="two\nlines\u2028and\x1emore")
    assert "name \"two\\nlines\u2028and\\u001emore\"" in dumps_text(m)
    assert loads_text(dumps_text(m)) == m


@pytest.mark.parametrize("name", ["crossroads", "arrow-slit-keep", "goblin-ambush"])
def test_examples_round_trip_through_text(name, tmp_path):
    m = load_map(name)
    save_map(m, tmp_path / "x.txt")
    assert load_map(tmp_path / "x.txt") == m
    save_text(m, tmp_path / "y.lof", marks=False)
    assert load_map(tmp_path / "y.lof") == m


# ---------------------------------------------------------- property test
_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), min_size=1, max_size=8
)
_words = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=",\r\n"), min_size=1, max_size=6
)
_coords = st.integers(0, 8 * 1024).map(lambda v: v / 1024)


@st.composite
def battlemaps(draw):
    w = draw(st.integers(1, 8))
    h = draw(st.integers(1, 8))
    squares = draw(st.lists(st.lists(st.integers(0, 2), min_size=w, max_size=w), min_size=h, max_size=h))
    grid = np.array(squares, dtype=np.uint8)
    creatures = []
    taken = set()
    for cid in draw(st.lists(st.one_of(_names, st.sampled_from("ABCxyz")), max_size=6, unique=True)):
        if cid in ("object", "miss"):
            continue
        size = draw(st.sampled_from(SIZES))
        s = SIZE_SPACE[SIZES.index(size)]
        if s > min(w, h):
            continue
        x = draw(st.integers(0, w - s))
        y = draw(st.integers(0, h - s))
        cells = {(x + i, y + j) for i in range(s) for j in range(s)}
        if cells & taken or any(grid[r, c] == 1 for c, r in cells):
            continue
        taken |= cells
        creatures.append(Creature(
            id=cid, x=x, y=y, size=size,
            team=draw(st.one_of(st.none(), _names)),
            evasion=draw(st.one_of(st.none(), st.integers(-5, 30))),
            height_ft=draw(st.one_of(st.none(), st.integers(1, 4000).map(lambda v: v / 64))),
            traits=tuple(draw(st.lists(_words, max_size=3))),
            taken_cover=draw(st.booleans()), prone=draw(st.booleans()), dead=draw(st.booleans()),
        ))
    if len(creatures) >= 2 and draw(st.booleans()):
        creatures[0] = Creature(**{**creatures[0].__dict__, "grappling": creatures[1].id})
    walls = []
    for kind in draw(st.lists(st.sampled_from(["wall", "door", "slit", "low"]), max_size=4)):
        pts = draw(st.lists(st.tuples(_coords.filter(lambda v: v <= w), _coords.filter(lambda v: v <= h)),
                            min_size=2, max_size=4))
        if any(a == b for a, b in zip(pts, pts[1:])):
            continue
        walls.append(Wall(
            kind, tuple(pts),
            open=kind == "door" and draw(st.booleans()),
            height_ft=draw(st.one_of(st.none(), st.integers(1, 100).map(lambda v: v / 8))) if kind == "low" else None,
        ))
    return BattleMap.build(
        w, h, squares=grid, walls=walls, creatures=creatures,
        square_ft=draw(st.sampled_from([5, 1.5, 10])), low_height_ft=draw(st.sampled_from([3, 2.5])),
        name=draw(st.one_of(st.none(), st.text(max_size=8))),
        meta=draw(st.one_of(st.none(), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battlemaps(), st.booleans())
def test_text_and_json_round_trips_are_lossless(m, marks):
    text = dumps_text(m, marks=marks)
    assert loads_text(text) == m
    assert from_json_dict(to_json_dict(m), require_header=True) == m
    assert dumps_text(loads_text(text), marks=marks) == text


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("grid\n..\n.?\n", r"^k.txt: line 3, column 2: unknown square code '\?' at square \(1, 1\)"),
        ("grid\n...\n..\n", r"^k.txt: line 3: grid row 1 has 2 squares, the first row has 3"),
        ("grid\nA.\n.A\n", r"^k.txt: line 3, column 2: creature letter 'A' appears twice in the grid \(also line 2, column 1\)"),
        ("size 2x2\n\nbridge 1,1 2,2\n", r"^k.txt: line 3: unknown statement 'bridge'; expected one of name"),
        ("grid\n\n..\n", r"^k.txt: line 1: 'grid' must be followed by rows of squares"),
        ("grid ..\n", r"^k.txt: line 1: 'grid' takes nothing on its line"),
        ("grid\n..\n\ngrid\n..\n", r"^k.txt: line 4: a second grid \(the first is on line 1\)"),
        ("name a\nname b\nsize 1x1\n", r"^k.txt: line 2: a second 'name' line \(the first is line 1\)"),
        ("name\n", r"^k.txt: line 1: 'name' needs a value"),
        ("name \"open\n", r"^k.txt: line 1: name: bad quoted string"),
        ("size 20 by 14\n", r"^k.txt: line 1: size must be WIDTHxHEIGHT \(e.g. 20x14\), not '20 by 14'"),
        ("size 0x3\n", r"^k.txt: line 1: size must be WIDTHxHEIGHT"),
        ("size 3x2\ngrid\n..\n..\n", r"^k.txt: line 1: size 3x2 but the grid is 2x2"),
        ("name Empty\n", r"^k.txt: no grid and no size line; the map size is unknown"),
        ("size 2x2\nsquare_ft five\n", r"^k.txt: line 2: square_ft must be a number, not 'five'"),
        ("size 2x2\nlow_height_ft -1\n", r"^k.txt: line 2: low_height_ft must be positive"),
        ("size 2x2\nmeta [1]\n", r"^k.txt: line 2: meta must be a JSON object, not '\[1\]'"),
        ("size 2x2\nmeta {oops}\n", r"^k.txt: line 2: meta is not valid JSON"),
        ("size 2x2\ncreature\n", r"^k.txt: line 2: creature needs an id"),
        ("size 2x2\ncreature A\n", r"^k.txt: line 2: creature 'A' has no position: give X,Y after the id or a grid letter"),
        ("grid\nA.\n\ncreature A 1,0\n", r"^k.txt: line 4: creature 'A' is at 1,0 but its grid letter \(line 2, column 1\) is at 0,0"),
        ("size 2x2\ncreature A 0,0 evsion=3\n", r"^k.txt: line 2: unknown creature key 'evsion'; expected one of team, evasion"),
        ("size 2x2\ncreature A 0,0 enormous\n", r"^k.txt: line 2: unknown word 'enormous'; expected a size \(fine, "),
        ("size 2x2\ncreature A medium 0,0\n", r"^k.txt: line 2: the position '0,0' must come right after the id"),
        ("size 2x2\ncreature A 0,0 evasion=high\n", r"^k.txt: line 2: evasion must be an integer, not 'high'"),
        ("size 2x2\ncreature A 0,0 team=a team=b\n", r"^k.txt: line 2: team given twice"),
        ("size 2x2\ncreature A 0,0 large tiny\n", r"^k.txt: line 2: size given twice"),
        ("size 2x2\ncreature A 0,0,1\n", r"^k.txt: line 2: position must be a point X,Y, not '0,0,1'"),
        ("size 2x2\ncreature A x,0\n", r"^k.txt: line 2: position x must be a number, not 'x'"),
        ("size 2x2\ncreature A 0.5,0\n", r"^k.txt: line 2 \('A'\): x must be a whole number of squares, not 0.5"),
        ("size 2x2\ncreature 'A 0,0\n", r"^k.txt: line 2: no closing quotation"),
        ("size 2x2\ncreature object 0,0\n", r"^k.txt: line 2 \('object'\): id 'object' is reserved"),
        ("size 2x2\ncreature A 0,0 size=colossal\n", r"^k.txt: creature 'A' \(line 2\): a colossal creature at \(0, 0\) lies off the 2x2 map"),
        ("grid\n#.\n..\n\ncreature A 0,0\n", r"^k.txt: creature 'A' \(line 5\): stands on the solid square \(0, 0\)"),
        ("size 3x3\ncreature A 0,0\ncreature T 0,0 large\n", r"^k.txt: creature 'T' \(line 3\): overlaps creature 'A' at square \(0, 0\)"),
        ("size 3x3\ncreature A 0,0\ncreature A 2,2\n", r"^k.txt: creature 'A' \(line 3\): duplicate id 'A' \(also line 2\)"),
        ("grid\nA.\n\ncreature A\ncreature A\n", r"^k.txt: creature 'A' \(line 5\): duplicate id 'A' \(also line 4\)"),
        ("grid\nAB\n\ncreature A 1,0\n", r"^k.txt: line 4: creature 'A' is at 1,0 but its grid letter"),
        ("grid\nA.\n.B\n\ncreature B grappling=C\n", r"^k.txt: creature 'B' \(line 5\): grappling names unknown creature 'C'"),
        ("grid\nAB\n\n", None),
        ("size 2x2\nwall 0,0 3,0\n", r"^k.txt: line 2: points\[1\] \(3, 0\) lies outside the 2x2 map"),
        ("size 2x2\nwall 0,0 nan,1\n", r"^k.txt: line 2: points\[1\] x must be finite, not nan"),
        ("size 2x2\nwall 0,0\n", r"^k.txt: line 2: points needs at least 2 points, it has 1"),
        ("size 2x2\ndoor 0,0 1,0 ajar\n", r"^k.txt: line 2: unknown word 'ajar' in a door line; expected X,Y points or open/closed"),
        ("size 2x2\nwall 0,0 1,0 open\n", r"^k.txt: line 2: unknown word 'open' in a wall line; expected X,Y points$"),
        ("size 2x2\nlow 0,0 1,0 height=tall\n", r"^k.txt: line 2: height must be a number, not 'tall'"),
        ("size 2x2\nlow 0,0 1,0 height=0\n", r"^k.txt: line 2: height_ft must be positive"),
        ("size 2x2\nslit 0,0 1,\n", r"^k.txt: line 2: points\[1\] y must be a number, not ''"),
    ],
)
def test_errors_name_the_file_and_line(text, pattern):
    if pattern is None:  # a control: this one is valid
        assert [c.id for c in loads_text(text, "k.txt").creatures] == ["A", "B"]
        return
    with pytest.raises(MapError, match=pattern):
        loads_text(text, "k.txt")


def test_load_text_names_the_file(tmp_path):
    path = tmp_path / "bad.map"
    path.write_text("size 2x2\ncreature A 5,5\n")
    with pytest.raises(MapError, match=r"bad.map: creature 'A' \(line 2\): a medium creature at \(5, 5\) lies off"):
        load_map(path)
    path.write_bytes(b"name \xe9\n")
    with pytest.raises(MapError, match=r"bad.map: not UTF-8 text \(byte 5\)"):
        load_text(path)
    with pytest.raises(MapError, match=r"map text must be a string, not bytes"):
        loads_text(b"size 1x1")
