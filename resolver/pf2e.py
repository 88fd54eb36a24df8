"""Pathfinder 2e-style cover: lesser, standard, greater (SPEC section 5, ``rules/pf2e-cover.txt``).

One line from the centre of the shooter's space to the centre of the
target's space (option ``lean``: from the shooter's best corner instead; an
area effect: from its origin).  Its verdict, first match wins:

========= ============================================================
standard  the line is stopped (the target has line of effect elsewhere)
greater   it crosses slit cover, unless the shooter is at distance 0 from
          the slit
standard  it crosses low cover
standard  it passes through a creature two or more sizes larger than both
          the shooter and the target
lesser    it passes through any other creature
none      otherwise
========= ============================================================

A target that has Taken Cover (``taken_cover``) turns standard into greater.
No line of effect is total cover.  With an attack total and a defence D the
answer also resolves the attack: total >= D + bonus hits the target,
D <= total < D + bonus hits the cover, less misses.

Examples
--------
::

    . . . . .
    A . B . T      the centre line passes through B: lesser cover
    . . . . .

>>> from lineoffire.maps import BattleMap
>>> m = BattleMap.build(5, 3, creatures=[{"id": "A", "x": 0, "y": 1},
...                                      {"id": "B", "x": 2, "y": 1}, {"id": "T", "x": 4, "y": 1}])
>>> r = resolve(m, "A", "T", attack_total=15, defence=15)
>>> r["cover"], r["defence_bonus"], r["outcome"], r["hit"]
('lesser', 1, 'hit_cover', 'B')
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lineoffire.errors import RequestError
from lineoffire.geometry.lines import centre_line, origin_lines
from lineoffire.geometry.types import Blocker, LineTrace
from lineoffire.maps.model import BattleMap

from .common import (
    TRACE_OPTIONS,
    Plan,
    check_attack,
    check_flag,
    effect_search_needed,
    get_creature,
    line_json,
    parse_attack_numbers,
    parse_options,
    parse_origin,
    piece_distance,
    plan_creature,
    providers_of,
    total_cover,
    trace_plan,
)

__all__ = ["LEVELS", "OUTPUTS", "DEFAULT_OPTIONS", "plan", "decide", "effect_search", "resolve",
           "attack_outcome"]

RULES = "pf2e"

#: Cover levels, weakest first.
LEVELS: tuple[str, ...] = ("none", "lesser", "standard", "greater")
NONE, LESSER, STANDARD, GREATER = range(4)

#: cover -> (defence_bonus, stealth_bonus, can_hide)
OUTPUTS: dict[str, tuple[int | None, int | None, bool]] = {
    "none": (0, 0, False),
    "lesser": (1, 0, False),
    "standard": (2, 2, True),
    "greater": (4, 4, True),
    "total": (None, None, False),
}

#: Options of the pf2e rules and their defaults.
DEFAULT_OPTIONS: dict[str, bool] = {"lean": False, **TRACE_OPTIONS}

#: A creature this many sizes larger than both shooter and target gives standard cover.
BIG_STEP = 2

_BLOCKING = ("solid", "wall", "door")


def plan(
    bmap: BattleMap,
    attacker: str | None,
    target: str,
    *,
    attack: str = "ranged",
    origin: Any = None,
    options: Any = None,
) -> Plan:
    """The line(s) pf2e draws: one centre line, one from each of the four
    corners of the shooter's space with ``lean`` (sorted by (y, x)), or one
    from an area effect's origin."""
    attack = check_attack(attack, rules=RULES)
    opts = parse_options(options, DEFAULT_OPTIONS, rules=RULES)
    tgt = get_creature(bmap, target, "target")
    if attacker is None and attack != "area":
        raise RequestError(f"a {attack} attack needs an attacker", "bad_request")
    shooter = None if attacker is None else get_creature(bmap, attacker, "attacker")
    if shooter is not None and shooter.id == tgt.id:
        raise RequestError(f"attacker and target are both {tgt.id!r}", "bad_request")
    org = parse_origin(bmap, origin, attack)
    if attack == "area" and opts["lean"]:
        raise RequestError("option 'lean' does not apply to area effects", "bad_option")
    if attack == "area":
        seg = origin_lines(org, tgt, "centre")[None, :]
        # the line starts at the origin, a free point: a named caster plays no part
        att = -1
    elif opts["lean"]:
        centre = centre_line(shooter, tgt)
        # the four corners of the shooter's space, by (y, x)
        x0, y0, x1, y1 = shooter.rect
        starts = np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]], dtype=np.float64)
        seg = np.concatenate([starts, np.broadcast_to(centre[2:], starts.shape)], axis=1)
        att = bmap.creature_index(shooter.id)
    else:
        seg = centre_line(shooter, tgt)[None, :]
        att = bmap.creature_index(shooter.id)
    meta = {
        "attack": attack,
        "options": opts,
        "attacker": None if shooter is None else shooter.id,
        "target": tgt.id,
        "origin": org,
    }
    return Plan(
        RULES,
        seg,
        np.full(len(seg), att, dtype=np.int64),
        np.full(len(seg), bmap.creature_index(tgt.id), dtype=np.int64),
        {k: bool(opts[k]) for k in TRACE_OPTIONS},
        meta,
    )


class _Judge:
    def __init__(self, bmap: BattleMap, plan: Plan):
        self.bmap = bmap
        # an area effect has no shooter: its line comes from the origin
        self.shooter = (None if plan.meta["attack"] == "area"
                        else plan_creature(bmap, plan, "attacker")[1])
        self.target = plan_creature(bmap, plan, "target")[1]
        sizes = [self.target.size_index]
        if self.shooter is not None:
            sizes.append(self.shooter.size_index)
        self.big_from = max(sizes) + BIG_STEP
        self._at_slit: dict[Any, bool] = {}

    def _slit_exempt(self, b: Blocker) -> bool:
        if self.shooter is None:
            return False
        if b.ref not in self._at_slit:
            self._at_slit[b.ref] = piece_distance(self.bmap, self.shooter, b) == 0
        return self._at_slit[b.ref]

    def counting_slits(self, tr: LineTrace) -> list[Blocker]:
        groups: dict[float, list[Blocker]] = {}
        for b in tr.of_kind("slit"):
            groups.setdefault(b.t, []).append(b)
        return [b for pieces in groups.values() if not any(self._slit_exempt(x) for x in pieces)
                for b in pieces]

    def big(self, b: Blocker) -> bool:
        return self.bmap.creature(b.creature).size_index >= self.big_from

    def verdict(self, tr: LineTrace) -> int:
        if tr.stopped:
            return STANDARD
        if tr.slit and (not tr.of_kind("slit") or self.counting_slits(tr)):
            return GREATER
        if tr.low:
            return STANDARD
        creatures = tr.of_kind("creature")
        if any(self.big(b) for b in creatures):
            return STANDARD
        return LESSER if creatures else NONE

    def givers(self, tr: LineTrace, level: int) -> list[Blocker]:
        """The pieces and creatures on ``tr`` that by themselves give ``level``."""
        if level == GREATER:
            return self.counting_slits(tr) or tr.of_kind("slit")
        if level == STANDARD:
            return [b for b in tr.blockers
                    if (b.kind in _BLOCKING and tr.stopped) or b.kind == "low"
                    or (b.kind == "creature" and self.big(b))]
        if level == LESSER:
            return tr.of_kind("creature")
        return []


def effect_search(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace]
                  ) -> tuple[int, int, bool] | None:
    """The line-of-effect search :func:`decide` would run for this plan, if any.

    Returns ``(attacker index, target index, False)`` when no drawn line
    proves line of effect, else None (also for area effects, which
    :func:`decide` searches itself).  The last item (``drawn_stopped``) is
    False: only the centre line (or the lean lines) was drawn, so the
    search keeps its fast accept.  A caller that searches many pairs at once
    passes the answer back as ``decide(..., line_of_effect=...)``.
    """
    meta = plan.meta
    if meta["origin"] is not None or meta["attacker"] is None:
        return None
    ai, shooter = plan_creature(bmap, plan, "attacker")
    ti, target = plan_creature(bmap, plan, "target")
    if not effect_search_needed(plan.segments, list(traces), shooter, target):
        return None
    return ai, ti, False


def decide(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace], *,
           line_of_effect: bool | None = None, summary: bool = False) -> dict[str, Any]:
    """The pf2e answer for a plan from its traces (in the plan's line order).

    ``line_of_effect``, when given, is whether the attacker has line of
    effect to the target (found by the caller, see :func:`effect_search`);
    None searches when no drawn line proves it.  With ``summary`` the answer
    leaves out ``providers`` and ``lines`` (the costly parts, which the cover
    matrix does not keep); every other field is the full answer's.
    """
    check_flag(summary, "summary")
    meta = plan.meta
    traces = list(traces)
    if len(traces) != len(plan):
        raise ValueError(f"decide needs {len(plan)} traces (one per planned line), not {len(traces)}")
    judge = _Judge(bmap, plan)
    ranks = np.array([judge.verdict(tr) for tr in traces], dtype=np.int64)
    i = int(np.argmin(ranks))  # first best: corners are in (y, x) order
    level = int(ranks[i])
    cover = LEVELS[level]
    if level == STANDARD and judge.target.taken_cover:
        cover = LEVELS[GREATER]
    if total_cover(bmap, plan.segments, traces, judge.shooter, judge.target, meta["origin"],
                   line_of_effect=line_of_effect):
        cover = "total"
    defence_bonus, stealth_bonus, can_hide = OUTPUTS[cover]
    out = {
        "cover": cover,
        "defence_bonus": defence_bonus,
        "stealth_bonus": stealth_bonus,
        "can_hide": can_hide,
    }
    if not summary:
        out["providers"] = providers_of(judge.givers(traces[i], level))
        out["lines"] = [line_json(plan.segments[i], LEVELS[level], traces[i])]
    return out


def attack_outcome(answer: dict[str, Any], attack_total: int, defence: int,
                   target: str) -> tuple[str, str | None]:
    """``(outcome, hit)`` of an attack total against defence ``defence``.

    ``total >= defence + bonus`` hits the target; ``defence <= total <
    defence + bonus`` hits the cover: the nearest creature among the providers
    when a creature gives the cover level, else ``"object"``; less misses.
    Nothing can be attacked through total cover: that is a miss.

    Examples
    --------
    >>> ans = {"cover": "lesser", "defence_bonus": 1,
    ...        "providers": [{"kind": "creature", "creature": "B"}]}
    >>> [attack_outcome(ans, n, 15, "T") for n in (14, 15, 16)]
    [('miss', None), ('hit_cover', 'B'), ('hit', 'T')]
    """
    bonus = answer["defence_bonus"]
    if bonus is None or attack_total < defence:
        return "miss", None
    if attack_total >= defence + bonus:
        return "hit", target
    for p in answer["providers"]:
        if p["kind"] == "creature":
            return "hit_cover", p["creature"]
    return "hit_cover", "object"


def resolve(
    bmap: BattleMap,
    attacker: str | None,
    target: str,
    *,
    attack: str = "ranged",
    origin: Any = None,
    options: Any = None,
    attack_total: Any = None,
    defence: Any = None,
) -> dict[str, Any]:
    """Cover of ``target`` against ``attacker`` under pf2e: plan, trace, decide.

    Parameters
    ----------
    bmap : BattleMap
    attacker : str or None
        The shooter's id (may be None for an area effect).
    target : str
    attack : {"ranged", "melee", "reach", "area"}
        All but ``area`` draw the same line.
    origin : (x, y), optional
        The point an area effect comes from (area only).
    options : dict, optional
        ``lean``, ``ignore_dead``, ``ignore_prone`` (all False by default).
    attack_total, defence : int, optional
        Given together, the answer adds ``outcome`` (``hit``, ``hit_cover``,
        ``miss``) and ``hit`` (an id, ``"object"`` or None).

    Returns
    -------
    dict
        ``cover``, ``defence_bonus``, ``stealth_bonus``, ``can_hide``,
        ``providers``, ``lines`` (SPEC section 5).
    """
    numbers = parse_attack_numbers(attack_total, defence)
    p = plan(bmap, attacker, target, attack=attack, origin=origin, options=options)
    out = decide(bmap, p, trace_plan(bmap, p))
    if numbers is not None:
        out["outcome"], out["hit"] = attack_outcome(out, numbers[0], numbers[1], target)
    return out
