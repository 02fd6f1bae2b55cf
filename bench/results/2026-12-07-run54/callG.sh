#!/usr/bin/env bash
# Run 54, call G: the final build (TR_FUSED_LIST_MAX in the 80-register and
# generic builds only, not in the 64-register `tr_fused_wide_*`, whose
# cubin text is then call E's TR_FUSED_LIST_MAX=0 variant's; the other
# kernels' text is call B's default's) checked and timed against the old
# default (both knobs 0: main's f7b44f54... cubin byte for byte) with the
# A/A at V = 131072 and 262144; full-tier CUDA conformance; the grid.
# Binaries of scripts/carry-build.sh, carried as target/strip.
# Prediction: V = 262144, B = 1024 back to the old default's time (about
# 285 us, within the A/A); top-k 50 + top-p 0.9 at B = 8 1-2 us faster than
# the old default and B = 1024 (V = 131072, the 80-register build) 2-3 us,
# as in call B; the grid as call B's but V = 262144 B = 1024 at run 53's
# times.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment final 200 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 8,1024 --variant-vocab 131072,262144 \
    --variant-dtype bf16 --variant "TR_FUSED_LIST_MAX=0;TR_FUSED_HEAD_FIT=0"
grep -E "A/A|A/B" /tmp/final/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
date -u
mkdir -p /tmp/conf
timeout 120 target/release/xtask conformance --backend cuda --tier full --out /tmp/conf > /tmp/conf/conformance.log 2>&1
echo "conformance exit $?" >> /tmp/conf/conformance.log
tail -n 4 /tmp/conf/conformance.log
tar -C /tmp -czf "$OUT/conf.tgz" conf
date -u
mkdir -p /tmp/grid
OUT=/tmp/grid ITERS=40 timeout 240 bash scripts/gpu-evidence.sh bench > /tmp/grid/bench.out 2>&1
tail -n 45 /tmp/grid/bench.out
tar -C /tmp -czf "$OUT/grid.tgz" grid
ls -la "$OUT"; date -u
