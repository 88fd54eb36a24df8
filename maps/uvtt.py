"""Universal VTT maps (``.dd2vtt``, ``.uvtt``, ``.df2vtt``).

The format is JSON exported by Dungeondraft, DungeonFog and others.  Points are
``{"x": .., "y": ..}`` in squares of the editor's grid, y down; the exported
picture covers ``resolution.map_size`` squares starting at
``resolution.map_origin``.  What is read:

- ``line_of_sight``: polylines of walls;
- ``objects_line_of_sight`` (format 0.3 and later): outlines of objects, walls
  by default (option ``objects``: ``"block"``, ``"low"`` makes them low walls,
  ``"ignore"`` drops them);
- ``portals``: each portal's ``bounds`` becomes a door segment, which closes the
  gap the editor leaves in the wall.  ``closed: true`` is a closed door.
  ``closed: false`` is what Dungeondraft writes for windows; by default it is
  an *open door* (ignored by tracing, but it can be closed later); option
  ``windows`` makes it a ``"slit"``, a ``"low"`` wall, a ``"wall"``, or
  ``"ignore"`` drops it.

Coordinates are shifted by ``-map_origin``, snapped to 1/1024 square, clipped
to the map rectangle (a cropped export keeps walls outside the picture; what
lies wholly outside is dropped), and short gaps at free wall ends are joined
(SPEC section 2; see :mod:`lineoffire.maps._joins`).  The base64 ``image`` is
never decoded while loading; with ``image=True`` it is kept for rendering as
``bmap.image = (decode, extension)`` where ``decode()`` returns the bytes.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Callable

from ._joins import RawWall, finish_walls
from ._importing import number, read_json_object, short
from .model import BattleMap, MapError

__all__ = ["load_uvtt", "OBJECT_MODES", "WINDOW_MODES"]

#: Choices of the ``objects`` option.
OBJECT_MODES: tuple[str, ...] = ("block", "low", "ignore")
#: Choices of the ``windows`` option (portals with ``closed: false``).
WINDOW_MODES: tuple[str, ...] = ("open", "slit", "low", "wall", "ignore")

_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG", 0, "png"),
    (b"\xff\xd8\xff", 0, "jpg"),
    (b"WEBP", 8, "webp"),
    (b"GIF8", 0, "gif"),
    (b"BM", 0, "bmp"),
)


def _point(value: Any, where: str) -> tuple[float, float]:
    if isinstance(value, dict):
        for key in ("x", "y"):
            if key not in value:
                raise MapError(f"{where}.{key} is missing")
        return number(value["x"], f"{where}.x"), number(value["y"], f"{where}.y")
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return number(value[0], f"{where}[0]"), number(value[1], f"{where}[1]")
    raise MapError(f"{where} must be a point {{\"x\": .., \"y\": ..}}, not {short(value)}")


def _polylines(data: dict, key: str, where: str) -> list[list[tuple[float, float]]]:
    value = data.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise MapError(f"{where}: {key} must be a list of polylines, not {type(value).__name__}")
    out = []
    for i, line in enumerate(value):
        here = f"{where}: {key}[{i}]"
        if not isinstance(line, list):
            raise MapError(f"{here} must be a list of points, not {type(line).__name__}")
        if len(line) < 2:
            raise MapError(f"{here} has {len(line)} point(s); a wall needs at least 2")
        out.append([_point(p, f"{here}[{j}]") for j, p in enumerate(line)])
    return out


def _choice(value: Any, choices: tuple[str, ...], name: str) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")
    return value


def _image_extension(encoded: str) -> str:
    head = base64.b64decode(encoded[:24] + "=" * (-len(encoded[:24]) % 4), validate=False)
    for magic, offset, ext in _MAGIC:
        if head[offset:offset + len(magic)] == magic:
            return ext
    return "png"


def _lazy_image(encoded: str) -> tuple[Callable[[], bytes], str]:
    def decode() -> bytes:
        return base64.b64decode(encoded)

    return decode, _image_extension(encoded)


def _read(source: Any) -> tuple[dict, str, str | None]:
    return read_json_object(source, label="uvtt", what="a Universal VTT map",
                            hint="; is the file truncated?")


def load_uvtt(
    source: Any,
    *,
    objects: str = "block",
    windows: str = "open",
    join_tolerance: float = 0.05,
    image: bool = False,
    square_ft: float = 5,
    low_height_ft: float = 3,
    name: str | None = None,
) -> BattleMap:
    """Load a Universal VTT map (``.dd2vtt``, ``.uvtt``, ``.df2vtt``).

    Parameters
    ----------
    source : str, Path or dict
        A file path or the already parsed JSON object.
    objects : {"block", "low", "ignore"}
        What ``objects_line_of_sight`` outlines become: walls, low walls, or
        nothing.
    windows : {"open", "slit", "low", "wall", "ignore"}
        What a portal with ``closed: false`` becomes; ``"open"`` is an open
        door.  Portals with ``closed: true`` are always closed doors.
    join_tolerance : float
        Gaps at free wall ends up to this many squares are closed (SPEC
        section 2); 0 turns joining off.  The count is ``bmap.joins_added``.
    image : bool
        Keep the embedded picture as ``bmap.image = (decode, extension)``;
        ``decode()`` returns the bytes.  Nothing is decoded while loading.
    square_ft, low_height_ft : float
        As in the JSON format.
    name : str, optional
        The map's name (default: the file name without extension).

    Raises
    ------
    MapError
        Naming the file and the field, e.g. ``line_of_sight[3][0].x``.

    Examples
    --------
    >>> m = load_uvtt({"format": 0.3,
    ...     "resolution": {"map_origin": {"x": 1, "y": 0}, "map_size": {"x": 4, "y": 2}},
    ...     "line_of_sight": [[{"x": 3, "y": 0}, {"x": 3, "y": 0.75}],
    ...                       [{"x": 3, "y": 1.25}, {"x": 3, "y": 2}]],
    ...     "portals": [{"bounds": [{"x": 3, "y": 0.75}, {"x": 3, "y": 1.25}],
    ...                  "closed": True}]})
    >>> [(w.kind, w.points) for w in m.walls]
    [('wall', ((2.0, 0.0), (2.0, 0.75))), ('wall', ((2.0, 1.25), (2.0, 2.0))), ('door', ((2.0, 0.75), (2.0, 1.25)))]
    """
    objects = _choice(objects, OBJECT_MODES, "objects")
    windows = _choice(windows, WINDOW_MODES, "windows")
    if not isinstance(image, bool):
        raise TypeError(f"image must be True or False, not {image!r}")
    data, where, stem = _read(source)

    fmt = data.get("format")
    if fmt is not None:
        if isinstance(fmt, bool) or not isinstance(fmt, (int, float, str)):
            raise MapError(f"{where}: format must be a number or a string, not {short(fmt)}")
        if isinstance(fmt, str):
            try:
                float(fmt)
            except ValueError:
                raise MapError(f"{where}: format must be a version number, not {fmt!r}") from None

    if "resolution" not in data:
        raise MapError(f"{where}: resolution is missing (map_size and map_origin)")
    res = data["resolution"]
    if not isinstance(res, dict):
        raise MapError(f"{where}: resolution must be an object, not {short(res)}")
    if "map_size" not in res:
        raise MapError(f"{where}: resolution.map_size is missing")
    size_x, size_y = _point(res["map_size"], f"{where}: resolution.map_size")
    for value, axis in ((size_x, "x"), (size_y, "y")):
        if value <= 0:
            raise MapError(f"{where}: resolution.map_size.{axis} must be positive, not {value:g}")
    origin = res.get("map_origin", {"x": 0, "y": 0})
    ox, oy = _point(origin, f"{where}: resolution.map_origin")
    ppg = res.get("pixels_per_grid")
    if ppg is not None:
        ppg = number(ppg, f"{where}: resolution.pixels_per_grid")
    width = max(1, math.ceil(round(size_x * 1024) / 1024))
    height = max(1, math.ceil(round(size_y * 1024) / 1024))

    def shift(line: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x - ox, y - oy) for x, y in line]

    raw: list[RawWall] = []
    for line in _polylines(data, "line_of_sight", where):
        raw.append(RawWall("wall", shift(line)))
    object_lines = _polylines(data, "objects_line_of_sight", where)
    if objects != "ignore":
        kind = "wall" if objects == "block" else "low"
        for line in object_lines:
            raw.append(RawWall(kind, shift(line)))

    portals = data.get("portals", [])
    if portals is None:
        portals = []
    if not isinstance(portals, list):
        raise MapError(f"{where}: portals must be a list, not {type(portals).__name__}")
    for i, portal in enumerate(portals):
        here = f"{where}: portals[{i}]"
        if not isinstance(portal, dict):
            raise MapError(f"{here} must be an object, not {short(portal)}")
        if "bounds" not in portal:
            raise MapError(f"{here}.bounds is missing")
        bounds = portal["bounds"]
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise MapError(f"{here}.bounds must be a list of 2 points, not {short(bounds)}")
        seg = [_point(p, f"{here}.bounds[{j}]") for j, p in enumerate(bounds)]
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            raise MapError(f"{here}.closed must be true or false, not {short(closed)}")
        if closed:
            raw.append(RawWall("door", shift(seg)))
        elif windows == "open":
            raw.append(RawWall("door", shift(seg), open=True))
        elif windows != "ignore":
            raw.append(RawWall(windows, shift(seg)))

    walls, joins = finish_walls(raw, width=width, height=height, join_tolerance=join_tolerance)

    picture = None
    if image:
        encoded = data.get("image")
        if encoded is not None:
            if not isinstance(encoded, str):
                raise MapError(f"{where}: image must be a base64 string, not {type(encoded).__name__}")
            picture = _lazy_image(encoded)

    meta = {
        "source": "uvtt",
        "format": fmt,
        "map_origin": [ox, oy],
        "map_size": [size_x, size_y],
    }
    if ppg is not None:
        meta["pixels_per_grid"] = ppg
    return BattleMap.build(
        width,
        height,
        walls=walls,
        square_ft=square_ft,
        low_height_ft=low_height_ft,
        name=name if name is not None else stem,
        meta=meta,
        image=picture,
        joins_added=joins,
        where=where,
    )
