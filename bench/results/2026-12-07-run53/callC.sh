#!/usr/bin/env bash
# Run 53, call C: compute-sanitizer over the new default's two-unit scan
# (267eeb6, kernels sha256 f7b44f54...; binaries of scripts/carry-build.sh,
# carried as target/strip-check), then three or four units in flight for
# the short chunks, timed with the A/A and checked.
# Why: the second unit of a short chunk is fetched past the chunk's end
# (B = 1: one step a lane) under the bounds test, and the pilot writes its
# keys into the last block's list buffer; memcheck, racecheck and synccheck
# have not seen that code. The differential check under memcheck (as
# scripts/device-run.sh runs it) covers random batches; the bench runs add
# rows whose vocabulary is not a multiple of 8 (a partial unit, rows not
# 16-byte aligned) at B = 1, 8 and 16.
# Prediction (units): chunks of 4 and 16 steps (B = 16, 64) 0.2-0.5 us
# faster with 3 or 4 units (more loads in flight before the pilot), B = 8
# (2 steps) unchanged or slower (the extra units lie past the chunk), B >=
# 256 unchanged (the one-unit copy).
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cat target/release/BUILT
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; date -u
. scripts/device-env.sh
log=/tmp/san/san.log; mkdir -p /tmp/san; : > $log
timeout 150 compute-sanitizer --tool memcheck --print-limit 20 "$BIN" --out /tmp/san/summary.json \
    --no-timing --rows 1500 --noise 100 --diff-budget-s 40 --no-invariance >> $log 2>&1
echo "memcheck (differential) exit $?" >> $log
for args in "--rows 1 --vocab 100003 --top-k 50" "--rows 8 --vocab 32003 --top-k 50 --top-p 0.9" \
            "--rows 16 --vocab 131071 --top-k 50 --top-p 0.9"; do
    echo "=== memcheck bench $args" >> $log
    timeout 90 compute-sanitizer --tool memcheck --print-limit 20 "$BIN" bench $args --reps 1 >> $log 2>&1
    echo "memcheck exit $?" >> $log
done
for tool in racecheck synccheck; do
    for args in "--rows 8 --vocab 32003 --top-k 50 --top-p 0.9" "--rows 1 --vocab 100003 --top-k 50"; do
        echo "=== $tool bench $args" >> $log
        timeout 120 compute-sanitizer --tool $tool --print-limit 20 "$BIN" bench $args --reps 1 >> $log 2>&1
        echo "$tool exit $?" >> $log
    done
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|exit|rows in|===" $log | cut -c1-200
tar -C /tmp -czf "$OUT/san.tgz" san
date -u
check_experiment units34 200 --diff-budget-s 15 --iters 40 --variants-only --variant-aa \
    --variant-mode top_k50,top_k50_top_p0.9 --variant-rows 1,8,16,64,256 --variant-dtype bf16 \
    --variant "TR_TOPK_UNITS_BF16_SHORT=3" --variant "TR_TOPK_UNITS_BF16_SHORT=4"
grep -E "A/A|A/B" /tmp/units34/check.log | sed 's/^\[[^]]*\] *//' | cut -c1-200
ls -la "$OUT"; date -u
