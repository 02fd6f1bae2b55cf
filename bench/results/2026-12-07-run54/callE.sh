#!/usr/bin/env bash
# Run 54, call E: where call B's grid lost time. Against run 53's H100 grid,
# the new default's top-k 50 and top-k 50 + top-p 0.9 at V = 262144, B =
# 1024 went from 283.6 / 287.3 us per call to 483.5 / 485.4 (1.7x, in every
# profile), while V = 131072, B = 1024 gained 2-5 us. Timed here with the A/A
# at V = 131072 and 262144, B = 256 and 1024, against each knob off and both
# off (both off: the old default's cubin byte for byte). Check binary of
# scripts/carry-build.sh (kernels acb9164b..., with --variant-vocab),
# carried as target/strip-check.
# Prediction: TR_FUSED_LIST_MAX=0 alone brings V = 262144 B = 1024 back to
# about 285 us (ptxas gives the 64-register build that serves B = 1024 464
# bytes of spill stores with the knob, 392 without); TR_FUSED_HEAD_FIT=0
# changes nothing (rows of one or two chunks keep their J).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
check_experiment v262 300 --timing-only --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 256,1024 --variant-vocab 131072,262144 \
    --variant-dtype bf16 --variant "TR_FUSED_LIST_MAX=0" --variant "TR_FUSED_HEAD_FIT=0" \
    --variant "TR_FUSED_LIST_MAX=0;TR_FUSED_HEAD_FIT=0"
grep -E "A/A|A/B" /tmp/v262/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
grep -E "V=262144" /tmp/v262/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200 | head -12
ls -la "$OUT"; date -u
