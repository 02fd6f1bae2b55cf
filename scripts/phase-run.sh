#!/usr/bin/env bash
# The pass kernel's phase clock (kernels/common.cuh, TR_PHASE_PRINT) on the
# device machine: for each configuration, one `bench` process of a build with
# the stamps compiled in, summarized by scripts/phase-clock.py.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/phase-run.sh
# Environment: CONFIGS ("rows:top_k:top_p ...", default "1:50:0.9 8:50:0.9"),
# REPS (launches a configuration, the first a warm-up; default 6), DEFINES
# (more NAME=VALUE defines for the stamped build, space-separated, e.g.
# TR_TOPP_SELECT_TWICE=1), TAG (a suffix of the raw files' names), BENCH_ARGS
# (more arguments of `bench`, e.g. --no-pdl). The raw lines land in
# $OUT/ph-ROWS-K-P.txt.
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
extra=""
for d in ${DEFINES:-}; do extra="$extra --checked-define $d"; done
for c in ${CONFIGS:-1:50:0.9 8:50:0.9}; do
  IFS=: read -r rows k p <<< "$c"
  f="$OUT/ph-$rows-$k-$p${TAG:-}.txt"
  echo "=== rows $rows top_k $k top_p $p"
  timeout 120 "$BIN" --checked-define TR_PHASE_PRINT=1 $extra bench --rows "$rows" --top-k "$k" \
    --top-p "$p" --reps "${REPS:-6}" ${BENCH_ARGS:-} >"$f" 2>&1
  # The pass kernel's lines, and the top-p kernels' where the call ran them.
  for tag in tr_phase tr_phase_hist tr_phase_gather; do
    if grep -q "^$tag " "$f"; then
      echo "--- $tag"
      python3 scripts/phase-clock.py --tag "$tag" "$f" | tail -n 4
    fi
  done
done
