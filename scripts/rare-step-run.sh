#!/usr/bin/env bash
# The exact race's shorter rare step (kernels/sample.cu, TR_RACE_RARE_SHORT;
# 7, the default since run 34, which timed it; 0 is the rare step as it was)
# on the device machine, in one call:
#  1. the whole check of a build with TR_RACE_RARE_SHORT=7 (the differential
#     against the CPU model; the invariance against the builds timed beside
#     it: 0, the rare step as it is, 1, the warp maximum by key only, 3,
#     with the block threshold's 32-bit atomic too, and 7 with the block
#     threshold's refresh every step, TR_RACE_REFRESH=1, which run 19 measured
#     0.5 us faster at B = 256 and slower at B = 1024 with the rare step as
#     it was), timed in plain sampling at B = 1 to 1024 (and f32, f16 at
#     B = 256);
#  2. the warp clock of B = 256 (rare steps a warp, cycles a rare step) for
#     0 and 7.
# Build here: cargo build --release, strip into target/strip (tailrace-cuda-
# check); then the device tool's `run` with carry ["target/strip"], command:
#   mkdir -p target/release && cp target/strip/* target/release/ && bash scripts/rare-step-run.sh
# Logs: $OUT/rare-step/ (check.log, check-summary.json, warp-*.txt), packed
# as $OUT/rare-step.tgz. docs/cuda-notes.md, run 33.
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
L=/tmp/rare-step
check_experiment rare-step 420 --checked-define TR_RACE_RARE_SHORT=7 --iters 40 --diff-budget-s 60 \
  --variants-only --variant-mode plain --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_RARE_SHORT=0" --variant "TR_RACE_RARE_SHORT=1" \
  --variant "TR_RACE_RARE_SHORT=3" --variant "TR_RACE_RARE_SHORT=7;TR_RACE_REFRESH=1"
OUT=$L REPS=3 CONFIGS="256:TR_RACE_RARE_SHORT=0 256:TR_RACE_RARE_SHORT=7" bash scripts/warp-run.sh
tar -C /tmp -czf "$OUT/rare-step.tgz" rare-step
