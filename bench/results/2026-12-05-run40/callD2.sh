#!/usr/bin/env bash
# Call D2 of run 40 (device tool `run` on the machine call D left warm, carry
# ["target/strip"], binaries of 3742b6a): the per-warp clock of the flat
# regions read (the second half of scripts/pend-ranks-run.sh, stage adopt),
# given as this command line. The build prints a line a row from inside the
# finish, so its phase stamps from "regions read" on include printf's time;
# the per-warp clocks are taken before it.
mkdir -p target/release && cp target/strip/* target/release/ && CONFIGS="1:0:0.9 64:0:0.9" REPS=4 TAG=-rcflat DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=1 TR_PEND_GATHER_FLAT=1 TR_PEND_REGION_CLOCK=1" bash scripts/phase-run.sh 2>&1 | tail -30; for f in $OUT/ph-*.txt; do echo "--- $f"; grep "^tr_pend_regions" $f | tail -n 6; done; cd $OUT && tar -czf regions.tgz ph-*.txt && rm -f ph-*.txt
