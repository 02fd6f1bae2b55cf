#!/usr/bin/env bash
# Run 42, call A (binaries from scripts/carry-build.sh at b68a1b2; kernels
# those of run 40's default, da1996c). Asked for as nvidia-h200 without
# needs_h200. Where it is an H200: the grid with the torch/Triton baselines
# of the default (owed since run 40; the targets are set for an H200).
# Otherwise: the build before run 40's change (TR_PEND_RANK_DIRECT=0,
# TR_PEND_GATHER_FLAT=0) timed interleaved against the default with the
# A/A, top-p 0.9 at B = 1 / 8 / 64 / 256 / 1024 (run 41's call C timed the
# two as grids one after the other). Prediction for that A/B: the before
# build slower by 1-2.5 us per call at B = 1 (run 41 call C: 2.4), within
# the A/A elsewhere. Prediction for the H200 grid: top-p 0.9 bf16 B = 1
# about 1.5 us below run 39's 33.5 per call and 1.2 below its 32.6 queued
# (31.4: the queued 3x target met if plain stays at 10.6); other modes
# within 0.5 us of run 39's grid.
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
