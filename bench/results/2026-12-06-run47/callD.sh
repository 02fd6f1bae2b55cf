#!/usr/bin/env bash
# Run 47, call D (the check binary of call B, d0d9b46): with the warp's
# threshold the f32 profile's plain B = 1024 takes 622 us per call on an
# H100 (1231 before), still about 1.6x the Philox floor of the report.
# Nsight on the generic pass kernel at B = 1024 (f32 profile, plain):
# throughput by pipe, issue activity, stall reasons, occupancy.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu"; date -u
. scripts/device-env.sh
args=(grid --vocab 131072 --batch 1024 --profile f32 --mode plain)
timeout 150 ncu --clock-control none -k regex:tr_pass_bf16 --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
  --section InstructionStats --section Occupancy --section LaunchStats --section SchedulerStats \
  --metrics smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio \
  "$BIN" "${args[@]}" > "$OUT/ncu-f32-b1024.txt" 2>&1
grep -vE "^==PROF==" "$OUT/ncu-f32-b1024.txt" | grep -iE "Duration|Throughput|Issue|Eligible|Active Warps|Occupancy|Registers|pipe|stall|Executed Ipc|Warp Cycles|Block Size|Grid Size|Waves|No Eligible|One or More" | head -70
date -u
