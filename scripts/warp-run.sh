#!/usr/bin/env bash
# The exact race's warp clock (kernels/common.cuh, TR_WARP_PRINT) on the
# device machine: for each configuration, one `bench` process of a build with
# the counters compiled in, summarized by scripts/warp-clock.py.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/warp-run.sh
# Environment: CONFIGS ("rows[:DEFINE,DEFINE...] ...", default "256"; e.g.
# "256 256:TR_CUTOFF_CLOSED=0"), REPS (launches a configuration, the first a
# warm-up; default 4). The raw lines land in $OUT/warp-ROWS[-DEFINES].txt.
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
for c in ${CONFIGS:-256}; do
  rows=${c%%:*}
  defs=()
  tag=$rows
  if [ "$c" != "$rows" ]; then
    IFS=, read -r -a list <<< "${c#*:}"
    for d in "${list[@]}"; do defs+=(--checked-define "$d"); tag="$tag-${d//[^A-Za-z0-9_=]/_}"; done
  fi
  f="$OUT/warp-$tag.txt"
  echo "=== rows $rows defines ${c#"$rows"}"
  timeout 150 "$BIN" --checked-define TR_WARP_PRINT=1 "${defs[@]}" bench --rows "$rows" \
    --reps "${REPS:-4}" >"$f" 2>&1
  python3 scripts/warp-clock.py "$f" | tail -n 24
done
