//! The pending top-p finish's direct ranks (`tr_pend_rank` of
//! `kernels/topp.cu`, `TR_PEND_RANK_DIRECT`), compiled for the host with a
//! C++ compiler and checked against a plain count: every entry's rank in
//! lists of 0 to `TR_TOPP_PEND_CAP` distinct indices in random order, rows of
//! 1 to 2^31 - 1 elements, and the cut each q gives (the q-th smallest index,
//! none past the list). A wrong rank would move the top-p cut by an index.

use std::path::PathBuf;

#[path = "support/host_cpp.rs"]
mod host_cpp;

/// The value of `#define NAME VALUE` in a kernel source.
fn define<'a>(src: &'a str, name: &str) -> &'a str {
    let key = format!("#define {name} ");
    let line = src
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("kernel source lost `{key}`"));
    line[key.len()..].trim()
}

#[test]
fn direct_ranks_match_a_plain_count() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let topp = std::fs::read_to_string(dir.join("kernels/topp.cu")).unwrap();
    let sample = std::fs::read_to_string(dir.join("kernels/sample.cu")).unwrap();
    let here = dir.join("tests/pend_rank");
    let mut cpp = std::fs::read_to_string(here.join("harness.cpp")).unwrap();
    cpp.push_str(&format!(
        "#define TR_TOPP_PEND_CAP {}\n",
        define(&sample, "TR_TOPP_PEND_CAP")
    ));
    cpp.push_str(host_cpp::section(
        &topp,
        "topp.cu",
        "#define TR_PEND_SENTINEL",
        "// (end of tr_pend_rank)",
    ));
    cpp.push_str(&std::fs::read_to_string(here.join("main.cpp")).unwrap());
    let run = host_cpp::build_and_run("pend_rank", &cpp, &["-O2", "-std=c++17", "-Wall"]);
    let text = String::from_utf8_lossy(&run.stdout);
    println!("{text}");
    assert!(run.status.success(), "direct ranks differ:\n{text}");
}
