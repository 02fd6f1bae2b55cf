#!/usr/bin/env bash
# The GPU evidence runs, one `run` call per stage, on the device machine
# (no cargo there: build here first, then carry the binaries).
#
# Build here:
#   bash scripts/carry-build.sh   (every binary of the three packages, stripped
#                                  into target/strip, checked to hold this
#                                  checkout's kernels; target/strip/BUILT)
# Then call the device tool's `run` with carry ["target/strip"] and a command
# that begins `mkdir -p target/release && cp target/strip/* target/release/ &&`:
#   command: bash scripts/gpu-evidence.sh baselines     (torch/Triton baselines, external draws, CPU model vs numpy)
#   command: bash scripts/gpu-evidence.sh sampler       (conformance full tier on the CUDA backend)
#   command: bash scripts/gpu-evidence.sh bench         (what `cargo xtask bench` runs: the tailrace
#            grid, the torch/Triton baselines, the merged report and the targets, in one call;
#            EXTRA_GRIDS="TAG:DEFINES ..." times kernel variants' grids too, tailrace-TAG.json)
#   command: bash scripts/gpu-evidence.sh accept        (the CUDA differential check and the
#            full-tier conformance side by side, both correctness only, logs under
#            /tmp/evidence-logs, which a later `bench` stage of the same call tars too;
#            VARIANT names the check's kernel variant, default TR_PASS_PARAMS_AT_ONCE=0;
#            DIFF_BUDGET, CHECK_TIMEOUT and CONF_TIMEOUT, in seconds, shorten it)
#   command: BASE_BIN=target/release/base-check bash scripts/gpu-evidence.sh ab
#            (two builds on one machine: REPS=2 grids of each, interleaved, Nsight's
#            kernel time at B = 1 and 256, and bench/compare_grids.py's ab.md/ab.json;
#            carry the base build's stripped check binary too)
# (scripts/device-run.sh runs the CUDA differential check and the kernel timings.)
# Everything lands in $OUT (at most 8 files come back; logs are tarred).
set -uo pipefail
stage=${1:?usage: gpu-evidence.sh baselines|sampler|accept|bench|ab}
out=${OUT:?OUT must name the folder whose files come back}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
# What the carried binaries were built from (scripts/carry-build.sh).
cat target/release/BUILT >> "$out/gpu.txt" 2>/dev/null || echo "no target/release/BUILT: binaries not from scripts/carry-build.sh" >> "$out/gpu.txt"
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
    # libnvrtc.so.13 (and its builtins) on the loader path: the toolkit's or the pip wheel's.
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
        if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
    done
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}" > $logs/env.txt
    timeout 480 target/release/xtask conformance --backend cuda --tier "${TIER:-full}" --out $logs/conformance > $logs/conformance.log 2>&1; echo "conformance exit $?" >> $logs/conformance.log
    cp $logs/conformance/report.md "$out/conformance_report.md" 2>/dev/null
    cp $logs/conformance/report.json "$out/conformance_report.json" 2>/dev/null
    tar -C /tmp -czf "$out/logs.tgz" evidence-logs
    tail -n 45 $logs/conformance.log
    ;;
accept)
    logs=/tmp/evidence-logs; mkdir -p $logs
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
        if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
    done
    # Two processes on one GPU: neither times anything.
    (timeout "${CHECK_TIMEOUT:-300}" target/release/tailrace-cuda-check --out $logs/summary.json --no-timing --diff-budget-s "${DIFF_BUDGET:-100}" \
        --variant "${VARIANT:-TR_PASS_PARAMS_AT_ONCE=0}" > $logs/check.log 2>&1; echo "check exit $?" >> $logs/check.log) &
    timeout "${CONF_TIMEOUT:-420}" target/release/xtask conformance --backend cuda --tier "${TIER:-full}" --out $logs/conformance > $logs/conformance.log 2>&1; echo "conformance exit $?" >> $logs/conformance.log
    wait
    tail -n 8 $logs/check.log; tail -n 6 $logs/conformance.log
    ;;
bench)
    logs=/tmp/evidence-logs; mkdir -p $logs
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
        if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
    done
    # The same three steps as `cargo xtask bench`, with the carried binary.
    timeout 300 target/release/tailrace-cuda-check --iters "${ITERS:-60}" --out "$out/tailrace.json" grid > $logs/grid.log 2>&1; echo "grid exit $?" >> $logs/grid.log
    # EXTRA_GRIDS="TAG:NAME=VALUE;NAME=VALUE ...": the same grid of a kernel
    # variant each, right after the default one ($out/tailrace-TAG.json).
    for g in ${EXTRA_GRIDS:-}; do
        tag=${g%%:*}; defs=()
        IFS=';' read -ra ds <<< "${g#*:}"
        for d in "${ds[@]}"; do defs+=(--checked-define "$d"); done
        timeout 200 target/release/tailrace-cuda-check "${defs[@]}" --iters "${ITERS:-60}" --out "$out/tailrace-$tag.json" grid > $logs/grid-$tag.log 2>&1; echo "grid $tag exit $?" >> $logs/grid-$tag.log
    done
    timeout 270 python3 bench/baselines.py --out "$out/baselines.json" > $logs/baselines.log 2>&1; echo "baselines exit $?" >> $logs/baselines.log
    python3 bench/report.py --tailrace "$out/tailrace.json" --baselines "$out/baselines.json" \
        --out-md "$out/report.md" --out-json "$out/report.json" > $logs/report.log 2>&1; echo "report exit $?" >> $logs/report.log
    # The B = 1 target is kernel time: Nsight Compute's duration of the plain race.
    kt=()
    if timeout 60 ncu --clock-control none --kernel-name regex:tr_fast --csv --page raw \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum target/release/tailrace-cuda-check bench \
        --rows 1 --reps 5 > $logs/ncu-b1.csv 2>&1; then kt=(--kernel-time $logs/ncu-b1.csv); fi
    python3 bench/targets.py "$out/report.json" --out "$out/targets.md" ${kt[@]+"${kt[@]}"} >> $logs/report.log 2>&1; echo "targets exit $?" >> $logs/report.log
    # The report and the targets in the logs too: the device tool returns at
    # most eight files, which the grids of EXTRA_GRIDS can push past (run 46,
    # call C, lost targets.md so).
    cp "$out/report.md" "$out/targets.md" $logs/ 2>/dev/null
    tar -C /tmp -czf "$out/logs.tgz" evidence-logs
    tail -n 5 $logs/grid.log; tail -n 3 $logs/baselines.log; cat $logs/report.log | tail -n 5; cat "$out/targets.md"
    ;;
ab)
    # Two builds on one machine: BASE_BIN (another commit's check binary,
    # carried too) and target/release/tailrace-cuda-check, REPS grids each,
    # interleaved, then Nsight's kernel time of the plain race at B = 1 and
    # 256 of each, and the comparison (bench/compare_grids.py).
    logs=/tmp/evidence-logs; mkdir -p $logs/ab
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
        if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
    done
    base=${BASE_BIN:?BASE_BIN must name the check binary of the base build}
    new=target/release/tailrace-cuda-check
    for i in $(seq 1 "${REPS:-2}"); do
        for side in base new; do
            bin=$base; [ $side = new ] && bin=$new
            timeout 150 "$bin" --iters "${ITERS:-60}" --out $logs/ab/grid-$side-$i.json grid > $logs/ab/grid-$side-$i.log 2>&1
            echo "$side $i exit $?" >> $logs/ab/runs.log
        done
    done
    for side in base new; do
        bin=$base; [ $side = new ] && bin=$new
        for r in 1 256; do
            timeout 60 ncu --clock-control none --kernel-name regex:tr_fast --csv --page raw \
                --metrics gpu__time_duration.sum,smsp__inst_executed.sum "$bin" bench --rows $r --reps 5 \
                > $logs/ab/ncu-$side-r$r.csv 2>&1
        done
    done
    python3 bench/compare_grids.py --base $logs/ab/grid-base-*.json --new $logs/ab/grid-new-*.json \
        --profile exact --out-md "$out/ab.md" --out-json "$out/ab.json" > $logs/ab/compare.log 2>&1
    echo "compare exit $?" >> $logs/ab/compare.log
    tar -C /tmp -czf "$out/logs.tgz" evidence-logs
    cat $logs/ab/runs.log $logs/ab/compare.log
    ;;
*) echo "unknown stage $stage"; exit 2 ;;
esac
