"""Seeded random dungeons for the benchmarks (not part of the package).

A dungeon of ``width x height`` squares with a share of solid squares, thin
walls (and closed doors) on grid lines, and creatures of medium and larger
sizes placed legally (on open squares, without overlaps).
"""

from __future__ import annotations

import numpy as np

from lineoffire.maps import SIZE_SPACE, SIZES, BattleMap

__all__ = ["make_dungeon"]


def make_dungeon(width: int, height: int, n_creatures: int, *, seed: int = 0,
                 solid: float = 0.10, n_walls: int | None = None) -> BattleMap:
    """A seeded random dungeon (see the module docstring).

    Walls are straight grid-line runs of 2-8 squares, one in 12 a closed door;
    creatures are 70% medium, 20% large, 8% huge, 2% gargantuan.
    """
    rng = np.random.default_rng(seed)
    grid = np.where(rng.random((height, width)) < solid, 1, 0).astype(np.uint8)
    if n_walls is None:
        n_walls = width * height // 40
    walls = []
    for _ in range(n_walls):
        length = int(rng.integers(2, 9))
        if rng.random() < 0.5:  # vertical, on x = k
            x = int(rng.integers(1, width))
            y = int(rng.integers(0, height - length))
            pts = [[x, y], [x, y + length]]
        else:
            y = int(rng.integers(1, height))
            x = int(rng.integers(0, width - length))
            pts = [[x, y], [x + length, y]]
        kind = "door" if rng.random() < 1 / 12 else "wall"
        walls.append({"kind": kind, "points": pts})
    sizes = rng.choice([SIZES.index(s) for s in ("medium", "large", "huge", "gargantuan")],
                       size=n_creatures, p=[0.70, 0.20, 0.08, 0.02])
    taken = grid.astype(bool).copy()
    creatures = []
    for i, si in enumerate(sizes):
        space = SIZE_SPACE[si]
        for _ in range(1000):
            x = int(rng.integers(0, width - space + 1))
            y = int(rng.integers(0, height - space + 1))
            if not taken[y:y + space, x:x + space].any():
                taken[y:y + space, x:x + space] = True
                creatures.append({"id": f"c{i:04d}", "x": x, "y": y, "size": SIZES[si]})
                break
        else:
            raise ValueError(f"could not place creature {i} ({SIZES[si]}) on the "
                             f"{width}x{height} dungeon")
    rows = ["".join("#" if v else "." for v in row) for row in grid]
    return BattleMap.build(width, height, squares=rows, walls=walls, creatures=creatures,
                           name=f"dungeon {width}x{height} seed {seed}")
