#!/usr/bin/env bash
# Call D of run 40 (device tool `run`, carry ["target/strip"], binaries of
# the commit that adds this file, built and stripped here): the CUDA check of
# the candidate default and the per-warp clock of its regions read
# (scripts/pend-ranks-run.sh, stage adopt, shortened to the check: 401 s of
# device time were left).
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L && CHECK_ONLY=1 CHECK_LIMIT=330 DIFF_BUDGET=40 bash scripts/pend-ranks-run.sh adopt
