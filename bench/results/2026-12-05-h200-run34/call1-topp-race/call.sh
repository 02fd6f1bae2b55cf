#!/usr/bin/env bash
# Run 34, call 1 (binaries of 63ce7d4): run 31's race inside the top-p
# histogram, scripts/topp-race-run.sh as committed.
mkdir -p target/release && cp target/strip/* target/release/ && bash scripts/topp-race-run.sh
