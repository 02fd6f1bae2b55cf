#!/usr/bin/env bash
# Run 26, call 1: no first pass for batches of pending bf16 top-p rows alone
# (the histogram's blocks, one thread block cluster a row, scan their chunks
# and exchange status and maximum through distributed shared memory). The
# acceptance check (its long/segmented top-p groups also rerun each such
# batch with the first pass, clusters of 16, 3 and 1, against the CPU model;
# invariance against opts:first_pass_always); the variants timed in one
# process; Nsight per kernel.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r26a; mkdir -p $L
timeout 170 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 30 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -14
timeout 160 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,plain --variant opts:first_pass_always --variant opts:topp_cluster=16 --variant opts:topp_cluster=4 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | cut -d'|' -f2,5,6,11
tail -n 1 $L/variants.log
CONFIGS="1:0:0.9 8:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" timeout 120 bash scripts/ncu-kernels.sh > $L/ncu.log 2>&1
grep -E "^===|^tr_" $L/ncu.log
tar -C /tmp -czf $OUT/r26-call1.tgz r26a
