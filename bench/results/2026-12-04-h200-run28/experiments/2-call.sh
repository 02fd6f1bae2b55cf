#!/usr/bin/env bash
# Run 28, call 2: the bf16 histogram's units staged in shared memory by its
# scan for its count (TR_TOPP_STAGE; the host gives a second table's room,
# launch::topp_stages), in place of call 1's registers. The check
# (invariance against the first pass and TR_TOPP_STAGE=0); one process
# timing the default against TR_TOPP_STAGE=0, twice; the phase clock at
# B = 1 and 8.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r28b; mkdir -p $L
timeout 170 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant opts:first_pass_always --variant "TR_TOPP_STAGE=0" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error|without a first" $L/check.log | tail -8
for i in 1 2; do
  timeout 150 target/release/tailrace-cuda-check --out $L/t-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain \
    --variant "TR_TOPP_STAGE=0" > $L/t-$i.log 2>&1; echo "t $i exit $?" >> $L/t-$i.log
  echo "## timing $i"; grep "Bf16  V=131072" $L/t-$i.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/' | cut -c1-150
done
OUT=$L CONFIGS="1:0:0.9 8:0:0.9" REPS=5 timeout 80 bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r28-call2.tgz r28b
