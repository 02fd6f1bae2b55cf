#!/usr/bin/env bash
# Run 35, call 1: (a) the race's and the scan's staging ring at 8 slots a
# lane (a build with launch::RACE_STAGE_SLOTS = 8, carried as target/strip8)
# timed against 4 and 6 of those slots used (TR_RACE_STAGES) in one process,
# plain and greedy, bf16 V = 131072, B = 1 to 1024; (b) Nsight's source view
# of tr_fast_bf16, plain B = 256, for the build of the head (4 slots).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/c1
mkdir -p $L
(timeout 200 target/strip8/tailrace-cuda-check --timing-only --iters 40 --variants-only \
  --variant-mode plain,greedy --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_STAGES=4" --variant "TR_RACE_STAGES=6" \
  --out $L/slots8.json > $L/slots8.log 2>&1; echo "exit $?" >> $L/slots8.log)
grep "V=131072" $L/slots8.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'
tail -1 $L/slots8.log
tar -C /tmp -czf "$OUT/c1.tgz" c1
KERNEL=tr_fast_bf16 CONFIGS="256:0:1.0" TOP=45 OUT=$L/ncu timeout 330 bash scripts/ncu-source.sh > $L/ncu.log 2>&1
echo "ncu-source exit $?" >> $L/ncu.log
rm -f $L/ncu/*.ncu-rep $L/ncu/*-sass.csv
head -60 $L/ncu.log
tar -C /tmp -czf "$OUT/c1.tgz" c1
