#!/usr/bin/env bash
# Run 26, call 3: clusters sized by the batch (16 at B <= 16, then fewer:
# launch::topp_cluster_blocks), no row-parameter read before the scan. The
# check; the default against the first pass in one process; the phase clock
# at B = 1 and 8 with stamps inside the record's search (slots 11, 12).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r26c; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 15 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -8
timeout 160 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,plain --variant opts:first_pass_always > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | cut -d'|' -f2,5,6,11
OUT=$L CONFIGS="1:0:0.9 8:0:0.9" REPS=5 timeout 150 bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r26-call3.tgz r26c
