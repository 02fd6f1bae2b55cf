#!/usr/bin/env bash
# Run 37, call D: the check binary that times every build at one shape on
# the same requests (timing_requests; before, each build's timings drew
# their own seeds from one sequence, so an A/B compared two draws of the
# noise too). Timing only, the default kernels of fe51c22 and four
# variants in the order default, L1, L0, L1', L0': L0 and L0' are the
# default again (A/A), L1 and L1' the refresh in the lean builds
# (TR_RACE_REFRESH_LEAN=1). TR_AB_REPEAT is read by no kernel: it only
# makes a second, identical build under another name.
# Prediction (written before the call): the A/A pairs within 0.5 us at top-p
# 0.9 B = 64; L1 against L0 there within 0.7 us, i.e. the 1.7-2.5 us read in
# calls 36 A and 37 B came mostly from the seeds.
set -u
mkdir -p target/release && cp target/strip/tailrace-cuda-check target/release/
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
check_experiment aa 300 --timing-only --iters 40 \
  --variants-only --variant-mode plain,top_p0.9 --variant-rows 1,8,64,256,1024 \
  --variant "TR_RACE_REFRESH_LEAN=1" --variant "TR_RACE_REFRESH_LEAN=0" \
  --variant "TR_RACE_REFRESH_LEAN=1;TR_AB_REPEAT=1" --variant "TR_RACE_REFRESH_LEAN=0;TR_AB_REPEAT=1"
