#!/usr/bin/env bash
# Call A of run 40 (device tool `run`, carry ["target/strip"], binaries of
# 614117b built and stripped here): the direct ranks' timing stage, with its
# predictions in scripts/pend-ranks-run.sh.
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L && bash scripts/pend-ranks-run.sh time
