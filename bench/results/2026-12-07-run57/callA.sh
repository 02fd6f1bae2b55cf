#!/usr/bin/env bash
# Run 57, call A: the H200 grid of main's kernels (dc435e2d...), owed since
# run 54 (runs 53-54 changed the fused top-k path; the latest H200 grid is
# run 52's). Predictions (from the H100 A/Bs of runs 53-54 scaled to the
# H200): top-k 50 + top-p 0.9 at B = 8 about 23 us per call and 22.4 queued
# (run 52: 25.6 / 24.3; the sort path's 20x needs 23.2); plain and top-p
# within the A/A of run 52 (no change to their kernels). Then host-cost on
# the H200 (run 55 measured it on H100s only): an empty launch's host time
# is predicted at 2-4 us, the sampler's within 0.3 us of it.
# Not an H200: nothing is run (the H100 grid of these kernels is run 54's
# call G), so the call costs its start alone.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; cat target/strip/BUILT; date -u
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    echo "not an H200: nothing run"; exit 0
fi
mkdir -p /tmp/grid
OUT=/tmp/grid ITERS=40 timeout 330 bash scripts/gpu-evidence.sh bench > /tmp/grid/bench.out 2>&1
echo "== grid exit $?"
tail -n 45 /tmp/grid/bench.out
tar -C /tmp -czf "$OUT/grid.tgz" grid
date -u
mkdir -p "$OUT/host"
timeout 150 target/release/tailrace-cuda-check --iters 40 --out "$OUT/host/it40.json" host-cost \
    --rows 1,8,64,256 --mode plain,top_k50_top_p0.9,top_p0.9,greedy > "$OUT/host/it40.log" 2>&1
echo "== host-cost exit $?"
grep -E "timed:" "$OUT/host/it40.log" | sed -e 's/^\[[^]]*\]  *//'
tar -C "$OUT" -czf "$OUT/host.tgz" host && rm -rf "$OUT/host"
ls -la "$OUT"; date -u
