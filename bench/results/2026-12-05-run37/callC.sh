#!/usr/bin/env bash
# Run 37, call C: the build with TR_RACE_REFRESH_LEAN=1 as its default (its
# whole-cubin disassembly equals fe51c22's with that define, the variant
# calls 36 A and 37 B checked for invariance). The whole check of that
# default (differential, long, segmented, large-batch groups, invariance,
# graph replay), the old default (=0) as a variant, and the new one again
# (=1) so that it is timed both first and last in the process; then the
# full-tier CUDA conformance of the new default.
# Prediction (written before the call): top-p 0.9 at B = 64 1.5-2.5 us
# faster per call than =0; top-p at B = 1, 8, 256, 1024 and plain at every B
# within 0.5 us.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
check_experiment lean1 400 --iters 40 --diff-budget-s 15 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_REFRESH_LEAN=0" --variant "TR_RACE_REFRESH_LEAN=1"
mkdir -p /tmp/conf
timeout 150 target/release/xtask conformance --backend cuda --tier full --out /tmp/conf > /tmp/conf/conformance.log 2>&1
echo "conformance exit $?" >> /tmp/conf/conformance.log
cp /tmp/conf/report.md "$OUT/conformance_report.md"; cp /tmp/conf/report.json "$OUT/conformance_report.json"
tail -n 4 /tmp/conf/conformance.log
