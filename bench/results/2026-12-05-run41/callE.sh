#!/usr/bin/env bash
# Run 41, call E (binaries from scripts/carry-build.sh at 22ef66c, as call
# D; a fresh machine asked for without naming a card, with the device time
# left). Where it is an H200: the grid with the torch/Triton baselines of
# the default (owed since run 40; the targets are set for an H200).
# Otherwise: the build before run 40's change (TR_PEND_RANK_DIRECT=0,
# TR_PEND_GATHER_FLAT=0) timed interleaved against the default with the
# A/A, top-p 0.9 at B = 1 / 8 / 64 / 256 / 1024 (call C's two grids ran one
# after the other). Prediction for that A/B: the before build slower by
# 1-2.5 us per call at B = 1 (call C: 2.4), within the A/A elsewhere.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/release/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
case "$gpu" in
*H200*) ITERS=40 timeout 380 bash scripts/gpu-evidence.sh bench 2>&1 | tail -n 60 ;;
*) MODES=top_p0.9 ROWS=1,8,64,256,1024 ITERS=100 LIMIT=300 \
     VARIANTS="TR_PEND_RANK_DIRECT=0;TR_PEND_GATHER_FLAT=0" bash scripts/variant-ab.sh ;;
esac
date -u
