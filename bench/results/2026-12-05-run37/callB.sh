#!/usr/bin/env bash
# Run 37, call B (fe51c22 plus host-side tooling; kernels as 4eefd2f):
# 1. the full-tier CUDA conformance of the final build (run 35's full tier
#    ran a build whose tr_fast_wide_pend_bf16 had other registers; run 36
#    checked that kernel with the check binary only);
# 2. the threshold's refresh in the lean builds (TR_RACE_REFRESH_LEAN, "What
#    is left" 1a) once more, with the default build timed both first and
#    last in the process (run 36 timed it first only, and its top-p B = 64
#    read 0.8-1.7 us slower than every variant).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
mkdir -p /tmp/conf
timeout 240 target/release/xtask conformance --backend cuda --tier full --out /tmp/conf > /tmp/conf/conformance.log 2>&1
echo "conformance exit $?" >> /tmp/conf/conformance.log
cp /tmp/conf/report.md "$OUT/conformance_report.md"; cp /tmp/conf/report.json "$OUT/conformance_report.json"
tail -n 4 /tmp/conf/conformance.log
check_experiment refresh 300 --iters 40 --diff-budget-s 5 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 64,256,1024 \
  --variant "TR_RACE_REFRESH_LEAN=1" --variant "TR_RACE_REFRESH_LEAN=4" --variant "TR_RACE_REFRESH_LEAN=0"
