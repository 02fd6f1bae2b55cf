#!/usr/bin/env python3
"""Summarizes the warp clock of the exact race: the `tr_warp` lines that a
build with TR_WARP_PRINT prints (kernels/common.cuh, WarpClock), e.g.

    tailrace-cuda-check --checked-define TR_WARP_PRINT=1 \\
        bench --rows 256 --reps 4 | python3 scripts/warp-clock.py

Each line: block, warp, SM, the SM cycles of the warp's loop and of its
whole race (loop, barrier, final flush), the global timer at its start and
end, its steps, rare steps, queued candidates, the queue left for the
final flush, the cycles spent in its rare steps, its raises of the
threshold and the cycles of their cutoff computations. A launch ends where a (block, warp) pair repeats. For every
launch after the first (a warm-up) it prints how the warps' loops spread,
how long the block barrier after the loop holds a block's warps, how the
blocks' spans spread (the slowest block ends the kernel), and what a rare
step and a queued candidate cost by a least-squares fit of a warp's loop
cycles.
"""
import argparse
import statistics
import sys


def launches(lines):
    cur, seen = [], set()
    for ln in lines:
        f = ln.split()
        if len(f) != 15 or f[0] != "tr_warp":
            continue
        r = dict(zip(("block", "warp", "sm", "loop", "total", "g0", "g1", "steps", "rare", "queued", "final_q",
                      "rare_cyc", "raises", "raise_cyc"), map(int, f[1:])))
        key = (r["block"], r["warp"])
        if key in seen:
            yield cur
            cur, seen = [], set()
        seen.add(key)
        cur.append(r)
    if cur:
        yield cur


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def fit(rows, names):
    """Least squares of loop cycles on 1 and the named counts (normal equations)."""
    xs = [[1.0] + [float(r[n]) for n in names] for r in rows]
    ys = [float(r["loop"]) for r in rows]
    k = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    b = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    for i in range(k):  # Gauss-Jordan with partial pivoting
        p = max(range(i, k), key=lambda r: abs(a[r][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        if abs(a[i][i]) < 1e-12:
            return None
        for r in range(k):
            if r != i:
                m = a[r][i] / a[i][i]
                a[r] = [u - m * v for u, v in zip(a[r], a[i])]
                b[r] -= m * b[i]
    return [b[i] / a[i][i] for i in range(k)]


def summarize(rows, ghz):
    us = lambda c: c / ghz / 1000.0
    loops = [r["loop"] for r in rows]
    blocks = {}
    for r in rows:
        blocks.setdefault(r["block"], []).append(r)
    # Barrier share: cycles a warp waits for its block's slowest loop.
    wait = sum(max(w["loop"] for w in ws) - w["loop"] for ws in blocks.values() for w in ws)
    busy = sum(max(w["loop"] for w in ws) * len(ws) for ws in blocks.values())
    t0 = min(r["g0"] for r in rows)
    spans = {b: (max(w["g1"] for w in ws) - min(w["g0"] for w in ws)) for b, ws in blocks.items()}
    ends = {b: max(w["g1"] for w in ws) - t0 for b, ws in blocks.items()}
    starts = {b: min(w["g0"] for w in ws) - t0 for b, ws in blocks.items()}
    bmax = {b: max(w["loop"] for w in ws) for b, ws in blocks.items()}
    bmean = {b: statistics.mean(w["loop"] for w in ws) for b, ws in blocks.items()}
    last = max(ends, key=ends.get)
    print(f"  warps {len(rows)}, blocks {len(blocks)}, steps a warp {statistics.median(r['steps'] for r in rows)}")
    print(f"  warp loop us: p10 {us(pct(loops, .1)):.2f} p50 {us(pct(loops, .5)):.2f} "
          f"p90 {us(pct(loops, .9)):.2f} max {us(max(loops)):.2f}")
    print(f"  rare steps a warp: mean {statistics.mean(r['rare'] for r in rows):.2f} "
          f"max {max(r['rare'] for r in rows)}; queued mean {statistics.mean(r['queued'] for r in rows):.1f} "
          f"max {max(r['queued'] for r in rows)}; final queue mean "
          f"{statistics.mean(r['final_q'] for r in rows):.1f}")
    rs = sum(r["rare"] for r in rows)
    ra = sum(r["raises"] for r in rows)
    print(f"  in rare steps: {sum(r['rare_cyc'] for r in rows) / max(rs, 1):.0f} cycles a rare step, "
          f"{100.0 * sum(r['rare_cyc'] for r in rows) / sum(loops):.1f}% of the loops; raises a warp "
          f"{ra / len(rows):.2f}, {sum(r['raise_cyc'] for r in rows) / max(ra, 1):.0f} cycles a cutoff computation")
    print(f"  block: slowest loop / mean loop {statistics.mean(bmax[b] / bmean[b] for b in blocks):.3f} "
          f"(mean over blocks); warps wait at the barrier {100.0 * wait / busy:.1f}% of the loops' span")
    print(f"  after the loop (barrier, flush) us: p50 "
          f"{us(statistics.median(r['total'] - r['loop'] for r in rows)):.2f} "
          f"max {us(max(r['total'] - r['loop'] for r in rows)):.2f}")
    sp = list(spans.values())
    print(f"  block span us (global timer): p10 {pct(sp, .1) / 1e3:.2f} p50 {pct(sp, .5) / 1e3:.2f} "
          f"p90 {pct(sp, .9) / 1e3:.2f} max {max(sp) / 1e3:.2f}; last block ends at "
          f"{ends[last] / 1e3:.2f} us (started {starts[last] / 1e3:.2f}); median end "
          f"{statistics.median(ends.values()) / 1e3:.2f}")
    sms = {}
    for b, ws in blocks.items():
        sms.setdefault(ws[0]["sm"], []).append(b)
    per_sm = {}
    for sm, bs in sms.items():
        per_sm.setdefault(len(bs), []).append(max(ends[b] for b in bs))
    for n, es in sorted(per_sm.items()):
        print(f"  SMs with {n} block(s): {len(es)}, their last end us p50 {statistics.median(es) / 1e3:.2f} "
              f"max {max(es) / 1e3:.2f}")
    c = fit(rows, ["steps", "rare", "queued"])
    if c:
        print(f"  loop cycles ~ {c[0]:.0f} + {c[1]:.1f} a step + {c[2]:.1f} a rare step + {c[3]:.1f} a queued entry")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", help="the bench output (default: stdin)")
    ap.add_argument("--ghz", type=float, default=1.98, help="SM clock for cycles -> us (default 1.98)")
    args = ap.parse_args()
    lines = open(args.file).read().splitlines() if args.file else sys.stdin.read().splitlines()
    ls = list(launches(lines))
    if not ls:
        sys.exit("no tr_warp lines (a build with TR_WARP_PRINT?)")
    for n, rows in enumerate(ls):
        if n == 0 and len(ls) > 1:
            continue
        print(f"launch {n}:")
        summarize(rows, args.ghz)


if __name__ == "__main__":
    main()
