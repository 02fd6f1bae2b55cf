#!/usr/bin/env bash
# Run 45, call G (the three binaries of scripts/carry-build.sh, carried as
# target/strip): the final default of run 45 (the 32-bit radix cut, the late
# gather, the dynamic mass sums, the select from shared memory).
# 1. The CUDA check of the default, invariance against run 44's f32/f16
#    path (the four knobs off).
# 2. Timing with the A/A, f32 top-p 0.9 at T = 1 and 0.7, B = 1 - 1024,
#    against run 44's path, in one process (the run's headline figures).
# 3. The conformance full tier on the CUDA backend
#    (scripts/gpu-evidence.sh sampler).
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
R44="TR_TOPP_CUT_RADIX=0;TR_TOPP_GATHER_LATE=0;TR_TOPP_SUM_DYN=0;TR_TOPP_SELECT_SMEM=0"
check_experiment final-check 150 --no-timing --diff-budget-s 40 --variant "$R44"
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,8,64,256,1024 ITERS=50 LIMIT=120 \
    VARIANTS="$R44" NAME=final-ab bash scripts/variant-ab.sh
date -u
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -25
date -u
