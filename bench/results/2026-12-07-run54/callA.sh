#!/usr/bin/env bash
# Run 54, call A: two timing knobs on the fused row's chain, timed with the
# A/A and checked (the differential of the default, the variants' tokens
# against the default's in the invariance check); the phase clock of the
# variant with both at B = 1 and 8. Check binary of scripts/carry-build.sh
# at f090ea2 (kernels sha256 20e72812...: both knobs off compile to main's
# cubin f7b44f54... byte for byte), carried as target/strip-check.
# Why: run 53's phase clock of the default at B = 8 puts 1.6-1.8 us between
# a chunk's list and its counter (the block's reduction of its accumulators,
# the partial, the fence and the atomic) and 1.9-2.8 us in the finish's
# head rank count (two rounds of 66 compares a pair at B = 8, one of 64 at
# B = 1).
# Predictions: TR_FUSED_LIST_MAX=1 (no running maximum, no block reduction:
# the list's first key and a barrier's OR) 0.3-0.6 us faster per call at
# every B for both modes, within 1% at B >= 256. TR_FUSED_HEAD_FIT=1 (the
# head cut to one round of pairs) about 0.5 us faster at B = 8, unchanged
# (the same J) at B = 1 and B >= 16. Both together: the sum.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment fused-chain 330 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,4,8,16,64,256,1024 --variant-dtype bf16 \
    --variant "TR_FUSED_LIST_MAX=1" --variant "TR_FUSED_HEAD_FIT=1" \
    --variant "TR_FUSED_LIST_MAX=1;TR_FUSED_HEAD_FIT=1"
grep -E "A/A|A/B" /tmp/fused-chain/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-220
date -u
mkdir -p /tmp/ph
OUT=/tmp/ph TAG=-both CONFIGS="1:50:0.9 8:50:0.9" DEFINES="TR_FUSED_LIST_MAX=1 TR_FUSED_HEAD_FIT=1" \
    bash scripts/phase-run.sh 2>&1 | tail -24
tar -C /tmp -czf "$OUT/ph.tgz" ph
ls -la "$OUT"; date -u
