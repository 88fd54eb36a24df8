"""The battlemap model: squares, thin walls and creatures (SPEC sections 1, 2, 6).

Coordinates are ``(x, y)`` in squares, x to the right, y down; arrays are
indexed ``[r, c]``.  Every coordinate is snapped to the nearest multiple of
1/1024 square when it is read (:func:`snap`), so every value is exact in
binary floating point and, multiplied by :data:`SCALE`, an integer.

This module knows no geometry beyond rectangles and bounds checks: tracing
lines is the job of :mod:`lineoffire.geometry`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = [
    "SCALE",
    "SIZES",
    "SIZE_SPACE",
    "SIZE_HEIGHT_FT",
    "WALL_KINDS",
    "OPEN",
    "SOLID",
    "LOW",
    "SQUARE_CODES",
    "MapError",
    "MapTypeError",
    "snap",
    "size_index",
    "Creature",
    "Wall",
    "BattleMap",
]

#: Coordinates are multiples of ``1 / SCALE`` square.
SCALE = 1024
#: No coordinate of a map or request may exceed this (squares) in size.
COORD_LIMIT = 1e9
#: The largest map, in squares.
MAX_SQUARES = 100_000_000

SIZES: tuple[str, ...] = (
    "fine",
    "diminutive",
    "tiny",
    "small",
    "medium",
    "large",
    "huge",
    "gargantuan",
    "colossal",
)
#: Squares per side of a creature's space, by size index.
SIZE_SPACE: tuple[int, ...] = (1, 1, 1, 1, 1, 2, 3, 4, 6)
#: Default height in feet, by size index.
SIZE_HEIGHT_FT: tuple[float, ...] = (0.5, 1, 2, 3, 6, 12, 24, 48, 96)
#: Index of "tiny": creatures of this size or smaller may share a square.
TINY = 2

WALL_KINDS: tuple[str, ...] = ("wall", "door", "slit", "low")

# Square codes of BattleMap.squares.
OPEN = 0
SOLID = 1
LOW = 2
#: Text characters of the square codes, as in the JSON ``squares`` rows.
SQUARE_CODES: dict[str, int] = {".": OPEN, "#": SOLID, "=": LOW}

RESERVED_IDS = frozenset({"object", "miss"})


class MapError(ValueError):
    """A map or a request is invalid.  The message names what and where."""


class MapTypeError(MapError, TypeError):
    """A value of a map or a request has the wrong type.

    Both a :class:`MapError` (so one ``except MapError`` catches every bad
    map) and a :class:`TypeError` (so it reads as what it is).
    """


def snap(value: Any, where: str = "coordinate") -> float:
    """Return ``value`` snapped to the nearest multiple of 1/1024.

    Raises
    ------
    MapTypeError
        If ``value`` is not a real number (booleans are refused too).
    MapError
        If ``value`` is NaN or infinite.

    Examples
    --------
    >>> snap(0.1)
    0.099609375
    >>> snap(3)
    3.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise MapTypeError(f"{where} must be a number, not {type(value).__name__} ({value!r})")
    v = float(value)
    if not math.isfinite(v):
        raise MapError(f"{where} must be finite, not {v!r}")
    if abs(v) > COORD_LIMIT:
        raise MapError(f"{where} is out of range ({v:g}); no map is {COORD_LIMIT:g} squares wide")
    return round(v * SCALE) / SCALE


def size_index(size: Any, where: str = "size") -> int:
    """Index of a size name (``"medium"`` -> 4) in :data:`SIZES`."""
    if not isinstance(size, str):
        raise MapTypeError(f"{where} must be a string, not {type(size).__name__} ({size!r})")
    try:
        return SIZES.index(size.lower())
    except ValueError:
        raise MapError(
            f"{where}: unknown size {size!r}; expected one of {', '.join(SIZES)}"
        ) from None


@dataclass(frozen=True)
class Creature:
    """A creature on the map.

    Its space is the closed rectangle ``[x, x + space] x [y, y + space]``.
    """

    id: str
    x: int
    y: int
    size: str = "medium"
    team: str | None = None
    evasion: int | None = None
    height_ft: float | None = None
    traits: tuple[str, ...] = ()
    taken_cover: bool = False
    prone: bool = False
    dead: bool = False
    grappling: str | None = None

    @property
    def size_index(self) -> int:
        return SIZES.index(self.size)

    @property
    def space(self) -> int:
        return SIZE_SPACE[self.size_index]

    @property
    def height(self) -> float:
        """Height in feet: ``height_ft`` if given, else the size's default."""
        if self.height_ft is not None:
            return float(self.height_ft)
        return float(SIZE_HEIGHT_FT[self.size_index])

    @property
    def rect(self) -> tuple[int, int, int, int]:
        """The space as ``(x0, y0, x1, y1)`` in squares."""
        s = self.space
        return (self.x, self.y, self.x + s, self.y + s)

    @property
    def centre(self) -> tuple[float, float]:
        s = self.space
        return (self.x + s / 2, self.y + s / 2)

    def squares(self) -> list[tuple[int, int]]:
        """The ``(c, r)`` squares of the space, row by row."""
        s = self.space
        return [(self.x + i, self.y + j) for j in range(s) for i in range(s)]

    def has_trait(self, name: str) -> bool:
        return name in self.traits


@dataclass(frozen=True)
class Wall:
    """A thin wall, door, arrow slit or low wall: a polyline in map coordinates.

    ``points`` has at least two points; segment ``i`` runs from ``points[i]``
    to ``points[i + 1]``.  ``open`` applies to doors only, ``height_ft`` to
    low walls only (None means the map's ``low_height_ft``).
    """

    kind: str
    points: tuple[tuple[float, float], ...]
    open: bool = False
    height_ft: float | None = None

    @property
    def segments(self) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        return [(self.points[i], self.points[i + 1]) for i in range(len(self.points) - 1)]

    @property
    def obstacle_class(self) -> str | None:
        """``"blocking"``, ``"slit"``, ``"low"``, or None for an open door."""
        if self.kind == "wall":
            return "blocking"
        if self.kind == "door":
            return None if self.open else "blocking"
        return self.kind


@dataclass
class BattleMap:
    """A battlemap of ``width x height`` squares.

    ``squares`` is a ``(height, width)`` uint8 array of :data:`OPEN`,
    :data:`SOLID` and :data:`LOW`.  Build one with :meth:`BattleMap.build`,
    which validates everything; the constructor trusts its arguments.
    """

    width: int
    height: int
    squares: np.ndarray
    walls: list[Wall] = field(default_factory=list)
    creatures: list[Creature] = field(default_factory=list)
    square_ft: float = 5.0
    low_height_ft: float = 3.0
    name: str | None = None
    meta: dict[str, Any] | None = None
    #: Optional background picture for rendering: (path or bytes, extension).
    image: Any = None
    #: How many short joins the importer added (SPEC section 2), for validate.
    joins_added: int = 0

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        width: Any,
        height: Any,
        *,
        squares: Any = None,
        walls: Iterable[Any] = (),
        creatures: Iterable[Any] = (),
        square_ft: Any = 5,
        low_height_ft: Any = 3,
        name: str | None = None,
        meta: dict[str, Any] | None = None,
        image: Any = None,
        joins_added: int = 0,
        where: str = "map",
        labels: Sequence[str] | None = None,
    ) -> "BattleMap":
        """Validate and build a map.

        ``squares`` is None (all open), a list of row strings of ``.``, ``#``
        and ``=``, or a ``(height, width)`` integer array of square codes.
        ``walls`` and ``creatures`` are :class:`Wall` / :class:`Creature`
        objects or dicts with their fields.  ``where`` starts every error
        message (a file name); ``labels``, one per creature, say where each
        creature was written (``"line 12"``) in placement errors, instead
        of ``creatures[i]``.

        Examples
        --------
        >>> m = BattleMap.build(3, 2, squares=["#..", "..="],
        ...                     creatures=[{"id": "A", "x": 1, "y": 0}])
        >>> m.squares
        array([[1, 0, 0],
               [0, 0, 2]], dtype=uint8)
        >>> m.creature("A").rect
        (1, 0, 2, 1)
        """
        if name is not None and not isinstance(name, str):
            raise MapTypeError(f"{where}: name must be a string, not {type(name).__name__}")
        if meta is not None and not isinstance(meta, dict):
            raise MapTypeError(f"{where}: meta must be an object, not {type(meta).__name__}")
        w = _positive_int(width, f"{where}: width")
        h = _positive_int(height, f"{where}: height")
        if w * h > MAX_SQUARES:
            raise MapError(f"{where}: a {w}x{h} map is too large; at most {MAX_SQUARES:,} squares")
        grid = _parse_squares(squares, w, h, where)
        sq_ft = _positive_number(square_ft, f"{where}: square_ft")
        low_ft = _positive_number(low_height_ft, f"{where}: low_height_ft")
        wall_list = [
            _make_wall(wl, w, h, f"{where}: walls[{i}]") for i, wl in enumerate(walls)
        ]
        creature_list = [
            _make_creature(c, f"{where}: creatures[{i}]") for i, c in enumerate(creatures)
        ]
        bmap = cls(
            width=w,
            height=h,
            squares=grid,
            walls=wall_list,
            creatures=creature_list,
            square_ft=sq_ft,
            low_height_ft=low_ft,
            name=name,
            meta=meta,
            image=image,
            joins_added=joins_added,
        )
        bmap.validate(where, labels=labels)
        return bmap

    def validate(self, where: str = "map", *, labels: Sequence[str] | None = None) -> None:
        """Check creature placement: on the map, not on solid squares, no overlaps.

        ``labels`` (one per creature) replace ``creatures[i]`` in messages.
        """
        if labels is None:
            labels = [f"creatures[{i}]" for i in range(len(self.creatures))]
        elif len(labels) != len(self.creatures):
            raise ValueError(
                f"labels has {len(labels)} entries for {len(self.creatures)} creatures"
            )
        seen: dict[str, int] = {}
        occupied: dict[tuple[int, int], Creature] = {}
        for i, c in enumerate(self.creatures):
            here = f"{where}: creature {c.id!r} ({labels[i]})"
            if c.id in seen:
                raise MapError(f"{here}: duplicate id {c.id!r} (also {labels[seen[c.id]]})")
            seen[c.id] = i
            x0, y0, x1, y1 = c.rect
            if x0 < 0 or y0 < 0 or x1 > self.width or y1 > self.height:
                raise MapError(
                    f"{here}: a {c.size} creature at ({c.x}, {c.y}) lies off the "
                    f"{self.width}x{self.height} map"
                )
            for col, row in c.squares():
                if self.squares[row, col] == SOLID:
                    raise MapError(f"{here}: stands on the solid square ({col}, {row})")
                other = occupied.get((col, row))
                if other is not None and not (c.size_index <= TINY and other.size_index <= TINY):
                    raise MapError(
                        f"{here}: overlaps creature {other.id!r} at square ({col}, {row}); "
                        "only tiny or smaller creatures may share a square"
                    )
                occupied[(col, row)] = c
        for i, c in enumerate(self.creatures):
            if c.grappling is not None and c.grappling not in seen:
                raise MapError(
                    f"{where}: creature {c.id!r} ({labels[i]}): grappling names "
                    f"unknown creature {c.grappling!r}"
                )
            if c.grappling == c.id:
                raise MapError(f"{where}: creature {c.id!r} ({labels[i]}) cannot grapple itself")

    # ---------------------------------------------------------------- queries
    def creature(self, cid: Any) -> Creature:
        """The creature with id ``cid``; MapError naming the known ids if none."""
        return self.creatures[self.creature_index(cid)]

    def creature_index(self, cid: Any) -> int:
        """Index of the creature with id ``cid`` in :attr:`creatures`."""
        for fresh in (False, True):
            cache = self.__dict__.get("_id_index")
            if fresh or cache is None or cache[0] is not self.creatures \
                    or cache[1] != len(self.creatures):
                cache = (self.creatures, len(self.creatures),
                         {c.id: i for i, c in enumerate(self.creatures)})
                self.__dict__["_id_index"] = cache
            i = cache[2].get(cid) if isinstance(cid, str) else None
            if i is not None and self.creatures[i].id == cid:
                return i
        known = ", ".join(repr(c.id) for c in self.creatures) or "none"
        raise MapError(f"unknown creature id {cid!r}; the map has {known}")

    def with_creatures(self, creatures: Sequence[Creature]) -> "BattleMap":
        """A copy with another list of creatures (validated)."""
        m = replace(self, creatures=list(creatures))
        m.validate()
        return m

    def with_walls(self, walls: Sequence[Wall]) -> "BattleMap":
        """A copy with another list of walls."""
        return replace(self, walls=list(walls))

    def wall_height(self, wall: Wall) -> float:
        """Height in feet of a low wall (its own, else the map's low height)."""
        return float(wall.height_ft) if wall.height_ft is not None else float(self.low_height_ft)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BattleMap):
            return NotImplemented
        return (
            self.width == other.width
            and self.height == other.height
            and np.array_equal(self.squares, other.squares)
            and self.walls == other.walls
            and self.creatures == other.creatures
            and self.square_ft == other.square_ft
            and self.low_height_ft == other.low_height_ft
            and self.name == other.name
            and self.meta == other.meta
        )


# ---------------------------------------------------------------- helpers
def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise MapTypeError(f"{where} must be an integer, not {type(value).__name__} ({value!r})")
    if value <= 0:
        raise MapError(f"{where} must be positive, not {value}")
    return int(value)


def _positive_number(value: Any, where: str) -> float:
    v = snap(value, where) if not isinstance(value, bool) else snap(value, where)
    if v <= 0:
        raise MapError(f"{where} must be positive, not {value!r}")
    return float(value)


def _int_coord(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise MapTypeError(f"{where} must be an integer, not {type(value).__name__} ({value!r})")
    v = snap(value, where)  # like every coordinate; then it must be a whole square
    if not v.is_integer():
        raise MapError(f"{where} must be a whole number of squares, not {value!r}")
    return int(v)


def _parse_squares(squares: Any, w: int, h: int, where: str) -> np.ndarray:
    if squares is None:
        return np.zeros((h, w), dtype=np.uint8)
    if isinstance(squares, np.ndarray):
        if squares.shape != (h, w):
            raise MapError(
                f"{where}: squares must have shape (height, width) = ({h}, {w}), "
                f"not {squares.shape}"
            )
        bad = ~np.isin(squares, (OPEN, SOLID, LOW))
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise MapError(f"{where}: squares[{r}, {c}] has unknown code {squares[r, c]!r}")
        return squares.astype(np.uint8)
    if isinstance(squares, str) or not isinstance(squares, (list, tuple)):
        raise MapTypeError(
            f"{where}: squares must be a list of {h} row strings, not {type(squares).__name__}"
        )
    if len(squares) != h:
        raise MapError(f"{where}: squares has {len(squares)} rows, the height is {h}")
    grid = np.zeros((h, w), dtype=np.uint8)
    for r, row in enumerate(squares):
        if not isinstance(row, str):
            raise MapTypeError(f"{where}: squares[{r}] must be a string, not {type(row).__name__}")
        if len(row) != w:
            raise MapError(f"{where}: squares[{r}] has {len(row)} characters, the width is {w}")
        for c, ch in enumerate(row):
            code = SQUARE_CODES.get(ch)
            if code is None:
                raise MapError(
                    f"{where}: squares[{r}][{c}] (square ({c}, {r})) has unknown square "
                    f"code {ch!r}; expected one of {' '.join(repr(k) for k in SQUARE_CODES)}"
                )
            grid[r, c] = code
    return grid


def _make_wall(wall: Any, w: int, h: int, where: str) -> Wall:
    if isinstance(wall, Wall):
        kind, points, is_open, height_ft = wall.kind, wall.points, wall.open, wall.height_ft
    elif isinstance(wall, dict):
        unknown = set(wall) - set(WALL_FIELDS)
        if unknown:
            raise MapError(f"{where}: unknown field(s) {', '.join(sorted(map(repr, unknown)))}")
        kind = wall.get("kind", "wall")
        if "points" not in wall:
            raise MapError(f"{where}: missing field 'points'")
        points = wall["points"]
        is_open = wall.get("open", False)
        height_ft = wall.get("height_ft")
    else:
        raise MapTypeError(f"{where} must be an object, not {type(wall).__name__}")
    if not isinstance(kind, str):
        raise MapTypeError(f"{where}: kind must be a string, not {type(kind).__name__} ({kind!r})")
    if kind not in WALL_KINDS:
        raise MapError(f"{where}: unknown wall kind {kind!r}; expected one of {', '.join(WALL_KINDS)}")
    if not isinstance(is_open, bool):
        raise MapTypeError(f"{where}: open must be true or false, not {is_open!r}")
    if is_open and kind != "door":
        raise MapError(f"{where}: only doors can be open (kind is {kind!r})")
    if height_ft is not None:
        if kind != "low":
            raise MapError(f"{where}: height_ft applies to low walls only (kind is {kind!r})")
        height_ft = _positive_number(height_ft, f"{where}: height_ft")
    if isinstance(points, (str, bytes)) or not isinstance(points, (list, tuple)):
        raise MapTypeError(f"{where}: points must be a list of [x, y] pairs")
    if len(points) < 2:
        raise MapError(f"{where}: points needs at least 2 points, it has {len(points)}")
    pts: list[tuple[float, float]] = []
    for j, p in enumerate(points):
        if isinstance(p, (str, bytes)) or not isinstance(p, (list, tuple)) or len(p) != 2:
            raise MapError(f"{where}: points[{j}] must be an [x, y] pair, not {p!r}")
        x = snap(p[0], f"{where}: points[{j}] x")
        y = snap(p[1], f"{where}: points[{j}] y")
        if not (0 <= x <= w and 0 <= y <= h):
            raise MapError(
                f"{where}: points[{j}] ({x:g}, {y:g}) lies outside the {w}x{h} map"
            )
        pts.append((x, y))
    for j in range(len(pts) - 1):
        if pts[j] == pts[j + 1]:
            raise MapError(f"{where}: segment {j} has zero length (points[{j}] == points[{j + 1}])")
    return Wall(kind=kind, points=tuple(pts), open=is_open, height_ft=height_ft)


#: The fields of a creature object, in the order the JSON format writes them.
CREATURE_FIELDS: tuple[str, ...] = (
    "id",
    "x",
    "y",
    "size",
    "team",
    "evasion",
    "height_ft",
    "traits",
    "taken_cover",
    "prone",
    "dead",
    "grappling",
)
#: The fields of a thin-wall object.
WALL_FIELDS: tuple[str, ...] = ("kind", "points", "open", "height_ft")


def _make_creature(c: Any, where: str) -> Creature:
    if isinstance(c, Creature):
        c = {
            "id": c.id, "x": c.x, "y": c.y, "size": c.size, "team": c.team,
            "evasion": c.evasion, "height_ft": c.height_ft, "traits": list(c.traits),
            "taken_cover": c.taken_cover, "prone": c.prone, "dead": c.dead,
            "grappling": c.grappling,
        }
    if not isinstance(c, dict):
        raise MapTypeError(f"{where} must be an object, not {type(c).__name__}")
    unknown = set(c) - set(CREATURE_FIELDS)
    if unknown:
        raise MapError(f"{where}: unknown field(s) {', '.join(sorted(map(repr, unknown)))}")
    for key in ("id", "x", "y"):
        if key not in c:
            raise MapError(f"{where}: missing field {key!r}")
    cid = c["id"]
    if not isinstance(cid, str):
        raise MapTypeError(f"{where}: id must be a string, not {type(cid).__name__} ({cid!r})")
    if not cid:
        raise MapError(f"{where}: id must not be empty")
    where = f"{where} ({cid!r})"
    if cid in RESERVED_IDS:
        raise MapError(f"{where}: id {cid!r} is reserved")
    x = _int_coord(c["x"], f"{where}: x")
    y = _int_coord(c["y"], f"{where}: y")
    size = SIZES[size_index(c.get("size", "medium"), f"{where}: size")]
    team = c.get("team")
    if team is not None and not isinstance(team, str):
        raise MapTypeError(f"{where}: team must be a string, not {team!r}")
    evasion = c.get("evasion")
    if evasion is not None:
        if isinstance(evasion, bool) or not isinstance(evasion, (int, np.integer)):
            if isinstance(evasion, float) and evasion.is_integer():
                evasion = int(evasion)
            else:
                raise MapTypeError(f"{where}: evasion must be an integer, not {evasion!r}")
        evasion = int(evasion)
    height_ft = c.get("height_ft")
    if height_ft is not None:
        height_ft = _positive_number(height_ft, f"{where}: height_ft")
    traits = c.get("traits", ())
    if isinstance(traits, str) or not isinstance(traits, (list, tuple)):
        raise MapTypeError(f"{where}: traits must be a list of strings, not {traits!r}")
    for t in traits:
        if not isinstance(t, str):
            raise MapTypeError(f"{where}: traits must be strings, not {t!r}")
    flags = {}
    for key in ("taken_cover", "prone", "dead"):
        v = c.get(key, False)
        if not isinstance(v, bool):
            raise MapTypeError(f"{where}: {key} must be true or false, not {v!r}")
        flags[key] = v
    grappling = c.get("grappling")
    if grappling is not None and not isinstance(grappling, str):
        raise MapTypeError(f"{where}: grappling must be a creature id, not {grappling!r}")
    return Creature(
        id=cid, x=x, y=y, size=size, team=team, evasion=evasion, height_ft=height_ft,
        traits=tuple(traits), grappling=grappling, **flags,
    )
