#!/usr/bin/env bash
# Run 52, call B: on an H200, the benchmark grid (baselines, targets) of
# main's kernels since dc30be0 (sha256 0f59a343...), owed since runs 46 and
# 50 (the last H200 grid is run 42's; run 51's call B never ran), after
# call A. On any other GPU: call A alone.
# Carried: target/strip-grid (scripts/carry-build.sh at 7c5776a, kernels
# sha256 0f59a343..., for the grid) and target/strip-check (the check binary
# of call A's build, for the rest).
# Prediction (run 51's H100 grid against run 49's, run 46's A/B): exact
# plain as run 42's within the launch spread; bf16 top-p 0.83-0.94x of run
# 42's at B >= 64, so top-p <= 3x plain met at B = 1024; f32/f64 plain
# 0.84-0.86x queued at B <= 8, 0.91-0.95x at B >= 256.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
# Call A first (its variants may change a default); then, on an H200 only,
# the grid in the time left.
bash "$(dirname "$0")/callA.sh"
case "$gpu" in
*H200*) ;;
*) exit 0 ;;
esac
date -u
mkdir -p target/release && cp target/strip-grid/* target/release/
cat target/strip-grid/BUILT
ITERS=40 timeout 330 bash scripts/gpu-evidence.sh bench 2>&1 | tail -30
gzip -f "$OUT/report.json"
ls -la "$OUT"; date -u
