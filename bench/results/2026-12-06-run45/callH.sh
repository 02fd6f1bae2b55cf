#!/usr/bin/env bash
# Run 45, call H (the three binaries of scripts/carry-build.sh, carried as
# target/strip): the committed head after the run, whose kernels hold call
# G's instructions in another layout (the 64-bit radix cut and the select's
# L2 path removed, the 32-bit radix cut renamed): the CUDA check and the
# conformance full tier on the CUDA backend.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment head-check 120 --no-timing --no-invariance --diff-budget-s 30
date -u
TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -22
date -u
