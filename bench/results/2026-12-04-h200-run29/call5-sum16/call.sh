#!/usr/bin/env bash
# Run 29, call 5 (binaries of the working tree after f5b7890: the split sums
# gone, TR_TOPP_SUM16 as a variant): how the f32 histogram's shared 64-bit
# additions compile (SASS of tr_topp_hist_f32, default and TR_TOPP_SUM16=1),
# then f32 top-p 0.9 at B = 1..1024 timed against TR_TOPP_SUM16=1, each
# other knob off and all off, one process.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r29c5; mkdir -p $L
for d in TR_TOPP_SUM16=0 TR_TOPP_SUM16=1; do
  target/release/tailrace-cuda-check cubin $L/k.cubin --arch sm_90 --define $d > /dev/null
  cuobjdump -sass -fun tr_topp_hist_f32 $L/k.cubin > $L/sass-$d.txt 2>&1
  echo "== $d: $(wc -l < $L/sass-$d.txt) lines"; grep -oE "ATOMS\.[A-Z0-9.]+|RED\.[A-Z0-9.]+|ATOM\.[A-Z0-9.]+" $L/sass-$d.txt | sort | uniq -c
done
timeout 280 target/release/tailrace-cuda-check --out $L/t.json --iters 30 --timing-only --variants-only --variant-mode top_p0.9 --variant-dtype f32 --variant TR_TOPP_SUM16=1 --variant "TR_TOPP_MASS_INLINE=0;TR_TOPP_GATHER_PREFILTER=0" --variant TR_TOPP_MASS_INLINE=0 --variant TR_TOPP_GATHER_PREFILTER=0 > $L/t.log 2>&1; echo "t exit $?" >> $L/t.log
grep "V=131072" $L/t.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/' | cut -c1-140
tail -1 $L/t.log
tar -C /tmp -czf $OUT/r29c5.tgz r29c5
