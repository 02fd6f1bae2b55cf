//! Compiles every kernel with NVRTC (no GPU needed) when libnvrtc is loadable.
//! With TAILRACE_REQUIRE_NVRTC=1 a missing libnvrtc fails the test.

use tailrace_cuda::kernels;

/// Whether libnvrtc loads; without it the test is reported as not verified
/// (and fails under TAILRACE_REQUIRE_NVRTC=1).
fn nvrtc_present() -> bool {
    if let Err(e) = kernels::require_nvrtc() {
        if std::env::var("TAILRACE_REQUIRE_NVRTC").as_deref() == Ok("1") {
            panic!("TAILRACE_REQUIRE_NVRTC=1 but libnvrtc is not loadable: {e}");
        }
        println!("not verified: libnvrtc not found ({e})");
        return false;
    }
    true
}

#[test]
fn kernels_compile_cleanly_with_nvrtc() {
    if !nvrtc_present() {
        return;
    }
    for arch in ["compute_90", "compute_80"] {
        let c = kernels::compile(arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(
            c.log.is_empty(),
            "{arch}: NVRTC log is not empty:\n{}",
            c.log
        );
        assert!(!c.is_cubin);
        let ptx = String::from_utf8(c.image).expect("PTX is text");
        for name in kernels::KERNEL_NAMES {
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "{arch}: no entry {name}"
            );
        }
        // fmad off: the compiler may not contract a multiply and an add.
        assert!(ptx.contains("fma.rn.f64"), "{arch}: explicit fma present");
    }
}

/// Builds compiled side by side (`kernels::precompile`, as the check binary
/// does before loading its variants) are each the build its defines name:
/// byte for byte what compiling it alone gives.
#[test]
fn precompiled_builds_match_their_own_compilation() {
    if !nvrtc_present() {
        return;
    }
    let arch = "compute_90";
    let builds = vec![Vec::new(), vec!["TR_TOPP_CSEL_ILP=1u".to_string()]];
    kernels::precompile(arch, &builds).expect("the builds compile");
    let images: Vec<Vec<u8>> = builds
        .iter()
        .map(|d| kernels::cubin_for(arch, d).unwrap().image.clone())
        .collect();
    assert_ne!(images[0], images[1], "the knob changes the build");
    for (d, image) in builds.iter().zip(&images) {
        let alone = kernels::compile_with(arch, d, &[]).unwrap();
        assert!(alone.image == *image, "{d:?}: the cached build differs");
    }
}

/// The control shapes of timing runs (kernels/sample.cu): the pass's
/// short-circuit parameter loads (`TR_PASS_PARAMS_AT_ONCE=0`), the race's
/// unrolled rare step (`TR_RACE_RARE_BITS=0`), its unpinned lead blocks
/// (`TR_RACE_PIN_LEADS=0`), each warp's own pilot (`TR_RACE_BLOCK_PILOT=0`)
/// the pilot over three steps (`TR_RACE_PILOT_STEPS=3`), the wide build
/// without the pilot (`TR_FAST_WIDE_PILOT=false`), the block threshold's
/// refresh (`TR_RACE_REFRESH=1`, `=4`; in the lean builds alone
/// `TR_RACE_REFRESH_LEAN=1`), the bisected class cutoffs
/// (`TR_CUTOFF_CLOSED=0`), the warp clock (`TR_WARP_PRINT=1`), the pass's
/// combine through its partial for rows of one chunk
/// (`TR_PASS_LOCAL_COMBINE=0`) and the top-p shapes before run 20 (one
/// histogram segment `TR_TOPP_SEGS=0`, the converting gather
/// `TR_TOPP_GATHER_LEAN=0`, the middle flags of every unit
/// `TR_TOPP_MID_ANY=0`, two units a thread in long runs
/// `TR_TOPP_VALUE_UNITS_LONG=2`), those before run 21 (the count loop's
/// multiplied keys and generic atomics `TR_TOPP_LEAN_COUNT=0`, the cut's
/// whole-list ranks and walk `TR_TOPP_CUT_SPLIT=0`), the select's loop rolled
/// (`TR_TOPP_SELECT_UNROLL=1`), the f32/f16 top-p loops before run 29 (the
/// mass as a call `TR_TOPP_MASS_INLINE=0`, with the loop of early returns
/// of run 43 and before `TR_TOPP_MASS_INLINE=1`, the new loop for chunks of
/// every length `TR_TOPP_LEAN_MIN=0u`, the gather's diagnostics of run 44
/// (`TR_TOPP_WALK_DIAG=1`), the 128-bit sums of chunks
/// of up to 2^17 elements `TR_TOPP_SUM15=0`, the f32/f16 gather's global
/// atomic an element `TR_TOPP_GATHER_STAGE=0` and the cut's ranks of lists
/// up to 1,024 elements, refuted in run 44 `TR_TOPP_RANK_MAX=1024u`, the
/// cut's sort and walk of lists over 64 elements before run 45
/// `TR_TOPP_CUT_RADIX=0`, its radix selection of every list
/// `TR_TOPP_RADIX_MIN=0u`, the gather's masses inside its loop
/// `TR_TOPP_GATHER_LATE=0`, the mass sums in static shared memory
/// `TR_TOPP_SUM_DYN=0`, the L1 prefetches refuted in run 45
/// (`TR_TOPP_HIST_PF=1`, `TR_TOPP_GATHER_PF=2`), the bf16 histogram's
/// scan and count in two reads before run 46 (`TR_TOPP_FUSE=0`), fused in
/// rows of one chunk alone (`TR_TOPP_FUSE=1`) and its
/// test build with the window's top at the sample's maximum
/// (`TR_TOPP_FUSE_TOP_AT_SAMPLE=1`), one
/// 128-bit sum a bin
/// `TR_TOPP_SUM16=0`, the gather without float bounds
/// `TR_TOPP_GATHER_PREFILTER=0`), the bf16 histogram's staging and cluster
/// select before run 30 (4 units or none staged `TR_TOPP_STAGE=4`, `=0`;
/// the masses one call after another `TR_TOPP_CSEL_ILP=1u`; the middle
/// masses by shared atomics `TR_TOPP_CSEL_MID_WARP=0`), the race in the
/// bf16 histogram of run 31, off by default since run 34 measured it slower
/// (`TR_TOPP_RACE=1`, with four units a load `TR_TOPP_RACE_UNITS=4` too),
/// the race's rare step as it was before run 34 (`TR_RACE_RARE_SHORT=0`;
/// the default, 7, compiles too), the race's loop as it was before run 35
/// (one step an iteration `TR_RACE_STEP_PAIRS=0`, the step's own loads of
/// units that are not whole `TR_RACE_RING_ALL=0`), the pending finish's
/// ranks and regions read as they were before run 40 (`TR_PEND_RANK_DIRECT=0`,
/// `TR_PEND_GATHER_FLAT=0`), its direct ranks two elements a thread
/// (`TR_PEND_RANK_DIRECT=2`) and its arguments copied for the call
/// (`TR_PEND_ARGS_COPY=1`), the race after the cut in the top-p clusters
/// (`TR_TOPP_SETTLE=1`), the cut's index in the top-p clusters
/// (`TR_TOPP_CUT_INDEX=1`), the non-exact profiles' race as it was before
/// run 47, one element's noise and tests after another
/// (`TR_DIRECT_WORDS=0`) and its unit filter with each lane's own best
/// alone (`TR_DIRECT_WARP=0`), the same race as it was before run 48, the
/// noise of all eight elements of a unit on a row with a cut
/// (`TR_DIRECT_LIVE=0`), the eight chains' tests unrolled
/// (`TR_DIRECT_TRY_ONCE=0`), no warp pilot (`TR_DIRECT_PILOT=0`), the fused
/// top-k scan of short bf16 chunks as it was before run 53, one unit in
/// flight (`TR_TOPK_UNITS_BF16_SHORT=1`), and two with the pilot over the
/// first alone (`TR_FUSED_PILOT_ALL=0`), the fused row's chain as it was
/// before run 54, with the chunk's running maximum and block reduction
/// (`TR_FUSED_LIST_MAX=0`) and the gather's head of two rounds
/// (`TR_FUSED_HEAD_FIT=0`), the list's maximum in the 64-register builds
/// too (`TR_FUSED_LIST_MAX_WIDE=1`), the phase-1 race's first ring steps
/// staged before its dependency wait (`TR_RACE_PRESTAGE=1`), pending top-p
/// rows settled chunk by chunk (`TR_PEND_LOCAL=1`, alone and with the
/// pending finish's arguments copied, `TR_PEND_ARGS_COPY=1`), the fused
/// scan's pilot count as it was before run 59, one order key a compare into
/// one running count (`TR_FUSED_PILOT_X2=0`, alone and with the phase
/// clock), its order keys counted in rounds of 32 lanes for every dtype
/// (`TR_FUSED_PILOT_X2=2`) and for f32/f16 rows beside the bf16 pairs
/// (`TR_FUSED_PILOT_X2=3`), the phase
/// clock (`TR_PHASE_PRINT=1`), the
/// select's profiling build (`TR_TOPP_SELECT_TWICE=1`) and the pending
/// finish's (`TR_PEND_FINISH_TWICE=1`, with the phase clock and the direct
/// ranks, and with the regions clock `TR_PEND_REGION_CLOCK=1` over either
/// regions read, as `scripts/pend-ranks-run.sh` runs them) still compile
/// cleanly, so a device run does not find out first.
#[test]
fn control_shapes_compile_cleanly_with_nvrtc() {
    if !nvrtc_present() {
        return;
    }
    for knob in [
        "TR_PASS_PARAMS_AT_ONCE=0",
        "TR_RACE_RARE_BITS=0",
        "TR_RACE_PIN_LEADS=0",
        "TR_RACE_BLOCK_PILOT=0",
        "TR_RACE_PILOT_STEPS=3",
        "TR_FAST_WIDE_PILOT=false",
        "TR_RACE_REFRESH=1",
        "TR_RACE_REFRESH=4",
        "TR_RACE_REFRESH_LEAN=1",
        "TR_CUTOFF_CLOSED=0",
        "TR_WARP_PRINT=1",
        "TR_PASS_LOCAL_COMBINE=0",
        "TR_TOPP_SEGS=0",
        "TR_TOPP_GATHER_LEAN=0",
        "TR_TOPP_MID_ANY=0",
        "TR_TOPP_VALUE_UNITS_LONG=2",
        "TR_TOPP_LEAN_COUNT=0",
        "TR_TOPP_SELECT_UNROLL=1",
        "TR_TOPP_CUT_SPLIT=0",
        "TR_TOPP_MASS_INLINE=0",
        "TR_TOPP_MASS_INLINE=1",
        "TR_TOPP_SUM15=0",
        "TR_TOPP_LEAN_MIN=0u",
        "TR_TOPP_WALK_DIAG=1",
        "TR_TOPP_GATHER_STAGE=0",
        "TR_TOPP_RANK_MAX=1024u",
        "TR_TOPP_CUT_RADIX=0",
        "TR_TOPP_RADIX_MIN=0u",
        "TR_TOPP_GATHER_LATE=0",
        "TR_TOPP_SUM_DYN=0",
        "TR_TOPP_HIST_PF=1",
        "TR_TOPP_GATHER_PF=2",
        "TR_TOPP_FUSE=0",
        "TR_TOPP_FUSE=1",
        "TR_TOPP_FUSE_TOP_AT_SAMPLE=1",
        "TR_TOPP_SUM16=0",
        "TR_TOPP_GATHER_PREFILTER=0",
        "TR_TOPP_STAGE=4",
        "TR_TOPP_STAGE=0",
        "TR_TOPP_CSEL_ILP=1u",
        "TR_TOPP_CSEL_MID_WARP=0",
        "TR_TOPP_RACE=1",
        "TR_TOPP_RACE=0",
        "TR_PHASE_PRINT=1",
        "TR_TOPP_SELECT_TWICE=1",
        "TR_RACE_RARE_SHORT=7",
        "TR_RACE_RARE_SHORT=0",
        "TR_RACE_STEP_PAIRS=0",
        "TR_RACE_RING_ALL=0",
        "TR_PEND_RANK_DIRECT=0",
        "TR_PEND_RANK_DIRECT=2",
        "TR_PEND_ARGS_COPY=1",
        "TR_PEND_GATHER_FLAT=0",
        "TR_TOPP_SETTLE=1",
        "TR_TOPP_CUT_INDEX=1",
        "TR_DIRECT_WORDS=0",
        "TR_DIRECT_WARP=0",
        "TR_DIRECT_LIVE=0",
        "TR_DIRECT_TRY_ONCE=0",
        "TR_DIRECT_PILOT=0",
        "TR_TOPK_UNITS_BF16_SHORT=1",
        "TR_FUSED_PILOT_ALL=0",
        "TR_FUSED_LIST_MAX=0",
        "TR_FUSED_HEAD_FIT=0",
        "TR_FUSED_LIST_MAX_WIDE=1",
        "TR_RACE_PRESTAGE=1",
        "TR_PEND_LOCAL=1",
        "TR_FUSED_PILOT_X2=0",
        "TR_FUSED_PILOT_X2=2",
        "TR_FUSED_PILOT_X2=3",
    ] {
        let defines = [knob.to_string()];
        control_shape_compiles(&defines);
    }
    // Knobs that only matter together with another.
    control_shape_compiles(&[
        "TR_PEND_LOCAL=1".to_string(),
        "TR_PEND_ARGS_COPY=1".to_string(),
    ]);
    control_shape_compiles(&[
        "TR_FUSED_PILOT_X2=0".to_string(),
        "TR_PHASE_PRINT=1".to_string(),
    ]);
    control_shape_compiles(&[
        "TR_TOPP_RACE=1".to_string(),
        "TR_TOPP_RACE_UNITS=4".to_string(),
    ]);
    control_shape_compiles(&[
        "TR_PHASE_PRINT=1".to_string(),
        "TR_PEND_FINISH_TWICE=1".to_string(),
        "TR_PEND_RANK_DIRECT=2".to_string(),
        "TR_PEND_REGION_CLOCK=1".to_string(),
    ]);
    control_shape_compiles(&[
        "TR_PEND_FINISH_TWICE=1".to_string(),
        "TR_PEND_REGION_CLOCK=1".to_string(),
        "TR_PEND_GATHER_FLAT=0".to_string(),
    ]);
}

fn control_shape_compiles(defines: &[String]) {
    let knob = defines.join(" ");
    {
        let c = kernels::compile_with("compute_90", defines, &[])
            .unwrap_or_else(|e| panic!("compute_90 with {knob}: {e}"));
        assert!(
            c.log.is_empty(),
            "{knob}: NVRTC log is not empty:\n{}",
            c.log
        );
        let ptx = String::from_utf8(c.image).expect("PTX is text");
        assert!(
            ptx.contains(".entry tr_fast_bf16("),
            "{knob}: the pass kernel is there"
        );
        // The race in the histogram copies its row's parameters with
        // 8-byte cp.async, which nothing else issues: there with the knob
        // on (asked for, or the source's default), gone with it off.
        let race = kernels::knob_value("TR_TOPP_RACE", defines).expect("a default") != "0";
        assert_eq!(
            ptx.contains("cp.async.ca.shared.global"),
            race,
            "{knob}: the histogram's race is built exactly where asked"
        );
        // The shorter rare step's warp maximum, the bf16 histogram's
        // sample maximum (`tr_topp_fuse_count`: one, where TR_TOPP_FUSE is
        // on and the histogram's race off) and the direct race's warp
        // threshold (`tr_race_direct_words`: one in each of its 18
        // instances, three logit types by bias or none by three profiles,
        // where TR_DIRECT_WORDS and TR_DIRECT_WARP are on) and its warp
        // pilot's largest bound (one more in each, where TR_DIRECT_PILOT is
        // on too) are the source's only 32-bit max reductions.
        let short: u32 = kernels::knob_value("TR_RACE_RARE_SHORT", defines)
            .expect("a default")
            .parse()
            .expect("a number");
        let fuse = kernels::knob_value("TR_TOPP_FUSE", defines).expect("a default") != "0" && !race;
        let on = |name: &str| kernels::knob_value(name, defines).expect("a default") != "0";
        let direct = if on("TR_DIRECT_WORDS") && on("TR_DIRECT_WARP") {
            18 * (1 + usize::from(on("TR_DIRECT_PILOT")))
        } else {
            0
        };
        let maxes = ptx
            .matches("redux.sync.max.u32")
            .count()
            .checked_sub(direct)
            .unwrap_or_else(|| {
                panic!("{knob}: fewer 32-bit max reductions than the direct race's {direct}")
            });
        assert_eq!(
            maxes > usize::from(fuse),
            short & 1 != 0,
            "{knob}: the rare step's key maximum is built exactly where asked \
             ({maxes} 32-bit max reductions)"
        );
        if short & 1 == 0 {
            assert_eq!(
                maxes,
                usize::from(fuse),
                "{knob}: the fused count's sample maximum is built exactly where asked"
            );
        }
    }
}
