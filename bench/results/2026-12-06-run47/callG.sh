#!/usr/bin/env bash
# Run 47, call G (the check binary from scripts/carry-build.sh): call F's
# source view put 17.3% of the direct race's stall samples on the first use
# of each step's own load (the bf16 conversion of the unit's logits). Each
# step now loads the next step's unit first (TR_DIRECT_PREFETCH=1).
# 1. Timing with the A/A, plain at f32 and top-p 0.9 at f64, B = 64 / 256 /
#    1024, against TR_DIRECT_PREFETCH=0 (call B's default).
# 2. The CUDA check, invariance against TR_DIRECT_PREFETCH=0.
# Prediction: -10 to -17% at B >= 256 (f32 plain B = 1024 621 -> 520-560
# us), unless its registers spill in the loop.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=plain@f32,top_p0.9@f64 ROWS=64,256,1024 ITERS=30 LIMIT=120 \
    VARIANTS="TR_DIRECT_PREFETCH=0" NAME=pf-ab bash scripts/variant-ab.sh
date -u
check_experiment pf-check 120 --no-timing --diff-budget-s 25 --variant "TR_DIRECT_PREFETCH=0"
date -u
