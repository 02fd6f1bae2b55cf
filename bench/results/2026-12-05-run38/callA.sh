#!/usr/bin/env bash
# Run 38, call A (1d9c028; kernels as 4eefd2f): the grid with its baselines
# (what `cargo xtask bench` runs), then Nsight's source view of the top-p
# histogram at B = 64 (the sort-path target there), its files tarred so the
# call stays under the device tool's file limit.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
ITERS=40 bash scripts/gpu-evidence.sh bench
k=tr_topp_hist_bf16
mkdir -p /tmp/ncu/$k && OUT=/tmp/ncu/$k KERNEL=$k CONFIGS="64:0:0.9" TOP=40 timeout 120 bash scripts/ncu-source.sh > /tmp/ncu/$k/summary.txt 2>&1
tail -70 /tmp/ncu/$k/summary.txt
rm -f /tmp/ncu/$k/*.ncu-rep /tmp/ncu/$k/lineinfo.cubin /tmp/ncu/$k/tailrace.cu
tar -C /tmp -czf $OUT/ncu.tgz ncu
