#!/usr/bin/env bash
# Run 48, call C (the three binaries of scripts/carry-build.sh with the
# adopted default, TR_DIRECT_LIVE=1 and no pilot, carried as target/strip):
# 1. the CUDA check (differential rows, invariance against TR_DIRECT_LIVE=0);
# 2. the conformance full tier on the CUDA backend;
# 3. the benchmark grid with the torch/Triton baselines and the targets;
# 4. Nsight's kernels of three f32-profile calls.
# Asked of an H200 first (the issue's GPU; runs 46-47's default has no H200
# grid yet). Prediction against run 47's H100 grid (call C there), if on an
# H100: f32/f64 top-p 0.9 at B >= 64 0.93-0.96x per call and min-p 0.05
# 0.75-0.80x (call B's A/B: 876 -> 861 and 807 -> 635 at B = 1024), plain
# rows and every exact row within 2%.
set -u
mkdir -p target/release && cp target/strip/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
check_experiment final-check 120 --no-timing --diff-budget-s 20 --variant "TR_DIRECT_LIVE=0"
date -u
CONF_TIMEOUT=120 TIER=full bash scripts/gpu-evidence.sh sampler 2>&1 | tail -6
date -u
ITERS=40 bash scripts/gpu-evidence.sh bench 2>&1 | tail -30
date -u
# Nsight's kernels of one f32-profile call: plain B = 1, top-p 0.9 B = 1
# and 1024 (in logs.tgz, evidence-logs/ncu-direct.txt).
CONFIGS="1:0:1.0 1:0:0.9 1024:0:0.9" BENCH_ARGS="--profile f32" DETAIL="" \
    bash scripts/ncu-kernels.sh > /tmp/evidence-logs/ncu-direct.txt 2>&1
cat /tmp/evidence-logs/ncu-direct.txt
tar -C /tmp -czf "$OUT/logs.tgz" evidence-logs
# At most eight files come back: these two are in logs.tgz too.
rm -f "$OUT/report.md" "$OUT/conformance_report.json"
ls "$OUT"; date -u
