#!/usr/bin/env bash
# Call E of run 40 (device tool `run`, carry ["target/strip"], binaries of
# the commit that adds this file: the direct ranks and the flat regions read
# as the default, the build call D checked, CUBIN for CUBIN): the conformance
# suite's quick tier on the CUDA backend (the full tier did not fit the
# device time left: 263 s).
mkdir -p target/release && cp target/strip/* target/release/ && nvidia-smi -L && TIER=quick bash scripts/gpu-evidence.sh sampler
