#!/usr/bin/env bash
# Run 55, call B: where the host's share of a per-call time goes
# (`tailrace-cuda-check host-cost`, new in this run), on main's kernels
# (dc435e2d...), for the check binary of fc60dca (carried as
# target/old-check: the sampler reads a kernel attribute from the driver
# each call) and of 2a34cf8 and later (target/strip-check: read once), in the order
# old, new, new, old. Per call minus queued is 2.0-3.4 us in every record of
# run 54's H100 grid and 1.2 us for the empty kernel: the GPU waits for the
# host's submission of the call. Prediction: the old sampler's host time a
# call 1-2 us above an empty launch of the same form (cuLaunchKernelEx with
# the PDL attribute and the argument block), made of the kernel attribute
# read and the launch itself; the new one 0.2-0.5 us shorter.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
cp target/old-check/tailrace-cuda-check target/release/tailrace-cuda-check-old
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"; date -u
mkdir -p "$OUT/host"
n=0
for b in old new new old; do
    n=$((n + 1))
    bin=target/release/tailrace-cuda-check; [ $b = old ] && bin=target/release/tailrace-cuda-check-old
    timeout 200 "$bin" --iters 400 --out "$OUT/host/$n-$b.json" host-cost \
        --rows 1,8,64,256 --mode plain,top_k50_top_p0.9,top_p0.9,greedy > "$OUT/host/$n-$b.log" 2>&1
    echo "== $n $b exit $?"
    grep -E "median|per call" "$OUT/host/$n-$b.log" | sed -e 's/^\[[^]]*\]  *//' | grep -v "back to back\|reserve"
done
date -u
