#!/usr/bin/env bash
# Run 28, call 4 (binaries of 042a04e): the staging in its own kernel build
# (tr_topp_hist_stage_bf16). The check (invariance against the first pass
# and TR_TOPP_STAGE=0); this build and 9258f8e's (base-check) timed
# alternately, twice each (top-p 0.9, plain); then what `cargo xtask bench`
# runs (grid at 40 iterations, baselines, report, targets, Nsight's B = 1
# kernel time). Logs in /tmp/evidence-logs, tarred by the bench stage.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/evidence-logs; mkdir -p $L
timeout 150 target/release/tailrace-cuda-check --out $L/check-summary.json --no-timing --diff-budget-s 12 --variant opts:first_pass_always --variant "TR_TOPP_STAGE=0" > $L/check.log 2>&1; echo "check exit $?" >> $L/check.log
grep -E "rows in .*batches|invariance:|exit|FAIL|PASS|MISMATCH|error|without a first" $L/check.log | tail -8
for i in 1 2; do
  for side in base new; do
    bin=target/release/tailrace-cuda-check; [ $side = base ] && bin=target/release/base-check
    timeout 80 $bin --out $L/t-$side-$i.json --iters 40 --timing-only --variants-only --variant-mode top_p0.9,plain > $L/t-$side-$i.log 2>&1; echo "$side $i exit $?" >> $L/t-$side-$i.log
    echo "## $side $i"; grep "Bf16  V=131072" $L/t-$side-$i.log | sed -e 's/^\[[^]]*\]  *//' -e 's/ (p10[^)]*)//g' -e 's/, floor.*; queued/ q/' | cut -c1-130
  done
done
ITERS=40 bash scripts/gpu-evidence.sh bench
