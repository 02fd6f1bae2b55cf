#!/usr/bin/env bash
# Run 47, call C (the three binaries of scripts/carry-build.sh, carried as
# target/strip): the committed default (the non-exact profiles' eight-chain
# loop with the warp's threshold).
# 1. The conformance full tier on the CUDA backend.
# 2. The benchmark grid with the torch/Triton baselines and the targets
#    (what `cargo xtask bench` runs).
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -8
mkdir -p "$OUT/conf" && mv "$OUT/conformance_report.md" "$OUT/conformance_report.json" "$OUT/logs.tgz" "$OUT/conf/" 2>/dev/null
date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
date -u
