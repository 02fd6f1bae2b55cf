//! The backend-neutral sampler interface every property is written against.

use half::{bf16, f16};
use tailrace_model::{BatchOptions, RowOutput, RowRequest};
use tailrace_noise::{philox, profile, NoiseProfile};

/// A logits buffer in one of the supported dtypes.
#[derive(Debug, Clone, PartialEq)]
pub enum Logits {
    /// binary32.
    F32(Vec<f32>),
    /// bfloat16.
    Bf16(Vec<bf16>),
    /// binary16.
    F16(Vec<f16>),
}

impl Logits {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Logits::F32(v) => v.len(),
            Logits::Bf16(v) => v.len(),
            Logits::F16(v) => v.len(),
        }
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dtype name.
    pub fn dtype(&self) -> &'static str {
        match self {
            Logits::F32(_) => "f32",
            Logits::Bf16(_) => "bf16",
            Logits::F16(_) => "f16",
        }
    }

    /// Builds a buffer of `dtype` from binary32 values (rounded to nearest for the 16-bit types).
    pub fn from_f32(dtype: &str, v: &[f32]) -> Logits {
        match dtype {
            "bf16" => Logits::Bf16(v.iter().map(|&x| bf16::from_f32(x)).collect()),
            "f16" => Logits::F16(v.iter().map(|&x| f16::from_f32(x)).collect()),
            _ => Logits::F32(v.to_vec()),
        }
    }

    /// The rows `rows` (each `stride` long) gathered into a new buffer in that
    /// order (a shared row, `stride == 0`, stays shared).
    pub fn gather(&self, stride: usize, rows: &[usize]) -> Logits {
        if stride == 0 {
            return self.clone();
        }
        fn g<T: Copy>(v: &[T], stride: usize, rows: &[usize]) -> Vec<T> {
            rows.iter()
                .flat_map(|&r| v[r * stride..(r + 1) * stride].iter().copied())
                .collect()
        }
        match self {
            Logits::F32(v) => Logits::F32(g(v, stride, rows)),
            Logits::Bf16(v) => Logits::Bf16(g(v, stride, rows)),
            Logits::F16(v) => Logits::F16(g(v, stride, rows)),
        }
    }
}

/// One batch: `[rows, stride]` logits of which the first `vocab` of each row are used.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchInput {
    /// The logits.
    pub logits: Logits,
    /// Vocabulary size.
    pub vocab: usize,
    /// Row stride (>= vocab).
    pub stride: usize,
    /// Per-row requests.
    pub rows: Vec<RowRequest>,
}

impl BatchInput {
    /// The sub-batch of `rows` in that order (same stride).
    pub fn select(&self, rows: &[usize]) -> BatchInput {
        BatchInput {
            logits: self.logits.gather(self.stride, rows),
            vocab: self.vocab,
            stride: self.stride,
            rows: rows.iter().map(|&r| self.rows[r].clone()).collect(),
        }
    }
}

/// How a backend splits the work. Outputs must not depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Geometry {
    /// Threads per block (CUDA) or vocabulary chunk (CPU); None = the backend's choice.
    pub block: Option<u32>,
    /// Blocks per row (CUDA); None = the backend's choice.
    pub splits: Option<u32>,
}

/// A sampler backend under test.
pub trait Sampler: Send + Sync {
    /// Short name: "cpu", "cuda".
    fn name(&self) -> &'static str;

    /// What it runs on (CPU model, GPU name and driver).
    fn describe(&self) -> String;

    /// Samples a batch with the given geometry.
    fn sample(&self, input: &BatchInput, geometry: Geometry) -> anyhow::Result<Vec<RowOutput>>;

    /// Launch geometries worth comparing (the first is the default).
    fn geometries(&self, vocab: usize) -> Vec<Geometry>;

    /// `ln E` bits of each (seed, position, index) triple under `profile`, if the backend can dump noise.
    fn noise_ln_bits(
        &self,
        _profile: NoiseProfile,
        _triples: &[(u64, u64, u32)],
    ) -> Option<anyhow::Result<Vec<u64>>> {
        None
    }

    /// Raw Philox4x32-10 blocks, if the backend exposes them.
    fn philox(&self, _inputs: &[([u32; 4], [u32; 2])]) -> Option<anyhow::Result<Vec<[u32; 4]>>> {
        None
    }

    /// Samples `input` `replays` times while side streams run heavy work, if the backend has streams.
    fn sample_under_contention(
        &self,
        _input: &BatchInput,
        _replays: usize,
        _perturb: bool,
    ) -> Option<anyhow::Result<Vec<Vec<RowOutput>>>> {
        None
    }
}

/// The CPU reference model as a backend.
#[derive(Debug, Default)]
pub struct CpuSampler;

impl Sampler for CpuSampler {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn describe(&self) -> String {
        format!(
            "CPU reference model, {} rayon threads",
            rayon::current_num_threads()
        )
    }

    fn sample(&self, input: &BatchInput, geometry: Geometry) -> anyhow::Result<Vec<RowOutput>> {
        let opts = BatchOptions {
            chunk: geometry.block.unwrap_or(0) as usize,
            parallel: geometry.splits != Some(1),
        };
        let out = match &input.logits {
            Logits::F32(v) => {
                tailrace_model::sample_batch_with(opts, v, input.vocab, input.stride, &input.rows)
            }
            Logits::Bf16(v) => {
                tailrace_model::sample_batch_with(opts, v, input.vocab, input.stride, &input.rows)
            }
            Logits::F16(v) => {
                tailrace_model::sample_batch_with(opts, v, input.vocab, input.stride, &input.rows)
            }
        };
        Ok(out?)
    }

    fn geometries(&self, vocab: usize) -> Vec<Geometry> {
        let mut g = vec![
            Geometry::default(),
            Geometry {
                block: None,
                splits: Some(1),
            },
        ];
        for c in [4u32, 36, 1000, 4096] {
            if (c as usize) < vocab {
                g.push(Geometry {
                    block: Some(c),
                    splits: None,
                });
            }
        }
        g
    }

    fn noise_ln_bits(
        &self,
        profile: NoiseProfile,
        triples: &[(u64, u64, u32)],
    ) -> Option<anyhow::Result<Vec<u64>>> {
        Some(Ok(triples
            .iter()
            .map(|&(s, p, i)| profile::ln_variate(profile, s, p, i).to_bits())
            .collect()))
    }

    fn philox(&self, inputs: &[([u32; 4], [u32; 2])]) -> Option<anyhow::Result<Vec<[u32; 4]>>> {
        Some(Ok(inputs
            .iter()
            .map(|&(c, k)| philox::philox4x32_10(c, k))
            .collect()))
    }
}
