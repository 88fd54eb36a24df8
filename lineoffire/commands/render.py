"""``lineoffire render``: a picture of the lines of fire between two creatures.

Usage::

    lineoffire render MAP --attacker A --target T --rules pf1e|pf2e|creature-cover
        [--attack ranged|melee|reach|area] [--origin X,Y] [--option NAME=VALUE ...]
        [-o lines.png] [--pps N] [--all-lines] [--no-labels]

Writes a PNG (see :mod:`lineoffire.render` for the palette and the pixel
convention) and prints one line: the file, the cover and the image size.
A Universal VTT map is drawn over its own embedded picture.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lineoffire.maps import load_map
from lineoffire.maps.io import detect_format
from lineoffire.resolver import RULESETS
from lineoffire.resolver.common import ATTACKS, options_from_strings

__all__ = ["register", "run", "load_for_picture"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "render",
        help="draw the lines of fire between two creatures as a PNG",
        description="Draw the map and every line the ruleset draws from the attacker to "
        "the target, coloured by verdict: clear green, soft yellow, cover orange, stopped red.",
    )
    p.add_argument("map", metavar="MAP", help="map file (any readable format) or example name")
    p.add_argument("--attacker", "-a", help="the attacker's creature id (optional for --attack area)")
    p.add_argument("--target", "-t", required=True, help="the target's creature id")
    p.add_argument("--rules", "-r", default="pf1e", choices=list(RULESETS),
                   help="the ruleset (default: pf1e)")
    p.add_argument("--attack", default="ranged", choices=list(ATTACKS),
                   help="kind of attack (default: ranged)")
    p.add_argument("--origin", metavar="X,Y", help="an area effect's point of origin, in squares")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[],
                   help="a ruleset option, e.g. partial_cover=true (repeatable)")
    p.add_argument("-o", "--output", default="lines.png", metavar="FILE.png",
                   help="the PNG to write (default: lines.png)")
    p.add_argument("--pps", type=int, default=32, metavar="N",
                   help="pixels per square (default: 32)")
    p.add_argument("--all-lines", action="store_true",
                   help="also draw, thin, every line the ruleset considers (pf1e: every corner)")
    p.add_argument("--no-labels", dest="labels", action="store_false",
                   help="do not write creature ids")
    p.set_defaults(func=run)


def load_for_picture(source: str) -> Any:
    """Load a map for drawing: as :func:`load_map`, keeping a UVTT map's picture."""
    path = Path(source)
    if path.is_file():
        data = path.read_bytes() if path.suffix.lower() == ".json" else None
        fmt = detect_format(path, data)
        if fmt == "uvtt":
            return load_map(path, fmt=fmt, image=True)
        return load_map(path, fmt=fmt)
    return load_map(source)


def run(args: argparse.Namespace) -> int:
    from lineoffire.commands.cover import parse_point
    from lineoffire.render import png_path, render_lines, save_png

    png_path(args.output)  # fail before the work
    bmap = load_for_picture(args.map)
    origin = None if args.origin is None else parse_point(args.origin)
    options = options_from_strings(args.option) or None
    answer: dict[str, Any] = {}
    image = render_lines(bmap, args.attacker, args.target, rules=args.rules, attack=args.attack,
                         origin=origin, options=options, pixels_per_square=args.pps,
                         all_lines=args.all_lines, labels=args.labels, answer=answer)
    out = save_png(image, args.output)
    print(f"{out}: {args.target} has {answer['cover']} cover ({args.rules}); "
          f"{image.shape[1]}x{image.shape[0]} pixels")
    return 0
