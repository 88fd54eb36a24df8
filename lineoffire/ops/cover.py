"""The ``cover`` request op (SPEC section 6).

Request fields: ``map``, ``rules``, ``attacker``, ``target``, and optionally
``attack`` (ranged by default; melee, reach, area), ``origin`` (area only),
``options``, ``attack_total`` and ``defence``.  The answer is the ruleset's
output (SPEC section 5), ``cover`` first.
"""

from __future__ import annotations

from typing import Any

from lineoffire.errors import MapError, RequestError
from lineoffire.ops import check_fields
from lineoffire.maps import load_map
from lineoffire.resolver import RULESETS, ruleset

__all__ = ["FIELDS", "run"]

#: The fields a cover request may have.
FIELDS: tuple[str, ...] = (
    "op", "map", "rules", "attacker", "target", "attack", "origin", "options",
    "attack_total", "defence",
)


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one ``cover`` request.

    Raises
    ------
    RequestError
        For a bad request (unknown fields or rules, missing ids, bad options,
        ``not_adjacent`` melee); type mistakes are reported as RequestError
        too, with code ``bad_request``.
    MapError
        For a bad map.
    """
    check_fields(request, "cover", FIELDS, ("map",))
    for key in ("rules", "target"):
        if key not in request:
            raise RequestError(f"cover request has no {key!r}", "bad_request")
    attack = request.get("attack", "ranged")
    if "attacker" not in request and attack != "area":
        raise RequestError("cover request has no 'attacker'", "bad_request")
    rules = request["rules"]
    if not isinstance(rules, str) or rules not in RULESETS:
        raise RequestError(
            f"unknown rules {rules!r}; expected one of {', '.join(RULESETS)}", "unknown_rules"
        )
    bmap = load_map(request["map"])
    kw: dict[str, Any] = {"attack": attack}
    for key in ("origin", "options", "attack_total", "defence"):
        if request.get(key) is not None:
            kw[key] = request[key]
    try:
        return ruleset(rules).resolve(bmap, request.get("attacker"), request["target"], **kw)
    except (RequestError, MapError):
        raise
    except (TypeError, ValueError) as exc:
        raise RequestError(str(exc), "bad_request") from None
