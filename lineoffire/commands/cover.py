"""``lineoffire cover``: the cover one creature has against another.

Usage::

    lineoffire cover MAP --attacker A --target T --rules pf1e|pf2e|creature-cover
        [--attack ranged|melee|reach|area] [--origin X,Y] [--option NAME=VALUE ...]
        [--attack-total N --defence D] [--json]

The human output is meant for a game master to check by eye: the verdict and
its bonuses, the corner and target square chosen, and every reported line
with what stopped it and who gives the cover.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from lineoffire.errors import RequestError
from lineoffire.ops import cover as cover_op
from lineoffire.resolver import RULESETS
from lineoffire.resolver.common import ATTACKS, options_from_strings

__all__ = ["register", "run", "parse_point", "format_answer"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "cover",
        help="cover of a target against an attacker",
        description="Cover of a target against an attacker under a ruleset.",
    )
    p.add_argument("map", metavar="MAP", help="map file (any readable format) or example name")
    p.add_argument("--attacker", "-a", help="the attacker's creature id (optional for --attack area)")
    p.add_argument("--target", "-t", required=True, help="the target's creature id")
    p.add_argument("--rules", "-r", required=True, choices=list(RULESETS), help="the ruleset")
    p.add_argument("--attack", default="ranged", choices=list(ATTACKS),
                   help="kind of attack (default: ranged)")
    p.add_argument("--origin", metavar="X,Y", help="an area effect's point of origin, in squares")
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", default=[],
                   help="a ruleset option, e.g. partial_cover=true (repeatable)")
    p.add_argument("--attack-total", type=int, metavar="N", help="attack total to resolve (pf2e)")
    p.add_argument("--defence", type=int, metavar="D", help="the target's defence (pf2e)")
    p.add_argument("--json", action="store_true", help="print the JSON answer")
    p.set_defaults(func=run)


def parse_point(text: str, where: str = "--origin") -> list[float]:
    """``"X,Y"`` -> ``[x, y]``.

    Examples
    --------
    >>> parse_point("2.5, 3")
    [2.5, 3.0]
    """
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return [float(parts[0]), float(parts[1])]
    except ValueError:
        raise RequestError(f"{where} must be X,Y (two numbers), not {text!r}") from None


def run(args: argparse.Namespace) -> int:
    request: dict[str, Any] = {"op": "cover", "map": args.map, "rules": args.rules,
                               "target": args.target, "attack": args.attack}
    if args.attacker is not None:
        request["attacker"] = args.attacker
    if args.origin is not None:
        request["origin"] = parse_point(args.origin)
    options = options_from_strings(args.option)
    if options:
        request["options"] = options
    if args.attack_total is not None:
        request["attack_total"] = args.attack_total
    if args.defence is not None:
        request["defence"] = args.defence
    answer = cover_op.run(request)
    if args.json:
        print(json.dumps(answer))
    else:
        print(format_answer(answer, request))
    return 0


# ------------------------------------------------------------------ output
def _pt(p: Any) -> str:
    return "(" + ", ".join(f"{v:g}" for v in p) + ")"


def _signed(v: Any) -> str:
    return "n/a" if v is None else f"{v:+d}"


def _piece(d: dict[str, Any]) -> str:
    kind = d["kind"]
    if "creature" in d:
        text = f"creature {d['creature']}"
    elif "square" in d:
        text = f"{kind} square {_pt(d['square'])}"
    else:
        i, j = d["wall"]
        text = f"{kind} wall {i} segment {j}"
    if "t" in d:
        text += f" at t={d['t']:.3g}"
    return text


def _yes(v: Any) -> str:
    return "n/a" if v is None else ("yes" if v else "no")


def format_answer(answer: dict[str, Any], request: dict[str, Any]) -> str:
    """The answer as lines of text a game master can check against the map."""
    who = request.get("attacker") or f"an area effect at {_pt(request['origin'])}"
    out = [f"{request['target']} against {who} ({request['rules']}, {request['attack']}): "
           f"{answer['cover']}"]
    done = {"cover", "providers", "lines", "corner", "square", "outcome", "hit"}
    if "ac_bonus" in answer:
        aoo = answer["attack_of_opportunity"]
        aoo_text = "n/a (not adjacent)" if aoo is None else ("allowed" if aoo else "not allowed")
        out.append(
            f"  AC {_signed(answer['ac_bonus'])}, Reflex {_signed(answer['reflex_bonus'])}, "
            f"may hide: {_yes(answer['stealth'])} (Stealth {_signed(answer['stealth_bonus'])}), "
            f"attack of opportunity: {aoo_text}"
        )
        done |= {"ac_bonus", "reflex_bonus", "stealth", "stealth_bonus", "attack_of_opportunity"}
    elif "defence_bonus" in answer:
        out.append(
            f"  defence {_signed(answer['defence_bonus'])}, Stealth "
            f"{_signed(answer['stealth_bonus'])}, can hide: {_yes(answer['can_hide'])}"
        )
        done |= {"defence_bonus", "stealth_bonus", "can_hide"}
    for key, value in answer.items():
        if key not in done:
            out.append(f"  {key}: {json.dumps(value)}")
    if "corner" in answer:
        what = "origin" if request["attack"] == "area" else "corner"
        out.append(f"  chosen {what} {_pt(answer['corner'])} -> target square {_pt(answer['square'])}")
    if "providers" in answer:
        givers = ", ".join(_piece(p) for p in answer["providers"]) or "nothing"
        out.append(f"  cover given by: {givers}")
    if "outcome" in answer:
        hit = answer["hit"]
        out.append(
            f"  attack {request['attack_total']} vs "
            + (f"defence {request['defence']}" if request.get("defence") is not None
               else f"evasion {answer.get('base_evasion')}")
            + ": "
            f"{answer['outcome']}" + ("" if hit is None else f" -> {hit}")
        )
    if answer.get("lines"):
        out.append("  lines:")
        for ln in answer["lines"]:
            blockers = "; ".join(_piece(b) for b in ln["blockers"]) or "clear"
            out.append(f"    {_pt(ln['from'])} -> {_pt(ln['to'])}  {ln['verdict']:<8}  {blockers}")
    return "\n".join(out)
