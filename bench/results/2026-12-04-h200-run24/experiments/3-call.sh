#!/usr/bin/env bash
# Run 24, call 3: no first pass for a bf16 batch of binned top-p rows alone
# with one top-p chunk a row (the histogram blocks scan their rows,
# tr_topp_own_max), timed against the first pass (launch option
# first_pass_always) in one process; Nsight figures of the top-p call's
# kernels; torch's read bandwidth (bench/read_bandwidth.py); the acceptance
# check with invariance against the first pass.
# (Kernels and check of this call: own-max.diff applied to commit 3acc86a.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r24c; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,min_p0.05,plain --variant opts:first_pass_always > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "Bf16\|F16 " $L/variants.log | grep -v "^|" | sed -E 's/^\[ *[0-9.]+s\] +exact T=1 //; s/\(p10[^)]*\)//g; s/\[[0-9]+ ok rows\]//; s/floor [0-9.]+ us, x[0-9.]+; //' | cut -c1-100
tail -n 1 $L/variants.log
CONFIGS="256:0:0.9 1024:0:0.9" DETAIL="" timeout 100 bash scripts/ncu-kernels.sh > $L/ncu.log 2>&1; cat $L/ncu.log
timeout 60 python3 bench/read_bandwidth.py --out $L/read_bandwidth.json > $L/read_bandwidth.log 2>&1; cat $L/read_bandwidth.log
timeout 240 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|rows \(|MISMATCH|INVARIANCE|invariance:|exit|FAIL|PASS|cuts|ERROR" $L/check.log | tail -20
tar -C /tmp -czf $OUT/r24-call3.tgz r24c
