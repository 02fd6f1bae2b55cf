#!/usr/bin/env bash
# Run 30, call 3 (binaries of the working tree after 5cb7200: staging up to
# 16 units a thread where every row's cluster is resident at once; the
# cluster select's masses four at a time in every run). Top-p 0.9 timings
# against TR_TOPP_CSEL_ILP=1u and TR_TOPP_STAGE=4 in one process; the
# staging the host chose at B = 32 and 64 (bench); the phase clock of B = 64.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r30c3; mkdir -p $L
timeout 200 target/release/tailrace-cuda-check --iters 40 --timing-only --variants-only --variant-mode top_p0.9 --variant-rows 1,8,16,32,64,128,256 --variant "TR_TOPP_CSEL_ILP=1u" --variant "TR_TOPP_STAGE=4" > $L/t.log 2>&1; echo "exit $?" >> $L/t.log
grep "V=131072" $L/t.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'; tail -1 $L/t.log
for r in 32 64; do timeout 60 target/release/tailrace-cuda-check bench --rows $r --top-p 0.9 --reps 2 2>&1 | tail -1 | tee -a $L/bench-fit.txt; done
OUT=$L CONFIGS="64:0:0.9" bash scripts/phase-run.sh > $L/phase.txt 2>&1
cat $L/phase.txt
tar -C /tmp -czf $OUT/r30c3.tgz r30c3
