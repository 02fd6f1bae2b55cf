#!/usr/bin/env bash
# Run 46, call B (the check binary from scripts/carry-build.sh, the tree of
# the scan and count in one read, TR_TOPP_FUSE=1): call A put a third of the
# bf16 histogram's stall samples at B = 1024 (H100, 234.7 us, 505 MB read
# for 268 MB of logits) on the max scan's wait for its loads: a block without
# a first pass whose row is its one chunk (B >= 265) scans the row, then
# reads it again to count. Now it counts under a provisional map from a
# sample of the row (one unit a thread) in the scan's read, and counts again
# only where the row's maximum lies above the window's top.
# TR_TOPP_FUSE=2 does the same in the blocks of rows of many chunks that do
# not stage them (B = 256: two chunks a row in clusters of two; every
# block takes the same sample of the whole row).
# 1. The CUDA check of the new default (TR_TOPP_FUSE=1), invariance against
#    TR_TOPP_FUSE=0 and =2.
# 2. The check of TR_TOPP_FUSE=2 with the window's top at the sample's
#    maximum (TR_TOPP_FUSE_TOP_AT_SAMPLE=1): most rows count again, rows
#    whose sample holds their maximum do not.
# 3. Timing with the A/A, top-p 0.9 at T = 1 and 0.7, B = 256 / 300 / 1024,
#    against TR_TOPP_FUSE=0 and =2.
# 4. Nsight per kernel at B = 300 and 1024.
# Prediction (H100, per call): B = 1024 -60 to -75 us (the histogram 235 ->
# about 165 us, its DRAM reads 505 -> about 270 MB); B = 300 -15 to -25 us;
# B = 256 within the A/A at TR_TOPP_FUSE=1, -10 to -20 us at =2.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment fuse-check 170 --no-timing --diff-budget-s 40 --variant "TR_TOPP_FUSE=0" --variant "TR_TOPP_FUSE=2"
date -u
check_experiment fuse-top-check 100 --no-timing --no-invariance --diff-budget-s 30 \
    --checked-define TR_TOPP_FUSE=2 --checked-define TR_TOPP_FUSE_TOP_AT_SAMPLE=1
date -u
MODES=top_p0.9,top_p0.9_t0.7 ROWS=256,300,1024 ITERS=60 LIMIT=200 \
    VARIANTS="TR_TOPP_FUSE=0|TR_TOPP_FUSE=2" NAME=fuse-ab bash scripts/variant-ab.sh
date -u
CONFIGS="300:0:0.9 1024:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > "$OUT/ncu-kernels.txt" 2>&1
cat "$OUT/ncu-kernels.txt"
date -u
