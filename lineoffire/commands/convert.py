"""``lineoffire convert IN OUT``: rewrite a map as JSON or text, by OUT's suffix.

``.json`` writes the native JSON format (version 1); ``.txt``, ``.map`` and
``.lof`` write the text format.  Any format the engine reads can be the input;
a picture needs ``--pixels-per-square`` (and optionally ``--image-mode``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lineoffire.maps import MapError, load_map
from lineoffire.maps.io import SUFFIXES
from lineoffire.maps.io import FORMATS
from lineoffire.maps.jsonfmt import save_json
from lineoffire.maps.textfmt import save_text

__all__ = ["register", "run", "WRITERS"]

#: Output suffix -> (format name, writer).
WRITERS = {
    ".json": ("json", save_json),
    ".txt": ("text", save_text),
    ".map": ("text", save_text),
    ".lof": ("text", save_text),
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert a map to JSON or text",
        description="Load a map (any format) and write it as JSON (.json) or in the "
        "text format (.txt, .map, .lof), chosen by OUT's suffix.",
    )
    parser.add_argument("input", metavar="IN", help="map file or bundled example name")
    parser.add_argument("output", metavar="OUT", help="file to write (.json, .txt, .map, .lof)")
    parser.add_argument("--format", dest="fmt", choices=sorted(FORMATS), help="force the input format")
    parser.add_argument("--pixels-per-square", type=float, metavar="N",
                        help="picture pixels per grid square (picture input only)")
    parser.add_argument("--image-mode", choices=("squares", "walls"), default="squares",
                        help="picture input: dark squares become solid squares, or thin "
                        "walls traced from the dark outlines")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    writer = WRITERS.get(out.suffix.lower())
    if writer is None:
        raise MapError(
            f"{out}: cannot write map file type {out.suffix!r}; expected one of "
            f"{', '.join(WRITERS)}"
        )
    options: dict[str, Any] = {}
    if args.pixels_per_square is not None:
        options = {"pixels_per_square": args.pixels_per_square, "mode": args.image_mode}
    picture = (args.fmt or SUFFIXES.get(Path(args.input).suffix.lower())) == "image"
    if picture and not options:
        raise MapError(f"{args.input}: a picture map needs --pixels-per-square")
    if options and not picture:
        raise MapError("--pixels-per-square applies to picture maps only")
    bmap = load_map(args.input, fmt=args.fmt, **options)
    fmt, save = writer
    save(bmap, out)
    print(f"wrote {out} ({fmt}, {bmap.width}x{bmap.height}, {len(bmap.creatures)} creatures)")
    return 0
