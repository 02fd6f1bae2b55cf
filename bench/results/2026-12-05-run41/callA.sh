#!/usr/bin/env bash
# Run 41, call A (device tool `run`, carry ["target/strip"], binaries of the
# working tree after 393a464: default kernels byte for byte 393a464's sm_90
# CUBIN, compared here; the new knob TR_PEND_SCAN_ONCE off). Two parts:
# 1. Where the GPU is an H200: the grid with the torch/Triton baselines of
#    the default build with the direct ranks and the flat regions read (made
#    default in da1996c, checked in run 40's call D), owed since then.
#    Predictions: top-p 0.9 at B = 1 about 1.2 us faster queued than run
#    39's grid (run 40 call C's A/B), so top-p <= 3x plain queued at B = 1
#    met (about 2.96x); B = 8 / 64 / 256 within 0.6 us of run 39; B = 1024
#    the same (bucket ranks kept there); every other mode unchanged.
# 2. The flat regions read with one warp scan and atomic for the four turns
#    loaded together (TR_PEND_SCAN_ONCE=1) timed against the default with the
#    A/A, top-p 0.9, B = 1 / 8 / 64. Prediction: run 40's per-warp clock put
#    the B = 1 regions read at ~4,000 cycles, one scan + atomic + two
#    shuffles a turn (~300-400 cycles of latency each); sharing them over
#    four turns saves ~0.3-0.6 us per call at B <= 8, less at B = 64.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
case "$gpu" in
*H200*) ITERS=40 timeout 380 bash scripts/gpu-evidence.sh bench 2>&1 | tail -n 60 ;;
esac
date -u
MODES=top_p0.9 ROWS=1,8,64 ITERS=100 LIMIT=170 VARIANTS="TR_PEND_SCAN_ONCE=1" bash scripts/variant-ab.sh
date -u
