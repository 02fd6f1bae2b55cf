#!/usr/bin/env bash
# Run 22, call 2: the slab select with batched loads (default): acceptance
# against the CPU model and invariance against the old select, timings of
# batch sizes and the old select, the phase clock.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r22b; mkdir -p $L
timeout 200 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant TR_TOPP_SELECT_WARP=0 > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
tail -n 8 $L/check.log
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,top_k50_top_p0.9 --variant TR_TOPP_SELECT_WARP=0 --variant TR_TOPP_SELECT_BATCH=4 --variant TR_TOPP_SELECT_BATCH=16 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | grep "Bf16" | cut -c1-120; tail -n 1 $L/variants.log
for v in "d:" "old:TR_TOPP_SELECT_WARP=0"; do
  OUT=$L/ph TAG=-${v%%:*} DEFINES="${v#*:}" CONFIGS="1:0:0.9 8:0:0.9" REPS=6 bash scripts/phase-run.sh > $L/phase-${v%%:*}.log 2>&1
  echo "##### ${v}"; grep -A4 "tr_phase_hist" $L/phase-${v%%:*}.log | grep "last block\|start"
done
tar -C /tmp -czf $OUT/r22-call2.tgz r22b
