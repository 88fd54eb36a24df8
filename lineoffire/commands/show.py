"""``lineoffire show MAP``: print a map in the text format (or as JSON)."""

from __future__ import annotations

import argparse
from typing import Any

from lineoffire.maps import load_map
from lineoffire.maps.io import FORMATS
from lineoffire.maps.jsonfmt import dumps_json
from lineoffire.maps.textfmt import dumps_text

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print a map in the text format",
        description="Load a map (any format) and print it in the text format "
        "(docs/text-format.md), or as version-1 JSON with --as json.",
    )
    parser.add_argument("map", metavar="MAP", help="map file or bundled example name")
    parser.add_argument("--format", dest="fmt", choices=sorted(FORMATS), help="force the input format")
    parser.add_argument(
        "--as", dest="out", choices=("text", "json"), default="text", help="output format (text)"
    )
    parser.add_argument(
        "--no-marks",
        dest="marks",
        action="store_false",
        help="never draw one-letter creatures as letters in the grid",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bmap = load_map(args.map, fmt=args.fmt)
    if args.out == "json":
        print(dumps_json(bmap), end="")
    else:
        print(dumps_text(bmap, marks=args.marks), end="")
    return 0
