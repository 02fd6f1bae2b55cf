#!/usr/bin/env bash
# Run 22, call 3: the slab select's loads weak (plain) against strong (__ldcg).
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r22c; mkdir -p $L
for v in "weak:TR_TOPP_SELECT_WEAK=1" "d:"; do
  OUT=$L/ph TAG=-${v%%:*} DEFINES="${v#*:}" CONFIGS="1:0:0.9 8:0:0.9" REPS=6 bash scripts/phase-run.sh > $L/phase-${v%%:*}.log 2>&1
  echo "##### ${v}"; grep -A4 "tr_phase_hist" $L/phase-${v%%:*}.log | grep "last known"
done
timeout 150 target/release/tailrace-cuda-check --out $L/variants.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9 --variant TR_TOPP_SELECT_WEAK=1 --variant TR_TOPP_SELECT_WARP=0 > $L/variants.log 2>&1; echo "variants exit $?" >> $L/variants.log
grep "^| exact" $L/variants.log | grep "Bf16" | cut -c1-100; tail -n 1 $L/variants.log
tar -C /tmp -czf $OUT/r22-call3.tgz r22c
