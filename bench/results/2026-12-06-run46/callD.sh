#!/usr/bin/env bash
# Run 46, call D (the three binaries of scripts/carry-build.sh at 558f03a,
# carried as target/strip), asked of an H200, the GPU of the issue's
# targets: the benchmark grid of the fused default with the torch/Triton
# baselines and the targets, and the grid of TR_TOPP_FUSE=0 in the same
# process. Prediction: top-p 0.9 <= 3x plain met queued at B = 1024 (run
# 42's H200 grid: 3.00x, 0.5 us over), with the top-p rows at B >= 64 faster
# by about what call C measured on the H100 (B = 1024 0.83x).
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
EXTRA_GRIDS="fuse0:TR_TOPP_FUSE=0" ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
rm -f "$OUT/targets.md.keep"
date -u
