#!/usr/bin/env bash
# Run 41, call C (same binaries, the H100 calls A and B left warm; no H200
# had come): the grid with the torch/Triton baselines of the default build
# (direct ranks, flat regions read), with the grid of the build before run
# 40's change (TR_PEND_RANK_DIRECT=0, TR_PEND_GATHER_FLAT=0) in the same
# process right after it (tailrace-before.json), so the whole grid's change
# is read on one machine. Predictions: as call A's part 1 (top-p 0.9 B = 1
# about 1.2 us faster queued, B = 8-256 within 0.6 us, other modes the same).
set -u
mkdir -p target/release && cp target/strip/* target/release/
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
EXTRA_GRIDS="before:TR_PEND_RANK_DIRECT=0;TR_PEND_GATHER_FLAT=0" ITERS=40 timeout 520 bash scripts/gpu-evidence.sh bench 2>&1 | tail -n 60
date -u
