#!/usr/bin/env bash
# Nsight Compute summary of the specialized pass kernel on the fused top-k path
# (B = 1024 and B = 1, top-k 50, bf16, V = 131072), clocks left alone.
# Build here: bash scripts/device-run.sh build; then the device tool's `run` with
#   carry ["target/release/tailrace-cuda-check"], command: bash scripts/ncu-fused.sh
set -u
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libnvrtc.so.13' -printf '%h\n' 2>/dev/null | head -3); do
  if [ -e "$d/libnvrtc.so.13" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; break; fi
done
for args in "--rows 1024 --top-k 50" "--rows 1 --top-k 50"; do
echo "=== $args"
timeout 120 ncu --clock-control none --kernel-name regex:tr_fused --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section Occupancy --section SchedulerStats --section LaunchStats \
  target/release/tailrace-cuda-check bench $args 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers|Shared Memory|Stall|Warp Cycles|Issued Warp|Eligible|Active Warps|No Eligible|One or More|Dynamic Shared|Waves" | head -60
done
