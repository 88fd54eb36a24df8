"""The Python API: thin functions over the engine, one call per question.

Every function takes a map as a :class:`~lineoffire.maps.BattleMap`, a path,
a bundled example name or a JSON-format dict.
"""

from __future__ import annotations

from typing import Any, Sequence

from lineoffire.maps import BattleMap, load_map
from lineoffire.resolver import ruleset

__all__ = ["cover", "shots", "cover_matrix", "line_of_effect"]


def _map(source: Any) -> BattleMap:
    return source if isinstance(source, BattleMap) else load_map(source)


def cover(bmap: Any, attacker: str, target: str, *, rules: str = "pf1e",
          attack: str = "ranged", origin: Sequence[float] | None = None,
          options: dict[str, Any] | None = None, attack_total: int | None = None,
          defence: int | None = None) -> dict[str, Any]:
    """Cover of ``target`` against ``attacker`` under ``rules`` (SPEC section 5).

    Examples
    --------
    >>> from lineoffire.maps import BattleMap
    >>> m = BattleMap.build(5, 3, squares=["..#..", "..#..", "..#.."], creatures=[
    ...     {"id": "A", "x": 0, "y": 1}, {"id": "T", "x": 4, "y": 1}])
    >>> cover(m, "A", "T")["cover"]
    'total'
    >>> pillar = BattleMap.build(5, 3, squares=[".....", "..#..", "....."],
    ...                          creatures=m.creatures)
    >>> cover(pillar, "A", "T", rules="pf2e")["cover"]
    'standard'
    """
    kw: dict[str, Any] = dict(attack=attack, origin=origin, options=options)
    if attack_total is not None or defence is not None:
        kw.update(attack_total=attack_total, defence=defence)
    return ruleset(rules).resolve(_map(bmap), attacker, target, **kw)


def shots(bmap: Any, attacker: str, target: str, **kw: Any) -> dict[str, Any]:
    """Creature Cover shot resolution (the ``shots`` op's answer); see
    :func:`lineoffire.resolver.creature_cover.shots` for the keywords."""
    from lineoffire.resolver.creature_cover import shots as _shots

    return _shots(_map(bmap), attacker, target, **kw)


def cover_matrix(bmap: Any, **kw: Any):
    """Cover of every ordered pair of creatures (a ``MatrixResult``); see
    :func:`lineoffire.matrix.cover_matrix` for the keywords.

    (Named so that it cannot be shadowed by the :mod:`lineoffire.matrix` module.)
    """
    from lineoffire.matrix import cover_matrix as _cover_matrix

    return _cover_matrix(_map(bmap), **kw)


def line_of_effect(bmap: Any, attacker: str, target: str | None = None, *,
                   origin: Sequence[float] | None = None) -> bool:
    """Whether ``attacker`` (or an area ``origin``) has line of effect to ``target``."""
    from lineoffire.geometry.effect import line_of_effect as _loe

    return _loe(_map(bmap), attacker, target, origin=origin)
