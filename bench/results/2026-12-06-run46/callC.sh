#!/usr/bin/env bash
# Run 46, call C (the three binaries of scripts/carry-build.sh, carried as
# target/strip): the new default (TR_TOPP_FUSE=2, the bf16 histogram's scan
# and count in one read where the block does not stage its chunk).
# 1. The CUDA check of the committed default (differential, invariance).
# 2. The conformance full tier on the CUDA backend.
# 3. The benchmark grid with the torch/Triton baselines and the targets
#    (what `cargo xtask bench` runs), and in the same process the grid of
#    TR_TOPP_FUSE=0 (the two reads, run 45's kernels).
# Prediction: the grid's top-p 0.9 bf16 rows at B = 256 and 1024 15 and 60
# us faster per call than the TR_TOPP_FUSE=0 grid, everything else within
# the spread; top-p <= 3x plain met at every B on this GPU.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment head-check 120 --diff-budget-s 30 --variant "TR_TOPP_FUSE=0"
date -u
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -8
mkdir -p "$OUT/conf" && mv "$OUT/conformance_report.md" "$OUT/conformance_report.json" "$OUT/logs.tgz" "$OUT/conf/" 2>/dev/null
date -u
EXTRA_GRIDS="fuse0:TR_TOPP_FUSE=0" ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
date -u
