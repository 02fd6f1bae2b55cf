#!/usr/bin/env bash
# Call B of run 40 (device tool `run`, carry ["target/strip"], binaries of
# the commit that adds this file, built and stripped here): the finish's
# arguments copied for the call, with its prediction in
# scripts/pend-ranks-run.sh (stage args).
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L && bash scripts/pend-ranks-run.sh args
