# Sourced by the device-side scripts (phase-run.sh, warp-run.sh, the experiments)
# from the repository root: puts libnvrtc.so.13 on the loader path and sets
# BIN (the check binary) and OUT (the folder whose files come back).
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
  if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
BIN=${BIN:-target/release/tailrace-cuda-check}
OUT=${OUT:-/tmp/tailrace-out}
mkdir -p "$OUT"
# What the carried binaries were built from (scripts/carry-build.sh).
{ cat target/release/BUILT 2>/dev/null || echo "no target/release/BUILT: binaries not from scripts/carry-build.sh"; } >&2
# One check process of a device experiment (topp-race-run.sh,
# rare-step-run.sh): check_experiment NAME LIMIT_S ARGS... runs the check
# binary with ARGS, its log and JSON summary in /tmp/NAME, packs that folder
# as $OUT/NAME.tgz at once (so the logs come back even where a later stage
# runs past the call's limit; pack it again after those) and prints the
# timings at V = 131072 and the verdict lines.
check_experiment() {
  local name=$1 limit=$2
  shift 2
  local dir=/tmp/$name
  mkdir -p "$dir"
  timeout "$limit" "$BIN" --out "$dir/check-summary.json" "$@" >"$dir/check.log" 2>&1
  echo "check exit $?" >>"$dir/check.log"
  tar -C /tmp -czf "$OUT/$name.tgz" "$name"
  grep "V=131072" "$dir/check.log" | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/'
  grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error" "$dir/check.log" | tail -9
}
