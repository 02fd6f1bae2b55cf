# Sourced by the device-side profiling scripts (phase-run.sh, warp-run.sh)
# from the repository root: puts libnvrtc.so.13 on the loader path and sets
# BIN (the check binary) and OUT (the folder whose files come back).
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
  if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
BIN=${BIN:-target/release/tailrace-cuda-check}
OUT=${OUT:-/tmp/tailrace-out}
mkdir -p "$OUT"
