#!/usr/bin/env bash
# Run 45, call B (the check binary from scripts/carry-build.sh): after call
# A adopted the radix cut, the late gather and the dynamic sums.
# 1. Nsight per kernel of f32 top-p 0.9 at B = 1 / 8 / 256 (where the call's
#    time now goes), and the histogram's source view with the issue share of
#    each pipe at B = 256 (the binary64 pipe against the issue slots).
# 2. Timing with the A/A, f32 top-p 0.9 at T = 1 and 0.7, B = 1 / 64 / 256 /
#    1024: the histogram's masses in batches of 2, 4 and 8 elements before
#    their additions (TR_TOPP_HIST_BATCH; T = 1 only, T = 0.7 the control).
# Prediction: batches of 4 cut the histogram at B = 256 from about 150 to
# 110-120 us (T = 1) if its chains' latency, not the binary64 pipe, bounds
# it; nothing at T = 0.7.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,64,256,1024 ITERS=50 LIMIT=170 \
    VARIANTS="TR_TOPP_HIST_BATCH=2|TR_TOPP_HIST_BATCH=4|TR_TOPP_HIST_BATCH=8" \
    NAME=batch-ab bash scripts/variant-ab.sh
date -u
DTYPE=f32 CONFIGS="1:0:0.9 8:0:0.9 256:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > "$OUT/ncu-kernels-f32.txt" 2>&1
cat "$OUT/ncu-kernels-f32.txt"
date -u
KERNEL=tr_topp_hist_f32 CONFIGS="256:0:0.9" PIPES=1 DTYPE=f32 TOP=25 timeout 200 bash scripts/ncu-source.sh > "$OUT/hist-source.txt" 2>&1
tail -60 "$OUT/hist-source.txt"
date -u
