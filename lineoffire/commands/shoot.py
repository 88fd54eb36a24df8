"""``lineoffire shoot``: resolve shots under the Creature Cover rules.

Example::

    $ lineoffire shoot raid.json --attacker S --target P --burst 4 --rolls 11,15,18,13
    S shoots P: full cover (+4), Evasion 12 -> 16; 13-16 hits R
    Shot | Roll | Result
    -----+------+-----------
    1    | 11   | Miss
    2    | 15   | Hits R
    3    | 18   | Hits P
    4    | 13   | Hits R
    P takes 1 hit. R takes 2 hits. 1 shot missed entirely.

With ``--attack-bonus`` the shots are rolled (d20 + bonus, ``--seed`` for
repeatable rolls) unless ``--rolls`` are given, and the chance of each outcome
of one shot follows the table.  An overwatch attack is an ordinary shot.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from lineoffire.errors import RequestError

__all__ = ["register", "run", "parse_rolls", "render"]


def parse_rolls(text: str) -> list[int]:
    """``"11,15,18,13"`` -> ``[11, 15, 18, 13]``.

    >>> parse_rolls("11, 15,18")
    [11, 15, 18]
    """
    out = []
    for i, part in enumerate(text.split(",")):
        part = part.strip()
        try:
            out.append(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"item {i + 1} ({part!r}) is not an integer attack total; "
                "give them like 11,15,18,13") from None
    return out


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "shoot",
        help="resolve shots under the Creature Cover rules",
        description="Resolve single or burst fire at a target behind Creature Cover: "
                    "cover windows, friendly fire, stray shots, called shots.",
    )
    p.add_argument("map", metavar="MAP", help="a map file or a bundled example name")
    p.add_argument("--attacker", required=True, metavar="A", help="the shooter's id")
    p.add_argument("--target", required=True, metavar="T", help="the target's id")
    p.add_argument("--burst", type=int, metavar="N",
                   help="burst fire of N shots (misses go on as strays)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--rolls", type=parse_rolls, metavar="R1,R2,...",
                     help="attack totals, one shot each")
    how.add_argument("--seed", type=int, metavar="S", help="seed for rolled d20s")
    p.add_argument("--attack-bonus", type=int, metavar="B",
                   help="roll d20 + B per shot and show the chance of each outcome")
    p.add_argument("--evasion", type=int, metavar="E", help="the target's base Evasion")
    p.add_argument("--called-shot", metavar="LIMB",
                   help="head, torso, left_arm, right_arm, left_leg or right_leg")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="ruleset option (ignore_dead, ignore_prone); repeatable")
    p.add_argument("--json", action="store_true", help="print the JSON answer")
    p.set_defaults(func=run)


def _result(answer: dict[str, Any], shot: dict[str, Any]) -> str:
    hit, outcome = shot["hit"], shot["outcome"]
    if outcome == "blocked":
        return "Hits the obstacle (no line of effect)"
    if outcome == "held":
        return "Miss (Trigger Discipline)"
    if outcome == "miss":
        return "Miss"
    if outcome == "lost":
        return "Miss (stray shot lost)"
    name = "the cover (object)" if hit == "object" else hit
    text = f"Stray shot hits {name}" if outcome == "stray" else f"Hits {name}"
    if shot["called_shot_lost"] and shot["limb"] is not None:
        limb = shot["limb"].replace("_", " ")
        text += f" (called shot lost: {limb}, d20 {shot['location_roll']})"
    elif shot["called_shot_lost"]:
        text += " (called shot lost)"
    elif shot["limb"] is not None:
        text += f" ({shot['limb'].replace('_', ' ')})"
    return text


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for j, row in enumerate(rows):
        out.append(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if j == 0:
            out.append("-+-".join("-" * w for w in widths))
    return out


def render(answer: dict[str, Any], *, attack_bonus: int | None = None) -> str:
    """The human-readable report of a ``shots`` answer."""
    a, t = answer["attacker"], answer["target"]
    if answer["blocked"]:
        head = f"{a} shoots {t}: total cover (no line of effect); every shot hits the obstacle"
    else:
        e, bonus = answer["base_evasion"], answer["bonus"]
        head = f"{a} shoots {t}: {answer['cover']} cover (+{bonus}), Evasion {e}"
        if bonus:
            head += f" -> {answer['enhanced_evasion']}"
        windows = [
            f"{w['from'] + 1}-{w['to']} hits "
            + ("the cover (object)" if w["creature"] == "object" else w["creature"])
            for w in answer["windows"]
        ]
        if windows:
            head += "; " + ", ".join(windows)
    lines = [head]
    rows = [["Shot", "Roll", "Result"]]
    for i, s in enumerate(answer["shots"], 1):
        roll = str(s["roll"])
        if s.get("d20") is not None and attack_bonus:
            roll += f" ({s['d20']}{attack_bonus:+d})"
        rows.append([str(i), roll, _result(answer, s)])
    lines += _table(rows)
    lines.append(answer["summary"])
    probs = answer.get("probabilities")
    if probs:
        bonus_text = f"d20{attack_bonus:+d}" if attack_bonus else "d20"
        lines.append(f"Chance of each outcome of one shot ({bonus_text}):")
        width = max(len(k) for k in probs)
        for key, frac in probs.items():
            pct = float(Fraction(frac)) * 100
            name = "miss (hits nobody)" if key == "miss" else key
            lines.append(f"  {name.ljust(max(width, 18))}  {frac:>6}  {pct:5.1f}%")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from lineoffire.maps import load_map
    from lineoffire.resolver import creature_cover
    from lineoffire.resolver.common import options_from_strings

    if args.rolls is None and args.attack_bonus is None:
        raise RequestError("give --rolls (attack totals) or --attack-bonus (to roll d20s)",
                           "bad_request")
    bmap = load_map(args.map)
    answer = creature_cover.shots(
        bmap,
        args.attacker,
        args.target,
        rolls=args.rolls,
        attack_bonus=args.attack_bonus,
        seed=args.seed,
        burst=args.burst,
        evasion=args.evasion,
        called_shot=args.called_shot,
        options=options_from_strings(args.option) or None,
    )
    if args.json:
        json.dump(answer, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(render(answer, attack_bonus=args.attack_bonus))
    return 0
