"""All-pairs cover: every attacker against every target, traced in bulk.

:func:`cover_matrix` enumerates the ordered pairs (attacker != target) within
range.  When only cover codes are kept (not full answers), the pairs that
:func:`lineoffire.geometry.seal.sealed` proves cut off (no line of effect:
total cover in every ruleset, null bonus) are answered at once, with no
line drawn; in a dungeon that is most pairs.  For the others it asks the
ruleset for the lines of a *chunk* of pairs at once
(``plan``), traces all their lines in **one** call of
:func:`lineoffire.geometry.trace` (identical lines with the same attachment
are traced once), and lets the ruleset decide each pair from its slice of
the traces (``decide``).  Pairs whose drawn lines all fail to prove line
of effect (SPEC section 4) need the exact search; the chunk's searches run
together (:func:`lineoffire.geometry.effect.line_of_effect_many`), once per
unordered pair since line of effect is symmetric (the pairs are chunked
with ``(a, t)`` next to ``(t, a)``), and ``decide`` is told the answers.
The answers are exactly those of the ruleset's single-pair ``resolve``.  Memory is bounded by the chunk size, whatever the
number of pairs; per pair only a cover code (int8) and a bonus are kept,
plus the full answer when asked for (JSON output).

With a :class:`distributed.Client` the chunks run as tasks on a Dask
cluster (the map is scattered once); the result is ordered exactly as a
local run's.

Range is the grid distance (SPEC section 1 counting) between the nearest
squares of the two creatures, in feet (``bmap.square_ft`` per square).

Cover codes
-----------
Each pair's ``cover`` is stored as an int8 code, the index of its name in
:data:`COVER_CODES` of the ruleset; ``-1`` marks a pair that was not
evaluated (attacker == target, out of range, or not adjacent for melee):

=============== =====================================================
rules           codes 0, 1, 2, ...
=============== =====================================================
pf1e            none, soft, partial, cover, improved, total
pf2e            none, lesser, standard, greater, total
creature-cover  none, half, full, total
=============== =====================================================

The bonus is the ruleset's main number (:data:`BONUS_KEY`: pf1e
``ac_bonus``, pf2e ``defence_bonus``, creature-cover ``bonus``); ``-1``
where it is null (total cover) or the pair was not evaluated.

Examples
--------
Two goblins in a corridor, a solid square between the archer and one of
them::

    A . # G .
    . . . . H

>>> from lineoffire.maps import BattleMap
>>> m = BattleMap.build(5, 2, squares=["..#..", "....."], creatures=[
...     {"id": "A", "x": 0, "y": 0}, {"id": "G", "x": 3, "y": 0},
...     {"id": "H", "x": 4, "y": 1}])
>>> res = cover_matrix(m, rules="pf1e", attackers=["A"])
>>> [(p["attacker"], p["target"], p["cover"]) for p in res.to_json()["pairs"]]
[('A', 'G', 'cover'), ('A', 'H', 'none')]
>>> res.matrix().tolist()
[[-1, 3, 0]]
"""

from __future__ import annotations

import csv
import io
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence, TextIO

import numpy as np

from lineoffire.errors import RequestError
from lineoffire.geometry import trace
from lineoffire.geometry.seal import sealed_pairs
from lineoffire.geometry.types import LineTrace, TraceBatch
from lineoffire.maps.model import BattleMap
from lineoffire.resolver import RULESETS, ruleset

__all__ = [
    "MATRIX_ATTACKS",
    "COVER_CODES",
    "BONUS_KEY",
    "NOT_EVALUATED",
    "DEFAULT_CHUNK",
    "MatrixResult",
    "ProgressBar",
    "cover_matrix",
    "evaluate_pairs",
    "pairs_in_range",
    "local_client",
]

#: rules -> cover names; a pair's code is the index of its cover here.
COVER_CODES: dict[str, tuple[str, ...]] = {
    "pf1e": ("none", "soft", "partial", "cover", "improved", "total"),
    "pf2e": ("none", "lesser", "standard", "greater", "total"),
    "creature-cover": ("none", "half", "full", "total"),
}

#: rules -> the answer field reported as the pair's bonus.
BONUS_KEY: dict[str, str] = {
    "pf1e": "ac_bonus",
    "pf2e": "defence_bonus",
    "creature-cover": "bonus",
}

#: Code of a pair that was not evaluated (self, out of range, not adjacent for melee).
NOT_EVALUATED = -1

#: Pairs per chunk: plans, one trace call and decisions at a time.
DEFAULT_CHUNK = 2000

#: Attacks a matrix can run (an area effect has no attacker to pair).
MATRIX_ATTACKS: tuple[str, ...] = ("ranged", "melee", "reach")


# ---------------------------------------------------------------- results
@dataclass
class MatrixResult:
    """The answers of a cover matrix.

    Attributes
    ----------
    rules : str
    attackers, targets : list of str
        The ids asked for, in order: rows and columns of :meth:`matrix`.
    pair_attacker, pair_target : ndarray of int32, shape (P,)
        Per evaluated pair, its row in ``attackers`` / column in ``targets``;
        pairs are ordered by attacker, then target, in the orders above.
    cover : ndarray of int8, shape (P,)
        Cover codes (module docstring).
    bonus : ndarray of int16, shape (P,)
        The ruleset's bonus (:data:`BONUS_KEY`), -1 where null.
    answers : list of dict or None
        The full answers (``{"attacker", "target", "cover", ...}``) when
        they were kept.
    lines_planned, lines_traced : int
        Lines the rulesets drew, and lines actually traced after removing
        duplicates.
    range_ft : float or None
    """

    rules: str
    attackers: list[str]
    targets: list[str]
    pair_attacker: np.ndarray
    pair_target: np.ndarray
    cover: np.ndarray
    bonus: np.ndarray
    answers: list[dict[str, Any]] | None = None
    lines_planned: int = 0
    lines_traced: int = 0
    range_ft: float | None = None
    attack: str = "ranged"
    stats: dict[str, float] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.cover)

    @property
    def codes(self) -> tuple[str, ...]:
        """Cover names by code for this result's rules."""
        return COVER_CODES[self.rules]

    def cover_names(self) -> list[str]:
        """The cover name of every evaluated pair, in pair order."""
        names = self.codes
        return [names[c] for c in self.cover.tolist()]

    def matrix(self) -> np.ndarray:
        """Cover codes as a ``(len(attackers), len(targets))`` int8 array, -1 if not evaluated."""
        out = np.full((len(self.attackers), len(self.targets)), NOT_EVALUATED, dtype=np.int8)
        out[self.pair_attacker, self.pair_target] = self.cover
        return out

    def bonus_matrix(self) -> np.ndarray:
        """Bonuses as a ``(len(attackers), len(targets))`` int16 array, -1 if null or not evaluated."""
        out = np.full((len(self.attackers), len(self.targets)), -1, dtype=np.int16)
        out[self.pair_attacker, self.pair_target] = self.bonus
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"pairs": [{"attacker", "target", "cover", ...}]}`` (the ``matrix`` op's answer).

        Without kept answers each pair has ``attacker``, ``target``,
        ``cover`` and the bonus field only.
        """
        if self.answers is not None:
            return {"pairs": list(self.answers)}
        key = BONUS_KEY[self.rules]
        pairs = []
        for a, t, name, b in zip(self.pair_attacker.tolist(), self.pair_target.tolist(),
                                 self.cover_names(), self.bonus.tolist()):
            pairs.append({"attacker": self.attackers[a], "target": self.targets[t],
                          "cover": name, key: None if b < 0 else b})
        return {"pairs": pairs}

    def write_csv(self, fh: TextIO) -> None:
        """Write ``attacker,target,cover,bonus`` rows (bonus empty where null)."""
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["attacker", "target", "cover", "bonus"])
        for a, t, name, b in zip(self.pair_attacker.tolist(), self.pair_target.tolist(),
                                 self.cover_names(), self.bonus.tolist()):
            w.writerow([self.attackers[a], self.targets[t], name, "" if b < 0 else b])

    def to_csv(self) -> str:
        """The CSV text of :meth:`write_csv`."""
        buf = io.StringIO()
        self.write_csv(buf)
        return buf.getvalue()

    def save_npz(self, file: Any) -> None:
        """Save as NumPy ``.npz``: arrays ``attackers``, ``targets`` (ids),
        ``cover`` (int8 matrix of codes, -1 not evaluated), ``bonus`` (int16
        matrix, -1 null or not evaluated), ``codes`` (cover name of each code),
        ``rules``, ``attack`` and ``range_ft`` (NaN for no limit).  It loads
        with ``allow_pickle=False``."""
        np.savez_compressed(
            file,
            attackers=np.array(self.attackers, dtype=str),
            targets=np.array(self.targets, dtype=str),
            cover=self.matrix(),
            bonus=self.bonus_matrix(),
            codes=np.array(self.codes, dtype=str),
            rules=np.array(self.rules),
            attack=np.array(self.attack),
            range_ft=np.array(np.nan if self.range_ft is None else float(self.range_ft)),
        )


# ---------------------------------------------------------------- pairs
def _check_ids(bmap: BattleMap, ids: Any, role: str) -> list[int]:
    index = {c.id: i for i, c in enumerate(bmap.creatures)}
    if ids is None:
        return list(range(len(bmap.creatures)))
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
        raise TypeError(f"{role} must be a list of creature ids, not {type(ids).__name__} ({ids!r})")
    out, seen = [], set()
    for k, cid in enumerate(ids):
        if not isinstance(cid, str):
            raise TypeError(f"{role}[{k}] must be a creature id (a string), not "
                            f"{type(cid).__name__} ({cid!r})")
        if cid not in index:
            known = ", ".join(repr(c) for c in index) or "none"
            raise RequestError(f"{role}[{k}]: unknown creature id {cid!r}; the map has {known}",
                               "unknown_creature")
        if cid in seen:
            raise RequestError(f"{role}[{k}]: creature {cid!r} is listed twice", "bad_request")
        seen.add(cid)
        out.append(index[cid])
    return out


def _check_range(range_ft: Any) -> float | None:
    if range_ft is None:
        return None
    if isinstance(range_ft, bool) or not isinstance(range_ft, (int, float, np.integer, np.floating)):
        raise TypeError(f"range_ft must be a number of feet, not {type(range_ft).__name__} "
                        f"({range_ft!r})")
    value = float(range_ft)
    if not np.isfinite(value) or value < 0:
        raise RequestError(f"range_ft must be a finite number >= 0, not {range_ft!r}", "bad_request")
    return value


def pairs_in_range(bmap: BattleMap, attackers: Sequence[int], targets: Sequence[int], *,
                   range_ft: float | None = None, adjacent_only: bool = False,
                   block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Ordered pairs ``(i, j)`` of positions in ``attackers`` / ``targets`` to evaluate.

    Pairs of a creature with itself are left out, and so are pairs whose grid
    distance (between nearest squares, SPEC section 1) exceeds ``range_ft``;
    with ``adjacent_only`` only adjacent pairs (spaces touching, interiors
    disjoint) are kept.  Order: by attacker, then target.

    Parameters
    ----------
    bmap : BattleMap
    attackers, targets : sequences of int
        Indices into ``bmap.creatures``.

    Returns
    -------
    (ndarray, ndarray) of int32
        Row in ``attackers`` and column in ``targets`` of each pair.

    Examples
    --------
    >>> m = BattleMap.build(9, 1, creatures=[{"id": "A", "x": 0, "y": 0},
    ...     {"id": "B", "x": 2, "y": 0}, {"id": "C", "x": 8, "y": 0}])
    >>> [a.tolist() for a in pairs_in_range(m, [0, 1, 2], [0, 1, 2], range_ft=10)]
    [[0, 1], [1, 0]]
    """
    rects = np.array([c.rect for c in bmap.creatures], dtype=np.int64).reshape(-1, 4)
    a_idx = np.asarray(attackers, dtype=np.int64)
    t_idx = np.asarray(targets, dtype=np.int64)
    tr = rects[t_idx]
    rows, cols = [], []
    for s in range(0, len(a_idx), block):
        ar = rects[a_idx[s:s + block]]
        keep = a_idx[s:s + block, None] != t_idx[None, :]
        # gaps between closed spaces, in squares; squares apart = gap + 1 where gap > 0
        gx = np.maximum(np.maximum(tr[None, :, 0] - ar[:, None, 2], ar[:, None, 0] - tr[None, :, 2]), -1)
        gy = np.maximum(np.maximum(tr[None, :, 1] - ar[:, None, 3], ar[:, None, 1] - tr[None, :, 3]), -1)
        if adjacent_only:
            keep &= (np.maximum(gx, gy) == 0)
        if range_ft is not None:
            dc = np.maximum(gx + 1, 0)
            dr = np.maximum(gy + 1, 0)
            d = np.maximum(dc, dr) + np.minimum(dc, dr) // 2
            keep &= d * float(bmap.square_ft) <= range_ft
        r, c = np.nonzero(keep)
        rows.append((r + s).astype(np.int32))
        cols.append(c.astype(np.int32))
    if not rows:
        return np.zeros(0, np.int32), np.zeros(0, np.int32)
    return np.concatenate(rows), np.concatenate(cols)


# ---------------------------------------------------------------- tracing
class _LazyTrace(LineTrace):
    """A LineTrace whose blocker list is read from the batch only when asked for.

    Rulesets decide most lines from ``stopped`` alone; building every
    blocker of every line (thousands on long lines through a dungeon) would
    cost more than the trace.
    """

    def __init__(self, batch: TraceBatch, row: int, stopped: bool, slit: bool, low: bool,
                 empty: bool = False):
        object.__setattr__(self, "stopped", stopped)
        object.__setattr__(self, "slit", slit)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "_batch", batch)
        object.__setattr__(self, "_row", row)
        if empty:  # a clear line through nothing: most unstopped lines
            object.__setattr__(self, "_blockers", ())

    @property
    def blockers(self):  # type: ignore[override]
        cached = self.__dict__.get("_blockers")
        if cached is None:
            cached = self._batch[self._row].blockers
            object.__setattr__(self, "_blockers", cached)
        return cached


def _trace_key(options: dict[str, bool]) -> tuple[tuple[str, bool], ...]:
    return tuple(sorted((k, bool(v)) for k, v in options.items()))


def _trace_plans(bmap: BattleMap, plans: Sequence[Any]) -> tuple[list[list[LineTrace]], int, int]:
    """Trace the lines of many plans: duplicates once, one trace call per set of
    trace options.  Returns each plan's traces, lines planned, lines traced."""
    groups: dict[tuple, list[int]] = {}
    for k, p in enumerate(plans):
        groups.setdefault(_trace_key(p.trace_options), []).append(k)
    out: list[list[LineTrace]] = [[] for _ in plans]
    planned = traced = 0
    for key, members in groups.items():
        sizes = np.array([len(plans[k]) for k in members], dtype=np.int64)
        planned += int(sizes.sum())
        if sizes.sum() == 0:
            continue
        drawn = [plans[k] for k in members if len(plans[k])]
        rows = np.empty((int(sizes.sum()), 6), dtype=np.float64)
        rows[:, :4] = np.concatenate([p.segments for p in drawn])
        rows[:, 4] = np.concatenate([p.attacker for p in drawn])
        rows[:, 5] = np.concatenate([p.target for p in drawn])
        uniq, inverse = _distinct_rows(rows)
        traced += len(uniq)
        batch = trace(bmap, uniq[:, :4], attacker=uniq[:, 4].astype(np.int64),
                      target=uniq[:, 5].astype(np.int64), **dict(key))
        stopped = batch.stopped.tolist()
        slit = batch.slit.tolist()
        low = batch.low.tolist()
        empty = (np.diff(batch.offsets) == 0).tolist()
        made: dict[int, LineTrace] = {}
        ends = np.cumsum(sizes)
        for k, e, n in zip(members, ends.tolist(), sizes.tolist()):
            lines = []
            for u in inverse[e - n:e].tolist():
                tr = made.get(u)
                if tr is None:
                    tr = made[u] = _LazyTrace(batch, u, stopped[u], slit[u], low[u], empty[u])
                lines.append(tr)
            out[k] = lines
    return out, planned, traced


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)``, by one lexsort (faster)."""
    order = np.lexsort(rows.T[::-1])
    ranked = rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ranked[new], inverse


def _known_line_of_effect(bmap: BattleMap, mod: Any, plans: Sequence[Any],
                          traces: list[list[LineTrace]], *, tried_proof: bool = False
                          ) -> list[bool | None] | None:
    """Line of effect of the chunk's pairs that need the exact search, found in
    batched searches, when the ruleset's ``decide`` takes it as
    ``line_of_effect=`` (else None: ``decide`` searches pair by pair).

    The ruleset's ``effect_search(bmap, plan, traces)`` names the pairs
    ``decide`` would search for (no drawn line proves line of effect) and
    whether their drawn lines were every corner-to-corner line (then the
    search skips tracing them again).  ``tried_proof``: the chunk's pairs
    were just tried by the cheap proof of :mod:`lineoffire.geometry.seal`,
    so the search skips it.  Line of effect is symmetric, so
    ``(a, t)`` and ``(t, a)`` are searched once.  Per pair: a bool, or None
    where no search is needed.
    """
    ask = getattr(mod, "effect_search", None)
    if ask is None or not _takes_keyword(mod.decide, "line_of_effect"):
        return None
    wanted = [ask(bmap, p, tr) for p, tr in zip(plans, traces)]
    groups: dict[bool, set[tuple[int, int]]] = {}
    for w in wanted:
        if w is not None:
            a, t, drawn_stopped = w
            groups.setdefault(bool(drawn_stopped), set()).add((min(a, t), max(a, t)))
    if not groups:
        return [None] * len(plans)
    from lineoffire.geometry.effect import line_of_effect_many

    found: dict[tuple[int, int, bool], bool] = {}
    for drawn_stopped, keys in groups.items():
        order = sorted(keys)
        answers = line_of_effect_many(bmap, order, drawn_stopped=drawn_stopped,
                                      prove=not tried_proof).tolist()
        found.update({(a, t, drawn_stopped): v for (a, t), v in zip(order, answers)})
    return [None if w is None else found[(min(w[0], w[1]), max(w[0], w[1]), bool(w[2]))]
            for w in wanted]


def _takes_keyword(func: Callable[..., Any], name: str) -> bool:
    """Whether ``func`` has a keyword-only parameter ``name``."""
    import inspect

    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    p = params.get(name)
    return p is not None and p.kind is inspect.Parameter.KEYWORD_ONLY


def _run_chunk(bmap: BattleMap, rules: str, ids: Sequence[str], a_idx: np.ndarray,
               t_idx: np.ndarray, attack: str, options: Any,
               keep_answers: bool) -> tuple[np.ndarray, np.ndarray, list | None, int, int]:
    """Plan, trace (once) and decide one chunk of pairs (creature indices)."""
    mod = ruleset(rules)
    names = {n: i for i, n in enumerate(COVER_CODES[rules])}
    key = BONUS_KEY[rules]
    codes = np.empty(len(a_idx), dtype=np.int8)
    bonus = np.empty(len(a_idx), dtype=np.int16)
    # Pairs proved cut off (no line of effect, so total cover in every
    # ruleset, with a null bonus) need no lines when only codes are kept.
    rest = np.arange(len(a_idx))
    tried_proof = not keep_answers and attack != "melee"
    if tried_proof:
        cut = sealed_pairs(bmap, a_idx, t_idx)
        codes[cut], bonus[cut] = names["total"], -1
        rest = np.flatnonzero(~cut)
    pairs = list(zip(a_idx[rest].tolist(), t_idx[rest].tolist()))
    plans = [mod.plan(bmap, ids[a], ids[t], attack=attack, options=options) for a, t in pairs]
    traces, planned, traced = _trace_plans(bmap, plans)
    # the pairs left were just tried by the proof: the search need not again
    known = _known_line_of_effect(bmap, mod, plans, traces, tried_proof=tried_proof)
    answers: list | None = [] if keep_answers else None
    # Without kept answers only the cover and the bonus are read: a ruleset
    # that can leave out the costly parts of its answer (``summary``) does.
    extra: dict[str, Any] = {}
    if not keep_answers and _takes_keyword(mod.decide, "summary"):
        extra["summary"] = True
    for k, (p, tr) in enumerate(zip(plans, traces)):
        if known is not None:
            extra["line_of_effect"] = known[k]
        ans = mod.decide(bmap, p, tr, **extra)
        cover = ans["cover"]
        if cover not in names:
            raise ValueError(f"the {rules} rules answered cover {cover!r} for "
                             f"{ids[pairs[k][0]]!r} -> {ids[pairs[k][1]]!r}; the matrix "
                             f"knows {', '.join(names)}")
        codes[rest[k]] = names[cover]
        b = ans.get(key)
        bonus[rest[k]] = -1 if b is None else int(b)
        if answers is not None:
            answers.append({"attacker": ids[pairs[k][0]], "target": ids[pairs[k][1]], **ans})
    return codes, bonus, answers, planned, traced


# ---------------------------------------------------------------- progress
class ProgressBar:
    """A one-line progress bar on a terminal stream, shown once work lasts ``delay`` s.

    ``bar(done, total)`` updates it (at most ten times a second); ``close()``
    ends the line if anything was drawn.  Disabled, it does nothing.
    """

    def __init__(self, *, label: str = "matrix", enabled: bool = True,
                 stream: TextIO | None = None, delay: float = 2.0, width: int = 30):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.label = label
        self.delay = delay
        self.width = width
        self.start = time.monotonic()
        self._last = 0.0
        self._drawn = False

    @classmethod
    def for_terminal(cls, *, quiet: bool = False, label: str = "matrix") -> "ProgressBar":
        """Enabled unless ``quiet`` or stderr is not a terminal."""
        isatty = getattr(sys.stderr, "isatty", None)
        return cls(label=label, enabled=not quiet and bool(isatty and isatty()))

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.delay or (now - self._last < 0.1 and done < total):
            return
        self._last = now
        frac = done / total if total else 1.0
        fill = int(round(frac * self.width))
        left = elapsed / frac - elapsed if frac > 0 else float("nan")
        eta = f"~{left:.0f} s left" if done < total and frac > 0 else f"{elapsed:.1f} s"
        self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (self.width - fill)}] "
                          f"{done}/{total} pairs {frac:4.0%} {eta}   ")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


# ---------------------------------------------------------------- main
def _chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for s in range(0, n, size):
        yield s, min(n, s + size)


def cover_matrix(
    bmap: BattleMap,
    *,
    rules: str = "pf1e",
    attackers: Sequence[str] | None = None,
    targets: Sequence[str] | None = None,
    range_ft: float | None = None,
    attack: str = "ranged",
    options: dict[str, Any] | None = None,
    keep_answers: bool = True,
    chunk_size: int = DEFAULT_CHUNK,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatrixResult:
    """Cover of every target against every attacker, within range.

    Parameters
    ----------
    bmap : BattleMap
    rules : {"pf1e", "pf2e", "creature-cover"}
    attackers, targets : lists of creature ids, optional
        Default: every creature on the map, in map order.
    range_ft : float, optional
        Only pairs whose grid distance (nearest squares) is at most this many
        feet; no limit by default.
    attack : {"ranged", "melee", "reach"}
        ``melee`` evaluates only adjacent pairs (others are not evaluated,
        code -1, rather than errors).  Area effects have no attacker: use
        the ``cover`` op per origin instead.
    options : dict, optional
        The ruleset's options (checked by the ruleset).
    keep_answers : bool
        Keep each pair's full answer (for JSON); codes and bonuses are
        always kept.
    chunk_size : int
        Pairs planned, traced and decided together (bounds the memory).
    client : distributed.Client, optional
        Run the chunks as tasks on this Dask cluster.
    progress : callable, optional
        Called as ``progress(pairs_done, pairs_total)`` after each chunk.

    Returns
    -------
    MatrixResult

    Raises
    ------
    RequestError
        Unknown rules, attack or creature ids, an id listed twice, a bad
        range; whatever the ruleset refuses (unknown options).
    TypeError
        Ids that are not lists of strings, a range that is not a number.
    """
    if not isinstance(rules, str) or rules not in RULESETS:
        raise RequestError(f"unknown rules {rules!r}; expected one of {', '.join(RULESETS)}",
                           "unknown_rules")
    if rules not in COVER_CODES:
        raise RequestError(f"the matrix has no cover code table for the {rules!r} rules",
                           "unknown_rules")
    if not isinstance(attack, str) or attack not in MATRIX_ATTACKS:
        raise RequestError(f"matrix: unknown attack {attack!r}; expected one of "
                           f"{', '.join(MATRIX_ATTACKS)} (area effects have no attacker)",
                           "bad_attack")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, not {chunk_size!r}")
    rng = _check_range(range_ft)
    a_list = _check_ids(bmap, attackers, "attackers")
    t_list = _check_ids(bmap, targets, "targets")
    ids = [c.id for c in bmap.creatures]
    rows, cols = pairs_in_range(bmap, a_list, t_list, range_ft=rng,
                                adjacent_only=attack == "melee")
    a_all = np.asarray(a_list, dtype=np.int64)[rows]
    t_all = np.asarray(t_list, dtype=np.int64)[cols]
    t0 = time.perf_counter()
    cover, bonus, answers, planned, traced, chunks = evaluate_pairs(
        bmap, a_all, t_all, rules=rules, attack=attack, options=options,
        keep_answers=keep_answers, chunk_size=chunk_size, client=client, progress=progress)
    return MatrixResult(
        rules=rules,
        attackers=[ids[i] for i in a_list],
        targets=[ids[i] for i in t_list],
        pair_attacker=rows,
        pair_target=cols,
        cover=cover,
        bonus=bonus,
        answers=answers,
        lines_planned=planned,
        lines_traced=traced,
        range_ft=rng,
        attack=attack,
        stats={"seconds": time.perf_counter() - t0, "chunks": float(chunks)},
    )


def evaluate_pairs(
    bmap: BattleMap,
    attacker_index: np.ndarray,
    target_index: np.ndarray,
    *,
    rules: str = "pf1e",
    attack: str = "ranged",
    options: dict[str, Any] | None = None,
    keep_answers: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]] | None, int, int, int]:
    """The matrix engine on given pairs of creature indices (no range filter).

    :func:`cover_matrix` enumerates the pairs and calls this; benchmarks use
    it on samples of pairs.  Returns ``(cover codes, bonuses, answers or
    None, lines planned, lines traced, chunks)``, in pair order.
    """
    a_all = np.asarray(attacker_index, dtype=np.int64).reshape(-1)
    t_all = np.asarray(target_index, dtype=np.int64).reshape(-1)
    if a_all.shape != t_all.shape:
        raise ValueError(f"attacker_index and target_index must have the same length, not "
                         f"{len(a_all)} and {len(t_all)}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, not {chunk_size!r}")
    ids = [c.id for c in bmap.creatures]
    n = len(a_all)
    if n:
        # The ruleset checks the attack and its options when it plans; pairs
        # proved cut off are never planned, so plan one pair up front.
        ruleset(rules).plan(bmap, ids[a_all[0]], ids[t_all[0]], attack=attack, options=options)
    # Mirrored pairs side by side, so that a chunk searches their line of
    # effect once; the results go back to the given order at the end.
    order = np.lexsort((a_all > t_all, np.maximum(a_all, t_all), np.minimum(a_all, t_all)))
    a_all, t_all = a_all[order], t_all[order]
    parts: list[Any] = []
    if client is None:
        for s, e in _chunks(n, int(chunk_size)):
            parts.append(_run_chunk(bmap, rules, ids, a_all[s:e], t_all[s:e], attack, options,
                                    keep_answers))
            if progress is not None:
                progress(e, n)
    else:
        parts = _run_on_dask(client, bmap, rules, ids, a_all, t_all, attack, options,
                             keep_answers, int(chunk_size), progress)
    back = np.empty_like(order)
    back[order] = np.arange(n)
    cover = np.concatenate([p[0] for p in parts])[back] if parts else np.zeros(0, np.int8)
    bonus = np.concatenate([p[1] for p in parts])[back] if parts else np.zeros(0, np.int16)
    answers = None
    if keep_answers:
        flat = [a for p in parts for a in p[2]]
        answers = [flat[k] for k in back.tolist()]
    return (cover, bonus, answers, sum(p[3] for p in parts), sum(p[4] for p in parts),
            len(parts))


def _run_on_dask(client: Any, bmap: BattleMap, rules: str, ids: list[str], a_all: np.ndarray,
                 t_all: np.ndarray, attack: str, options: Any, keep_answers: bool,
                 chunk_size: int, progress: Callable[[int, int], None] | None) -> list[Any]:
    """Submit the chunks to a Dask cluster (map scattered once); results in chunk order."""
    from distributed import as_completed

    n = len(a_all)
    spans = list(_chunks(n, chunk_size))
    if not spans:
        return []
    # hash=False: a fresh key per run, never one being released by a previous run
    remote_map = client.scatter(bmap, broadcast=True, hash=False)
    futures = [client.submit(_run_chunk, remote_map, rules, ids, a_all[s:e], t_all[s:e],
                             attack, options, keep_answers, pure=False)
               for s, e in spans]
    index = {f.key: k for k, f in enumerate(futures)}
    parts: list[Any] = [None] * len(futures)
    done = 0
    try:
        for fut in as_completed(futures):
            k = index[fut.key]
            parts[k] = fut.result()
            done += spans[k][1] - spans[k][0]
            if progress is not None:
                progress(done, n)
    except BaseException:
        client.cancel(futures)
        raise
    return parts


def local_client(*, processes: bool = True, n_workers: int = 2) -> Any:
    """A :class:`distributed.Client` on a new LocalCluster (``--dask local``).

    ``processes=False`` runs one worker of ``n_workers`` threads in this
    process (light, shares the map without copying); otherwise
    ``n_workers`` single-threaded worker processes.  Close the client and
    its cluster when done (``client.close(); client.cluster.close()``).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - depends on the install
        raise RequestError("--dask needs the dask extra: pip install 'lineoffire[dask]'",
                           "bad_request") from None
    if processes:
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    else:
        cluster = LocalCluster(n_workers=1, threads_per_worker=n_workers, processes=False,
                               dashboard_address=None)
    return Client(cluster)
