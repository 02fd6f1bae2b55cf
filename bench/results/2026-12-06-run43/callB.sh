#!/usr/bin/env bash
# Run 43, call B (the check binary from scripts/carry-build.sh): the cut's
# index found in the top-p clusters (TR_TOPP_CUT_INDEX=1, off by default),
# so that the race kernel races a pending row as a row whose cut is known,
# without listing the units of v* and without the pending finish.
# 1. The CUDA check of a build with it on (differential, the top-p groups
#    with their cuts compared and the rows whose cut's index the clusters
#    found counted, invariance against the default build).
# 2. Its timing interleaved against the default with the A/A, top-p 0.9 bf16
#    V = 131072, B = 1 / 8 / 64 / 256; the second variant lets chunks of 32
#    units a thread take it too (B = 256, clusters of 2).
# 3. The phase clock at B = 1 of the default and of the knob.
# Prediction: B = 1 and 8 2-4 us faster per call (the pending finish, about
# 4.5 us in the race's last block, against about 1-1.5 us for the counts'
# reads and the holder chunk's read in the histogram); B = 64 1-3 us
# faster; B = 256 unchanged with the default bound, within 2 us either way
# with 32 units.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment cutidx-check 200 --checked-define TR_TOPP_CUT_INDEX=1 --no-timing \
    --diff-budget-s 60 --variant "TR_TOPP_CUT_INDEX=0"
grep -E "rows raced by their histogram|CUT MISMATCH|MISMATCH|RESULT" /tmp/cutidx-check/check.log | head -12
date -u
MODES=top_p0.9 ROWS=1,8,64,256 ITERS=100 LIMIT=260 \
    VARIANTS="TR_TOPP_CUT_INDEX=1|TR_TOPP_CUT_INDEX=1;TR_TOPP_CUT_INDEX_UNITS=32" \
    NAME=cutidx-ab bash scripts/variant-ab.sh
date -u
CONFIGS="1:0:0.9" DEFINES="TR_TOPP_CUT_INDEX=1" TAG=-cutidx bash scripts/phase-run.sh 2>&1 | tail -12
CONFIGS="1:0:0.9" TAG=-default bash scripts/phase-run.sh 2>&1 | tail -12
date -u
