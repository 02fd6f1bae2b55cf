#!/usr/bin/env bash
# Run 38, call C (1d9c028): the A/A again with 100 timings a build instead
# of 40, at B = 64 and 256, with run 35's lean loop turned off as the one
# variant: does the A/A spread shrink with more timings (sampling noise) or
# stay (an offset between two loads of the same code)?
set -u
mkdir -p target/release && cp target/strip/* target/release/
VARIANTS="TR_RACE_STEP_PAIRS=0;TR_RACE_RING_ALL=0" ROWS=64,256 ITERS=100 LIMIT=380 bash scripts/variant-ab.sh
