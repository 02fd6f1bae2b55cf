#!/usr/bin/env bash
# Run 24, call 4: the top-p kernels' register budgets and load depth as
# variants, timed against the committed build in one process (top-p 0.9):
# the gather at 40 and 32 registers (6 and 8 blocks an SM), both kernels at
# 80 (3 blocks an SM), the histogram's loads 4 units deep.
# (Kernels of this call: those of commit 1715455.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r24d; mkdir -p $L
timeout 250 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only \
  --variant-mode top_p0.9 --variant "TR_TOPP_GATHER_BOUNDS=__launch_bounds__(256,6)" \
  --variant "TR_TOPP_GATHER_BOUNDS=__launch_bounds__(256,8)" --variant "TR_TOPP_BOUNDS=__launch_bounds__(256,3)" \
  --variant TR_TOPP_UNITS=4 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "Bf16\|F16 " $L/variants.log | grep -v "^|" | sed -E 's/^\[ *[0-9.]+s\] +exact T=1 //; s/\(p10[^)]*\)//g; s/\[[0-9]+ ok rows\]//; s/floor [0-9.]+ us, x[0-9.]+; //' | cut -c1-120
grep -i "VARIANT\|error" $L/variants.log | head; tail -n 1 $L/variants.log
tar -C /tmp -czf $OUT/r24-call4.tgz r24d
