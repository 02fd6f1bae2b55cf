#!/usr/bin/env bash
# Run 28, call 1: the bf16 histogram's held units (TR_TOPP_HOLD: B <= 16
# reads its chunk once, its tables cleared while the loads are in flight) and
# the pass's release-acquire arrival (TR_PASS_RELEASE). The check (invariance
# against the first pass and against both knobs off); one process timing the
# default against the knobs one at a time, both off, and the late PDL
# trigger, twice; the phase clock at B = 1 and 8, new and both off.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r28a; mkdir -p $L
OFF="TR_TOPP_HOLD=0;TR_PASS_RELEASE=0"
timeout 170 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant opts:first_pass_always --variant "$OFF" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error|without a first" $L/check.log | tail -8
for i in 1 2; do
  timeout 170 target/release/tailrace-cuda-check --out $L/t-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain \
    --variant "$OFF" --variant "TR_TOPP_HOLD=0" --variant "TR_PASS_RELEASE=0" --variant "TR_TOPP_LATE_TRIGGER=1" > $L/t-$i.log 2>&1; echo "t $i exit $?" >> $L/t-$i.log
  echo "## timing $i"; grep "Bf16  V=131072" $L/t-$i.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/' | cut -c1-150
done
OUT=$L CONFIGS="1:0:0.9 8:0:0.9 1:0:1.0" REPS=5 timeout 100 bash scripts/phase-run.sh > $L/phase-new.txt 2>&1
OUT=$L CONFIGS="1:0:0.9 1:0:1.0" REPS=5 TAG=-off DEFINES="TR_TOPP_HOLD=0 TR_PASS_RELEASE=0" timeout 80 bash scripts/phase-run.sh > $L/phase-off.txt 2>&1
cat $L/phase-new.txt $L/phase-off.txt
tar -C /tmp -czf $OUT/r28-call1.tgz r28a
