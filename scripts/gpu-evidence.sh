#!/usr/bin/env bash
# The GPU evidence runs, one `run` call per stage, on the device machine
# (no cargo there: build here first, then carry the binaries).
#
# Build here:
#   cargo build --release -p tailrace-cli -p tailrace-cuda -p xtask
# Then call the device tool's `run` with
#   carry:   ["target/release/tailrace", "target/release/tailrace-cuda-check", "target/release/xtask"]
#   command: bash scripts/gpu-evidence.sh baselines     (torch/Triton baselines, external draws, CPU model vs numpy)
#   command: bash scripts/gpu-evidence.sh sampler       (conformance full tier with CUDA, tailrace timings)
# Everything lands in $OUT (at most 8 files come back; logs are tarred).
set -uo pipefail
stage=${1:?usage: gpu-evidence.sh baselines|sampler}
out=${OUT:?OUT must name the folder whose files come back}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
case "$stage" in
baselines)
    logs=/tmp/evidence-logs; mkdir -p $logs
    lscpu > $logs/lscpu.txt 2>&1
    # CPU model vs numpy's race, one pinned core each, while the GPU is idle.
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 3 python3 bench/numpy_race.py --vocab 131072 --rows 64 --out "$out/numpy_race.json" > $logs/numpy.log 2>&1
    taskset -c 3 target/release/tailrace bench-cpu --threads 1 --format json > "$out/cpu_bench_1t.json" 2> $logs/cpu_bench_1t.err
    target/release/tailrace bench-cpu --threads 16 --format text > $logs/cpu_bench_16t.txt 2>&1
    python3 bench/baselines.py --out "$out/baselines.json" > $logs/baselines.log 2>&1; echo "baselines exit $?" >> $logs/baselines.log
    python3 audit/external_draws.py --out /tmp/ar > $logs/audit.log 2>&1; echo "audit exit $?" >> $logs/audit.log
    tar -C /tmp -czf "$out/logs.tgz" evidence-logs ar
    tail -n 30 $logs/baselines.log; tail -n 12 $logs/audit.log; cat $logs/numpy.log; tail -n 25 $logs/cpu_bench_16t.txt
    ;;
sampler)
    logs=/tmp/evidence-logs; mkdir -p $logs
    target/release/tailrace-cuda-check --out "$out/cuda_check.json" > $logs/cuda_check.log 2>&1; echo "cuda-check exit $?" >> $logs/cuda_check.log
    target/release/xtask conformance --backend all --tier full --out $logs/conformance > $logs/conformance.log 2>&1; echo "conformance exit $?" >> $logs/conformance.log
    cp $logs/conformance/report.md "$out/conformance_report.md" 2>/dev/null
    cp $logs/conformance/report.json "$out/conformance_report.json" 2>/dev/null
    tar -C /tmp -czf "$out/logs.tgz" evidence-logs
    tail -n 40 $logs/cuda_check.log; tail -n 45 $logs/conformance.log
    ;;
*) echo "unknown stage $stage"; exit 2 ;;
esac
