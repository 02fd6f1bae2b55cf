//! Running the binary and writing safetensors files.

use half::{bf16, f16};
use safetensors::tensor::TensorView;
use safetensors::Dtype;
use std::path::PathBuf;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary's result.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts success and returns stdout.
    pub fn ok(&self) -> &str {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        &self.stdout
    }

    /// Parses stdout as one JSON object.
    pub fn json(&self) -> serde_json::Value {
        let out = self.ok();
        assert_eq!(out.trim_end().lines().count(), 1, "one JSON line: {out}");
        serde_json::from_str(out).expect("stdout is JSON")
    }

    /// Asserts failure with `code` and a single `error: ...` line on stderr
    /// (no panic text); returns the line.
    pub fn fails(&self, code: i32) -> &str {
        assert!(
            !self.stderr.contains("panicked"),
            "panic text on stderr: {}",
            self.stderr
        );
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one stderr line, got: {:?}", self.stderr);
        assert!(lines[0].starts_with("error: "), "stderr: {}", self.stderr);
        assert_eq!(self.code, Some(code), "stderr: {}", self.stderr);
        lines[0]
    }
}

/// Runs `tailrace args...`.
pub fn tailrace<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let out: Output = std::process::Command::new(env!("CARGO_BIN_EXE_tailrace"))
        .args(args)
        .output()
        .expect("run tailrace");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh path under the target's temporary folder.
pub fn tmp_path(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tailrace-cli-it");
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir.join(format!(
        "{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Writes raw tensors `(name, dtype, shape, little-endian bytes)` to a new file.
pub fn write_raw(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> PathBuf {
    let path = tmp_path("logits.safetensors");
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, d, s, b)| {
            (
                n.to_string(),
                TensorView::new(*d, s.clone(), b).expect("tensor view"),
            )
        })
        .collect();
    safetensors::serialize_to_file(views, None, &path).expect("write safetensors");
    path
}

/// Deterministic pseudo-random logits with a few equal values.
pub fn logits(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 97 == 13 {
                1.5
            } else {
                ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 8.0
            }
        })
        .collect()
}

/// The element types the tool reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bf16,
    F16,
    F32,
}

pub const KINDS: [Kind; 3] = [Kind::Bf16, Kind::F16, Kind::F32];

impl Kind {
    pub fn dtype(self) -> Dtype {
        match self {
            Kind::Bf16 => Dtype::BF16,
            Kind::F16 => Dtype::F16,
            Kind::F32 => Dtype::F32,
        }
    }

    /// Little-endian bytes of `values` in this type.
    pub fn bytes(self, values: &[f32]) -> Vec<u8> {
        match self {
            Kind::Bf16 => values
                .iter()
                .flat_map(|&v| bf16::from_f32(v).to_le_bytes())
                .collect(),
            Kind::F16 => values
                .iter()
                .flat_map(|&v| f16::from_f32(v).to_le_bytes())
                .collect(),
            Kind::F32 => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        }
    }
}
