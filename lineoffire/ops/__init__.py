"""Operations of the JSON request protocol (SPEC section 6).

Each op is a module ``lineoffire.ops.NAME`` with ``run(request: dict) -> dict``;
it raises RequestError / MapError for bad requests.
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence

from lineoffire.errors import RequestError

__all__ = ["OPS", "run_op", "check_fields"]

OPS = ("trace", "cover", "shots", "matrix")


def check_fields(request: Any, op: str, fields: Sequence[str], required: Sequence[str] = ()
                 ) -> None:
    """RequestError (code ``bad_request``) unless ``request`` is an object whose
    fields are all among ``fields`` and include every one of ``required``."""
    if not isinstance(request, dict):
        raise RequestError(f"a request must be a JSON object, not {type(request).__name__}")
    unknown = sorted(set(request) - set(fields), key=str)
    if unknown:
        raise RequestError(
            f"{op} request: unknown field(s) {', '.join(map(repr, unknown))}; "
            f"expected some of {', '.join(fields)}",
            "bad_request",
        )
    for key in required:
        if key not in request:
            raise RequestError(f"{op} request has no {key!r}", "bad_request")


def run_op(request: Any) -> dict:
    """Run one request and return its answer."""
    if not isinstance(request, dict):
        raise RequestError(f"a request must be a JSON object, not {type(request).__name__}")
    op = request.get("op")
    if op not in OPS:
        raise RequestError(f"unknown op {op!r}; expected one of {', '.join(OPS)}", "unknown_op")
    if "map" not in request:
        raise RequestError("request has no 'map'", "bad_request")
    return importlib.import_module(f"lineoffire.ops.{op}").run(request)
