#!/usr/bin/env bash
# Run 49, call B (the check binary of scripts/carry-build.sh, default
# TR_DIRECT_LIVE_MAX=8 and TR_DIRECT_LIVE_PAIR=0: run 48's one-by-one loop on
# every step of a row with a cut, carried as target/strip-check).
# 1. Timing with the A/A against the warp's choice between that loop and the
#    eight chains (TR_DIRECT_LIVE_MAX=0/2/3/4: the chains where some lane of
#    the warp holds more live elements than that), the loop two a round
#    (TR_DIRECT_LIVE_PAIR=1, alone and with MAX=4) and run 47's chains on
#    every element (TR_DIRECT_LIVE=0): f64 and f32 top-p 0.9 and min-p 0.05,
#    B = 8 / 256 / 1024, bf16 V = 131072 (f32 and f16 logits at B = 256).
# 2. The CUDA check, invariance against MAX=0, PAIR=1 and MAX=3 with PAIR=1.
# Predictions (run 48: f64 top-p B = 1024 loop 881.6, chains 830.6; f32
# top-p loop 861.5, chains 875.8; min-p loop 635, chains 807): MAX=2-4 takes
# f64 top-p to 830-840 at B = 1024 and keeps min-p within 2% of the loop;
# f32 top-p within 2% of the loop; MAX=0 like TR_DIRECT_LIVE=0 at top-p and
# between the two at min-p; PAIR=1 top-p 5-10% faster than the loop for both
# profiles (half the serial rounds), min-p within 3%.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
MODES=top_p0.9@f64,top_p0.9@f32,min_p0.05@f64,min_p0.05@f32 ROWS=8,256,1024 ITERS=30 LIMIT=300 \
    VARIANTS="TR_DIRECT_LIVE_MAX=0|TR_DIRECT_LIVE_MAX=2|TR_DIRECT_LIVE_MAX=3|TR_DIRECT_LIVE_MAX=4|TR_DIRECT_LIVE_PAIR=1|TR_DIRECT_LIVE_PAIR=1;TR_DIRECT_LIVE_MAX=4|TR_DIRECT_LIVE=0" \
    NAME=choice-ab bash scripts/variant-ab.sh
date -u
check_experiment choice-check 200 --no-timing --diff-budget-s 30 --variant "TR_DIRECT_LIVE_MAX=0" \
    --variant "TR_DIRECT_LIVE_PAIR=1" --variant "TR_DIRECT_LIVE_MAX=3;TR_DIRECT_LIVE_PAIR=1"
date -u
# Where the generic kernel's one step at B = 1 goes (run 48, item 6: about
# 4,500 warp instructions a warp for the f32 profile's plain call): Nsight's
# source view, its lines by how often they ran.
mkdir -p /tmp/src-b1 && OUT=/tmp/src-b1 KERNEL=tr_pass_bf16 CONFIGS="1:0:1.0" BENCH_ARGS="--profile f32" TOP=40 \
    bash scripts/ncu-source.sh > /tmp/src-b1/ncu-source.txt 2>&1
tail -80 /tmp/src-b1/ncu-source.txt
tar -C /tmp --exclude="*.ncu-rep" --exclude="*.cubin" -czf "$OUT/src-b1.tgz" src-b1
date -u
