#!/usr/bin/env bash
# Run 49, call A (the three binaries of scripts/carry-build.sh at 4a744a2,
# carried as target/strip), asked of an H200, the GPU of the targets:
# the benchmark grid of the default (runs 46-48's kernels) with the
# torch/Triton baselines and the targets, then the conformance full tier on
# the CUDA backend. Prediction against run 42's H200 grid (from the H100 grids
# of runs 46-48): f32/f64 plain at B >= 64 about 0.45-0.5x per call, min-p
# 0.05 about 0.4-0.5x, top-p 0.9 0.55-0.65x; bf16 exact rows within 3%
# except top-p 0.9 at B >= 64 (run 46's change) about 0.83x.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/strip/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
date -u
DIFF_BUDGET=20 CONF_TIMEOUT=120 TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -8
# At most eight files come back: these two are in logs.tgz too.
tar -C /tmp -czf "$OUT/logs.tgz" evidence-logs 2>/dev/null
rm -f "$OUT/report.md" "$OUT/conformance_report.json"
ls "$OUT"; date -u
