#!/usr/bin/env bash
# Run 39, call A (binaries of the working tree after dd79c5f: the check binary
# compiles its builds side by side). Two parts:
# 1. Where the GPU is an H200: the grid of the final build with the
#    torch/Triton baselines (owed since run 37: every grid of this build so
#    far ran on an H100).
# 2. Top-p knobs re-timed with the interleaved A/A (100 timings a build, top-p
#    0.9, B = 8 / 64 / 256), the sort-path target at B = 64 being 2.1 us per
#    call away. Predictions (written before the call): the count's reads
#    without the evict-first hint (TR_TOPP_COUNT_POL=0) 0-1 us faster at B =
#    64 (the race's third read of the row finds more of it in L2), the same
#    or slower at B = 256; the scan's without evict-last (TR_TOPP_SCAN_POL=0)
#    slower at B = 256, within the A/A at B <= 64; the middle masses by
#    shared atomics (TR_TOPP_CSEL_MID_WARP=0) about 4 us slower at B = 256,
#    within the A/A at B = 64 (run 30 could not settle it there); the
#    masses one after another (TR_TOPP_CSEL_ILP=1u) 0.5 us slower at B = 64;
#    the early and late triggers: the one the default takes within the A/A,
#    the other slower.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"
case "$gpu" in
*H200*) ITERS=40 timeout 340 bash scripts/gpu-evidence.sh bench 2>&1 | tail -n 40 ;;
esac
MODES=top_p0.9 ROWS=8,64,256 ITERS=100 LIMIT=230 \
  VARIANTS="TR_TOPP_COUNT_POL=0|TR_TOPP_SCAN_POL=0|TR_TOPP_CSEL_MID_WARP=0|TR_TOPP_CSEL_ILP=1u|opts:topp_trigger=early|opts:topp_trigger=late" \
  bash scripts/variant-ab.sh
grep -E "compiled .* builds" /tmp/ab/check.log
