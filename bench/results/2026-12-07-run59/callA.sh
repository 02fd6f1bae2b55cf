#!/usr/bin/env bash
# Run 59, call A: the fused scan's pilot count (sample.cu tr_scan_topk,
# TR_FUSED_PILOT_X2): 1, bf16 rows' values compared two an instruction, 32
# lanes an iteration; 2, the order keys, 32 lanes an iteration. Checked (the
# differential and the invariance of the knob's build 1, --checked-define)
# and timed (main's default, its A/A copy and both knobs interleaved, 40
# timings a build), then the phase clock with the pilot's two new stamps
# (14: thread 0's value stored, its units loaded; 15: the pilot threshold
# known) for the default and knob 1.
# Prediction: the default's count is 64 rounds of a 16-byte shared load and
# four compares feeding one running count (16 instructions a round, eight of
# them one dependent chain: about 4,000 cycles a warp, 2 us), knob 1's 8
# rounds of four loads and 49 instructions with two sums (about 600 cycles).
# So stamp 14 -> 15 1-1.5 us shorter with knob 1 at B = 1 and 8, and top-k 50
# (+ top-p 0.9) 0.8-1.5 us faster per call and queued at B <= 16; knob 2
# between the two; within the A/A at B >= 64 (longer chunks: the pilot a
# smaller share of the chain, and blocks that queue hide it).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment pilotx2 420 --checked-define TR_FUSED_PILOT_X2=1 --diff-budget-s 25 --iters 40 \
    --variants-only --variant-aa --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,2,8,16,64,256 \
    --variant "TR_FUSED_PILOT_X2=1" --variant "TR_FUSED_PILOT_X2=2"
grep -E "A/A|A/B" /tmp/pilotx2/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-220
CONFIGS="1:50:0.9 8:50:0.9" REPS=8 bash scripts/phase-run.sh 2>&1 | tail -12
CONFIGS="1:50:0.9 8:50:0.9" REPS=8 TAG=-x2 DEFINES="TR_FUSED_PILOT_X2=1" bash scripts/phase-run.sh 2>&1 | tail -12
tar -C "$OUT" -czf /tmp/phase.tgz $(cd "$OUT" && ls ph-*.txt) && rm -f "$OUT"/ph-*.txt && mv /tmp/phase.tgz "$OUT/"
ls -la "$OUT"; date -u
