#!/usr/bin/env bash
# Run 47, call E (the check binary of call B, d0d9b46): call D's Nsight of
# the f32 profile's plain B = 1024 (620.7 us): 4 warps a scheduler
# (128 registers: two 256-thread blocks an SM), issue slots 47% busy, the
# stalls mostly fixed-latency waits (2.26 a issue) and loads (1.31), the
# multiply pipe (fmaheavy) 55.7% active. More warps should hide the chains'
# latency: the generic pass kernel built for three or four blocks an SM.
# 1. Timing with the A/A of TR_PASS_BOUNDS=__launch_bounds__(256,3) and
#    (256,4) against the default, plain at f32 and top-p 0.9 at f64, B = 64,
#    256, 1024.
# 2. The CUDA check of the three-block build (differential, invariance).
# Prediction: three blocks -25 to -35% at B >= 256 if it does not spill in
# the loop; four blocks spills and gains less.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=plain@f32,top_p0.9@f64 ROWS=64,256,1024 ITERS=30 LIMIT=170 \
    VARIANTS="TR_PASS_BOUNDS=__launch_bounds__(256,3)|TR_PASS_BOUNDS=__launch_bounds__(256,4)" NAME=bounds-ab bash scripts/variant-ab.sh
date -u
check_experiment bounds-check 150 --no-timing --diff-budget-s 30 --checked-define "TR_PASS_BOUNDS=__launch_bounds__(256,3)"
date -u
