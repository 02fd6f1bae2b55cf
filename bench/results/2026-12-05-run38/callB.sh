#!/usr/bin/env bash
# Run 38, call B (1d9c028): the interleaved variant timing with its A/A, on
# the same requests: the lean refresh, and run 35's lean loop turned off
# (both of its knobs), against the default and a second copy of it.
set -u
mkdir -p target/release && cp target/strip/* target/release/
VARIANTS="TR_RACE_REFRESH_LEAN=1|TR_RACE_STEP_PAIRS=0;TR_RACE_RING_ALL=0" LIMIT=420 bash scripts/variant-ab.sh
