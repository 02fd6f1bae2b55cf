//! Integration tests of `tailrace-model`, one binary (`cargo test -p tailrace-model --test it`).
//!
//! Which module proves what:
//! - [`oracle`]: not a test; a brute-force sampler written from the spec text
//!   (sort, walk, sum, compare every score) that the tests compare against.
//! - [`props`]: property tests (proptest, fixed ChaCha seed): a row's token
//!   equals the oracle's and never depends on batch slot, batch mates, batch
//!   size, vocabulary chunking, threads or sharding; filters keep exactly the
//!   spec's rank-order prefix (plus directed boundary rows for the exact
//!   top-p target and the min-p threshold); greedy is the smallest-index
//!   argmax; any finite T and any u32 top-k draw a token; bad parameters give
//!   typed errors; bad rows get their status without touching their mates.
//! - [`stats`]: chi-square tests of the drawn law (plain and filtered) against
//!   softmax(a / T) computed in the test, 10^6 draws per law.
//! - [`golden`]: a fixed table of draws, snapshotted with insta in
//!   `golden/draws/` and cross-checked against the oracle.

mod golden;
mod oracle;
mod props;
mod spec_examples;
mod stats;

use half::{bf16, f16};

/// SplitMix64 (Steele, Lea, Flood 2014): the tests' fixed-seed data generator,
/// deliberately unrelated to Philox.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) on the 2^-53 grid.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * f64::from_bits((1023 - 53) << 52)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// A logits element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Dtype {
    F32,
    Bf16,
    F16,
}

impl Dtype {
    pub const ALL: [Dtype; 3] = [Dtype::F32, Dtype::Bf16, Dtype::F16];
}

/// A logits buffer in one of the three dtypes.
#[derive(Debug, Clone)]
pub enum Logits {
    F32(Vec<f32>),
    Bf16(Vec<bf16>),
    F16(Vec<f16>),
}

impl Logits {
    /// Rounds `x` (to nearest even) into `dtype`.
    pub fn from_f32(dtype: Dtype, x: &[f32]) -> Self {
        match dtype {
            Dtype::F32 => Logits::F32(x.to_vec()),
            Dtype::Bf16 => Logits::Bf16(x.iter().map(|&v| bf16::from_f32(v)).collect()),
            Dtype::F16 => Logits::F16(x.iter().map(|&v| f16::from_f32(v)).collect()),
        }
    }

    /// The exact binary32 values.
    pub fn to_f32(&self) -> Vec<f32> {
        match self {
            Logits::F32(v) => v.clone(),
            Logits::Bf16(v) => v.iter().map(|x| x.to_f32()).collect(),
            Logits::F16(v) => v.iter().map(|x| x.to_f32()).collect(),
        }
    }
}

/// Runs `$body` with `$x` bound to the typed slice of a [`Logits`].
#[macro_export]
macro_rules! with_logits {
    ($l:expr, $x:ident => $body:expr) => {
        match $l {
            $crate::Logits::F32($x) => $body,
            $crate::Logits::Bf16($x) => $body,
            $crate::Logits::F16($x) => $body,
        }
    };
}
