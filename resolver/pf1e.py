"""Pathfinder 1e cover (SPEC section 5, ``rules/pf1e-cover.txt``).

Ranged and reach attacks draw, from each corner of each shooter square, the 4
lines to the corners of each target square; the shooter picks the best
(corner, square) pair.  One line's verdict, first match wins:

======== ==========================================================
cover    the line is stopped
improved it crosses slit cover at a point where no slit piece is at
         distance 0 from the shooter
cover    it crosses a low piece that applies
soft     it passes through a creature
none     otherwise
======== ==========================================================

A pair's verdict is the worst of its 4 lines (none < partial < soft < cover <
improved), the result the best pair's.  Melee against an adjacent target
uses the wall rule instead; area effects draw from their origin.  No line of
effect is total cover, which overrides everything.

Examples
--------
A wall square between two medium creatures::

    . . . . .
    A . # . T      from the corner (0, 1) the lines to T's top corners graze
    . . . . .      the top of the wall square, the other two cross it

>>> from lineoffire.maps import BattleMap
>>> m = BattleMap.build(5, 3, squares=[".....", "..#..", "....."], creatures=[
...     {"id": "A", "x": 0, "y": 1}, {"id": "T", "x": 4, "y": 1}])
>>> r = resolve(m, "A", "T")
>>> r["cover"], r["ac_bonus"], r["corner"], r["square"]
('cover', 4, [0, 1], [4, 1])
>>> [ln["verdict"] for ln in r["lines"]]
['none', 'none', 'cover', 'cover']
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lineoffire.errors import RequestError
from lineoffire.geometry.lines import adjacent, corner_to_corner, origin_lines, square_corners
from lineoffire.geometry.types import Blocker, LineTrace
from lineoffire.maps.model import BattleMap, Creature

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
    piece_height,
    providers_of,
    total_cover,
    trace_plan,
)

__all__ = ["LEVELS", "OUTPUTS", "DEFAULT_OPTIONS", "plan", "decide", "effect_search", "resolve"]

RULES = "pf1e"

#: Line and pair verdicts, weakest first.
LEVELS: tuple[str, ...] = ("none", "partial", "soft", "cover", "improved")
NONE, PARTIAL, SOFT, COVER, IMPROVED = range(5)

#: cover -> (ac_bonus, reflex_bonus, stealth, stealth_bonus)
OUTPUTS: dict[str, tuple[int | None, int | None, bool, int]] = {
    "none": (0, 0, False, 0),
    "soft": (4, 0, False, 0),
    "partial": (2, 1, True, 0),
    "cover": (4, 2, True, 0),
    "improved": (8, 4, True, 10),
    "total": (None, None, True, 0),
}

#: Options of the pf1e rules and their defaults.
DEFAULT_OPTIONS: dict[str, bool] = {
    "partial_cover": False,
    "soft_cover_vs_reach": True,
    **TRACE_OPTIONS,
}

#: A low obstacle gives cover only to creatures within this many feet of it.
LOW_RANGE_FT = 30

_BLOCKING = ("solid", "wall", "door")


# ------------------------------------------------------------------- plan
def plan(
    bmap: BattleMap,
    attacker: str | None,
    target: str,
    *,
    attack: str = "ranged",
    origin: Any = None,
    options: Any = None,
) -> Plan:
    """The lines pf1e draws for ``attacker`` against ``target``.

    Line layout (``plan.meta["layout"]``):

    - ``"corners"`` (ranged, reach): for corner k of ``corners`` (every corner
      of every shooter square, sorted by (y, x)) and target square j of
      ``squares`` (sorted by (r, c)), lines ``4 * (k * J + j) + m`` run to the
      square's corners m, sorted by (y, x);
    - ``"melee"``: for each adjacent pair p of (shooter square, target square)
      in ``pairs``, lines ``16 * p + 4 * a + b`` from the shooter square's
      corner a to the target square's corner b;
    - ``"area"``: lines ``4 * j + m`` from the origin to the corners of target
      square j.

    When the two creatures are adjacent and the attack is not melee, the melee
    lines follow (``meta["aoo_pairs"]``): the attack of opportunity needs them.
    """
    attack = check_attack(attack, rules=RULES)
    opts = parse_options(options, DEFAULT_OPTIONS, rules=RULES)
    tgt = get_creature(bmap, target, "target")
    if attacker is None and attack != "area":
        raise RequestError(f"a {attack} attack needs an attacker", "bad_request")
    shooter = None if attacker is None else get_creature(bmap, attacker, "attacker")
    if shooter is not None and shooter.id == tgt.id:
        raise RequestError(f"attacker and target are both {tgt.id!r}", "bad_request")
    org = parse_origin(bmap, origin, attack)
    is_adjacent = shooter is not None and adjacent(shooter, tgt)
    if attack == "melee" and not is_adjacent:
        raise RequestError(
            f"melee: target {tgt.id!r} is not adjacent to attacker {shooter.id!r}; "
            "use attack 'reach' for a target further away",
            "not_adjacent",
        )
    t_squares = _squares(tgt)
    meta: dict[str, Any] = {
        "attack": attack,
        "options": opts,
        "attacker": None if shooter is None else shooter.id,
        "target": tgt.id,
        "origin": org,
        "adjacent": is_adjacent,
        "squares": t_squares,
    }
    if attack == "area":
        meta["layout"] = "area"
        main = origin_lines(org, tgt, "corners").reshape(-1, 4)
        # the lines start at the origin, a free point: a named caster plays no part
        att_main = np.full(len(main), -1, dtype=np.int64)
    elif attack == "melee":
        meta["layout"] = "melee"
        meta["pairs"] = _melee_pairs(shooter, tgt)
        main = _melee_lines(meta["pairs"])
        att_main = np.full(len(main), bmap.creature_index(shooter.id), dtype=np.int64)
    else:
        meta["layout"] = "corners"
        lines, corners, _ = corner_to_corner(shooter, tgt)
        meta["corners"] = [(float(x), float(y)) for x, y in corners]
        main = lines.reshape(-1, 4)
        att_main = np.full(len(main), bmap.creature_index(shooter.id), dtype=np.int64)
    meta["main"] = len(main)
    segments = [main]
    attackers = [att_main]
    if is_adjacent and attack != "melee":
        meta["aoo_pairs"] = _melee_pairs(shooter, tgt)
        extra = _melee_lines(meta["aoo_pairs"])
        segments.append(extra)
        attackers.append(np.full(len(extra), bmap.creature_index(shooter.id), dtype=np.int64))
    seg = np.concatenate(segments, axis=0)
    att = np.concatenate(attackers)
    tgt_idx = np.full(len(seg), bmap.creature_index(tgt.id), dtype=np.int64)
    trace_options = {k: bool(opts[k]) for k in TRACE_OPTIONS}
    return Plan(RULES, seg, att, tgt_idx, trace_options, meta)


def _squares(creature: Creature) -> list[tuple[int, int]]:
    """The creature's squares ``(c, r)``, sorted by ``(r, c)``."""
    return sorted(creature.squares(), key=lambda s: (s[1], s[0]))


def _melee_pairs(shooter: Creature, tgt: Creature) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [(s, q) for s in _squares(shooter) for q in _squares(tgt)
            if max(abs(s[0] - q[0]), abs(s[1] - q[1])) <= 1]


def _melee_lines(pairs) -> np.ndarray:
    if not pairs:
        return np.zeros((0, 4), dtype=np.float64)
    a = square_corners([s for s, _ in pairs])  # (P, 4, 2)
    b = square_corners([q for _, q in pairs])
    out = np.empty((len(pairs), 4, 4, 4), dtype=np.float64)
    out[..., :2] = a[:, :, None, :]
    out[..., 2:] = b[:, None, :, :]
    return out.reshape(-1, 4)


# ------------------------------------------------------------------ decide
class _Judge:
    """Line verdicts for one plan, caching per-piece distance tests."""

    def __init__(self, bmap: BattleMap, plan: Plan):
        meta = plan.meta
        self.bmap = bmap
        self.meta = meta
        self.attack = meta["attack"]
        # an area effect has no shooter: its lines come from the origin
        self.shooter = (None if plan.meta["attack"] == "area"
                        else plan_creature(bmap, plan, "attacker")[1])
        self.target = plan_creature(bmap, plan, "target")[1]
        self.soft_counts = self.attack != "reach" or meta["options"]["soft_cover_vs_reach"]
        self._low: dict[Any, bool] = {}
        self._at_slit: dict[Any, bool] = {}

    # A shooter standing at the slit (distance 0) ignores it.
    def _slit_exempt(self, b: Blocker) -> bool:
        if self.shooter is None:
            return False
        key = b.ref
        if key not in self._at_slit:
            self._at_slit[key] = piece_distance(self.bmap, self.shooter, b) == 0
        return self._at_slit[key]

    def counting_slits(self, tr: LineTrace) -> list[Blocker]:
        """Slit pieces at crossings the shooter does not stand at."""
        groups: dict[float, list[Blocker]] = {}
        for b in tr.of_kind("slit"):
            groups.setdefault(b.t, []).append(b)
        out: list[Blocker] = []
        for pieces in groups.values():
            if not any(self._slit_exempt(b) for b in pieces):
                out.extend(pieces)
        return out

    def low_applies(self, b: Blocker) -> bool:
        key = b.ref
        if key not in self._low:
            self._low[key] = self._low_applies(b)
        return self._low[key]

    def _low_applies(self, b: Blocker) -> bool:
        if piece_height(self.bmap, b) > self.target.height / 2:
            return True
        d_target = piece_distance(self.bmap, self.target, b)
        if d_target * self.bmap.square_ft > LOW_RANGE_FT:
            return False
        if self.shooter is None or self.attack == "area":
            return True
        return not piece_distance(self.bmap, self.shooter, b) < d_target

    def verdict(self, tr: LineTrace) -> int:
        if tr.stopped:
            return COVER
        if tr.slit:
            slits = tr.of_kind("slit")
            if not slits or self.counting_slits(tr):
                return IMPROVED
        if tr.low and any(self.low_applies(b) for b in tr.of_kind("low")):
            return COVER
        if tr.creatures and self.soft_counts:
            return SOFT
        return NONE

    def givers(self, tr: LineTrace, level: int) -> list[Blocker]:
        """The pieces on ``tr`` that by themselves give ``level``."""
        if level == COVER:
            out = [b for b in tr.blockers if b.kind in _BLOCKING] if tr.stopped else []
            out += [b for b in tr.of_kind("low") if self.low_applies(b)]
            return sorted(out, key=lambda b: b.t)
        if level == IMPROVED:
            return self.counting_slits(tr) or tr.of_kind("slit")
        if level == SOFT:
            return tr.of_kind("creature")
        return []

    @staticmethod
    def melee_cover(tr: LineTrace) -> bool:
        return bool(tr.stopped or tr.slit or tr.low)


def effect_search(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace]
                  ) -> tuple[int, int, bool] | None:
    """The line-of-effect search :func:`decide` would run for this plan, if any.

    Returns ``(attacker index, target index, drawn_stopped)`` when no drawn
    line proves line of effect (a zero-length line or a straight axis line
    with both ends on the creatures' edges proves nothing), else None (also
    for area effects, which :func:`decide` searches itself).
    ``drawn_stopped`` is True where the drawn lines are every
    corner-to-corner line (ranged and reach).  A caller that searches many
    pairs at once passes the answer back as ``decide(...,
    line_of_effect=...)``.
    """
    meta = plan.meta
    if meta["origin"] is not None or meta["attacker"] is None:
        return None
    n = meta["main"]
    ai, shooter = plan_creature(bmap, plan, "attacker")
    ti, target = plan_creature(bmap, plan, "target")
    if not effect_search_needed(plan.segments[:n], list(traces)[:n], shooter, target):
        return None
    return ai, ti, meta["layout"] == "corners"


def decide(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace], *,
           line_of_effect: bool | None = None, summary: bool = False) -> dict[str, Any]:
    """The pf1e answer for a plan from its traces (in the plan's line order).

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
    n = meta["main"]
    main, main_seg = traces[:n], plan.segments[:n]
    if meta["layout"] == "melee":
        cover, corner, square, providers, lines = _decide_melee(judge, meta["pairs"], main_seg, main,
                                                                summary=summary)
        melee_cover = cover == "cover"
    else:
        cover, corner, square, providers, lines = _decide_lines(judge, meta, main_seg, main,
                                                                summary=summary)
        melee_cover = False
        if meta["adjacent"]:
            melee_cover = any(judge.melee_cover(tr) for tr in _best_melee(meta["aoo_pairs"], traces[n:]))
    shooter = judge.shooter
    # Ranged and reach draw every corner-to-corner line: a search skips them.
    if total_cover(bmap, main_seg, main, shooter, judge.target, meta["origin"],
                   line_of_effect=line_of_effect, drawn_stopped=meta["layout"] == "corners"):
        cover = "total"
    aoo = None if not meta["adjacent"] else not (melee_cover or cover == "total")
    ac, reflex, stealth, stealth_bonus = OUTPUTS[cover]
    out = {
        "cover": cover,
        "ac_bonus": ac,
        "reflex_bonus": reflex,
        "stealth": stealth,
        "stealth_bonus": stealth_bonus,
        "attack_of_opportunity": aoo,
        "corner": corner,
        "square": square,
    }
    if not summary:
        out["providers"] = providers
        out["lines"] = lines
    return out


def _num(v: float) -> int | float:
    f = float(v)
    return int(f) if f.is_integer() else f


def _decide_lines(judge: _Judge, meta: dict[str, Any], seg: np.ndarray, traces: list[LineTrace],
                  *, summary: bool = False):
    ranks = np.array([judge.verdict(tr) for tr in traces], dtype=np.int64).reshape(-1, 4)
    worst = ranks.max(axis=1)
    base = worst.copy()
    if meta["options"]["partial_cover"]:
        partial = ((ranks == COVER).sum(axis=1) == 1) & ((ranks == NONE).sum(axis=1) == 3)
        worst[partial] = PARTIAL
    busy = (ranks != NONE).sum(axis=1)
    # Group order is corner (y, x) then square (r, c) by construction.
    g = int(np.lexsort((np.arange(len(worst)), busy, worst))[0])
    squares = meta["squares"]
    if meta["layout"] == "area":
        corner = [_num(v) for v in meta["origin"]]
        square = list(squares[g])
    else:
        k, j = divmod(g, len(squares))
        corner = [_num(v) for v in meta["corners"][k]]
        square = list(squares[j])
    if summary:
        return LEVELS[worst[g]], corner, square, None, None
    rows = range(4 * g, 4 * g + 4)
    givers: list[Blocker] = []
    for i in rows:
        if ranks.ravel()[i] == base[g] and base[g] != NONE:
            givers += judge.givers(traces[i], int(base[g]))
    lines = [line_json(seg[i], LEVELS[ranks.ravel()[i]], traces[i]) for i in rows]
    return LEVELS[worst[g]], corner, square, providers_of(givers), lines


def _melee_order(pairs, traces: list[LineTrace]) -> tuple[int, np.ndarray]:
    covered = np.array([_Judge.melee_cover(tr) for tr in traces], dtype=bool).reshape(len(pairs), 16)
    count = covered.sum(axis=1)
    p = int(np.lexsort((np.arange(len(pairs)), count, count > 0))[0])
    return p, covered[p]


def _best_melee(pairs, traces: list[LineTrace]) -> list[LineTrace]:
    p, _ = _melee_order(pairs, traces)
    return traces[16 * p:16 * p + 16]


def _decide_melee(judge: _Judge, pairs, seg: np.ndarray, traces: list[LineTrace],
                  *, summary: bool = False):
    p, covered = _melee_order(pairs, traces)
    s, q = pairs[p]
    rows = range(16 * p, 16 * p + 16)
    first = int(np.argmax(covered)) if covered.any() else 0
    corner = [_num(v) for v in seg[16 * p + first][:2]]
    if summary:
        return "cover" if covered.any() else "none", corner, list(q), None, None
    givers = [b for i in rows if covered[i - 16 * p]
              for b in traces[i].blockers if b.kind != "creature"]
    lines = [line_json(seg[i], "cover" if covered[i - 16 * p] else "none", traces[i]) for i in rows]
    cover = "cover" if covered.any() else "none"
    return cover, corner, list(q), providers_of(givers), lines


# ----------------------------------------------------------------- resolve
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
    """Cover of ``target`` against ``attacker`` under pf1e: plan, trace, decide.

    Parameters
    ----------
    bmap : BattleMap
    attacker : str or None
        The shooter's id (may be None for an area effect).
    target : str
    attack : {"ranged", "melee", "reach", "area"}
    origin : (x, y), optional
        The point an area effect comes from (area only).
    options : dict, optional
        ``partial_cover`` (False), ``soft_cover_vs_reach`` (True),
        ``ignore_dead`` and ``ignore_prone`` (False).
    attack_total, defence
        Not used by pf1e; giving them is an error.

    Returns
    -------
    dict
        ``cover``, ``ac_bonus``, ``reflex_bonus``, ``stealth``,
        ``stealth_bonus``, ``attack_of_opportunity``, ``corner``, ``square``,
        ``providers``, ``lines`` (SPEC section 5).

    Raises
    ------
    RequestError
        ``not_adjacent`` for melee against a target that is not adjacent;
        unknown options, attacks or creatures.
    """
    if parse_attack_numbers(attack_total, defence) is not None:
        raise RequestError(
            "attack_total and defence resolve attacks under the pf2e rules only, not pf1e",
            "bad_request",
        )
    p = plan(bmap, attacker, target, attack=attack, origin=origin, options=options)
    return decide(bmap, p, trace_plan(bmap, p))
