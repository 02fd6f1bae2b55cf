#!/usr/bin/env bash
# Run 34, call 4 (the same warm machine and binaries as call 3): the block
# threshold's refresh every step (TR_RACE_REFRESH=1) timed beside the new
# default in plain sampling, then the warp clock of plain B = 256 with the
# rare step as it was (0) and the shorter one (7), three launches each.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
mkdir -p /tmp/extra
(timeout 150 target/release/tailrace-cuda-check --timing-only --iters 40 --variants-only \
  --variant-mode plain --variant-rows 1,8,64,256,1024 --variant "TR_RACE_REFRESH=1" \
  --out /tmp/extra/refresh.json > /tmp/extra/refresh.log 2>&1; echo "exit $?" >> /tmp/extra/refresh.log)
grep "V=131072" /tmp/extra/refresh.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'
OUT=/tmp/extra REPS=3 CONFIGS="256:TR_RACE_RARE_SHORT=0 256:TR_RACE_RARE_SHORT=7" timeout 300 bash scripts/warp-run.sh
tar -C /tmp -czf $OUT/extra.tgz extra
