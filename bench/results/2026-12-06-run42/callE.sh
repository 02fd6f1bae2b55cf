#!/usr/bin/env bash
# Run 42, call E (binaries from scripts/carry-build.sh at the commit adding
# this file): where call D's 22 us of the race after the cut go. The phase
# clock at top-p 0.9 B = 1 of TR_TOPP_SETTLE=1 with TR_TOPP_SETTLE_TWICE=1:
# every block settles the row twice, the second time warm; in the block that
# found the cut, slot 7 the settle begun, 4 the first (cold) run's first
# pass done, 9 the first run's end, 8 the second's end. Prediction: if cold
# code is most of it, the warm run takes under 8 us against the cold run's
# 20-22; if not (the bounds' binary64 work, the exact scores), the two are
# within 30%.
# Carry ["target/strip-check"]: the check binary and BUILT alone (with the
# three binaries the working tree passed the tool's 64 MiB).
mkdir -p target/release && cp target/strip-check/* target/release/
nvidia-smi --query-gpu=name --format=csv,noheader
CONFIGS="1:0:0.9" REPS=6 TAG=-twice DEFINES="TR_TOPP_SETTLE=1 TR_TOPP_SETTLE_TWICE=1" \
    bash scripts/phase-run.sh 2>&1 | tee "$OUT/phase-twice.txt"
# The block that found the cut (slot 8 set): its raw slots, cycles since its start.
grep "^tr_phase_hist" "$OUT"/ph-1-0-0.9-twice.txt | awk '$12 != -1' | tail -n 6
