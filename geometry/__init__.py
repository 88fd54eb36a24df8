"""Lines over a battlemap: tracing, line generators and line of effect.

Knows no game rules: it reports what each line passes through.
"""

from __future__ import annotations

from .types import KINDS, Blocker, LineTrace, TraceBatch
from .trace import trace

__all__ = ["KINDS", "Blocker", "LineTrace", "TraceBatch", "trace"]

from .lines import (
    LineMode,
    adjacent,
    centre_line,
    centre_of,
    corner_lines,
    corner_to_corner,
    corners_of,
    extend_to_edge,
    origin_lines,
    square_corners,
    squares_of,
)
from .effect import effect_witness, line_of_effect, line_of_effect_many
from .pieces import (
    creature_piece_distance,
    grid_distance,
    piece_squares,
    point_piece_distance,
    wall_squares,
)

__all__ += [
    "LineMode", "adjacent", "centre_line", "centre_of", "corner_lines", "corner_to_corner",
    "corners_of", "extend_to_edge", "origin_lines", "square_corners", "squares_of",
    "effect_witness", "line_of_effect", "line_of_effect_many",
    "creature_piece_distance", "grid_distance", "piece_squares", "point_piece_distance",
    "wall_squares",
]
