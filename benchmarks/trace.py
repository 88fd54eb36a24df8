"""Benchmark of :func:`lineoffire.geometry.trace` against per-segment baselines.

Run by hand (not a test)::

    python benchmarks/trace.py [--n 200000] [--chunk 2048] [--sample 2000] [--seed 0]

A seeded 1000 x 1000 map with 15% solid squares and walls on a few percent of
the unit edges of the grid lines; ``--n`` random segments 1 to 120 squares
long, half from square centre to square centre, half from corner to corner.
Reported, each as segments/s and squares visited/s (squares counted exactly in
closed form, ``1 + x-crossings + y-crossings - corner passes``, see
``_trace_baselines.py``):

- the engine, called on ``--chunk`` segments at a time with only per-chunk
  totals kept (streaming), over all ``--n`` segments;
- a pure-Python exact integer traversal per segment, on ``--sample`` segments,
  extrapolated (its square counts are checked against the closed form);
- ``skimage.draw.line`` per segment, on the same sample (Bresenham's squares,
  not exact; its squares/s counts the exact squares of the same segments);

with the ratios engine / baseline, and the engine's peak memory, measured in a
fresh subprocess that builds the same map and segments first: the tracemalloc
peak during the run (numpy arrays included) and the process's ``ru_maxrss``.  ``--n 2000000`` shows the peak staying bounded
by the chunking.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _trace_baselines import FlagGrid, skimage_lines, traverse_many, visited_counts  # noqa: E402

from lineoffire.geometry import trace  # noqa: E402
from lineoffire.maps import BattleMap  # noqa: E402

SIZE = 1000
SOLID_SHARE = 0.15
WALL_SHARE = 0.02
MIN_LEN, MAX_LEN = 1, 120


def make_map(seed: int) -> tuple[BattleMap, FlagGrid]:
    """The benchmark map and the same obstacles as flag lists for the baselines."""
    rng = np.random.default_rng(seed)
    solid = rng.random((SIZE, SIZE)) < SOLID_SHARE
    # Unit-edge walls on interior grid lines: vwall[r, k] on x = k, hwall[k, c] on y = k.
    vwall = np.zeros((SIZE, SIZE + 1), bool)
    hwall = np.zeros((SIZE + 1, SIZE), bool)
    vwall[:, 1:-1] = rng.random((SIZE, SIZE - 1)) < WALL_SHARE
    hwall[1:-1, :] = rng.random((SIZE - 1, SIZE)) < WALL_SHARE
    walls = [{"kind": "wall", "points": [[k, r], [k, r + 1]]}
             for r, k in np.argwhere(vwall).tolist()]
    walls += [{"kind": "wall", "points": [[c, k], [c + 1, k]]}
              for k, c in np.argwhere(hwall).tolist()]
    bmap = BattleMap.build(SIZE, SIZE, squares=solid.astype(np.uint8), walls=walls,
                           name="benchmark")
    return bmap, FlagGrid(solid, vwall, hwall)


def make_segments(n: int, seed: int) -> np.ndarray:
    """``n`` segments in doubled coordinates, 1-120 squares long, on the map.

    Even rows are centre-to-centre (odd doubled coordinates), odd rows
    corner-to-corner (even ones).
    """
    rng = np.random.default_rng(seed + 1)
    out = np.empty((n, 4), np.int64)
    todo = np.arange(n)
    while len(todo):
        m = len(todo)
        corner = todo % 2 == 1
        length = rng.uniform(MIN_LEN, MAX_LEN, m)
        angle = rng.uniform(0, 2 * np.pi, m)
        hi = np.where(corner, SIZE + 1, SIZE)
        c0 = np.floor(rng.random(m) * hi).astype(np.int64)
        r0 = np.floor(rng.random(m) * hi).astype(np.int64)
        c1 = c0 + np.rint(length * np.cos(angle)).astype(np.int64)
        r1 = r0 + np.rint(length * np.sin(angle)).astype(np.int64)
        seg = np.stack([c0, r0, c1, r1], axis=1)
        seg2 = np.where(corner[:, None], 2 * seg, 2 * seg + 1)
        d2 = (seg[:, 2] - seg[:, 0]) ** 2 + (seg[:, 3] - seg[:, 1]) ** 2
        ok = ((seg[:, 2:] >= 0) & (seg[:, 2:] < hi[:, None])).all(axis=1)
        ok &= (d2 >= MIN_LEN ** 2) & (d2 <= MAX_LEN ** 2)
        out[todo[ok]] = seg2[ok]
        todo = todo[~ok]
    return out


def run_engine(bmap: BattleMap, segments: np.ndarray, chunk: int, *,
               blockers_wanted: bool = True, stopped_only: bool = False) -> dict:
    """Trace all segments ``chunk`` at a time, keeping only totals."""
    stopped = blockers = 0
    t0 = time.perf_counter()
    for a in range(0, len(segments), chunk):
        batch = trace(bmap, segments[a:a + chunk], blockers=blockers_wanted,
                      stopped_only=stopped_only)
        stopped += int(batch.stopped.sum())
        blockers += len(batch.kind)
        del batch
    return {"seconds": time.perf_counter() - t0, "stopped": stopped, "blockers": blockers}


def memory_child(args: argparse.Namespace) -> None:
    """In a fresh process: the engine run's memory, as JSON.

    ``peak_kib``: tracemalloc's peak of everything allocated during the run
    (numpy arrays included) above what was allocated before it;
    ``maxrss_kib``: the process's resident-set high-water mark at the end.
    """
    bmap, _ = make_map(args.seed)
    segments = make_segments(args.n, args.seed) / 2.0
    trace(bmap, segments[:1])  # build the map's lookup tables first
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    res = run_engine(bmap, segments, args.chunk)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"peak_kib": (peak - base) / 1024, "maxrss_kib": maxrss, **res}))


def _rate(count: float, seconds: float) -> str:
    return f"{count / seconds / 1e6:8.3f} M/s" if seconds > 0 else "     inf"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=200_000, help="segments for the engine run")
    p.add_argument("--chunk", type=int, default=16384,
                   help="segments per trace() call (the kernel chunks again inside)")
    p.add_argument("--sample", type=int, default=2000, help="segments for the baselines")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-memory", action="store_true", help="skip the memory subprocess")
    p.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name in ("n", "chunk", "sample"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be a positive integer, not {getattr(args, name)}")
    if args.memory_child:
        memory_child(args)
        return 0

    t0 = time.perf_counter()
    bmap, grid = make_map(args.seed)
    seg2 = make_segments(args.n, args.seed)
    segments = seg2 / 2.0
    counts = visited_counts(seg2)
    n_walls = len(bmap.walls)
    print(f"map {SIZE}x{SIZE}: {SOLID_SHARE:.0%} solid, {n_walls} unit-edge walls "
          f"({WALL_SHARE:.0%} of interior edges); built in {time.perf_counter() - t0:.1f} s")
    lengths = np.hypot(seg2[:, 2] - seg2[:, 0], seg2[:, 3] - seg2[:, 1]) / 2
    print(f"{args.n} segments (half centre-to-centre, half corner-to-corner), "
          f"length {lengths.min():.1f}-{lengths.max():.1f} squares, "
          f"mean {lengths.mean():.1f}; {counts.sum()} squares visited "
          f"(mean {counts.mean():.1f} per segment)")

    t1 = time.perf_counter()
    trace(bmap, segments[:1])
    warm = time.perf_counter() - t1
    t1 = time.perf_counter()
    for _ in range(5):
        trace(bmap, segments[:1])
    per_call = (time.perf_counter() - t1) / 5
    print(f"engine: first call (builds lookup tables) {warm * 1e3:.0f} ms; "
          f"then {per_call * 1e3:.1f} ms per call of one segment")

    eng = run_engine(bmap, segments, args.chunk)
    eng_flags = run_engine(bmap, segments, args.chunk, blockers_wanted=False)
    eng_stop = run_engine(bmap, segments, args.chunk, stopped_only=True)
    if eng_stop["stopped"] != eng["stopped"] or eng_flags["stopped"] != eng["stopped"]:
        raise SystemExit("the engine's modes disagree on how many lines are stopped")
    sample = np.random.default_rng(args.seed + 2).choice(args.n, min(args.sample, args.n),
                                                         replace=False)
    s2, s_counts = seg2[sample], counts[sample]

    t1 = time.perf_counter()
    py_hits, py_counts = traverse_many(s2, grid)
    py_s = time.perf_counter() - t1
    if not np.array_equal(py_counts, s_counts):
        bad = int(np.flatnonzero(py_counts != s_counts)[0])
        raise SystemExit(f"closed form and traversal disagree on segment {s2[bad].tolist()} "
                         f"(doubled): {s_counts[bad]} vs {py_counts[bad]}")
    t1 = time.perf_counter()
    sk_hits, sk_pixels = skimage_lines(s2, grid)
    sk_s = time.perf_counter() - t1

    k = len(sample)
    rows = [
        ("engine, blocker lists", args.n, counts.sum(), eng["seconds"]),
        ("engine, flags only", args.n, counts.sum(), eng_flags["seconds"]),
        ("engine, stopped only", args.n, counts.sum(), eng_stop["seconds"]),
        ("pure-Python traversal", k, s_counts.sum(), py_s),
        ("skimage.draw.line", k, s_counts.sum(), sk_s),
    ]
    print()
    print(f"{'approach':<26}{'segments':>10}{'seconds':>10}{'segments/s':>14}"
          f"{'squares/s':>14}{'engine is':>12}")
    eng_rate = args.n / eng["seconds"]
    for name, n, sq, s in rows:
        ratio = "" if n == args.n else f"{eng_rate / (n / s):9.1f}x"
        print(f"{name:<26}{n:>10}{s:>10.3f}{_rate(n, s):>14}{_rate(sq, s):>14}{ratio:>12}")
    print("(squares/s counts every square of the segments; the stopped-only mode leaves each "
          "line at its first stop, so its figure is an effective rate)")
    print(f"(baselines on a sample of {k}; skimage drew {sk_pixels.sum()} pixels for the "
          f"{s_counts.sum()} exact squares, {sk_pixels.sum() / s_counts.sum():.0%})")
    eng_sample = trace(bmap, seg2[sample] / 2.0).stopped
    print(f"engine: {eng['stopped']} of {args.n} lines stopped "
          f"({eng['stopped'] / args.n:.1%}), {eng['blockers']} blockers listed; "
          f"on the sample the baseline's solid-square-or-crossed-wall test agrees with "
          f"'stopped' on {np.mean(py_hits == eng_sample):.1%} of lines "
          f"(it ignores seams, grazing and corner rules)")

    if not args.no_memory:
        child = subprocess.run(
            [sys.executable, __file__, "--memory-child", "--n", str(args.n),
             "--chunk", str(args.chunk), "--seed", str(args.seed)],
            capture_output=True, text=True, check=True)
        mem = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"engine peak memory (fresh subprocess): +{mem['peak_kib'] / 1024:.1f} MiB "
              f"allocated at peak during the run (tracemalloc) for {args.n} segments in "
              f"chunks of {args.chunk}; process high-water mark {mem['maxrss_kib'] / 1024:.0f}"
              f" MiB (ru_maxrss, map and segments included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
