"""Benchmark of the cover matrix (not a test; run by hand).

Usage::

    python benchmarks/matrix.py [--size small|large] [--pairs N] [--loop-pairs N]
                                [--baseline-lines N] [--seed S] [--chunk N] [--ordered]

Sizes (seeded dungeons, 10% solid squares, thin grid walls and doors,
creatures medium and larger, placed legally):

- ``small``: 200x200, 1,000 creatures, no range limit (999,000 pairs);
- ``large``: 400x400, 4,000 creatures, range 24 squares.

In one run it measures, all with the pf1e rules (ranged):

1. the engine's matrix (:func:`lineoffire.matrix.evaluate_pairs`, chunked,
   one trace call per chunk) on a seeded random sample of ``--pairs`` of
   the pairs in range (all of them with ``--pairs 0``), extrapolated to the
   whole matrix: pairs/s and lines/s.  Lines/s counts the lines the ruleset
   draws for the pairs answered (what a per-line approach must trace to
   answer them; counted untimed, by planning up to 5,000 of the pairs),
   although the matrix draws none for the pairs it proves cut off
   (:mod:`lineoffire.geometry.seal`); the lines it actually traced per
   second are printed too.  The whole
   matrix holds every pair in both orders, and the matrix searches line of
   effect once for both, so the sample is drawn as unordered pairs taken in
   both orders (``--ordered``: ordered pairs drawn independently, which
   almost never meet their mirror);
2. a per-pair loop calling ``pf1e.resolve`` (plan, trace, decide for one
   pair: how VTT modules work today) on the first ``--loop-pairs`` of the
   sample, extrapolated, and checks that it gives the same cover as the
   matrix (mismatches are printed);
3. a pure-Python exact traversal (``benchmarks/_baseline.py``: Fractions,
   solid squares and grid walls) on ``--baseline-lines`` of the sampled
   pairs' lines traced free (no creature attachment), against the engine's
   ``trace`` on the same free lines (whose ``stopped`` must agree);
4. the ratios, and the peak memory (the process's peak resident set after
   the matrix run minus its resident set just before; chunking bounds it,
   whatever the number of pairs).

Most distant pairs in a dense dungeon have total cover.  The matrix proves
most of them cut off with the cheap proof of :mod:`lineoffire.geometry.seal`
before drawing any line; the rest need the exact line-of-effect search (as
does ``resolve``, which uses the same proof before its search).  The sample
is spread over all pairs in range so the extrapolation includes every kind
of pair in its share.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from _baseline import GridWalker  # noqa: E402
from _dungeon import make_dungeon  # noqa: E402

from lineoffire.geometry import trace  # noqa: E402
from lineoffire.geometry.seal import sealed_pairs  # noqa: E402
from lineoffire.matrix import COVER_CODES, evaluate_pairs, pairs_in_range  # noqa: E402
from lineoffire.resolver import ruleset  # noqa: E402

SIZES = {
    "small": {"width": 200, "height": 200, "creatures": 1000, "range_sq": None, "pairs": 300},
    "large": {"width": 400, "height": 400, "creatures": 4000, "range_sq": 24, "pairs": 1000},
}
RULES = "pf1e"


def _maxrss_bytes() -> int:
    """The process's peak resident set so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _rss_bytes() -> int:
    """The process's resident set now (Linux /proc; else the peak so far)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize()
    except OSError:
        return _maxrss_bytes()


def _fmt_s(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=list(SIZES), default="small")
    ap.add_argument("--pairs", type=int, default=None,
                    help="seeded random sample of pairs for the matrix (0: all); default per size")
    ap.add_argument("--loop-pairs", type=int, default=200,
                    help="pairs for the per-pair resolve loop (first of the sample)")
    ap.add_argument("--baseline-lines", type=int, default=1500,
                    help="lines for the pure-Python traversal")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--ordered", action="store_true",
                    help="sample ordered pairs independently (default: unordered pairs, "
                         "both orders, as in the whole matrix)")
    args = ap.parse_args(argv)
    cfg = SIZES[args.size]
    n_sample = cfg["pairs"] if args.pairs is None else args.pairs

    t0 = time.perf_counter()
    bmap = make_dungeon(cfg["width"], cfg["height"], cfg["creatures"], seed=args.seed)
    n = len(bmap.creatures)
    range_ft = None if cfg["range_sq"] is None else cfg["range_sq"] * bmap.square_ft
    rows, cols = pairs_in_range(bmap, range(n), range(n), range_ft=range_ft)
    total = len(rows)
    print(f"dungeon {cfg['width']}x{cfg['height']}, {n} creatures, {len(bmap.walls)} walls, "
          f"{int((bmap.squares == 1).sum())} solid squares, seed {args.seed}; "
          f"range {'none' if range_ft is None else f'{range_ft:g} ft'}: {total:,} ordered pairs "
          f"(built in {time.perf_counter() - t0:.1f} s)")

    rng = np.random.default_rng(args.seed)
    if n_sample and n_sample < total and args.ordered:
        pick = np.sort(rng.choice(total, size=n_sample, replace=False))
        a_idx, t_idx = rows[pick].astype(np.int64), cols[pick].astype(np.int64)
        note = f"a seeded random sample of {n_sample:,} ordered pairs, extrapolated"
    elif n_sample and n_sample < total:
        # the range test is symmetric: every pair (a, t) with a < t has its mirror
        lower = np.flatnonzero(rows < cols)
        pick = np.sort(rng.choice(lower, size=max(n_sample // 2, 1), replace=False))
        a_idx = np.concatenate([rows[pick], cols[pick]]).astype(np.int64)
        t_idx = np.concatenate([cols[pick], rows[pick]]).astype(np.int64)
        note = (f"a seeded random sample of {len(pick):,} unordered pairs in both orders, "
                "extrapolated")
    else:
        a_idx, t_idx = rows.astype(np.int64), cols.astype(np.int64)
        note = "all pairs"
    # shuffle so the per-pair loop's first pairs are a fair sample too
    order = rng.permutation(len(a_idx))
    a_idx, t_idx = a_idx[order], t_idx[order]

    # ---------------------------------------------------------- 1. matrix
    mod = ruleset(RULES)
    ids = [c.id for c in bmap.creatures]
    # The lines the rules draw for the sampled pairs (untimed): what a
    # per-line approach traces to answer them.  The matrix answers for all of
    # them, though it draws none for the pairs it proves cut off.
    probe = min(len(a_idx), 5000)
    rule_lines = sum(len(mod.plan(bmap, ids[a], ids[b]))
                     for a, b in zip(a_idx[:probe].tolist(), t_idx[:probe].tolist()))
    rule_lines = round(rule_lines * len(a_idx) / max(probe, 1))
    rss0 = _rss_bytes()
    t = time.perf_counter()
    cover, bonus, _, planned, traced, chunks = evaluate_pairs(
        bmap, a_idx, t_idx, rules=RULES, chunk_size=args.chunk, keep_answers=False)
    t_mat = time.perf_counter() - t
    rss_growth = _maxrss_bytes() - rss0
    n_sealed = int(sealed_pairs(bmap, a_idx, t_idx).sum())
    m_pairs_s = len(a_idx) / t_mat
    m_lines_s = rule_lines / t_mat
    names = COVER_CODES[RULES]
    hist = Counter(names[c] for c in cover.tolist())
    print(f"\nmatrix ({note}; {chunks} chunk(s) of <= {args.chunk} pairs):")
    print(f"  {len(a_idx):,} pairs, the rules draw {rule_lines:,} lines for them"
          f"{'' if probe == len(a_idx) else f' (counted on {probe:,} pairs)'}; "
          f"{n_sealed:,} pairs ({n_sealed / max(len(a_idx), 1):.1%}) proved cut off with no "
          f"line drawn, {planned:,} lines drawn for the others, {traced:,} traced after dedupe; "
          f"in {t_mat:.2f} s")
    print(f"  {m_pairs_s:,.0f} pairs/s, {m_lines_s:,.0f} lines/s (the rules' lines answered), "
          f"{traced / t_mat:,.0f} lines traced/s")
    print("  cover: " + ", ".join(f"{k} {hist[k]}" for k in names if hist[k]))
    print(f"  whole matrix ({total:,} pairs): ~{_fmt_s(total / m_pairs_s)} on one core")
    print(f"  peak memory growth (max RSS): {rss_growth / 2**20:,.0f} MiB; results kept for the "
          f"whole matrix: {total * 3 / 2**20:,.1f} MiB (int8 code + int16 bonus per pair)")

    # ------------------------------------------------------- 2. per-pair loop
    k = min(args.loop_pairs, len(a_idx))
    t = time.perf_counter()
    loop = [mod.resolve(bmap, ids[a], ids[b])["cover"] for a, b in zip(a_idx[:k], t_idx[:k])]
    t_loop = time.perf_counter() - t
    l_pairs_s = k / t_loop
    l_lines_s = rule_lines * (k / len(a_idx)) / t_loop
    mism = [(ids[a], ids[b], x, names[c]) for a, b, x, c in
            zip(a_idx[:k], t_idx[:k], loop, cover[:k].tolist()) if x != names[c]]
    print(f"\nper-pair loop (pf1e.resolve on {k} of the sampled pairs, extrapolated):")
    print(f"  {l_pairs_s:,.1f} pairs/s (~{l_lines_s:,.0f} lines/s); whole matrix "
          f"~{_fmt_s(total / l_pairs_s)}")
    print(f"  matrix vs per-pair loop: same cover on {k - len(mism)}/{k} pairs, "
          f"{len(mism)} mismatches")
    for m in mism[:10]:
        print(f"    mismatch {m[0]} -> {m[1]}: loop {m[2]}, matrix {m[3]}")

    # ------------------------------------------------- 3. pure-Python traversal
    seg = []
    for a, b in zip(a_idx, t_idx):
        p = mod.plan(bmap, ids[a], ids[b])
        seg.append(p.segments)
        if sum(len(s) for s in seg) >= args.baseline_lines:
            break
    seg = np.concatenate(seg)[:args.baseline_lines]
    walker = GridWalker(bmap)
    t = time.perf_counter()
    base = walker.stopped_many(seg.tolist())
    t_base = time.perf_counter() - t
    b_lines_s = len(seg) / t_base
    t = time.perf_counter()
    eng = trace(bmap, seg)
    t_eng = time.perf_counter() - t
    agree = int((np.array(base) == eng.stopped).sum())
    print(f"\npure-Python exact traversal (free lines, solid squares and grid walls; "
          f"{len(seg):,} lines of the sample):")
    print(f"  {b_lines_s:,.0f} lines/s; engine trace() on the same free lines "
          f"{len(seg) / t_eng:,.0f} lines/s; 'stopped' agrees on {agree}/{len(seg)}")

    # ---------------------------------------------------------------- 4. ratios
    print("\nratios:")
    print(f"  matrix / per-pair loop:           {m_pairs_s / l_pairs_s:6.1f}x  (target >= 20x)")
    print(f"  matrix / pure-Python traversal:   {m_lines_s / b_lines_s:6.1f}x  (lines/s, the "
          f"rules' lines answered; target >= 100x)")
    print(f"  matrix lines traced / pure-Python: {traced / t_mat / b_lines_s:6.1f}x  (lines it "
          f"actually traced per s)")
    print(f"  engine trace / pure-Python:       {len(seg) / t_eng / b_lines_s:6.1f}x  "
          f"(tracing alone)")
    print(f"  peak memory growth: {rss_growth / 2**30:.2f} GiB (target < 2 GiB)")
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
