"""Pictures of the lines of fire: the map, the creatures and every line a ruleset drew.

Drawing is done with :mod:`skimage.draw` into an RGB ``uint8`` array
``(rows, cols, 3)``; :func:`save_png` writes it with :func:`skimage.io.imsave`.
Creature ids are written with Pillow's default bitmap font (Pillow comes with
scikit-image's imageio; it is imported only when labels are drawn).

Pixel convention
----------------
A point ``(x, y)`` in squares (x right, y down; SPEC section 1) is drawn at
pixel ``(col, row) = (margin + x * pps, margin + y * pps)`` where ``pps`` is
``pixels_per_square`` (default 32) and ``margin`` a border in pixels
(default 8); pixel centres are whole numbers, and a point is drawn at the
nearest pixel (halves up).  Square ``(c, r)`` fills the pixel rows
``margin + r * pps`` to ``margin + (r + 1) * pps`` (that row is its bottom
grid line) and likewise the columns, so the centre of square ``(c, r)`` is
pixel ``(row, col) = (margin + (r + 0.5) * pps, margin + (c + 0.5) * pps)``.
A ``width x height`` map gives an image of
``(2 * margin + height * pps + 1, 2 * margin + width * pps + 1, 3)`` pixels.
Use :func:`to_pixel` to go from squares to pixels.

Palette
-------
:data:`COLOURS` names every colour used for the map and the lines;
:data:`TEAM_COLOURS` gives one colour per team, in the order teams first appear
in ``bmap.creatures``; :data:`HEAT_COLOURS` gives the colour of each cover
level of :func:`heatmap`.  A line's colour is its *class* (:func:`line_class`):

========= ======================================================== ========
class     ruleset line verdicts                                    colour
========= ======================================================== ========
clear     pf1e ``none``, pf2e ``none``, creature-cover ``none``    green
soft      pf1e ``soft``, pf2e ``lesser``                           yellow
cover     ``partial``, ``cover``, ``improved``, ``standard``,      orange
          ``greater``, ``half``, ``full``
stopped   any line whose trace is stopped (a ``solid``, ``wall``   red
          or ``door`` blocker), and ``total``
stray     creature-cover's stray extension past the target,        grey,
          drawn up to the first obstacle that stops it             dashed
========= ======================================================== ========

Heatmap
-------
:func:`heatmap` computes, for every square where a creature of one square
could stand (not solid, not occupied), the cover it would have against the
attacker, with ONE trace for the whole map: it places a hypothetical creature
on every candidate square of a copy of the map (they never overlap), builds
every candidate's lines with the ruleset's own ``plan``, traces them all in
one call with each line attached to the attacker and to its candidate, and
gives each candidate its traces to the ruleset's own ``decide``.  So the
answer for a square is exactly what ``resolve`` would say with a creature
standing there.  The hypothetical creatures are marked dead and traced with
``ignore_dead``, so they never count as creatures on each other's lines
(the real creatures' dead flags are cleared in the copy unless the option
``ignore_dead`` is set, so they count as they would).  Total cover needs the
exact line-of-effect search of :mod:`lineoffire.geometry.effect`, needed only
for squares where no drawn line proves line of effect (all stopped): those
are searched together in one :func:`~lineoffire.geometry.effect.line_of_effect_many`
call; a square without line of effect is ``total`` (which overrides every other
verdict in every ruleset) and the others go to ``decide``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from lineoffire.maps.model import LOW, SIZES, SOLID, BattleMap, Creature, size_index

__all__ = [
    "COLOURS",
    "TEAM_COLOURS",
    "NO_TEAM_COLOUR",
    "LINE_CLASSES",
    "VERDICT_CLASS",
    "HEAT_TIER",
    "HEAT_COLOURS",
    "MARGIN",
    "PIXELS_PER_SQUARE",
    "to_pixel",
    "line_class",
    "team_colours",
    "draw_map",
    "render_lines",
    "heatmap",
    "save_png",
    "png_path",
]

Colour = tuple[int, int, int]

#: Default pixels per square and margin (pixels) of every picture.
PIXELS_PER_SQUARE = 32
MARGIN = 8

#: The palette of the map and of the lines, RGB.
COLOURS: dict[str, Colour] = {
    "background": (255, 255, 255),
    "grid": (205, 205, 205),
    "solid": (70, 70, 70),          # dark grey squares
    "low": (215, 185, 140),         # tan squares
    "wall": (0, 0, 0),              # black, thick
    "door": (140, 80, 30),          # brown, thick
    "open_door": (200, 160, 110),   # light brown, thin and dashed
    "slit": (40, 90, 230),          # blue
    "low_wall": (255, 165, 40),     # orange
    "outline": (30, 30, 30),        # creature outlines
    "label": (0, 0, 0),
    "label_halo": (255, 255, 255),
    # line classes (see line_class)
    "clear": (0, 170, 60),          # green
    "soft": (235, 200, 0),          # yellow
    "cover": (235, 100, 0),         # orange
    "stopped": (215, 0, 0),         # red
    "stray": (140, 140, 140),       # grey, dashed
}

#: One colour per team, in the order teams first appear in ``bmap.creatures``
#: (cycled when a map has more teams).
TEAM_COLOURS: tuple[Colour, ...] = (
    (40, 110, 220),   # blue
    (150, 60, 190),   # purple
    (0, 150, 160),    # teal
    (220, 60, 150),   # magenta
    (110, 130, 30),   # olive
    (30, 50, 120),    # navy
    (160, 110, 70),   # tan brown
    (90, 200, 200),   # light cyan
)
#: The colour of creatures without a team.
NO_TEAM_COLOUR: Colour = (150, 150, 150)

#: Line classes, the order they are drawn in (the worst on top).
LINE_CLASSES: tuple[str, ...] = ("stray", "clear", "soft", "cover", "stopped")

#: Line verdict word of any ruleset (SPEC section 5) -> line class.
VERDICT_CLASS: dict[str, str] = {
    "none": "clear",
    "clear": "clear",
    "soft": "soft",
    "lesser": "soft",
    "partial": "cover",
    "cover": "cover",
    "improved": "cover",
    "standard": "cover",
    "greater": "cover",
    "half": "cover",
    "full": "cover",
    "total": "stopped",
    "stopped": "stopped",
    "stray": "stray",
}

#: Cover name of any ruleset -> heat tier.
HEAT_TIER: dict[str, str] = {
    "none": "none",
    "soft": "soft",
    "lesser": "soft",
    "half": "soft",
    "partial": "partial",
    "cover": "cover",
    "standard": "cover",
    "full": "cover",
    "improved": "improved",
    "greater": "improved",
    "total": "total",
}

#: Heat tier -> colour of the square in :func:`heatmap` pictures (pale to dark).
HEAT_COLOURS: dict[str, Colour] = {
    "none": (190, 235, 190),      # pale green
    "soft": (250, 240, 140),      # pale yellow
    "partial": (250, 210, 140),   # light orange
    "cover": (245, 150, 70),      # orange
    "improved": (205, 80, 50),    # brick
    "total": (110, 30, 40),       # dark red
}

_BLOCKING = ("solid", "wall", "door")


# ------------------------------------------------------------------ basics
def _check_pps(pixels_per_square: Any) -> int:
    if isinstance(pixels_per_square, bool) or not isinstance(pixels_per_square, (int, np.integer)):
        raise TypeError(
            f"pixels_per_square must be an integer, not {type(pixels_per_square).__name__} "
            f"({pixels_per_square!r})"
        )
    if not 4 <= pixels_per_square <= 512:
        raise ValueError(f"pixels_per_square must be between 4 and 512, not {pixels_per_square}")
    return int(pixels_per_square)


def _check_margin(margin: Any) -> int:
    if isinstance(margin, bool) or not isinstance(margin, (int, np.integer)):
        raise TypeError(f"margin must be an integer, not {type(margin).__name__} ({margin!r})")
    if margin < 0:
        raise ValueError(f"margin must be 0 or more pixels, not {margin}")
    return int(margin)


def _check_map(bmap: Any) -> BattleMap:
    if not isinstance(bmap, BattleMap):
        raise TypeError(f"bmap must be a BattleMap, not {type(bmap).__name__}")
    return bmap


def to_pixel(x: npt.ArrayLike, y: npt.ArrayLike, *, pixels_per_square: int = PIXELS_PER_SQUARE,
             margin: int = MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """Pixel ``(row, col)`` of points ``(x, y)`` in squares, as floats.

    ``col = margin + x * pps`` and ``row = margin + y * pps``; round (halves
    up) to index the image.

    Examples
    --------
    The centre of square (2, 1) at 32 pixels per square and a margin of 8::

        . . . .
        . . X .

    >>> [float(v) for v in to_pixel(2.5, 1.5)]
    [56.0, 88.0]
    """
    pps = _check_pps(pixels_per_square)
    m = _check_margin(margin)
    return (m + np.asarray(y, dtype=np.float64) * pps, m + np.asarray(x, dtype=np.float64) * pps)


def _round(v: np.ndarray | float) -> np.ndarray:
    return np.floor(np.asarray(v, dtype=np.float64) + 0.5).astype(np.int64)


def line_class(line: Mapping[str, Any]) -> str:
    """The colour class of one reported line ``{"from", "to", "verdict", "blockers"}``.

    ``stopped`` if the line says so (``"stopped": true``, as creature-cover
    lines do) or has a blocking blocker (``solid``, ``wall``, ``door``: they
    appear only where a line is stopped, SPEC section 3) and is not a stray
    extension; otherwise the class of its verdict word (:data:`VERDICT_CLASS`).

    Raises
    ------
    ValueError
        For a verdict word no ruleset uses.

    Examples
    --------
    >>> line_class({"verdict": "lesser", "blockers": [{"kind": "creature"}]})
    'soft'
    >>> line_class({"verdict": "cover", "blockers": [{"kind": "wall"}]})
    'stopped'
    """
    verdict = line.get("verdict")
    if verdict not in VERDICT_CLASS:
        raise ValueError(
            f"line verdict {verdict!r} is unknown; expected one of {', '.join(VERDICT_CLASS)}"
        )
    if verdict == "stray" or line.get("role") == "stray":
        return "stray"
    if line.get("stopped") is True or any(b.get("kind") in _BLOCKING for b in line.get("blockers", ())):
        return "stopped"
    return VERDICT_CLASS[verdict]


def team_colours(bmap: BattleMap) -> dict[str | None, Colour]:
    """Team -> colour: :data:`TEAM_COLOURS` in the order teams first appear in the map.

    Creatures without a team (None) are :data:`NO_TEAM_COLOUR`.

    Examples
    --------
    >>> m = BattleMap.build(3, 1, creatures=[{"id": "A", "x": 0, "y": 0, "team": "red"},
    ...                                      {"id": "B", "x": 2, "y": 0}])
    >>> team_colours(m) == {"red": TEAM_COLOURS[0], None: NO_TEAM_COLOUR}
    True
    """
    out: dict[str | None, Colour] = {None: NO_TEAM_COLOUR}
    for c in bmap.creatures:
        if c.team is not None and c.team not in out:
            out[c.team] = TEAM_COLOURS[(len(out) - 1) % len(TEAM_COLOURS)]
    return out


# ------------------------------------------------------------------ canvas
class _Canvas:
    """An RGB image of a map with the pixel convention of this module."""

    def __init__(self, bmap: BattleMap, pps: int, margin: int):
        self.bmap = bmap
        self.pps = pps
        self.margin = margin
        self.shape = (2 * margin + bmap.height * pps + 1, 2 * margin + bmap.width * pps + 1)
        self.img = np.empty(self.shape + (3,), dtype=np.uint8)
        self.img[...] = COLOURS["background"]

    def px(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Float pixel (row, col) of points."""
        return (self.margin + np.asarray(y, np.float64) * self.pps,
                self.margin + np.asarray(x, np.float64) * self.pps)

    def fill_square(self, c: int, r: int, colour: Colour) -> None:
        m, p = self.margin, self.pps
        self.img[m + r * p: m + (r + 1) * p + 1, m + c * p: m + (c + 1) * p + 1] = colour

    def segment(self, x0: float, y0: float, x1: float, y1: float, colour: Colour,
                width: float) -> None:
        """A segment of ``width`` pixels (a filled rectangle; 1 pixel: a plain line)."""
        from skimage import draw

        r0, c0 = self.px(x0, y0)
        r1, c1 = self.px(x1, y1)
        if width <= 1.0:
            rr, cc = draw.line(int(_round(r0)), int(_round(c0)), int(_round(r1)), int(_round(c1)))
        else:
            dr, dc = r1 - r0, c1 - c0
            length = math.hypot(dr, dc)
            h = width / 2.0
            if length == 0:
                rr, cc = draw.disk((r0, c0), h, shape=self.shape)
                self.img[rr, cc] = colour
                return
            # normal (scaled to half the width) and a half-width extension at the ends
            nr, nc = -dc / length * h, dr / length * h
            er, ec = dr / length * h * 0.5, dc / length * h * 0.5
            rows = np.array([r0 - er + nr, r1 + er + nr, r1 + er - nr, r0 - er - nr])
            cols = np.array([c0 - ec + nc, c1 + ec + nc, c1 + ec - nc, c0 - ec - nc])
            rr, cc = draw.polygon(rows, cols, shape=self.shape)
            # polygon() leaves out some boundary pixels of thin shapes: add the centre line
            lr, lc = draw.line(int(_round(r0)), int(_round(c0)), int(_round(r1)), int(_round(c1)))
            rr, cc = np.concatenate([rr, lr]), np.concatenate([cc, lc])
        ok = (rr >= 0) & (rr < self.shape[0]) & (cc >= 0) & (cc < self.shape[1])
        self.img[rr[ok], cc[ok]] = colour

    def dashed(self, x0: float, y0: float, x1: float, y1: float, colour: Colour, width: float,
               dash: float = 0.25) -> None:
        """A dashed segment: dashes and gaps of ``dash`` squares, starting with a dash."""
        length = math.hypot(x1 - x0, y1 - y0)
        if length == 0:
            return
        n = max(1, int(math.ceil(length / dash)))
        for k in range(0, n, 2):
            a, b = k / n, min(1.0, (k + 1) / n)
            self.segment(x0 + a * (x1 - x0), y0 + a * (y1 - y0),
                         x0 + b * (x1 - x0), y0 + b * (y1 - y0), colour, width)

    def disk(self, x: float, y: float, radius_px: float, colour: Colour) -> None:
        from skimage import draw

        r, c = self.px(x, y)
        rr, cc = draw.disk((float(r), float(c)), radius_px, shape=self.shape)
        self.img[rr, cc] = colour

    def circle(self, x: float, y: float, radius_px: float, colour: Colour) -> None:
        from skimage import draw

        r, c = self.px(x, y)
        rr, cc = draw.circle_perimeter(int(_round(r)), int(_round(c)), int(round(radius_px)),
                                       shape=self.shape)
        self.img[rr, cc] = colour


# ------------------------------------------------------------------ background
def _picture_bytes_or_array(image: Any) -> Any:
    """Bytes, an array or a path from a map's ``image`` (see maps/jsonfmt, maps/uvtt)."""
    source = image[0] if isinstance(image, tuple) else image
    if callable(source):
        source = source()
    return source


def _background(bmap: BattleMap, shape: tuple[int, int]) -> np.ndarray:
    """The map's picture as an RGB uint8 array of ``shape`` (rows, cols)."""
    from skimage import color, transform

    source = _picture_bytes_or_array(bmap.image)
    if isinstance(source, np.ndarray):
        pic = source
    elif isinstance(source, (bytes, bytearray, memoryview)):
        import imageio.v3 as iio

        pic = iio.imread(bytes(source))
    elif isinstance(source, (str, Path)):
        from skimage import io

        if not Path(source).is_file():
            raise OSError(f"the map's background picture {str(source)!r} does not exist")
        pic = io.imread(str(source))
    else:
        raise TypeError(
            f"bmap.image must be a path, bytes, an array or (source, extension), "
            f"not {type(source).__name__}"
        )
    pic = np.asarray(pic)
    if pic.ndim == 2:
        pic = color.gray2rgb(pic)
    if pic.ndim != 3 or pic.shape[2] not in (3, 4):
        raise ValueError(f"the map's background picture has an unsupported shape {pic.shape}")
    if pic.dtype == bool or np.issubdtype(pic.dtype, np.floating):
        pic = pic.astype(np.float64) * 255.0  # floats are in [0, 1]
    elif pic.dtype == np.uint16:
        pic = pic.astype(np.float64) / 257.0
    else:
        pic = pic.astype(np.float64)
    if pic.shape[2] == 4:  # composite over white
        alpha = pic[..., 3:4] / 255.0
        pic = pic[..., :3] * alpha + 255.0 * (1 - alpha)
    out = transform.resize(pic, shape + (3,), order=1, mode="edge", anti_aliasing=True,
                           preserve_range=True)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


# ------------------------------------------------------------------ the map
def _draw_base(canvas: _Canvas, *, background: bool, heat: np.ndarray | None = None) -> None:
    bmap = canvas.bmap
    m, p = canvas.margin, canvas.pps
    if background and bmap.image is not None:
        canvas.img[m: m + bmap.height * p + 1, m: m + bmap.width * p + 1] = _background(
            bmap, (bmap.height * p + 1, bmap.width * p + 1))
    for r, c in np.argwhere(bmap.squares == LOW):
        canvas.fill_square(int(c), int(r), COLOURS["low"])
    if heat is not None:
        for r, c in np.argwhere(heat != None):  # noqa: E711 (object array)
            canvas.fill_square(int(c), int(r), HEAT_COLOURS[HEAT_TIER[heat[r, c]]])
    # grid lines
    g = COLOURS["grid"]
    for x in range(bmap.width + 1):
        canvas.img[m: m + bmap.height * p + 1, m + x * p] = g
    for y in range(bmap.height + 1):
        canvas.img[m + y * p, m: m + bmap.width * p + 1] = g
    for r, c in np.argwhere(bmap.squares == SOLID):
        canvas.fill_square(int(c), int(r), COLOURS["solid"])
    thick = max(2.0, p / 8)
    for wall in bmap.walls:
        for (x0, y0), (x1, y1) in wall.segments:
            if wall.kind == "door" and wall.open:
                canvas.dashed(x0, y0, x1, y1, COLOURS["open_door"], max(1.0, p / 16), dash=0.2)
            elif wall.kind == "door":
                canvas.segment(x0, y0, x1, y1, COLOURS["door"], thick)
            elif wall.kind == "wall":
                canvas.segment(x0, y0, x1, y1, COLOURS["wall"], thick)
            elif wall.kind == "slit":
                canvas.segment(x0, y0, x1, y1, COLOURS["slit"], thick)
            else:
                canvas.segment(x0, y0, x1, y1, COLOURS["low_wall"], thick)


#: Radius of a creature's disk, in squares of its space, by size index.
_RADIUS: tuple[float, ...] = (0.22, 0.25, 0.3, 0.34, 0.38, 0.38, 0.38, 0.38, 0.38)


def _placements(bmap: BattleMap) -> list[tuple[float, float, float, int]]:
    """Per creature: centre ``(x, y)`` of its disk, radius in squares, and its
    rank among the creatures sharing its square (tiny ones may share: they are
    drawn side by side on a small circle around the square's centre)."""
    sharing: dict[tuple[int, int], list[int]] = {}
    for i, c in enumerate(bmap.creatures):
        if c.space == 1:
            sharing.setdefault((c.x, c.y), []).append(i)
    out = []
    for i, c in enumerate(bmap.creatures):
        x, y = c.centre
        radius = _RADIUS[c.size_index] * c.space
        group = sharing.get((c.x, c.y), [i]) if c.space == 1 else [i]
        rank = group.index(i)
        if len(group) > 1:
            angle = math.pi + 2 * math.pi * rank / len(group)
            x, y = x + 0.25 * math.cos(angle), y + 0.25 * math.sin(angle)
            radius = min(radius, 0.2)
        out.append((x, y, radius, rank))
    return out


def _draw_creatures(canvas: _Canvas) -> None:
    """Each creature a disk of its team's colour with a dark outline."""
    teams = team_colours(canvas.bmap)
    for c, (x, y, radius, _) in zip(canvas.bmap.creatures, _placements(canvas.bmap)):
        canvas.disk(x, y, radius * canvas.pps + 1, COLOURS["outline"])
        canvas.disk(x, y, radius * canvas.pps, teams[c.team])


def _draw_labels(canvas: _Canvas) -> None:
    """Creature ids at the top-left of their spaces (Pillow's default bitmap font).

    Creatures sharing a square have their ids one under the other.
    """
    if not canvas.bmap.creatures:
        return
    from PIL import Image, ImageDraw, ImageFont

    pil = Image.fromarray(canvas.img)
    draw = ImageDraw.Draw(pil)
    loader = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)
    font = loader()
    line_height = 11
    for c, (_, _, _, rank) in zip(canvas.bmap.creatures, _placements(canvas.bmap)):
        r, col = canvas.px(c.x, c.y)
        at = (int(_round(col)) + 2, int(_round(r)) + 1 + rank * line_height)
        # a white halo, then the text
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    draw.text((at[0] + dx, at[1] + dy), c.id, fill=COLOURS["label_halo"], font=font)
        draw.text(at, c.id, fill=COLOURS["label"], font=font)
    canvas.img[...] = np.asarray(pil, dtype=np.uint8)


def draw_map(bmap: BattleMap, *, pixels_per_square: int = PIXELS_PER_SQUARE, margin: int = MARGIN,
             labels: bool = True, background: bool = True) -> np.ndarray:
    """The map alone: picture, squares, grid, walls and creatures.

    Parameters
    ----------
    bmap : BattleMap
    pixels_per_square, margin : int
        The pixel convention of this module (see its docstring).
    labels : bool
        Write creature ids (needs Pillow).
    background : bool
        Draw the map's own picture (``bmap.image``) under the grid, if it has one.

    Returns
    -------
    ndarray, shape (rows, cols, 3), uint8

    Examples
    --------
    >>> m = BattleMap.build(2, 1, squares=["#."])
    >>> img = draw_map(m, pixels_per_square=8, margin=0)
    >>> img.shape, tuple(img[4, 4]) == COLOURS["solid"], tuple(img[4, 12]) == COLOURS["background"]
    ((9, 17, 3), True, True)
    """
    canvas = _Canvas(_check_map(bmap), _check_pps(pixels_per_square), _check_margin(margin))
    _draw_base(canvas, background=background)
    _draw_creatures(canvas)
    if labels:
        _draw_labels(canvas)
    return canvas.img


# ------------------------------------------------------------------ lines
def _stop_t(line: Mapping[str, Any]) -> float | None:
    ts = [b["t"] for b in line.get("blockers", ()) if b.get("kind") in _BLOCKING]
    return min(ts) if ts else None


def _draw_lines(canvas: _Canvas, lines: Sequence[Mapping[str, Any]], width: float) -> None:
    order = sorted(range(len(lines)), key=lambda i: LINE_CLASSES.index(line_class(lines[i])))
    for i in order:
        ln = lines[i]
        cls = line_class(ln)
        (x0, y0), (x1, y1) = ln["from"], ln["to"]
        if cls == "stray":
            t = _stop_t(ln)
            if t is not None:  # a stray goes no further than the first obstacle
                x1, y1 = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
            canvas.dashed(x0, y0, x1, y1, COLOURS["stray"], width, dash=0.2)
        else:
            canvas.segment(x0, y0, x1, y1, COLOURS[cls], width)


def _sub_plans(rules: str, plan: Any) -> list[tuple[list[int], Any]]:
    """Split a plan into groups the ruleset judges alone: one group per drawn choice.

    pf1e: one group per (corner, target square) of 4 lines, per origin square
    for area effects, per pair of squares (16 lines) for melee (the layouts of
    :func:`lineoffire.resolver.pf1e.plan`); pf2e: one group per line (the
    ``lean`` corners); creature-cover: the whole plan.
    """
    from lineoffire.resolver.common import Plan

    meta = plan.meta
    groups: list[tuple[list[int], Any]] = []

    def sub(rows: list[int], **changes: Any) -> Plan:
        m = dict(meta, **changes)
        return Plan(plan.rules, plan.segments[rows], plan.attacker[rows], plan.target[rows],
                    plan.trace_options, m)

    if rules == "pf1e":
        layout = meta["layout"]
        squares = meta["squares"]
        if layout == "melee":
            for p, pair in enumerate(meta["pairs"]):
                rows = list(range(16 * p, 16 * p + 16))
                groups.append((rows, sub(rows, pairs=[pair], main=16, adjacent=False)))
        else:
            nsq = len(squares)
            for g in range(meta["main"] // 4):
                rows = list(range(4 * g, 4 * g + 4))
                k, j = divmod(g, nsq)
                changes: dict[str, Any] = {"squares": [squares[j]], "main": 4, "adjacent": False}
                if layout == "corners":
                    changes["corners"] = [meta["corners"][k]]
                groups.append((rows, sub(rows, **changes)))
    elif rules == "pf2e":
        for i in range(len(plan)):
            groups.append(([i], sub([i])))
    else:
        groups.append((list(range(len(plan))), plan))
    return groups


def _every_line(bmap: BattleMap, rs: Any, rules: str, attacker: Any, target: str, *,
                attack: str, origin: Any, options: Any) -> tuple[list[dict], dict]:
    """Every line the ruleset draws, each with its verdict, and the full answer."""
    from lineoffire.resolver.common import line_json, trace_plan

    plan = rs.plan(bmap, attacker, target, attack=attack, origin=origin, options=options)
    traces = list(trace_plan(bmap, plan))
    answer = rs.decide(bmap, plan, traces)
    out: list[dict] = []
    for rows, sub in _sub_plans(rules, plan):
        sub_traces = [traces[i] for i in rows]
        if all(tr.stopped for tr in sub_traces) and rules != "creature-cover":
            # every line stopped: its class is "stopped" whatever the verdict word
            out += [line_json(plan.segments[i], "cover" if rules == "pf1e" else "standard",
                              traces[i]) for i in rows]
            continue
        out += rs.decide(bmap, sub, sub_traces)["lines"]
    return out, answer


def render_lines(
    bmap: BattleMap,
    attacker: str | None,
    target: str,
    *,
    rules: str = "pf1e",
    attack: str = "ranged",
    origin: Any = None,
    options: Mapping[str, Any] | None = None,
    pixels_per_square: int = PIXELS_PER_SQUARE,
    margin: int = MARGIN,
    all_lines: bool = False,
    labels: bool = True,
    background: bool = True,
    answer: dict[str, Any] | None = None,
) -> np.ndarray:
    """Draw the map and every line ``rules`` draws from ``attacker`` to ``target``.

    The lines come from the ruleset (``resolve(...)["lines"]``: pf1e the
    chosen pair's 4 lines, pf2e the centre line, creature-cover the centre
    line and its stray extension), each coloured by its class
    (:func:`line_class`; the worst class is drawn on top).

    Parameters
    ----------
    bmap : BattleMap
    attacker, target : str
        Creature ids (``attacker`` may be None for an area effect).
    rules : {"pf1e", "pf2e", "creature-cover"}
    attack, origin, options
        As in :func:`lineoffire.resolver.resolve`.
    pixels_per_square, margin : int
        The pixel convention of this module.
    all_lines : bool
        Draw every line the ruleset considers (pf1e: every corner to the
        corners of every target square; pf2e with ``lean``: every corner), each
        judged by the ruleset alone, thin; the lines of the answer go on top,
        thick.  One trace for all of them.
    labels : bool
        Write creature ids.
    background : bool
        Draw the map's own picture, if it has one.
    answer : dict, optional
        Filled in with the ruleset's answer (the ``cover`` op's fields).

    Returns
    -------
    ndarray, shape (rows, cols, 3), uint8

    Examples
    --------
    A wall between the shooter and the target stops every pf1e line: the
    line from A's corner (0, 1) to T's corner (4, 2) is red where it passes
    (3, 1.75)::

        . . | . .
        A . | T .
        . . | . .

    >>> m = BattleMap.build(5, 3, walls=[{"points": [[2, 0], [2, 3]]}], creatures=[
    ...     {"id": "A", "x": 0, "y": 1}, {"id": "T", "x": 3, "y": 1}])
    >>> img = render_lines(m, "A", "T", pixels_per_square=16, margin=0, labels=False)
    >>> img.shape
    (49, 81, 3)
    >>> row, col = to_pixel(3, 1.75, pixels_per_square=16, margin=0)
    >>> tuple(int(v) for v in img[int(row), int(col)]) == COLOURS["stopped"]
    True
    """
    from lineoffire.resolver import ruleset

    canvas = _Canvas(_check_map(bmap), _check_pps(pixels_per_square), _check_margin(margin))
    if not isinstance(all_lines, bool):
        raise TypeError(f"all_lines must be True or False, not {all_lines!r}")
    rs = ruleset(rules)
    if all_lines:
        every, result = _every_line(bmap, rs, rules, attacker, target, attack=attack,
                                    origin=origin, options=options)
    else:
        every = []
        result = rs.resolve(bmap, attacker, target, attack=attack, origin=origin, options=options)
    _draw_base(canvas, background=background)
    _draw_creatures(canvas)
    thick = max(2.0, canvas.pps / 12)
    if every:
        _draw_lines(canvas, every, 1.0)
    _draw_lines(canvas, result["lines"], thick)
    if labels:
        _draw_labels(canvas)
    if answer is not None:
        answer.update(result)
    return canvas.img


# ------------------------------------------------------------------ heatmap
def _hypothetical_id(c: int, r: int, taken: set[str]) -> str:
    base = f"~{c},{r}"
    cid = base
    k = 0
    while cid in taken:
        k += 1
        cid = f"{base}~{k}"
    return cid


def heatmap(
    bmap: BattleMap,
    attacker: str,
    *,
    rules: str = "pf1e",
    size: str = "medium",
    options: Mapping[str, Any] | None = None,
    pixels_per_square: int = PIXELS_PER_SQUARE,
    margin: int = MARGIN,
    labels: bool = True,
    background: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The cover a creature would have against ``attacker`` on every square it could stand on.

    A candidate square is one that is not solid and not in any creature's
    space.  A hypothetical creature of ``size`` (one square: fine to medium)
    is put on every candidate square at once, the ruleset plans every
    candidate's lines, all are traced in one call, and the ruleset's own
    ``decide`` judges each candidate (see the module docstring).

    Parameters
    ----------
    bmap : BattleMap
    attacker : str
        The shooter's id.
    rules : {"pf1e", "pf2e", "creature-cover"}
    size : str
        The hypothetical creature's size: ``fine``, ``diminutive``, ``tiny``,
        ``small`` or ``medium`` (it matters for low walls and size rules).
    options : dict, optional
        The ruleset's options (ranged attacks).
    pixels_per_square, margin, labels, background
        As in :func:`draw_map`.

    Returns
    -------
    cover : ndarray of object, shape (height, width)
        The ruleset's cover name per candidate square, None elsewhere.
    image : ndarray, shape (rows, cols, 3), uint8
        The map with each candidate square filled with
        ``HEAT_COLOURS[HEAT_TIER[name]]``.

    Raises
    ------
    ValueError
        For a size larger than one square, or unknown rules.

    Examples
    --------
    A wall with the attacker on its left: the squares on the right have total
    cover, those on the left none; the wall's end on the map's edge is free,
    so the squares beside it can be reached around it (SPEC section 3)::

        . . | . .
        A . | . .
        . . | . .

    >>> m = BattleMap.build(5, 3, walls=[{"points": [[2, 0], [2, 3]]}],
    ...                     creatures=[{"id": "A", "x": 0, "y": 1}])
    >>> cover, img = heatmap(m, "A", pixels_per_square=8)
    >>> for row in cover:
    ...     print(" ".join(f"{name or '-':5}" for name in row))
    none  none  cover total total
    -     none  total total total
    none  none  cover total total
    """
    from lineoffire.geometry import trace
    from lineoffire.geometry.effect import line_of_effect_many
    from lineoffire.resolver import ruleset
    from lineoffire.resolver.common import proves_line_of_effect

    _check_map(bmap)
    pps = _check_pps(pixels_per_square)
    mrg = _check_margin(margin)
    rs = ruleset(rules)
    si = size_index(size, "size")
    if Creature("?", 0, 0, size=SIZES[si]).space != 1:
        raise ValueError(
            f"size must be a size of one square ({', '.join(s for s in SIZES[:5])}) for a "
            f"heatmap, not {size!r}"
        )
    bmap.creature(attacker)  # MapError naming the ids if unknown
    occupied = np.zeros((bmap.height, bmap.width), dtype=bool)
    for c in bmap.creatures:
        x0, y0, x1, y1 = c.rect
        occupied[y0:y1, x0:x1] = True
    candidates = np.argwhere((bmap.squares != SOLID) & ~occupied)  # (r, c)
    cover = np.full((bmap.height, bmap.width), None, dtype=object)

    if len(candidates):
        taken = {c.id for c in bmap.creatures}
        hyp = []
        for r, c in candidates:
            cid = _hypothetical_id(int(c), int(r), taken)
            taken.add(cid)
            hyp.append(Creature(cid, int(c), int(r), size=SIZES[si], dead=True))
        world = replace(bmap, creatures=list(bmap.creatures) + hyp)
        plans = [rs.plan(world, attacker, h.id, options=options) for h in hyp]
        # The options as the ruleset read them: unless ignore_dead is on, the
        # real creatures' dead flags do not matter to the trace; clear them so
        # that ignore_dead leaves out the hypothetical creatures only.
        trace_options = plans[0].trace_options
        if not trace_options.get("ignore_dead", False):
            real = [replace(c, dead=False) if c.dead else c for c in bmap.creatures]
            world = replace(world, creatures=real + hyp)
        segments = np.concatenate([p.segments for p in plans], axis=0)
        att = np.concatenate([p.attacker for p in plans])
        tgt = np.concatenate([p.target for p in plans])
        batch = trace(world, segments, attacker=att, target=tgt, ignore_dead=True,
                      ignore_prone=bool(trace_options.get("ignore_prone", False)))
        bounds = np.concatenate([[0], np.cumsum([len(p) for p in plans])])
        per_square = [[batch[i] for i in range(bounds[k], bounds[k + 1])] for k in range(len(plans))]
        # Squares where no drawn line proves line of effect: search them all in
        # one call; those without it have total cover, which overrides every
        # other verdict in every ruleset, so decide need not search again.
        # (Only lines attached to both count: not creature-cover's stray line.)
        shooter_rect = bmap.creature(attacker).rect
        ai = bmap.creature_index(attacker)
        unproved = [
            k for k, (p, h) in enumerate(zip(plans, hyp))
            if not any(proves_line_of_effect(seg, tr, [shooter_rect, h.rect])
                       for seg, tr, a, t in zip(p.segments, per_square[k], p.attacker, p.target)
                       if a == ai and t == len(bmap.creatures) + k)
        ]
        blocked = set()
        if unproved:
            found = line_of_effect_many(world, [(attacker, hyp[k].id) for k in unproved])
            blocked = {k for k, ok in zip(unproved, found) if not ok}
        for k, ((r, c), p) in enumerate(zip(candidates, plans)):
            cover[r, c] = "total" if k in blocked else rs.decide(world, p, per_square[k])["cover"]

    canvas = _Canvas(bmap, pps, mrg)
    _draw_base(canvas, background=background, heat=cover)
    _draw_creatures(canvas)
    if labels:
        _draw_labels(canvas)
    return cover, canvas.img


# ------------------------------------------------------------------ files
def save_png(image: np.ndarray, path: str | Path) -> Path:
    """Write an RGB uint8 image as PNG with :func:`skimage.io.imsave`; returns the path.

    Raises
    ------
    ValueError
        If ``image`` is not a ``(rows, cols, 3)`` uint8 array or the path does
        not end in ``.png``.
    """
    from skimage import io

    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"image must be a (rows, cols, 3) uint8 array, not {arr.dtype} {arr.shape}")
    p = png_path(path)
    io.imsave(str(p), arr, check_contrast=False)
    return p


def png_path(path: str | Path) -> Path:
    """``path`` as a Path, checked to end in ``.png`` (ValueError otherwise)."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or Path, not {type(path).__name__}")
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise ValueError(f"the output file must end in .png, not {p.name!r}")
    return p
