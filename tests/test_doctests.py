"""Run the docstring examples of every module of the installed package."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import lineoffire

MODULES = sorted(
    name
    for pkg in ("lineoffire", "lineoffire.maps", "lineoffire.geometry", "lineoffire.resolver",
                "lineoffire.ops", "lineoffire.commands")
    for name in [pkg] + [f"{pkg}.{m.name}" for m in pkgutil.iter_modules(
        importlib.import_module(pkg).__path__)]
    if not name.endswith("__main__")  # running it would run the CLI
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_modules_found():
    assert "lineoffire.geometry.trace" in MODULES
    assert lineoffire.__version__
