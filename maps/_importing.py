"""Small readers shared by the importers of other tools' map files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .model import MapError

__all__ = ["short", "number", "read_json_object"]

#: No number read from another tool's map file may exceed this in size
#: (coordinates in squares or pixels, sizes).
NUMBER_LIMIT = 1e12


def short(value: Any) -> str:
    """``repr(value)``, cut to 40 characters for error messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def number(value: Any, where: str) -> float:
    """A finite JSON number as float; MapError naming ``where`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MapError(f"{where} must be a number, not {type(value).__name__} {short(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise MapError(f"{where} must be a finite number, not {value!r}")
    if abs(v) > NUMBER_LIMIT:
        raise MapError(f"{where} is out of range ({v:g})")
    return v


def read_json_object(source: Any, *, label: str, what: str,
                     hint: str = "") -> tuple[dict, str, str | None]:
    """``(data, where, stem)`` from a path to a JSON object file, or a dict.

    ``label`` names an in-memory dict in messages, ``what`` the kind of map in
    type errors; ``hint`` is added to the message of a JSON syntax error.
    """
    if isinstance(source, dict):
        return source, label, None
    if not isinstance(source, (str, Path)):
        raise TypeError(f"{what} must be a path or a dict, not {type(source).__name__}")
    path = Path(source)
    try:
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise MapError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}){hint}"
        ) from None
    except UnicodeDecodeError as exc:
        raise MapError(f"{path}: not a UTF-8 JSON file ({exc.reason})") from None
    except RecursionError:
        raise MapError(f"{path}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise MapError(f"{path}: the top level must be a JSON object, not {type(data).__name__}")
    return data, str(path), path.stem
