#!/usr/bin/env bash
# Run 24, call 1: the scan by unit maxima (TR_SCAN_UNIT_MAX) timed against the
# element-by-element scan in one process (top-p 0.9, greedy, min-p 0.05, plain
# as the control), with two load-depth variants (the scan's loads in
# registers 8 units deep; the top-p gather's loads 4 units deep); Nsight
# figures of the top-p call's kernels with and without the knob; then the
# acceptance check against the CPU model with invariance against the knob off.
# (Kernels of this call: those of commit 1715455.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r24a; mkdir -p $L
timeout 220 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9,greedy,min_p0.05,plain --variant TR_SCAN_UNIT_MAX=0 \
  --variant "TR_SCAN_STAGED_DT=0;TR_SCAN_UNITS=8" --variant TR_TOPP_GATHER_UNITS=4 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "Bf16" $L/variants.log | sed -E 's/^\[ *[0-9.]+s\] +exact T=1 //; s/ \(p10.*queued/ queued/; s/\(p10[^)]*\)//; s/\[[0-9]+ ok rows\]//' | cut -c1-120
tail -n 1 $L/variants.log
CONFIGS="8:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="" timeout 150 bash scripts/ncu-kernels.sh > $L/ncu-new.log 2>&1
sed 's#^BIN=.*#BIN="target/release/tailrace-cuda-check --checked-define TR_SCAN_UNIT_MAX=0"#' scripts/ncu-kernels.sh > /tmp/ncu-old.sh
CONFIGS="256:0:0.9 1024:0:0.9" DETAIL="" timeout 100 bash /tmp/ncu-old.sh > $L/ncu-old.log 2>&1
echo "## ncu new"; cat $L/ncu-new.log; echo "## ncu old (knob off)"; cat $L/ncu-old.log
timeout 240 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 50 --variant TR_SCAN_UNIT_MAX=0 > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in|MISMATCH|invariance:|exit|FAIL|PASS|cuts" $L/check.log | tail -16
tar -C /tmp -czf $OUT/r24-call1.tgz r24a
