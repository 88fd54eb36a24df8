"""The native JSON map format, version 1 (SPEC section 6).

A map file is one JSON object::

    {"format": "lineoffire-map", "version": 1,
     "name": "Two rooms", "width": 4, "height": 2,
     "square_ft": 5, "low_height_ft": 3,
     "squares": ["..#.", "...="],
     "walls": [{"kind": "door", "points": [[2, 0], [2, 1]], "open": false}],
     "creatures": [{"id": "A", "x": 0, "y": 0, "size": "medium", "team": "party",
                    "evasion": 12}]}

Rules of this module, beyond the SPEC:

- ``"format"`` and ``"version"`` are required in files.  A map object given
  inline in a request (a ``dict``) may leave them out, as the SPEC's own
  request examples do; when present they are checked all the same.
- Unknown fields anywhere are an error naming the file and the key path
  (``creatures[2].sise``), with the nearest known field as a hint.
- Malformed JSON is reported with file, line and column; duplicate keys in one
  object are an error (JSON readers disagree on which one wins).
- ``"name"`` (string), ``"meta"`` (any JSON object, kept as is) and
  ``"image"`` (the path of a background picture, relative to the map file;
  only the renderer uses it, the engine never reads the picture) are optional.
- Writing is lossless: :func:`load_json` of a file written by :func:`save_json`
  gives a map equal to the one written (coordinates are already multiples of
  1/1024, which JSON numbers print exactly).
"""

from __future__ import annotations

import difflib
import json
import math
import os
from pathlib import Path
from typing import Any

from .model import (
    CREATURE_FIELDS,
    SQUARE_CODES,
    WALL_FIELDS,
    BattleMap,
    Creature,
    MapError,
    MapTypeError,
    Wall,
)

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "load_json",
    "save_json",
    "to_json_dict",
    "from_json_dict",
    "dumps_json",
]

FORMAT_NAME = "lineoffire-map"
FORMAT_VERSION = 1

_TOP_FIELDS = (
    "format",
    "version",
    "name",
    "width",
    "height",
    "square_ft",
    "low_height_ft",
    "image",
    "meta",
    "squares",
    "walls",
    "creatures",
)


# ------------------------------------------------------------------ reading
def load_json(
    source: Any,
    *,
    where: str | None = None,
    base_dir: Any = None,
    join_tolerance: Any = None,
) -> BattleMap:
    """Load a map from a JSON file or from an already parsed map object.

    Parameters
    ----------
    source : str, Path or dict
        A file path, or the ``"map"`` object of a request.
    where : str, optional
        How error messages name the source (default: the file name, or
        ``"map"`` for an object).
    base_dir : str or Path, optional
        Directory that a relative ``"image"`` of an inline object is
        relative to (default: the current directory).  For a file it is the
        file's directory.
    join_tolerance : float, optional
        Accepted so that callers can pass one set of options to every
        loader; the native formats are exact and never get joins.

    Returns
    -------
    BattleMap

    Raises
    ------
    MapError
        The file is not valid JSON (with line and column), a field is
        unknown, missing or has a bad value.  Wrong types raise
        :class:`~lineoffire.maps.model.MapTypeError`, a MapError and a
        TypeError at once.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> m = load_json({"width": 3, "height": 1, "squares": [".#="]})
    >>> m.squares.tolist()
    [[0, 1, 2]]
    >>> try:
    ...     load_json({"width": 3, "height": 1,
    ...                "creatures": [{"id": "A", "x": 0, "y": 0, "sise": "tiny"}]})
    ... except MapError as exc:
    ...     print(exc)
    map: unknown field creatures[0].sise; did you mean 'size'?
    """
    if join_tolerance is not None:
        _check_tolerance(join_tolerance)
    if isinstance(source, dict):
        return from_json_dict(
            source,
            where=where or "map",
            require_header=False,
            base_dir=Path(base_dir) if base_dir is not None else None,
        )
    if not isinstance(source, (str, os.PathLike)):
        raise MapTypeError(
            f"a JSON map must be a path or an object, not {type(source).__name__}"
        )
    path = Path(source)
    name = where or str(path)
    data = path.read_bytes()
    obj = _parse(data, name)
    return from_json_dict(obj, where=name, require_header=True, base_dir=path.parent)


def from_json_dict(
    obj: Any,
    *,
    where: str = "map",
    require_header: bool = False,
    base_dir: Path | None = None,
) -> BattleMap:
    """Build a map from a parsed JSON map object.

    ``require_header`` demands ``"format"`` and ``"version"`` (files do,
    inline request objects need not).  A relative ``"image"`` is resolved
    against ``base_dir`` (default: kept relative, i.e. the current directory).

    Examples
    --------
    >>> m = from_json_dict({"width": 2, "height": 1,
    ...                     "creatures": [{"id": "A", "x": 1, "y": 0}]})
    >>> m.creature("A").rect
    (1, 0, 2, 1)
    """
    if not isinstance(obj, dict):
        raise MapTypeError(f"{where}: a map must be a JSON object, not {_json_type(obj)}")
    _check_fields(obj, _TOP_FIELDS, where, "")
    _check_header(obj, where, require_header)
    for key in ("width", "height"):
        if key not in obj:
            raise MapError(f"{where}: missing field {key!r}")
    walls = obj.get("walls", [])
    creatures = obj.get("creatures", [])
    for key, value in (("walls", walls), ("creatures", creatures)):
        if not isinstance(value, list):
            raise MapTypeError(f"{where}: {key} must be a list, not {_json_type(value)}")
    for i, wall in enumerate(walls):
        if isinstance(wall, dict):
            _check_fields(wall, WALL_FIELDS, where, f"walls[{i}].")
    for i, creature in enumerate(creatures):
        if isinstance(creature, dict):
            _check_fields(creature, CREATURE_FIELDS, where, f"creatures[{i}].")
    image = obj.get("image")
    if image is not None:
        if not isinstance(image, str):
            raise MapTypeError(f"{where}: image must be a path string, not {_json_type(image)}")
        picture = Path(image)
        if base_dir is not None and not picture.is_absolute():
            picture = base_dir / picture
        image = (picture, picture.suffix.lower().lstrip("."))
    return BattleMap.build(
        obj["width"],
        obj["height"],
        squares=obj.get("squares"),
        walls=walls,
        creatures=creatures,
        square_ft=obj.get("square_ft", 5),
        low_height_ft=obj.get("low_height_ft", 3),
        name=obj.get("name"),
        meta=obj.get("meta"),
        image=image,
        where=where,
    )


def _parse(data: bytes, name: str) -> Any:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MapError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise MapError(
            f"{name}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"
        ) from None
    except _DuplicateKey as exc:
        raise MapError(f"{name}: duplicate key {exc.args[0]!r} in one JSON object") from None
    except RecursionError:
        raise MapError(f"{name}: invalid JSON: nested too deeply") from None


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _check_header(obj: dict, where: str, required: bool) -> None:
    if "format" in obj or required:
        fmt = obj.get("format")
        if fmt is None:
            raise MapError(f'{where}: missing field "format": "{FORMAT_NAME}"')
        if fmt != FORMAT_NAME:
            raise MapError(f"{where}: format is {fmt!r}, expected {FORMAT_NAME!r}")
    if "version" in obj or required:
        version = obj.get("version")
        if version is None:
            raise MapError(f'{where}: missing field "version": {FORMAT_VERSION}')
        if isinstance(version, bool) or not isinstance(version, int):
            raise MapTypeError(f"{where}: version must be an integer, not {version!r}")
        if version != FORMAT_VERSION:
            raise MapError(
                f"{where}: unsupported map version {version}; this engine reads "
                f"version {FORMAT_VERSION}"
            )


def _check_fields(obj: dict, known: tuple[str, ...], where: str, prefix: str) -> None:
    unknown = [key for key in obj if key not in known]
    if not unknown:
        return
    key = unknown[0]
    hint = difflib.get_close_matches(str(key), known, n=1)
    more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
    why = f"did you mean {hint[0]!r}?" if hint else f"expected one of {', '.join(known)}"
    raise MapError(f"{where}: unknown field {prefix}{key}{more}; {why}")


def _check_tolerance(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MapTypeError(f"join_tolerance must be a number, not {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise MapError(f"join_tolerance must be a finite number >= 0, not {value!r}")


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for kind, label in names.items():
        if isinstance(value, kind):
            return label
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    return type(value).__name__


# ------------------------------------------------------------------ writing
def _number(v: float) -> int | float:
    """A coordinate as JSON prints it best: ``5`` rather than ``5.0``."""
    f = float(v)
    return int(f) if f.is_integer() else f


def _wall_dict(wall: Wall) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": wall.kind,
        "points": [[_number(x), _number(y)] for x, y in wall.points],
    }
    if wall.kind == "door":
        out["open"] = wall.open
    if wall.height_ft is not None:
        out["height_ft"] = _number(wall.height_ft)
    return out


def _creature_dict(c: Creature) -> dict[str, Any]:
    out: dict[str, Any] = {"id": c.id, "x": c.x, "y": c.y, "size": c.size}
    if c.team is not None:
        out["team"] = c.team
    if c.evasion is not None:
        out["evasion"] = c.evasion
    if c.height_ft is not None:
        out["height_ft"] = _number(c.height_ft)
    if c.traits:
        out["traits"] = list(c.traits)
    for flag in ("taken_cover", "prone", "dead"):
        if getattr(c, flag):
            out[flag] = True
    if c.grappling is not None:
        out["grappling"] = c.grappling
    return out


def to_json_dict(bmap: BattleMap, *, image: str | None = None) -> dict[str, Any]:
    """The JSON object of a map (version 1), with the header.

    ``image`` is the ``"image"`` field to write (a path relative to the file
    that will hold the object); by default a map's image is written only when
    it is a path, as given.  Defaults (``open: false`` on walls, empty traits,
    false flags, absent team) are left out, except ``open`` on doors.

    Examples
    --------
    >>> m = BattleMap.build(2, 1, squares=["#."], walls=[
    ...     {"kind": "low", "points": [[0, 1], [2, 0.5]], "height_ft": 2}])
    >>> d = to_json_dict(m)
    >>> d["squares"], d["walls"]
    (['#.'], [{'kind': 'low', 'points': [[0, 1], [2, 0.5]], 'height_ft': 2}])
    """
    out: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION}
    if bmap.name is not None:
        out["name"] = bmap.name
    out["width"] = bmap.width
    out["height"] = bmap.height
    out["square_ft"] = _number(bmap.square_ft)
    out["low_height_ft"] = _number(bmap.low_height_ft)
    if image is None and bmap.image is not None:
        picture = bmap.image[0] if isinstance(bmap.image, tuple) else bmap.image
        if isinstance(picture, (str, os.PathLike)):
            image = Path(picture).as_posix()
    if image is not None:
        out["image"] = image
    if bmap.meta is not None:
        out["meta"] = bmap.meta
    chars = {code: ch for ch, code in SQUARE_CODES.items()}
    out["squares"] = ["".join(chars[int(v)] for v in row) for row in bmap.squares]
    out["walls"] = [_wall_dict(w) for w in bmap.walls]
    out["creatures"] = [_creature_dict(c) for c in bmap.creatures]
    return out


def dumps_json(bmap: BattleMap, *, image: str | None = None) -> str:
    """The map as JSON text: one square row, wall or creature per line."""
    obj = to_json_dict(bmap, image=image)

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    lines = ["{"]
    keys = list(obj)
    for n, key in enumerate(keys):
        value = obj[key]
        comma = "," if n < len(keys) - 1 else ""
        if key in ("squares", "walls", "creatures") and value:
            lines.append(f"  {one(key)}: [")
            for i, item in enumerate(value):
                lines.append(f"    {one(item)}{',' if i < len(value) - 1 else ''}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {one(key)}: {one(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_json(bmap: BattleMap, path: Any) -> None:
    """Write a map as a version-1 JSON file.

    A background picture given as a path is written relative to the new
    file's directory; one held as bytes, or as a function returning them (an
    imported VTT file's picture), is written beside the map as
    ``<stem>.<ext>`` and referred to by that name.
    """
    path = Path(path)
    image = _image_for(bmap, path)
    path.write_text(dumps_json(bmap, image=image), encoding="utf-8")


def _image_for(bmap: BattleMap, path: Path) -> str | None:
    """The ``image`` field for a map saved at ``path`` (writing a sidecar if needed)."""
    if bmap.image is None:
        return None
    picture, ext = bmap.image if isinstance(bmap.image, tuple) else (bmap.image, None)
    if callable(picture):  # an importer's lazy decoder
        picture = picture()
    if isinstance(picture, (bytes, bytearray)):
        sidecar = path.with_suffix("." + str(ext or "png").lstrip("."))
        sidecar.write_bytes(bytes(picture))
        return sidecar.name
    if isinstance(picture, (str, os.PathLike)):
        picture = Path(picture)
        if picture.is_absolute() or picture.exists():
            try:
                return Path(os.path.relpath(picture.resolve(), path.parent.resolve())).as_posix()
            except ValueError:  # another drive on Windows
                return picture.resolve().as_posix()
        return picture.as_posix()
    return None
