#!/usr/bin/env bash
# Run 27, call 4 (binaries of 5e654ed): what `cargo xtask bench` runs (grid
# at 40 iterations, torch/Triton baselines, report, targets, Nsight's B = 1
# kernel time), alone on the GPU.
set -u
mkdir -p target/release && cp target/strip/* target/release/
ITERS=40 bash scripts/gpu-evidence.sh bench
