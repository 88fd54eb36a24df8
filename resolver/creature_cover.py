"""The Creature Cover ruleset (SPEC section 5; rule text ``rules/creature-cover.txt``).

One centre-to-centre line from the shooter to the target, and its extension
past the target to the map edge for stray shots; for an area effect, one line
from the effect's origin (a free point) to the target's centre, with no
extension (strays belong to burst fire).  Creatures on the line in
front of the target give Evasion bonuses by size; obstacles give object cover;
the two do not stack.  Shots are resolved by :mod:`lineoffire.resolver.shots`.

Rules as data (tables below) beside a small engine:

- a creature in front gives :func:`size_bonus` of its size index minus the
  target's: >= 0 gives +4 (full), -1 gives +2 (half), less gives nothing and
  has no window; the bonuses stack, nearest first;
- a target that grapples a creature (human shield) has it in front for every
  attack, last in the order unless it is already on the line (where it keeps
  its place); it is then never behind the target;
- object cover (:data:`OBJECT_BONUS`): a stopped line whose target still has
  line of effect (it peeks past the obstacle) +4, slit cover +4 (none if the
  shooter is at distance 0 from the slit), low cover +2; the best one counts;
- object and creature cover do not stack: the higher total counts; on a tie,
  the provider nearer the shooter (a human shield held off the line counts as
  standing at the target);
- no line of effect: total cover, the answer says ``blocked`` and every shot
  hits ``"object"``;
- area effects (SPEC section 4, "area (all)"): the line starts at the origin,
  a free point, so whoever casts plays no part: a caster standing on the line
  is a creature in front like any other, no slit is exempt (no shooter stands
  at it), Trigger Discipline does not apply, and line of effect is from the
  origin.  The ``shots`` op makes attack rolls, which an area effect does not,
  so it refuses area effects, and so does ``attack_total`` here;
- stray shots (burst misses) go on along the extension to the creatures
  behind the target, up to the first point where a blocking obstacle stops
  the extension; slit and low cover do not stop them.

Decisions where the text is silent (documented in the README too):

- Evasion: the target's Evasion (or the request's ``evasion``) is needed for
  every shot that is not blocked; the Evasion of each creature behind the
  target that a stray can reach is needed for bursts; creatures in front need
  none (their window is over the target's Evasion).  A missing one is an
  error naming the creature.
- A natural 1 or 20 means nothing: only the attack total counts.
- Overwatch attacks follow the same rules: an overwatch shot is a normal
  ``shots`` request.
- An area effect whose named caster is also its target is refused, as in the
  pf1e and pf2e rules (name no caster for an effect that catches its caster).
- Trigger Discipline (shooter trait ``trigger_discipline``) turns a window hit
  on a creature of the shooter's team into a miss, which is not a stray.
  Creatures without a team have no allies.  Stray shots are not covered by
  the trait (it speaks of the cover window only).
- A called shot that hits any creature other than the target (in front, or a
  stray) loses its limb: a random location is rolled; one that hits the
  object loses it too, with no location.

Examples
--------
A raider ``S`` shoots the player ``P`` (Evasion 12) past a melee raider ``R``
of the same size::

    S . R P .

>>> from lineoffire.maps import BattleMap
>>> m = BattleMap.build(5, 1, creatures=[
...     {"id": "S", "x": 0, "y": 0, "team": "raiders"},
...     {"id": "R", "x": 2, "y": 0, "team": "raiders"},
...     {"id": "P", "x": 3, "y": 0, "evasion": 12}])
>>> v = resolve(m, "S", "P")
>>> v["cover"], v["bonus"], v["windows"]
('full', 4, [{'creature': 'R', 'bonus': 4, 'from': 12, 'to': 16}])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lineoffire.errors import RequestError
from lineoffire.geometry.types import Blocker, LineTrace
from lineoffire.maps.model import SCALE, BattleMap, Creature

from . import shots as _shots
from .common import (
    TRACE_OPTIONS,
    Plan,
    check_attack,
    parse_origin,
    check_flag,
    effect_search_needed,
    get_creature,
    line_json,
    parse_options,
    piece_distance,
    plan_creature,
    providers_of,
    total_cover,
    trace_plan,
)

__all__ = [
    "RULES",
    "ATTACKS",
    "OPTIONS",
    "TRIGGER_DISCIPLINE",
    "FULL_BONUS",
    "HALF_BONUS",
    "OBJECT_BONUS",
    "COVER_NAMES",
    "size_bonus",
    "cover_name",
    "SHOT_ATTACKS",
    "check_shot_attack",
    "stray_segment",
    "plan",
    "decide",
    "effect_search",
    "resolve",
    "fire_line",
    "shots",
]

RULES = "creature-cover"
#: Attacks these rules resolve: all but ``area`` along the centre line; ``area``
#: from the effect's origin.
#: The most shots one request may resolve (a burst is a handful; this guards memory).
MAX_SHOTS = 100_000

ATTACKS: tuple[str, ...] = ("ranged", "melee", "reach", "area")
#: Attacks that make attack rolls, which shots and ``attack_total`` resolve.
SHOT_ATTACKS: tuple[str, ...] = ("ranged", "melee", "reach")
#: Options and their defaults (they go to the trace).
OPTIONS: dict[str, bool] = dict(TRACE_OPTIONS)
#: The shooter trait that keeps allies in the cover window safe.
TRIGGER_DISCIPLINE = "trigger_discipline"

#: Bonus of a creature in front of the same size or larger (full cover).
FULL_BONUS = 4
#: Bonus of a creature in front one size smaller (half cover).
HALF_BONUS = 2
#: Object cover by what the line crosses (SPEC section 5; section 7 decision).
OBJECT_BONUS: dict[str, int] = {"stopped": 4, "slit": 4, "low": 2}
#: Cover level by total bonus: 0 none, 2 half, 4 or more full (None: total).
COVER_NAMES: tuple[str, ...] = ("none", "half", "full", "total")

# Blocker kinds of each object-cover class.
_CLASS_KINDS: dict[str, tuple[str, ...]] = {
    "stopped": ("solid", "wall", "door"),
    "slit": ("slit",),
    "low": ("low",),
}


def size_bonus(front_size: int, target_size: int) -> int:
    """Evasion bonus a creature in front gives the creature behind, by size index.

    >>> [size_bonus(f, 4) for f in (6, 5, 4, 3, 2, 1)]
    [4, 4, 4, 2, 0, 0]
    """
    diff = int(front_size) - int(target_size)
    if diff >= 0:
        return FULL_BONUS
    if diff == -1:
        return HALF_BONUS
    return 0


def cover_name(bonus: int | None) -> str:
    """``none``, ``half``, ``full``, or ``total`` for a bonus of None.

    >>> [cover_name(b) for b in (0, 2, 4, 8, None)]
    ['none', 'half', 'full', 'full', 'total']
    """
    if bonus is None:
        return "total"
    if bonus <= 0:
        return "none"
    if bonus < FULL_BONUS:
        return "half"
    return "full"


def check_shot_attack(attack: Any) -> str:
    """Return ``attack`` if shots can resolve it (one of :data:`SHOT_ATTACKS`).

    An area effect makes no attack roll through creature cover: its cover
    comes from the ``cover`` op (``attack`` ``"area"`` with an ``origin``).

    >>> check_shot_attack("reach")
    'reach'
    >>> check_shot_attack("area")
    Traceback (most recent call last):
    ...
    lineoffire.errors.RequestError: an area effect makes no attack roll through creature cover, so it has no shots to resolve; ask the cover op (attack 'area' with an origin) for its cover
    """
    if attack == "area":
        raise RequestError(
            "an area effect makes no attack roll through creature cover, so it has no shots "
            "to resolve; ask the cover op (attack 'area' with an origin) for its cover",
            "bad_attack")
    return check_attack(attack, allowed=SHOT_ATTACKS, rules=RULES)


# ------------------------------------------------------------------ lines
def stray_segment(bmap: BattleMap, start: Sequence[float],
                  end: Sequence[float]) -> list[float] | None:
    """The extension of the line ``start -> end`` from ``end`` towards the map edge.

    Exactly collinear: the far point is the last point of the line, going on
    from ``end``, whose coordinates are multiples of 1/1024 square and which
    lies on the map (the edge itself when the edge point is such a multiple,
    as it is for lines along the grid and at 45 degrees), so the gap left is
    less than one step between such points (for centre lines, under ``2 *
    max(width, height) / 1024`` square).  None for a line of zero length.

    >>> m = BattleMap.build(8, 4)
    >>> stray_segment(m, (0.5, 0.5), (2.5, 1.5))
    [2.5, 1.5, 7.5, 4.0]
    >>> stray_segment(m, (0.5, 0.5), (0.5, 0.5)) is None
    True
    """
    px, py = (int(round(v * SCALE)) for v in end)
    dx = px - int(round(start[0] * SCALE))
    dy = py - int(round(start[1] * SCALE))
    if dx == 0 and dy == 0:
        return None
    g = math.gcd(dx, dy)
    sx, sy = dx // g, dy // g
    limits = []
    for p, s, top in ((px, sx, bmap.width * SCALE), (py, sy, bmap.height * SCALE)):
        if s > 0:
            limits.append((top - p) // s)
        elif s < 0:
            limits.append(p // -s)
    k = min(limits)
    if k <= 0:
        # the line's lattice points lie too far apart (very large maps): round
        # the edge point instead, as lineoffire.geometry.lines does
        from lineoffire.geometry.lines import extend_to_edge

        seg = extend_to_edge([*start, *end], bmap.width, bmap.height).tolist()
        return None if seg[2:] == [px / SCALE, py / SCALE] else [px / SCALE, py / SCALE, *seg[2:]]
    return [px / SCALE, py / SCALE, (px + k * sx) / SCALE, (py + k * sy) / SCALE]


def plan(
    bmap: BattleMap,
    attacker: str | None,
    target: str,
    *,
    attack: str = "ranged",
    origin: Any = None,
    options: Any = None,
) -> Plan:
    """The lines to trace: the centre line, and its extension for strays.

    Line 0 runs from the shooter's centre to the target's centre, attached to
    both.  Line 1 (absent when the centres coincide) goes on from the
    target's centre to the map edge, attached to the target at its start.

    For ``attack="area"`` the one line runs from ``origin`` (required; a free
    point, attached to nothing) to the target's centre, attached to the
    target; there is no extension.  ``attacker`` may then be None; a named
    caster is checked but plays no part in the lines.
    """
    check_attack(attack, allowed=ATTACKS, rules=RULES)
    tgt = get_creature(bmap, target, "target")
    if attacker is None and attack != "area":
        raise RequestError(f"a {attack} attack needs an attacker", "bad_request")
    shooter = None if attacker is None else get_creature(bmap, attacker, "attacker")
    if shooter is not None and shooter.id == tgt.id:
        raise RequestError(f"attacker and target are the same creature {shooter.id!r}",
                           "bad_request")
    org = parse_origin(bmap, origin, attack)
    opts = parse_options(options, OPTIONS, rules=RULES)
    t = tgt.centre
    ti = bmap.creature_index(tgt.id)
    stray = None
    if org is not None:
        # the line starts at the origin, a free point: a named caster plays no part
        segments = [[org[0], org[1], t[0], t[1]]]
        attach_from, attach_to = [-1], [ti]
    else:
        a = shooter.centre  # type: ignore[union-attr]
        segments = [[a[0], a[1], t[0], t[1]]]
        attach_from, attach_to = [bmap.creature_index(shooter.id)], [ti]  # type: ignore[union-attr]
        stray = stray_segment(bmap, a, t)
        if stray is not None:
            segments.append(stray)
            attach_from.append(ti)
            attach_to.append(-1)
    return Plan(
        rules=RULES,
        segments=np.asarray(segments, dtype=np.float64),
        attacker=np.asarray(attach_from, dtype=np.int64),
        target=np.asarray(attach_to, dtype=np.int64),
        trace_options={k: bool(opts[k]) for k in TRACE_OPTIONS},
        meta={"attacker": None if shooter is None else shooter.id, "target": tgt.id,
              "attack": attack, "origin": org, "options": opts, "stray": stray is not None},
    )


# ------------------------------------------------------------------ analysis
@dataclass(frozen=True)
class _Front:
    creature: Creature
    t: float  # where the line first passes through it; 1.0 for a shield off the line
    bonus: int
    shield: bool


@dataclass(frozen=True)
class _Sight:
    """Everything the rules read off the traces of one pair (or of an area
    effect's line, whose ``shooter`` is None)."""

    shooter: Creature | None
    target: Creature
    front_trace: LineTrace
    stray_trace: LineTrace | None
    blocked: bool
    object_bonus: int
    object_class: str | None
    object_pieces: tuple[Blocker, ...]
    front: tuple[_Front, ...]
    behind: tuple[Creature, ...]
    counted: str | None  # "object", "creatures" or None

    @property
    def creature_bonus(self) -> int:
        return sum(f.bonus for f in self.front)

    @property
    def bonus(self) -> int | None:
        if self.blocked:
            return None
        if self.counted == "object":
            return self.object_bonus
        if self.counted == "creatures":
            return self.creature_bonus
        return 0

    def window_parts(self) -> list[tuple[str, int]]:
        """``(id, bonus)`` per window, nearest first."""
        if self.counted == "object":
            return [(_shots.OBJECT, self.object_bonus)]
        if self.counted == "creatures":
            return [(f.creature.id, f.bonus) for f in self.front if f.bonus > 0]
        return []

    def windows(self, evasion: int) -> tuple[_shots.Window, ...]:
        out, low = [], evasion
        for cid, b in self.window_parts():
            out.append(_shots.Window(cid, b, low, low + b))
            low += b
        return tuple(out)

    def held(self) -> frozenset[str]:
        """Window creatures a Trigger Discipline shooter never hits (its allies)."""
        s = self.shooter
        if s is None or not s.has_trait(TRIGGER_DISCIPLINE) or s.team is None:
            return frozenset()
        return frozenset(f.creature.id for f in self.front if f.creature.team == s.team)


def _object_cover(bmap: BattleMap, shooter: Creature | None, tr: LineTrace,
                  blocked: bool) -> tuple[int, str | None, tuple[Blocker, ...], float]:
    """The best object cover on the front line: (bonus, class, pieces, t of the nearest).

    With no ``shooter`` (an area effect) every slit crossing counts.
    """
    candidates = []
    if tr.stopped and not blocked:
        pieces = tuple(tr.of_kind(*_CLASS_KINDS["stopped"]))
        candidates.append((OBJECT_BONUS["stopped"], "stopped", pieces))
    if tr.slit:
        by_t: dict[float, list[Blocker]] = {}
        for b in tr.of_kind("slit"):
            by_t.setdefault(b.t, []).append(b)
        # a crossing counts unless one of its pieces is at distance 0 from the shooter
        counting = tuple(
            b for group in by_t.values()
            if shooter is None or all(piece_distance(bmap, shooter, b) > 0 for b in group)
            for b in group
        )
        if counting:
            candidates.append((OBJECT_BONUS["slit"], "slit", counting))
    if tr.low:
        pieces = tuple(tr.of_kind(*_CLASS_KINDS["low"]))
        if pieces:
            candidates.append((OBJECT_BONUS["low"], "low", pieces))
    if not candidates:
        return 0, None, (), math.inf
    best = max(c[0] for c in candidates)
    top = [c for c in candidates if c[0] == best]
    bonus, cls, pieces = min(top, key=lambda c: c[2][0].t if c[2] else math.inf)
    return bonus, cls, pieces, (pieces[0].t if pieces else math.inf)


def _sight(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace], *,
           line_of_effect: bool | None = None) -> _Sight:
    if len(traces) != len(plan):
        raise ValueError(f"the plan has {len(plan)} lines but {len(traces)} traces were given")
    origin = plan.meta["origin"]
    # an area effect has no shooter: its line comes from the origin
    shooter = None if origin is not None else plan_creature(bmap, plan, "attacker")[1]
    target = plan_creature(bmap, plan, "target")[1]
    opts = plan.meta["options"]
    front_tr = traces[0]
    stray_tr = traces[1] if plan.meta["stray"] else None

    blocked = bool(front_tr.stopped) and total_cover(
        bmap, plan.segments[:1], [front_tr], shooter, target, origin,
        line_of_effect=line_of_effect)
    obj_bonus, obj_class, obj_pieces, obj_t = _object_cover(bmap, shooter, front_tr, blocked)

    front: list[_Front] = []
    for b in front_tr.of_kind("creature"):
        c = bmap.creature(b.creature)
        front.append(_Front(c, b.t, size_bonus(c.size_index, target.size_index), False))
    ids = {f.creature.id for f in front}
    shield_id = target.grappling
    shooter_id = None if shooter is None else shooter.id
    if shield_id is not None and shield_id not in ids and shield_id != shooter_id:
        c = bmap.creature(shield_id)
        skip = (opts.get("ignore_dead") and c.dead) or (opts.get("ignore_prone") and c.prone)
        if not skip:
            front.append(_Front(c, 1.0, size_bonus(c.size_index, target.size_index), True))
            ids.add(c.id)

    behind: list[Creature] = []
    if stray_tr is not None:
        stop = min((b.t for b in stray_tr.blockers if b.is_blocking), default=math.inf)
        for b in stray_tr.of_kind("creature"):
            if b.t < stop and b.creature not in ids and b.creature != shooter_id:
                behind.append(bmap.creature(b.creature))

    creature_total = sum(f.bonus for f in front)
    creature_t = min((f.t for f in front if f.bonus > 0), default=math.inf)
    if blocked:
        counted = None
    elif obj_bonus > creature_total:
        counted = "object"
    elif creature_total > obj_bonus:
        counted = "creatures"
    elif obj_bonus > 0:
        counted = "object" if obj_t <= creature_t else "creatures"
    else:
        counted = None
    return _Sight(shooter, target, front_tr, stray_tr, blocked, obj_bonus, obj_class,
                  obj_pieces, tuple(front), tuple(behind), counted)


def _int_arg(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__} ({value!r})")
    return int(value)


def _verdict(plan: Plan, sight: _Sight, traces: Sequence[LineTrace],
             evasion: int | None, *, summary: bool = False) -> dict[str, Any]:
    bonus = sight.bonus
    if summary:
        providers: list[dict[str, Any]] = []
    elif sight.counted == "object":
        providers = providers_of(sight.object_pieces)
    elif sight.counted == "creatures":
        providers = [{"kind": "creature", "creature": f.creature.id}
                     for f in sight.front if f.bonus]
    elif sight.blocked:
        providers = providers_of(sight.front_trace.of_kind(*_CLASS_KINDS["stopped"]))
    else:
        providers = []
    if sight.blocked:
        windows: list[dict[str, Any]] = []
    elif evasion is None:
        windows = [{"creature": c, "bonus": b, "from": None, "to": None}
                   for c, b in sight.window_parts()]
    else:
        windows = [w.to_json() for w in sight.windows(evasion)]
    name = cover_name(bonus)
    out = {
        "cover": name,
        "bonus": bonus,
        "blocked": sight.blocked,
        "counted": sight.counted,
        "object_bonus": sight.object_bonus,
        "creature_bonus": sight.creature_bonus,
        "base_evasion": evasion,
        "enhanced_evasion": None if evasion is None or bonus is None else evasion + bonus,
        "windows": windows,
        "in_front": [{"creature": f.creature.id, "size": f.creature.size, "bonus": f.bonus,
                      "shield": f.shield} for f in sight.front],
        "behind": [c.id for c in sight.behind],
    }
    if summary:
        return out
    out["providers"] = providers
    out["lines"] = [dict(line_json(plan.segments[0], name, traces[0]), role="front",
                         stopped=bool(traces[0].stopped))]
    if sight.stray_trace is not None:
        out["lines"].append(dict(line_json(plan.segments[1], "stray", sight.stray_trace),
                                 role="stray", stopped=bool(sight.stray_trace.stopped)))
    return out


def effect_search(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace]
                  ) -> tuple[int, int, bool] | None:
    """The line-of-effect search :func:`decide` would run for this plan, if any.

    Returns ``(attacker index, target index, False)`` when the centre line
    is stopped (a stopped line never proves line of effect), else None (also
    for area effects, which :func:`decide` searches itself, from the origin).
    The last item (``drawn_stopped``) is False: only the centre line was
    drawn, so the search keeps its fast accept.  A caller that searches
    many pairs at once passes the answer back as ``decide(...,
    line_of_effect=...)``.
    """
    if len(traces) != len(plan):
        raise ValueError(f"the plan has {len(plan)} lines but {len(traces)} traces were given")
    front = traces[0]
    if plan.meta["origin"] is not None or not front.stopped:
        return None
    ai, shooter = plan_creature(bmap, plan, "attacker")
    ti, target = plan_creature(bmap, plan, "target")
    if not effect_search_needed(plan.segments[:1], [front], shooter, target):
        return None
    return ai, ti, False


def decide(bmap: BattleMap, plan: Plan, traces: Sequence[LineTrace], *,
           line_of_effect: bool | None = None, summary: bool = False) -> dict[str, Any]:
    """The cover verdict from a plan's traces (``cover`` first).

    Windows are over the target's Evasion from the map; without one their
    ``from`` and ``to`` are None.  ``line_of_effect``, when given, is whether
    the attacker (for an area effect: the origin) has line of effect to the
    target (found by the caller, see :func:`effect_search`); None searches
    when the centre line is stopped.
    With ``summary`` the answer leaves out ``providers`` and ``lines`` (the
    costly parts, which the cover matrix does not keep); every other field
    is the full answer's.
    """
    check_flag(summary, "summary")
    sight = _sight(bmap, plan, traces, line_of_effect=line_of_effect)
    return _verdict(plan, sight, traces, sight.target.evasion, summary=summary)


def _traced(bmap: BattleMap, p: Plan) -> list[LineTrace]:
    return list(trace_plan(bmap, p))


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
    """Creature cover of ``target`` against ``attacker`` (the ``cover`` op's answer).

    Fields: ``cover`` (none, half, full, total), ``bonus`` (0, 2, 4, 6, 8, ...;
    None for total), ``blocked``, ``counted`` (``"object"``, ``"creatures"`` or
    None: which cover counts), ``object_bonus`` and ``creature_bonus`` (each
    source's own total), ``base_evasion`` and ``enhanced_evasion``,
    ``windows`` (``[{"creature", "bonus", "from", "to"}]`` nearest first),
    ``in_front`` and ``behind`` (the creatures on the line), ``providers``,
    and ``lines`` (the centre line, ``role`` ``front``, and its extension,
    ``role`` ``stray``).

    ``defence`` is the target's base Evasion (default: its ``evasion``).  With
    ``attack_total`` the answer adds ``outcome`` (``hit``, ``hit_cover``,
    ``miss``) and ``hit`` (an id, ``"object"``, or None), resolved as one
    single-fire shot (Trigger Discipline included).

    With ``attack="area"`` and an ``origin`` the line comes from that point
    (``attacker`` may be None; a named caster plays no part) and there are no
    creatures ``behind``; an area effect makes no attack roll, so
    ``attack_total`` is refused.
    """
    p = plan(bmap, attacker, target, attack=attack, origin=origin, options=options)
    if attack_total is not None and p.meta["origin"] is not None:
        raise RequestError("attack_total does not apply to an area effect: it makes no attack "
                           "roll through creature cover", "bad_request")
    traces = _traced(bmap, p)
    sight = _sight(bmap, p, traces)
    total = _int_arg(attack_total, "attack_total")
    evasion = _int_arg(defence, "defence")
    if evasion is None:
        evasion = sight.target.evasion
    out = _verdict(p, sight, traces, evasion)
    if total is not None:
        if sight.blocked:
            out["outcome"], out["hit"] = "hit_cover", _shots.OBJECT
        else:
            if evasion is None:
                raise _missing_evasion(sight.target, "target", "an attack_total")
            line = _fire_line(sight, evasion, burst=False)
            (code,), (hit,) = _shots.classify(line, [total])
            kind = _shots.OUTCOMES[int(code)]
            out["outcome"] = {"hit": "hit", "cover": "hit_cover"}.get(kind, "miss")
            out["hit"] = hit
    return out


# ------------------------------------------------------------------ shots
def _missing_evasion(c: Creature, role: str, need: str) -> RequestError:
    return RequestError(f"{role} {c.id!r} has no evasion, which {need} needs; "
                        "give it one in the map" + (" or pass evasion" if role == "target" else ""),
                        "missing_evasion")


def _fire_line(sight: _Sight, evasion: int, *, burst: bool) -> _shots.FireLine:
    behind = sight.behind if burst and not sight.blocked else ()
    for c in behind:
        if c.evasion is None:
            raise _missing_evasion(c, "creature behind the target", "a stray shot of a burst")
    return _shots.FireLine(
        target=sight.target.id,
        base_evasion=evasion,
        windows=() if sight.blocked else sight.windows(evasion),
        held=sight.held(),
        behind=tuple(c.id for c in behind),
        behind_evasion=tuple(int(c.evasion) for c in behind),  # type: ignore[arg-type]
        blocked=sight.blocked,
    )


def _pair(bmap: BattleMap, attacker: str, target: str, options: Any,
          attack: Any = "ranged") -> _Sight:
    p = plan(bmap, attacker, target, attack=check_shot_attack(attack), options=options)
    return _sight(bmap, p, _traced(bmap, p))


def _line_for(sight: _Sight, evasion: Any, *, burst: bool) -> tuple[_shots.FireLine, int | None]:
    e = _int_arg(evasion, "evasion")
    if e is None:
        e = sight.target.evasion
    if e is None and not sight.blocked:
        raise _missing_evasion(sight.target, "target", "a shot")
    return _fire_line(sight, 0 if e is None else e, burst=burst), e


def fire_line(bmap: BattleMap, attacker: str, target: str, *, evasion: Any = None,
              burst: bool = False, options: Any = None,
              attack: str = "ranged") -> _shots.FireLine:
    """The :class:`~lineoffire.resolver.shots.FireLine` of a pair, for shot resolution.

    ``evasion`` overrides the target's; one of them is needed unless there is
    no line of effect.  With ``burst``, the creatures behind that strays can
    reach need an Evasion too.  ``attack`` is one of :data:`SHOT_ATTACKS`
    (all draw the same line); an area effect is refused
    (:func:`check_shot_attack`).
    """
    return _line_for(_pair(bmap, attacker, target, options, attack), evasion, burst=burst)[0]


def _rolls_arg(rolls: Any) -> list[int] | None:
    if rolls is None:
        return None
    if isinstance(rolls, (str, bytes)) or not isinstance(rolls, (list, tuple, np.ndarray)):
        raise TypeError(
            f"rolls must be a list of attack totals, not {type(rolls).__name__} ({rolls!r})")
    out = [_int_arg(r, f"rolls[{i}]") for i, r in enumerate(rolls)]
    if not out:
        raise RequestError("rolls is empty; give at least one attack total", "bad_request")
    return out  # type: ignore[return-value]


def shots(
    bmap: BattleMap,
    attacker: str,
    target: str,
    *,
    rolls: Any = None,
    attack_bonus: Any = None,
    seed: Any = None,
    burst: Any = None,
    evasion: Any = None,
    called_shot: Any = None,
    options: Any = None,
    attack: str = "ranged",
) -> dict[str, Any]:
    """Resolve shots under Creature Cover (the ``shots`` op's answer).

    Parameters
    ----------
    rolls : list of int, optional
        Attack totals, one shot each.  Without them the shots are rolled:
        d20 + ``attack_bonus`` each, from ``numpy.random.default_rng(seed)``.
    attack_bonus : int, optional
        Needed without ``rolls``; with it the answer gives ``probabilities``
        (also when ``rolls`` are given: they are then the shots fired).
    seed : int, optional
        Seeds the attack d20s, then the location rolls of called shots.
    burst : int, optional
        The shots of a burst: misses go on as strays to the creatures behind
        the target.  With ``rolls`` it must equal their count; without, it is
        how many shots are rolled (one when not a burst).
    evasion : int, optional
        The target's base Evasion (default: the map's).
    called_shot : str, optional
        A limb (:data:`~lineoffire.resolver.shots.LIMBS`).
    options : dict, optional
        ``ignore_dead``, ``ignore_prone``.
    attack : {"ranged", "melee", "reach"}
        All draw the same line.  ``"area"`` is refused (RequestError, code
        ``bad_attack``): an area effect makes no attack roll through creature
        cover; the ``cover`` op gives its cover.

    Returns
    -------
    dict
        ``attacker``, ``target``, ``blocked``, ``cover``, ``bonus``,
        ``counted``, ``base_evasion``, ``enhanced_evasion``, ``object_bonus``
        (the object cover on the line, counted or not), ``windows``,
        ``behind``, ``shots`` (see
        :func:`~lineoffire.resolver.shots.resolve_rolls`), ``summary``, and
        with ``attack_bonus`` ``probabilities`` (``{id | "object" | "miss":
        "p/q"}`` for one shot).
    """
    check_shot_attack(attack)
    given = _rolls_arg(rolls)
    if given is not None and len(given) > MAX_SHOTS:
        raise RequestError(f"{len(given)} rolls are too many; at most {MAX_SHOTS} shots",
                           "bad_request")
    bonus = _int_arg(attack_bonus, "attack_bonus")
    n_burst = _int_arg(burst, "burst")
    rng_seed = _int_arg(seed, "seed")
    if given is None and bonus is None:
        raise RequestError("shots need rolls (attack totals) or an attack_bonus to roll d20s",
                           "bad_request")
    if n_burst is not None:
        if n_burst < 1:
            raise RequestError(f"burst must be at least 1 shot, not {n_burst}", "bad_request")
        if n_burst > MAX_SHOTS:
            raise RequestError(f"burst of {n_burst} shots is too many; at most {MAX_SHOTS}",
                               "bad_request")
        if given is not None and n_burst != len(given):
            raise RequestError(
                f"burst is {n_burst} shots but {len(given)} rolls were given; they must match",
                "bad_request")
    if rng_seed is not None and rng_seed < 0:
        raise RequestError(f"seed must be a non-negative integer, not {rng_seed}", "bad_request")
    limb = None
    if called_shot is not None:
        try:
            limb = _shots.parse_limb(called_shot)
        except ValueError as exc:
            raise RequestError(str(exc), "bad_limb") from None

    is_burst = n_burst is not None
    sight = _pair(bmap, attacker, target, options, attack)
    line, e = _line_for(sight, evasion, burst=is_burst)

    rng = np.random.default_rng(rng_seed)
    d20 = None
    if given is None:
        d20 = rng.integers(1, 21, size=n_burst or 1).tolist()
        given = [d + bonus for d in d20]  # type: ignore[operator]
    fired = _shots.resolve_rolls(line, given, burst=is_burst, called_shot=limb, rng=rng, d20=d20)

    order = [w.creature for w in line.windows] + list(line.behind)
    out: dict[str, Any] = {
        "attacker": sight.shooter.id,
        "target": sight.target.id,
        "blocked": sight.blocked,
        "cover": cover_name(sight.bonus),
        "bonus": sight.bonus,
        "counted": sight.counted,
        "base_evasion": e,
        "enhanced_evasion": None if sight.blocked else line.enhanced_evasion,
        "object_bonus": sight.object_bonus,
        "windows": [w.to_json() for w in line.windows],
        "behind": [c.id for c in sight.behind],
        "shots": fired,
        "summary": _shots.summary(line.target, fired, order=order),
    }
    if bonus is not None:
        probs = _shots.probabilities(line, bonus, burst=is_burst)
        out["probabilities"] = {k: _shots.format_fraction(v) for k, v in probs.items()}
    return out
