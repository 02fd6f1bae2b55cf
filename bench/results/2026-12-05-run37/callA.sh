#!/usr/bin/env bash
# Run 37, call A (fe51c22; default kernels as 4eefd2f): the grid with its
# baselines (what `cargo xtask bench` runs), then Nsight's source view of
# the two top-p kernels at B = 64 (the sort-path target there).
set -u
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/gpu.txt 2>&1
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
ITERS=40 bash scripts/gpu-evidence.sh bench
for k in tr_topp_hist_bf16 tr_fast_pend_bf16; do
  mkdir -p $OUT/$k && OUT=$OUT/$k KERNEL=$k CONFIGS="64:0:0.9" TOP=40 timeout 100 bash scripts/ncu-source.sh 2>&1 | tail -60
  rm -f $OUT/$k/*.ncu-rep $OUT/$k/lineinfo.cubin $OUT/$k/tailrace.cu
done
