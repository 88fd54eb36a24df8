"""``lineoffire query``: answer JSON requests, one per line (SPEC section 6).

Usage::

    lineoffire query < requests.jsonl > answers.jsonl

Each non-blank line of standard input is one JSON request; each gets exactly
one line of JSON on standard output, in the same order, flushed at once (so a
program can talk to ``lineoffire query`` through a pipe, one request at a
time).  Blank lines are skipped and get no answer.

A request that cannot be answered gets ``{"error": {"code": ..., "message":
...}}`` and the batch goes on.  The codes:

================  ==========================================================
``bad_json``      the line is not valid JSON (NaN and Infinity are refused)
``unknown_op``    ``op`` is missing or not one of trace, cover, shots, matrix
``unavailable_op`` the op is known but not built into this installation
``bad_map``       the map could not be loaded (missing file, bad content)
``bad_request``   anything else wrong with the request (unknown fields, bad
                  values, unknown creature ids, points off the map, ...)
``...``           codes an op gives its own errors (``not_adjacent``,
                  ``unknown_rules``, ...)
``internal_error`` a bug in the engine; the message names the exception
================  ==========================================================

The exit status is 0 when the end of input is reached, even if some requests
failed: failures are answers, and the caller reads them from the output.  It
is not 0 only when the command itself could not run.

Maps given as paths (or example names) are loaded once per run and kept,
keyed by file; a file whose modification time or size changes is loaded
again.  Inline map objects are loaded for each request.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any, Iterable

from lineoffire.errors import MapError, RequestError
from lineoffire.maps import BattleMap, load_map
from lineoffire.maps.io import example_path
from lineoffire.ops import OPS, run_op

__all__ = ["register", "run", "serve", "answer", "MapCache"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "query",
        help="answer JSON requests, one per line on stdin",
        description=(
            "Read one JSON request per line on standard input and write one JSON "
            "answer per line, in order.  A bad request gets "
            '{"error": {"code", "message"}} and the batch goes on; the exit status '
            "is 0 at the end of input even if some requests failed."
        ),
    )
    p.set_defaults(func=run)


class MapCache:
    """Maps loaded from files, kept for the run and reloaded when the file changes.

    Parameters
    ----------
    maxsize : int
        How many different files to keep (least recently used go first).

    Attributes
    ----------
    loads : int
        How many times a file was actually read (for tests and statistics).
    """

    def __init__(self, *, maxsize: int = 32):
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise ValueError(f"maxsize must be a positive integer, not {maxsize!r}")
        self.maxsize = maxsize
        self.loads = 0
        self._maps: OrderedDict[str, tuple[tuple[int, int], BattleMap]] = OrderedDict()

    @staticmethod
    def _file(source: str | os.PathLike) -> Path | None:
        """The file ``load_map`` would read for ``source`` (None if there is none)."""
        path = Path(source)
        if path.is_file():
            return path.resolve()
        if isinstance(source, str) and "/" not in source and "." not in source:
            try:
                return example_path(source).resolve()
            except MapError:
                return None
        return None

    def load(self, source: Any) -> BattleMap:
        """The map of ``source``: a path or example name (cached), or an object."""
        if not isinstance(source, (str, os.PathLike)):
            return load_map(source)
        path = self._file(source)
        if path is None:
            return load_map(source)  # raises the loader's own error
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
        key = str(path)
        hit = self._maps.get(key)
        if hit is not None and hit[0] == stamp:
            self._maps.move_to_end(key)
            return hit[1]
        bmap = load_map(source)
        self.loads += 1
        self._maps[key] = (stamp, bmap)
        self._maps.move_to_end(key)
        while len(self._maps) > self.maxsize:
            self._maps.popitem(last=False)
        return bmap


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def answer(text: str, cache: MapCache | None = None, *, lineno: int | None = None) -> dict[str, Any]:
    """The answer to one request line (an error answer if it fails; never raises).

    Examples
    --------
    >>> answer('{"op": "fly", "map": "crossroads"}')["error"]["code"]
    'unknown_op'
    >>> answer('{"op": "trace"')["error"]["code"]
    'bad_json'
    """
    where = "" if lineno is None else f"input line {lineno}: "
    try:
        request = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return _error("bad_json", f"{where}{exc.msg} at column {exc.colno}")
    except (ValueError, RecursionError) as exc:
        return _error("bad_json", f"{where}{exc}")
    try:
        # Load the map here (through the cache) once the op is known to exist,
        # so that a map that fails to load is "bad_map" and any map error the
        # op raises afterwards is about the request.
        if isinstance(request, dict) and request.get("op") in OPS and "map" in request:
            try:
                bmap = (cache or MapCache()).load(request["map"])
            except (MapError, OSError, TypeError, ValueError) as exc:
                return _error("bad_map", f"{where}{exc}")
            request = {**request, "map": bmap}
        return run_op(request)
    except RequestError as exc:
        return _error(exc.code, f"{where}{exc}")
    except (MapError, TypeError, ValueError) as exc:
        return _error("bad_request", f"{where}{exc}")
    except (RecursionError, OverflowError, MemoryError) as exc:
        return _error("bad_request", f"{where}input too large or too deeply nested "
                                     f"({type(exc).__name__}: {exc})")
    except ImportError as exc:
        op = request.get("op") if isinstance(request, dict) else None
        return _error("unavailable_op", f"{where}op {op!r} is not available in this build ({exc})")
    except Exception as exc:  # noqa: BLE001 - one failing request must not end the batch
        return _error("internal_error", f"{where}{type(exc).__name__}: {exc}")


def _lines(stream: IO) -> Iterable[str]:
    """Lines of ``stream`` as they arrive; undecodable bytes become U+FFFD
    (the JSON parser then refuses the line or keeps the character in a string)."""
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        for raw in iter(binary.readline, b""):
            yield raw.decode("utf-8", errors="replace")
    else:
        yield from iter(stream.readline, "")


def serve(stream_in: IO, stream_out: IO, *, cache: MapCache | None = None) -> int:
    """Answer every request line of ``stream_in`` on ``stream_out``; return 0.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> serve(io.StringIO('{"op": "trace"}\\n\\n[1]\\n'), out)
    0
    >>> [json.loads(s)["error"]["code"] for s in out.getvalue().splitlines()]
    ['bad_request', 'bad_request']
    """
    cache = cache if cache is not None else MapCache()
    for lineno, line in enumerate(_lines(stream_in), start=1):
        if not line.strip():
            continue
        result = answer(line, cache, lineno=lineno)
        try:
            text = json.dumps(result, allow_nan=False)
        except (TypeError, ValueError) as exc:  # an op answered something not JSON
            text = json.dumps(_error("internal_error", f"input line {lineno}: answer is not "
                                     f"JSON: {exc}"))
        stream_out.write(text + "\n")
        stream_out.flush()
    return 0


def run(args: argparse.Namespace) -> int:
    return serve(sys.stdin, sys.stdout)
