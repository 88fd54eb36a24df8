"""Bad input of every kind ends in one line naming it and exit code 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from lineoffire.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err


def test_deeply_nested_json_map(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    code, err = run(capsys, "validate", str(p))
    assert code == 2
    assert "nested too deeply" in err and "Traceback" not in err


def test_deeply_nested_vtt_file(tmp_path, capsys):
    p = tmp_path / "deep.dd2vtt"
    p.write_text("[" * 50_000 + "]" * 50_000)
    code, err = run(capsys, "validate", str(p))
    assert code == 2 and "nested too deeply" in err


def test_huge_number_in_a_vtt_wall(tmp_path, capsys):
    p = tmp_path / "huge.dd2vtt"
    p.write_text(json.dumps({
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4},
                       "pixels_per_grid": 70},
        "line_of_sight": [[{"x": 0, "y": 0}, {"x": 1e308, "y": 1e308}]],
        "portals": [],
    }))
    code, err = run(capsys, "validate", str(p))
    assert code == 2 and "out of range" in err


def test_huge_number_in_a_json_map_wall(tmp_path, capsys):
    p = tmp_path / "huge.json"
    p.write_text(json.dumps({"format": "lineoffire-map", "version": 1, "width": 4, "height": 4,
                             "walls": [{"kind": "wall", "points": [[0, 0], [1e307, 1]]}]}))
    code, err = run(capsys, "validate", str(p))
    assert code == 2 and "out of range" in err


def test_huge_area_origin(capsys):
    code, err = run(capsys, "cover", "crossroads", "--attacker", "R", "--target", "O",
                    "--rules", "pf1e", "--attack", "area", "--origin", "1e307,1")
    assert code == 2 and "out of range" in err


@pytest.mark.parametrize("rows", [["....", "....", "....", "...."]])
def test_open_door_takes_no_part_in_joins(tmp_path, rows):
    from lineoffire.maps import load_map

    # a wall ending 0.03 short of an open window portal: nothing blocking to join to
    doc = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 3},
                       "pixels_per_grid": 70},
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 2, "y": 1}]],
        "portals": [{"position": {"x": 2.03, "y": 1}, "bounds": [{"x": 2.03, "y": 0},
                                                                   {"x": 2.03, "y": 2}],
                     "rotation": 0, "closed": False, "freestanding": False}],
    }
    p = tmp_path / "window.dd2vtt"
    p.write_text(json.dumps(doc))
    assert load_map(p).joins_added == 0
    doc["portals"][0]["closed"] = True
    p.write_text(json.dumps(doc))
    assert load_map(p).joins_added == 1


def test_picture_maps_convert_with_pixels_per_square(tmp_path, capsys):
    import numpy as np
    import skimage.io

    img = np.full((64, 96), 255, np.uint8)
    img[:, 32:48] = 0  # a dark band: square column 2 at 16 pixels per square
    pic = tmp_path / "pic.png"
    skimage.io.imsave(pic, img, check_contrast=False)
    out = tmp_path / "pic.json"
    code, err = run(capsys, "convert", str(pic), str(out))
    assert code == 2 and "needs --pixels-per-square" in err
    assert main(["convert", str(pic), str(out), "--pixels-per-square", "16"]) == 0
    from lineoffire.maps import load_map

    m = load_map(out)
    assert (m.width, m.height) == (6, 4)
    assert m.squares[:, 2].tolist() == [1, 1, 1, 1] and m.squares[:, 3].sum() == 0


def test_a_burst_too_large_to_hold_is_refused():
    from lineoffire.ops import run_op
    from lineoffire.errors import RequestError

    m = {"width": 5, "height": 1, "creatures": [{"id": "S", "x": 0, "y": 0},
                                                {"id": "T", "x": 4, "y": 0, "evasion": 12}]}
    with pytest.raises(RequestError, match="too many"):
        run_op({"op": "shots", "map": m, "attacker": "S", "target": "T",
                "attack_bonus": 3, "burst": 100_000_000})
