#!/usr/bin/env bash
# Run 23, call 2: the cut of a value entry from an index bitmap
# (TR_TOPP_CUT_SELECT), the rolled block scan (TR_TOPP_SCAN_ROLLED), the
# select's batched loads as a variant (TR_TOPP_SELECT_BATCH=8): acceptance
# against the CPU model (tokens, and now the top-p kernels' cuts themselves)
# with invariance against all three off; a short check of the old build's
# cuts; timings of each knob; the phase clock of the histogram and gather.
# (Kernels of this call: topp-knobs.diff applied to commit ef0918e.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r23b; mkdir -p $L
OLD="TR_TOPP_SELECT_BATCH=0;TR_TOPP_SCAN_ROLLED=0;TR_TOPP_CUT_SELECT=0"
timeout 240 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant "$OLD" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|MISMATCH|invariance|exit|FAIL|error" $L/check.log | head -30
timeout 120 target/release/tailrace-cuda-check --checked-define TR_TOPP_SCAN_ROLLED=0 --checked-define TR_TOPP_CUT_SELECT=0 --out $L/check-old.json --rows 2000 --no-timing --no-invariance > $L/check-old.log 2>&1; echo "old check exit $?" >> $L/check-old.log
grep -E "rows in|MISMATCH|exit" $L/check-old.log | head -12
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain --variant "$OLD" --variant TR_TOPP_SELECT_BATCH=8 --variant TR_TOPP_SCAN_ROLLED=0 --variant TR_TOPP_CUT_SELECT=0 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | grep "Bf16" | cut -c1-110; tail -n 1 $L/variants.log
for v in "d:" "old:TR_TOPP_SCAN_ROLLED=0 TR_TOPP_CUT_SELECT=0"; do
  OUT=$L/ph TAG=-${v%%:*} DEFINES="${v#*:}" CONFIGS="1:0:0.9 8:0:0.9" REPS=6 bash scripts/phase-run.sh > $L/phase-${v%%:*}.log 2>&1
  echo "##### ${v}"; grep -A4 "tr_phase_hist\|tr_phase_gather" $L/phase-${v%%:*}.log | grep "last block\|    start" | grep -v "chunk"
done
tar -C /tmp -czf $OUT/r23-call2.tgz r23b
