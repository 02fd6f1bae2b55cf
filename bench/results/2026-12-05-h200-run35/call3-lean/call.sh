#!/usr/bin/env bash
# Run 35, call 3 (the working tree with TR_RACE_STEP_PAIRS=1 and
# TR_RACE_RING_ALL=1 as defaults in kernels/sample.cu): the check of that
# build (differential; invariance against the loop as it was,
# TR_RACE_STEP_PAIRS=0;TR_RACE_RING_ALL=0, against RING_ALL alone,
# TR_RACE_STEP_PAIRS=0, and against pairs in the 80-register builds too,
# TR_RACE_STEP_PAIRS=3), timed beside them in plain and top-p 0.9 at B = 1
# to 1024; then the full-tier CUDA conformance of the same build.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/lean; mkdir -p $L
check_experiment lean 330 --iters 40 --diff-budget-s 20 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_STEP_PAIRS=0;TR_RACE_RING_ALL=0" --variant "TR_RACE_STEP_PAIRS=0" \
  --variant "TR_RACE_STEP_PAIRS=3"
timeout 120 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 4 $L/conformance.log
tar -C /tmp -czf "$OUT/lean.tgz" lean
