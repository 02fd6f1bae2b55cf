#!/usr/bin/env bash
# Run 42, call D (the same H200): the phase clock at top-p 0.9 B = 1 of the
# default and of TR_TOPP_SETTLE=1, to see where call B's 11.6 us went.
mkdir -p target/release && cp target/strip/* target/release/ && (CONFIGS="1:0:0.9" TAG=-default bash scripts/phase-run.sh; CONFIGS="1:0:0.9" TAG=-settle DEFINES="TR_TOPP_SETTLE=1" bash scripts/phase-run.sh) 2>&1 | tee $OUT/phase.txt; grep -c "" $OUT/ph-*.txt
