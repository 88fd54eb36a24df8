"""The ``trace`` request op and ``lineoffire query`` (SPEC section 6)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading

import pytest

import lineoffire.ops.trace as trace_op
from lineoffire.cli import main
from lineoffire.commands.query import MapCache, answer, serve
from lineoffire.errors import MapError, RequestError
from lineoffire.ops import run_op

# SPEC section 6: the trace example, map and answer as printed there.
SPEC_MAP = {"width": 6, "height": 3, "squares": ["......", "..#...", "......"],
            "creatures": [{"id": "B", "x": 4, "y": 1, "size": "medium"}]}
SPEC_SEGMENTS = [[0.5, 1.5, 5.5, 1.5], [0, 1, 6, 1]]
SPEC_ANSWER = {"lines": [
    {"stopped": True, "blockers": [{"kind": "solid", "square": [2, 1], "t": 0.3},
                                   {"kind": "creature", "creature": "B", "t": 0.7}]},
    {"stopped": False, "blockers": []},
]}

# A corridor, one square high:  A . M . . T  (M is dead).
#   0 1 2 3 4 5
#   A . M . . T
CORRIDOR = {"width": 6, "height": 1, "creatures": [
    {"id": "A", "x": 0, "y": 0}, {"id": "M", "x": 2, "y": 0, "dead": True},
    {"id": "T", "x": 5, "y": 0}]}
ALONG = [0.5, 0.5, 5.5, 0.5]  # centre of A to centre of T


def creature(cid, t):
    return {"kind": "creature", "creature": cid, "t": t}


def trace(**fields):
    return trace_op.run({"op": "trace", **fields})


# ---------------------------------------------------------------- the op
def test_spec_example_through_the_op():
    assert trace(map=SPEC_MAP, segments=SPEC_SEGMENTS) == SPEC_ANSWER


def test_spec_example_through_run_op_and_a_versioned_map_file(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"format": "lineoffire-map", "version": 1, **SPEC_MAP}))
    assert run_op({"op": "trace", "map": str(path), "segments": SPEC_SEGMENTS}) == SPEC_ANSWER


def test_free_endpoints_pass_through_every_creature_they_enter():
    assert trace(map=CORRIDOR, segments=[ALONG]) == {"lines": [{"stopped": False, "blockers": [
        creature("A", 0.0), creature("M", 0.3), creature("T", 0.9)]}]}


def test_attacker_and_target_are_attached_and_left_out():
    assert trace(map=CORRIDOR, segments=[ALONG], attacker="A", target="T") == {
        "lines": [{"stopped": False, "blockers": [creature("M", 0.3)]}]}


def test_attacker_and_target_per_segment_with_nulls():
    got = trace(map=CORRIDOR, segments=[ALONG, ALONG], attacker=["A", None], target=[None, "T"])
    assert [[b["creature"] for b in ln["blockers"]] for ln in got["lines"]] == [
        ["M", "T"], ["A", "M"]]


@pytest.mark.parametrize("options, seen", [
    ({}, ["M"]),
    ({"ignore_dead": False}, ["M"]),
    ({"ignore_dead": True}, []),
    ({"ignore_prone": True}, ["M"]),  # M is dead, not prone
])
def test_options_leave_out_dead_creatures(options, seen):
    got = trace(map=CORRIDOR, segments=[ALONG], attacker="A", target="T", options=options)
    assert [b["creature"] for b in got["lines"][0]["blockers"]] == seen


def test_no_segments_no_lines():
    assert trace(map=SPEC_MAP, segments=[]) == {"lines": []}


@pytest.mark.parametrize("fields, code, message", [
    ({"segments": [ALONG], "colour": "red"}, "bad_request", r"unknown field\(s\) 'colour'"),
    ({}, "bad_request", r"trace request has no 'segments'"),
    ({"segments": ALONG}, "bad_request", r"segments\[0\] must be \[x0, y0, x1, y1\], not 0.5"),
    ({"segments": [[0, 0, 1]]}, "bad_request", r"segments\[0\] must be \[x0, y0, x1, y1\]"),
    ({"segments": [[0, 0, "1", 0]]}, "bad_request", r"segments\[0\]\[2\] must be a number"),
    ({"segments": [[0, 0, True, 0]]}, "bad_request", r"segments\[0\]\[2\] must be a number"),
    ({"segments": [[0, float("nan"), 1, 0]]}, "bad_request", r"segments\[0\]\[1\] must be finite"),
    ({"segments": [[0.5, 0.5, 6.5, 0.5]]}, "bad_request",
     r"segments\[0\] point \(6.5, 0.5\) lies outside the 6x1 map"),
    ({"segments": [ALONG], "attacker": "Z"}, "unknown_creature",
     r"attacker: unknown creature id 'Z'; the map has 'A', 'M', 'T'"),
    ({"segments": [ALONG], "target": ["T", "T"]}, "bad_request",
     r"target must have one id per segment \(1\), not 2"),
    ({"segments": [ALONG], "target": 3}, "bad_request", r"target must be a creature id"),
    ({"segments": [ALONG], "options": {"ignore_deaf": True}}, "bad_request",
     r"unknown option\(s\) 'ignore_deaf'; expected some of ignore_dead, ignore_prone"),
    ({"segments": [ALONG], "options": {"ignore_dead": 1}}, "bad_request",
     r"option ignore_dead must be true or false, not 1"),
    ({"segments": [ALONG], "options": ["ignore_dead"]}, "bad_request",
     r"options must be an object, not list"),
])
def test_bad_requests_name_what_is_wrong(fields, code, message):
    with pytest.raises(RequestError, match=message) as info:
        trace(map=CORRIDOR, **fields)
    assert info.value.code == code


def test_missing_map_and_bad_map():
    with pytest.raises(RequestError, match="trace request has no 'map'"):
        trace_op.run({"op": "trace", "segments": [ALONG]})
    with pytest.raises(MapError, match="nowhere.json: no such map file"):
        trace(map="nowhere.json", segments=[ALONG])


# ------------------------------------------------------------ query: in process
def query_lines(requests, cache=None):
    """Run ``serve`` on the request lines; return the parsed answer lines."""
    out = io.StringIO()
    text = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in requests) + "\n"
    assert serve(io.StringIO(text), out, cache=cache) == 0
    return [json.loads(s) for s in out.getvalue().splitlines()]


def code_of(ans):
    return ans["error"]["code"] if "error" in ans else None


def good(map_=SPEC_MAP, segments=SPEC_SEGMENTS):
    return {"op": "trace", "map": map_, "segments": segments}


def test_query_command_in_process(monkeypatch, capsys):
    text = "\n".join([json.dumps(good()), "", "   ", "{oops", json.dumps(good())]) + "\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main(["query"]) == 0
    out, err = capsys.readouterr()
    answers = [json.loads(s) for s in out.splitlines()]
    assert err == ""
    assert answers[0] == SPEC_ANSWER and answers[2] == SPEC_ANSWER
    assert answers[1] == {"error": {"code": "bad_json", "message":
                                    "input line 4: Expecting property name enclosed in "
                                    "double quotes at column 2"}}
    assert len(answers) == 3  # blank lines get no answer


@pytest.mark.parametrize("line, code, message", [
    ("{oops", "bad_json", "Expecting property name"),
    ('{"op": "trace", "map": {"width": NaN}}', "bad_json", "NaN is not valid JSON"),
    ("[" * 100000, "bad_json", ""),
    ("[1, 2]", "bad_request", "a request must be a JSON object, not list"),
    ('{"map": "crossroads"}', "unknown_op", "unknown op None"),
    ('{"op": "fly", "map": "crossroads"}', "unknown_op",
     "unknown op 'fly'; expected one of trace, cover, shots, matrix"),
    ('{"op": "trace", "segments": []}', "bad_request", "request has no 'map'"),
    ('{"op": "trace", "map": "nowhere.json", "segments": []}', "bad_map",
     "nowhere.json: no such map file"),
    ('{"op": "trace", "map": 7, "segments": []}', "bad_map", "map must be a path"),
    ('{"op": "trace", "map": {"width": 3, "height": 1, "colour": 1}, "segments": []}',
     "bad_map", "colour"),
    ('{"op": "trace", "map": "crossroads", "segments": [[0, 0, 21, 0]]}', "bad_request",
     r"point (21, 0) lies outside the 20x14 map"),
    ('{"op": "trace", "map": "crossroads", "segments": [], "attacker": "Q"}',
     "unknown_creature", "attacker: unknown creature id 'Q'"),
    ('{"op": "trace", "map": "crossroads", "segments": [], "range": 3}', "bad_request",
     "unknown field(s) 'range'"),
])
def test_query_error_codes(line, code, message):
    [ans] = query_lines([line])
    assert code_of(ans) == code
    assert message in ans["error"]["message"]
    assert ans["error"]["message"].startswith("input line 1: ")


def test_an_op_that_is_not_built_is_reported_and_the_batch_goes_on(monkeypatch):
    monkeypatch.setitem(sys.modules, "lineoffire.ops.matrix", None)  # import fails
    answers = query_lines([{"op": "matrix", "map": "crossroads", "rules": "pf1e"}, good()])
    assert code_of(answers[0]) == "unavailable_op"
    assert "op 'matrix' is not available" in answers[0]["error"]["message"]
    assert answers[1] == SPEC_ANSWER


def test_an_engine_bug_is_an_error_answer_not_the_end(monkeypatch):
    def broken(request):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(trace_op, "run", broken)
    answers = query_lines([good(), json.dumps({"op": "fly", "map": "x"})])
    assert answers[0] == {"error": {"code": "internal_error",
                                    "message": "input line 1: RuntimeError: kernel exploded"}}
    assert code_of(answers[1]) == "unknown_op"


def test_answer_never_raises_on_garbage():
    assert code_of(answer("\x00\xff")) == "bad_json"
    assert code_of(answer('"just a string"')) == "bad_request"


# ------------------------------------------------------------ query: map cache
def write_map(path, rows):
    path.write_text(json.dumps({"format": "lineoffire-map", "version": 1,
                                "width": len(rows[0]), "height": len(rows), "squares": rows}))


def test_a_map_path_repeated_is_loaded_once(tmp_path):
    path = tmp_path / "room.json"
    write_map(path, ["....", ".#..", "...."])
    cache = MapCache()
    req = {"op": "trace", "map": str(path), "segments": [[0.5, 1.5, 3.5, 1.5]]}
    answers = query_lines([req] * 200, cache=cache)
    assert cache.loads == 1
    assert all(a["lines"][0]["stopped"] for a in answers)


def test_a_changed_map_file_is_loaded_again(tmp_path):
    path = tmp_path / "room.json"
    write_map(path, ["....", ".#..", "...."])
    cache = MapCache()
    req = {"op": "trace", "map": str(path), "segments": [[0.5, 1.5, 3.5, 1.5]]}
    assert query_lines([req], cache=cache)[0]["lines"][0]["stopped"] is True
    write_map(path, ["....", "....", "...."])
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # surely a new mtime
    assert query_lines([req], cache=cache)[0]["lines"][0]["stopped"] is False
    assert cache.loads == 2


def test_example_names_are_cached_and_the_cache_is_bounded(tmp_path):
    cache = MapCache(maxsize=2)
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"m{i}.json")
        write_map(paths[-1], ["...."])
    for p in paths + [paths[0]]:  # m0 was pushed out by m2
        cache.load(str(p))
    cache.load("crossroads")
    cache.load("crossroads")
    assert cache.loads == 5
    with pytest.raises(ValueError, match="maxsize must be a positive integer, not 0"):
        MapCache(maxsize=0)


# ------------------------------------------------------------ query: a real process
def test_query_subprocess_answers_in_order():
    lines = [
        json.dumps(good()),
        '{"op": "trace", "map": ',
        json.dumps({"op": "teleport", "map": SPEC_MAP}),
        json.dumps(good(segments=[[0, 1, 6, 1]])),
    ]
    proc = subprocess.run([sys.executable, "-m", "lineoffire", "query"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(s) for s in proc.stdout.splitlines()]
    assert [code_of(a) for a in answers] == [None, "bad_json", "unknown_op", None]
    assert answers[0] == SPEC_ANSWER
    assert answers[3] == {"lines": [SPEC_ANSWER["lines"][1]]}


def test_query_subprocess_answers_each_line_before_the_next_arrives():
    proc = subprocess.Popen([sys.executable, "-m", "lineoffire", "query"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    timer = threading.Timer(120, proc.kill)  # never hang the test run
    timer.start()
    try:
        proc.stdin.write(json.dumps(good()) + "\n")
        proc.stdin.flush()
        first = proc.stdout.readline()  # stdin still open: the answer must be flushed
        proc.stdin.write("nonsense\n")
        proc.stdin.close()
        second = proc.stdout.readline()
        assert proc.wait() == 0
    finally:
        timer.cancel()
        proc.kill()
        proc.stdout.close()
    assert json.loads(first) == SPEC_ANSWER
    assert code_of(json.loads(second)) == "bad_json"
