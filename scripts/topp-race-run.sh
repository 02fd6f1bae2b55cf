#!/usr/bin/env bash
# The bf16 top-p histogram's own race (kernels/topp.cu, TR_TOPP_RACE; off by
# default: run 34 ran this and measured it slower) on the device machine, in
# one call:
#  1. the whole check of a build with TR_TOPP_RACE=1 (the differential
#     against the CPU model, in which the check counts the rows the
#     histogram raced and fails where none was; the invariance against the
#     build without it, TR_TOPP_RACE=0, which the check also times, and
#     against the racing build that loads four units at once in the count
#     instead of two, TR_TOPP_RACE_UNITS=4), with the timing in top-p 0.9
#     at B = 1 to 256;
#  2. the phase clock of B = 64 with it (the histogram's and the race
#     kernel's stamps).
# Build here: cargo build --release, strip into target/strip (tailrace-cuda-
# check); then the device tool's `run` with carry ["target/strip"], command:
#   mkdir -p target/release && cp target/strip/* target/release/ && bash scripts/topp-race-run.sh
# Logs: $OUT/topp-race/ (check.log, check-summary.json, phase.txt), packed
# as $OUT/topp-race.tgz. docs/cuda-notes.md, run 31.
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
L=/tmp/topp-race
check_experiment topp-race 450 --checked-define TR_TOPP_RACE=1 --iters 40 --diff-budget-s 60 \
  --variants-only --variant-mode top_p0.9 --variant-rows 1,8,16,32,64,128,256 \
  --variant "TR_TOPP_RACE=0" --variant "TR_TOPP_RACE=1;TR_TOPP_RACE_UNITS=4"
OUT=$L CONFIGS="64:0:0.9" DEFINES="TR_TOPP_RACE=1" bash scripts/phase-run.sh >"$L/phase.txt" 2>&1
tail -30 "$L/phase.txt"
tar -C /tmp -czf "$OUT/topp-race.tgz" topp-race
