#!/usr/bin/env bash
# Run 44, call D (the check binary from scripts/carry-build.sh): the f32/f16
# gather after call B's profile (B = 256, H100: the loop 67 us against a
# read of about 40, its global atomic a pushed element 11.8% of the stall
# samples; the last block's bitonic sort of b*'s ~900 elements 37 us).
# New defaults: a block stages its elements of b* in shared memory and
# appends them with one global atomic (TR_TOPP_GATHER_STAGE=1), and the cut
# sorts lists of up to 1,024 elements by ranks (TR_TOPP_RANK_MAX).
# 1. The CUDA check of the new default (invariance against the old gather),
#    and a check with TR_TOPP_CAP=64 (most lists over the cap: the staged
#    counts past it, the fallback; ranks of lists of 17-32 placed in two
#    steps).
# 2. Timing with the A/A: f32 top-p 0.9 B = 1 / 64 / 256 / 1024 (bf16, f16
#    at 256) against the old gather and each change alone.
# Prediction: gather at B = 256 138 -> about 95 us (loop 67 -> 45, cut 37
# -> 17), per call 398 -> about 355 us; B = 1024 -> about -60 us; B = 1
# within 3 us; bf16 within the A/A.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment stage-check 200 --no-timing --diff-budget-s 60 \
    --variant "TR_TOPP_GATHER_STAGE=0;TR_TOPP_RANK_MAX=512u"
date -u
check_experiment cap64-check 150 --no-timing --no-invariance --diff-budget-s 40 --checked-define TR_TOPP_CAP=64
date -u
MODES=top_p0.9 DTYPE=f32 ROWS=1,64,256,1024 ITERS=50 LIMIT=200 \
    VARIANTS="TR_TOPP_GATHER_STAGE=0;TR_TOPP_RANK_MAX=512u|TR_TOPP_GATHER_STAGE=0|TR_TOPP_RANK_MAX=512u" \
    NAME=stage-ab bash scripts/variant-ab.sh
date -u
