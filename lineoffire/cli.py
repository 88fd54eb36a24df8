"""The ``lineoffire`` command line.

Each subcommand lives in :mod:`lineoffire.commands` as a module with
``register(subparsers)``, which adds its parser and sets ``func`` to a
function ``run(args) -> int``.  Bad input exits with code 2 and one line on
stderr naming what and where; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Sequence

from lineoffire.errors import MapError, RequestError

__all__ = ["main", "COMMANDS"]

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = (
    "demo",
    "trace",
    "cover",
    "shoot",
    "matrix",
    "query",
    "validate",
    "show",
    "convert",
    "render",
    "heatmap",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # exit code 2, one line
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lineoffire",
        description="Exact line-of-fire and cover engine for square-grid battlemaps.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"lineoffire.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"lineoffire.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except (MapError, RequestError, TypeError, ValueError, OSError, json.JSONDecodeError) as exc:
        print(f"lineoffire {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (RecursionError, OverflowError, MemoryError) as exc:
        # input too deep, too large a number or too big to hold: still bad input
        print(f"lineoffire {args.command}: error: input too large or too deeply nested "
              f"({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
