#!/usr/bin/env bash
# Kernel variants timed against the default with an A/A beside them, on the
# device machine, in one call (timing only: no differential or invariance
# check; run the whole check before adopting a variant). The check binary
# times every build configuration by configuration, each in turn with the
# first place rotating, after an untimed round, on the same requests; with
# --variant-aa a second build of the default kernels runs among them, and
# the log's "A/A" line gives the largest and median difference between the
# two copies of the default: an A/B difference below it is not a result.
# Run 37 (docs/cuda-notes.md) measured that spread at up to 3 us per call
# at top-p 0.9, B = 64, with the builds timed one after the other; run 38,
# interleaved, at 1.95 us with 40 timings a build (an H100) and 0.51 us with
# 100 (an H200; the two differ in GPU as well as in count), hence 100 by
# default. The log's "A/B" lines give each variant's difference from the
# mean of the two copies and whether it exceeds the A/A's largest.
# Environment: VARIANTS (the variants, separated by "|", each
# `NAME=VALUE;NAME=VALUE` or `opts:...`; required), MODES (default
# plain,top_p0.9; `MODE@PROFILE`, e.g. plain@f32, times a mode with a
# non-exact noise profile), ROWS (default 1,8,64,256,1024), DTYPE (the logit type
# of the ROWS timings, default bf16; B = 256 of the other two is timed
# too), ITERS (default 100),
# LIMIT (seconds, default 400), NAME (log folder, default ab). At 100
# timings a build, ROWS=64,256 with one variant (8 configurations, 3
# builds) took 146 s on an H200 (run 38, call C); the default rows time 14
# configurations: with more than one variant there, narrow ROWS or MODES or
# raise LIMIT.
# Build here: bash scripts/carry-build.sh (into target/strip); then the device tool's `run` with carry
# ["target/strip"], command:
#   mkdir -p target/release && cp target/strip/* target/release/ && VARIANTS="TR_X=1" bash scripts/variant-ab.sh
# Logs: $OUT/$NAME.tgz (check.log, timing.txt, check-summary.json, whose
# timing.variant_aa holds the A/A's pairs and timing.variant_ab each
# variant's differences).
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
: "${VARIANTS:?VARIANTS must name the variants, separated by |}"
args=()
IFS='|' read -r -a vs <<< "$VARIANTS"
for v in "${vs[@]}"; do args+=(--variant "$v"); done
check_experiment "${NAME:-ab}" "${LIMIT:-400}" --timing-only --iters "${ITERS:-100}" \
  --variants-only --variant-aa --variant-mode "${MODES:-plain,top_p0.9}" \
  --variant-rows "${ROWS:-1,8,64,256,1024}" --variant-dtype "${DTYPE:-bf16}" "${args[@]}"
grep -E "A/A|A/B" "/tmp/${NAME:-ab}/check.log"
