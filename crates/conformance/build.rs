//! Embeds the commit the binary was built from (`TAILRACE_BUILD_COMMIT`), so a
//! report run from a carried binary names the code it ran, whatever checkout
//! (or copy without git metadata) it runs in.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).map_or_else(
        || "unknown (built outside a git checkout)".to_string(),
        |c| {
            // Tracked changes under crates/ change what gets built.
            let dirty = git(&["status", "--porcelain", "--untracked-files=no", "--", "../"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        },
    );
    println!("cargo:rustc-env=TAILRACE_BUILD_COMMIT={commit}");
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
    }
    // And whenever a file under crates/ changes: edits that touch neither
    // HEAD nor the index would otherwise keep the commit of the last run,
    // without "-dirty".
    println!("cargo:rerun-if-changed=../");
    println!("cargo:rerun-if-changed=build.rs");
}
