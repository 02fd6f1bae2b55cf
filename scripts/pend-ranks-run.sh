#!/usr/bin/env bash
# The pending top-p finish's direct ranks (kernels/topp.cu,
# TR_PEND_RANK_DIRECT, written in runs 39-40) and its regions read flat
# (TR_PEND_GATHER_FLAT, run 40) on the device machine: the default since run
# 40's calls C (timing) and D (check); the stages stay as the record of how
# they were timed and checked (run today, their variants are compared with
# today's default, which has both on). Stages, each one `run` call:
#   time   the interleaved variant timing with its A/A
#          (scripts/variant-ab.sh: 100 timings a build, top-p 0.9, B = 1 /
#          8 / 64 / 256 / 1024); then the phase clock of the race's last
#          block (stamps 7-13 of tr_pend_finish) at top-p 0.9, B = 1 and
#          64, for the build with the direct ranks and for the default, each
#          with TR_PEND_FINISH_TWICE (the regions read and ranked a second
#          time, warm: stamps 9 and 13), which tells how much of each
#          stretch is its code and lists coming in cold. About 450 s with
#          the machine up (each phase process compiles its build, ~45 s).
#   args   (run 40, after call A found the regions read as slow warm as
#          cold) the finish's arguments copied for the call
#          (TR_PEND_ARGS_COPY) with the direct ranks: the A/B against the
#          direct ranks alone and the default, then the twice-ranked phase
#          clock of both at B = 1 and 64, slots 11 and 12 inside the first
#          regions read. About 400 s.
#   regions (run 40, after call B put 2.6 us of the B = 1 regions read
#          after thread 0's first count arrived) each thread's clock in the
#          first regions read (TR_PEND_REGION_CLOCK), the block's largest and
#          mean printed, at B = 1 and 64, for the regions read as they are,
#          read flat (TR_PEND_GATHER_FLAT: every turn's first load issued
#          together, slots by a warp scan) and read flat from copied
#          arguments; then the A/B of the three against the default. About
#          300 s. Prediction (before the call): if straggling loads and the
#          per-element atomics are the stretch, the flat read takes the B = 1
#          regions read from about 3.4 us to 2 us or less, B = 64 from 2.2-3.2
#          to 1.5-2.
#   adopt  (run 40, after call C) the whole CUDA check of the candidate
#          default, TR_PEND_RANK_DIRECT=1 and TR_PEND_GATHER_FLAT=1 (the
#          differential, the invariance against the default build), then the
#          per-warp clock of its regions read. About 450 s. CHECK_ONLY=1
#          stops after the check; CHECK_LIMIT and DIFF_BUDGET (seconds)
#          shorten it.
#   check  the whole CUDA check of the build with the direct ranks (the
#          differential against the CPU model; the invariance against the
#          default, the bucket ranks): what the knob needs before it becomes
#          the default (the conformance suite runs the default kernels, so
#          its full tier follows the change of default). About 300 s.
# The value 2 takes the direct counts wherever the row's elements of the
# cut's value are at most two a thread: every pending row of the benchmark's
# (about 140 such elements at V = 131072), at 96-thread blocks (B = 1024)
# as well as at 256.
# Prediction (run 40, written before any run, on the SASS of sm_90: the
# count is two instructions an entry, 16-byte broadcast loads, no barrier;
# about 350 issue cycles a warp for 144 entries against the bucket path's
# five barriers, two 64-bit divisions an element and its scans): the
# stretch from "regions read" to "ranked" (stamps 8 -> 10) 0.5-1.5 us
# shorter at B = 64, top-p 0.9 per call 0.3-1.5 us faster at B <= 64 and
# 0-1 us at B = 256 / 1024. The warm second stretches (TR_PEND_FINISH_TWICE):
# if cold code is what the finish's stretches are made of (run 27, item 6:
# the regions' loads issued together did not shorten theirs), the warm
# regions read well under the cold 2.7 us at B = 1, and the direct ranks
# gain less warm than cold (less code to fetch).
# After both stages, where the A/B gains beyond the A/A and the check passes:
# the grid of both builds in one call (`EXTRA_GRIDS="direct:TR_PEND_RANK_DIRECT=2"
# ITERS=40 bash scripts/gpu-evidence.sh bench`), then 2 as the default
# (kernels/topp.cu), rebuilt here, and `bash scripts/gpu-evidence.sh sampler`
# (the conformance suite's full tier runs the default kernels).
# Prediction for args (run 40, before call B): the finish reads the kernel's
# arguments through generic addresses of the parameter space (the call takes
# them by reference; SASS: LD.E through a pointer from the constant bank),
# the list's address two such loads deep. If those loads are slow, the copy
# build's regions read at B = 1 falls from about 6,700 cycles to 3,000 or
# less, and top-p 0.9 gains 1-2 us per call at B <= 64; if not, the copy is
# within the A/A and the stamps 11 / 12 show where the stretch goes.
# Build here: bash scripts/carry-build.sh (into target/strip); then the device tool's `run` with carry
# ["target/strip"], command:
#   mkdir -p target/release && cp target/strip/* target/release/ && bash scripts/pend-ranks-run.sh time
# Files: $OUT/phase.tgz (the phase-clock lines), $OUT/ab.tgz (time);
# $OUT/pend-check.tgz (check).
set -u
cd "$(dirname "$0")/.."
. scripts/device-env.sh
case "${1:?usage: pend-ranks-run.sh time|args|regions|adopt|check}" in
time)
    MODES=top_p0.9 ROWS=1,8,64,256,1024 ITERS=100 LIMIT=300 VARIANTS="TR_PEND_RANK_DIRECT=2" \
        bash scripts/variant-ab.sh
    CONFIGS="1:0:0.9 64:0:0.9" REPS=6 DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=2" \
        TAG=-direct bash scripts/phase-run.sh
    CONFIGS="1:0:0.9 64:0:0.9" REPS=6 DEFINES="TR_PEND_FINISH_TWICE=1" bash scripts/phase-run.sh
    (cd "$OUT" && tar -czf phase.tgz ph-*.txt && rm -f ph-*.txt)
    ;;
args)
    # Run 40, call B: the finish's arguments copied for the call
    # (TR_PEND_ARGS_COPY) with the direct ranks, timed against the direct
    # ranks alone and the default, then the twice-ranked phase clock of
    # both, with stamps 11 and 12 inside the first regions read.
    MODES=top_p0.9 ROWS=1,8,64,256,1024 ITERS=100 LIMIT=300 \
        VARIANTS="TR_PEND_RANK_DIRECT=2|TR_PEND_RANK_DIRECT=2;TR_PEND_ARGS_COPY=1" bash scripts/variant-ab.sh
    CONFIGS="1:0:0.9 64:0:0.9" REPS=6 \
        DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=2 TR_PEND_ARGS_COPY=1" TAG=-copy \
        bash scripts/phase-run.sh
    CONFIGS="1:0:0.9 64:0:0.9" REPS=6 DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=2" \
        TAG=-direct bash scripts/phase-run.sh
    (cd "$OUT" && tar -czf phase.tgz ph-*.txt && rm -f ph-*.txt)
    ;;
regions)
    # Run 40, call C: where the first regions read goes, thread by thread
    # (TR_PEND_REGION_CLOCK: each thread's clock when its first two turns'
    # counts arrived and when its regions were taken; the block's largest
    # and mean on a line tagged tr_pend_regions), at B = 1 and 64, for the
    # direct ranks with the regions read as they are, read flat
    # (TR_PEND_GATHER_FLAT) and read flat from copied arguments; then the
    # A/B of the same three builds against the default.
    for d in "" " TR_PEND_GATHER_FLAT=1" " TR_PEND_GATHER_FLAT=1 TR_PEND_ARGS_COPY=1"; do
        tag=$(echo "$d" | sed -e 's/TR_PEND_GATHER_FLAT=1/flat/' -e 's/TR_PEND_ARGS_COPY=1/copy/' | tr -d ' ')
        CONFIGS="1:0:0.9 64:0:0.9" REPS=4 TAG="-rc$tag" \
            DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=2 TR_PEND_REGION_CLOCK=1$d" \
            bash scripts/phase-run.sh
    done
    for f in "$OUT"/ph-*-rc*.txt; do
        echo "--- $f"
        grep "^tr_pend_regions" "$f" | tail -n 3
    done
    (cd "$OUT" && tar -czf regions.tgz ph-*.txt && rm -f ph-*.txt)
    MODES=top_p0.9 ROWS=1,8,64,256,1024 ITERS=100 LIMIT=300 \
        VARIANTS="TR_PEND_RANK_DIRECT=2|TR_PEND_RANK_DIRECT=2;TR_PEND_GATHER_FLAT=1|TR_PEND_RANK_DIRECT=2;TR_PEND_GATHER_FLAT=1;TR_PEND_ARGS_COPY=1" \
        bash scripts/variant-ab.sh
    ;;
adopt)
    # Run 40, call D: the CUDA check of the candidate default (the direct
    # ranks where a thread holds one element, the regions read flat), with
    # the invariance against the default build; then the per-warp clock of
    # its regions read at B = 1 and 64.
    check_experiment adopt-check "${CHECK_LIMIT:-420}" --checked-define TR_PEND_RANK_DIRECT=1 \
        --checked-define TR_PEND_GATHER_FLAT=1 --no-timing --diff-budget-s "${DIFF_BUDGET:-150}" \
        --variant "TR_PEND_RANK_DIRECT=0;TR_PEND_GATHER_FLAT=0"
    [ -n "${CHECK_ONLY:-}" ] && exit 0
    CONFIGS="1:0:0.9 64:0:0.9" REPS=4 TAG=-rcflat \
        DEFINES="TR_PEND_FINISH_TWICE=1 TR_PEND_RANK_DIRECT=1 TR_PEND_GATHER_FLAT=1 TR_PEND_REGION_CLOCK=1" \
        bash scripts/phase-run.sh
    for f in "$OUT"/ph-*-rc*.txt; do
        echo "--- $f"
        grep "^tr_pend_regions" "$f" | tail -n 3
    done
    (cd "$OUT" && tar -czf regions.tgz ph-*.txt && rm -f ph-*.txt)
    ;;
check)
    check_experiment pend-check 450 --checked-define TR_PEND_RANK_DIRECT=2 --no-timing \
        --diff-budget-s 150 --variant "TR_PEND_RANK_DIRECT=0"
    ;;
esac
