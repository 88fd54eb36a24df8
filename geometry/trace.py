"""Trace many lines across a battlemap at once (SPEC section 3).

The public function :func:`trace` validates its input and calls the private
vectorised kernel in :mod:`lineoffire.geometry._kernel`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from lineoffire.maps.model import SCALE, BattleMap, MapError

from .types import TraceBatch

__all__ = ["trace", "as_segments", "as_point", "creature_indices"]


def as_segments(segments: Any, bmap: BattleMap, where: str = "segments") -> np.ndarray:
    """Validate segments ``[[x0, y0, x1, y1], ...]`` and return them in integer units.

    The result is an ``(N, 4)`` int64 array of coordinates times 1024 (each
    value snapped to the nearest 1/1024 square first).  Every point must lie
    within ``[0, width] x [0, height]``.
    """
    try:
        arr = np.asarray(segments, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where} must be a list of [x0, y0, x1, y1] numbers") from None
    if arr.ndim == 1 and arr.shape[0] == 4:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise MapError(f"{where} must have shape (N, 4), not {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise MapError(f"{where}[{i}][{j}] must be finite, not {float(arr[i, j])!r}")
    units = np.rint(arr * SCALE).astype(np.int64)
    limits = np.array([bmap.width, bmap.height, bmap.width, bmap.height], dtype=np.int64) * SCALE
    out = (units < 0) | (units > limits)
    if out.any():
        i, j = np.argwhere(out)[0]
        raise MapError(
            f"{where}[{i}] point ({arr[i, j - j % 2]:g}, {arr[i, j - j % 2 + 1]:g}) lies "
            f"outside the {bmap.width}x{bmap.height} map"
        )
    return units


def as_point(point: Any, bmap: BattleMap, name: str = "point") -> tuple[int, int]:
    """Validate a point ``(x, y)`` on the map; return it in integer units (1/1024).

    TypeError if it is not a pair of numbers, ValueError if not finite,
    MapError naming it if it lies off the map.
    """
    try:
        p = np.asarray(point, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a point (x, y), not {point!r}") from None
    if p.shape != (2,) or not np.isfinite(p).all():
        raise ValueError(f"{name} must be a finite point (x, y), not {point!r}")
    u = np.rint(p * SCALE).astype(np.int64)
    if (u < 0).any() or u[0] > bmap.width * SCALE or u[1] > bmap.height * SCALE:
        raise MapError(f"{name} ({p[0]:g}, {p[1]:g}) lies outside the "
                       f"{bmap.width}x{bmap.height} map")
    return int(u[0]), int(u[1])


def creature_indices(bmap: BattleMap, ids: Any, n: int, where: str) -> np.ndarray:
    """Per-segment creature indices (-1 for none) from None, one id, or a list of ids."""
    if ids is None:
        return np.full(n, -1, dtype=np.int64)
    if isinstance(ids, str):
        return np.full(n, bmap.creature_index(ids), dtype=np.int64)
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iu":
        if ids.shape != (n,):
            raise MapError(f"{where} must have one entry per segment ({n}), not {ids.shape}")
        if ((ids < -1) | (ids >= len(bmap.creatures))).any():
            raise MapError(f"{where} has a creature index outside 0..{len(bmap.creatures) - 1}")
        return ids.astype(np.int64)
    ids = list(ids)
    if len(ids) != n:
        raise MapError(f"{where} must have one entry per segment ({n}), not {len(ids)}")
    return np.array([-1 if c is None else bmap.creature_index(c) for c in ids], dtype=np.int64)


def trace(
    bmap: BattleMap,
    segments: npt.ArrayLike,
    *,
    attacker: str | Sequence[str | None] | np.ndarray | None = None,
    target: str | Sequence[str | None] | np.ndarray | None = None,
    ignore_dead: bool = False,
    ignore_prone: bool = False,
    blockers: bool = True,
    stopped_only: bool = False,
) -> TraceBatch:
    """Trace segments across ``bmap`` and return what each passes through.

    Parameters
    ----------
    bmap : BattleMap
    segments : array_like, shape (N, 4)
        ``[x0, y0, x1, y1]`` per line, in squares.
    attacker, target : str, sequence or int array, optional
        The shooter and target creature of every line (one id for all, or one
        per line; None or -1 for a free endpoint).  A start point inside the
        attacker's space is attached to it, an end point inside the target's
        space likewise; both creatures are left out of the creatures a line
        passes through.
    ignore_dead, ignore_prone : bool
        Leave dead / prone creatures out.
    blockers : bool
        False computes only the per-line flags (``stopped``, ``slit``,
        ``low``); every blocker list is then empty.  Faster when only "is it
        stopped?" is asked of many lines.
    stopped_only : bool
        True computes only ``stopped`` (``slit`` and ``low`` stay False),
        dropping each line at the first stretch where it is stopped: the
        fastest way to ask about line of effect.

    Returns
    -------
    TraceBatch
        ``batch[i].stopped`` and ``batch[i].blockers`` (nearest first).

    Examples
    --------
    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(6, 3, squares=["......", "..#...", "......"],
    ...                     creatures=[{"id": "B", "x": 4, "y": 1}])
    >>> batch = trace(m, [[0.5, 1.5, 5.5, 1.5], [0, 1, 6, 1]])
    >>> [(b.kind, b.t) for b in batch[0].blockers]
    [('solid', 0.3), ('creature', 0.7)]
    >>> batch[1].stopped, batch[1].blockers
    (False, ())
    """
    from ._kernel import trace_units

    units = as_segments(segments, bmap)
    n = len(units)
    att = creature_indices(bmap, attacker, n, "attacker")
    tgt = creature_indices(bmap, target, n, "target")
    return trace_units(bmap, units, att, tgt, ignore_dead=bool(ignore_dead),
                       ignore_prone=bool(ignore_prone), blockers=bool(blockers),
                       stopped_only=bool(stopped_only))
