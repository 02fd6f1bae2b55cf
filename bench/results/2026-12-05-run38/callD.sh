#!/usr/bin/env bash
# Run 38, call D (1d9c028): the grid alone, asked for right after call C,
# which ran on an H200; the machine had been handed back and the fresh one
# was an H100, so this is a second H100 grid of the same build as call A.
set -u
mkdir -p target/release && cp target/strip/* target/release/ && . scripts/device-env.sh && ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -5
