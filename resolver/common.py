"""Helpers shared by the rulesets: arguments, options, plans, providers, total cover.

Every ruleset module (:mod:`~lineoffire.resolver.pf1e`,
:mod:`~lineoffire.resolver.pf2e`, ...) checks its arguments with the
functions here, so the same mistake gets the same message everywhere, and
builds a :class:`Plan` (the lines to trace) whose traces it turns into a
verdict.  Points are ``(x, y)`` in squares; squares are ``(c, r)``.

This module is a stable interface: other rulesets import from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from lineoffire.errors import RequestError
from lineoffire.geometry.types import Blocker, LineTrace
from lineoffire.maps.model import BattleMap, Creature, snap

__all__ = [
    "ATTACKS",
    "TRACE_OPTIONS",
    "Plan",
    "get_creature",
    "check_attack",
    "check_flag",
    "parse_origin",
    "parse_options",
    "parse_option_value",
    "options_from_strings",
    "parse_attack_numbers",
    "trace_plan",
    "plan_creature",
    "blocker_ref",
    "providers_of",
    "line_json",
    "proves_line_of_effect",
    "effect_search_needed",
    "total_cover",
    "piece_distance",
    "piece_height",
]

#: The kinds of attack a cover request can name.
ATTACKS: tuple[str, ...] = ("ranged", "melee", "reach", "area")

#: Options every ruleset accepts; they go to :func:`lineoffire.geometry.trace`.
TRACE_OPTIONS: dict[str, bool] = {"ignore_dead": False, "ignore_prone": False}


@dataclass(frozen=True)
class Plan:
    """The lines a ruleset draws for one attacker/target pair, before tracing.

    Attributes
    ----------
    rules : str
        The ruleset's name (``"pf1e"``, ``"pf2e"``, ...).
    segments : ndarray, shape (N, 4), float64
        ``[x0, y0, x1, y1]`` per line, in squares.
    attacker, target : ndarray, shape (N,), int64
        Per line, the index in ``bmap.creatures`` of the creature the start /
        end point is attached to, or -1 for a free endpoint.  Pass them
        straight to :func:`lineoffire.geometry.trace` (it takes index arrays),
        or concatenate several plans' arrays to trace many pairs in one call.
    trace_options : dict
        Keyword options for the trace call (``ignore_dead``, ``ignore_prone``).
    meta : dict
        Whatever the ruleset's ``decide`` needs (ids, options, line layout).
    """

    rules: str
    segments: np.ndarray
    attacker: np.ndarray
    target: np.ndarray
    trace_options: dict[str, bool] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.segments)


# ----------------------------------------------------------------- arguments
def get_creature(bmap: BattleMap, cid: Any, role: str) -> Creature:
    """The creature named ``cid``, checked.

    Raises
    ------
    TypeError
        If ``cid`` is not a string.
    MapError
        If the map has no such creature (the message lists the ids it has).
    """
    if not isinstance(cid, str):
        raise TypeError(f"{role} must be a creature id (a string), not {type(cid).__name__} ({cid!r})")
    try:
        return bmap.creature(cid)
    except ValueError as exc:
        raise RequestError(f"{role}: {exc}", "unknown_creature") from None


def check_attack(attack: Any, *, allowed: Sequence[str] = ATTACKS, rules: str = "") -> str:
    """Return ``attack`` if it is one of ``allowed``, else raise naming the choices."""
    if not isinstance(attack, str):
        raise TypeError(f"attack must be a string, not {type(attack).__name__} ({attack!r})")
    if attack not in allowed:
        who = f" for the {rules} rules" if rules else ""
        raise RequestError(
            f"unknown attack {attack!r}{who}; expected one of {', '.join(allowed)}", "bad_attack"
        )
    return attack


def check_flag(value: Any, name: str) -> bool:
    """Return ``value`` as a bool if it is True or False, else raise TypeError naming it.

    >>> check_flag(True, "summary")
    True
    >>> check_flag("yes", "summary")
    Traceback (most recent call last):
    ...
    TypeError: summary must be True or False, not str ('yes')
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} ({value!r})")
    return bool(value)


def parse_origin(bmap: BattleMap, origin: Any, attack: str) -> tuple[float, float] | None:
    """Check an area effect's origin point: required for ``area``, refused otherwise.

    The point is snapped to 1/1024 square and must lie on the map.

    Examples
    --------
    >>> m = BattleMap.build(4, 3)
    >>> parse_origin(m, [1.5, 2], "area")
    (1.5, 2.0)
    >>> parse_origin(m, None, "ranged") is None
    True
    """
    if attack != "area":
        if origin is not None:
            raise RequestError(
                f"origin applies to area attacks only (attack is {attack!r})", "bad_request"
            )
        return None
    if origin is None:
        raise RequestError("an area attack needs an origin point [x, y]", "bad_request")
    if isinstance(origin, (str, bytes)) or not isinstance(origin, (list, tuple, np.ndarray)) or len(origin) != 2:
        raise TypeError(f"origin must be a point [x, y], not {origin!r}")
    x = snap(origin[0], "origin x")
    y = snap(origin[1], "origin y")
    if not (0 <= x <= bmap.width and 0 <= y <= bmap.height):
        raise RequestError(
            f"origin ({x:g}, {y:g}) lies outside the {bmap.width}x{bmap.height} map", "bad_request"
        )
    return (x, y)


def parse_options(options: Any, defaults: Mapping[str, Any], *, rules: str) -> dict[str, Any]:
    """Merge ``options`` over ``defaults``, checking names and types.

    Every option's type is that of its default (booleans stay booleans).

    Raises
    ------
    TypeError
        If ``options`` is not a mapping, or a value has the wrong type.
    RequestError
        If an option is unknown; the message lists the valid ones.

    Examples
    --------
    >>> parse_options({"lean": True}, {"lean": False}, rules="pf2e")
    {'lean': True}
    >>> parse_options({"leen": True}, {"lean": False}, rules="pf2e")
    Traceback (most recent call last):
    ...
    lineoffire.errors.RequestError: unknown option 'leen' for the pf2e rules; valid options: lean
    """
    out = dict(defaults)
    if options is None:
        return out
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be an object of name: value, not {type(options).__name__}")
    for name, value in options.items():
        if name not in defaults:
            raise RequestError(
                f"unknown option {name!r} for the {rules} rules; valid options: "
                f"{', '.join(sorted(defaults))}",
                "bad_option",
            )
        want = type(defaults[name])
        if want is bool:
            ok = isinstance(value, bool)
        elif want in (int, float):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, want)
        if not ok:
            raise TypeError(
                f"option {name!r} of the {rules} rules must be {want.__name__}, "
                f"not {type(value).__name__} ({value!r})"
            )
        out[name] = value
    return out


def parse_option_value(text: str) -> Any:
    """A command-line option value: ``true``/``false``, an integer, a number or text.

    Examples
    --------
    >>> [parse_option_value(s) for s in ("true", "No", "3", "2.5", "far")]
    [True, False, 3, 2.5, 'far']
    """
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(low)
    except ValueError:
        pass
    try:
        return float(low)
    except ValueError:
        return text


def options_from_strings(items: Iterable[str] | None) -> dict[str, Any]:
    """Options from ``name=value`` strings (the CLI's repeated ``--option``).

    Examples
    --------
    >>> options_from_strings(["partial_cover=true", "soft_cover_vs_reach=false"])
    {'partial_cover': True, 'soft_cover_vs_reach': False}
    """
    out: dict[str, Any] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise RequestError(f"option {item!r} must have the form name=value", "bad_option")
        if name in out:
            raise RequestError(f"option {name!r} is given twice", "bad_option")
        out[name] = parse_option_value(value)
    return out


def parse_attack_numbers(attack_total: Any, defence: Any) -> tuple[int, int] | None:
    """Check an attack total and a defence (both or neither; integers)."""
    if attack_total is None and defence is None:
        return None
    if attack_total is None or defence is None:
        missing = "attack_total" if attack_total is None else "defence"
        raise RequestError(
            f"attack_total and defence go together; {missing} is missing", "bad_request"
        )
    out = []
    for name, value in (("attack_total", attack_total), ("defence", defence)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, not {type(value).__name__} ({value!r})")
        out.append(int(value))
    return out[0], out[1]


# --------------------------------------------------------------- tracing
def trace_plan(bmap: BattleMap, plan: Plan):
    """Trace a plan's lines in one call; returns a :class:`~lineoffire.geometry.TraceBatch`."""
    from lineoffire.geometry import trace

    return trace(bmap, plan.segments, attacker=plan.attacker, target=plan.target,
                 **plan.trace_options)


def plan_creature(bmap: BattleMap, plan: Plan, role: str) -> tuple[int, Creature | None]:
    """``(index, creature)`` of the plan's ``role`` (``"attacker"`` or
    ``"target"``, as named in ``plan.meta``), ``(-1, None)`` where it names none.

    Read from the plan's first line's attachment when that is the creature
    named (no search through the map's creatures), else looked up by id.
    """
    cid = plan.meta[role]
    if cid is None:
        return -1, None
    column = plan.attacker if role == "attacker" else plan.target
    if len(column):
        i = int(column[0])
        if 0 <= i < len(bmap.creatures) and bmap.creatures[i].id == cid:
            return i, bmap.creatures[i]
    return bmap.creature_index(cid), bmap.creature(cid)


def blocker_ref(b: Blocker) -> dict[str, Any]:
    """A blocker as a provider: ``{"kind", "square" | "wall" | "creature"}`` (no ``t``)."""
    key, value = b.ref
    return {"kind": b.kind, key: value if key == "creature" else list(value)}


def providers_of(blockers: Iterable[Blocker]) -> list[dict[str, Any]]:
    """Providers from blockers, each piece once, in the order given."""
    seen: set[tuple[str, Any]] = set()
    out = []
    for b in blockers:
        key = (b.kind, b.ref)
        if key not in seen:
            seen.add(key)
            out.append(blocker_ref(b))
    return out


def _num(v: float) -> int | float:
    f = float(v)
    return int(f) if f.is_integer() else f


def line_json(segment: Sequence[float], verdict: str, tr: LineTrace) -> dict[str, Any]:
    """One reported line: ``{"from", "to", "verdict", "blockers"}``."""
    x0, y0, x1, y1 = (_num(v) for v in segment)
    return {"from": [x0, y0], "to": [x1, y1], "verdict": verdict,
            "blockers": [b.to_json() for b in tr.blockers]}


# --------------------------------------------------------------- total cover
def _on_boundary(x: float, y: float, rect: tuple[int, int, int, int]) -> bool:
    x0, y0, x1, y1 = rect
    inside = x0 <= x <= x1 and y0 <= y <= y1
    return inside and (x in (x0, x1) or y in (y0, y1))


def proves_line_of_effect(segment: Sequence[float], tr: LineTrace,
                          rects: Sequence[tuple[int, int, int, int]]) -> bool:
    """True if an unstopped drawn line certainly shows line of effect.

    A line of zero length proves nothing, nor (conservatively) does an
    axis-aligned line whose ends both lie on the edges of the spaces in
    ``rects``: it may run wholly along those edges (SPEC section 4).  When no
    line proves it, :func:`total_cover` runs the exact search.
    """
    if tr.stopped:
        return False
    x0, y0, x1, y1 = (float(v) for v in segment)
    if x0 == x1 and y0 == y1:
        return False
    if x0 == x1 or y0 == y1:
        ends_on_edges = all(
            any(_on_boundary(px, py, r) for r in rects) for px, py in ((x0, y0), (x1, y1))
        )
        if ends_on_edges:
            return False
    return True


def effect_search_needed(segments: np.ndarray, traces: Sequence[LineTrace],
                         attacker: Creature | None, target: Creature,
                         origin: tuple[float, float] | None = None) -> bool:
    """Whether :func:`total_cover` must run the exact line-of-effect search:
    no drawn line proves line of effect (:func:`proves_line_of_effect`).

    Rulesets tell a caller that batches the searches (the cover matrix)
    which pairs need one with this very test, so both agree.
    """
    rects = [target.rect] if attacker is None or origin is not None else [attacker.rect, target.rect]
    return not any(proves_line_of_effect(seg, tr, rects) for seg, tr in zip(segments, traces))


def total_cover(bmap: BattleMap, segments: np.ndarray, traces: Sequence[LineTrace],
                attacker: Creature | None, target: Creature,
                origin: tuple[float, float] | None = None, *,
                line_of_effect: bool | None = None, drawn_stopped: bool = False) -> bool:
    """Whether ``target`` has total cover: no line of effect (SPEC section 4).

    Cheap when some drawn line proves line of effect; otherwise the exact
    search of :func:`lineoffire.geometry.effect.line_of_effect` decides.
    With an ``origin`` (area effects) line of effect is from that point.

    Parameters
    ----------
    line_of_effect : bool, optional
        The answer of the search, found by the caller (the cover matrix
        searches many pairs at once): used as it is, nothing is searched.
    drawn_stopped : bool
        ``segments`` are every corner-to-corner line of the pair (pf1e): when
        the search runs it skips tracing them again.
    """
    if line_of_effect is not None:
        if not isinstance(line_of_effect, (bool, np.bool_)):
            raise TypeError(f"line_of_effect must be True, False or None, not "
                            f"{type(line_of_effect).__name__} ({line_of_effect!r})")
        return not line_of_effect
    if not effect_search_needed(segments, traces, attacker, target, origin):
        return False
    from lineoffire.geometry.effect import line_of_effect as search

    if origin is not None:
        return not search(bmap, None, target.id, origin=origin)
    return not search(bmap, attacker.id, target.id, drawn_stopped=drawn_stopped)


# --------------------------------------------------------------- pieces
def piece_distance(bmap: BattleMap, creature: Creature, blocker: Blocker) -> int:
    """Least grid distance (squares) between ``creature`` and the piece ``blocker``."""
    from lineoffire.geometry.pieces import creature_piece_distance

    return int(creature_piece_distance(bmap, creature, blocker))


def piece_height(bmap: BattleMap, blocker: Blocker) -> float:
    """Height in feet of a low piece: a low square or a segment of a low wall."""
    if blocker.square is not None:
        return float(bmap.low_height_ft)
    if blocker.wall is not None:
        return bmap.wall_height(bmap.walls[blocker.wall[0]])
    raise ValueError(f"a {blocker.kind} blocker on creature {blocker.creature!r} has no height")
