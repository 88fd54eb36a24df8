"""Battlemaps: the model and its file formats.  Knows no geometry."""

from __future__ import annotations

from .model import (
    LOW,
    OPEN,
    SCALE,
    SIZE_HEIGHT_FT,
    SIZE_SPACE,
    SIZES,
    SOLID,
    BattleMap,
    Creature,
    MapError,
    Wall,
    size_index,
    snap,
)
from .io import load_map, save_map, example_path, example_names

__all__ = [
    "LOW",
    "OPEN",
    "SCALE",
    "SIZE_HEIGHT_FT",
    "SIZE_SPACE",
    "SIZES",
    "SOLID",
    "BattleMap",
    "Creature",
    "MapError",
    "Wall",
    "size_index",
    "snap",
    "load_map",
    "save_map",
    "example_path",
    "example_names",
]
