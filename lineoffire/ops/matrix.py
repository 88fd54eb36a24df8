"""The ``matrix`` request op (SPEC section 6): cover for every ordered pair.

Request fields: ``map``, ``rules``, and optionally ``attackers`` and
``targets`` (lists of ids; default every creature), ``range_ft`` (no limit
by default), ``attack`` (ranged, melee or reach; melee pairs only adjacent
creatures), ``options`` (the ruleset's) and ``chunk_size`` (pairs traced
together; the answer does not depend on it).  Answer:
``{"pairs": [{"attacker", "target", "cover", ...}]}``, each pair's entry
being the ruleset's ``cover`` answer, ordered by attacker then target in the
order of the lists.
"""

from __future__ import annotations

from typing import Any

from lineoffire.errors import MapError, RequestError
from lineoffire.ops import check_fields
from lineoffire.maps import load_map
from lineoffire.matrix import DEFAULT_CHUNK, cover_matrix

__all__ = ["FIELDS", "run"]

#: The fields a matrix request may have.
FIELDS: tuple[str, ...] = (
    "op", "map", "rules", "attackers", "targets", "range_ft", "attack", "options", "chunk_size",
)


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Answer one ``matrix`` request.

    Raises
    ------
    RequestError
        For a bad request (unknown fields, rules, attack, ids or options, a
        bad range); type mistakes are reported as RequestError with code
        ``bad_request``.
    MapError
        For a bad map.
    """
    check_fields(request, "matrix", FIELDS, ("map", "rules"))
    bmap = load_map(request["map"])
    try:
        result = cover_matrix(
            bmap,
            rules=request["rules"],
            attackers=request.get("attackers"),
            targets=request.get("targets"),
            range_ft=request.get("range_ft"),
            attack=request.get("attack", "ranged"),
            options=request.get("options"),
            chunk_size=request.get("chunk_size", DEFAULT_CHUNK),
            keep_answers=True,
        )
    except (RequestError, MapError):
        raise
    except (TypeError, ValueError) as exc:
        raise RequestError(f"matrix request: {exc}", "bad_request") from None
    return result.to_json()
