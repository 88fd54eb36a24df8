"""Property tests: the engine agrees with the slow exact reference tracer.

Random small maps (solid and low squares, thin walls of every kind on and off
the grid, creatures of every size) and random segments biased to the hard
cases: along grid lines, exact diagonals through vertices, ending on walls and
corners, between the corners and centres of the attacker's and target's
spaces, zero length.  Line of effect is checked the same way against the
reference's exhaustive search.  A failing example prints as the ``BattleMap.build``
call and the segments that reproduce it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from lineoffire.maps import SIZE_SPACE, SIZES, BattleMap

from reference import reference_line_of_effect, reference_trace

@dataclass
class Case:
    """One drawn map and its segments; its repr is the code that rebuilds it."""

    width: int
    height: int
    squares: list[str]
    walls: list[dict[str, Any]]
    creatures: list[dict[str, Any]]
    segments: list[list[float]]
    options: dict[str, Any] = field(default_factory=dict)

    def build(self) -> BattleMap:
        return BattleMap.build(self.width, self.height, squares=self.squares,
                               walls=self.walls, creatures=self.creatures)

    def __repr__(self) -> str:
        return (f"BattleMap.build({self.width}, {self.height}, squares={self.squares!r},\n"
                f"    walls={self.walls!r},\n    creatures={self.creatures!r})\n"
                f"segments={self.segments!r}\noptions={self.options!r}")


def _coord(draw, limit: int) -> float:
    """A coordinate in [0, limit]: whole, half, quarter or 1/1024 (bias to the grid)."""
    denom = draw(st.sampled_from([1, 1, 2, 4, 1024]))
    return draw(st.integers(0, limit * denom)) / denom


@st.composite
def cases(draw, pair: bool = False) -> Case:
    """A random map and segments.  ``pair``: the first two creatures are the
    attacker and the target, next to each other, and every segment joins them."""
    w = draw(st.integers(1, 8))
    h = draw(st.integers(1, 8))
    grid = [[draw(st.sampled_from("....#=")) for _ in range(w)] for _ in range(h)]

    walls = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["wall", "wall", "door", "slit", "low"]))
        on_grid = draw(st.booleans())
        pts = []
        for _ in range(draw(st.integers(2, 3))):
            if on_grid and pts and draw(st.booleans()):
                # continue along a grid line from the previous point
                x, y = pts[-1]
                if draw(st.booleans()):
                    x = draw(st.integers(0, w))
                else:
                    y = draw(st.integers(0, h))
                pts.append([x, y])
            elif on_grid:
                pts.append([draw(st.integers(0, w)), draw(st.integers(0, h))])
            else:
                pts.append([_coord(draw, w), _coord(draw, h)])
        assume(all(pts[i] != pts[i + 1] for i in range(len(pts) - 1)))
        wall: dict[str, Any] = {"kind": kind, "points": pts}
        if kind == "door" and draw(st.booleans()):
            wall["open"] = True
        walls.append(wall)

    creatures = []
    taken: dict[tuple[int, int], int] = {}
    for i in range(draw(st.integers(0, 4))):
        size = draw(st.sampled_from(SIZES[:7]))
        space = SIZE_SPACE[SIZES.index(size)]
        if space > w or space > h:
            continue
        if creatures and (pair or draw(st.booleans())):
            # next to the previous creature: spaces that touch at an edge or a corner
            prev = creatures[-1]
            ps = SIZE_SPACE[SIZES.index(prev["size"])]
            x = prev["x"] + draw(st.sampled_from([-space, ps, draw(st.integers(-space, ps))]))
            y = prev["y"] + draw(st.sampled_from([-space, ps]))
            if draw(st.booleans()):
                x, y = prev["x"] + (y - prev["y"]), prev["y"] + (x - prev["x"])
            if not (0 <= x <= w - space and 0 <= y <= h - space):
                continue
        else:
            x = draw(st.integers(0, w - space))
            y = draw(st.integers(0, h - space))
        squares = [(x + a, y + b) for a in range(space) for b in range(space)]
        small = SIZES.index(size) <= 2
        if any(sq in taken and not (small and taken[sq] <= 2) for sq in squares):
            continue
        for c, r in squares:
            taken[(c, r)] = SIZES.index(size)
            if grid[r][c] == "#":
                grid[r][c] = "."
        cre: dict[str, Any] = {"id": "ABCD"[i], "x": x, "y": y, "size": size}
        for flag in ("dead", "prone"):
            if draw(st.integers(0, 4)) == 0:
                cre[flag] = True
        creatures.append(cre)

    options: dict[str, Any] = {}
    ids = [c["id"] for c in creatures]
    if pair:
        assume(len(ids) >= 2)
        options.update(attacker=ids[0], target=ids[1])
    else:
        if ids and draw(st.integers(0, 3)):
            options["attacker"] = draw(st.sampled_from(ids))
        others = [i for i in ids if i != options.get("attacker")]
        if others and draw(st.integers(0, 3)):
            options["target"] = draw(st.sampled_from(others))
    for flag in ("ignore_dead", "ignore_prone"):
        if draw(st.integers(0, 3)) == 0:
            options[flag] = True

    # interesting points: vertices, centres, wall points, creature corners and centres
    def space_points(cid):
        c = next(c for c in creatures if c["id"] == cid)
        s = SIZE_SPACE[SIZES.index(c["size"])]
        x, y = c["x"], c["y"]
        return [[x, y], [x + s, y], [x, y + s], [x + s, y + s], [x + s / 2, y + s / 2],
                [x + s / 2, y], [x, y + s / 2]]

    def space_point(cid):
        """A corner, centre or edge midpoint of the space, or any point in it."""
        if draw(st.booleans()):
            return draw(st.sampled_from(space_points(cid)))
        c = next(c for c in creatures if c["id"] == cid)
        s = SIZE_SPACE[SIZES.index(c["size"])]
        return [c["x"] + draw(st.integers(0, 4 * s)) / 4, c["y"] + draw(st.integers(0, 4 * s)) / 4]

    wall_points = [p for wl in walls for p in wl["points"]]
    wall_points += [[(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]
                    for wl in walls for a, b in zip(wl["points"], wl["points"][1:])]

    def point():
        choice = draw(st.sampled_from(["vertex", "vertex", "centre", "any", "wall", "space"]))
        if choice == "wall" and wall_points:
            return list(draw(st.sampled_from(wall_points)))
        if choice == "space" and ids:
            return draw(st.sampled_from(space_points(draw(st.sampled_from(ids)))))
        if choice == "centre":
            return [draw(st.integers(0, w - 1)) + 0.5, draw(st.integers(0, h - 1)) + 0.5]
        if choice == "any":
            return [_coord(draw, w), _coord(draw, h)]
        return [draw(st.integers(0, w)), draw(st.integers(0, h))]

    segments = []
    for _ in range(draw(st.integers(1, 4))):
        how = "attached" if pair else draw(st.sampled_from(
            ["free", "attached", "attached", "leave", "diagonal", "axis", "zero", "through"]))
        if how == "attached" and ("attacker" in options or "target" in options):
            a = space_point(options["attacker"]) if "attacker" in options else point()
            b = space_point(options["target"]) if "target" in options else point()
        elif how == "leave" and "attacker" in options:
            a = space_point(options["attacker"])
            b = point()
        else:
            a = point()
            if how == "zero":
                b = list(a)
            elif how == "axis":
                b = [draw(st.integers(0, w)), a[1]] if draw(st.booleans()) else \
                    [a[0], draw(st.integers(0, h))]
            elif how == "diagonal":
                k = draw(st.integers(-max(w, h), max(w, h)))
                sign = draw(st.sampled_from([-1, 1]))
                b = [a[0] + k, a[1] + sign * k]
                if not (0 <= b[0] <= w and 0 <= b[1] <= h):
                    b = point()
            elif how == "through":
                # through a second interesting point and on beyond it
                via = point()
                k = draw(st.sampled_from([2, 3]))
                b = [a[0] + k * (via[0] - a[0]), a[1] + k * (via[1] - a[1])]
                if not (0 <= b[0] <= w and 0 <= b[1] <= h):
                    b = via
            else:
                b = point()
        segments.append([a[0], a[1], b[0], b[1]])
    return Case(w, h, ["".join(r) for r in grid], walls, creatures, segments, options)


def _summary(tr) -> tuple:
    return (tr.stopped, tr.slit, tr.low, [(b.kind, b.ref) for b in tr.blockers],
            [b.t for b in tr.blockers])


def _check_agreement(case: Case) -> None:
    from lineoffire.geometry import trace

    bmap = case.build()
    got = list(trace(bmap, case.segments, **case.options))
    for seg, tr in zip(case.segments, got):
        want = reference_trace(bmap, seg, **case.options)
        note(f"segment {seg}:\n  engine    {_summary(tr)}\n  reference {_summary(want)}")
        assert (tr.stopped, tr.slit, tr.low) == (want.stopped, want.slit, want.low)
        assert [(b.kind, b.ref) for b in tr.blockers] == [(b.kind, b.ref) for b in want.blockers]
        assert [b.t for b in tr.blockers] == pytest.approx([b.t for b in want.blockers], abs=1e-9)


#: LOF_EXAMPLES scales the number of examples; LOF_RANDOM=1 draws new ones (not repeatable).
SCALE = float(os.environ.get("LOF_EXAMPLES", 200)) / 200
SETTINGS = settings(deadline=None, derandomize=not os.environ.get("LOF_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@settings(SETTINGS, max_examples=max(1, int(200 * SCALE)))
@given(cases())
def test_engine_agrees_with_reference(case):
    _check_agreement(case)


@settings(SETTINGS, max_examples=max(1, int(80 * SCALE)))
@given(cases(pair=True))
def test_engine_agrees_with_reference_between_neighbours(case):
    _check_agreement(case)


@settings(SETTINGS, max_examples=max(1, int(60 * SCALE)))
@given(cases(pair=True))
def test_line_of_effect_agrees_with_reference(case):
    """Engine line of effect against an exhaustive exact search (SPEC section 4)."""
    from lineoffire.geometry.effect import line_of_effect

    bmap = case.build()
    a, t = case.options["attacker"], case.options["target"]
    ra, rt = bmap.creature(a).rect, bmap.creature(t).rect
    assume(not (ra[0] < rt[2] and rt[0] < ra[2] and ra[1] < rt[3] and rt[1] < ra[3]))
    witness = reference_line_of_effect(bmap, a, t)
    note(f"reference witness: {witness}")
    assert line_of_effect(bmap, a, t) == (witness is not None)
