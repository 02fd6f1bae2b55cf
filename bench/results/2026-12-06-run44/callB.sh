#!/usr/bin/env bash
# Run 44, call B (the check binary from scripts/carry-build.sh): where the
# f32 top-p call at B = 256 spends its time after call A's histogram loop.
# Nsight per kernel of one call (f32 top-p 0.9 at B = 64, 256, 1024), then
# the source view (SASS lines by warp-stall samples) of the gather, which
# run 29 measured at 151 us against a read of the row of about 35 us (with
# the gather's phase clock before it: the loop, the last block's cut), and
# of the new histogram loop.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
DTYPE=f32 CONFIGS="64:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > $OUT/ncu-f32.txt 2>&1
cat $OUT/ncu-f32.txt
date -u
CONFIGS="256:0:0.9" BENCH_ARGS="--dtype f32" TAG=-f32 bash scripts/phase-run.sh 2>&1 | tail -20
date -u
KERNEL=tr_topp_gather_f32 DTYPE=f32 CONFIGS="256:0:0.9" TOP=45 bash scripts/ncu-source.sh 2>&1 | tail -80
date -u
KERNEL=tr_topp_hist_f32 DTYPE=f32 CONFIGS="256:0:0.9" TOP=30 bash scripts/ncu-source.sh 2>&1 | tail -50
date -u
