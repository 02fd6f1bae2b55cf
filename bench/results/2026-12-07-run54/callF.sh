#!/usr/bin/env bash
# Run 54, call F: why TR_FUSED_LIST_MAX=1 (the new default) makes top-k 50
# at V = 262144, B = 1024 1.7x slower (call E: 486 us against 285) while V =
# 131072, B = 1024 gains 2 us. Nsight Compute of the fused pass kernel in
# both builds at both vocabularies (duration, instructions, local memory
# bytes, occupancy, warp stalls), and the SASS of the two fused bf16
# kernels of both builds for reading here. Check binary of
# scripts/carry-build.sh (kernels acb9164b...), carried as target/strip-check.
# Prediction: the 64-register build (tr_fused_wide_bf16) serves both
# vocabularies at B = 1024; at V = 262144 it shows many more local-memory
# bytes or instructions with the knob, at V = 131072 not.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
mkdir -p /tmp/f
for def in "" "--checked-define TR_FUSED_LIST_MAX=0"; do
  for V in 131072 262144; do
    echo "=== [$def] V=$V B=1024 top-k 50"
    timeout 100 ncu --clock-control none --kernel-name regex:tr_fused --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
      --metrics l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,smsp__inst_executed.sum,dram__bytes_read.sum \
      $BIN $def bench --rows 1024 --vocab $V --top-k 50 --reps 2 2>&1 | grep -vE "^==PROF==|^\s*$" > /tmp/f/ncu-$V${def:+-off}.txt
    grep -E "tr_fused|Duration|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|local_op|inst_executed|dram__bytes|Registers Per|Grid Size|Waves Per" /tmp/f/ncu-$V${def:+-off}.txt | head -30
  done
done
which cuobjdump || ls /usr/local/cuda/bin | head
for d in "" "TR_FUSED_LIST_MAX=0"; do
  tag=${d:+off}; tag=${tag:-on}
  $BIN cubin /tmp/f/k-$tag.cubin --arch sm_90 ${d:+--define $d} | tail -1
  for fn in tr_fused_wide_bf16 tr_fused_bf16; do
    cuobjdump -sass -fun $fn /tmp/f/k-$tag.cubin > /tmp/f/sass-$fn-$tag.txt 2>&1
    echo "$fn $tag: $(wc -l < /tmp/f/sass-$fn-$tag.txt) lines, STL $(grep -c STL /tmp/f/sass-$fn-$tag.txt), LDL $(grep -c LDL /tmp/f/sass-$fn-$tag.txt)"
  done
  rm -f /tmp/f/k-$tag.cubin
done
tar -C /tmp -czf "$OUT/f.tgz" f
ls -la "$OUT"; date -u
