#!/usr/bin/env bash
# Run 30, call 2 (binaries of the working tree after 5cb7200: the histogram
# stages up to 16 units a thread with cp.async, the host giving every such
# launch the room, before the fit test of 35c8fb9; old/ held 5cb7200's check
# binary). Top-p 0.9 timings: the new default against TR_TOPP_STAGE=4 and =0
# in one process, then 5cb7200's binary; the check with TR_TOPP_STAGE=4 as
# its variant; the phase clocks of B = 32 and 64.
set -u
mkdir -p target/release && cp target/strip/tailrace target/strip/tailrace-cuda-check target/strip/xtask target/release/
. scripts/device-env.sh
L=/tmp/r30c2; mkdir -p $L
R=1,8,16,32,64,128,256
timeout 200 target/release/tailrace-cuda-check --iters 40 --timing-only --variants-only --variant-mode top_p0.9 --variant-rows $R --variant "TR_TOPP_STAGE=4" --variant "TR_TOPP_STAGE=0" > $L/t-new.log 2>&1; echo "exit $?" >> $L/t-new.log
timeout 90 target/strip/old/tailrace-cuda-check --iters 40 --timing-only --variants-only --variant-mode top_p0.9 --variant-rows $R --variant opts:topp_trigger=auto > $L/t-old.log 2>&1; echo "exit $?" >> $L/t-old.log
for f in t-new t-old; do echo "== $f"; grep "V=131072" $L/$f.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'; tail -1 $L/$f.log; done
timeout 230 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant "TR_TOPP_STAGE=4" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -7
OUT=$L CONFIGS="64:0:0.9 32:0:0.9" bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r30c2.tgz r30c2
