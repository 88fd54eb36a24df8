"""Result types of line tracing: blockers, one line's trace, a batch of traces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

__all__ = ["KINDS", "KIND_CODE", "Blocker", "LineTrace", "TraceBatch"]

#: Blocker kinds in tie-break order (SPEC section 3).
KINDS: tuple[str, ...] = ("solid", "wall", "door", "slit", "low", "creature")
KIND_CODE: dict[str, int] = {k: i for i, k in enumerate(KINDS)}
SOLID_K, WALL_K, DOOR_K, SLIT_K, LOW_K, CREATURE_K = range(6)
#: ref_type codes of TraceBatch rows.
REF_SQUARE, REF_WALL, REF_CREATURE = range(3)


@dataclass(frozen=True)
class Blocker:
    """One piece on a line: a square, one segment of a thin wall, or a creature.

    Exactly one of ``square`` (``(c, r)``), ``wall`` (``(wall index, segment
    index)``) and ``creature`` (an id) is set.  ``t`` is the parameter along
    the original segment where the piece first takes part.
    """

    kind: str
    t: float
    square: tuple[int, int] | None = None
    wall: tuple[int, int] | None = None
    creature: str | None = None

    @property
    def is_blocking(self) -> bool:
        return self.kind in ("solid", "wall", "door")

    @property
    def ref(self) -> tuple[str, Any]:
        """``("square", (c, r))``, ``("wall", (i, j))`` or ``("creature", id)``."""
        if self.square is not None:
            return ("square", self.square)
        if self.wall is not None:
            return ("wall", self.wall)
        return ("creature", self.creature)

    def to_json(self) -> dict[str, Any]:
        key, value = self.ref
        return {"kind": self.kind, key: list(value) if key != "creature" else value,
                "t": round(self.t, 12)}


@dataclass(frozen=True)
class LineTrace:
    """What one line passes through.

    ``stopped``: the blocking class closes the line somewhere.  ``slit`` /
    ``low``: it crosses slit / low cover somewhere (at a point where it is not
    stopped).  ``blockers``: nearest first (SPEC section 3).
    """

    stopped: bool
    slit: bool
    low: bool
    blockers: tuple[Blocker, ...] = field(default=())

    @property
    def creatures(self) -> list[str]:
        """Ids of the creatures the line passes through, nearest first."""
        return [b.creature for b in self.blockers if b.creature is not None]

    def of_kind(self, *kinds: str) -> list[Blocker]:
        return [b for b in self.blockers if b.kind in kinds]

    def to_json(self) -> dict[str, Any]:
        return {"stopped": self.stopped, "blockers": [b.to_json() for b in self.blockers]}


@dataclass
class TraceBatch(Sequence[LineTrace]):
    """Traces of N lines as flat arrays (arrays in, arrays out).

    Line ``i``'s blockers are rows ``offsets[i]:offsets[i + 1]`` of ``kind``
    (codes into :data:`KINDS`), ``t``, ``ref_type`` (REF_SQUARE, REF_WALL,
    REF_CREATURE), ``ref0`` and ``ref1`` (square: c, r; wall: wall index,
    segment index; creature: creature index, -1), already
    in blocker-list order.  Indexing gives :class:`LineTrace` objects.
    """

    stopped: np.ndarray
    slit: np.ndarray
    low: np.ndarray
    offsets: np.ndarray
    kind: np.ndarray
    t: np.ndarray
    ref0: np.ndarray
    ref1: np.ndarray
    ref_type: np.ndarray
    creature_ids: Sequence[str]

    def __len__(self) -> int:
        return len(self.stopped)

    def _line(self, i: int) -> LineTrace:
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        out = []
        for j in range(a, b):
            k = int(self.kind[j])
            kind = KINDS[k]
            t = float(self.t[j])
            r0, r1 = int(self.ref0[j]), int(self.ref1[j])
            rt = int(self.ref_type[j])
            if rt == REF_CREATURE:
                out.append(Blocker(kind, t, creature=self.creature_ids[r0]))
            elif rt == REF_SQUARE:
                out.append(Blocker(kind, t, square=(r0, r1)))
            else:
                out.append(Blocker(kind, t, wall=(r0, r1)))
        return LineTrace(bool(self.stopped[i]), bool(self.slit[i]), bool(self.low[i]), tuple(out))

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self._line(j) for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"line index {i} out of range for {len(self)} lines")
        return self._line(i)

    def __iter__(self) -> Iterator[LineTrace]:
        for i in range(len(self)):
            yield self._line(i)

    def to_json(self) -> dict[str, Any]:
        return {"lines": [ln.to_json() for ln in self]}
