#!/usr/bin/env bash
# Run 54, call C: three more timing knobs on the chain of a row's last block,
# timed with the A/A and checked (differential of the default, the
# variants' tokens against the default's in the invariance check); the
# phase clock of the three together at B = 1 and 8. Check binary of
# scripts/carry-build.sh (all three off compile to the default of call B,
# acb9164b..., byte for byte), carried as target/strip-check.
# Why: call A's phase clock of the new default at B = 8 (last block) has
# 1.0 us from the chunk list to the counter, 1.9 for the combine, 2.0 for
# the chunk's keep and rank-ordered list, 1.3 for the finish's rank count
# with the top-p masses.
# TR_LAST_FENCE_ONE=1: thread 0 alone fences once the counter says the
# block is the last (every thread of that block fences now). Prediction:
# 0.2-0.5 us faster per call at B <= 64 in every mode whose rows have
# several chunks (plain B = 1 and 8 too), within the A/A at B >= 256 plain.
# TR_FUSED_LIST_PAIRS=1: the chunk list's rank count by two threads a key.
# Prediction: 0.1-0.2 us faster for fused rows at every B.
# TR_FUSED_MASS_SPLIT=1: the finish's top-p masses by warps 4-7 while warps
# 0-3 rank. Prediction: 0.2-0.4 us faster for top-k 50 + top-p 0.9 at B <=
# 64, top-k 50 alone unchanged.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment chain2 330 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode plain,top_k50,top_k50_top_p0.9 --variant-rows 1,4,8,16,64,256,1024 --variant-dtype bf16 \
    --variant "TR_LAST_FENCE_ONE=1" --variant "TR_FUSED_LIST_PAIRS=1" --variant "TR_FUSED_MASS_SPLIT=1" \
    --variant "TR_LAST_FENCE_ONE=1;TR_FUSED_LIST_PAIRS=1;TR_FUSED_MASS_SPLIT=1"
grep -E "A/A|A/B" /tmp/chain2/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
date -u
mkdir -p /tmp/ph
OUT=/tmp/ph TAG=-three CONFIGS="1:50:0.9 8:50:0.9" \
    DEFINES="TR_LAST_FENCE_ONE=1 TR_FUSED_LIST_PAIRS=1 TR_FUSED_MASS_SPLIT=1" \
    bash scripts/phase-run.sh 2>&1 | tail -24
tar -C /tmp -czf "$OUT/ph.tgz" ph
ls -la "$OUT"; date -u
