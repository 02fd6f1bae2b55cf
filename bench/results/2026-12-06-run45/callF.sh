#!/usr/bin/env bash
# Run 45, call F (the check binary from scripts/carry-build.sh): call E's
# phase clock put 6-15 us of the f32 histogram's last block in its select
# (bins read from L2 one lane-load after another) and 9-11 us of the
# gather's last block in the radix cut. New default: the select reads its
# bins from shared memory (TR_TOPP_SELECT_SMEM=1). Variant: the radix cut
# with 32-bit shared additions (TR_TOPP_CUT_RADIX=2).
# 1. The CUDA check of the new default, invariance against
#    TR_TOPP_SELECT_SMEM=0; the check of TR_TOPP_CUT_RADIX=2 on every list
#    (TR_TOPP_RADIX_MIN=0u).
# 2. Phase clocks, f32 top-p 0.9 at B = 1 / 8 / 256; B = 1 and 256 with
#    TR_TOPP_CUT_RADIX=2.
# 3. Timing with the A/A, f32 top-p 0.9 (T = 1), B = 1 / 8 / 64 / 256 /
#    1024: the select from L2; the 32-bit radix cut.
# Prediction: the select 6-15 -> 2-4 us, so the call -4 to -11 us at every
# B; the 32-bit radix cut -3 to -6 us a call.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment sel-check 170 --no-timing --diff-budget-s 45 --variant "TR_TOPP_SELECT_SMEM=0"
date -u
check_experiment r2-check 100 --no-timing --no-invariance --diff-budget-s 30 \
    --checked-define TR_TOPP_CUT_RADIX=2 --checked-define TR_TOPP_RADIX_MIN=0u
date -u
CONFIGS="1:0:0.9 8:0:0.9 256:0:0.9" BENCH_ARGS="--dtype f32" REPS=6 bash scripts/phase-run.sh
CONFIGS="1:0:0.9 256:0:0.9" BENCH_ARGS="--dtype f32" REPS=6 DEFINES="TR_TOPP_CUT_RADIX=2" TAG=-r2 bash scripts/phase-run.sh
date -u
MODES=top_p0.9 DTYPE=f32 ROWS=1,8,64,256,1024 ITERS=50 LIMIT=150 \
    VARIANTS="TR_TOPP_SELECT_SMEM=0|TR_TOPP_CUT_RADIX=2" NAME=sel-ab bash scripts/variant-ab.sh
date -u
