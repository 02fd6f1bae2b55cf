#!/usr/bin/env bash
# Run 44, call F (the check binary from scripts/carry-build.sh): call E
# measured the new f32/f16 top-p histogram loop slower at small batches (f32
# top-p 0.9 per call, T = 1: +1.7 us at B = 1, +8.9 at B = 8; T = 0.7: +4.4,
# +9.3), where a block's chunk is about 2,000 elements, and faster from B =
# 64 (chunks of 16,384). TR_TOPP_LEAN_MIN=16384u keeps the loop of run 43
# for chunks shorter than 16,384 elements.
# 1. The CUDA check of the build with TR_TOPP_LEAN_MIN=16384u.
# 2. Timing with the A/A, f32 top-p 0.9 at T = 1 and 0.7, B = 1 / 8 / 64:
#    the gate, and the 15-bit pieces off (TR_TOPP_SUM15=0, whose larger
#    shared sums are the other difference at small B).
# Prediction: the gate recovers B = 1 and 8 (within 2 us of run 43's path)
# and leaves B = 64 as the default; SUM15=0 within the A/A at B <= 64.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment gate-check 200 --no-timing --diff-budget-s 60 --checked-define TR_TOPP_LEAN_MIN=16384u
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,8,64 ITERS=50 LIMIT=150 \
    VARIANTS="TR_TOPP_LEAN_MIN=16384u|TR_TOPP_SUM15=0" NAME=gate-ab bash scripts/variant-ab.sh
date -u
