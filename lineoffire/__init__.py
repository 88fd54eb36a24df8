"""lineoffire: exact, vectorised line-of-fire and cover for square-grid battlemaps.

The public Python API.  Points are ``(x, y)`` in squares (x right, y down);
arrays are indexed ``[row, col]``.
"""

from __future__ import annotations

from lineoffire.errors import MapError, RequestError
from lineoffire.geometry import Blocker, LineTrace, TraceBatch, trace
from lineoffire.maps import BattleMap, Creature, Wall, load_map, save_map
from lineoffire.api import cover, cover_matrix, line_of_effect, shots

__version__ = "0.1.0"

__all__ = [
    "BattleMap",
    "Blocker",
    "Creature",
    "LineTrace",
    "MapError",
    "RequestError",
    "TraceBatch",
    "Wall",
    "cover",
    "cover_matrix",
    "line_of_effect",
    "load_map",
    "save_map",
    "shots",
    "trace",
]
