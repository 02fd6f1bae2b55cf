#!/usr/bin/env bash
# Run 25, call 3: pending top-p rows with the race listing units in per-warp
# regions (slots from a warp ballot, no atomics in the loop; the test by
# set.eq.bf16x2), the finish reading the regions in about two round trips. The acceptance check
# with invariance against the gather's cut; the same check with regions of
# TR_PEND_WORDS=64 words (most pending rows then fill a region, and the
# finish reads the row itself); the variants timed in one process; Nsight.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r25c; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 40 --variant opts:no_topp_pend > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches:|rows in [0-9]+ batches \(|invariance:|exit|FAIL|PASS" $L/check.log | tail -8
timeout 120 target/release/tailrace-cuda-check --out $L/check64-summary.json --no-timing --no-invariance --diff-budget-s 30 --checked-define TR_PEND_WORDS=64 > $L/check64.log 2>&1; echo "check64 exit $?" >> $L/check64.log
grep -E "checked build|rows in .*batches:|rows in [0-9]+ batches \(|exit|FAIL|PASS" $L/check64.log | tail -8
timeout 150 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,min_p0.05,plain --variant opts:no_topp_pend > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | cut -d'|' -f2,5,6,11 
tail -n 1 $L/variants.log
CONFIGS="8:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" timeout 100 bash scripts/ncu-kernels.sh > $L/ncu.log 2>&1
grep -E "^===|^tr_" $L/ncu.log
tar -C /tmp -czf $OUT/r25-call3.tgz r25c
