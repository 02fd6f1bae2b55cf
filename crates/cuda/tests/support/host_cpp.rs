//! Kernel code compiled for the host: the tests that check a piece of
//! `kernels/*.cu` this way cut it out of the source by its first and last
//! lines, put it between a harness and a `main`, build the program with the
//! C++ compiler (`CXX`, else `c++`) and run it.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The text of `src` from the first `start` up to (not including) the next
/// `end`; panics, naming `file`, where the source lost either.
pub fn section<'a>(src: &'a str, file: &str, start: &str, end: &str) -> &'a str {
    let i = src
        .find(start)
        .unwrap_or_else(|| panic!("{file} lost `{start}`"));
    let j = i + src[i..]
        .find(end)
        .unwrap_or_else(|| panic!("{file} lost `{end}`"));
    &src[i..j]
}

/// Builds `cpp` as the program `name` (in the test target's scratch folder)
/// with `flags`, panicking with the compiler's output where it fails, and
/// runs it. The compiler's warnings are printed, not fatal.
#[allow(dead_code)]
pub fn build_and_run(name: &str, cpp: &str, flags: &[&str]) -> Output {
    Command::new(build(name, cpp, flags)).output().unwrap()
}

/// Builds `cpp` as the program `name` as [`build_and_run`] does, and returns
/// its path.
pub fn build(name: &str, cpp: &str, flags: &[&str]) -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = out.join(format!("{name}.cpp"));
    let exe = out.join(name);
    std::fs::write(&file, cpp).unwrap();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let built = Command::new(&cxx)
        .args(flags)
        .arg("-o")
        .arg(&exe)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("this test needs a C++ compiler ({cxx}): {e}"));
    assert!(
        built.status.success(),
        "compiling the harness failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    print!("{}", String::from_utf8_lossy(&built.stderr));
    exe
}
