"""A plain-text map format that a person can type (``.txt``, ``.map``, ``.lof``).

One statement per line; the first word says what the line is.  The format
is described for users, with a worked example, in ``docs/text-format.md``
(the tests load that example from the document).  In short::

    name Back room
    grid
    #.A..=
    creature A team=party evasion=12
    door 5,0 5,1 closed

Header lines (each at most once):

``name TEXT``, ``image PATH``
    The rest of the line, taken as written; write it as a JSON string
    (``name "  spaced  "``) to keep leading spaces or other odd characters.
    ``image`` is a background picture for rendering, relative to the file.
``meta JSON``
    A JSON object on one line, kept as is.
``square_ft N``, ``low_height_ft N``
    Feet per square (default 5) and the height of low squares (default 3).
``size WxH``
    The map size; needed only when there is no grid (an all-open map), and
    if both are given they must agree.

The grid: a line ``grid`` followed by one line per row of squares, top row
first, ending at a blank line or at the end of the file.  ``.`` is open,
``#`` solid, ``=`` low.  A letter (``A``-``Z``, ``a``-``z``) is an open square
holding the creature with that one-letter id, at its top-left square: a
medium creature with no team unless a ``creature`` line with that id says
more (the line may then leave out the position).  Rows may be indented but
hold no spaces; comments are not allowed inside the grid.

Creatures: ``creature ID [X,Y] [SIZE] [key=value ...] [flags]``.  The position
is the top-left square of the creature's space (whole squares); SIZE is a size
name (default medium, or ``size=NAME``).  Keys: ``team=``, ``evasion=``,
``height_ft=`` (or ``height=``), ``traits=a,b``, ``grappling=ID``.  Flags:
``prone``, ``dead``, ``taken_cover``.  Words with spaces or ``#`` are quoted
as in a shell: ``creature 'Big Bob' 2,3 team='Red Hand'``.

Walls: ``wall|door|slit|low X,Y X,Y [X,Y ...]`` is a polyline through the
points (map coordinates in squares, any value, snapped to 1/1024).  Doors take
``open`` or ``closed`` (default closed); low walls take ``height=FT`` (or
``height_ft=``; default the map's ``low_height_ft``).

Creatures and walls keep the order of their lines; creatures placed only by a
grid letter come after those with lines, in reading order.  Errors name the
file and the line (and column, in the grid).  :func:`dumps_text` writes every
map losslessly (:func:`loads_text` gives back an equal map), except that trait
names containing commas, and ids, teams or traits containing line breaks,
cannot be written (:func:`dumps_text` says so; JSON holds them).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from .jsonfmt import _image_for
from .model import (
    LOW,
    OPEN,
    SIZES,
    SOLID,
    BattleMap,
    Creature,
    MapError,
    MapTypeError,
    Wall,
    _make_creature,
    _make_wall,
    _positive_number,
)

__all__ = ["load_text", "save_text", "loads_text", "dumps_text"]

_HEADER_KEYS = ("name", "image", "meta", "square_ft", "low_height_ft", "size")
_WALL_KINDS = ("wall", "door", "slit", "low")
_FLAGS = ("prone", "dead", "taken_cover")
_CREATURE_KEYS = ("team", "evasion", "height_ft", "height", "traits", "grappling", "size")
_CHARS = {".": OPEN, "#": SOLID, "=": LOW}
_INT = re.compile(r"[+-]?\d+")
_MARK = re.compile(r"[A-Za-z]")


# ------------------------------------------------------------------ reading
def load_text(path: Any, *, where: str | None = None, join_tolerance: Any = None) -> BattleMap:
    """Load a map from a text file.

    ``join_tolerance`` is accepted (and ignored) so that every loader takes
    the same options; typed maps are exact.  A relative ``image`` is resolved
    against the file's directory.

    Raises
    ------
    MapError
        Naming the file and line of the first problem.
    OSError
        The file cannot be read.
    """
    path = Path(path)
    name = where or str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MapError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    return loads_text(text, where=name, base_dir=path.parent)


def loads_text(text: str, where: str = "<text>", *, base_dir: Path | None = None) -> BattleMap:
    """Parse a map from text in the format described in this module.

    Examples
    --------
    >>> m = loads_text('''
    ... grid
    ... .#A
    ... ..=
    ...
    ... creature A team=party evasion=12
    ... door 1,1 1,2 open
    ... ''')
    >>> m.squares.tolist(), m.creature("A").rect, m.walls[0].open
    ([[0, 1, 0], [0, 0, 2]], (2, 0, 3, 1), True)
    """
    if not isinstance(text, str):
        raise MapTypeError(f"{where}: map text must be a string, not {type(text).__name__}")
    return _Reader(text, where, base_dir).build()


class _Reader:
    def __init__(self, text: str, where: str, base_dir: Path | None):
        self.where = where
        self.base_dir = base_dir
        self.header: dict[str, tuple[int, Any]] = {}
        self.rows: list[tuple[int, str]] = []
        self.grid_line = 0
        self.creatures: list[tuple[int, str, tuple[int, int] | None, dict[str, Any]]] = []
        self.walls: list[tuple[int, dict[str, Any]]] = []
        lines = text.split("\n")  # not splitlines(): names may hold other separators
        n = 0
        while n < len(lines):
            lineno, line = n + 1, lines[n].strip()
            n += 1
            if not line or line.startswith("#"):
                continue
            word, rest = (line.split(None, 1) + [""])[:2]
            rest = rest.strip()
            if word == "grid":
                if rest:
                    raise self.error(lineno, f"'grid' takes nothing on its line, not {rest!r}")
                if self.grid_line:
                    raise self.error(lineno, f"a second grid (the first is on line {self.grid_line})")
                self.grid_line = lineno
                while n < len(lines) and lines[n].strip() and not re.search(r"\s", lines[n].strip()):
                    self.rows.append((n + 1, lines[n].strip()))
                    n += 1
                if not self.rows:
                    raise self.error(lineno, "'grid' must be followed by rows of squares")
            elif word in _HEADER_KEYS:
                self.read_header(lineno, word, rest)
            elif word == "creature":
                self.read_creature(lineno, self.split(lineno, rest))
            elif word in _WALL_KINDS:
                self.read_wall(lineno, word, self.split(lineno, rest))
            else:
                raise self.error(
                    lineno,
                    f"unknown statement {word!r}; expected one of "
                    f"{', '.join(_HEADER_KEYS + ('grid', 'creature') + _WALL_KINDS)}",
                )

    # -- helpers
    def error(self, lineno: int, message: str, column: int | None = None) -> MapError:
        at = f"line {lineno}" if column is None else f"line {lineno}, column {column}"
        return MapError(f"{self.where}: {at}: {message}")

    def split(self, lineno: int, rest: str) -> list[str]:
        lexer = shlex.shlex(rest, posix=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            return list(lexer)
        except ValueError as exc:  # an unclosed quote
            raise self.error(lineno, str(exc).lower()) from None

    def number(self, lineno: int, text: str, what: str) -> int | float:
        if _INT.fullmatch(text):
            return int(text)
        try:
            return float(text)
        except ValueError:
            raise self.error(lineno, f"{what} must be a number, not {text!r}") from None

    def point(self, lineno: int, token: str, what: str) -> list[int | float]:
        parts = token.split(",")
        if len(parts) != 2:
            raise self.error(lineno, f"{what} must be a point X,Y, not {token!r}")
        return [self.number(lineno, parts[0], f"{what} x"), self.number(lineno, parts[1], f"{what} y")]

    # -- statements
    def read_header(self, lineno: int, key: str, rest: str) -> None:
        if key in self.header:
            raise self.error(lineno, f"a second {key!r} line (the first is line {self.header[key][0]})")
        if not rest:
            raise self.error(lineno, f"{key!r} needs a value")
        if key in ("name", "image"):
            value: Any = rest
            if rest.startswith('"'):
                try:
                    value = json.loads(rest)
                except json.JSONDecodeError as exc:
                    raise self.error(lineno, f"{key}: bad quoted string: {exc.msg}") from None
                if not isinstance(value, str):
                    raise self.error(lineno, f"{key} must be a string")
        elif key == "meta":
            try:
                value = json.loads(rest)
            except json.JSONDecodeError as exc:
                raise self.error(lineno, f"meta is not valid JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(value, dict):
                raise self.error(lineno, f"meta must be a JSON object, not {rest!r}")
        elif key == "size":
            m = re.fullmatch(r"(\d+)\s*[xX]\s*(\d+)", rest)
            if not m or int(m[1]) <= 0 or int(m[2]) <= 0:
                raise self.error(lineno, f"size must be WIDTHxHEIGHT (e.g. 20x14), not {rest!r}")
            value = (int(m[1]), int(m[2]))
        else:
            number = self.number(lineno, rest, key)
            value = _positive_number(number, f"{self.where}: line {lineno}: {key}")
        self.header[key] = (lineno, value)

    def read_creature(self, lineno: int, tokens: list[str]) -> None:
        if not tokens:
            raise self.error(lineno, "creature needs an id: creature ID [X,Y] [SIZE] ...")
        cid, *tokens = tokens
        pos = None
        fields: dict[str, Any] = {}
        if tokens and "," in tokens[0] and "=" not in tokens[0]:
            x, y = self.point(lineno, tokens.pop(0), "position")
            pos = (x, y)
        for token in tokens:
            key, eq, value = token.partition("=")
            if not eq:
                if token in _FLAGS:
                    fields[token] = True
                elif token.lower() in SIZES:
                    self.once(lineno, fields, "size", token)
                elif "," in token:
                    raise self.error(lineno, f"the position {token!r} must come right after the id")
                else:
                    raise self.error(
                        lineno,
                        f"unknown word {token!r}; expected a size ({', '.join(SIZES)}), "
                        f"a flag ({', '.join(_FLAGS)}) or key=value",
                    )
            elif key == "evasion":
                if not _INT.fullmatch(value):
                    raise self.error(lineno, f"evasion must be an integer, not {value!r}")
                self.once(lineno, fields, "evasion", int(value))
            elif key in ("height_ft", "height"):
                self.once(lineno, fields, "height_ft", self.number(lineno, value, key))
            elif key == "traits":
                self.once(lineno, fields, "traits", [t for t in value.split(",") if t])
            elif key in ("team", "grappling", "size"):
                self.once(lineno, fields, key, value)
            else:
                raise self.error(
                    lineno, f"unknown creature key {key!r}; expected one of {', '.join(_CREATURE_KEYS)}"
                )
        self.creatures.append((lineno, cid, pos, fields))

    def once(self, lineno: int, fields: dict[str, Any], key: str, value: Any) -> None:
        if key in fields:
            raise self.error(lineno, f"{key} given twice")
        fields[key] = value

    def read_wall(self, lineno: int, kind: str, tokens: list[str]) -> None:
        points = []
        wall: dict[str, Any] = {"kind": kind}
        for token in tokens:
            if "," in token and "=" not in token:
                points.append(self.point(lineno, token, f"points[{len(points)}]"))
            elif kind == "door" and token in ("open", "closed"):
                wall["open"] = token == "open"
            elif kind == "low" and token.partition("=")[0] in ("height", "height_ft") and "=" in token:
                key, _, value = token.partition("=")
                wall["height_ft"] = self.number(lineno, value, key)
            else:
                extra = {"door": " or open/closed", "low": " or height=FT"}.get(kind, "")
                raise self.error(
                    lineno, f"unknown word {token!r} in a {kind} line; expected X,Y points{extra}"
                )
        wall["points"] = points
        self.walls.append((lineno, wall))

    # -- the map
    def build(self) -> BattleMap:
        grid, marks = self.read_grid()
        size = self.header.get("size")
        if grid is None:
            if size is None:
                raise MapError(f"{self.where}: no grid and no size line; the map size is unknown")
            w, h = size[1]
            grid = np.zeros((h, w), dtype=np.uint8)
        h, w = grid.shape
        if size is not None and size[1] != (w, h):
            raise self.error(size[0], f"size {size[1][0]}x{size[1][1]} but the grid is {w}x{h}")
        walls: list[Wall] = [
            _make_wall(wall, w, h, f"{self.where}: line {lineno}") for lineno, wall in self.walls
        ]
        creatures: list[Creature] = []
        labels: list[str] = []
        placed: set[str] = set()
        for lineno, cid, pos, fields in self.creatures:
            mark = marks.get(cid)
            placed.add(cid)
            if mark is not None:
                mark_pos, mark_line, mark_col = mark
                if pos is not None and pos != mark_pos:
                    raise self.error(
                        lineno,
                        f"creature {cid!r} is at {pos[0]},{pos[1]} but its grid letter "
                        f"(line {mark_line}, column {mark_col}) is at {mark_pos[0]},{mark_pos[1]}",
                    )
                pos = mark_pos
            if pos is None:
                raise self.error(
                    lineno, f"creature {cid!r} has no position: give X,Y after the id or a grid letter"
                )
            record = {"id": cid, "x": pos[0], "y": pos[1], **fields}
            creatures.append(_make_creature(record, f"{self.where}: line {lineno}"))
            labels.append(f"line {lineno}")
        for cid, (pos, mark_line, mark_col) in marks.items():
            if cid in placed:
                continue
            creatures.append(Creature(id=cid, x=pos[0], y=pos[1]))
            labels.append(f"line {mark_line}, column {mark_col}")
        image = self.header.get("image")
        if image is not None:
            picture = Path(image[1])
            if self.base_dir is not None and not picture.is_absolute():
                picture = self.base_dir / picture
            image = (picture, picture.suffix.lower().lstrip("."))
        return BattleMap.build(
            w,
            h,
            squares=grid,
            walls=walls,
            creatures=creatures,
            square_ft=self.header.get("square_ft", (0, 5))[1],
            low_height_ft=self.header.get("low_height_ft", (0, 3))[1],
            name=self.header.get("name", (0, None))[1],
            meta=self.header.get("meta", (0, None))[1],
            image=image,
            where=self.where,
            labels=labels,
        )

    def read_grid(self) -> tuple[np.ndarray | None, dict[str, tuple[tuple[int, int], int, int]]]:
        marks: dict[str, tuple[tuple[int, int], int, int]] = {}
        if not self.rows:
            return None, marks
        width = len(self.rows[0][1])
        grid = np.zeros((len(self.rows), width), dtype=np.uint8)
        for r, (lineno, row) in enumerate(self.rows):
            if len(row) != width:
                raise self.error(
                    lineno, f"grid row {r} has {len(row)} squares, the first row has {width}"
                )
            for c, ch in enumerate(row):
                code = _CHARS.get(ch)
                if code is not None:
                    grid[r, c] = code
                elif _MARK.fullmatch(ch):
                    if ch in marks:
                        _, first_line, first_col = marks[ch]
                        raise self.error(
                            lineno,
                            f"creature letter {ch!r} appears twice in the grid "
                            f"(also line {first_line}, column {first_col})",
                            column=c + 1,
                        )
                    marks[ch] = ((c, r), lineno, c + 1)
                else:
                    raise self.error(
                        lineno,
                        f"unknown square code {ch!r} at square ({c}, {r}); expected '.' open, "
                        "'#' solid, '=' low or a creature letter",
                        column=c + 1,
                    )
        return grid, marks


# ------------------------------------------------------------------ writing
def _num(value: float) -> str:
    f = float(value)
    return str(int(f)) if f.is_integer() else repr(f)


def _plain(value: str) -> str:
    """A name or path as written after its keyword (JSON-quoted when needed)."""
    if value and value == value.strip() and value.isprintable() and not value.startswith('"'):
        return value
    return json.dumps(value, ensure_ascii=False)


def _word(value: str, what: str) -> str:
    if "\n" in value or "\r" in value:
        raise MapError(
            f"{what} {value!r} cannot be written in the text format (a line break); "
            "save as JSON instead"
        )
    return shlex.quote(value)


def _creature_line(c: Creature, marked: bool) -> str:
    parts = ["creature", _word(c.id, "creature id")]
    if not marked:
        parts.append(f"{c.x},{c.y}")
    parts.append(c.size)
    if c.team is not None:
        parts.append("team=" + _word(c.team, f"creature {c.id!r}: team"))
    if c.evasion is not None:
        parts.append(f"evasion={c.evasion}")
    if c.height_ft is not None:
        parts.append(f"height_ft={_num(c.height_ft)}")
    if c.traits:
        for trait in c.traits:
            if not trait or "," in trait:
                raise MapError(
                    f"creature {c.id!r}: trait {trait!r} cannot be written in the text "
                    "format (empty or containing a comma); save as JSON instead"
                )
        parts.append("traits=" + _word(",".join(c.traits), f"creature {c.id!r}: traits"))
    if c.grappling is not None:
        parts.append("grappling=" + _word(c.grappling, f"creature {c.id!r}: grappling"))
    parts.extend(flag for flag in _FLAGS if getattr(c, flag))
    return " ".join(parts)


def _wall_line(wall: Wall) -> str:
    parts = [wall.kind] + [f"{_num(x)},{_num(y)}" for x, y in wall.points]
    if wall.kind == "door":
        parts.append("open" if wall.open else "closed")
    if wall.height_ft is not None:
        parts.append(f"height={_num(wall.height_ft)}")
    return " ".join(parts)


def dumps_text(bmap: BattleMap, *, marks: bool = True, image: str | None = None) -> str:
    """The map in the text format.

    With ``marks`` (the default) a creature with a one-letter id whose
    top-left square is open is drawn as that letter in the grid, and its
    ``creature`` line leaves out the position.  ``image`` is the path to
    write for a background picture (by default the map's image path, as is).

    Examples
    --------
    >>> m = BattleMap.build(4, 2, squares=["..#.", "=..."],
    ...     creatures=[{"id": "A", "x": 0, "y": 0, "team": "party"},
    ...                {"id": "rat", "x": 3, "y": 1, "size": "tiny"}],
    ...     walls=[{"kind": "door", "points": [[1, 0], [1, 1]]}])
    >>> print(dumps_text(m))
    # lineoffire text map
    size 4x2
    square_ft 5
    low_height_ft 3
    <BLANKLINE>
    grid
    A.#.
    =...
    <BLANKLINE>
    creature A medium team=party
    creature rat 3,1 tiny
    <BLANKLINE>
    door 1,0 1,1 closed
    <BLANKLINE>
    """
    lines = ["# lineoffire text map"]
    if bmap.name is not None:
        lines.append(f"name {_plain(bmap.name)}")
    lines.append(f"size {bmap.width}x{bmap.height}")
    lines.append(f"square_ft {_num(bmap.square_ft)}")
    lines.append(f"low_height_ft {_num(bmap.low_height_ft)}")
    if image is None and bmap.image is not None:
        picture = bmap.image[0] if isinstance(bmap.image, tuple) else bmap.image
        if isinstance(picture, (str, os.PathLike)):
            image = Path(picture).as_posix()
    if image is not None:
        lines.append(f"image {_plain(image)}")
    if bmap.meta is not None:
        lines.append("meta " + json.dumps(bmap.meta, ensure_ascii=False, allow_nan=False))
    rows = [["." if v == OPEN else "#" if v == SOLID else "=" for v in row] for row in bmap.squares]
    marked: set[str] = set()
    if marks:
        for c in bmap.creatures:
            if _MARK.fullmatch(c.id) and c.id not in marked and rows[c.y][c.x] == ".":
                rows[c.y][c.x] = c.id
                marked.add(c.id)
    lines += ["", "grid"] + ["".join(row) for row in rows]
    if bmap.creatures:
        lines.append("")
        lines += [_creature_line(c, c.id in marked) for c in bmap.creatures]
    if bmap.walls:
        lines.append("")
        lines += [_wall_line(w) for w in bmap.walls]
    return "\n".join(lines) + "\n"


def save_text(bmap: BattleMap, path: Any, *, marks: bool = True) -> None:
    """Write a map as a text file (a picture path relative to the new file)."""
    path = Path(path)
    image = _image_for(bmap, path)
    path.write_text(dumps_text(bmap, marks=marks, image=image), encoding="utf-8")
