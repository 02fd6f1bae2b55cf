#!/usr/bin/env bash
# Run 49, call D (the three binaries of scripts/carry-build.sh with
# TR_DIRECT_TRY_ONCE=1 as the default, carried as target/strip): call B
# found the eight chains slower in every build that also holds the live
# loop (TR_DIRECT_LIVE_MAX=0: f64 top-p 0.9 B = 1024 919 us against 841
# with TR_DIRECT_LIVE=0). The chains' tests now go through one inlined copy
# of tr_direct_try instead of eight (sm_90 SASS of tr_pass_f32 22,000
# instructions against 24,500).
# 1. The CUDA check, invariance against TR_DIRECT_TRY_ONCE=0 and
#    TR_DIRECT_LIVE=0.
# 2. Timing with the A/A against TR_DIRECT_TRY_ONCE=0 (run 48's default),
#    TR_DIRECT_LIVE=0 and both (run 47's race): f64 and f32 plain, top-p
#    0.9 and min-p 0.05 at B = 256 / 1024, bf16 V = 131072.
# 3. The conformance full tier on the CUDA backend.
# Prediction: plain within the A/A (the chains' tests run rarely there);
# f64 top-p 0.9 at B = 1024 within 2% of TR_DIRECT_LIVE=0 if the unrolled
# copies were the cost, else unchanged (890); min-p unchanged.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment once-check 200 --no-timing --diff-budget-s 25 --variant "TR_DIRECT_TRY_ONCE=0" \
    --variant "TR_DIRECT_LIVE=0"
date -u
MODES=plain@f64,plain@f32,top_p0.9@f64,top_p0.9@f32,min_p0.05@f64 ROWS=256,1024 DTYPE=bf16 ITERS=30 LIMIT=240 \
    VARIANTS="TR_DIRECT_TRY_ONCE=0|TR_DIRECT_LIVE=0|TR_DIRECT_LIVE=0;TR_DIRECT_TRY_ONCE=0" \
    NAME=once-ab bash scripts/variant-ab.sh
date -u
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -6
rm -f "$OUT/conformance_report.json"
ls "$OUT"; date -u
