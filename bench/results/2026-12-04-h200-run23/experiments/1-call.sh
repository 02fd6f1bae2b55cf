#!/usr/bin/env bash
# Run 23, call 1: the select's loads in one batch (TR_TOPP_SELECT_BATCH), the
# block scan's rolled warp-sum loop (TR_TOPP_SCAN_ROLLED), the cut of a value
# entry by an index select (TR_TOPP_CUT_SELECT): acceptance against the CPU
# model and invariance against all three off, timings of each knob, the
# phase clock of the histogram and the gather.
# (Kernels of this call: topp-knobs.diff with TR_TOPP_SELECT_BATCH defaulting
# to 16 and the cut found by one warp bit by bit over the indices, see the
# README; the check and the "old" phase build failed to compile: K = 0 gave
# zero-length arrays.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r23a; mkdir -p $L
OLD="TR_TOPP_SELECT_BATCH=0;TR_TOPP_SCAN_ROLLED=0;TR_TOPP_CUT_SELECT=0"
timeout 220 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant "$OLD" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
tail -n 8 $L/check.log
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain --variant "$OLD" --variant TR_TOPP_SELECT_BATCH=0 --variant TR_TOPP_SELECT_BATCH=8 --variant TR_TOPP_SCAN_ROLLED=0 --variant TR_TOPP_CUT_SELECT=0 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | grep "Bf16" | cut -c1-140; tail -n 1 $L/variants.log
for v in "d:" "old:TR_TOPP_SELECT_BATCH=0 TR_TOPP_SCAN_ROLLED=0 TR_TOPP_CUT_SELECT=0"; do
  OUT=$L/ph TAG=-${v%%:*} DEFINES="${v#*:}" CONFIGS="1:0:0.9 8:0:0.9" REPS=6 bash scripts/phase-run.sh > $L/phase-${v%%:*}.log 2>&1
  echo "##### ${v}"; cat $L/phase-${v%%:*}.log
done
tar -C /tmp -czf $OUT/r23-call1.tgz r23a
