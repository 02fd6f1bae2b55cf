#!/usr/bin/env bash
# Run 34, call 3 (right after call 2, on the same warm machine; binaries of
# the working tree of 65c441a with TR_RACE_RARE_SHORT=7 as the default, the
# tree committed as the next commit): what `cargo xtask bench` runs (grid at
# 40 iterations, baselines, report, targets, Nsight's B = 1 kernel time).
# Call 2 (../call2-rare-step/call.sh) was this build's check and conformance.
set -u
mkdir -p target/release && cp target/strip/* target/release/
ITERS=40 bash scripts/gpu-evidence.sh bench
