#!/usr/bin/env bash
# Run 23, call 3: the acceptance check of the committed kernels (byte-identical
# to run 21's) with the check's new comparison of the top-p kernels' cuts
# against the CPU model's.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r23c; mkdir -p $L
timeout 300 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|MISMATCH|invariance:|exit|FAIL|overall|PASS" $L/check.log | tail -14
tar -C /tmp -czf $OUT/r23-call3.tgz r23c
