"""Image maps: dark pixels as solid squares or as traced thin walls."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import LineString, MultiLineString
from skimage import io

from lineoffire.maps import SOLID, MapError, load_map
from lineoffire.maps.image import load_image, square_fractions

WHITE, BLACK = 255, 0


def save(tmp_path, array, name="map.png"):
    path = tmp_path / name
    io.imsave(path, array, check_contrast=False)
    return path


def blank(rows, cols, pps, channels=None):
    shape = (rows * pps, cols * pps) + ((channels,) if channels else ())
    return np.full(shape, WHITE, dtype=np.uint8)


def paint(img, c, r, pps, *, fraction=1.0, value=BLACK):
    """Darken the top ``fraction`` of the rows of square (c, r)."""
    rows = round(pps * fraction)
    img[r * pps:r * pps + rows, c * pps:(c + 1) * pps] = value


def solid(m):
    return [(c, r) for r, c in zip(*np.nonzero(m.squares == SOLID))]


def walls_geometry(m):
    return MultiLineString([list(w.points) for w in m.walls])


# ------------------------------------------------------------ squares mode
def test_squares_by_coverage(tmp_path):
    pps = 8
    img = blank(3, 4, pps)  # 3 rows x 4 columns of squares
    paint(img, 1, 0, pps)                  # full
    paint(img, 2, 2, pps, fraction=0.5)    # exactly half
    paint(img, 0, 2, pps, fraction=0.25)   # a quarter
    paint(img, 3, 1, pps, fraction=0.75)   # three quarters
    path = save(tmp_path, img)
    m = load_map(path, pixels_per_square=pps)
    assert (m.width, m.height) == (4, 3)
    assert m.meta["source"] == "image" and m.name == "map"
    assert solid(m) == [(1, 0), (3, 1), (2, 2)]
    assert solid(load_image(path, pixels_per_square=pps, coverage=0.6)) == [(1, 0), (3, 1)]
    assert solid(load_image(path, pixels_per_square=pps, coverage=0.25)) == [
        (1, 0), (3, 1), (0, 2), (2, 2)
    ]
    assert solid(load_image(path, pixels_per_square=pps, coverage=1)) == [(1, 0)]
    assert m.walls == []


def test_threshold_decides_what_is_dark(tmp_path):
    pps = 4
    img = blank(1, 3, pps)
    paint(img, 0, 0, pps, value=100)  # grey 0.39
    paint(img, 1, 0, pps, value=160)  # grey 0.63
    path = save(tmp_path, img)
    assert solid(load_image(path, pixels_per_square=pps)) == [(0, 0)]
    assert solid(load_image(path, pixels_per_square=pps, threshold=0.7)) == [(0, 0), (1, 0)]
    assert solid(load_image(path, pixels_per_square=pps, threshold=0.2)) == []


def test_colour_and_transparency(tmp_path):
    pps = 5
    rgba = blank(2, 2, pps, channels=4)
    rgba[:pps, :pps] = (255, 0, 0, 255)          # red: grey 0.21, dark
    rgba[:pps, pps:] = (255, 255, 0, 255)        # yellow: grey 0.93, light
    rgba[pps:, :pps] = (0, 0, 0, 0)              # transparent black: over white, light
    rgba[pps:, pps:] = (0, 0, 40, 255)           # navy: dark
    m = load_image(save(tmp_path, rgba), pixels_per_square=pps)
    assert solid(m) == [(0, 0), (1, 1)]
    rgb = np.ascontiguousarray(rgba[..., :3])
    m = load_image(save(tmp_path, rgb, "rgb.png"), pixels_per_square=pps)
    assert solid(m) == [(0, 0), (0, 1), (1, 1)]


def test_jpeg_and_bmp_by_suffix(tmp_path):
    pps = 16
    img = blank(2, 3, pps)
    paint(img, 2, 0, pps)
    paint(img, 0, 1, pps)
    for name in ("map.jpg", "map.bmp"):
        m = load_map(save(tmp_path, img, name), pixels_per_square=pps)
        assert solid(m) == [(2, 0), (0, 1)]


def test_size_rounds_to_whole_squares():
    img = np.full((21, 29), WHITE, dtype=np.uint8)  # 2.1 x 2.9 squares of 10 px
    img[:, 25:] = BLACK  # the 4 extra columns belong to the last square
    m = load_image(img, pixels_per_square=10)
    assert (m.width, m.height) == (3, 2)
    assert solid(m) == []
    assert square_fractions(img == BLACK, 10)[0, 2] == pytest.approx(4 / 9)


def test_fractional_pixels_per_square():
    img = np.full((15, 15), WHITE, dtype=np.uint8)
    img[:8, :8] = BLACK  # pixel centres 0.5 .. 7.5 lie in square 0 at 7.5 px/square
    m = load_image(img, pixels_per_square=7.5)
    assert (m.width, m.height) == (2, 2)
    assert solid(m) == [(0, 0)]


# ------------------------------------------------------------ walls mode
def test_traced_stroke_separates_left_from_right(tmp_path):
    pps = 10
    img = blank(4, 4, pps)
    img[:, 18:22] = BLACK  # a 4-pixel stroke down the middle, x = 1.8 .. 2.2
    m = load_image(save(tmp_path, img), pixels_per_square=pps, mode="walls")
    assert (m.width, m.height) == (4, 4)
    assert (m.squares == 0).all()
    assert len(m.walls) == 1 and all(w.kind == "wall" for w in m.walls)
    ring = m.walls[0]
    assert ring.points[0] == ring.points[-1]
    xs = [x for x, _ in ring.points]
    assert min(xs) == pytest.approx(1.8, abs=0.06) and max(xs) == pytest.approx(2.2, abs=0.06)
    geom = walls_geometry(m)
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = (rng.uniform(0, 1.7), rng.uniform(0, 4))
        b = (rng.uniform(2.3, 4), rng.uniform(0, 4))
        assert LineString([a, b]).intersects(geom)
        c = (rng.uniform(0, 1.7), rng.uniform(0, 4))
        assert not LineString([a, c]).intersects(geom)


def test_traced_room_encloses_its_inside():
    pps = 10
    img = np.full((60, 60), WHITE, dtype=np.uint8)
    img[10:50, 10:50] = BLACK
    img[14:46, 14:46] = WHITE  # a room with 4-pixel walls
    m = load_image(img, pixels_per_square=pps, mode="walls")
    assert len(m.walls) == 2  # the outer and the inner outline
    geom = walls_geometry(m)
    rng = np.random.default_rng(11)
    for _ in range(50):
        inside = (rng.uniform(1.6, 4.4), rng.uniform(1.6, 4.4))
        edge = rng.integers(4)
        t = rng.uniform(0, 6)
        outside = [(t, 0.5), (t, 5.5), (0.5, t), (5.5, t)][edge]
        assert LineString([inside, outside]).intersects(geom)


def test_traced_walls_trace_as_walls():
    from lineoffire.geometry import trace

    img = np.full((40, 40), WHITE, dtype=np.uint8)
    img[:, 18:22] = BLACK
    m = load_image(img, pixels_per_square=10, mode="walls")
    batch = trace(m, [[0.5, 2.0, 3.5, 2.0], [0.5, 0.5, 1.5, 3.5], [2.5, 0.5, 3.5, 3.5]])
    assert [b.stopped for b in batch] == [True, False, False]


def test_simplification_tolerance():
    img = np.full((40, 40), WHITE, dtype=np.uint8)
    yy, xx = np.mgrid[:40, :40]
    img[(xx - 20) ** 2 + (yy - 20) ** 2 <= 100] = BLACK  # a round pillar
    fine = load_image(img, pixels_per_square=10, mode="walls", tolerance=0)
    coarse = load_image(img, pixels_per_square=10, mode="walls", tolerance=2)
    assert len(fine.walls) == len(coarse.walls) == 1
    assert len(coarse.walls[0].points) < len(fine.walls[0].points)


# ------------------------------------------------------------ errors
def test_bad_options():
    img = np.zeros((10, 10), dtype=np.uint8)
    with pytest.raises(ValueError, match="mode must be one of 'squares', 'walls'"):
        load_image(img, pixels_per_square=5, mode="lines")
    with pytest.raises(ValueError, match="pixels_per_square must be a number >= 1"):
        load_image(img, pixels_per_square=0)
    with pytest.raises(TypeError, match="pixels_per_square must be a number"):
        load_image(img, pixels_per_square="5")
    with pytest.raises(ValueError, match=r"threshold must be in \(0, 1\]"):
        load_image(img, pixels_per_square=5, threshold=0)
    with pytest.raises(ValueError, match=r"coverage must be in \(0, 1\]"):
        load_image(img, pixels_per_square=5, coverage=1.5)
    with pytest.raises(ValueError, match="tolerance must be a number of pixels"):
        load_image(img, pixels_per_square=5, mode="walls", tolerance=-1)
    with pytest.raises(TypeError, match="must be a path or an array"):
        load_image(3, pixels_per_square=5)


def test_unreadable_or_missing_files(tmp_path):
    bad = tmp_path / "garbage.png"
    bad.write_bytes(b"this is not a picture")
    with pytest.raises(MapError, match=r"garbage\.png: cannot read the picture"):
        load_image(bad, pixels_per_square=5)
    with pytest.raises(MapError, match=r"nothing\.png: no such picture file"):
        load_image(tmp_path / "nothing.png", pixels_per_square=5)


def test_unsupported_shape():
    with pytest.raises(MapError, match=r"image: unsupported picture shape \(4, 4, 5\)"):
        load_image(np.zeros((4, 4, 5), dtype=np.uint8), pixels_per_square=2)
    with pytest.raises(MapError, match="the picture is empty"):
        load_image(np.zeros((0, 4), dtype=np.uint8), pixels_per_square=2)


def test_truncated_picture(tmp_path):
    img = blank(4, 4, 10)
    img[:20] = BLACK
    path = save(tmp_path, img)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(MapError, match=r"map\.png: cannot read the picture"):
        load_image(path, pixels_per_square=10)
