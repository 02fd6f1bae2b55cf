#!/usr/bin/env bash
# Run 55, call A (run 54's call D again): the grid of the new default (kernels sha256 dc435e2d...,
# the build run 54's call G checked) with the torch/Triton baselines and the
# targets, asked for on an H200 (needs_h200; whatever came is in gpu.txt).
# Binaries of scripts/carry-build.sh, carried as target/strip.
# Prediction (against run 52's H200 grid, main's kernels before runs 53 and
# 54): top-k 50 + top-p 0.9 at B = 8 about 23.0 us per call and 22.4 queued
# (25.6 / 24.3 there; the sort path's 20x needs about 23.2), top-k 50 and
# top-k 50 + top-p 0.9 at B = 1,024 4-6 us faster, every mode without top-k
# within the launches' spread.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/release/BUILT; date -u
# Call B ran this grid on an H100 already: only an H200 adds to it.
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    nvidia-smi --query-gpu=name --format=csv,noheader; echo "not an H200: grid skipped"; exit 0
fi
ITERS=40 bash scripts/gpu-evidence.sh bench
date -u
