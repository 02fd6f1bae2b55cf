#!/usr/bin/env bash
# Run 44, call C (the check binary from scripts/carry-build.sh): why call B's
# phase clock saw about 1.5 rows a launch of f32 top-p 0.9 at B = 256 go to
# the gather's filter fallback (a whole-row radix select in one block, up
# to 300 us), different rows in each launch. A build with
# TR_TOPP_WALK_DIAG=1 prints every row whose cut's list is over the cap,
# whose walk's masses fall short of r, and every fallback; run for the new
# default and for the loop before run 44 (TR_TOPP_MASS_INLINE=1).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
for cfg in "256:" "1024:" "64:" "256:TR_TOPP_MASS_INLINE=1"; do
  IFS=: read -r rows d <<< "$cfg"
  f="$OUT/diag-$rows${d:+-$d}.txt"
  timeout 100 "$BIN" --checked-define TR_TOPP_WALK_DIAG=1 ${d:+--checked-define $d} bench --dtype f32 \
    --rows "$rows" --top-p 0.9 --reps 6 > "$f" 2>&1
  echo "=== B=$rows ${d:-default}: exit $?, short walks $(grep -c tr_walk_short "$f"), over the cap $(grep -c tr_walk_cap "$f"), fallbacks $(grep -c tr_gather_fallback "$f")"
  grep -E "tr_walk|tr_gather_fallback" "$f" | head -8
done
date -u
