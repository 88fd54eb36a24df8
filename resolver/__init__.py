"""Rules over blocker lists: one small module per ruleset.

Each ruleset module exposes

- ``plan(bmap, attacker, target, *, attack="ranged", origin=None, options=None) -> Plan``:
  the lines the ruleset draws (traced by the caller, possibly together with
  other pairs' lines), and
- ``decide(bmap, plan, traces) -> dict``: the verdict from those traces, and
- ``resolve(bmap, attacker, target, **kw) -> dict``: plan, trace and decide.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RULESETS", "ruleset", "resolve"]

#: ruleset name -> module
RULESETS: dict[str, str] = {
    "pf1e": "lineoffire.resolver.pf1e",
    "pf2e": "lineoffire.resolver.pf2e",
    "creature-cover": "lineoffire.resolver.creature_cover",
}


def ruleset(name: Any):
    """The module of ruleset ``name``; ValueError listing the choices if unknown."""
    if name not in RULESETS:
        raise ValueError(f"unknown rules {name!r}; expected one of {', '.join(RULESETS)}")
    return importlib.import_module(RULESETS[name])


def resolve(bmap, attacker: str, target: str, *, rules: str = "pf1e", **kw: Any) -> dict:
    """Cover of ``target`` against ``attacker`` under ``rules``."""
    return ruleset(rules).resolve(bmap, attacker, target, **kw)
