#!/usr/bin/env bash
# Run 27, call 7: L2 eviction priorities on the bf16 histogram's reads
# (TR_TOPP_SCAN_POL=1: its own scan's lines evict_last; TR_TOPP_COUNT_POL=2:
# the count's evict_first). The check; this build and 679a74d's
# (base-check) timed alternately, twice each (top-p 0.9); Nsight per kernel
# at B = 256 and 1024 (DRAM bytes read by the histogram).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r27g; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant opts:first_pass_always > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -4
for i in 1 2; do
  for side in base new; do
    bin=target/release/tailrace-cuda-check; [ $side = base ] && bin=target/release/base-check
    timeout 60 $bin --out $L/t-$side-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9 > $L/t-$side-$i.log 2>&1; echo "$side $i exit $?" >> $L/t-$side-$i.log
    echo "## $side $i"; grep "^| exact" $L/t-$side-$i.log | grep "Bf16 | 131072" | cut -d'|' -f2,5,6,11 | head -6
  done
done
for side in base new; do
  if [ $side = base ]; then cp target/strip/base-check target/release/tailrace-cuda-check; else cp target/strip/tailrace-cuda-check target/release/tailrace-cuda-check; fi
  echo "## ncu $side"; CONFIGS="256:0:0.9 1024:0:0.9" DETAIL="" timeout 100 bash scripts/ncu-kernels.sh > $L/ncu-$side.log 2>&1; cat $L/ncu-$side.log
done
tar -C /tmp -czf $OUT/r27-call7.tgz r27g
