"""Hand-drawn test maps from rows of characters.

``.`` open, ``#`` solid, ``=`` low; a capital letter is a creature whose space
starts at the letter's first (top-left) appearance, with the letter as its id;
any other character is an open square (a marker for the reader).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

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
