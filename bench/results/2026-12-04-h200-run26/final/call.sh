#!/usr/bin/env bash
# Run 26, final call C (binaries of 033addf): what
# `cargo xtask bench` runs (grid at 40 iterations, torch/Triton baselines,
# report, targets, Nsight's B = 1 kernel time), alone on the GPU; then the
# full-tier CUDA conformance of the same build.
set -u
mkdir -p target/release && cp target/strip/* target/release/
ITERS=40 bash scripts/gpu-evidence.sh bench
. scripts/device-env.sh
timeout 170 target/release/xtask conformance --backend cuda --tier full --out /tmp/conf > /tmp/conf.log 2>&1; echo "conformance exit $?" >> /tmp/conf.log
tail -n 3 /tmp/conf.log
cp /tmp/conf/report.md $OUT/conformance_report.md 2>/dev/null; cp /tmp/conf/report.json $OUT/conformance_report.json 2>/dev/null; cp /tmp/conf.log $OUT/conformance.log
