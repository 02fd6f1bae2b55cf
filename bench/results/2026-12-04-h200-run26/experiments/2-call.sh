#!/usr/bin/env bash
# Run 26, call 2: the check with the top-p groups' exact-profile batches
# (pending cuts and batches without a first pass now exercised against the
# CPU model, each such batch rerun with the first pass and with clusters of
# 16, 3 and 1); the histogram's phase clock at B = 1 and 8 with clusters of
# 8 (default), 16, and with the first pass.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r26b; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 20 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -14
for v in default topp_cluster=16 first_pass_always; do
  if [ $v = default ]; then BA=""; else BA="--opts $v"; fi
  OUT=$L CONFIGS="1:0:0.9 8:0:0.9" REPS=5 TAG="-$v" BENCH_ARGS="$BA" timeout 150 bash scripts/phase-run.sh > $L/phase-$v.txt 2>&1
  echo "##### $v"; cat $L/phase-$v.txt
done
tar -C /tmp -czf $OUT/r26-call2.tgz r26b
