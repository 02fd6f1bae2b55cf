#!/usr/bin/env bash
# Run 57, call C (on the H200 that calls A and B left warm; run inline as
# one command, written down here): the phase clock of the race kernel and
# the top-p histogram at top-p 0.9, B = 1 and 8, in main's default and with
# TR_RACE_PRESTAGE=1, eight launches each (the first a warm-up), to see
# where call B's A/B found no gain. Raw lines: ph-ROWS-0-0.9[-pre].txt.
set -u
mkdir -p target/release && cp target/strip/* target/release/
CONFIGS="1:0:0.9 8:0:0.9" REPS=8 bash scripts/phase-run.sh 2>&1 | tail -30
CONFIGS="1:0:0.9 8:0:0.9" REPS=8 TAG=-pre DEFINES="TR_RACE_PRESTAGE=1" bash scripts/phase-run.sh 2>&1 | tail -30
ls "$OUT"
