#!/usr/bin/env bash
# Run 29, call 3 (binaries of 778e99e): where an f32 / f16 top-p call spends
# its time. Nsight per kernel of one call (f32 at B = 1, 256, 1024; f16 at
# B = 256), the stall breakdown of the f32 histogram and gather at B = 256,
# and the f32 histogram's pipe utilization and instruction mix.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=$OUT; 
DTYPE=f32 CONFIGS="1:0:0.9 256:0:0.9 1024:0:0.9" DETAIL="topp_hist|topp_gather" DETAIL_ROWS=256 bash scripts/ncu-kernels.sh > $L/ncu-f32.txt 2>&1
DTYPE=f16 CONFIGS="256:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > $L/ncu-f16.txt 2>&1
DTYPE=bf16 CONFIGS="256:0:0.9" DETAIL="" bash scripts/ncu-kernels.sh > $L/ncu-bf16.txt 2>&1
timeout 120 ncu --clock-control none --kernel-name regex:topp_hist --launch-skip 1 --launch-count 1 \
  --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis \
  target/release/tailrace-cuda-check bench --dtype f32 --rows 256 --top-p 0.9 --reps 2 > $L/ncu-f32-hist-detail.txt 2>&1
cat $L/ncu-f32.txt $L/ncu-f16.txt $L/ncu-bf16.txt
grep -E "Pipe|pipe|Executed Ipc|Issue Slots|FP64|Memory Throughput|L2 Hit|Shared" $L/ncu-f32-hist-detail.txt | head -40
