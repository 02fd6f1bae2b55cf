#!/usr/bin/env bash
# Run 47, call H (the three binaries of scripts/carry-build.sh at the head
# with TR_DIRECT_PREFETCH=1): the conformance full tier on the CUDA backend.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
CONF_TIMEOUT=80 TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -8
date -u
