"""``lineoffire shoot``: the rule text's burst example on the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lineoffire.cli import main

RAID = {
    "format": "lineoffire-map", "version": 1, "width": 7, "height": 1,
    "squares": ["......."], "walls": [],
    "creatures": [
        {"id": "Raider", "x": 0, "y": 0, "team": "raiders"},
        {"id": "Melee raider", "x": 2, "y": 0, "team": "raiders"},
        {"id": "Player", "x": 3, "y": 0, "evasion": 12, "team": "party"},
        {"id": "Dog", "x": 5, "y": 0, "size": "small", "team": "party"},
    ],
}


@pytest.fixture
def raid_map(tmp_path):
    path = tmp_path / "raid.json"
    path.write_text(json.dumps(RAID))
    return str(path)


def shoot(capsys, *argv):
    code = main(["shoot", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_burst_example_table_and_summary(raid_map, capsys):
    code, out, err = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Player",
                           "--rolls", "11,15,18,13")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == ("Raider shoots Player: full cover (+4), Evasion 12 -> 16; "
                        "13-16 hits Melee raider")
    assert [cell.strip() for cell in lines[1].split("|")] == ["Shot", "Roll", "Result"]
    rows = [[cell.strip() for cell in line.split("|")] for line in lines[3:7]]
    assert rows == [
        ["1", "11", "Miss"],
        ["2", "15", "Hits Melee raider"],
        ["3", "18", "Hits Player"],
        ["4", "13", "Hits Melee raider"],
    ]
    assert lines[7] == "Player takes 1 hit. Melee raider takes 2 hits. 1 shot missed entirely."
    assert len(lines) == 8  # no attack bonus: no chances


def test_burst_stray_needs_the_dogs_evasion(raid_map, capsys):
    code, out, err = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Player",
                           "--burst", "4", "--rolls", "11,15,18,13")
    assert code == 2 and out == ""
    assert err == ("lineoffire shoot: error: creature behind the target 'Dog' has no evasion, "
                   "which a stray shot of a burst needs; give it one in the map\n")


def test_attack_bonus_shows_the_chances(raid_map, capsys):
    code, out, _ = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Player",
                         "--attack-bonus", "0", "--seed", "11")
    assert code == 0
    lines = out.splitlines()
    d20 = int(np.random.default_rng(11).integers(1, 21))
    assert lines[3].split("|")[1].strip() == str(d20)
    assert lines[-4] == "Chance of each outcome of one shot (d20):"
    chances = [line.split() for line in lines[-3:]]
    assert chances[0] == ["Player", "1/5", "20.0%"]
    assert chances[1] == ["Melee", "raider", "1/5", "20.0%"]
    assert chances[2] == ["miss", "(hits", "nobody)", "3/5", "60.0%"]


def test_json_output_is_the_shots_answer(raid_map, capsys):
    code, out, _ = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Player",
                         "--rolls", "14,17", "--evasion", "13", "--called-shot", "left-leg",
                         "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer["base_evasion"] == 13
    assert answer["windows"] == [{"creature": "Melee raider", "bonus": 4, "from": 13, "to": 17}]
    assert [s["hit"] for s in answer["shots"]] == ["Melee raider", "Melee raider"]
    assert all(s["called_shot_lost"] for s in answer["shots"])


@pytest.mark.parametrize("argv, message", [
    (["--rolls", "11,15", "--burst", "3"], "burst is 3 shots but 2 rolls were given"),
    (["--rolls", "11", "--called-shot", "tail"], "unknown limb 'tail'"),
    ([], "give --rolls"),
])
def test_bad_input_exits_2_with_one_line(raid_map, capsys, argv, message):
    code, out, err = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Player", *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_unknown_creature_exits_2(raid_map, capsys):
    code, _, err = shoot(capsys, raid_map, "--attacker", "Raider", "--target", "Nobody",
                         "--rolls", "12")
    assert code == 2
    assert "unknown creature id 'Nobody'" in err


@pytest.mark.parametrize("argv, message", [
    (["--rolls", "12", "--seed", "3"], "argument --seed: not allowed with argument --rolls"),
    (["--rolls", "11,x"], "argument --rolls: item 2 ('x') is not an integer attack total"),
])
def test_bad_arguments_exit_2(raid_map, capsys, argv, message):
    with pytest.raises(SystemExit) as info:
        main(["shoot", raid_map, "--attacker", "Raider", "--target", "Player", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
