#!/usr/bin/env bash
# Run 44, call E (the check binary from scripts/carry-build.sh): the CUDA
# check of the default as committed after call D (the f32/f16 histogram loop
# of call A, the gather's staged list of call D, the cut's bitonic sort above
# 512 elements as before run 44), with invariance against the f32/f16 path
# of run 43 (TR_TOPP_MASS_INLINE=1, TR_TOPP_SUM15=0, TR_TOPP_GATHER_STAGE=0);
# then the f32 top-p timing of the default against that path, with the A/A.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment final-check 200 --no-timing --diff-budget-s 60 \
    --variant "TR_TOPP_MASS_INLINE=1;TR_TOPP_SUM15=0;TR_TOPP_GATHER_STAGE=0"
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,8,64,256,1024 ITERS=50 LIMIT=200 \
    VARIANTS="TR_TOPP_MASS_INLINE=1;TR_TOPP_SUM15=0;TR_TOPP_GATHER_STAGE=0" \
    NAME=final-ab bash scripts/variant-ab.sh
date -u
