"""Load and save maps in every format the engine reads, chosen by file name or content."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from .model import BattleMap, MapError

__all__ = ["load_map", "save_map", "example_path", "example_names", "FORMATS", "SUFFIXES"]

EXAMPLES = Path(__file__).parent / "examples"

#: format name -> (module, loader function, saver function or None)
FORMATS: dict[str, tuple[str, str, str | None]] = {
    "json": ("lineoffire.maps.jsonfmt", "load_json", "save_json"),
    "text": ("lineoffire.maps.textfmt", "load_text", "save_text"),
    "uvtt": ("lineoffire.maps.uvtt", "load_uvtt", None),
    "foundry": ("lineoffire.maps.foundry", "load_foundry", None),
    "image": ("lineoffire.maps.image", "load_image", None),
}

SUFFIXES = {
    ".json": "json",
    ".txt": "text",
    ".map": "text",
    ".lof": "text",
    ".dd2vtt": "uvtt",
    ".uvtt": "uvtt",
    ".df2vtt": "uvtt",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".webp": "image",
    ".bmp": "image",
}


def _func(fmt: str, which: int):
    module, *names = FORMATS[fmt]
    name = names[which]
    if name is None:
        raise MapError(f"format {fmt!r} can be read but not written")
    return getattr(importlib.import_module(module), name)


def example_names() -> list[str]:
    """Names of the bundled example maps (without extension)."""
    return sorted(p.stem for p in EXAMPLES.glob("*.json"))


def example_path(name: str) -> Path:
    """Path of a bundled example map by name (``"crossroads"``)."""
    p = EXAMPLES / f"{name}.json"
    if not p.is_file():
        raise MapError(
            f"unknown example map {name!r}; the examples are {', '.join(example_names())}"
        )
    return p


def detect_format(path: Path, data: bytes | None = None) -> str:
    """Format of a file: by suffix, and for ``.json`` by content."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise MapError(
            f"{path}: unknown map file type {path.suffix!r}; expected one of "
            f"{', '.join(sorted(SUFFIXES))}"
        )
    if fmt == "json" and data is not None:
        head = data.lstrip()[:1]
        if head == b"{":
            try:
                obj = json.loads(data)
            except (ValueError, UnicodeDecodeError):
                return "json"  # the JSON loader reports the syntax error with its place
            if isinstance(obj, dict):
                if obj.get("format") == "lineoffire-map":
                    return "json"
                if "resolution" in obj and ("line_of_sight" in obj or "portals" in obj):
                    return "uvtt"
                if "walls" in obj and ("grid" in obj or "tokens" in obj or "padding" in obj):
                    return "foundry"
    return fmt


def load_map(source: Any, *, fmt: str | None = None, **options: Any) -> BattleMap:
    """Load a map from a path, a bundled example name, or a JSON-format dict.

    ``fmt`` forces a format (one of :data:`FORMATS`); options go to the loader.
    """
    if isinstance(source, BattleMap):
        return source
    if isinstance(source, dict):
        return _func(fmt or "json", 0)(source, **options)
    if not isinstance(source, (str, Path)):
        raise TypeError(f"map must be a path, an example name or an object, not {type(source).__name__}")
    path = Path(source)
    if not path.exists() and isinstance(source, str) and "/" not in source and "." not in source:
        path = example_path(source)
    if not path.is_file():
        raise MapError(f"{source}: no such map file")
    if fmt is None:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16) if path.suffix.lower() == ".json" else None
        if head is not None and len(head) == 1 << 16:
            head = path.read_bytes()
        fmt = detect_format(path, head)
    if fmt not in FORMATS:
        raise MapError(f"unknown map format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return _func(fmt, 0)(path, **options)


def save_map(bmap: BattleMap, path: Any, *, fmt: str | None = None) -> None:
    """Save a map; the format comes from ``fmt`` or the file suffix (json or text)."""
    path = Path(path)
    fmt = fmt or SUFFIXES.get(path.suffix.lower(), "json")
    _func(fmt, 1)(bmap, path)
