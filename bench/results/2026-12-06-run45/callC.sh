#!/usr/bin/env bash
# Run 45, call C (the check binary from scripts/carry-build.sh): call B
# refuted the histogram's batches (TR_TOPP_HIST_BATCH, removed) at T = 1, but
# their builds ran T = 0.7 5-15 us faster, having told the compiler rt = 0
# before the old loop. New default: TR_TOPP_HIST_SPLIT=1 (a loop for each
# kind of y, picked once). Its Nsight profile put the histogram at 42%
# occupancy (64 registers, four blocks an SM), 25% of stalls waiting on the
# binary64 chains.
# 1. The CUDA check of the new default, invariance against TR_TOPP_HIST_SPLIT=0.
# 2. Timing with the A/A, f32 top-p 0.9 at T = 1 and 0.7, B = 1 / 64 / 256 /
#    1024: the split off; five and six blocks an SM for the f32/f16
#    histograms (48 and 40 registers, more spills).
# Prediction: the split -5 to -15 us at T = 0.7 (B = 256 / 1024), within
# the A/A at T = 1; five blocks -10% of the histogram if the spills stay
# out of its loop, six slower.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment split-check 200 --no-timing --diff-budget-s 60 --variant "TR_TOPP_HIST_SPLIT=0"
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,64,256,1024 ITERS=50 LIMIT=200 \
    VARIANTS="TR_TOPP_HIST_SPLIT=0|TR_TOPP_FLOAT_BOUNDS=__launch_bounds__(256,5)|TR_TOPP_FLOAT_BOUNDS=__launch_bounds__(256,6)" \
    NAME=split-ab bash scripts/variant-ab.sh
date -u
