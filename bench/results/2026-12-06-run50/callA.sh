#!/usr/bin/env bash
# Run 50, call A: run 49's call D, on branch direct-pilot (the binaries of
# scripts/carry-build.sh with
# TR_DIRECT_TRY_ONCE=1 and TR_DIRECT_PILOT=1 as the default, carried as
# target/strip). Call B found the eight chains slower in every build that
# also holds the live loop (TR_DIRECT_LIVE_MAX=0: f64 top-p 0.9 B = 1024 919
# us against 841 with TR_DIRECT_LIVE=0); the chains' tests now go through
# one inlined copy of tr_direct_try instead of eight (sm_90 SASS of
# tr_pass_f32 22,000 instructions against 24,500). Call C's source view of
# f32 plain B = 1 put 62% of the instructions in the binary64 logarithms of
# the lanes' first records; a warp with no best yet now scores the largest
# bound among its lanes' candidates first (TR_DIRECT_PILOT).
# One check process (four builds compiled once, for the device time left):
# 1. the CUDA check, invariance against PILOT=0 and run 48's race
#    (TRY_ONCE=0, PILOT=0);
# 2. timing with the A/A against the same two: f64 and f32 plain and f64
#    top-p 0.9 at B = 1 / 8 / 1024, bf16 V = 131072.
# 3. The conformance full tier on the CUDA backend.
# Predictions: the pilot takes f32 and f64 plain B = 1 from about 19 us per
# call to 13-15 and B = 8 3-5 us down, B >= 256 within 1%; one copy of the
# tests within the A/A on plain rows; f64 top-p 0.9 at B = 1024 nearer run
# 47's race (841) if the unrolled copies were its cost, else unchanged.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment once-check 260 --diff-budget-s 15 --iters 30 --variants-only --variant-aa \
    --variant-mode plain@f64,plain@f32,top_p0.9@f64 --variant-rows 1,8,1024 --variant-dtype bf16 \
    --variant "TR_DIRECT_PILOT=0" --variant "TR_DIRECT_TRY_ONCE=0;TR_DIRECT_PILOT=0"
grep -E "A/A|A/B" /tmp/once-check/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
date -u
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -6
rm -f "$OUT/conformance_report.json"
ls "$OUT"; date -u
