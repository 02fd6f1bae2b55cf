#!/usr/bin/env bash
# Run 48, call D (the check binary of scripts/carry-build.sh at dd20b7b,
# carried as target/strip-check): call C's grid had the f64 profile's
# top-p 0.9 at B = 1024 881.2 us per call, against 832.1 in run 47's call
# G (another process); call B timed TR_DIRECT_LIVE on f32 top-p and f64
# min-p only. Timing with the A/A against TR_DIRECT_LIVE=0 at f64 top-p
# 0.9, B = 64 / 256 / 1024. Prediction: within the A/A or faster (call B:
# f32 top-p 0.98x at B = 1024).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=top_p0.9@f64 ROWS=64,256,1024 ITERS=30 LIMIT=150 \
    VARIANTS="TR_DIRECT_LIVE=0" NAME=f64-ab bash scripts/variant-ab.sh
date -u
