"""Shared fixtures of the geometry tests.

``tracer``: parametrized over the two tracers, ``"engine"``
(:func:`lineoffire.geometry.trace`) and ``"reference"`` (the slow exact
:mod:`reference`); either way a callable ``tracer(bmap, segments, **options)``
returning a list of :class:`~lineoffire.geometry.types.LineTrace`.

``engine_traces`` is the engine as such a callable (the reference's is
:func:`reference.reference_traces`); this directory is put on ``sys.path`` so
tests can ``from reference import ...``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from reference import reference_traces  # noqa: E402

#: Whether the engine's kernel is importable (kept for tests that still ask).
HAVE_KERNEL = importlib.util.find_spec("lineoffire.geometry._kernel") is not None


def engine_traces(bmap, segments, **options):
    """The engine's traces as a list of LineTrace."""
    from lineoffire.geometry import trace

    return list(trace(bmap, segments, **options))


@pytest.fixture(params=["engine", "reference"])
def tracer(request):
    """``tracer(bmap, segments, **options) -> list[LineTrace]``, engine or reference."""
    return engine_traces if request.param == "engine" else reference_traces
