#!/usr/bin/env bash
# Run 58, call A: pending top-p rows of several chunks settled chunk by chunk
# (TR_PEND_LOCAL=1; sample.cu tr_pass, topp.cu tr_pend_local and
# tr_pend_finish_local), checked and timed, then the phase clock. The
# differential and the invariance test the knob's build (--checked-define);
# the timing interleaves main's default, its A/A copy and the knob (60
# timings a build).
# Prediction: the row's last block of the race kernel no longer reads every
# warp's region and ranks the row's list (about 4.3 us of its 11.0 at top-p
# B = 1 by run 57's phase clock: regions read 2.4, kept 1.1, sorted and cut
# 0.7); each block adds about 1-1.5 us before its partial (its own region,
# ranks, lead bounds) and the last block about 1 us (one round trip for the
# cut's index and the kept records). So top-p 0.9 1.5-2.5 us faster at B = 1
# to 8 per call and queued, 0-1 us at B = 64, within the A/A at B = 256 and
# 1,024 (rows of one chunk take tr_pend_finish as before); min-p 0.05 (no
# pending rows) within the A/A at every B.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment pendlocal 420 --checked-define TR_PEND_LOCAL=1 --diff-budget-s 40 --iters 60 \
    --variants-only --variant-aa --variant-mode top_p0.9,min_p0.05 --variant-rows 1,2,8,64,256,1024 \
    --variant "TR_PEND_LOCAL=1"
grep -E "A/A|A/B" /tmp/pendlocal/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-220
CONFIGS="1:0:0.9 8:0:0.9" REPS=8 bash scripts/phase-run.sh 2>&1 | tail -24
CONFIGS="1:0:0.9 8:0:0.9" REPS=8 TAG=-local DEFINES="TR_PEND_LOCAL=1" bash scripts/phase-run.sh 2>&1 | tail -24
tar -C "$OUT" -czf /tmp/phase.tgz $(cd "$OUT" && ls ph-*.txt) && rm -f "$OUT"/ph-*.txt && mv /tmp/phase.tgz "$OUT/"
ls -la "$OUT"; date -u
