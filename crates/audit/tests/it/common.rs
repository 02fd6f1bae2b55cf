//! Shared helpers: synthetic logits files and model draws.

use safetensors::tensor::TensorView;
use safetensors::Dtype;
use std::path::{Path, PathBuf};
use tailrace_model::{sample_batch, RowRequest, SamplingParams};

/// A small deterministic generator.
pub fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Logits spread over about `spread` nats.
pub fn random_logits(seed: u64, n: usize, spread: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| ((splitmix(&mut s) >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * spread)
        .collect()
}

/// A tensor to store: name, dtype, shape, little-endian bytes.
pub struct Tensor {
    pub name: &'static str,
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl Tensor {
    pub fn f32(name: &'static str, shape: Vec<usize>, v: &[f32]) -> Self {
        Tensor {
            name,
            dtype: Dtype::F32,
            shape,
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
    pub fn bf16(name: &'static str, shape: Vec<usize>, v: &[half::bf16]) -> Self {
        Tensor {
            name,
            dtype: Dtype::BF16,
            shape,
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
}

/// Writes a safetensors file.
pub fn write_safetensors(path: &Path, tensors: &[Tensor]) {
    let views: Vec<(&str, TensorView<'_>)> = tensors
        .iter()
        .map(|t| {
            (
                t.name,
                TensorView::new(t.dtype, t.shape.clone(), &t.bytes).expect("valid view"),
            )
        })
        .collect();
    let bytes = safetensors::serialize(views, None).expect("serialize");
    std::fs::write(path, bytes).expect("write");
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// `path` inside `dir`.
pub fn file(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// `n` tokens drawn by the model from one row at positions `0..n`.
pub fn model_draws(x: &[f32], params: SamplingParams, n: usize) -> Vec<u32> {
    let rows: Vec<RowRequest> = (0..n as u64)
        .map(|p| params.at_position(p).into())
        .collect();
    sample_batch(x, x.len(), 0, &rows)
        .expect("valid batch")
        .iter()
        .map(|o| o.token)
        .collect()
}
