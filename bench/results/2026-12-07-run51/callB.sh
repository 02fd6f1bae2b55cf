#!/usr/bin/env bash
# Run 51, call B: the benchmark grid (baselines, targets) of main's kernels
# since dc30be0 (sha256 0f59a343...) on an H200, the GPU the targets
# are stated for; the last H200 grid is run 42's, before run 46's bf16
# top-p histogram and run 50's warp pilot. Same binaries as call A
# (scripts/carry-build.sh, carried as target/strip).
# Prediction (call A's H100 grid against run 49's, run 46's A/B): exact
# plain as run 42's within the launch spread; bf16 top-p 0.83-0.94x of run
# 42's at B >= 64, so top-p <= 3x plain now met at B = 1024; f32/f64 plain
# 0.84-0.86x queued at B <= 8, 0.91-0.95x at B >= 256.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/strip/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
# An H100 grid of these kernels is call A's: on another GPU, stop here.
case "$gpu" in *H200*) ;; *) echo "not an H200: no grid"; exit 0 ;; esac
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -30
gzip -f "$OUT/report.json"
ls "$OUT"; date -u
