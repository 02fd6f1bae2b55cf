#!/usr/bin/env bash
# Call E of run 40 (device tool `run`, carry ["target/strip"], binaries of
# da1996c: the direct ranks and the flat regions read as the default, the
# build call D checked, CUBIN for CUBIN): the conformance suite's quick tier
# on the CUDA backend, as scripts/gpu-evidence.sh sampler runs the full tier,
# cut to what the device time left (263 s) allowed.
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L
. scripts/device-env.sh
timeout 190 target/release/xtask conformance --backend cuda --tier quick --out /tmp/conf > /tmp/conf.log 2>&1
echo "conformance exit $?" >> /tmp/conf.log
cp /tmp/conf/report.md "$OUT/conformance_report.md" 2>/dev/null
tar -C /tmp -czf "$OUT/conformance.tgz" conf.log conf 2>/dev/null
tail -n 45 /tmp/conf.log
