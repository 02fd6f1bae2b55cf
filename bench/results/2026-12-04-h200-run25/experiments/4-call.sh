#!/usr/bin/env bash
# Run 25, call 4: where the pending rows' race spends its extra time: the
# pass kernel's phase clock (slots 7-12 inside tr_pend_finish) at B = 8 and
# 256, top-p 0.9, V = 131072.
set -u
mkdir -p target/release && cp target/strip/* target/release/
CONFIGS="8:0:0.9 256:0:0.9" REPS=4 timeout 200 bash scripts/phase-run.sh
tar -C $OUT -czf /tmp/r25-call4.tgz . && mv /tmp/r25-call4.tgz $OUT/
