#!/usr/bin/env bash
# Run 55, call C: call B's host-cost processes (old, new, new, old; see
# callB.sh for the prediction), and, on an H200 only, the grid of main's
# kernels (dc435e2d..., the build run 54's call G checked; owed since run
# 54's call D, whose prediction stands: top-k 50 + top-p 0.9 at B = 8 about
# 23.0 us per call and 22.4 queued, the sort path's 20x needing about 23.2),
# now with the host's time in each per-call record.
# Binaries of scripts/carry-build.sh, carried as target/strip, and the check
# binary of fc60dca as target/old-check.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cp target/old-check/tailrace-cuda-check target/release/tailrace-cuda-check-old
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
mkdir -p "$OUT/host"
n=0
for b in old new new old; do
    n=$((n + 1))
    bin=target/release/tailrace-cuda-check; [ $b = old ] && bin=target/release/tailrace-cuda-check-old
    timeout 150 "$bin" --iters 300 --out "$OUT/host/$n-$b.json" host-cost \
        --rows 1,8,64,256 --mode plain,top_k50_top_p0.9,top_p0.9,greedy > "$OUT/host/$n-$b.log" 2>&1
    echo "== $n $b exit $?"
    grep -E "median|per call" "$OUT/host/$n-$b.log" | sed -e 's/^\[[^]]*\]  *//' | grep -v "back to back\|reserve"
done
tar -C "$OUT" -czf "$OUT/host.tgz" host && rm -rf "$OUT/host"
date -u
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    mkdir -p /tmp/grid
    OUT=/tmp/grid ITERS=40 timeout 300 bash scripts/gpu-evidence.sh bench > /tmp/grid/bench.out 2>&1
    tail -n 45 /tmp/grid/bench.out
    tar -C /tmp -czf "$OUT/grid.tgz" grid
else
    echo "not an H200: grid skipped"
fi
ls -la "$OUT"; date -u
