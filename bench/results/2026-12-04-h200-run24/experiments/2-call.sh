#!/usr/bin/env bash
# Run 24, call 2: the scan build (tr_scan_*, a first pass without a race on
# its own chunks, 8 blocks of 256 an SM) timed against the pass kernel's scan
# (launch option no_scan) in one process, and the unit-maximum scan inside it
# (TR_SCAN_UNIT_MAX=0); Nsight figures of the top-p call's kernels; the
# acceptance check with invariance against both.
# (Kernels and check of this call: scan-build.diff applied to commit 3acc86a.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r24b; mkdir -p $L
timeout 200 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,greedy,min_p0.05,plain --variant opts:no_scan --variant TR_SCAN_UNIT_MAX=0 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "Bf16\|F16 " $L/variants.log | grep -v "^|" | sed -E 's/^\[ *[0-9.]+s\] +exact T=1 //; s/\(p10[^)]*\)//g; s/\[[0-9]+ ok rows\]//; s/floor [0-9.]+ us, x[0-9.]+; //' | cut -c1-100
tail -n 1 $L/variants.log
CONFIGS="1:0:0.9 8:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" timeout 150 bash scripts/ncu-kernels.sh > $L/ncu.log 2>&1
cat $L/ncu.log
timeout 240 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant opts:no_scan --variant TR_SCAN_UNIT_MAX=0 > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|rows \(|MISMATCH|INVARIANCE|invariance:|exit|FAIL|PASS|cuts|ERROR" $L/check.log | tail -20
tar -C /tmp -czf $OUT/r24-call2.tgz r24b
