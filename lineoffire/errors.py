"""Errors of requests (the query protocol and the CLI)."""

from __future__ import annotations

from lineoffire.maps.model import MapError

__all__ = ["MapError", "RequestError"]


class RequestError(ValueError):
    """A request is invalid.  ``code`` is a short machine-readable name
    (``bad_request``, ``not_adjacent``, ``unknown_op``, ...)."""

    def __init__(self, message: str, code: str = "bad_request"):
        super().__init__(message)
        self.code = code
