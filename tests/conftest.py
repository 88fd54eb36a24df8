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
import os
import sys
from pathlib import Path

import pytest

# The tests run against the installed package.  The checkout's own folders
# (``lineoffire/`` holds only the public face; the engine lives in ``maps/``,
# ``geometry/`` and ``resolver/``) must not shadow it: ``python -m pytest``
# puts the current folder first on sys.path, so take the checkout out, here
# and, through PYTHONSAFEPATH, in the ``python -m lineoffire`` subprocesses.
_ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != _ROOT]
os.environ["PYTHONSAFEPATH"] = "1"
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
