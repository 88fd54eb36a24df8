"""``lineoffire demo``: who has cover from whom on a bundled example map.

Usage::

    lineoffire demo [--map NAME] [--rules pf1e|pf2e|creature-cover]

Prints the map in the text format, then one row for every attacker and
target on opposing teams (creatures without a team are left out, and said
so): the target's cover under the ruleset, its bonus, and what gives the
cover.  The default map is the example ``crossroads`` (the first bundled
example if that one is missing); ``--map`` takes an example name or a path.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lineoffire.errors import MapError
from lineoffire.maps import BattleMap, example_names, load_map

__all__ = ["register", "run", "DEFAULT_MAP", "RULES", "cover_table", "grid_text"]

#: The example shown when ``--map`` is not given.
DEFAULT_MAP = "crossroads"
#: The rulesets the demo can show (as ``lineoffire.resolver.RULESETS``).
RULES: tuple[str, ...] = ("pf1e", "pf2e", "creature-cover")
#: The answer field that holds each ruleset's bonus, and its column title.
_BONUS = {"pf1e": ("ac_bonus", "AC"), "pf2e": ("defence_bonus", "defence"),
          "creature-cover": ("bonus", "evasion")}
#: At most this many providers are named per row.
_MAX_PROVIDERS = 4


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="show who has cover from whom on an example map",
        description=(
            "Print an example map and a table of the cover every target has "
            "against every attacker of an opposing team."
        ),
    )
    p.add_argument("--map", metavar="NAME",
                   help=f"example name or map file (default: {DEFAULT_MAP})")
    p.add_argument("--rules", default="pf1e", choices=list(RULES),
                   help="the ruleset (default: pf1e)")
    p.set_defaults(func=run)


def _default_map() -> str:
    names = example_names()
    if DEFAULT_MAP in names:
        return DEFAULT_MAP
    if not names:
        raise MapError("no example maps are installed (lineoffire/maps/examples is empty)")
    return names[0]


def grid_text(bmap: BattleMap) -> str:
    """The squares as rows of ``.``, ``#`` and ``=``, each creature's space
    marked with the first letter of its id (a plain picture of the map, used
    when the text format is not available).

    Examples
    --------
    >>> m = BattleMap.build(4, 2, squares=["..#.", "...="],
    ...                     creatures=[{"id": "Ann", "x": 0, "y": 0}])
    >>> print(grid_text(m))
    A.#.
    ...=
    """
    chars = {0: ".", 1: "#", 2: "="}
    rows = [[chars.get(int(v), "?") for v in row] for row in bmap.squares]
    for c in bmap.creatures:
        for col, row in c.squares():
            rows[row][col] = c.id[:1] or "?"
    return "\n".join("".join(r) for r in rows)


def _map_text(bmap: BattleMap) -> str:
    try:
        from lineoffire.maps.textfmt import dumps_text
    except ImportError:
        return grid_text(bmap)
    return dumps_text(bmap).rstrip("\n")


def _provider(p: dict[str, Any]) -> str:
    if "creature" in p:
        return f"creature {p['creature']}"
    if "square" in p:
        c, r = p["square"]
        return f"{p['kind']} square ({c}, {r})"
    i, j = p["wall"]
    return f"{p['kind']} #{i}.{j}"


def _providers(answer: dict[str, Any]) -> str:
    names = [_provider(p) for p in answer.get("providers") or ()]
    if len(names) > _MAX_PROVIDERS:
        names = names[:_MAX_PROVIDERS] + [f"+{len(names) - _MAX_PROVIDERS} more"]
    return ", ".join(names) or "-"


def _opposed(a, b) -> bool:
    return a.team is not None and b.team is not None and a.team != b.team


def cover_table(bmap: BattleMap, resolve, *, rules: str = "pf1e") -> list[str]:
    """Rows of text: the cover of every target against every opposing attacker.

    ``resolve(bmap, attacker, target, rules=...)`` is the resolver's entry
    point (:func:`lineoffire.resolver.resolve`).
    """
    key, title = _BONUS[rules]
    rows = [("attacker", "target", "cover", title, "cover from")]
    for a in bmap.creatures:
        for t in bmap.creatures:
            if a is t or not _opposed(a, t):
                continue
            ans = resolve(bmap, a.id, t.id, rules=rules)
            bonus = ans.get(key)
            bonus_text = "-" if bonus is None else f"{bonus:+d}"
            rows.append((a.id, t.id, str(ans["cover"]), bonus_text, _providers(ans)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    out = []
    for r in rows:
        out.append("  ".join(v.ljust(w) for v, w in zip(r[:4], widths)) + "  " + r[4])
        if len(out) == 1:
            out.append("-" * len(out[0]))
    return out


def run(args: argparse.Namespace) -> int:
    name = args.map or _default_map()
    bmap = load_map(name)
    try:
        from lineoffire.resolver import ruleset, resolve

        ruleset(args.rules)  # imports the ruleset's module
    except ImportError as exc:
        print(f"lineoffire demo: the {args.rules} rules are not available in this "
              f"build ({exc}); the map alone is shown by `lineoffire show {name}`",
              file=sys.stderr)
        return 2
    title = bmap.name or name
    print(f"== {title}: {bmap.width}x{bmap.height} squares of {bmap.square_ft:g} ft ==")
    print(_map_text(bmap))
    print()
    print(f"== cover under {args.rules}: each target against each attacker of another team ==")
    print("\n".join(cover_table(bmap, resolve, rules=args.rules)))
    print("(squares are (column, row); walls are #wall.segment, counted from 0 in the "
          "order the map lists them)")
    loners = [c.id for c in bmap.creatures if c.team is None]
    if loners:
        print(f"(no team, left out: {', '.join(loners)})")
    if len({c.team for c in bmap.creatures if c.team is not None}) < 2:
        print("(the map has fewer than two teams: no pairs to show)")
    return 0
