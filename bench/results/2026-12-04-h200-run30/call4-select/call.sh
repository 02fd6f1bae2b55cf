#!/usr/bin/env bash
# Run 30, call 4 (binaries of the working tree after 35c8fb9: the cluster
# select's middle masses by warp sums and its masses four at a time, both in
# runs of four or more for the masses and in every run for the warp sums,
# before eee00d6 limited the warp sums to runs of four). One check process:
# the check with the middle masses by shared atomics as one variant and the
# select as before this run (and the staging of 4 units) as another
# (invariance against both), timed in top-p 0.9 at B = 1 to 256; then the
# phase clock of B = 64.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r30c4; mkdir -p $L
timeout 420 target/release/tailrace-cuda-check --out $L/check-summary.json --iters 40 --diff-budget-s 12 --variants-only --variant-mode top_p0.9 --variant-rows 1,8,16,32,64,128,256 --variant "TR_TOPP_CSEL_MID_WARP=0" --variant "TR_TOPP_CSEL_MID_WARP=0;TR_TOPP_CSEL_ILP=1u;TR_TOPP_STAGE=4" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep "V=131072" $L/check.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -7
OUT=$L CONFIGS="64:0:0.9" bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r30c4.tgz r30c4
