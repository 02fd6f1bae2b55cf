#!/usr/bin/env bash
# The SASS of one kernel, here, without a GPU: compiles the embedded kernels
# with NVRTC (tailrace-cuda-check cubin) and disassembles them with nvdisasm
# from the pip wheel nvidia-cuda-nvdisasm (13.2 reads the sm_90 cubins of
# NVRTC 13.0), unpacked once into target/nvdisasm. Prints the kernel's text
# section, its callees (the __noinline__ functions, `$KERNEL$...` labels)
# after it.
#   bash scripts/sass-local.sh tr_fused_bf16 [--define NAME=VALUE ...] > f.sass
# Needs libnvrtc.so.13 on the loader path (pip nvidia-cuda-nvrtc==13.0.*, as
# .ci/run installs) and a built check binary (cargo build --release -p
# tailrace-cuda --bin tailrace-cuda-check).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 KERNEL [--define NAME=VALUE ...]" >&2; exit 2; }
kernel=$1
shift
nd=target/nvdisasm/nvidia/cu13/bin/nvdisasm
if [ ! -x "$nd" ]; then
  tmp=$(mktemp -d)
  pip download -q --no-deps -d "$tmp" "nvidia-cuda-nvdisasm==13.2.*" >&2
  python3 -m zipfile -e "$tmp"/nvidia_cuda_nvdisasm-*.whl target/nvdisasm
  chmod +x "$nd"
  rm -rf "$tmp"
fi
cubin=$(mktemp --suffix .cubin)
trap 'rm -f "$cubin"' EXIT
target/release/tailrace-cuda-check cubin "$cubin" --arch sm_90 "$@" >&2
"$nd" -c "$cubin" | awk -v k="$kernel" '
  /^[^ \t.].*:$/ { inside = ($0 == k ":" || index($0, "$" k "$") == 1) }
  /^[ \t]*\.section/ { inside = 0 }
  inside { print }'
