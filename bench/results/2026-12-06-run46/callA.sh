#!/usr/bin/env bash
# Run 46, call A (the check binary from scripts/carry-build.sh at 2d72c4f):
# where bf16 top-p 0.9 spends its time at B = 64, 256 and 1024 against
# plain, since the two bf16 top-p targets left within 1% are there (top-p
# <= 3x plain queued at B = 1024, 0.5 us over on run 42's H200; the torch
# sort path's 20x at B = 64 per call, 0.6 us short).
# 1. Nsight per kernel, bf16 V = 131072: plain and top-p 0.9 at B = 64 /
#    256 / 1024.
# 2. The histogram's and the race's source views (stall samples by SASS line)
#    and pipe shares at B = 1024.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
CONFIGS="64:0:1.0 64:0:0.9 256:0:1.0 256:0:0.9 1024:0:1.0 1024:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > "$OUT/ncu-kernels.txt" 2>&1
cat "$OUT/ncu-kernels.txt"
date -u
KERNEL=tr_topp_hist_bf16 CONFIGS="1024:0:0.9" PIPES=1 TOP=30 timeout 220 bash scripts/ncu-source.sh > "$OUT/hist-source.txt" 2>&1
tail -90 "$OUT/hist-source.txt"
date -u
KERNEL=tr_fast_wide_pend_bf16 CONFIGS="1024:0:0.9" PIPES=0 TOP=30 timeout 200 bash scripts/ncu-source.sh > "$OUT/race-source.txt" 2>&1
tail -70 "$OUT/race-source.txt"
date -u
