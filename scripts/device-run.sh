#!/usr/bin/env bash
# GPU acceptance run of the CUDA backend (crates/cuda).
#
# Here (the build machine, no GPU):
#     bash scripts/device-run.sh            # = build: cargo build --release the check binary
# Then call the device tool `run` with
#     carry:   ["target/release/tailrace-cuda-check"]
#     command: bash scripts/device-run.sh remote [extra check args]
# There it finds libnvrtc (CUDA toolkit or the pip wheel), runs the checks (a
# kernel variant, VARIANT=NAME=VALUE, default TR_UNITS=2, must give the same
# tokens and is timed next to the default) and
# the timings as separate processes (a fault in one cannot hide the other) and
# leaves logs and JSON under $OUT:
#     env.txt, check.log, summary.json, mismatches.jsonl, timing.log,
#     timing.json, timing.txt, profile.log (compute-sanitizer memcheck, with
#     RACECHECK=1 racecheck and synccheck, ncu),
#     check-defines.log and summary-defines.json (with CHECKED_DEFINES),
#     baseline-timing.log and .json (with BASELINE_BIN=another check binary)
# The last lines printed are the summaries.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=target/release/tailrace-cuda-check
mode=${1:-build}
[ $# -gt 0 ] && shift

case "$mode" in
build)
    cargo build --release -p tailrace-cuda --bin tailrace-cuda-check
    ls -l "$BIN"
    ;;
remote)
    OUT=${OUT:-/tmp/tailrace-out}
    mkdir -p "$OUT"
    if [ ! -x "$BIN" ]; then
        echo "missing $BIN: build it here first and carry it" | tee "$OUT/env.txt"
        exit 2
    fi
    # libnvrtc.so.13 and libnvrtc-builtins must be on the loader path.
    cands="/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib"
    py=$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, "cu13", "lib") for p in nvidia.__path__))' 2>/dev/null || true)
    found=""
    for d in $cands $py $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -5); do
        if [ -e "$d/libnvrtc.so.13" ]; then found=$d; break; fi
    done
    [ -n "$found" ] && export LD_LIBRARY_PATH="$found:${LD_LIBRARY_PATH:-}"
    {
        date -u
        echo "nvrtc dir: ${found:-NOT FOUND}"
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1
        ldd "$BIN" 2>&1 | head -20
        nproc
    } >"$OUT/env.txt" 2>&1
    cat "$OUT/env.txt"
    # 1. correctness (dumps, differential, invariance, graph replay)
    VARIANT=${VARIANT:-TR_UNITS=2}
    timeout "${CHECK_TIMEOUT:-250}" "$BIN" --out "$OUT/summary.json" --no-timing --diff-budget-s 150 \
        --variant "$VARIANT" "$@" >"$OUT/check.log" 2>&1
    echo "check exit code: $?" >>"$OUT/check.log"
    # 1b. optionally the same checks on a build with other defines, e.g.
    #     CHECKED_DEFINES="TR_TOPP_CAP=64" (most binned top-p rows then take
    #     their fallback): differential against the CPU model, invariance.
    if [ -n "${CHECKED_DEFINES:-}" ]; then
        dargs=()
        for d in $CHECKED_DEFINES; do dargs+=(--checked-define "$d"); done
        timeout "${CHECK_TIMEOUT:-250}" "$BIN" --out "$OUT/summary-defines.json" --no-timing \
            --rows 40000 --diff-budget-s 60 "${dargs[@]}" >"$OUT/check-defines.log" 2>&1
        echo "check (defines $CHECKED_DEFINES) exit code: $?" >>"$OUT/check-defines.log"
    fi
    # 2. timings (separate process), with tuning variants of the kernels
    timeout "${TIMING_TIMEOUT:-150}" "$BIN" --out "$OUT/timing.json" --timing-only \
        --variant "$VARIANT" "$@" >"$OUT/timing.log" 2>&1
    echo "timing exit code: $?" >>"$OUT/timing.log"
    # 2b. BASELINE_BIN=path: the same timings of another build of the check
    #     binary (an earlier commit's, carried too), in the same call, so the
    #     two are compared on one machine state: baseline-timing.{log,json}.
    if [ -n "${BASELINE_BIN:-}" ]; then
        timeout "${TIMING_TIMEOUT:-150}" "$BASELINE_BIN" --out "$OUT/baseline-timing.json" \
            --timing-only >"$OUT/baseline-timing.log" 2>&1
        echo "baseline timing exit code: $?" >>"$OUT/baseline-timing.log"
    fi
    # 3. a short memcheck run (out-of-bounds accesses), then ncu profiles of the
    #    hot kernels (clocks left alone), all into profile.log
    : >"$OUT/profile.log"
    if command -v compute-sanitizer >/dev/null && [ "${SANITIZER:-1}" = 1 ]; then
        mkdir -p /tmp/tailrace-san
        timeout "${SANITIZER_TIMEOUT:-90}" compute-sanitizer --tool memcheck --print-limit 20 \
            "$BIN" --out /tmp/tailrace-san/summary.json --no-timing --rows 1500 --noise 100 \
            --diff-budget-s 40 --no-invariance >>"$OUT/profile.log" 2>&1
        echo "sanitizer exit code: $?" >>"$OUT/profile.log"
    fi
    # 3b. RACECHECK=1: shared-memory hazards (racecheck) and barrier misuse
    #     (synccheck) on a small fused top-k batch; both tools are slow.
    if command -v compute-sanitizer >/dev/null && [ "${RACECHECK:-0}" = 1 ]; then
        for tool in racecheck synccheck; do
            echo "======== $tool (bench --rows 8 --top-k 50, --rows 2 --top-k 256) ========" >>"$OUT/profile.log"
            for args in "--rows 8 --top-k 50" "--rows 2 --top-k 256"; do
                # shellcheck disable=SC2086
                timeout "${RACECHECK_TIMEOUT:-120}" compute-sanitizer --tool "$tool" --print-limit 20 \
                    "$BIN" bench $args >>"$OUT/profile.log" 2>&1
                echo "$tool exit code: $?" >>"$OUT/profile.log"
            done
        done
    fi
    if command -v ncu >/dev/null && [ "${NCU:-1}" = 1 ]; then
        for spec in "tr_fast_wide_bf16|--rows 1024" "tr_fast_bf16|--rows 256" "tr_filter_bf16|--rows 64 --top-k 50"; do
            k=${spec%%|*}
            args=${spec#*|}
            echo "======== ncu $k ($args) ========" >>"$OUT/profile.log"
            # shellcheck disable=SC2086
            timeout 90 ncu --clock-control none --kernel-name "$k" --launch-skip 1 --launch-count 1 \
                --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
                --section Occupancy --section SchedulerStats --section LaunchStats \
                "$BIN" bench $args >>"$OUT/profile.log" 2>&1
            echo "ncu exit code: $?" >>"$OUT/profile.log"
        done
    fi
    echo "======== check.log (tail) ========"
    tail -n 40 "$OUT/check.log"
    if [ -n "${CHECKED_DEFINES:-}" ]; then
        echo "======== check-defines.log (tail) ========"
        tail -n 8 "$OUT/check-defines.log"
    fi
    echo "======== timing.log (tail) ========"
    tail -n 50 "$OUT/timing.log"
    if [ -n "${BASELINE_BIN:-}" ]; then
        echo "======== baseline-timing.log (tail) ========"
        tail -n 50 "$OUT/baseline-timing.log"
    fi
    echo "======== profile.log (sanitizer summary, ncu) ========"
    grep -E "SUMMARY|exit code|RESULT" "$OUT/profile.log"
    ;;
*)
    echo "usage: $0 [build|remote [check args]]" >&2
    exit 2
    ;;
esac
