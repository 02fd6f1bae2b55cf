#!/usr/bin/env bash
# Run 47, call B (the check binary from scripts/carry-build.sh): call A
# timed the eight-chain loop at most 5% faster than the one-by-one loop (f32
# profile B = 1024 1238 -> 1184 us per call, H100), so neither is bound by
# the element's chain of Philox and bound. What both share: each lane prunes
# with its own best alone, so a lane evaluates about ln(elements) + 1 record
# scores (binary64 logarithms, ~1,000 cycles each) at its own steps, and the
# warp waits for each. The lanes now share a threshold (TR_DIRECT_WARP=1):
# the warp's best scores' largest key, refreshed every step.
# 1. The CUDA check of the new default, invariance against TR_DIRECT_WORDS=0
#    (the one-by-one loop) and TR_DIRECT_WARP=0 (call A's default).
# 2. Timing with the A/A: plain at f32 / f64 and top-p 0.9 at f64, B = 1 /
#    8 / 64 / 256 / 1024, against both.
# Prediction (H100, per call, bf16 V = 131072): f32 plain B = 1024 1184 ->
# 250-400 us, B = 256 316 -> 80-120, B = 64 140 -> 30-45, B = 1 20 -> 12-15.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment warp-check 230 --no-timing --diff-budget-s 40 --variant "TR_DIRECT_WORDS=0" --variant "TR_DIRECT_WARP=0"
date -u
MODES=plain@f32,plain@f64,top_p0.9@f64 ROWS=1,8,64,256,1024 ITERS=40 LIMIT=250 \
    VARIANTS="TR_DIRECT_WORDS=0|TR_DIRECT_WARP=0" NAME=warp-ab bash scripts/variant-ab.sh
date -u
