#!/usr/bin/env bash
# Run 56, call C (the warm H100 of a second callA.sh, which found no H200):
# call B's knob again in a new process, 100 timings a build, plain and
# top-p 0.9 at B = 1, 2, 4, 8. Call B measured TR_TOPP_CSEL_ILP=1u 0.2
# (B = 1) and 0.3 us (B = 8) faster queued, the A/A within 0.1. Prediction:
# the same within 0.1 us; if so, still short of top-p B = 1's 3x plain
# queued (it needs about 0.4 us).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
check_experiment csel2 200 --timing-only --iters 100 --variants-only --variant-aa \
    --variant-mode plain,top_p0.9 --variant-rows 1,2,4,8 --variant "TR_TOPP_CSEL_ILP=1u"
date -u
