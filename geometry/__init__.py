"""Lines over a battlemap: tracing, line generators and line of effect.

Knows no game rules: it reports what each line passes through.
"""

from __future__ import annotations

from .types import KINDS, Blocker, LineTrace, TraceBatch
from .trace import trace

__all__ = ["KINDS", "Blocker", "LineTrace", "TraceBatch", "trace"]
