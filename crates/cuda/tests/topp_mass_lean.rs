//! The f32/f16 top-p histogram's mass arithmetic of `kernels/math.cuh` and
//! `kernels/topp.cu`, compiled for the host with a C++ compiler: the lean exp
//! (`tr_top_p_mass_exp`: no special cases, the power of two folded with 2^63)
//! gives the masses of the inlined exp bit for bit on every y that has a
//! mass, and the exact reciprocal (`tr_exact_reciprocal`) is 1/t exactly
//! where t is a power of two whose reciprocal is normal and 0 elsewhere, so
//! that the histogram's multiplication equals the spec's division.

use std::path::PathBuf;

#[path = "support/host_cpp.rs"]
mod host_cpp;

#[test]
fn lean_masses_and_exact_reciprocals_match_the_spec_operations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let common = std::fs::read_to_string(dir.join("kernels/common.cuh")).unwrap();
    let math = std::fs::read_to_string(dir.join("kernels/math.cuh")).unwrap();
    let topp = std::fs::read_to_string(dir.join("kernels/topp.cu")).unwrap();
    let here = dir.join("tests/topp_mass_lean");
    let mut cpp = std::fs::read_to_string(here.join("harness.cpp")).unwrap();
    cpp.push_str(&tailrace_cuda::kernels::prelude());
    // The pieces the harness needs, each cut out by its first and last lines.
    let pieces = [
        (
            &common,
            "common.cuh",
            "// 2^n as binary64",
            "// ---- Philox4x32-10",
        ),
        (
            &math,
            "math.cuh",
            "// x * 2^n for n in [-1100, 1023].",
            "// CUDA/libdevice logf",
        ),
        (
            &math,
            "math.cuh",
            "// floor(exp((a - a_max) / T) * 2^63).",
            "// ceil(p * q) exactly",
        ),
        (
            &topp,
            "topp.cu",
            "// 1/t where it is exact",
            "// The f32/f16 histogram's element loop",
        ),
    ];
    for (src, file, start, end) in pieces {
        cpp.push_str(host_cpp::section(src, file, start, end));
    }
    cpp.push_str(&std::fs::read_to_string(here.join("main.cpp")).unwrap());
    let run = host_cpp::build_and_run(
        "topp_mass_lean",
        &cpp,
        &["-O2", "-std=c++17", "-ffp-contract=off"],
    );
    let text = String::from_utf8_lossy(&run.stdout);
    println!("{text}");
    assert!(
        run.status.success(),
        "lean masses or reciprocals differ:\n{text}"
    );
}
