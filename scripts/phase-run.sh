#!/usr/bin/env bash
# The pass kernel's phase clock (kernels/common.cuh, TR_PHASE_PRINT) on the
# device machine: for each configuration, one `bench` process of a build with
# the stamps compiled in, summarized by scripts/phase-clock.py.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/phase-run.sh
# Environment: CONFIGS ("rows:top_k:top_p ...", default "1:50:0.9 8:50:0.9"),
# REPS (launches a configuration, the first a warm-up; default 6). The raw
# lines land in $OUT/ph-ROWS-K-P.txt.
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
for c in ${CONFIGS:-1:50:0.9 8:50:0.9}; do
  IFS=: read -r rows k p <<< "$c"
  f="$OUT/ph-$rows-$k-$p.txt"
  echo "=== rows $rows top_k $k top_p $p"
  timeout 120 "$BIN" --checked-define TR_PHASE_PRINT=1 bench --rows "$rows" --top-k "$k" \
    --top-p "$p" --reps "${REPS:-6}" >"$f" 2>&1
  python3 scripts/phase-clock.py "$f" | tail -n 4
done
