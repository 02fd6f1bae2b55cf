#!/usr/bin/env bash
# Run 48, call B (the check binary of scripts/carry-build.sh with
# TR_DIRECT_LIVE=2 and TR_DIRECT_PILOT=1, carried as target/strip-check).
# 1. Timing with the A/A against TR_DIRECT_LIVE=0 (run 47's race), =1 (each
#    lane its own live elements) and TR_DIRECT_PILOT=0: f32 plain, f32
#    top-p 0.9, f64 min-p 0.05, B = 1 / 8 / 64 / 256 / 1024, bf16 V = 131072.
# 2. The CUDA check, invariance against run 47's race and against =1.
# Predictions: TR_DIRECT_LIVE=2 (the warp's elements at or above the cut,
# 32 a round) f32 top-p 0.9 B = 1024 925 -> 350-500 us per call (about a
# quarter of the grid's normal(0, 2) logits live) and min-p 0.05 883 ->
# 350-450 (run 47's H100 grid: exact 397), plain unchanged; =1 between the
# two at top-p (a warp waits for its lane of most live elements, about four
# of eight); TR_DIRECT_PILOT (a lane's largest bound scored first) plain f32
# B = 1 19.1 -> 13-16 us, B >= 256 within the A/A.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=plain@f32,top_p0.9@f32,min_p0.05@f64 ROWS=1,8,64,256,1024 ITERS=30 LIMIT=330 \
    VARIANTS="TR_DIRECT_LIVE=0|TR_DIRECT_LIVE=1|TR_DIRECT_PILOT=0" NAME=live-ab bash scripts/variant-ab.sh
date -u
check_experiment live-check 200 --no-timing --diff-budget-s 40 --variant "TR_DIRECT_LIVE=0;TR_DIRECT_PILOT=0" --variant "TR_DIRECT_LIVE=1"
date -u
