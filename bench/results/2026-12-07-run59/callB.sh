#!/usr/bin/env bash
# Run 59, call B (written, not run: no device time was left): the new
# default (TR_FUSED_PILOT_X2=1 since run 59) against the pilot count before
# it (TR_FUSED_PILOT_X2=0), each with a copy of itself (the A/A define,
# which no kernel reads), timing only, 100 timings a build, top-k 50 and
# top-k 50 + top-p 0.9 at B = 1-64. Needs a check binary from run 59's fix
# on, whose "default" rows are the default kernels.
# Prediction (call A read by what its rows ran): the default and its copy
# 1.4-1.9 us below the old count and its copy, queued, at every B, each pair
# within 0.5 us of itself.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment pilotx2b 280 --timing-only --iters 100 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,2,8,16,64 \
    --variant "TR_FUSED_PILOT_X2=0" --variant "TR_FUSED_PILOT_X2=0;TR_AA_COPY=1"
grep -E "A/A|A/B" /tmp/pilotx2b/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
grep -E "^\| exact" /tmp/pilotx2b/check.log | cut -c1-160
ls -la "$OUT"; date -u
