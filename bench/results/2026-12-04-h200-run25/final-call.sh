#!/usr/bin/env bash
# Run 25, final call (kernels of the working tree: pending top-p rows, the
# finish's cut by bucket counts, no gather with pending rows). Correctness
# first, no timing: the full-tier CUDA conformance beside the acceptance
# check (invariance against the gather's cut, opts:no_topp_pend) and the check
# with TR_TOPP_PEND_CAP=2 (most rows take the histogram's radix fallback) and
# TR_PEND_WORDS=64 (the lists fill; the finish reads the row). Then, alone
# on the GPU: the grid, and the two paths timed in one process.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r25f; mkdir -p $L
( timeout 170 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 30 --variant opts:no_topp_pend > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
  for d in TR_TOPP_PEND_CAP=2 TR_PEND_WORDS=64; do
    timeout 60 target/release/tailrace-cuda-check --out $L/check-$d.json --no-timing --no-invariance --diff-budget-s 12 --checked-define $d > $L/check-$d.log 2>&1; echo "check $d exit $?" >> $L/check-$d.log
  done ) &
timeout 290 target/release/xtask conformance --backend cuda --tier full --out $L/conformance > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
wait
grep -E "rows in .*batches:|invariance:|exit|FAIL|PASS" $L/check.log | tail -7
for d in TR_TOPP_PEND_CAP=2 TR_PEND_WORDS=64; do grep -E "rows in .*batches:|exit|RESULT" $L/check-$d.log | tail -3; done
tail -n 4 $L/conformance.log
timeout 130 target/release/tailrace-cuda-check --iters 40 --out $L/tailrace.json grid > $L/grid.log 2>&1; echo "grid exit $?" >> $L/grid.log
tail -n 2 $L/grid.log
timeout 80 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,plain --variant opts:no_topp_pend > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | cut -d'|' -f2,5,6,11
cp $L/conformance/report.md $OUT/conformance_report.md 2>/dev/null; cp $L/conformance/report.json $OUT/conformance_report.json 2>/dev/null
cp $L/tailrace.json $OUT/ 2>/dev/null
tar -C /tmp -czf $OUT/r25-final.tgz r25f
