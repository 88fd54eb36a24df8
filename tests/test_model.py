"""The map model refuses every invalid map with a message naming what and where."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lineoffire.maps import BattleMap, Creature, MapError, Wall, snap
from lineoffire.maps.model import LOW, OPEN, SOLID, MapTypeError


def build(**kw):
    """A 6x4 map with one solid square at (2, 1), overridden by ``kw``."""
    args = {"squares": ["......", "..#...", "......", "......"]}
    args.update(kw)
    return BattleMap.build(6, 4, **args)


def medium(cid, x, y, **kw):
    return {"id": cid, "x": x, "y": y, **kw}


# ------------------------------------------------------------------ valid maps
def test_a_valid_map_keeps_everything():
    m = build(
        walls=[
            {"kind": "wall", "points": [[0, 0], [0, 4]]},
            {"kind": "door", "points": [[3, 0], [3, 1]], "open": True},
            {"kind": "low", "points": [[4.5, 1.2], [5.5, 2]], "height_ft": 2},
        ],
        creatures=[medium("A", 0, 0, team="party", evasion=12), {"id": "T", "x": 4, "y": 2, "size": "large"}],
        name="Test",
        meta={"a": [1, 2]},
    )
    assert m.squares.dtype == np.uint8
    assert m.squares[1, 2] == SOLID and m.squares[0, 0] == OPEN
    assert m.walls[1] == Wall("door", ((3.0, 0.0), (3.0, 1.0)), open=True)
    assert m.walls[2].points == ((4.5, snap(1.2)), (5.5, 2.0))
    assert m.wall_height(m.walls[2]) == 2.0
    assert m.creature("T").rect == (4, 2, 6, 4)
    assert m.creature("T").centre == (5.0, 3.0)
    assert m.creature("A").height == 6.0 and m.creature("T").height == 12.0
    assert m.creature("A").squares() == [(0, 0)]
    assert m.creature_index("T") == 1


def test_low_wall_without_height_uses_the_map_low_height():
    m = build(low_height_ft=4, walls=[{"kind": "low", "points": [[0, 0], [1, 1]]}])
    assert m.wall_height(m.walls[0]) == 4.0


def test_squares_as_codes_array():
    grid = np.array([[OPEN, SOLID], [LOW, OPEN]])
    m = BattleMap.build(2, 2, squares=grid)
    assert m.squares.tolist() == [[0, 1], [2, 0]]


def test_tiny_creatures_may_share_a_square():
    m = build(creatures=[
        {"id": "r1", "x": 1, "y": 1, "size": "tiny"},
        {"id": "r2", "x": 1, "y": 1, "size": "fine"},
        {"id": "r3", "x": 1, "y": 1, "size": "diminutive"},
    ])
    assert [c.squares() for c in m.creatures] == [[(1, 1)]] * 3


def test_size_names_are_case_insensitive_and_stored_lower_case():
    m = build(creatures=[{"id": "A", "x": 0, "y": 0, "size": "Large"}])
    assert m.creature("A").size == "large"


def test_unknown_creature_lookup_lists_the_ids():
    m = build(creatures=[medium("A", 0, 0)])
    with pytest.raises(MapError, match=r"unknown creature id 'B'; the map has 'A'"):
        m.creature("B")


def test_snap_is_exact_to_one_1024th():
    assert snap(0.1) == 102 / 1024
    assert snap(2.5) == 2.5
    assert snap(np.float32(0.5)) == 0.5
    with pytest.raises(MapTypeError, match=r"x must be a number, not bool"):
        snap(True, "x")
    with pytest.raises(MapError, match=r"y must be finite"):
        snap(math.inf, "y")


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("kw", "error", "pattern"),
    [
        # sizes and squares
        ({"squares": ["......", "..x...", "......", "......"]}, MapError,
         r"map: squares\[1\]\[2\] \(square \(2, 1\)\) has unknown square code 'x'"),
        ({"squares": ["......", "......"]}, MapError, r"squares has 2 rows, the height is 4"),
        ({"squares": ["......", ".....", "......", "......"]}, MapError,
         r"squares\[1\] has 5 characters, the width is 6"),
        ({"squares": np.zeros((3, 6))}, MapError, r"squares must have shape \(height, width\) = \(4, 6\)"),
        ({"squares": np.full((4, 6), 7)}, MapError, r"squares\[0, 0\] has unknown code"),
        ({"squares": "......"}, MapTypeError, r"squares must be a list of 4 row strings, not str"),
        ({"squares": ["......", 5, "......", "......"]}, MapTypeError, r"squares\[1\] must be a string"),
        # creatures: size, placement, ids
        ({"creatures": [{"id": "A", "x": 0, "y": 0, "size": "enormous"}]}, MapError,
         r"creatures\[0\] \('A'\): size: unknown size 'enormous'; expected one of fine, "),
        ({"creatures": [{"id": "A", "x": 0, "y": 0, "size": 4}]}, MapTypeError,
         r"size must be a string, not int"),
        ({"creatures": [{"id": "T", "x": 5, "y": 0, "size": "large"}]}, MapError,
         r"creature 'T' \(creatures\[0\]\): a large creature at \(5, 0\) lies off the 6x4 map"),
        ({"creatures": [medium("A", -1, 0)]}, MapError, r"at \(-1, 0\) lies off the 6x4 map"),
        ({"creatures": [medium("A", 0, 4)]}, MapError, r"at \(0, 4\) lies off the 6x4 map"),
        ({"creatures": [{"id": "T", "x": 1, "y": 0, "size": "large"}]}, MapError,
         r"creature 'T' \(creatures\[0\]\): stands on the solid square \(2, 1\)"),
        ({"creatures": [medium("A", 0, 0), {"id": "T", "x": 0, "y": 0, "size": "large"}]}, MapError,
         r"creature 'T' \(creatures\[1\]\): overlaps creature 'A' at square \(0, 0\); only tiny"),
        ({"creatures": [medium("A", 3, 3), {"id": "r", "x": 3, "y": 3, "size": "tiny"}]}, MapError,
         r"creature 'r' \(creatures\[1\]\): overlaps creature 'A' at square \(3, 3\)"),
        ({"creatures": [{"id": "r", "x": 3, "y": 3, "size": "tiny"}, medium("A", 3, 3)]}, MapError,
         r"creature 'A' \(creatures\[1\]\): overlaps creature 'r'"),
        ({"creatures": [medium("A", 0, 0), medium("A", 3, 3)]}, MapError,
         r"creature 'A' \(creatures\[1\]\): duplicate id 'A' \(also creatures\[0\]\)"),
        ({"creatures": [medium("object", 0, 0)]}, MapError, r"creatures\[0\] \('object'\): id 'object' is reserved"),
        ({"creatures": [medium("miss", 0, 0)]}, MapError, r"id 'miss' is reserved"),
        ({"creatures": [medium("A", 0, 0, grappling="Z")]}, MapError,
         r"creature 'A' \(creatures\[0\]\): grappling names unknown creature 'Z'"),
        ({"creatures": [medium("A", 0, 0, grappling="A")]}, MapError, r"creature 'A' .* cannot grapple itself"),
        ({"creatures": [medium("", 0, 0)]}, MapError, r"creatures\[0\]: id must not be empty"),
        ({"creatures": [{"x": 0, "y": 0}]}, MapError, r"creatures\[0\]: missing field 'id'"),
        ({"creatures": [{"id": "A", "y": 0}]}, MapError, r"creatures\[0\]: missing field 'x'"),
        ({"creatures": [medium("A", 0.5, 0)]}, MapError, r"\('A'\): x must be a whole number of squares, not 0.5"),
        ({"creatures": [{"id": "A", "x": 0, "y": 0, "sise": "tiny"}]}, MapError,
         r"creatures\[0\]: unknown field\(s\) 'sise'"),
        # non-finite and out-of-bounds coordinates
        ({"creatures": [medium("A", math.nan, 0)]}, MapError, r"\('A'\): x must be finite, not nan"),
        ({"creatures": [medium("A", 0, math.inf)]}, MapError, r"\('A'\): y must be finite, not inf"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [math.nan, 1]]}]}, MapError,
         r"walls\[0\]: points\[1\] x must be finite, not nan"),
        ({"walls": [{"kind": "wall", "points": [[0, -math.inf], [1, 1]]}]}, MapError,
         r"walls\[0\]: points\[0\] y must be finite, not -inf"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [6.5, 1]]}]}, MapError,
         r"walls\[0\]: points\[1\] \(6.5, 1\) lies outside the 6x4 map"),
        ({"walls": [{"kind": "wall", "points": [[0, -0.25], [1, 1]]}]}, MapError,
         r"points\[0\] \(0, -0.25\) lies outside the 6x4 map"),
        # walls
        ({"walls": [{"kind": "window", "points": [[0, 0], [1, 1]]}]}, MapError,
         r"walls\[0\]: unknown wall kind 'window'; expected one of wall, door, slit, low"),
        ({"walls": [{"kind": "wall", "points": [[0, 0]]}]}, MapError, r"points needs at least 2 points, it has 1"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [0, 0]]}]}, MapError, r"segment 0 has zero length"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [1, 1]], "open": True}]}, MapError,
         r"only doors can be open \(kind is 'wall'\)"),
        ({"walls": [{"kind": "slit", "points": [[0, 0], [1, 1]], "height_ft": 2}]}, MapError,
         r"height_ft applies to low walls only"),
        ({"walls": [{"kind": "low", "points": [[0, 0], [1, 1]], "height_ft": 0}]}, MapError,
         r"walls\[0\]: height_ft must be positive"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [1, 1]], "colour": "red"}]}, MapError,
         r"walls\[0\]: unknown field\(s\) 'colour'"),
        ({"walls": [{"kind": "wall"}]}, MapError, r"walls\[0\]: missing field 'points'"),
        ({"walls": [{"kind": "wall", "points": [[0, 0], [1, 2, 3]]}]}, MapError,
         r"points\[1\] must be an \[x, y\] pair"),
        # wrong types
        ({"walls": [{"kind": 5, "points": [[0, 0], [1, 1]]}]}, MapTypeError, r"walls\[0\]: kind must be a string, not int"),
        ({"walls": [{"kind": "door", "points": [[0, 0], [1, 1]], "open": "yes"}]}, MapTypeError,
         r"open must be true or false, not 'yes'"),
        ({"walls": [{"kind": "wall", "points": "0,0 1,1"}]}, MapTypeError, r"points must be a list of \[x, y\] pairs"),
        ({"walls": [{"kind": "wall", "points": [[0, "1"], [1, 1]]}]}, MapTypeError,
         r"points\[0\] y must be a number, not str"),
        ({"walls": [{"kind": "wall", "points": [[0, True], [1, 1]]}]}, MapTypeError,
         r"points\[0\] y must be a number, not bool"),
        ({"walls": ["wall"]}, MapTypeError, r"walls\[0\] must be an object, not str"),
        ({"creatures": [["A", 0, 0]]}, MapTypeError, r"creatures\[0\] must be an object, not list"),
        ({"creatures": [medium(7, 0, 0)]}, MapTypeError, r"creatures\[0\]: id must be a string, not int"),
        ({"creatures": [medium("A", "0", 0)]}, MapTypeError, r"\('A'\): x must be an integer, not str"),
        ({"creatures": [medium("A", 0, 0, team=3)]}, MapTypeError, r"\('A'\): team must be a string, not 3"),
        ({"creatures": [medium("A", 0, 0, evasion=12.5)]}, MapTypeError, r"evasion must be an integer, not 12.5"),
        ({"creatures": [medium("A", 0, 0, evasion=True)]}, MapTypeError, r"evasion must be an integer, not True"),
        ({"creatures": [medium("A", 0, 0, traits="brave")]}, MapTypeError, r"traits must be a list of strings"),
        ({"creatures": [medium("A", 0, 0, traits=["brave", 3])]}, MapTypeError, r"traits must be strings, not 3"),
        ({"creatures": [medium("A", 0, 0, prone="yes")]}, MapTypeError, r"prone must be true or false, not 'yes'"),
        ({"creatures": [medium("A", 0, 0, grappling=2)]}, MapTypeError, r"grappling must be a creature id, not 2"),
        ({"creatures": [medium("A", 0, 0, height_ft=-1)]}, MapError, r"height_ft must be positive"),
        ({"name": 5}, MapTypeError, r"map: name must be a string, not int"),
        ({"meta": [1, 2]}, MapTypeError, r"map: meta must be an object, not list"),
        ({"square_ft": "5"}, MapTypeError, r"map: square_ft must be a number, not str"),
        ({"square_ft": 0}, MapError, r"map: square_ft must be positive, not 0"),
        ({"low_height_ft": math.nan}, MapError, r"map: low_height_ft must be finite"),
    ],
)
def test_invalid_maps_are_refused(kw, error, pattern):
    with pytest.raises(error, match=pattern):
        build(**kw)


@pytest.mark.parametrize(
    ("width", "height", "error", "pattern"),
    [
        ("6", 4, MapTypeError, r"map: width must be an integer, not str"),
        (6, True, MapTypeError, r"map: height must be an integer, not bool"),
        (6.5, 4, MapTypeError, r"map: width must be an integer, not float"),
        (0, 4, MapError, r"map: width must be positive, not 0"),
        (6, -2, MapError, r"map: height must be positive, not -2"),
    ],
)
def test_bad_sizes_are_refused(width, height, error, pattern):
    with pytest.raises(error, match=pattern):
        BattleMap.build(width, height)


def test_wrong_types_are_map_errors_and_type_errors():
    with pytest.raises(MapError):
        BattleMap.build("6", 4)
    with pytest.raises(TypeError):
        BattleMap.build("6", 4)


def test_where_and_labels_name_the_source():
    with pytest.raises(MapError, match=r"^keep.txt: creature 'B' \(line 9\): duplicate id 'B' \(also line 7\)$"):
        BattleMap.build(
            4, 1, creatures=[medium("B", 0, 0), medium("B", 2, 0)], where="keep.txt",
            labels=["line 7", "line 9"],
        )
    with pytest.raises(ValueError, match=r"labels has 1 entries for 2 creatures"):
        BattleMap.build(4, 1, creatures=[medium("B", 0, 0), medium("C", 2, 0)], labels=["line 7"])


def test_creature_objects_are_validated_like_dicts():
    good = Creature(id="A", x=0, y=0, size="small", traits=("brave",))
    m = build(creatures=[good])
    assert m.creatures == [good]
    with pytest.raises(MapError, match=r"id 'object' is reserved"):
        build(creatures=[Creature(id="object", x=0, y=0)])


def test_with_creatures_revalidates():
    m = build(creatures=[medium("A", 0, 0)])
    moved = m.with_creatures([Creature(id="A", x=3, y=3)])
    assert moved.creature("A").rect == (3, 3, 4, 4)
    with pytest.raises(MapError, match=r"stands on the solid square \(2, 1\)"):
        m.with_creatures([Creature(id="A", x=2, y=1)])


def test_maps_compare_by_content():
    a = build(creatures=[medium("A", 0, 0)])
    b = build(creatures=[medium("A", 0, 0)])
    assert a == b
    assert a != build(creatures=[medium("A", 0, 1)])
    assert a != build(creatures=[medium("A", 0, 0)], name="other")


# ---------------------------------------------------------- out-of-range input
@pytest.mark.parametrize("bad", [1e307, -1e12])
def test_huge_coordinates_are_refused_not_overflowed(bad):
    with pytest.raises(MapError, match="out of range"):
        BattleMap.build(4, 4, walls=[{"points": [[0, 0], [bad, 1]]}])


def test_creature_positions_are_snapped_like_every_coordinate():
    m = BattleMap.build(4, 4, creatures=[{"id": "a", "x": 1.0001, "y": 0}])
    assert m.creature("a").x == 1
    with pytest.raises(MapError, match="whole number of squares"):
        BattleMap.build(4, 4, creatures=[{"id": "a", "x": 1.5, "y": 0}])


def test_a_map_too_large_to_hold_is_refused():
    with pytest.raises(MapError, match="too large"):
        BattleMap.build(100_000, 100_000)
