"""Maps from top-down pictures, where dark means wall (scikit-image).

The picture is laid on the grid at ``pixels_per_square`` pixels per square:
pixel column ``i`` (centre at ``i + 0.5`` pixels) lies in square column
``floor((i + 0.5) / pixels_per_square)``.  The map is
``round(image width / pixels_per_square)`` squares wide (at least 1), and as
many high by the same rule; pixels beyond the last square count in it.

A pixel is *dark* when its grey level (0 black .. 1 white; colours through
:func:`skimage.color.rgb2gray`, transparency composited over white) is below
``threshold``.  Two modes:

``"squares"``
    A square is solid when the dark fraction of its pixels is at least
    ``coverage``.
``"walls"``
    The outlines of the dark regions (:func:`skimage.measure.find_contours`
    at half-way between dark and light, simplified with
    :func:`skimage.measure.approximate_polygon` to ``tolerance`` pixels)
    become closed thin walls, in squares units.  A dark stroke becomes a
    ring around it, so anything crossing the stroke crosses the ring.  The
    outline runs half-way between dark and light pixel centres, so it follows
    pixel edges except that it cuts each corner by half a pixel.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ._joins import RawWall, finish_walls
from .model import SOLID, BattleMap, MapError

__all__ = ["load_image", "dark_mask", "square_fractions", "MODES"]

#: Choices of the ``mode`` option.
MODES: tuple[str, ...] = ("squares", "walls")


_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "png"),
    (b"\xff\xd8\xff", 0, "jpeg"),
    (b"GIF8", 0, "gif"),
    (b"BM", 0, "bmp"),
    (b"II*\x00", 0, "tiff"),
    (b"MM\x00*", 0, "tiff"),
    (b"WEBP", 8, "webp"),
)


def _picture_kind(head: bytes) -> str | None:
    """The picture format named by a file's first bytes, or None."""
    for magic, offset, kind in _SIGNATURES:
        if head[offset:offset + len(magic)] == magic:
            return kind
    return None


def _fraction(value: Any, name: str, *, allow_one: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__} ({value!r})")
    v = float(value)
    if not (0 < v < 1 or (allow_one and v == 1)):
        raise ValueError(f"{name} must be in (0, 1], not {value!r}")
    return v


def _grey(image: np.ndarray, where: str) -> np.ndarray:
    """Grey levels in [0, 1] of a picture (2-D, or with 2, 3 or 4 channels)."""
    from skimage import color, util

    if image.dtype == bool:
        img = image.astype(np.float64)
    else:
        img = util.img_as_float(image)
    if img.ndim == 2:
        return img
    if img.ndim != 3 or img.shape[2] not in (2, 3, 4):
        raise MapError(f"{where}: unsupported picture shape {image.shape}")
    if img.shape[2] == 2:  # grey + alpha
        return img[..., 0] * img[..., 1] + (1.0 - img[..., 1])
    if img.shape[2] == 4:
        img = color.rgba2rgb(img, background=(1, 1, 1))
    return color.rgb2gray(img)


def dark_mask(image: np.ndarray, threshold: float = 0.5, where: str = "image") -> np.ndarray:
    """Boolean ``(rows, cols)`` mask of the dark pixels of a picture.

    Examples
    --------
    >>> dark_mask(np.array([[0, 255], [100, 200]], dtype=np.uint8))
    array([[ True, False],
           [ True, False]])
    """
    return _grey(np.asarray(image), where) < threshold


def _bins(n_pixels: int, pps: float) -> tuple[np.ndarray, int]:
    n_squares = max(1, round(n_pixels / pps))
    idx = np.floor((np.arange(n_pixels) + 0.5) / pps).astype(np.int64)
    return np.minimum(idx, n_squares - 1), n_squares


def square_fractions(mask: np.ndarray, pixels_per_square: float) -> np.ndarray:
    """Dark fraction of each square, a ``(height, width)`` float array.

    Examples
    --------
    >>> mask = np.zeros((4, 6), dtype=bool)
    >>> mask[:2, :2] = True
    >>> mask[2, 4] = True
    >>> square_fractions(mask, 2)
    array([[1.  , 0.  , 0.  ],
           [0.  , 0.  , 0.25]])
    """
    rows, h = _bins(mask.shape[0], pixels_per_square)
    cols, w = _bins(mask.shape[1], pixels_per_square)
    cell = (rows[:, None] * w + cols[None, :]).ravel()
    total = np.bincount(cell, minlength=w * h)
    dark = np.bincount(cell, weights=mask.ravel().astype(np.float64), minlength=w * h)
    return (dark / np.maximum(total, 1)).reshape(h, w)


def _trace_walls(mask: np.ndarray, pps: float, tolerance: float) -> list[RawWall]:
    from skimage import measure

    padded = np.pad(mask, 1, constant_values=False).astype(np.float64)
    walls = []
    for contour in measure.find_contours(padded, 0.5):
        if tolerance > 0:
            contour = measure.approximate_polygon(contour, tolerance=tolerance)
        if len(contour) < 3:
            continue
        # (row, col) in padded pixel indices -> (x, y) in squares.
        xs = (contour[:, 1] - 1 + 0.5) / pps
        ys = (contour[:, 0] - 1 + 0.5) / pps
        walls.append(RawWall("wall", list(zip(xs.tolist(), ys.tolist()))))
    return walls


def load_image(
    path: Any,
    *,
    pixels_per_square: float,
    mode: str = "squares",
    threshold: float = 0.5,
    coverage: float = 0.5,
    tolerance: float = 1.0,
    join_tolerance: float = 0.05,
    square_ft: float = 5,
    low_height_ft: float = 3,
    name: str | None = None,
) -> BattleMap:
    """Load a map from a picture where dark means wall.

    Parameters
    ----------
    path : str or Path
        A PNG, JPEG, WebP or BMP file, or an image array (rows, cols[, channels]).
    pixels_per_square : float
        Picture pixels per grid square (>= 1).
    mode : {"squares", "walls"}
        Solid squares by dark coverage, or thin walls traced along the
        outlines of the dark regions.
    threshold : float
        Grey level (0 black .. 1 white) below which a pixel is dark.
    coverage : float
        Squares mode: the dark fraction at which a square is solid.
    tolerance : float
        Walls mode: how far, in pixels, the traced walls may depart from the
        pixel outlines (0 keeps every contour point).
    join_tolerance : float
        Walls mode: gaps at free wall ends closed (SPEC section 2).
    square_ft, low_height_ft : float
        As in the JSON format.
    name : str, optional
        Default: the file name without extension.

    Examples
    --------
    >>> img = np.full((20, 30), 255, dtype=np.uint8)   # 2 x 3 squares of 10 px
    >>> img[:, 10:20] = 0                               # a dark middle column
    >>> m = load_image(img, pixels_per_square=10)
    >>> m.squares
    array([[0, 1, 0],
           [0, 1, 0]], dtype=uint8)
    >>> m = load_image(img, pixels_per_square=10, mode="walls")
    >>> (wall,) = m.walls                   # one closed ring around the stroke
    >>> wall.points[0] == wall.points[-1]
    True
    >>> xs, ys = zip(*wall.points)
    >>> min(xs), max(xs), min(ys), max(ys)
    (1.0, 2.0, 0.0, 2.0)
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
    if isinstance(pixels_per_square, bool) or not isinstance(
        pixels_per_square, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"pixels_per_square must be a number, not {type(pixels_per_square).__name__} "
            f"({pixels_per_square!r})"
        )
    pps = float(pixels_per_square)
    if not math.isfinite(pps) or pps < 1:
        raise ValueError(f"pixels_per_square must be a number >= 1, not {pixels_per_square!r}")
    threshold = _fraction(threshold, "threshold")
    coverage = _fraction(coverage, "coverage")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not (
        math.isfinite(tolerance) and tolerance >= 0
    ):
        raise ValueError(f"tolerance must be a number of pixels >= 0, not {tolerance!r}")

    if isinstance(path, np.ndarray):
        where, stem, picture = "image", None, path
    elif isinstance(path, (str, Path)):
        from skimage import io

        where, stem = str(path), Path(path).stem
        if not Path(path).is_file():
            raise MapError(f"{where}: no such picture file")
        with open(path, "rb") as fh:
            head = fh.read(16)
        if _picture_kind(head) is None:
            raise MapError(
                f"{where}: cannot read the picture (not a PNG, JPEG, GIF, BMP, TIFF or WebP file)"
            )
        try:
            picture = io.imread(str(path))
        except (ValueError, OSError, SyntaxError) as exc:
            raise MapError(f"{where}: cannot read the picture ({exc})") from None
    else:
        raise TypeError(f"an image map must be a path or an array, not {type(path).__name__}")
    picture = np.asarray(picture)
    if picture.ndim < 2 or picture.shape[0] == 0 or picture.shape[1] == 0:
        raise MapError(f"{where}: the picture is empty (shape {picture.shape})")

    mask = dark_mask(picture, threshold, where)
    _, height = _bins(mask.shape[0], pps)
    _, width = _bins(mask.shape[1], pps)
    meta = {
        "source": "image",
        "mode": mode,
        "pixels_per_square": pps,
        "pixels": [int(mask.shape[1]), int(mask.shape[0])],
    }
    common = dict(
        square_ft=square_ft,
        low_height_ft=low_height_ft,
        name=name if name is not None else stem,
        meta=meta,
        where=where,
    )
    if mode == "squares":
        solid = square_fractions(mask, pps) >= coverage
        squares = np.where(solid, SOLID, 0).astype(np.uint8)
        return BattleMap.build(width, height, squares=squares, **common)
    raw = _trace_walls(mask, pps, float(tolerance))
    walls, joins = finish_walls(raw, width=width, height=height, join_tolerance=join_tolerance)
    return BattleMap.build(width, height, walls=walls, joins_added=joins, **common)
