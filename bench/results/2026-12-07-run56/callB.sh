#!/usr/bin/env bash
# Run 56, call B (the warm H100 of call A): top-p 0.9 at B = 1 is the one
# queued top-p target missed on both GPUs (3.01x plain on an H100 in run 54,
# 3.04x on the H200 in run 52; 0.4 us over). Predictions: the cluster
# select's masses one after another (TR_TOPP_CSEL_ILP=1u; run 39 measured
# -0.48 us at B = 8 on an H200, 0.06 beyond its A/A) 0.3-0.5 us faster at B
# = 1 and 8, queued as per call; the A/A within 0.6 us per call.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
check_experiment csel 230 --timing-only --iters 60 --variants-only --variant-aa \
    --variant-mode plain,top_p0.9 --variant-rows 1,8 --variant "TR_TOPP_CSEL_ILP=1u"
date -u
