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
selected, 10 keys kept, 11 sorted, 12 min-p/top-p cut, 13 token written,
14 fused scan: thread 0's pilot value stored (its units loaded), 15 fused
scan: pilot threshold known (after its two barriers).
A pending top-p row's finish (kernels/topp.cu, tr_pend_finish) stamps the
same slots with its own meanings: 7 finish begun, 8 regions read, 9 the row
read again (where a region filled), 10 ranked, 11 raced, 12 the block's
best; built with TR_PEND_FINISH_TWICE it reads and ranks again, warm, and
stamps 9 for the second regions read and 13 for the second ranks, and 11 and
12 mean, in the first time, the cleared counts past their barrier and thread
0's first region load returned (the race and the block's best unstamped).

The binned top-p kernels (kernels/topp.cu) print the same line under their
own tags, read with `--tag`: tr_phase_hist (0 start, 1 tables cleared,
2 counted, 3 value masses, 4 middle masses, 5 counts flushed, 6 the row's
last block known, 7 selected, 8 located, 9 reset, 10 the row's record
found by a batch without a first pass (or selected again under
TR_TOPP_SELECT_TWICE; in such a batch's chunk blocks, which run no select,
11 is the chunk's scan done and 12 the partials exchanged), and inside the
select 11 thread 0's entries summed,
12 the block scan done, 13 the entry found) and tr_phase_gather (0 start,
1 gathered, 6 the row's last block known, 7 cut, 8 done, and inside the cut
9 the list's count loaded, 10 the list loaded, 12 ranks cleared, 13 thread
0's ranks counted, 11 ranked; in the radix cut of a longer list 11 the
keys' range known, 2 and 3 the first round's buckets counted and picked, 4
and 5 the second's, 12 and 13 the last's). In the cluster select of a batch without
a first pass (tr_topp_cluster_select; every block of the row runs it) the
histogram's slots mean: 5 the first cluster barrier passed (every block's
counts visible; "counts flushed"), 11 thread 0's entries summed, 12 the
second barrier passed (the shares exchanged; "the block scan done"), and,
only in the block whose share holds the target, 6 that block known, 13 the
entry found, 7 the row's record written. A row of one chunk has no slots 5 and 9; its
only block stamps 6 before the select. Slot numbers do not follow time
order; the stamps print in time order.
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
    "pilot stored",
    "pilot done",
]


# The top-p kernels' slots (kernels/topp.cu, tr_topp_hist and tr_topp_gather).
TAG_NAMES = {
    "tr_phase": NAMES,
    "tr_phase_hist": [
        "start",
        "cleared",
        "counted",
        "value masses",
        "middle masses",
        "flushed",
        "last known",
        "selected",
        "located",
        "reset",
        "record found / selected again",
        "select: summed (thread 0)",
        "select: scanned",
        "select: found",
    ],
    "tr_phase_gather": [
        "start",
        "gathered",
        "radix: round 1 counted",
        "radix: round 1 picked",
        "radix: round 2 counted",
        "radix: round 2 picked",
        "last known",
        "cut",
        "done",
        "count loaded",
        "list loaded",
        "ranked / radix: range known",
        "rank: cleared / radix: last round counted",
        "rank: counted (thread 0) / radix: last round picked",
    ],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("--ghz", type=float, default=1.98, help="SM clock for cycle -> us")
    ap.add_argument(
        "--tag",
        default="tr_phase",
        choices=sorted(TAG_NAMES),
        help="the kernel: the pass (tr_phase) or a top-p kernel",
    )
    args = ap.parse_args()
    names = TAG_NAMES[args.tag]
    f = sys.stdin if args.file == "-" else open(args.file)
    blocks = []
    for line in f:
        p = line.split()
        # 14 slots before run 59, 16 since (older logs still read).
        if len(p) not in (18, 20) or p[0] != args.tag:
            continue
        v = [int(x) for x in p[1:]]
        d = v[2:-1] + [-1] * (20 - len(p))
        blocks.append({"block": v[0], "g0": v[1], "d": d, "g_end": v[-1]})
    if not blocks:
        sys.exit("no %s lines (a build without TR_PHASE_PRINT?)" % args.tag)
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
            # In time order: the slot numbers need not follow it.
            stamped = []
            for s in range(len(names)):
                vals = [b["d"][s] for b in group if b["d"][s] >= 0]
                if vals:
                    stamped.append((statistics.median(vals), s))
            cells = ["%s %.2f" % (names[s], us(v)) for v, s in sorted(stamped)]
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
