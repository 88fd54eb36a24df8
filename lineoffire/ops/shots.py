"""The ``shots`` op: Creature Cover attack resolution (SPEC section 6).

Request::

    {"op": "shots", "map": ..., "attacker": "S", "target": "P",
     "rolls": [11, 15, 18, 13], "burst": 4}

or with ``"attack_bonus"`` (d20 + bonus per shot, optional ``"seed"``) in
place of, or beside, ``"rolls"``; optional ``"evasion"``, ``"called_shot"``,
``"options"``, ``"attack"`` (ranged, melee or reach: the same line) and
``"rules"`` (only ``"creature-cover"``).  An overwatch attack is an ordinary
shots request.  An area effect (``"attack": "area"``) is refused with code
``bad_attack``: it makes no attack roll through creature cover (the ``cover``
op gives its cover).  The answer is
:func:`lineoffire.resolver.creature_cover.shots`'s.
"""

from __future__ import annotations

from typing import Any

from lineoffire.errors import RequestError
from lineoffire.ops import check_fields
from lineoffire.maps import load_map
from lineoffire.resolver import creature_cover

__all__ = ["FIELDS", "run"]

#: The fields a shots request may have.
FIELDS: tuple[str, ...] = (
    "op", "map", "rules", "attacker", "target", "rolls", "attack_bonus", "seed", "burst",
    "evasion", "called_shot", "options", "attack",
)


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one ``shots`` request."""
    if isinstance(request, dict) and request.get("attack") == "area":
        # said before the field check, so an "origin" beside it is not the complaint
        creature_cover.check_shot_attack("area")
    check_fields(request, "shots", FIELDS)
    rules = request.get("rules", creature_cover.RULES)
    if rules != creature_cover.RULES:
        raise RequestError(
            f"shots: the shots op resolves the {creature_cover.RULES!r} rules only, not {rules!r}",
            "bad_request")
    for key in ("map", "attacker", "target"):
        if key not in request:
            raise RequestError(f"shots: the request has no {key!r}", "bad_request")
    bmap = load_map(request["map"])
    return creature_cover.shots(
        bmap,
        request["attacker"],
        request["target"],
        rolls=request.get("rolls"),
        attack_bonus=request.get("attack_bonus"),
        seed=request.get("seed"),
        burst=request.get("burst"),
        evasion=request.get("evasion"),
        called_shot=request.get("called_shot"),
        options=request.get("options"),
        attack=request.get("attack", "ranged"),
    )
