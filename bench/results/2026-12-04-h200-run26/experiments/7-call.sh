#!/usr/bin/env bash
# Run 26, call 7: the record's search inlined into the histogram (fewer
# spills: 68 bytes of spill stores against 156 in 54c1e41 and 92 before
# run 26). The check (invariance against the first pass); then the build of
# 4f74b73 (run 25, base-check) and this build timed alternately, twice
# each, top-p 0.9 and plain, one process each.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r26g; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 15 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|RESULT|MISMATCH|error" $L/check.log | tail -8
for i in 1 2; do
  for side in base new; do
    bin=target/release/tailrace-cuda-check; [ $side = base ] && bin=target/release/base-check
    timeout 100 $bin --out $L/t-$side-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain > $L/t-$side-$i.log 2>&1; echo "$side $i exit $?" >> $L/t-$side-$i.log
    echo "## $side $i"; grep "^| exact" $L/t-$side-$i.log | grep "Bf16 | 131072" | cut -d'|' -f2,5,6,11 | head -12
  done
done
tar -C /tmp -czf $OUT/r26-call7.tgz r26g
