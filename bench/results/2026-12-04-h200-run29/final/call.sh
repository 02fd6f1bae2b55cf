#!/usr/bin/env bash
# Run 29, call 2 (binaries of 8e89cb1): the late top-p trigger from 2 rows
# and the empty kernel queued behind enough fills. The check (invariance
# against topp_trigger=early and =late), the full-tier CUDA conformance,
# then what `cargo xtask bench` runs (grid at 40 iterations, baselines,
# report, targets, Nsight's B = 1 kernel time). Logs and the conformance
# report in /tmp/evidence-logs, tarred by the bench stage.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/evidence-logs; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant opts:topp_trigger=early --variant opts:topp_trigger=late > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error|without a first" $L/check.log | tail -8
timeout 240 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 4 $L/conformance.log
ITERS=40 bash scripts/gpu-evidence.sh bench
