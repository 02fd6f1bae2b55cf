#!/usr/bin/env bash
# Run 43, call A (the check binary from scripts/carry-build.sh): the race
# after the cut in the top-p clusters rewritten as the race kernel's own
# race (TR_TOPP_SETTLE=1, off by default; run 42's form, a binary64 bound an
# element, took 22 us from the cut to the token at B = 1).
# 1. The CUDA check of a build with it on (differential, the top-p groups
#    with their cuts compared and the rows the clusters settled counted,
#    invariance against the default build).
# 2. Its timing interleaved against the default with the A/A, top-p 0.9 bf16
#    V = 131072, B = 1 / 8 / 64 / 256 (B = 1024 has no clusters).
# 3. The phase clock of the settle build at B = 1 (where the stretch from
#    the cut to the token goes now).
# Prediction: B = 1 and 8 (clusters of 16, 4 units a thread) 5-8 us faster
# per call (the stretch about 3-5 us, against the race kernel's pass of
# 10.6 us and its pending finish); B = 64 within 5 us either way; B = 256
# (clusters of 2, 32 units a thread, the race under 64 registers with
# spills) slower by up to 10 us.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment settle-check 200 --checked-define TR_TOPP_SETTLE=1 --no-timing \
    --diff-budget-s 60 --variant "TR_TOPP_SETTLE=0"
grep -E "raced by their histogram|CUT MISMATCH|MISMATCH|PASS|FAIL" /tmp/settle-check/check.log | head -12
date -u
MODES=top_p0.9 ROWS=1,8,64,256 ITERS=100 LIMIT=230 VARIANTS="TR_TOPP_SETTLE=1" \
    NAME=settle-ab bash scripts/variant-ab.sh
date -u
CONFIGS="1:0:0.9" DEFINES="TR_TOPP_SETTLE=1" TAG=-settle bash scripts/phase-run.sh 2>&1 | tail -30
date -u
