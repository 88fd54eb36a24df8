"""``lineoffire validate MAP``: load a map in any format and summarise it.

Exit code 0 when the map is valid; 2 with one line on stderr naming what is
wrong and where otherwise (with ``--json``, also ``{"valid": false, "error":
...}`` on stdout).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from lineoffire.maps import LOW, SIZES, SOLID, BattleMap, load_map
from lineoffire.maps.io import FORMATS

__all__ = ["register", "run", "summary"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check a map file and print a summary",
        description="Load a map (any format the engine reads) and print a summary.",
    )
    parser.add_argument("map", metavar="MAP", help="map file or bundled example name")
    parser.add_argument("--format", dest="fmt", choices=sorted(FORMATS), help="force the format")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run)


def summary(bmap: BattleMap) -> dict[str, Any]:
    """A JSON-ready summary of a map: sizes and counts of everything on it."""
    walls = Counter(w.kind for w in bmap.walls)
    segments = Counter()
    for w in bmap.walls:
        segments[w.kind] += len(w.points) - 1
    doors = [w for w in bmap.walls if w.kind == "door"]
    teams = Counter(c.team for c in bmap.creatures if c.team is not None)
    sizes = Counter(c.size for c in bmap.creatures)
    return {
        "valid": True,
        "name": bmap.name,
        "width": bmap.width,
        "height": bmap.height,
        "square_ft": bmap.square_ft,
        "low_height_ft": bmap.low_height_ft,
        "squares": {
            "solid": int((bmap.squares == SOLID).sum()),
            "low": int((bmap.squares == LOW).sum()),
        },
        "walls": {kind: walls.get(kind, 0) for kind in ("wall", "door", "slit", "low")},
        "wall_segments": {kind: segments.get(kind, 0) for kind in ("wall", "door", "slit", "low")},
        "doors": {
            "open": sum(1 for w in doors if w.open),
            "closed": sum(1 for w in doors if not w.open),
        },
        "creatures": len(bmap.creatures),
        "teams": dict(sorted(teams.items())),
        "without_team": sum(1 for c in bmap.creatures if c.team is None),
        "sizes": {size: sizes[size] for size in SIZES if size in sizes},
        "without_evasion": sorted(c.id for c in bmap.creatures if c.evasion is None),
        "joins_added": bmap.joins_added,
    }


def _text(source: str, s: dict[str, Any]) -> str:
    title = f" {s['name']!r}" if s["name"] else ""
    w = s["walls"]
    lines = [
        f"{source}: valid map{title}",
        f"  size: {s['width']} x {s['height']} squares of {s['square_ft']:g} ft",
        f"  squares: {s['squares']['solid']} solid, {s['squares']['low']} low "
        f"({s['low_height_ft']:g} ft)",
        f"  walls: {w['wall']} wall, {w['door']} door, {w['slit']} slit, {w['low']} low "
        f"({sum(s['wall_segments'].values())} segments)",
        f"  doors: {s['doors']['open']} open, {s['doors']['closed']} closed",
    ]
    teams = ", ".join(f"{team} {n}" for team, n in s["teams"].items())
    if s["without_team"]:
        teams = f"{teams}, no team {s['without_team']}" if teams else f"no team {s['without_team']}"
    lines.append(f"  creatures: {s['creatures']}" + (f" ({teams})" if teams else ""))
    if s["without_evasion"]:
        lines.append(f"  without evasion: {', '.join(s['without_evasion'])}")
    lines.append(f"  joins added: {s['joins_added']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        bmap = load_map(args.map, fmt=args.fmt)
    except (ValueError, TypeError, OSError) as exc:
        if args.json:
            print(json.dumps({"valid": False, "error": str(exc)}))
        raise
    s = summary(bmap)
    if args.json:
        print(json.dumps({"map": args.map, **s}))
    else:
        print(_text(args.map, s))
    return 0
