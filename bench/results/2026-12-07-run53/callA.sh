#!/usr/bin/env bash
# Run 53, call A: run 52's owed call C (the fused scan's two units in flight
# and the pilot over both, for bf16 rows only) and the phase clock of the
# default and of that variant at B = 1 and 8. Check binary of
# scripts/carry-build.sh at a15d0b8 (kernels sha256 c028f474...: main's
# kernels with the two knobs back, default off), carried as
# target/strip-check.
# Why: run 52's call B timed both switches for every dtype: top-k 50 +
# top-p 0.9 at B = 8 went 24.4 -> 23.2 us queued (beyond the A/A; the sort
# path's target is 23.2), but f32 rows spilled (B = 256 1.44x) and f16 lost
# 1.4-2.5 us at B = 256; bf16 at B >= 256 was never timed.
# Prediction: bf16 top-k 50 + top-p 0.9 at B = 8 about 1 us faster queued,
# B = 1 and 16-64 within the A/A; B = 256 and 1024 within 1%. In the phase
# clock at B = 8, the chunk's block select (1.1 us, twice B = 1's keys) and
# the scan's second step (2.5 us) shorter, the rest as the default's.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment units-bf16 260 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,8,16,64,256,1024 --variant-dtype bf16 \
    --variant "TR_TOPK_UNITS_BF16=2;TR_FUSED_PILOT_ALL=1"
grep -E "A/A|A/B" /tmp/units-bf16/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
date -u
# Plain B = 256 in 24 warps an SM (the 80-register build): one block of 384
# threads a row, or two of 192. Prediction: 384 within +-5% of the default
# (run 16 measured 2-5% faster with older kernels; since then the default
# build took the lean loop, which the 80-register build lacks); 192 x 2
# slower (each chunk pays its pilot, its first steps and a combine; run 27).
check_experiment plain-geom 150 --timing-only --iters 40 --variants-only --variant-aa \
    --variant-mode plain --variant-rows 192,256 \
    --variant "opts:block_threads=384" --variant "opts:block_threads=192,blocks_per_row=2"
grep -E "A/A|A/B" /tmp/plain-geom/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
date -u
mkdir -p /tmp/ph
OUT=/tmp/ph CONFIGS="1:50:0.9 8:50:0.9" bash scripts/phase-run.sh 2>&1 | tail -40
OUT=/tmp/ph TAG=-units CONFIGS="1:50:0.9 8:50:0.9" DEFINES="TR_TOPK_UNITS_BF16=2 TR_FUSED_PILOT_ALL=1" \
    bash scripts/phase-run.sh 2>&1 | tail -40
tar -C /tmp -czf "$OUT/ph.tgz" ph
ls -la "$OUT"; date -u
