#!/usr/bin/env bash
# Run 27, call 5: plain sampling at B = 256 split into more, smaller blocks
# (launch options blocks_per_row / block_threads, new in the check's
# parser): each SM then sums the race over 4 or 8 half- or quarter-rows
# instead of 2 rows, which should even out the rows' rare steps. Two
# processes, plain only, each with the default first.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r27e; mkdir -p $L
for i in 1 2; do
  timeout 120 target/release/tailrace-cuda-check --out $L/geo-$i.json --iters 40 --timing-only --variants-only --variant-mode plain \
    --variant opts:blocks_per_row=2,block_threads=128 --variant opts:blocks_per_row=4,block_threads=64 \
    --variant opts:blocks_per_row=2,block_threads=256 > $L/geo-$i.log 2>&1; echo "exit $?" >> $L/geo-$i.log
  echo "## $i"; grep "^| exact" $L/geo-$i.log | cut -d'|' -f2,5,6,11
done
tar -C /tmp -czf $OUT/r27-call5.tgz r27e
