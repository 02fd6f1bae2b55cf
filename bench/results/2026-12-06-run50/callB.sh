#!/usr/bin/env bash
# Run 50, call B (the three binaries of scripts/carry-build.sh at dc30be0,
# the warp pilot as the direct race's default, carried as target/strip):
# 1. the benchmark grid with the torch/Triton baselines and the targets
#    (compared with run 49's H100 grid where this comes up an H100);
# 2. Nsight's source view of the generic kernel at f32 plain B = 1, what
#    is left of the step after the pilot (run 49's view: 62% of the
#    instructions in the binary64 logarithm, the score run 8.0 times a warp).
# Call A's check and conformance full tier ran on these kernels (sha256
# 0f59a343...). Prediction from call A's A/B: f32/f64 plain 0.85x per call
# at B = 1 and 8, 0.95-0.96x at B >= 256; top-p and min-p rows within 2%
# except f32 rows at B >= 256 (one copy of the tests: -3 to -10%).
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/strip/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -30
date -u
# (NCU=0 leaves it out, where the device time left is short.)
[ "${NCU:-1}" = 1 ] && mkdir -p /tmp/src-b1 && OUT=/tmp/src-b1 KERNEL=tr_pass_bf16 CONFIGS="1:0:1.0" BENCH_ARGS="--profile f32" TOP=40 \
    timeout 150 bash scripts/ncu-source.sh > /tmp/src-b1/ncu-source.txt 2>&1
[ -f /tmp/src-b1/ncu-source.txt ] && tail -60 /tmp/src-b1/ncu-source.txt && cp /tmp/src-b1/ncu-source.txt "$OUT/ncu-source-b1.txt"
ls "$OUT"; date -u
