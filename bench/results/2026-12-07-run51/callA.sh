#!/usr/bin/env bash
# Run 51, call A: run 50's call B (which never ran) on main's kernels since
# dc30be0 (sha256 0f59a343..., the warp pilot as the direct race's default;
# binaries of scripts/carry-build.sh carried as target/strip):
# 1. the benchmark grid with the torch/Triton baselines and the targets;
# 2. Nsight's source view of the generic kernel at f32 plain B = 1 (unless
#    NCU=0), what is left of B = 1 after the pilot;
# 3. Nsight's per-kernel durations of top-k 50 (+ top-p 0.9) at B = 1 and 8,
#    the sort-path targets missed at B <= 8 (where the call's time goes).
# 4. the fused top-k path's chunk count at small B (launch options only, the
#    default kernels): run 10 (item 6) timed top-k 50 at B = 8 10% faster
#    with 16 chunks a row than with the automatic 33, which the plain race
#    wants; the sort-path target of top-k 50 + top-p 0.9 at B = 8 is about
#    10% away (run 42: 26.0 us per call, needs <= 23.2).
# Prediction (call A of run 50): f32/f64 plain 0.85x run 49's H100 grid per
# call at B = 1 and 8, 0.95-0.96x at B >= 256; exact rows as run 49's.
set -u
mkdir -p target/release && cp target/strip/* target/release/
cat target/strip/BUILT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -30
date -u
if [ "${NCU:-1}" = 1 ]; then
    mkdir -p /tmp/src-b1
    OUT=/tmp/src-b1 KERNEL=tr_pass_bf16 CONFIGS="1:0:1.0" BENCH_ARGS="--profile f32" TOP=40 \
        timeout 150 bash scripts/ncu-source.sh > /tmp/src-b1/ncu-source.txt 2>&1
    tail -60 /tmp/src-b1/ncu-source.txt
    CONFIGS="1:50:1.0 8:50:1.0 1:50:0.9 8:50:0.9 8:0:1.0" DETAIL="" timeout 120 bash scripts/ncu-kernels.sh > /tmp/src-b1/ncu-topk.txt 2>&1
    cat /tmp/src-b1/ncu-topk.txt
fi
gzip -f "$OUT/report.json"
# 4. (timing only: launch options change no kernel.)
. scripts/device-env.sh
check_experiment fused-chunks 150 --timing-only --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9,plain,top_k50@f32 --variant-rows 1,8,16,64 --variant-dtype bf16 \
    --variant opts:blocks_per_row=8 --variant opts:blocks_per_row=12 --variant opts:blocks_per_row=16 \
    --variant opts:blocks_per_row=20 --variant opts:blocks_per_row=24 \
    --variant opts:blocks_per_row=2 --variant opts:blocks_per_row=3
tar -C /tmp -czf "$OUT/ncu.tgz" src-b1/ncu-source.txt src-b1/ncu-topk.txt fused-chunks 2>/dev/null; rm -f "$OUT/fused-chunks.tgz"
ls "$OUT"; date -u
