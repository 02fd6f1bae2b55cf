#!/usr/bin/env bash
# Run 41, call B (same binaries as call A, on the machine call A left warm):
# the conformance suite's full tier on the CUDA backend of the default build
# (direct ranks and flat regions read, default since da1996c), owed since
# run 40 changed the default.
set -u
mkdir -p target/release && cp target/strip/* target/release/
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
bash scripts/gpu-evidence.sh sampler
date -u
