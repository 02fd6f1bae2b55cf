#!/usr/bin/env bash
# Run 36, call 1 (build of 4eefd2f, the head after run 35; the binary
# carried has the knob TR_RACE_REFRESH_LEAN too, whose default, 0, leaves
# the SASS of every kernel as in 4eefd2f, checked by nvdisasm): the check of the
# final build, correctness only (its large-batch group runs
# tr_fast_wide_pend_bf16, whose registers differ from what run 35 checked);
# then the grid with its baselines (what `cargo xtask bench` runs); then
# Nsight's source view of the top-p histogram at B = 64.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
check_experiment final 200 --no-timing --diff-budget-s 15
ITERS=40 bash scripts/gpu-evidence.sh bench
mkdir -p $OUT/src && OUT=$OUT/src KERNEL=tr_topp_hist_bf16 CONFIGS="64:0:0.9" TOP=40 timeout 150 bash scripts/ncu-source.sh 2>&1 | tail -60
rm -f $OUT/src/*.ncu-rep $OUT/src/lineinfo.cubin $OUT/src/tailrace.cu
