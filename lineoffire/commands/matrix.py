"""``lineoffire matrix``: cover for every ordered pair of creatures.

Usage::

    lineoffire matrix MAP --rules R [--range FT] [--attackers A,B] [--targets C,D]
        [--attack ranged|melee|reach] [--option NAME=VALUE ...] [--chunk N]
        [--out FILE] [--format json|csv|npz] [--quiet] [--dask local|tcp://HOST:PORT]

Formats: ``json`` (the ``matrix`` op's answer, every pair's full answer),
``csv`` (``attacker,target,cover,bonus``), ``npz`` (id arrays and a
cover-code matrix, see :mod:`lineoffire.matrix`; needs ``--out``).  The
format defaults to the suffix of ``--out``, else json.  A progress bar on
stderr appears when the run lasts over two seconds, unless ``--quiet`` or
stderr is not a terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lineoffire.errors import RequestError
from lineoffire.maps import load_map
from lineoffire.matrix import DEFAULT_CHUNK, MATRIX_ATTACKS, ProgressBar, cover_matrix, local_client
from lineoffire.resolver import RULESETS
from lineoffire.resolver.common import options_from_strings

__all__ = ["register", "run", "FORMATS"]

#: Output formats.
FORMATS: tuple[str, ...] = ("json", "csv", "npz")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "matrix",
        help="cover for every ordered pair of creatures",
        description="Cover of every target against every attacker (all ordered pairs "
                    "within range), traced in bulk.",
    )
    p.add_argument("map", metavar="MAP", help="map file (any readable format) or example name")
    p.add_argument("--rules", "-r", required=True, choices=list(RULESETS), help="the ruleset")
    p.add_argument("--range", dest="range_ft", type=float, metavar="FT",
                   help="only pairs within this many feet (nearest squares); default no limit")
    p.add_argument("--attackers", metavar="A,B,...", help="attacker ids (default: every creature)")
    p.add_argument("--targets", metavar="C,D,...", help="target ids (default: every creature)")
    p.add_argument("--attack", default="ranged", choices=list(MATRIX_ATTACKS),
                   help="kind of attack (default: ranged; melee pairs adjacent creatures only)")
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", default=[],
                   help="a ruleset option, e.g. partial_cover=true (repeatable)")
    p.add_argument("--chunk", type=int, default=DEFAULT_CHUNK, metavar="N",
                   help=f"pairs traced together (default {DEFAULT_CHUNK})")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout (npz needs it)")
    p.add_argument("--format", choices=FORMATS,
                   help="output format (default: from --out's suffix, else json)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--dask", metavar="local|tcp://HOST:PORT",
                   help="run the chunks on a Dask cluster: a new local one, or a scheduler")
    p.set_defaults(func=run)


def _ids(text: str | None, flag: str) -> list[str] | None:
    if text is None:
        return None
    ids = [s.strip() for s in text.split(",")]
    if not all(ids):
        raise RequestError(f"{flag} must be comma-separated creature ids, not {text!r}")
    return ids


def _format(args: argparse.Namespace) -> str:
    if args.format:
        fmt = args.format
    elif args.out and Path(args.out).suffix.lower().lstrip(".") in FORMATS:
        fmt = Path(args.out).suffix.lower().lstrip(".")
    else:
        fmt = "json"
    if fmt == "npz" and not args.out:
        raise RequestError("--format npz writes a binary file: give --out FILE")
    return fmt


def _client(address: str) -> Any:
    if address == "local":
        return local_client(processes=True, n_workers=2)
    if not address.startswith("tcp://"):
        raise RequestError(f"--dask must be 'local' or a scheduler address tcp://HOST:PORT, "
                           f"not {address!r}")
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the install
        raise RequestError("--dask needs the dask extra: pip install 'lineoffire[dask]'") from None
    return Client(address)


def run(args: argparse.Namespace) -> int:
    fmt = _format(args)
    bmap = load_map(args.map)
    options = options_from_strings(args.option) or None
    client = _client(args.dask) if args.dask else None
    bar = ProgressBar.for_terminal(quiet=args.quiet)
    try:
        result = cover_matrix(
            bmap,
            rules=args.rules,
            attackers=_ids(args.attackers, "--attackers"),
            targets=_ids(args.targets, "--targets"),
            range_ft=args.range_ft,
            attack=args.attack,
            options=options,
            keep_answers=fmt == "json",
            chunk_size=args.chunk,
            client=client,
            progress=bar,
        )
    finally:
        bar.close()
        if client is not None:
            cluster = client.cluster if args.dask == "local" else None
            client.close()
            if cluster is not None:
                cluster.close()
    if fmt == "npz":
        result.save_npz(args.out)
        return 0
    text = json.dumps(result.to_json()) + "\n" if fmt == "json" else result.to_csv()
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
