#!/usr/bin/env bash
# Run 22, call 1: the warp-slab select (default) against the old select.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r22; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --no-invariance --diff-budget-s 40 > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
tail -n 6 $L/check.log
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain --variant TR_TOPP_SELECT_WARP=0 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep -i "top_p\|plain\|exit" $L/variants.log | tail -n 40
for v in "d:" "old:TR_TOPP_SELECT_WARP=0" "probe:TR_TOPP_SELECT_PROBE=1 TR_TOPP_SELECT_WARP=0" "tw:TR_TOPP_SELECT_TWICE=1"; do
  OUT=$L/ph TAG=-${v%%:*} DEFINES="${v#*:}" CONFIGS="1:0:0.9 8:0:0.9" REPS=6 bash scripts/phase-run.sh > $L/phase-${v%%:*}.log 2>&1
  echo "##### ${v}"; cat $L/phase-${v%%:*}.log
done
tar -C /tmp -czf $OUT/r22-call1.tgz r22
