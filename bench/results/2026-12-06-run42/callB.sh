#!/usr/bin/env bash
# Run 42, call B (binaries from scripts/carry-build.sh at de9d920): the race
# after the cut in the top-p clusters (TR_TOPP_SETTLE=1, off by default).
# 1. The CUDA check of a build with it on (differential, the top-p groups
#    with their cuts compared and the rows the clusters settled counted,
#    invariance against the default build).
# 2. Its timing interleaved against the default with the A/A, top-p 0.9 bf16
#    V = 131072, B = 1 / 8 / 64 / 256 (B = 1024 has no clusters).
# Prediction: B = 1 and 8 (clusters of 16, chunks staged) 5-10 us faster per
# call (the race kernel's read of the row and its pending finish, about 12
# us at B = 1, replaced by the clusters' race, about 3-5 us, the race
# kernel's blocks leaving at once); B = 64 (clusters of 4, chunks read
# again) within 5 us either way; B = 256 (clusters of 2, 32 units a thread
# read again, two Philox blocks a unit) slower, by 5-20 us.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment settle-check 210 --checked-define TR_TOPP_SETTLE=1 --no-timing \
    --diff-budget-s 60 --variant "TR_TOPP_SETTLE=0"
grep -E "raced by their histogram|CUT MISMATCH|MISMATCH" /tmp/settle-check/check.log | head -12
date -u
MODES=top_p0.9 ROWS=1,8,64,256 ITERS=100 LIMIT=230 VARIANTS="TR_TOPP_SETTLE=1" \
    NAME=settle-ab bash scripts/variant-ab.sh
date -u
