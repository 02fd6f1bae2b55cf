//! The bf16 top-p entry map of `kernels/topp.cu`, compiled for the host with a
//! C++ compiler and checked exhaustively against its definition by sign and
//! magnitude (every bf16 value under a grid of row maxima and temperatures).
//! The kernel computes it two values a word with 16-bit SIMD; a wrong entry
//! would move mass between values and change the top-p cut.

use std::path::PathBuf;

#[path = "support/host_cpp.rs"]
mod host_cpp;

#[test]
fn simd_entry_map_matches_its_definition() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(dir.join("kernels/topp.cu")).unwrap();
    let map = host_cpp::section(
        &src,
        "topp.cu",
        "struct ToppMap {",
        "// The value of a value entry",
    );
    let here = dir.join("tests/topp_map");
    let mut cpp = std::fs::read_to_string(here.join("harness.cpp")).unwrap();
    cpp.push_str(map);
    cpp.push_str(&std::fs::read_to_string(here.join("main.cpp")).unwrap());
    let run = host_cpp::build_and_run("topp_map", &cpp, &["-O2", "-std=c++17", "-frounding-math"]);
    let text = String::from_utf8_lossy(&run.stdout);
    println!("{text}");
    assert!(run.status.success(), "entry map differs:\n{text}");
}
