#!/usr/bin/env bash
# Run 52, call C: the fused scan's two units in flight and the pilot over
# both, for bf16 rows only (TR_TOPK_UNITS_BF16=2, TR_FUSED_PILOT_ALL=1), timed
# with the A/A at B = 1 to 1024 and checked (differential rows, invariance
# against the default: the tokens must not move). Check binary of
# scripts/carry-build.sh at e0d1093 (main's kernels since 8cb0b74 lack the
# two knobs: build at e0d1093, or re-apply 4ef6645 and e0d1093's kernel
# changes), carried as target/strip-check. Never ran in run 52 (its one
# start was refused; then too little device time was left).
# Why: call B's variants (both switches for every dtype) took top-k 50 +
# top-p 0.9 at B = 8 from 24.4 to 23.2 us queued on the H200 (beyond the
# A/A), the sort path's target there being 23.2; but f32 rows at B = 256
# took 1.44x (the f32 build spills 354 bytes a thread against 222) and f16
# rows 1.3-2.2 us more, and bf16 at B >= 256 was not timed.
# Prediction: bf16 B = 8 about 1 us faster queued, B = 1 and 16-64 within
# the A/A; B = 256 and 1024 within 1% (run 8 timed two units 1.5% slower at
# B = 1024 in a much older scan); f32 and f16 B = 256 within the A/A (their
# kernels are the default's).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment units-bf16 240 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,8,16,64,256,1024 --variant-dtype bf16 \
    --variant "TR_TOPK_UNITS_BF16=2;TR_FUSED_PILOT_ALL=1"
grep -E "A/A|A/B" /tmp/units-bf16/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
ls -la "$OUT"; date -u
