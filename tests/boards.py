"""Hand-drawn test maps from rows of characters.

``.`` open, ``#`` solid, ``=`` low; a capital letter is a creature whose space
starts at the letter's first (top-left) appearance, with the letter as its id;
any other character is an open square (a marker for the reader).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from lineoffire.maps import BattleMap


def board_from_rows(rows: Sequence[str], *, walls: Iterable[Any] = (),
                    creatures: Iterable[Any] = (),
                    fields: Mapping[str, Mapping[str, Any]] | None = None,
                    **kw: Any) -> BattleMap:
    """A map from ``rows``; ``fields[letter]`` adds fields to that creature
    (``size``, ``team``, even another ``id``); ``creatures`` adds more."""
    fields = fields or {}
    found: dict[str, tuple[int, int]] = {}
    squares = []
    for r, row in enumerate(rows):
        line = []
        for c, ch in enumerate(row):
            if ch.isalpha() and ch.isupper():
                found.setdefault(ch, (c, r))
            line.append(ch if ch in ".#=" else ".")
        squares.append("".join(line))
    placed = [{"id": k, "x": c, "y": r, **fields.get(k, {})} for k, (c, r) in found.items()]
    return BattleMap.build(len(rows[0]), len(rows), squares=squares, walls=list(walls),
                           creatures=placed + list(creatures), **kw)


def place_space(rng: np.random.Generator, taken: np.ndarray, space: int,
                tries: int) -> tuple[int, int] | None:
    """A random free top-left ``(x, y)`` for a ``space`` x ``space`` creature on
    the boolean grid ``taken`` (then marked taken), or None after ``tries``."""
    h, w = taken.shape
    for _ in range(tries):
        x, y = int(rng.integers(0, w - space + 1)), int(rng.integers(0, h - space + 1))
        if not taken[y:y + space, x:x + space].any():
            taken[y:y + space, x:x + space] = True
            return x, y
    return None
