#!/usr/bin/env bash
# Run 55, call B: where the host's share of a per-call time goes
# (`tailrace-cuda-check host-cost`, new in this run), on main's kernels
# (dc435e2d...). Per call minus queued is 2.0-3.4 us in every record of run
# 54's H100 grid and 1.2 us for the empty kernel: the GPU waits for the
# host's submission of the call. Prediction: the sampler's host time a call
# about 1-2 us above an empty launch of the same form (cuLaunchKernelEx with
# the PDL attribute and the argument block), made of the kernel attribute
# read each call and the launch itself; the back-to-back host time about the
# same as from an idle stream.
# Check binary of scripts/carry-build.sh, carried as target/strip-check.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
mkdir -p "$OUT/host"
timeout 240 "$BIN" --iters 400 --out "$OUT/host/host-cost.json" host-cost \
    --rows 1,8,64,256 --mode plain,top_k50_top_p0.9,top_p0.9,greedy > "$OUT/host/host-cost.log" 2>&1
echo "host-cost exit $?"
cat "$OUT/host/host-cost.log"
date -u
