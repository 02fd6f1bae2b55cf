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
        # 15 fields; 12 in the first builds of run 19 (no cycle sums).
        if len(f) not in (12, 15) or f[0] != "tr_warp":
            continue
        r = dict(zip(("block", "warp", "sm", "loop", "total", "g0", "g1", "steps", "rare", "queued", "final_q",
                      "rare_cyc", "raises", "raise_cyc"), map(int, f[1:])))
        r.setdefault("rare_cyc", None)
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


def stats(rows, ghz):
    """The launch's figures as a dict (times in us, shares in %)."""
    us = lambda c: c / ghz / 1000.0
    loops = [r["loop"] for r in rows]
    blocks = {}
    for r in rows:
        blocks.setdefault(r["block"], []).append(r)
    # Barrier share: cycles a warp waits for its block's slowest loop.
    wait = sum(max(w["loop"] for w in ws) - w["loop"] for ws in blocks.values() for w in ws)
    busy = sum(max(w["loop"] for w in ws) * len(ws) for ws in blocks.values())
    t0 = min(r["g0"] for r in rows)
    spans = [max(w["g1"] for w in ws) - min(w["g0"] for w in ws) for ws in blocks.values()]
    ends = {b: max(w["g1"] for w in ws) - t0 for b, ws in blocks.items()}
    starts = {b: min(w["g0"] for w in ws) - t0 for b, ws in blocks.items()}
    last = max(ends, key=ends.get)
    cyc = all(r["rare_cyc"] is not None for r in rows)
    rs = sum(r["rare"] for r in rows)
    ra = sum(r["raises"] for r in rows) if cyc else 0
    by_rare = {}
    for r in rows:
        by_rare.setdefault(r["rare"], []).append(us(r["loop"]))
    per_sm = {}
    sms = {}
    for b, ws in blocks.items():
        sms.setdefault(ws[0]["sm"], []).append(b)
    for bs in sms.values():
        per_sm.setdefault(len(bs), []).append(max(ends[b] for b in bs) / 1e3)
    # Loop cycles against the counts that vary between warps (a constant
    # count would only split the intercept).
    names = [n for n in ("steps", "rare", "queued") if len({r[n] for r in rows}) > 1]
    c = fit(rows, names) if names else None
    return {
        "warps": len(rows),
        "blocks": len(blocks),
        "steps": statistics.median(r["steps"] for r in rows),
        "loop_us": [us(pct(loops, q)) for q in (0.1, 0.5, 0.9)] + [us(max(loops))],
        "rare_mean": statistics.mean(r["rare"] for r in rows),
        "rare_max": max(r["rare"] for r in rows),
        "queued_mean": statistics.mean(r["queued"] for r in rows),
        "queued_max": max(r["queued"] for r in rows),
        "final_q_mean": statistics.mean(r["final_q"] for r in rows),
        "cycles_per_rare": sum(r["rare_cyc"] for r in rows) / max(rs, 1) if cyc else None,
        "rare_share": 100.0 * sum(r["rare_cyc"] for r in rows) / sum(loops) if cyc else None,
        "raises_mean": ra / len(rows) if cyc else None,
        "cycles_per_raise": sum(r["raise_cyc"] for r in rows) / max(ra, 1) if cyc else None,
        "slowest_over_mean": statistics.mean(
            max(w["loop"] for w in ws) / statistics.mean(w["loop"] for w in ws) for ws in blocks.values()),
        "barrier_share": 100.0 * wait / busy,
        "after_loop_us": [us(statistics.median(r["total"] - r["loop"] for r in rows)),
                          us(max(r["total"] - r["loop"] for r in rows))],
        "span_us": [pct(spans, q) / 1e3 for q in (0.1, 0.5, 0.9)] + [max(spans) / 1e3],
        "last_end_us": ends[last] / 1e3,
        "last_start_us": starts[last] / 1e3,
        "median_end_us": statistics.median(ends.values()) / 1e3,
        "per_sm": {n: (len(es), statistics.median(es), max(es)) for n, es in sorted(per_sm.items())},
        "loop_by_rare": {k: (len(v), statistics.mean(v)) for k, v in sorted(by_rare.items())},
        "fit": dict(zip(["intercept"] + names, c)) if c else {},
    }


def summarize(rows, ghz):
    d = stats(rows, ghz)
    print(f"  warps {d['warps']}, blocks {d['blocks']}, steps a warp {d['steps']}")
    p10, p50, p90, mx = d["loop_us"]
    print(f"  warp loop us: p10 {p10:.2f} p50 {p50:.2f} p90 {p90:.2f} max {mx:.2f}")
    print(f"  rare steps a warp: mean {d['rare_mean']:.2f} max {d['rare_max']}; queued mean "
          f"{d['queued_mean']:.1f} max {d['queued_max']}; final queue mean {d['final_q_mean']:.1f}")
    if d["cycles_per_rare"] is not None:
        print(f"  in rare steps: {d['cycles_per_rare']:.0f} cycles a rare step, {d['rare_share']:.1f}% of the "
              f"loops; raises a warp {d['raises_mean']:.2f}, {d['cycles_per_raise']:.0f} cycles a cutoff "
              f"computation")
    print(f"  block: slowest loop / mean loop {d['slowest_over_mean']:.3f} (mean over blocks); warps wait "
          f"at the barrier {d['barrier_share']:.1f}% of the loops' span")
    print(f"  after the loop (barrier, flush) us: p50 {d['after_loop_us'][0]:.2f} max {d['after_loop_us'][1]:.2f}")
    s10, s50, s90, smx = d["span_us"]
    print(f"  block span us (global timer): p10 {s10:.2f} p50 {s50:.2f} p90 {s90:.2f} max {smx:.2f}; last "
          f"block ends at {d['last_end_us']:.2f} us (started {d['last_start_us']:.2f}); median end "
          f"{d['median_end_us']:.2f}")
    for n, (count, med, mx) in d["per_sm"].items():
        print(f"  SMs with {n} block(s): {count}, their last end us p50 {med:.2f} max {mx:.2f}")
    print("  warp loop us by rare steps: " + ", ".join(
        f"{k}: {m:.2f} ({n})" for k, (n, m) in d["loop_by_rare"].items()))
    if d["fit"]:
        unit = {"intercept": "", "steps": " a step", "rare": " a rare step", "queued": " a queued entry"}
        print("  loop cycles ~ " + " + ".join(f"{v:.1f}{unit[k]}" for k, v in d["fit"].items()))


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
