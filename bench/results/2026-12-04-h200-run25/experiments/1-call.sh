#!/usr/bin/env bash
# Run 25, call 1: pending top-p rows (the race lists the cut value's
# elements and settles the cut; the gather skips the row). The acceptance
# check against the CPU model with invariance against the gather's cut
# (opts:no_topp_pend); the two timed in one process (top-p 0.9, min-p 0.05,
# plain and greedy as controls); Nsight figures of the top-p call's kernels.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r25a; mkdir -p $L
timeout 230 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant opts:no_topp_pend > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|MISMATCH|invariance:|exit|FAIL|PASS|cuts" $L/check.log | tail -16
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,min_p0.05,plain,greedy --variant opts:no_topp_pend > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "Bf16" $L/variants.log | sed -E 's/^\[ *[0-9.]+s\] +exact T=1 //; s/ \(p10.*queued/ queued/; s/\(p10[^)]*\)//; s/\[[0-9]+ ok rows\]//' | cut -c1-120
tail -n 1 $L/variants.log
CONFIGS="8:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" timeout 120 bash scripts/ncu-kernels.sh > $L/ncu-new.log 2>&1
cat $L/ncu-new.log
tar -C /tmp -czf $OUT/r25-call1.tgz r25a
