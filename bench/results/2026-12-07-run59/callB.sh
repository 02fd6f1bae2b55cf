#!/usr/bin/env bash
# Run 59, call B: call A's timing could not tell the knob from the default:
# its A/A copy (the default compiled again, a second module) ran 1.4-1.7 us
# slower queued than the default at bf16 B <= 64 (median A/A 1.57 us), while
# TR_FUSED_PILOT_X2=1 matched the default within 0.3 us. Here every side has
# a copy: the default and its A/A copy, the knob and its own copy (the knob
# with the A/A define, which no kernel reads), timing only, 100 timings a
# build, top-k 50 and top-k 50 + top-p 0.9 at B = 1-64.
# Prediction: if the knob's pilot stretch (5.3k -> 1.9k cycles by call A's
# phase clock) reaches the call, the knob's two copies lie 0.8-1.5 us below
# the default's two at B <= 16; if the copies' spread is a module's
# placement, each pair spreads alike and the verdict is the pairs' means.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment pilotx2b 280 --timing-only --iters 100 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,2,8,16,64 \
    --variant "TR_FUSED_PILOT_X2=1" --variant "TR_FUSED_PILOT_X2=1;TR_AA_COPY=1"
grep -E "A/A|A/B" /tmp/pilotx2b/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
grep -E "^\| exact" /tmp/pilotx2b/check.log | cut -c1-160
ls -la "$OUT"; date -u
