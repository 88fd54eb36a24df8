"""Foundry VTT scenes (exported scene JSON, v9 and v10+ layouts).

Foundry stores a scene on a *canvas* of pixels: the scene rectangle,
``width`` x ``height`` pixels, padded on every side by a whole number of grid
squares.  The padding is ``ceil(padding * width / grid) * grid`` pixels left
and right, and ``ceil(padding * height / grid) * grid`` above and below in
v10+; the v9 layout pads by the width-based amount on all four sides.  Walls
(``c: [x0, y0, x1, y1]``) and tokens (``x``, ``y``: top-left corner) are in
canvas pixels; this module converts them once to squares: ``(px - pad) /
grid``.

Layouts, told apart by ``grid``: v9 has ``grid`` (pixels per square),
``gridType``, ``gridDistance``, ``gridUnits`` and walls with ``sense``; v10+
has ``grid: {"size", "type", "distance", "units"}`` and walls with ``sight``
and ``move``.  A wall's sight value decides what it is:

============  =====  ======  =====================================
sight         v9     v10+    becomes
============  =====  ======  =====================================
NONE          0      0       nothing (it does not block sight)
NORMAL        1      20      wall, or a door (``door`` 1 or 2)
LIMITED       2      10      low wall (option ``limited``)
PROXIMITY     -      30      wall / door (one-way distance rules
DISTANCE      -      40      are not modelled)
============  =====  ======  =====================================

Doors: ``door`` 0 none, 1 door, 2 secret door; ``ds`` 0 closed, 1 open,
2 locked (closed).  One-way walls (``dir``) block both ways.

Tokens become creatures: ``width`` (grid units; the larger of width and
height) gives the size, 0.5 or less tiny, 1 medium, 2 large, 3 huge,
4 gargantuan, 6 colossal; the id is the token's ``name``, made unique with
its ``_id`` when names repeat; ``disposition`` -1/0/1 (-2 secret) gives the
team ``"hostile"``, ``"neutral"``, ``"friendly"`` (``"secret"``).  Token
positions are rounded to whole squares.  Tokens parked outside the scene
rectangle are skipped and listed in ``bmap.meta["tokens_outside"]`` (option
``tokens_outside="error"`` refuses them instead).
"""

from __future__ import annotations

import math
from typing import Any

from ._joins import RawWall, finish_walls
from ._importing import number, read_json_object, short
from .model import RESERVED_IDS, BattleMap, Creature, MapError

__all__ = ["load_foundry", "LIMITED_MODES", "TOKEN_SIZES", "TEAMS"]

#: Choices of the ``limited`` option (walls with limited sight).
LIMITED_MODES: tuple[str, ...] = ("low", "wall", "ignore")
#: Token width in grid units -> size name.
TOKEN_SIZES: dict[float, str] = {
    0.5: "tiny",
    1: "medium",
    2: "large",
    3: "huge",
    4: "gargantuan",
    6: "colossal",
}
#: Token disposition -> team.
TEAMS: dict[int, str] = {-2: "secret", -1: "hostile", 0: "neutral", 1: "friendly"}

# Sight values: field -> {value: "none" | "block" | "limited"}.
_SIGHT = {
    "sense": {0: "none", 1: "block", 2: "limited"},
    "sight": {0: "none", 10: "limited", 20: "block", 30: "block", 40: "block"},
}
_FEET_UNITS = {"ft", "ft.", "feet", "foot"}


def _positive(value: Any, where: str) -> float:
    v = number(value, where)
    if v <= 0:
        raise MapError(f"{where} must be positive, not {value!r}")
    return v


def _code(value: Any, allowed: dict, where: str) -> Any:
    if isinstance(value, bool) or value not in allowed:
        choices = ", ".join(str(k) for k in allowed)
        raise MapError(f"{where} must be one of {choices}, not {short(value)}")
    return allowed[value]


def _read(source: Any) -> tuple[dict, str, str | None]:
    return read_json_object(source, label="foundry scene", what="a Foundry scene")


def _grid(data: dict, where: str) -> tuple[str, float, Any, Any, Any]:
    """(layout, size in pixels, type, distance, units) of the scene grid."""
    if "grid" not in data:
        raise MapError(f"{where}: grid is missing")
    grid = data["grid"]
    if isinstance(grid, dict):
        if "size" not in grid:
            raise MapError(f"{where}: grid.size is missing")
        size = _positive(grid["size"], f"{where}: grid.size")
        return "v10+", size, grid.get("type"), grid.get("distance"), grid.get("units")
    size = _positive(grid, f"{where}: grid")
    return "v9", size, data.get("gridType"), data.get("gridDistance"), data.get("gridUnits")


def _list(data: dict, key: str, where: str) -> list:
    value = data.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise MapError(f"{where}: {key} must be a list, not {type(value).__name__}")
    return value


def load_foundry(
    source: Any,
    *,
    limited: str = "low",
    tokens: bool = True,
    tokens_outside: str = "skip",
    join_tolerance: float = 0.05,
    square_ft: float | None = None,
    low_height_ft: float = 3,
    name: str | None = None,
) -> BattleMap:
    """Load a Foundry VTT scene exported as JSON (v9 or v10+ layout).

    Parameters
    ----------
    source : str, Path or dict
        A file path or the parsed scene object.
    limited : {"low", "wall", "ignore"}
        What walls with limited sight become.
    tokens : bool
        Import tokens as creatures.
    tokens_outside : {"skip", "error"}
        Tokens outside the scene rectangle: skipped (listed in
        ``bmap.meta["tokens_outside"]``) or refused.
    join_tolerance : float
        Gaps at free wall ends up to this many squares are closed (SPEC
        section 2); the count is ``bmap.joins_added``.
    square_ft : float, optional
        Feet per square; default: the scene's grid distance when its units
        are feet, else 5.
    low_height_ft : float
        Height of low walls.
    name : str, optional
        Default: the scene's ``name``, else the file name.

    Raises
    ------
    MapError
        Naming the file and the field, e.g. ``walls[2].c``.

    Examples
    --------
    >>> scene = {"name": "Hall", "width": 400, "height": 200, "padding": 0,
    ...          "grid": {"size": 100, "type": 1},
    ...          "walls": [{"c": [200, 0, 200, 200], "sight": 20, "door": 1, "ds": 0}],
    ...          "tokens": [{"name": "Orc", "x": 300, "y": 100, "width": 1, "height": 1,
    ...                      "disposition": -1}]}
    >>> m = load_foundry(scene)
    >>> m.width, m.height, [(w.kind, w.points, w.open) for w in m.walls]
    (4, 2, [('door', ((2.0, 0.0), (2.0, 2.0)), False)])
    >>> m.creatures[0].id, m.creatures[0].x, m.creatures[0].y, m.creatures[0].team
    ('Orc', 3, 1, 'hostile')
    """
    if limited not in LIMITED_MODES:
        raise ValueError(f"limited must be one of {', '.join(map(repr, LIMITED_MODES))}, not {limited!r}")
    if tokens_outside not in ("skip", "error"):
        raise ValueError(f"tokens_outside must be 'skip' or 'error', not {tokens_outside!r}")
    data, where, stem = _read(source)

    layout, grid, grid_type, distance, units = _grid(data, where)
    type_field = "grid.type" if layout == "v10+" else "gridType"
    if grid_type is not None and (isinstance(grid_type, bool) or grid_type != 1):
        raise MapError(
            f"{where}: {type_field} is {short(grid_type)}; only square grids (1) are supported"
        )
    for key in ("width", "height"):
        if key not in data:
            raise MapError(f"{where}: {key} is missing (scene size in pixels)")
    width_px = _positive(data["width"], f"{where}: width")
    height_px = _positive(data["height"], f"{where}: height")
    padding = data.get("padding", 0.25)
    padding = 0.0 if padding is None else number(padding, f"{where}: padding")
    if not 0 <= padding <= 5:
        raise MapError(f"{where}: padding must be a fraction between 0 and 5, not {padding!r}")
    pad_x = math.ceil(padding * width_px * (1 / grid)) * grid
    pad_y = pad_x if layout == "v9" else math.ceil(padding * height_px * (1 / grid)) * grid
    width = max(1, math.ceil(round(width_px / grid * 1024) / 1024))
    height = max(1, math.ceil(round(height_px / grid * 1024) / 1024))

    if square_ft is None:
        square_ft = 5.0
        if isinstance(units, str) and units.strip().lower() in _FEET_UNITS and distance is not None:
            dist_field = "grid.distance" if layout == "v10+" else "gridDistance"
            square_ft = _positive(distance, f"{where}: {dist_field}")

    def to_squares(px: float, py: float) -> tuple[float, float]:
        return ((px - pad_x) / grid, (py - pad_y) / grid)

    raw: list[RawWall] = []
    for i, wall in enumerate(_list(data, "walls", where)):
        here = f"{where}: walls[{i}]"
        if not isinstance(wall, dict):
            raise MapError(f"{here} must be an object, not {short(wall)}")
        if "c" not in wall:
            raise MapError(f"{here}.c is missing")
        c = wall["c"]
        if not isinstance(c, list) or len(c) != 4:
            raise MapError(f"{here}.c must be [x0, y0, x1, y1], not {short(c)}")
        x0, y0, x1, y1 = (number(v, f"{here}.c[{j}]") for j, v in enumerate(c))
        field = "sight" if "sight" in wall else "sense" if "sense" in wall else None
        if field is None:
            blocks = "block"
        else:
            blocks = _code(wall[field], _SIGHT[field], f"{here}.{field}")
        door = _code(wall.get("door", 0), {0: 0, 1: 1, 2: 2}, f"{here}.door")
        is_open = _code(wall.get("ds", 0), {0: False, 1: True, 2: False}, f"{here}.ds")
        if blocks == "limited":
            blocks = {"low": "low", "wall": "block", "ignore": "none"}[limited]
        if blocks == "none":
            continue
        points = [to_squares(x0, y0), to_squares(x1, y1)]
        if blocks == "low":
            if not (door and is_open):
                raw.append(RawWall("low", points))
        elif door:
            raw.append(RawWall("door", points, open=is_open))
        else:
            raw.append(RawWall("wall", points))

    walls, joins = finish_walls(raw, width=width, height=height, join_tolerance=join_tolerance)

    creatures: list[Creature] = []
    outside: list[str] = []
    if tokens:
        creatures, outside = _tokens(
            _list(data, "tokens", where), where, grid, pad_x, pad_y, width, height, tokens_outside
        )

    scene_name = data.get("name")
    if name is None:
        name = scene_name if isinstance(scene_name, str) else stem
    meta: dict[str, Any] = {
        "source": "foundry",
        "layout": layout,
        "grid_px": grid,
        "padding_px": [pad_x, pad_y],
    }
    if outside:
        meta["tokens_outside"] = outside
    return BattleMap.build(
        width,
        height,
        walls=walls,
        creatures=creatures,
        square_ft=square_ft,
        low_height_ft=low_height_ft,
        name=name,
        meta=meta,
        joins_added=joins,
        where=where,
    )


def _token_size(token: dict, here: str) -> str:
    dims = []
    for key in ("width", "height"):
        dims.append(_positive(token.get(key, 1), f"{here}.{key}"))
    span = max(dims)
    if span <= 0.5:
        return "tiny"
    size = TOKEN_SIZES.get(span)
    if size is None:
        sizes = ", ".join(f"{k:g} {v}" for k, v in TOKEN_SIZES.items())
        raise MapError(f"{here}.width: no creature size spans {span:g} squares; expected {sizes}")
    return size


def _tokens(
    items: list,
    where: str,
    grid: float,
    pad_x: float,
    pad_y: float,
    width: int,
    height: int,
    tokens_outside: str,
) -> tuple[list[Creature], list[str]]:
    parsed = []
    for i, token in enumerate(items):
        here = f"{where}: tokens[{i}]"
        if not isinstance(token, dict):
            raise MapError(f"{here} must be an object, not {short(token)}")
        for key in ("x", "y"):
            if key not in token:
                raise MapError(f"{here}.{key} is missing")
        px = number(token["x"], f"{here}.x")
        py = number(token["y"], f"{here}.y")
        size = _token_size(token, here)
        name = token.get("name")
        if name is not None and not isinstance(name, str):
            raise MapError(f"{here}.name must be a string, not {short(name)}")
        tid = token.get("_id")
        if tid is not None and not isinstance(tid, str):
            raise MapError(f"{here}._id must be a string, not {short(tid)}")
        disp = token.get("disposition")
        team = None if disp is None else _code(disp, TEAMS, f"{here}.disposition")
        x = round((px - pad_x) / grid)
        y = round((py - pad_y) / grid)
        parsed.append((here, name or None, tid or None, x, y, size, team))

    counts: dict[str, int] = {}
    for _, name, _, _, _, _, _ in parsed:
        if name:
            counts[name] = counts.get(name, 0) + 1
    creatures: list[Creature] = []
    outside: list[str] = []
    used: set[str] = set()
    for i, (here, name, tid, x, y, size, team) in enumerate(parsed):
        if name and counts[name] == 1 and name not in RESERVED_IDS:
            cid = name
        elif name and tid:
            cid = f"{name} ({tid})"
        else:
            cid = name or tid or f"token{i}"
        base, k = cid, 2
        while cid in used or cid in RESERVED_IDS:
            cid = f"{base} #{k}"
            k += 1
        used.add(cid)
        c = Creature(id=cid, x=x, y=y, size=size, team=team)
        x0, y0, x1, y1 = c.rect
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            if tokens_outside == "error":
                raise MapError(
                    f"{here} ({cid!r}) at square ({x}, {y}) lies outside the "
                    f"{width}x{height} scene"
                )
            outside.append(cid)
            continue
        creatures.append(c)
    return creatures, outside
