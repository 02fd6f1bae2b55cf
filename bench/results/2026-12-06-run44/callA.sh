#!/usr/bin/env bash
# Run 44, call A (the check binary from scripts/carry-build.sh): the f32/f16
# top-p histogram's element loop rewritten (TR_TOPP_MASS_INLINE=2, the new
# default: the exp without its special cases and with its constants in the
# constant bank, no branch but the shared additions, the division a
# multiplication where 1/T is exact) and its chunks of up to 2^17 elements
# summed in 15-bit pieces (TR_TOPP_SUM15=1, new default; 128-bit sums with
# compare-and-swap loops before).
# 1. The CUDA check of the new default (differential; the large-batch group
#    now starts with f32 and f16 rows of one top-p chunk of 131,072 and
#    140,000 logits; invariance against the old loop TR_TOPP_MASS_INLINE=1).
# 2. Timing interleaved with the A/A: f32 top-p 0.9 at T = 1 and T = 0.7, B
#    = 1 / 64 / 256 / 1024 (and bf16, f16 at B = 256), against the old loop
#    and against the new loop without the 15-bit pieces.
# Prediction (SASS: about 136 instructions an element before, 79 at T = 1
# and 98 at T = 0.7 after): f32 top-p 0.9 T = 1 at B = 256 446 -> about 370
# us per call; B = 1024 (15-bit pieces instead of 128-bit sums) 1.7 ms ->
# about 1.2 ms; T = 0.7 about half those gains; B = 1 within 5 us.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment lean-check 270 --no-timing --diff-budget-s 100 --variant "TR_TOPP_MASS_INLINE=1"
grep -E "large batches|MISMATCH|PASS|FAIL" /tmp/lean-check/check.log | head -12
date -u
MODES=top_p0.9,top_p0.9_t0.7 DTYPE=f32 ROWS=1,64,256,1024 ITERS=50 LIMIT=240 \
    VARIANTS="TR_TOPP_MASS_INLINE=1|TR_TOPP_SUM15=0" NAME=lean-ab bash scripts/variant-ab.sh
date -u
