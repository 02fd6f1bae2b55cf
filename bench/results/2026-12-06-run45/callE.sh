#!/usr/bin/env bash
# Run 45, call E (the check binary from scripts/carry-build.sh): where the
# f32 top-p call's histogram and gather spend their time now (call D
# refuted the prefetches): the phase clocks of both at B = 1, 8 and 256.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
CONFIGS="1:0:0.9 8:0:0.9 256:0:0.9" BENCH_ARGS="--dtype f32" REPS=6 bash scripts/phase-run.sh
for f in /tmp/tailrace-out/ph-*.txt; do gzip -f "$f"; done
date -u
