#!/usr/bin/env bash
# Run 48, call A (the three binaries of scripts/carry-build.sh at 589dc63,
# carried as target/strip-589), asked of an H200, the GPU of the issue's
# targets: the benchmark grid of the default (runs 46 and 47's kernels) with
# the torch/Triton baselines and the targets, then the conformance full tier
# on the CUDA backend. Prediction (from the H100 grids of runs 46-47): bf16
# top-p 0.9 at B >= 64 about 0.83x run 42's H200 grid per call, f32/f64 plain
# at B >= 64 about 0.5x, exact plain unchanged within 2%.
set -u
mkdir -p target/release && cp target/strip-589/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
CONF_TIMEOUT=120 TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -8
# At most eight files come back: report.md is in logs.tgz too.
rm -f "$OUT/report.md"
ls "$OUT"; date -u
