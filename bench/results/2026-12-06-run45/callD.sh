#!/usr/bin/env bash
# Run 45, call D (the check binary from scripts/carry-build.sh): call B's
# profile of the f32 histogram at B = 256 put 10% of its stall samples on
# the first use of its loads. Variants: the histogram's and the gather's
# loops prefetch their units 1 or 2 iterations ahead into L1
# (TR_TOPP_HIST_PF, TR_TOPP_GATHER_PF).
# 1. The CUDA check of both at 1 (so that a winner is checked), invariance
#    against the default.
# 2. Timing with the A/A, f32 top-p 0.9 (T = 1), B = 1 / 64 / 256 / 1024.
# Prediction: the histogram's prefetch 5-10% of its time at B >= 256 (8-15
# us at B = 256); the gather's within the A/A (its loop waits on little
# else than its loads, but those stream at the read rate already).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment pf-check 200 --no-timing --diff-budget-s 50 \
    --checked-define TR_TOPP_HIST_PF=1 --checked-define TR_TOPP_GATHER_PF=1 --variant "TR_TOPP_HIST_PF=0;TR_TOPP_GATHER_PF=0"
date -u
MODES=top_p0.9 DTYPE=f32 ROWS=1,64,256,1024 ITERS=50 LIMIT=200 \
    VARIANTS="TR_TOPP_HIST_PF=1|TR_TOPP_HIST_PF=2|TR_TOPP_GATHER_PF=1|TR_TOPP_GATHER_PF=2|TR_TOPP_HIST_PF=1;TR_TOPP_GATHER_PF=1" \
    NAME=pf-ab bash scripts/variant-ab.sh
date -u
