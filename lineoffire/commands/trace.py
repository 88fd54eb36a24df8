"""``lineoffire trace``: what lines pass through on a map.

Usage::

    lineoffire trace MAP --from X,Y --to X,Y [--from X,Y --to X,Y ...]
        [--attacker ID] [--target ID] [--ignore-dead] [--ignore-prone] [--json]

The i-th ``--from`` goes with the i-th ``--to``.  For each line the human
output says ``stopped`` or ``clear`` (with the cover it crosses, if any) and
lists its blockers nearest first: kind, the piece (a square ``(c, r)``, a
wall segment, or a creature), the parameter ``t`` along the line and the
point ``(x, y)`` where the piece takes part.  ``--json`` prints the answer of
the ``trace`` request op instead.

Examples
--------
::

    $ lineoffire trace crossroads --from 6.5,4.5 --to 11.5,4.5
    line 1: (6.5, 4.5) -> (11.5, 4.5): stopped
      wall      wall 4 segment 1     t=0.5     at (9, 4.5)
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from lineoffire.errors import RequestError
from lineoffire.geometry import LineTrace
from lineoffire.maps import SCALE, BattleMap, load_map
from lineoffire.ops.trace import trace_request

__all__ = ["register", "run", "parse_point", "format_line"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "trace",
        help="what lines pass through",
        description=(
            "Trace lines across a map and list what each passes through: whether "
            "it is stopped, and every blocker (solid square, wall, door, slit, low "
            "cover, creature) with where it takes part.  Give --from and --to in "
            "pairs; the i-th --from goes with the i-th --to."
        ),
    )
    p.add_argument("map", metavar="MAP", help="map file (any readable format) or example name")
    p.add_argument("--from", dest="starts", action="append", required=True, metavar="X,Y",
                   help="start of a line, in squares (repeatable)")
    p.add_argument("--to", dest="ends", action="append", required=True, metavar="X,Y",
                   help="end of a line, in squares (repeatable)")
    p.add_argument("--attacker", metavar="ID",
                   help="the shooter: a start inside its space is attached to it")
    p.add_argument("--target", metavar="ID",
                   help="the target: an end inside its space is attached to it")
    p.add_argument("--ignore-dead", action="store_true", help="leave dead creatures out")
    p.add_argument("--ignore-prone", action="store_true", help="leave prone creatures out")
    p.add_argument("--json", action="store_true", help="print the JSON answer of the trace op")
    p.set_defaults(func=run)


def parse_point(text: str, option: str, bmap: BattleMap | None = None) -> list[float]:
    """``"X,Y"`` -> ``[x, y]``, checked to be finite and (given a map) on it.

    Raises
    ------
    RequestError
        Naming ``option`` and the text given.

    Examples
    --------
    >>> parse_point("2.5, 3", "--from")
    [2.5, 3.0]
    >>> parse_point("3,x", "--to")
    Traceback (most recent call last):
    ...
    lineoffire.errors.RequestError: --to '3,x': expected X,Y (two numbers)
    """
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise RequestError(f"{option} {text!r}: expected X,Y (two numbers)") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise RequestError(f"{option} {text!r}: coordinates must be finite numbers")
    if bmap is not None and not (0 <= x <= bmap.width and 0 <= y <= bmap.height):
        raise RequestError(
            f"{option} {text!r}: the point lies outside the {bmap.width}x{bmap.height} map "
            f"(x in 0..{bmap.width}, y in 0..{bmap.height})"
        )
    return [x, y]


def _num(v: float) -> str:
    return f"{round(v, 4):g}"


def _pt(p: Any) -> str:
    return "(" + ", ".join(_num(float(v)) for v in p) + ")"


def _ref(kind: str, ref: tuple[str, Any]) -> str:
    key, value = ref
    if key == "square":
        return f"square {_pt(value)}"
    if key == "wall":
        return f"wall {value[0]} segment {value[1]}"
    return str(value)


def format_line(n: int, segment: list[float], line: LineTrace) -> list[str]:
    """Lines of text for one traced line: its verdict, then each blocker.

    Examples
    --------
    >>> from lineoffire.geometry import Blocker
    >>> ln = LineTrace(True, False, False, (Blocker("solid", 0.25, square=(2, 1)),))
    >>> print("\\n".join(format_line(1, [0, 1.5, 8, 1.5], ln)))
    line 1: (0, 1.5) -> (8, 1.5): stopped
      solid     square (2, 1)        t=0.25    at (2, 1.5)
    """
    x0, y0, x1, y1 = segment
    notes = []
    if line.slit:
        notes.append("crosses slit cover")
    if line.low:
        notes.append("crosses low cover")
    if line.creatures:
        notes.append("passes through " + ", ".join(line.creatures))
    verdict = "stopped" if line.stopped else "clear"
    if notes:
        verdict += " (" + "; ".join(notes) + ")"
    out = [f"line {n}: {_pt((x0, y0))} -> {_pt((x1, y1))}: {verdict}"]
    for b in line.blockers:
        at = (x0 + b.t * (x1 - x0), y0 + b.t * (y1 - y0))
        out.append(f"  {b.kind:<9} {_ref(b.kind, b.ref):<20} t={_num(b.t):<7} at {_pt(at)}")
    return out


def run(args: argparse.Namespace) -> int:
    if len(args.starts) != len(args.ends):
        raise RequestError(
            f"--from is given {len(args.starts)} time(s) and --to {len(args.ends)}; "
            "give them in pairs"
        )
    bmap = load_map(args.map)
    segments = [
        parse_point(a, "--from", bmap) + parse_point(b, "--to", bmap)
        for a, b in zip(args.starts, args.ends)
    ]
    request: dict[str, Any] = {"op": "trace", "map": bmap, "segments": segments}
    if args.attacker is not None:
        request["attacker"] = args.attacker
    if args.target is not None:
        request["target"] = args.target
    options = {k: True for k in ("ignore_dead", "ignore_prone") if getattr(args, k)}
    if options:
        request["options"] = options
    _, batch = trace_request(request)
    if args.json:
        print(json.dumps(batch.to_json()))
        return 0
    # Report the coordinates as traced (snapped to 1/1024 square).
    snapped = [[round(v * SCALE) / SCALE for v in seg] for seg in segments]
    for i, line in enumerate(batch):
        print("\n".join(format_line(i + 1, snapped[i], line)))
    return 0
