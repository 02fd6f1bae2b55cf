#!/usr/bin/env bash
# Per-kernel Nsight Compute figures of one sampling call (every launch of the
# call: pass kernels, top-p kernels, filter kernel), for a few configurations
# (bf16, V = 131072), clocks left alone; then the stall breakdown of the
# kernels named in DETAIL (a regex) at the largest batch.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/ncu-kernels.sh
# Environment: CONFIGS ("rows:top_k:top_p ..."), DETAIL (kernel regex, empty for none),
# DETAIL_ROWS (the batch sizes of the stall breakdown, default "1024 1"),
# DTYPE (logit type: bf16, the default, f32 or f16), BENCH_ARGS (more
# arguments of the bench, e.g. "--profile f32 --min-p 0.05"), CHECK_ARGS
# (arguments before it, e.g. "--checked-define TR_DIRECT_LIVE=0").
set -u
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
  if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
BIN=target/release/tailrace-cuda-check
CONFIGS=${CONFIGS:-"1:0:1.0 1:0:0.9 64:0:0.9 1024:0:0.9 1:50:0.9 1024:50:0.9"}
DETAIL=${DETAIL-"topp_hist|topp_gather"}
DTYPE=${DTYPE:-bf16}
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size
for c in $CONFIGS; do
  IFS=: read -r rows k p <<< "$c"
  echo "=== $DTYPE rows $rows top_k $k top_p $p (one call; the fill kernel skipped)"
  timeout 120 ncu --clock-control none --launch-skip 1 --launch-count 10 --csv --page raw --print-units base --metrics $metrics \
    $BIN ${CHECK_ARGS:-} bench --dtype "$DTYPE" --rows "$rows" --top-k "$k" --top-p "$p" --reps 1 ${BENCH_ARGS:-} 2>&1 | grep -vE "^==PROF==|^bench done" |
    python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
hdr = [i for i, r in enumerate(rows) if r and r[0] == "ID"]
if not hdr:
    print("no ncu table; its output was:"); print("\n".join(",".join(r) for r in rows[:20])); sys.exit(0)
h = rows[hdr[0]]; idx = {n: i for i, n in enumerate(h)}; rows = rows[hdr[0]:]
def g(r, n): return r[idx[n]] if n in idx else "?"
for r in rows[1:]:
    if len(r) < len(h) or not g(r, "ID").isdigit(): continue
    print("%-22s grid %8s regs %4s  %9.2f us  inst %12s  dram %10.1f MB  warps %5s%%" % (
        g(r, "Kernel Name")[:22], g(r, "launch__grid_size"), g(r, "launch__registers_per_thread"),
        float(g(r, "gpu__time_duration.sum").replace(",", "")) / 1e3, g(r, "smsp__inst_executed.sum"),
        float(g(r, "dram__bytes_read.sum").replace(",", "")) / 1e6, g(r, "sm__warps_active.avg.pct_of_peak_sustained_active")))
'
done
if [ -n "$DETAIL" ]; then
  for rows in ${DETAIL_ROWS:-1024 1}; do
    echo "=== detail rows $rows top_p 0.9: $DETAIL"
    timeout 120 ncu --clock-control none --kernel-name "regex:$DETAIL" --launch-skip 2 --launch-count 2 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
      $BIN ${CHECK_ARGS:-} bench --dtype "$DTYPE" --rows $rows --top-p 0.9 --reps 3 ${BENCH_ARGS:-} 2>&1 | grep -vE "^==PROF==|^\s*$" |
      grep -E "tr_|Duration|Throughput|Achieved Occupancy|Stall|Warp Cycles|Issued Warp|Eligible|No Eligible" | head -40
  done
fi
