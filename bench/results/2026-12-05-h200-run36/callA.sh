#!/usr/bin/env bash
# Run 36, call A (1c7d494: 4eefd2f with the knob TR_RACE_REFRESH_LEAN,
# default 0, so every kernel's SASS is that of 4eefd2f, checked with
# nvdisasm): the whole check of the final build (differential and the long,
# segmented and large-batch groups; the last runs tr_fast_wide_pend_bf16,
# whose registers differ from the build run 35 checked), with the
# threshold's refresh in the lean builds alone ("What is left" 1a) as
# variants: plain and top-p rows at B <= 256 (V = 131072) run the lean
# kernels (tr_fast_bf16, tr_fast_pend_bf16); TR_RACE_REFRESH=1 (every
# build) beside them for B = 1024. Invariance of each variant against the
# default on every group the check runs.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
check_experiment final 420 --iters 40 --diff-budget-s 15 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_REFRESH_LEAN=1" --variant "TR_RACE_REFRESH_LEAN=4" --variant "TR_RACE_REFRESH=1"
