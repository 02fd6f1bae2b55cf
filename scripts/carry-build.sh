#!/usr/bin/env bash
# Builds, here, the binaries a device call carries (the device machine has no
# cargo) and strips them into target/strip, which the call names in `carry`;
# the call's command starts with
#   mkdir -p target/release && cp target/strip/* target/release/
# Every binary of the three packages is built: `--bin tailrace-cuda-check`
# beside `-p xtask` builds that one binary alone and leaves an old xtask in
# target/release (run 41 carried an xtask of dd79c5f that way, and its
# conformance run tested the kernels of that commit). So the script then
# checks that each carried binary that embeds the CUDA kernels holds every
# kernel source file of this checkout byte for byte, and writes
# target/strip/BUILT (the commit, "-dirty" where tracked files under crates/
# or xtask/ differ from it, and the sources' SHA-256) for the call's log.
# target/strip-check holds the check binary and BUILT alone: the device tool
# sends at most 64 MiB with the working tree, whose tracked files were 58 MB
# in run 42, and the three binaries (8.5 MB) no longer fit beside them. Calls
# that run only the check binary (variant-ab.sh, phase-run.sh, device-run.sh)
# carry ["target/strip-check"] and copy target/strip-check/* instead.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p tailrace-cli -p tailrace-cuda -p xtask
mkdir -p target/strip
for b in tailrace tailrace-cuda-check xtask; do
    strip -o "target/strip/$b" "target/release/$b"
done
python3 - <<'PY'
import pathlib, sys
kernels = sorted(pathlib.Path("crates/cuda/kernels").iterdir())
bad = []
for b in ("tailrace-cuda-check", "xtask"):
    data = pathlib.Path("target/strip", b).read_bytes()
    for k in kernels:
        if k.read_bytes() not in data:
            bad.append(f"{b}: {k} is not the embedded copy (a stale build?)")
if bad:
    sys.exit("\n".join(bad))
print(f"carried binaries hold this checkout's {len(kernels)} kernel sources")
PY
{
    dirty=""
    git diff --quiet HEAD -- crates xtask || dirty="-dirty"
    echo "commit $(git rev-parse HEAD)$dirty"
    echo "kernels sha256 $(cat crates/cuda/kernels/* | sha256sum | cut -d' ' -f1)"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > target/strip/BUILT
mkdir -p target/strip-check
cp target/strip/tailrace-cuda-check target/strip/BUILT target/strip-check/
cat target/strip/BUILT
