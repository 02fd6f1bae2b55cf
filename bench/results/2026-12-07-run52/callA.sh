#!/usr/bin/env bash
# Run 52, call A: where the time B = 8 adds to the fused top-k path goes
# (run 51's call C, never run, widened). Check binary of
# scripts/carry-build.sh at the commit its BUILT names, carried as
# target/strip-check (or target/strip, which holds the same check binary).
# 1. The pass kernel's phase clock (scripts/phase-run.sh) of top-k 50 +
#    top-p 0.9 at B = 1, 8, 16.
# 2. With NCU=1: Nsight's source view of tr_fused_bf16 at B = 1 and 8,
#    same mode (left out by default: device time was short).
# 3. Variants of the fused scan, timed with the A/A, and the differential
#    check and invariance against the default (the tokens must not move):
#    more chunks a row than the automatic count at B = 8 and 16 (run 51
#    timed 2-24 only): blocks_per_row 40, 48, 64 (three 80-register blocks
#    an SM hold 396 blocks on 132 SMs); both units of a lane at B = 8 loaded
#    at once (TR_TOPK_UNITS=2; run 8 timed it at B = 1024 only), and the
#    pilot over both (TR_FUSED_PILOT_ALL=1).
#    Prediction: TR_TOPK_UNITS=2 0.5 us off at B = 8 (the second unit's load
#    no longer starts after the pilot), nothing at B = 1; the pilot over
#    both units another 0.3 us (fewer keys offered); 48 chunks at B = 8
#    1-2 us off (one unit a thread, as B = 1's 64).
# Prediction: the rows' last blocks take about as long at B = 8 as at B = 1
# (the merge of 33 lists against 64); the scan step before the chunk list
# grows by the second unit a thread (two steps instead of one), so slots
# 0-4 carry most of the 5 us.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/ 2>/dev/null || cp target/strip/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; date -u
CONFIGS="1:50:0.9 8:50:0.9 16:50:0.9" REPS=6 timeout 150 bash scripts/phase-run.sh
mkdir -p /tmp/ph && mv "$OUT"/ph-*.txt /tmp/ph/
date -u
mkdir -p /tmp/src
if [ "${NCU:-0}" = 1 ]; then
    OUT=/tmp/src KERNEL=tr_fused_bf16 CONFIGS="1:50:0.9 8:50:0.9" TOP=50 LINES_TOP=40 \
        timeout 240 bash scripts/ncu-source.sh > /tmp/src/ncu-source.txt 2>&1
    tail -150 /tmp/src/ncu-source.txt
    rm -f /tmp/src/*.ncu-rep /tmp/src/*-sass.csv
fi
date -u
. scripts/device-env.sh
check_experiment fused-more 240 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,8,16,64 --variant-dtype bf16 \
    --variant opts:blocks_per_row=40 --variant opts:blocks_per_row=48 --variant opts:blocks_per_row=64 \
    --variant "TR_TOPK_UNITS=2" --variant "TR_TOPK_UNITS=2;TR_FUSED_PILOT_ALL=1"
grep -E "A/A|A/B" /tmp/fused-more/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
rm -f "$OUT/fused-more.tgz"
tar -C /tmp -czf "$OUT/callA.tgz" ph src fused-more
ls -la "$OUT"; date -u
