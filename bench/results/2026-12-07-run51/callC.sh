#!/usr/bin/env bash
# Run 51, call C: the pass kernel's phase clock (scripts/phase-run.sh) of
# top-k 50 + top-p 0.9 at B = 1 and 8:
# where the 5 us that B = 8 adds to the fused path's call go (call A: 20.8
# -> 25.8 us per call for top-k 50 on an H100, against plain's 12.5 ->
# 15.4). Check binary of scripts/carry-build.sh at 7986b4c, carried as
# target/strip-check.
# Prediction: the rows' last blocks take about as long at B = 8 as at B =
# 1 (the merge of 33 lists against 64), and the scan step before the
# chunk list grows by the second unit a thread (two steps instead of one).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; date -u
CONFIGS="1:50:0.9 8:50:0.9" REPS=6 timeout 170 bash scripts/phase-run.sh
ls "$OUT"; date -u
