#!/usr/bin/env bash
# Run 59, call C (written, not run: no device time was left): the pilot
# count with the bf16 pairs and, on f32 and f16 rows, the order keys in
# rounds of 32 lanes (TR_FUSED_PILOT_X2=3), checked (the differential and
# the invariance of that build) and timed against the default (1). Its bf16
# kernels are the default's and its f32/f16 kernels knob 2's, by their SASS
# (python3 scripts/sass-kernels.py on nvdisasm dumps of `tailrace-cuda-check
# cubin --define TR_FUSED_PILOT_X2=N`: --same 'bf16' against 1, --same
# '_f32$|_f16$' against 2); knob 2's build had only call A's invariance.
# Needs a check binary from run 59's fix on, whose "default" rows are the
# default kernels.
# Prediction (call A's knob 2 on f32/f16 B = 256): top-k 50 (+ top-p 0.9)
# on f32 and f16 rows 1.2-1.7 us faster queued at B = 256, about 1.5 us at
# B <= 64 (the pilot's share is larger there); bf16 rows within the A/A.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment pilotx3 420 --checked-define TR_FUSED_PILOT_X2=3 --diff-budget-s 40 --iters 60 \
    --variants-only --variant-aa --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,8,64,256 \
    --variant-dtype f32 --variant "TR_FUSED_PILOT_X2=3"
grep -E "A/A|A/B" /tmp/pilotx3/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
ls -la "$OUT"; date -u
