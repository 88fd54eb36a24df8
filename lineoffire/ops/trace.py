"""The ``trace`` request op (SPEC section 6).

Request fields: ``map`` (an object, a path or an example name), ``segments``
(``[[x0, y0, x1, y1], ...]`` in squares), and optionally ``attacker`` and
``target`` (one creature id for every segment, or a list with one id or null
per segment) and ``options`` (``{"ignore_dead": bool, "ignore_prone": bool}``).

The answer is exactly :meth:`lineoffire.geometry.TraceBatch.to_json` of the
traced segments::

    {"lines": [{"stopped": bool, "blockers": [{"kind", "t", ...}, ...]}, ...]}

Examples
--------
>>> answer = run({"op": "trace",
...               "map": {"width": 6, "height": 3,
...                       "squares": ["......", "..#...", "......"],
...                       "creatures": [{"id": "B", "x": 4, "y": 1}]},
...               "segments": [[0.5, 1.5, 5.5, 1.5], [0, 1, 6, 1]]})
>>> answer["lines"][0]["blockers"][0]
{'kind': 'solid', 'square': [2, 1], 't': 0.3}
>>> answer["lines"][1]
{'stopped': False, 'blockers': []}
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from lineoffire.errors import MapError, RequestError
from lineoffire.ops import check_fields
from lineoffire.geometry import TraceBatch, trace
from lineoffire.maps import BattleMap, load_map

__all__ = ["FIELDS", "OPTIONS", "run", "trace_request"]

#: The fields a trace request may have.
FIELDS: tuple[str, ...] = ("op", "map", "segments", "attacker", "target", "options")
#: The options of a trace request (all booleans, default false).
OPTIONS: tuple[str, ...] = ("ignore_dead", "ignore_prone")


def _check_fields(request: Any) -> None:
    check_fields(request, "trace", FIELDS, ("map", "segments"))


def _segments(value: Any) -> list[list[float]]:
    """Check ``segments`` is a list of ``[x0, y0, x1, y1]`` real numbers."""
    if not isinstance(value, (list, tuple)):
        raise RequestError(
            f"trace request: segments must be a list of [x0, y0, x1, y1], "
            f"not {type(value).__name__}"
        )
    for i, seg in enumerate(value):
        if not isinstance(seg, (list, tuple)) or len(seg) != 4:
            raise RequestError(
                f"trace request: segments[{i}] must be [x0, y0, x1, y1], not {seg!r}"
            )
        for j, v in enumerate(seg):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise RequestError(
                    f"trace request: segments[{i}][{j}] must be a number, not {v!r}"
                )
            if not math.isfinite(v):
                raise RequestError(
                    f"trace request: segments[{i}][{j}] must be finite, not {v!r}"
                )
    return [list(seg) for seg in value]


def _ids(value: Any, n: int, key: str) -> str | list[str | None] | None:
    """Check ``attacker`` / ``target``: None, one id, or one id-or-null per segment."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise RequestError(
                f"trace request: {key} must have one id per segment ({n}), not {len(value)}"
            )
        for i, v in enumerate(value):
            if v is not None and not isinstance(v, str):
                raise RequestError(
                    f"trace request: {key}[{i}] must be a creature id or null, not {v!r}"
                )
        return list(value)
    raise RequestError(
        f"trace request: {key} must be a creature id or a list of ids, not {value!r}"
    )


def _options(value: Any) -> dict[str, bool]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError(
            f"trace request: options must be an object, not {type(value).__name__}"
        )
    unknown = sorted(set(value) - set(OPTIONS), key=str)
    if unknown:
        raise RequestError(
            f"trace request: unknown option(s) {', '.join(map(repr, unknown))}; "
            f"expected some of {', '.join(OPTIONS)}"
        )
    for key, v in value.items():
        if not isinstance(v, bool):
            raise RequestError(
                f"trace request: option {key} must be true or false, not {v!r}"
            )
    return dict(value)


def trace_request(request: dict[str, Any]) -> tuple[BattleMap, TraceBatch]:
    """Validate a trace request, load its map and trace its segments.

    Returns the map and the :class:`~lineoffire.geometry.TraceBatch`; the
    command line formats the batch for people, :func:`run` as JSON.

    Raises
    ------
    RequestError
        For a bad request: unknown fields or options, a missing ``map`` or
        ``segments``, malformed or off-map segments (code ``bad_request``);
        an unknown ``attacker`` or ``target`` id (code ``unknown_creature``).
    MapError
        If the map cannot be loaded.
    """
    _check_fields(request)
    segments = _segments(request["segments"])
    n = len(segments)
    attacker = _ids(request.get("attacker"), n, "attacker")
    target = _ids(request.get("target"), n, "target")
    options = _options(request.get("options"))
    bmap = load_map(request["map"])
    for key, ids in (("attacker", attacker), ("target", target)):
        for cid in [ids] if isinstance(ids, str) else ids or ():
            if cid is not None:
                try:
                    bmap.creature(cid)
                except MapError as exc:
                    raise RequestError(f"trace request: {key}: {exc}", "unknown_creature") from None
    try:
        # An empty list becomes a (0, 4) array, so "no segments" is "no lines".
        batch = trace(bmap, np.asarray(segments, dtype=np.float64).reshape(n, 4), attacker=attacker, target=target, **options)
    except MapError as exc:
        # The map loaded; what is wrong now is the request (off-map points,
        # unknown ids).
        raise RequestError(f"trace request: {exc}") from None
    return bmap, batch


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one ``trace`` request: ``{"lines": [...]}`` (see the module docstring)."""
    return trace_request(request)[1].to_json()
