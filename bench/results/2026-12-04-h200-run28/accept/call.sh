#!/usr/bin/env bash
# Run 28, call 5 (binaries of 042a04e): acceptance, the full-tier CUDA
# conformance.
set -u
mkdir -p target/release && cp target/strip/* target/release/
. scripts/device-env.sh
L=/tmp/r28e; mkdir -p $L
timeout 240 target/release/xtask conformance --backend cuda --tier full --out $L/conf > $L/conformance.log 2>&1; echo "conformance exit $?" >> $L/conformance.log
tail -n 4 $L/conformance.log
cp $L/conf/report.md $OUT/conformance_report.md 2>/dev/null; cp $L/conf/report.json $OUT/conformance_report.json 2>/dev/null
tar -C /tmp -czf $OUT/r28-call5.tgz r28e
