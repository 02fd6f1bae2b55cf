#!/usr/bin/env bash
# Run 36, call 2 (4eefd2f with the knob TR_RACE_REFRESH_LEAN, default 0:
# the default SASS is that of 4eefd2f): the threshold's refresh in the lean
# builds only ("What is left" 1a): plain and top-p rows at B <= 256
# (V = 131072) run the lean kernels (tr_fast_bf16, tr_fast_pend_bf16);
# TR_RACE_REFRESH=1 in every build beside it for B = 1024; invariance of
# each against the default on every group the check runs. Then Nsight's source view of
# the top-p race at B = 64.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
check_experiment refresh 300 --iters 40 --diff-budget-s 2 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_REFRESH_LEAN=1" --variant "TR_RACE_REFRESH_LEAN=4" --variant "TR_RACE_REFRESH=1"
mkdir -p $OUT/src && OUT=$OUT/src KERNEL=tr_fast_pend_bf16 CONFIGS="64:0:0.9" TOP=40 timeout 150 bash scripts/ncu-source.sh 2>&1 | tail -60
rm -f $OUT/src/*.ncu-rep $OUT/src/lineinfo.cubin $OUT/src/tailrace.cu
