#!/usr/bin/env bash
# Run 49, call C (the three binaries of scripts/carry-build.sh at 05532b8,
# carried as target/strip), asked of an H200: call B's timing and check
# (callB.sh), then the benchmark grid of the default (TR_DIRECT_LIVE_MAX=8:
# runs 46-48's kernels, the one-by-one loop restructured) with the
# torch/Triton baselines and the targets. Prediction for the grid: call A's.
set -u
mkdir -p target/strip-check && cp target/strip/tailrace-cuda-check target/strip/BUILT target/strip-check/
bash bench/results/2026-12-06-run49/callB.sh
cp target/strip/* target/release/
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -40
# At most eight files come back: report.md is in logs.tgz too.
rm -f "$OUT/report.md"
ls "$OUT"; date -u
