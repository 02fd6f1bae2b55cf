#!/usr/bin/env bash
# Run 57, call B: the phase-1 race's first ring steps staged before its
# dependency wait (TR_RACE_PRESTAGE=1; sample.cu, tr_pass_prestage), checked
# and timed. The differential and the invariance test the knob's build
# (--checked-define); the timing interleaves main's default (dc435e2d...),
# its A/A copy and the knob (60 timings a build).
# Prediction: top-p 0.9 at B = 1, 2 and 8 0.3-0.7 us faster queued and per
# call (one L2 round trip of the race's first step no longer after the
# histogram's end), which would bring top-p B = 1 queued under 3x plain
# (0.2-0.4 us needed); min-p 0.05 (filter kernel, then the race) the same;
# B = 64 0-0.5 us; B = 256 and plain at every B within the A/A.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment prestage 360 --checked-define TR_RACE_PRESTAGE=1 --diff-budget-s 40 --iters 60 \
    --variants-only --variant-aa --variant-mode plain,top_p0.9,min_p0.05 --variant-rows 1,2,8,64,256 \
    --variant "TR_RACE_PRESTAGE=1"
grep -E "A/A|A/B" /tmp/prestage/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-220
ls -la "$OUT"; date -u
