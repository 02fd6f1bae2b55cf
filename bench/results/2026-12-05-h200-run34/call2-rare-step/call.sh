#!/usr/bin/env bash
# Run 34, call 2 (the working tree of 65c441a with TR_RACE_RARE_SHORT=7 made
# the default in kernels/sample.cu): the whole check of that build
# (differential; invariance against the rare step as it was, 0, and without
# the class-cutoff turns, 3), timed in plain sampling at B = 1 to 1024
# beside them; the full-tier CUDA conformance of the same build.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/rare-step; mkdir -p $L
check_experiment rare-step 270 --iters 40 --diff-budget-s 20 \
  --variants-only --variant-mode plain --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_RARE_SHORT=0" --variant "TR_RACE_RARE_SHORT=3"
timeout 110 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 4 $L/conformance.log
tar -C /tmp -czf "$OUT/rare-step.tgz" rare-step
