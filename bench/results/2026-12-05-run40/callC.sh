#!/usr/bin/env bash
# Call C of run 40 (device tool `run`, carry ["target/strip"], binaries of
# 735098a, built and stripped here): each thread's
# clock in the pending finish's first regions read (scripts/pend-ranks-run.sh,
# stage regions: the per-thread clock, then the A/B of the flat regions read).
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L && bash scripts/pend-ranks-run.sh regions
