"""Shot resolution of the Creature Cover rules (SPEC section 5, creature-cover).

Pure functions over a :class:`FireLine`: what a shooter faces along one line
of fire (the target's base Evasion, the cover windows nearest first, the
creatures behind the target that stray shots can reach).  No geometry here:
:mod:`lineoffire.resolver.creature_cover` builds the FireLine from traces.

Rolls are attack totals (d20 + bonus).  A roll ``r`` resolves as::

    r <= E                      miss        (a burst's miss goes on as a stray)
    E + ... < r <= E + ... + b  window      (hits the creature, or "object")
    r > every window            hit         (the intended target)

A natural 1 or 20 means nothing special: the rule text gives it no meaning,
so only the total counts.

Examples
--------
The rule text's raider: a player at Evasion 12 behind a melee raider of the
same size (window 13-16)::

    S . R P        S shoots P; R (same size) stands in front of P

>>> line = FireLine(target="P", base_evasion=12,
...                 windows=(Window("R", 4, 12, 16),))
>>> [s["hit"] for s in resolve_rolls(line, [11, 15, 18, 13])]
[None, 'R', 'P', 'R']
>>> {k: format_fraction(v) for k, v in probabilities(line, 0).items()}
{'P': '1/5', 'R': '1/5', 'miss': '3/5'}
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "LIMBS",
    "HIT_LOCATIONS",
    "OBJECT",
    "MISS",
    "OUTCOMES",
    "Window",
    "FireLine",
    "hit_location",
    "parse_limb",
    "classify",
    "resolve_rolls",
    "probabilities",
    "format_fraction",
    "tally",
    "summary",
]

#: The id a shot reports when it hits cover that is not a creature.
OBJECT = "object"
#: The key of shots that hit nobody in :func:`probabilities`.
MISS = "miss"

#: Limbs a called shot may aim at, in Hit Location table order.
LIMBS: tuple[str, ...] = ("head", "torso", "left_arm", "right_arm", "left_leg", "right_leg")

#: The standard Hit Location table: (highest d20 of the band, limb).
HIT_LOCATIONS: tuple[tuple[int, str], ...] = (
    (2, "head"),
    (8, "torso"),
    (11, "left_arm"),
    (14, "right_arm"),
    (17, "left_leg"),
    (20, "right_leg"),
)

#: What happened to one shot (the ``outcome`` field of a shot):
#: ``hit`` the target; ``cover`` a window (a creature in front, or the object);
#: ``held`` a window hit on an ally turned into a miss by Trigger Discipline;
#: ``miss`` roll <= base Evasion outside a burst; ``stray`` a burst's miss that
#: went on and hit a creature behind; ``lost`` a burst's miss that hit nobody;
#: ``blocked`` no line of effect, the shot hits the obstacle.
OUTCOMES: tuple[str, ...] = ("hit", "cover", "held", "miss", "stray", "lost", "blocked")

# Outcome codes of classify(), indices into OUTCOMES.
_HIT, _COVER, _HELD, _MISS, _STRAY, _LOST, _BLOCKED = range(7)


def hit_location(d20: int) -> str:
    """The limb of a d20 on the Hit Location table.

    >>> [hit_location(d) for d in (1, 2, 3, 8, 9, 11, 12, 14, 15, 17, 18, 20)]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['head', 'head', 'torso', 'torso', 'left_arm', 'left_arm', 'right_arm',
     'right_arm', 'left_leg', 'left_leg', 'right_leg', 'right_leg']
    """
    if isinstance(d20, bool) or not isinstance(d20, (int, np.integer)):
        raise TypeError(f"location roll must be an integer, not {d20!r}")
    if not 1 <= d20 <= 20:
        raise ValueError(f"location roll must be a d20 (1-20), not {d20}")
    for top, limb in HIT_LOCATIONS:
        if d20 <= top:
            return limb
    raise AssertionError("unreachable")  # pragma: no cover


def parse_limb(value: Any, where: str = "called_shot") -> str:
    """A limb name in canonical form: ``"Left arm"`` and ``"left-arm"`` give ``"left_arm"``.

    >>> parse_limb("Left Arm")
    'left_arm'
    """
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a limb name, not {type(value).__name__} ({value!r})")
    name = "_".join(value.strip().lower().replace("-", " ").replace("_", " ").split())
    if name not in LIMBS:
        raise ValueError(f"{where}: unknown limb {value!r}; expected one of {', '.join(LIMBS)}")
    return name


@dataclass(frozen=True)
class Window:
    """A cover window: rolls in ``(low, high]`` hit ``creature`` (an id or ``"object"``)."""

    creature: str
    bonus: int
    low: int
    high: int

    def to_json(self) -> dict[str, Any]:
        return {"creature": self.creature, "bonus": self.bonus, "from": self.low, "to": self.high}


@dataclass(frozen=True)
class FireLine:
    """What a shooter faces along one line of fire.

    Parameters
    ----------
    target : str
        The intended target's id.
    base_evasion : int
        The target's base Evasion E.
    windows : tuple of Window
        Nearest first; contiguous from E upwards.
    held : frozenset of str
        Window creatures the shooter never hits (allies, with Trigger Discipline).
    behind : tuple of str
        Creatures behind the target that stray shots can reach, nearest first.
    behind_evasion : tuple of int
        Their Evasions (same order).
    blocked : bool
        No line of effect: every shot hits ``"object"``.
    """

    target: str
    base_evasion: int
    windows: tuple[Window, ...] = ()
    held: frozenset[str] = field(default_factory=frozenset)
    behind: tuple[str, ...] = ()
    behind_evasion: tuple[int, ...] = ()
    blocked: bool = False

    def __post_init__(self) -> None:
        if len(self.behind) != len(self.behind_evasion):
            raise ValueError(
                f"behind has {len(self.behind)} creatures but behind_evasion "
                f"{len(self.behind_evasion)} values"
            )
        low = self.base_evasion
        for w in self.windows:
            if w.low != low or w.high <= w.low:
                raise ValueError(
                    f"windows must be contiguous from {self.base_evasion}: {self.windows}")
            low = w.high

    @property
    def enhanced_evasion(self) -> int:
        """Base Evasion plus every window's bonus."""
        return self.windows[-1].high if self.windows else self.base_evasion


def _as_rolls(rolls: Any) -> np.ndarray:
    arr = np.asarray(rolls)
    if arr.ndim != 1:
        raise ValueError(f"rolls must be a flat list of attack totals, not shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"rolls must be integers (attack totals), not {list(rolls)!r}")
    return arr.astype(np.int64)


def classify(
    line: FireLine, rolls: npt.ArrayLike, *, burst: bool = False
) -> tuple[np.ndarray, list[str | None]]:
    """Resolve many rolls at once.

    Returns
    -------
    outcome : ndarray of int
        Indices into :data:`OUTCOMES`, one per roll.
    hit : list of str or None
        The id hit by each roll (``"object"`` for an object window), None for
        a shot that hits nobody.

    >>> line = FireLine("P", 12, (Window("R", 4, 12, 16),), behind=("B",),
    ...                 behind_evasion=(9,))
    >>> out, hit = classify(line, [8, 11, 15, 18], burst=True)
    >>> [OUTCOMES[o] for o in out], hit
    (['lost', 'stray', 'cover', 'hit'], [None, 'B', 'R', 'P'])
    """
    r = _as_rolls(rolls)
    n = r.size
    if line.blocked:
        return np.full(n, _BLOCKED, dtype=np.int64), [OBJECT] * n
    # labels: 0 nobody, 1 target, 2.. windows, then creatures behind
    labels: list[str | None] = [None, line.target]
    labels += [w.creature for w in line.windows]
    first_behind = len(labels)
    labels += list(line.behind)

    bounds = np.array([line.base_evasion] + [w.high for w in line.windows], dtype=np.int64)
    band = np.searchsorted(bounds, r, side="left")  # 0: r <= E; i: window i-1; last: above all
    k = len(line.windows)
    outcome = np.full(n, _MISS, dtype=np.int64)
    who = np.zeros(n, dtype=np.int64)

    above = band > k
    outcome[above] = _HIT
    who[above] = 1

    in_window = (band >= 1) & (band <= k)
    held = np.array([w.creature in line.held for w in line.windows] + [False], dtype=bool)
    is_held = in_window & held[np.clip(band - 1, 0, k)]
    outcome[in_window] = _COVER
    who[in_window] = band[in_window] + 1
    outcome[is_held] = _HELD
    who[is_held] = 0

    if burst:
        missed = band == 0
        outcome[missed] = _LOST
        if line.behind:
            ev = np.asarray(line.behind_evasion, dtype=np.int64)
            beats = ev[None, :] < r[:, None]  # "the roll exceeds that creature's Evasion"
            reached = missed & beats.any(axis=1)
            outcome[reached] = _STRAY
            who[reached] = first_behind + np.argmax(beats[reached], axis=1)
    return outcome, [labels[i] for i in who]


def resolve_rolls(
    line: FireLine,
    rolls: Sequence[int] | npt.ArrayLike,
    *,
    burst: bool = False,
    called_shot: str | None = None,
    rng: np.random.Generator | None = None,
    d20: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """One record per roll, in order (the ``shots`` of the ``shots`` op).

    Each record: ``roll``, ``d20`` (the natural die when the roll was drawn
    here, else None), ``hit`` (an id, ``"object"``, or None), ``outcome`` (one
    of :data:`OUTCOMES`), ``stray`` (a burst's shot that missed the target and
    went on), ``called_shot_lost``, ``location_roll`` and ``limb``.

    With a called shot, a shot that hits the target hits the called limb; a
    shot that hits another creature (in front, or a stray) loses its limb and
    gets a random one: a d20 from ``rng`` on the Hit Location table, drawn in
    shot order.  A called shot that hits the object loses its limb too (no
    location).  Without a called shot no location is rolled.
    """
    called = None if called_shot is None else parse_limb(called_shot)
    outcome, hit = classify(line, rolls, burst=burst)
    r = _as_rolls(rolls)
    if d20 is not None and len(d20) != len(r):
        raise ValueError(f"d20 has {len(d20)} values for {len(r)} rolls")
    shots = []
    for i, (code, who) in enumerate(zip(outcome.tolist(), hit)):
        lost = called is not None and who is not None and who != line.target
        location = limb = None
        if called is not None and who == line.target:
            limb = called
        elif lost and who != OBJECT:
            if rng is None:
                raise ValueError(
                    "a called shot that hits another creature needs a random generator")
            location = int(rng.integers(1, 21))
            limb = hit_location(location)
        shots.append({
            "roll": int(r[i]),
            "d20": None if d20 is None else int(d20[i]),
            "hit": who,
            "outcome": OUTCOMES[code],
            "stray": code in (_STRAY, _LOST),
            "called_shot_lost": lost,
            "location_roll": location,
            "limb": limb,
        })
    return shots


def probabilities(line: FireLine, attack_bonus: int, *, burst: bool = False) -> dict[str, Fraction]:
    """Exact chances of each outcome of one d20 + ``attack_bonus`` shot.

    Keys are ids (the target first, then the windows nearest first, then the
    creatures behind), ``"object"``, and ``"miss"`` for a shot that hits
    nobody; zero outcomes are left out; the values sum to 1.  With ``burst``,
    a miss goes on as a stray to the creatures behind.

    >>> line = FireLine("P", 12, (Window("R", 4, 12, 16),))
    >>> probabilities(line, 3)
    {'P': Fraction(7, 20), 'R': Fraction(1, 5), 'miss': Fraction(9, 20)}
    """
    if isinstance(attack_bonus, bool) or not isinstance(attack_bonus, (int, np.integer)):
        raise TypeError(f"attack_bonus must be an integer, not {attack_bonus!r}")
    faces = np.arange(1, 21, dtype=np.int64) + int(attack_bonus)
    _, hit = classify(line, faces, burst=burst)
    counts = Counter(MISS if h is None else h for h in hit)
    order = [line.target] + [w.creature for w in line.windows] + list(line.behind) + [OBJECT, MISS]
    out: dict[str, Fraction] = {}
    for key in order:
        if counts.get(key) and key not in out:
            out[key] = Fraction(counts[key], 20)
    return out


def format_fraction(value: Fraction) -> str:
    """``"p/q"`` in lowest terms, also for 0 and 1 (``"0/1"``, ``"1/1"``).

    >>> format_fraction(Fraction(4, 20)), format_fraction(Fraction(1))
    ('1/5', '1/1')
    """
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


def tally(shots: Sequence[dict[str, Any]]) -> dict[str | None, int]:
    """Hits per id (None counts shots that hit nobody), in order of first hit."""
    out: dict[str | None, int] = {}
    for s in shots:
        out[s["hit"]] = out.get(s["hit"], 0) + 1
    return out


def _hits(n: int) -> str:
    return f"{n} hit" if n == 1 else f"{n} hits"


def summary(target: str, shots: Sequence[dict[str, Any]], *, order: Sequence[str] = ()) -> str:
    """The rule text's one-line result of a volley.

    The target always comes first, then every other id that was hit (in
    ``order`` if listed there, else by first hit), then the shots that hit
    nobody.

    >>> shots = [{"hit": h} for h in (None, "R", "P", "R")]
    >>> summary("P", shots, order=["R"])
    'P takes 1 hit. R takes 2 hits. 1 shot missed entirely.'
    """
    counts = tally(shots)
    ids = [target] + [c for c in order if c in counts and c != target]
    ids += [c for c in counts if c is not None and c not in ids]
    parts = []
    for cid in ids:
        name = "The object" if cid == OBJECT else cid
        parts.append(f"{name} takes {_hits(counts.get(cid, 0))}.")
    missed = counts.get(None, 0)
    if missed:
        parts.append(f"{missed} shot{'' if missed == 1 else 's'} missed entirely.")
    return " ".join(parts)
