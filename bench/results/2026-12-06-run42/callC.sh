#!/usr/bin/env bash
# Run 42, call C (the same H200, right after call A): Nsight's per-kernel
# times of one top-p call at B = 1 and 64, the default, then meant for the
# TR_TOPP_SETTLE=1 build through BIN. The second half timed the default
# kernels again (instruction counts equal to the unit); see README.md.
mkdir -p target/release && cp target/strip/* target/release/ && export CONFIGS="1:0:0.9 64:0:0.9" && (echo "### default"; bash scripts/ncu-kernels.sh; echo "### TR_TOPP_SETTLE=1"; BIN="target/release/tailrace-cuda-check --checked-define TR_TOPP_SETTLE=1" bash scripts/ncu-kernels.sh) 2>&1 | tee $OUT/ncu-settle.txt
