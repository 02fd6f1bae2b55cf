#!/usr/bin/env bash
# Run 41, call D (binaries from scripts/carry-build.sh at 22ef66c: the
# default kernels byte for byte 393a464's, every carried binary checked to
# hold them; a fresh machine asked for without naming a card).
# 1. The conformance suite's full tier on the CUDA backend of the default
#    build: call B's ran an xtask built at dd79c5f (an old build line left
#    it stale; its report's "built from commit" says so), i.e. the kernels
#    before run 40's change, so the new default's full tier is still owed.
# 2. Where the GPU is an H200: the grid with the torch/Triton baselines
#    (call A's part 1; the targets are set for an H200). Otherwise nothing
#    more (call C took the H100 grid; device time is short after refused
#    starts).
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/release/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
bash scripts/gpu-evidence.sh sampler 2>&1 | tail -n 8
(cd "$OUT" && mv logs.tgz conformance-logs.tgz)
date -u
case "$gpu" in
*H200*) ITERS=40 timeout 380 bash scripts/gpu-evidence.sh bench 2>&1 | tail -n 60 ;;
*) echo "not an H200: no grid" ;;
esac
date -u
