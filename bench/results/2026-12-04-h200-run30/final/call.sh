#!/usr/bin/env bash
# Run 30, call 5 (binaries of eee00d6): acceptance and the grid. The check
# with the select's middle masses by shared atomics in every run as its
# variant (invariance), timed in top-p 0.9 with the default kernels a second
# time under the same options (opts:topp_trigger=auto: the first-timed bias);
# the full-tier CUDA conformance; then what `cargo xtask bench` runs (grid at
# 40 iterations, baselines, report, targets, Nsight's B = 1 kernel time).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/evidence-logs; mkdir -p $L
timeout 220 target/release/tailrace-cuda-check --out $L/check-summary.json --iters 40 --diff-budget-s 12 --variants-only --variant-mode top_p0.9 --variant-rows 1,8,32,64,256 --variant opts:topp_trigger=auto --variant "TR_TOPP_CSEL_MID_WARP=0" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep "V=131072" $L/check.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" $L/check.log | tail -7
timeout 80 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 4 $L/conformance.log
ITERS=40 bash scripts/gpu-evidence.sh bench
