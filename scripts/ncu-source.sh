#!/usr/bin/env bash
# Where one kernel spends its time, instruction by instruction: an Nsight
# Compute profile (clocks left alone) with the source counters, then the SASS
# lines with the most warp-stall samples and the stall reasons of the kernel.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/ncu-source.sh
# Environment: KERNEL (default tr_fused_bf16, the pass with the fused top-k
# path; tr_fast_bf16 is the one of plain batches, tr_fast_wide_bf16 that of
# plain batches whose blocks queue, e.g. 1024 rows), CONFIGS ("rows:top_k:top_p
# ...", each profiled and summarized in turn), TOP (SASS lines printed,
# default 60), PIPES=1 (also the issue share of each execution pipe), DTYPE
# (logit type of the profiled batches: bf16, f32 or f16; default bf16),
# BENCH_ARGS (more arguments of the profiled `bench`, e.g. "--profile f32";
# the generic kernel tr_pass_bf16 runs the non-exact profiles).
set -u
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
  if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
BIN=target/release/tailrace-cuda-check
OUT=${OUT:-/tmp/tailrace-out}
mkdir -p "$OUT"
# Line tables in the profiled kernels (the SASS is the same), and the cubin and
# assembled source they refer to, for scripts/sass-lines.py (run below when
# nvdisasm is here; elsewhere on the files left in $OUT).
export TAILRACE_NVRTC_LINEINFO=1
$BIN cubin "$OUT/lineinfo.cubin" >/dev/null && $BIN source >"$OUT/tailrace.cu"
ND=$(command -v nvdisasm || ls /usr/local/cuda/bin/nvdisasm 2>/dev/null)
KERNEL=${KERNEL:-tr_fused_bf16}
CONFIGS=${CONFIGS:-"1024:50:1.0 1:50:1.0"}
TOP=${TOP:-60}
for c in $CONFIGS; do
  IFS=: read -r rows k p <<< "$c"
  rep="$OUT/src-r${rows}-k${k}-p${p}"
  echo "=== $KERNEL rows $rows top_k $k top_p $p"
  timeout 180 ncu --clock-control none --kernel-name "$KERNEL" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section InstructionStats \
    --section SchedulerStats --section Occupancy -f -o "$rep" \
    $BIN bench --rows "$rows" --top-k "$k" --top-p "$p" --dtype "${DTYPE:-bf16}" --reps 2 ${BENCH_ARGS:-} >/dev/null 2>&1
  echo "ncu exit code: $?"
  ncu --import "$rep.ncu-rep" --print-units base 2>&1 |
    grep -E "Duration|Elapsed Cycles|SM Active|Executed Ipc|Issue Slots Busy|Warp Cycles Per Issued|Achieved Occupancy|No Eligible|Executed Instructions  |stall|Stall" | head -30
  ncu --import "$rep.ncu-rep" --page source --csv --print-source sass >"$rep-sass.csv" 2>"$rep-sass.err"
  echo "source page exit code: $? ($(wc -l <"$rep-sass.csv") lines)"
  python3 - "$rep-sass.csv" "$TOP" <<'PY'
import csv, sys
path, top = sys.argv[1], int(sys.argv[2])
rows = list(csv.reader(open(path, errors="replace")))
hdr = next((i for i, r in enumerate(rows) if any("Source" == x or "# Address" == x or "Address" == x for x in r)), None)
if hdr is None:
    print("no source table; first lines:"); print("\n".join(",".join(r)[:200] for r in rows[:8])); sys.exit(0)
h = rows[hdr]; body = [r for r in rows[hdr + 1:] if len(r) == len(h)]
def col(*names):
    for n in names:
        for i, x in enumerate(h):
            if x.strip() == n: return i
    for n in names:
        for i, x in enumerate(h):
            if n.lower() in x.lower(): return i
    return None
src = col("Source"); samp = col("Warp Stall Sampling (All Samples)", "Sampling Data (All)", "Warp Stall Sampling")
exe = col("Instructions Executed", "Warp Instructions Executed")
print("columns:", [x for x in h][:12], "...")
def num(r, i):
    try: return float(r[i].replace(",", "")) if i is not None else 0.0
    except ValueError: return 0.0
tot = sum(num(r, samp) for r in body) or 1.0
tot_e = sum(num(r, exe) for r in body) or 1.0
print("total stall samples %.0f, warp instructions %.0f, SASS lines %d" % (tot, tot_e, len(body)))
order = sorted(range(len(body)), key=lambda j: -num(body[j], samp))[:top]
for j in sorted(order):
    r = body[j]
    print("%5d %5.1f%% exe %9.0f  %s" % (j, 100 * num(r, samp) / tot, num(r, exe), r[src][:110] if src is not None else ""))
# Where the instructions go by how often a line ran: a loop's hot path is the
# lines that ran once a step, its rare paths the lines that ran less often.
by = {}
for r in body:
    e = num(r, exe)
    if e:
        n, s = by.get(e, (0, 0.0))
        by[e] = (n + 1, s + num(r, samp))
print("executions per line: lines, share of warp instructions, share of stall samples")
for e, (n, s) in sorted(by.items(), key=lambda kv: -kv[0] * kv[1][0])[:12]:
    print("  %10.0f x %5d lines  %5.1f%% of instructions  %5.1f%% of samples" % (e, n, 100 * e * n / tot_e, 100 * s / tot))
PY
  gzip -c "$rep-sass.csv" >"$rep-sass.csv.gz"
  if [ -n "$ND" ] && [ -s "$OUT/lineinfo.cubin" ]; then
    python3 "$(dirname "$0")/sass-lines.py" --csv "$rep-sass.csv" --cubin "$OUT/lineinfo.cubin" \
      --source "$OUT/tailrace.cu" --function "$KERNEL" --nvdisasm "$ND" --top "${LINES_TOP:-40}"
  fi
  if [ "${PIPES:-0}" = 1 ]; then
    # Issue share of each pipe (instructions issued to it over its peak) and
    # its busy cycles, for the metrics this ncu knows.
    want=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}' |
      grep -E '^sm__(inst_executed_pipe_[a-z_]+|pipe_[a-z_]+_cycles_active)$' | sort -u |
      sed 's/$/.avg.pct_of_peak_sustained_active/' | paste -sd, -)
    echo "--- pipes ($(echo "$want" | tr ',' '\n' | wc -l) metrics)"
    timeout 180 ncu --clock-control none --kernel-name "$KERNEL" --launch-skip 1 --launch-count 1 \
      --metrics "$want" $BIN bench --rows "$rows" --top-k "$k" --top-p "$p" --dtype "${DTYPE:-bf16}" --reps 2 >"$rep-pipes.txt" 2>&1
    echo "ncu exit code: $?"
    grep -E "pct_of_peak" "$rep-pipes.txt" | awk '$NF+0 >= 1.0' | sort -k3 -g -r | head -40
    grep -iE "error|fail" "$rep-pipes.txt" | head -5
  fi
done
