"""``lineoffire heatmap``: the cover every open square would give against an attacker.

Usage::

    lineoffire heatmap MAP --attacker A --rules pf1e|pf2e|creature-cover
        [-o cover.png] [--pps N] [--size medium] [--option NAME=VALUE ...] [--json]

Writes a PNG with every square a creature could stand on coloured by its
cover (:data:`lineoffire.render.HEAT_COLOURS`).  ``--json`` prints
``{"rules", "attacker", "size", "cover": [[name or null, ...], ...]}`` (rows
of the map, top first) instead of a summary; the PNG is then written only
when ``-o`` is given.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from lineoffire.maps.model import SIZES
from lineoffire.resolver import RULESETS
from lineoffire.resolver.common import options_from_strings

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "heatmap",
        help="colour every open square by the cover it gives against an attacker",
        description="For every square a creature could stand on (not solid, not occupied), "
        "the cover it would have against the attacker; one trace for the whole map.",
    )
    p.add_argument("map", metavar="MAP", help="map file (any readable format) or example name")
    p.add_argument("--attacker", "-a", required=True, help="the attacker's creature id")
    p.add_argument("--rules", "-r", default="pf1e", choices=list(RULESETS),
                   help="the ruleset (default: pf1e)")
    p.add_argument("--size", default="medium", choices=list(SIZES[:5]),
                   help="size of the creature that would stand there (default: medium)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[],
                   help="a ruleset option (repeatable)")
    p.add_argument("-o", "--output", metavar="FILE.png",
                   help="the PNG to write (default: cover.png, or none with --json)")
    p.add_argument("--pps", type=int, default=32, metavar="N",
                   help="pixels per square (default: 32)")
    p.add_argument("--no-labels", dest="labels", action="store_false",
                   help="do not write creature ids")
    p.add_argument("--json", action="store_true", help="print the grid of cover names as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from lineoffire.commands.render import load_for_picture
    from lineoffire.render import heatmap, png_path, save_png

    output = args.output if args.output is not None else (None if args.json else "cover.png")
    if output is not None:
        png_path(output)  # fail before the work
    bmap = load_for_picture(args.map)
    options = options_from_strings(args.option) or None
    cover, image = heatmap(bmap, args.attacker, rules=args.rules, size=args.size,
                           options=options, pixels_per_square=args.pps, labels=args.labels)
    if output is not None:
        save_png(image, output)
    if args.json:
        print(json.dumps({"rules": args.rules, "attacker": args.attacker, "size": args.size,
                          "cover": cover.tolist()}))
    else:
        counts = Counter(v for v in cover.ravel() if v is not None)
        summary = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
        print(f"{output}: squares by cover against {args.attacker} ({args.rules}): "
              f"{summary or 'none open'}")
    return 0
