#!/usr/bin/env bash
# Run 27, call 3 (binaries of 5e654ed): acceptance. The full-tier CUDA
# conformance; the check of a build with TR_TOPP_PEND_CAP=2 (nearly every
# pending candidate takes the histogram's fallback, in the cluster select's
# block too) and of one with TR_PEND_WORDS=64 (the race's regions fill, so
# the finish reads the row), each with the first pass as its variant.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r27c; mkdir -p $L
timeout 200 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 3 $L/conformance.log
for d in TR_TOPP_PEND_CAP=2 TR_PEND_WORDS=64; do
  timeout 150 target/release/tailrace-cuda-check --checked-define $d --out $L/check-$d.json --no-timing --diff-budget-s 15 --variant opts:first_pass_always > $L/check-$d.log 2>&1; echo "check exit $?" >> $L/check-$d.log
  echo "## $d"; grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check-$d.log | tail -6
done
cp $L/conf/report.md $OUT/conformance_report.md 2>/dev/null; cp $L/conf/report.json $OUT/conformance_report.json 2>/dev/null
tar -C /tmp -czf $OUT/r27-call3.tgz r27c
