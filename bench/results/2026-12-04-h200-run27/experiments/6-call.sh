#!/usr/bin/env bash
# Run 27, call 6: the pending finish issues the region loads of all its
# turns (up to four) before it uses the first (TR_PEND_PREFETCH). The check;
# this build and 679a74d's (base-check) timed alternately, twice each; the
# phase clock at B = 1, 8 (the race's finish: slots 7-12 of tr_phase).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r27f; mkdir -p $L
timeout 160 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 15 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error|without a first" $L/check.log | tail -12
for i in 1 2; do
  for side in base new; do
    bin=target/release/tailrace-cuda-check; [ $side = base ] && bin=target/release/base-check
    timeout 90 $bin --out $L/t-$side-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain > $L/t-$side-$i.log 2>&1; echo "$side $i exit $?" >> $L/t-$side-$i.log
    echo "## $side $i"; grep "^| exact" $L/t-$side-$i.log | grep "Bf16 | 131072" | cut -d'|' -f2,5,6,11 | head -12
  done
done
OUT=$L CONFIGS="1:0:0.9 8:0:0.9" REPS=5 timeout 130 bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r27-call6.tgz r27f
