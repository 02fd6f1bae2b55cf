//! The check binary on a machine without a CUDA driver: every way in that
//! needs the GPU ends with its typed error and exit status 2, never a panic
//! inside cudarc (which panics where libcuda is missing unless asked first).
//! On a machine with a driver there is nothing to test here: reported as not
//! verified.

use std::process::Command;
use tailrace_cuda::kernels;

#[test]
fn gpu_commands_fail_cleanly_without_a_driver() {
    if kernels::require_driver().is_ok() {
        println!("not verified: this machine has a CUDA driver");
        return;
    }
    let runs: [&[&str]; 3] = [
        &["--rows", "10", "--no-timing"],
        &["--checked-define", "TR_RACE_RARE_SHORT=7", "--rows", "10"],
        &[
            "--checked-define",
            "TR_WARP_PRINT=1",
            "bench",
            "--rows",
            "1",
        ],
    ];
    for args in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_tailrace-cuda-check"))
            .args(args)
            .output()
            .expect("the check binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: exit status\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert!(
            stdout.contains("FATAL") && stdout.contains("CUDA driver library not found"),
            "{args:?}: the typed error is reported\nstdout:\n{stdout}"
        );
        assert!(
            !stderr.contains("panicked"),
            "{args:?}: no panic\nstderr:\n{stderr}"
        );
    }
}
