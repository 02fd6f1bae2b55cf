#!/usr/bin/env bash
# Run 47, call A (the check binary from scripts/carry-build.sh): the
# non-exact profiles (f64, f32, triton) race in the generic pass kernel,
# whose loop computed each element's Philox block, then its bound from word
# 0, one element after another, a serial chain of about 75 instructions
# with two XU conversions. tr_race_direct_words computes a unit's eight
# blocks together and lets through only elements whose word lies within a
# unit-wide limit (tr_direct_limit), the rest of the tests unchanged.
# 1. The CUDA check of the new default, with invariance against
#    TR_DIRECT_WORDS=0 (the old loop).
# 2. Timing with the A/A, plain at f64 / f32 / triton and top-p 0.9 at f64,
#    B = 1 / 8 / 64 / 256 / 1024, against TR_DIRECT_WORDS=0.
# Prediction (per call, V = 131072 bf16): plain f32 at B = 1024 1235 us (run
# 42's H200 grid) -> 300-450 us; f64 similar; B = 256 ~320 -> 90-130 us;
# B = 1 20 -> 10-14 us.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment words-check 200 --no-timing --diff-budget-s 45 --variant "TR_DIRECT_WORDS=0"
date -u
MODES=plain@f32,plain@f64,plain@triton,top_p0.9@f64 ROWS=1,8,64,256,1024 ITERS=40 LIMIT=280 \
    VARIANTS="TR_DIRECT_WORDS=0" NAME=words-ab bash scripts/variant-ab.sh
date -u
