#!/usr/bin/env python3
"""Summarizes the phase clock of the pass kernel: the `tr_phase` lines that a
build with TR_PHASE_PRINT prints (kernels/common.cuh), e.g.

    tailrace-cuda-check --checked-define TR_PHASE_PRINT=1 \\
        bench --rows 1 --top-k 50 --top-p 0.9 --reps 5 | python3 scripts/phase-clock.py

Lines are grouped into launches by their global timer: the grid is the
largest block index plus one, and each run of that many blocks in start
order is a launch. For every launch after the first (a warm-up) it prints the launch's span (first block start to last
block end, global timer), the median over its chunk blocks of each slot's SM
clock since the block began, and the stamps of the block that finished the
row (the one whose slot 6 is set). Cycles are converted at `--ghz`.

Slots: 0 block start, 1 fused scan loop done, 2 chunk threshold, 3 chunk list
written, 4 scan or race done, 5 chunk counted (row's last block known),
6 row combined, 7 finish: row threshold, 8 lists gathered, 9 row threshold
selected, 10 keys kept, 11 sorted, 12 min-p/top-p cut, 13 token written.
"""
import argparse
import statistics
import sys

NAMES = [
    "start",
    "scan loop",
    "chunk select",
    "chunk list",
    "scan/race",
    "counted",
    "combined",
    "finish: rt",
    "gathered",
    "row select",
    "kept",
    "sorted",
    "cut",
    "token",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("--ghz", type=float, default=1.98, help="SM clock for cycle -> us")
    args = ap.parse_args()
    f = sys.stdin if args.file == "-" else open(args.file)
    blocks = []
    for line in f:
        p = line.split()
        if len(p) != 18 or p[0] != "tr_phase":
            continue
        v = [int(x) for x in p[1:]]
        blocks.append({"block": v[0], "g0": v[1], "d": v[2:16], "g_end": v[16]})
    if not blocks:
        sys.exit("no tr_phase lines (a build without TR_PHASE_PRINT?)")
    blocks.sort(key=lambda b: b["g0"])
    grid = max(b["block"] for b in blocks) + 1
    launches = [blocks[i : i + grid] for i in range(0, len(blocks), grid)]
    us = lambda c: c / (args.ghz * 1000.0)
    print("%d launches of %s blocks" % (len(launches), sorted({len(l) for l in launches})))
    for n, l in enumerate(launches[1:] if len(launches) > 1 else launches, 1):
        g0 = min(b["g0"] for b in l)
        span = (max(b["g_end"] for b in l) - g0) / 1000.0
        starts = sorted((b["g0"] - g0) / 1000.0 for b in l)
        print(
            "launch %d: %d blocks, span %.1f us (global timer), block starts %.1f..%.1f us"
            % (n, len(l), span, starts[0], starts[-1])
        )
        last = [b for b in l if b["d"][6] >= 0]
        chunk = [b for b in l if b["d"][6] < 0]
        for name, group in (("chunk blocks (median)", chunk), ("row's last block", last[:1])):
            if not group:
                continue
            cells = []
            for s in range(len(NAMES)):
                vals = [b["d"][s] for b in group if b["d"][s] >= 0]
                if vals:
                    cells.append("%s %.2f" % (NAMES[s], us(statistics.median(vals))))
            extra = ""
            if name.startswith("row"):
                b = group[0]
                extra = " (began %.1f us after the first block, ended at %.1f)" % (
                    (b["g0"] - g0) / 1000.0,
                    (b["g_end"] - g0) / 1000.0,
                )
            print("  %s%s:\n    %s" % (name, extra, ", ".join(cells)))


if __name__ == "__main__":
    main()
