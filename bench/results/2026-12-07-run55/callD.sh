#!/usr/bin/env bash
# Run 55, call D: call C found the sampler's host time (2.4-3.0 us a call,
# two launches of top-p 4.7-5.9) no longer than an empty launch's (2.2-3.1
# us), and per call minus queued 1.0-1.6 us for one batch timed again and
# again, as for the empty kernel; run 54's grid had 2.0-3.4 us. host-cost now
# also times each configuration as the grid does (`time_cfg`: the logits
# rotated through a 4 GiB pool). Prediction: the rotated per-call times
# 1-1.5 us above the unrotated, the queued ones the same (--iters 40, the
# grid's). On an H200, the owed grid first (callC.sh).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
if [ "${NO_GRID:-0}" != 1 ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    mkdir -p /tmp/grid
    OUT=/tmp/grid ITERS=40 timeout 300 bash scripts/gpu-evidence.sh bench > /tmp/grid/bench.out 2>&1
    tail -n 45 /tmp/grid/bench.out
    tar -C /tmp -czf "$OUT/grid.tgz" grid
else
    echo "grid skipped (not an H200, or NO_GRID=1)"
fi
mkdir -p "$OUT/host"
for it in 40; do
    timeout 200 target/release/tailrace-cuda-check --iters $it --out "$OUT/host/it$it.json" host-cost \
        --rows 1,8,64,256 --mode plain,top_k50_top_p0.9,top_p0.9,greedy > "$OUT/host/it$it.log" 2>&1
    echo "== iters $it exit $?"
    grep -E "timed:" "$OUT/host/it$it.log" | sed -e 's/^\[[^]]*\]  *//'
done
tar -C "$OUT" -czf "$OUT/host.tgz" host && rm -rf "$OUT/host"
date -u
ls -la "$OUT"; date -u
