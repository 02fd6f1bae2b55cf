#!/usr/bin/env bash
# Run 45, call A (the check binary from scripts/carry-build.sh at 863b236):
# the f32/f16 top-p gather after run 44's profile (B = 256, H100: the last
# block's bitonic sort of b*'s ~900 elements 37 us; the masses a warp
# computed one lane at a time inside the loop, a fifth of its instructions)
# and the fifth mass piece's static shared memory (4-6 us at B <= 256).
# New defaults: the cut of a list over 64 elements by radix selection
# (TR_TOPP_CUT_RADIX=1), the gather's tests and masses after its loop
# (TR_TOPP_GATHER_LATE=1), the histogram's mass sums in dynamic shared
# memory (TR_TOPP_SUM_DYN=1).
# 1. The CUDA check of the new default, invariance against the three off.
# 2. Checks of the radix cut on every list (TR_TOPP_RADIX_MIN=0u), once at
#    the default cap and once with TR_TOPP_CAP=64 (most lists over the cap;
#    the late gather's over-cap path).
# 3. Timing with the A/A: f32 top-p 0.9 at T = 1 and 0.7, B = 1 - 1024,
#    against the three off, each off alone, and four gather units a thread.
# Prediction (H100, per call): B = 256 386 -> about 345 us (cut 37 -> 5,
# loop a few us, sums 4); B = 1024 1248 -> about 1150; B = 1 and 8 -3 to
# -8 us (one cut on the chain); bf16 untouched.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
OLD="TR_TOPP_CUT_RADIX=0;TR_TOPP_GATHER_LATE=0;TR_TOPP_SUM_DYN=0"
check_experiment radix-check 200 --no-timing --diff-budget-s 60 --variant "$OLD"
date -u
check_experiment radix0-check 100 --no-timing --no-invariance --diff-budget-s 30 \
    --checked-define TR_TOPP_RADIX_MIN=0u
date -u
check_experiment radix0-cap64-check 100 --no-timing --no-invariance --diff-budget-s 30 \
    --checked-define TR_TOPP_RADIX_MIN=0u --checked-define TR_TOPP_CAP=64
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,8,64,256,1024 ITERS=50 LIMIT=180 \
    VARIANTS="$OLD|TR_TOPP_CUT_RADIX=0|TR_TOPP_GATHER_LATE=0|TR_TOPP_SUM_DYN=0|TR_TOPP_GATHER_UNITS=4" \
    NAME=radix-ab bash scripts/variant-ab.sh
date -u
