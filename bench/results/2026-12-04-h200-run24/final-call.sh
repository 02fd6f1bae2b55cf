#!/usr/bin/env bash
# Run 24, final call (kernels of 1715455): the acceptance check (invariance
# against the old scan, TR_SCAN_UNIT_MAX=0) beside the full-tier CUDA
# conformance; the benchmark grid with the baselines, report and targets,
# and the old scan's grid right after; torch's read bandwidth.
# (Binaries of commit 35c802a.)
set -u
mkdir -p target/release && cp target/strip/* target/release/
TIER=full DIFF_BUDGET=50 CHECK_TIMEOUT=200 CONF_TIMEOUT=330 VARIANT="TR_SCAN_UNIT_MAX=0" bash scripts/gpu-evidence.sh accept
ITERS=60 EXTRA_GRIDS="old:TR_SCAN_UNIT_MAX=0" bash scripts/gpu-evidence.sh bench
timeout 60 python3 bench/read_bandwidth.py --out $OUT/read_bandwidth.json
