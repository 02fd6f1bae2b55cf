//! The bf16 top-p entry map of `kernels/topp.cu`, compiled for the host with a
//! C++ compiler and checked exhaustively against its definition by sign and
//! magnitude (every bf16 value under a grid of row maxima and temperatures).
//! The kernel computes it two values a word with 16-bit SIMD; a wrong entry
//! would move mass between values and change the top-p cut.

use std::path::PathBuf;
use std::process::Command;

fn section<'a>(src: &'a str, start: &str, end: &str) -> &'a str {
    let i = src
        .find(start)
        .unwrap_or_else(|| panic!("topp.cu lost `{start}`"));
    let j = i + src[i..]
        .find(end)
        .unwrap_or_else(|| panic!("topp.cu lost `{end}`"));
    &src[i..j]
}

#[test]
fn simd_entry_map_matches_its_definition() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(dir.join("kernels/topp.cu")).unwrap();
    let map = section(&src, "struct ToppMap {", "// The value of a value entry");
    let here = dir.join("tests/topp_map");
    let mut cpp = std::fs::read_to_string(here.join("harness.cpp")).unwrap();
    cpp.push_str(map);
    cpp.push_str(&std::fs::read_to_string(here.join("main.cpp")).unwrap());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = out.join("topp_map.cpp");
    let exe = out.join("topp_map");
    std::fs::write(&file, cpp).unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let built = Command::new(&cxx)
        .args(["-O2", "-std=c++17", "-frounding-math", "-o"])
        .arg(&exe)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("this test needs a C++ compiler ({cxx}): {e}"));
    assert!(
        built.status.success(),
        "compiling the harness failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    println!("{text}");
    assert!(run.status.success(), "entry map differs:\n{text}");
}
